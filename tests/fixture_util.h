// Reads the fixture manifests written by tests/fixtures/gen_*.py and runs their cases through a
// Session, comparing each fetch with TensorFlow's output under the case's tolerance
// (|graphrt - tf| <= atol + rtol * |tf|; exact for integers, bool and strings).
#ifndef GRAPHRT_TESTS_FIXTURE_UTIL_H_
#define GRAPHRT_TESTS_FIXTURE_UTIL_H_

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/session/session_options.h"

namespace graphrt {
namespace testing {

struct FixtureCase {
  std::string name;
  std::string graph_path;
  std::vector<std::pair<std::string, std::string>> feeds;    // tensor -> npy path
  std::vector<std::pair<std::string, std::string>> fetches;  // tensor -> npy path
  std::vector<std::string> targets;
  std::set<std::string> bf16;  // feeds/fetches whose npy holds raw bfloat16 bits
  // Feeds/fetches of a quantized type ("dtypes": {tensor: "quint8"}), stored in the npy as the
  // integers of the same width.
  std::map<std::string, DataType> dtypes;
  double rtol = 0;
  double atol = 0;
};

std::string SourceDir();
// The shared data folder (../shared beside the checkout): $GRAPHRT_SHARED_DIR when set, so that a
// run can point it elsewhere (the ctest SharedDataAbsentFailsUnderCi points it at nothing).
std::string SharedDir();
bool SharedDirAvailable();

// Whether this is a CI run: $CI set, and neither "false" nor "0". In CI missing test data or a
// missing OpenCL device (scripts/setup.sh installs PoCL) is a failure, not a skip, so that the
// suite cannot pass by skipping.
bool InCi();

// "" when ../shared/testdata/real is present, else a message naming the missing path.
std::string MissingSharedData();
// A fuzz reproducer in ../shared/reliability, and "" when that folder is present, else a message
// naming it (for GRT_REQUIRE_OR_SKIP).
std::string ReliabilityInput(const std::string& name);
std::string MissingReliabilityInputs();

// Skips the test when `missing` (a message naming what is missing; "" when nothing is) is not
// empty, or fails it under CI. For data or devices that a test needs; a test that is skipped by
// design (one only run as a child process or by a generator) uses GTEST_SKIP and a name that
// tests/CMakeLists.txt disables in ctest.
#define GRT_REQUIRE_OR_SKIP(missing)                                                     \
  do {                                                                                   \
    const std::string grt_missing_ = (missing);                                          \
    if (!grt_missing_.empty()) {                                                         \
      if (::graphrt::testing::InCi())                                                    \
        GTEST_FAIL() << grt_missing_ << " (CI is set: what a test needs must be there)"; \
      GTEST_SKIP() << grt_missing_;                                                      \
    }                                                                                    \
  } while (0)

// For tests of the graph optimizer's rewrites: under GRAPHRT_OPTIMIZER=0 (the suite run with the
// optimizer off, scripts/run_tests.sh) no pass fires, so such a test is skipped by design.
#define GRT_SKIP_WHEN_OPTIMIZER_OFF()                                      \
  do {                                                                     \
    const char* grt_env_ = std::getenv("GRAPHRT_OPTIMIZER");               \
    if (grt_env_ != nullptr && std::string(grt_env_) == "0") {             \
      GTEST_SKIP() << "GRAPHRT_OPTIMIZER=0 turns the graph optimizer off"; \
    }                                                                      \
  } while (0)

// GRT_REQUIRE_OR_SKIP for tests that read ../shared/testdata/real.
#define GRT_REQUIRE_SHARED_OR_SKIP() GRT_REQUIRE_OR_SKIP(::graphrt::testing::MissingSharedData())

// Reads `dir`/manifest.json. Paths in the result are absolute; "shared:" graphs resolve under
// SharedDir().
StatusOr<std::vector<FixtureCase>> LoadManifest(const std::string& dir);

// Compares one tensor with the expected one; returns "" when they agree, else what differs.
std::string CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol);

// Runs the case; "" on success, else a description of the failure.
std::string RunFixtureCase(const FixtureCase& c, const SessionConfig& config = SessionConfig());

// Runs every case of `dir`'s manifest and expects (gtest) `expected_cases` of them, all matching;
// a failure lists every failing case. Returns the cases, for tests that count them further.
std::vector<FixtureCase> ExpectManifestMatches(const std::string& dir, int expected_cases,
                                               const SessionConfig& config = SessionConfig());

// Runs each graph of `dir`/errors.json ({"errors": [{"name", "graph", "feeds": {tensor: npy},
// "fetch", "node", "code" (optional, default INVALID_ARGUMENT), "tensorflow_message", "at"
// (optional: "create" for a graph refused when it is loaded, default "run")}]}), graphs
// TensorFlow refuses, and expects graphrt to refuse it with the same code, naming the node.
void ExpectErrorCasesRefused(const std::string& dir, int expected_cases);

// What a shell command printed (stdout and stderr together) and its exit code; a child killed
// by a signal reads as 128 + signal, as the shell reports it.
struct CommandResult {
  int exit_code = -1;
  std::string out;
};

// Runs `command` through the shell, capturing stdout and stderr.
CommandResult RunShell(const std::string& command);

// Runs the graphrt binary with `args`; `env` ("VAR=value ...") goes before it, and a non-empty
// `cwd` is the folder it runs in.
CommandResult RunGraphrt(const std::string& args, const std::string& env = "",
                         const std::string& cwd = "");

}  // namespace testing
}  // namespace graphrt

#endif  // GRAPHRT_TESTS_FIXTURE_UTIL_H_
