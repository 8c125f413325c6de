// The fuzz reproducers of ../shared/reliability that reach graph import, through the command as a
// user meets them: each is one `graphrt: error:` line and exit 2, never a signal. (The .npy and
// .h5 reproducers are covered beside their readers' hostile-input tests.)
#include <gtest/gtest.h>

#include <string>

#include "runtime/core/str_util.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string Reproducer(const std::string& name) {
  return testing::SharedDir() + "/reliability/" + name;
}

void ExpectCleanError(const testing::CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out.rfind("graphrt: error: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
}

TEST(ReliabilityTest, HugeDtypeEnumIsAnErrorNotAStackOverflow) {
  if (!testing::SharedDirAvailable()) GTEST_SKIP() << "../shared is absent";
  const std::string graph = Reproducer("bigdtype.pbtxt");
  ExpectCleanError(testing::RunGraphrt("inspect " + graph), "2000000000");
  ExpectCleanError(testing::RunGraphrt(StrCat("run ", graph, " --input x=1 --output x")),
                   "2000000000");
}

}  // namespace
}  // namespace graphrt
