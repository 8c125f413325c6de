// Op fixtures from tests/fixtures/gen_feature_ops.py: tf.Example parsing, string and
// feature-column ops against TensorFlow 2.15.1's outputs (bit-exact hashes included).
#include <gtest/gtest.h>

#include <map>

#include "tests/fixture_util.h"

namespace graphrt {
namespace testing {
namespace {

class FeatureOpFixtures : public ::testing::TestWithParam<std::string> {};

TEST_P(FeatureOpFixtures, MatchTensorFlow) {
  StatusOr<std::vector<FixtureCase>> cases =
      LoadManifest(SourceDir() + "/tests/fixtures/ops/" + GetParam());
  ASSERT_TRUE(cases.ok()) << cases.status();
  int failed = 0, ran = 0;
  std::string report;
  for (const FixtureCase& c : *cases) {
    std::string error = RunFixtureCase(c);
    ++ran;
    if (!error.empty()) {
      ++failed;
      report += StrCat("  ", c.name, ": ", error, "\n");
    }
  }
  // Cases per family, as the generator wrote them.
  const std::map<std::string, int> expected_cases = {
      {"parsing", 24}, {"strings", 30}, {"feature_columns", 33}};
  EXPECT_EQ(ran, expected_cases.at(GetParam()));
  EXPECT_EQ(failed, 0) << failed << " of " << cases->size() << " cases failed:\n" << report;
}

INSTANTIATE_TEST_SUITE_P(Families, FeatureOpFixtures,
                         ::testing::Values("parsing", "strings", "feature_columns"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace testing
}  // namespace graphrt
