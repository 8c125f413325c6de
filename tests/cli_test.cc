// The graphrt command as scripts use it: outputs, formats and exit codes (CLI.md).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "formats/file_util.h"
#include "formats/npy.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string Fixture(const std::string& rel) {
  return testing::SourceDir() + "/tests/fixtures/" + rel;
}

TEST(CliTest, RunWithInlineAndNpyInputs) {
  const std::string graph = Fixture("ops/binary/add_f32_3x5.pb");
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("run ", graph, " --input x=", Fixture("ops/binary/add_f32_3x5.in0.npy"),
             " --input y=", Fixture("ops/binary/add_f32_3x5.in1.npy"), " --output z"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("z: float32[3,5] [", 0), 0u) << r.out;
}

TEST(CliTest, JsonOutputAndOutDir) {
  std::string dir = ::testing::TempDir() + "/cli_out";
  std::string mkdir = "mkdir -p " + dir;
  ASSERT_EQ(std::system(mkdir.c_str()), 0);
  const std::string graph = Fixture("ops/binary/add_f32_3x5.pb");
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("run ", graph, " --input x=", Fixture("ops/binary/add_f32_3x5.in0.npy"), " --input=y=",
             Fixture("ops/binary/add_f32_3x5.in1.npy"), " --output z:0 --json --out-dir ", dir));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind(
                "{\"outputs\": [{\"name\": \"z:0\", \"dtype\": \"float32\", \"shape\": [3, 5]", 0),
            0u)
      << r.out;
  StatusOr<Tensor> written = ReadNpy(dir + "/z_0.npy");
  ASSERT_TRUE(written.ok()) << written.status();
  StatusOr<Tensor> expected = ReadNpy(Fixture("ops/binary/add_f32_3x5.out0.npy"));
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(testing::CompareTensors(*written, *expected, 1e-6, 0), "");
}

TEST(CliTest, InlineValuesGetThePlaceholderDtype) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  std::string graph =
      testing::SharedDir() + "/testdata/real/tensorflow__rust/examples/addition/model.pb";
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("run ", graph, " --input x=3 --input y=-4 --output z"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "z: int32[] [-1]\n");
  r = testing::RunGraphrt(StrCat("run ", graph, " --input x=3.5 --input y=1 --output z"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("graphrt: error: "), std::string::npos) << r.out;
}

TEST(CliTest, ErrorsExitTwoWithOneLine) {
  const std::string graph = Fixture("ops/binary/add_f32_3x5.pb");
  for (const std::string& args : {
           std::string("run /no/such/graph.pb --output z"),
           StrCat("run ", graph, " --input x=/no/such/input.npy --output z"),
           StrCat("run ", graph, " --output nope"),
           StrCat("run ", graph, " --bogus-flag"),
           StrCat("run ", graph),
           std::string("frobnicate"),
       }) {
    testing::CommandResult r = testing::RunGraphrt(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("graphrt: error: ", 0), 0u) << args << "\n" << r.out;
  }
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("run ", graph, " --input x=/no/such/input.npy --output z"));
  EXPECT_NE(r.out.find("/no/such/input.npy"), std::string::npos) << r.out;
}

TEST(CliTest, InspectGraphDef) {
  testing::CommandResult r = testing::RunGraphrt("inspect " + Fixture("models/mlp.pb"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("MatMul: 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x: float32[?,784]"), std::string::npos) << r.out;
  r = testing::RunGraphrt("inspect --json " + Fixture("models/mlp.pb"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"MatMul\": 3"), std::string::npos) << r.out;
}

TEST(CliTest, LogPlacementToFileAndJsonReport) {
  std::string log = ::testing::TempDir() + "/placement.log";
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("run ", Fixture("models/mlp.pb"), " --input x=", Fixture("models/mlp_batch1.in0.npy"),
             " --output probs --json --log-placement=", log));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"placement\": [{\"node\": "), std::string::npos) << r.out;
  StatusOr<std::string> text = ReadFileToString(log);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("dense1/MatMul: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0\n"),
            std::string::npos)
      << *text;
  r = testing::RunGraphrt(StrCat("placement replay ", log, " ", Fixture("models/mlp.pb")));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(StrCat("placement diff ", log, " ", Fixture("placement/mlp.gpu.log")));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  r = testing::RunGraphrt(
      StrCat("placement replay ", Fixture("models/mlp.pb"), " ", Fixture("models/mlp.pb")));
  EXPECT_EQ(r.exit_code, 2) << r.out;  // a binary file given as a log
}

TEST(CliTest, HelpDescribesEachCommand) {
  EXPECT_EQ(testing::RunGraphrt("run --help").exit_code, 0);
  EXPECT_EQ(testing::RunGraphrt("inspect --help").exit_code, 0);
  EXPECT_EQ(testing::RunGraphrt("--help").exit_code, 0);
}

}  // namespace
}  // namespace graphrt
