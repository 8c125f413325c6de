// TFOpLambda / SlicingOpLambda, Rescaling and Normalization against Keras: the models
// tests/fixtures/gen_keras_tfop.py wrote (one per tf function and option, MobileNetV3Small and
// EfficientNetB0), their `graphrt convert` SavedModels, and the errors graphrt must report.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

std::string Dir() { return testing::SourceDir() + "/tests/fixtures/keras_tfop"; }

// 23 small models and the two applications.
constexpr int kCases = 25;
constexpr int kErrors = 6;

TEST(KerasTfOp, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(Dir(), kCases); }

TEST(KerasTfOp, ConversionsMatchKerasInTensorFlow) {
  testing::ExpectKerasConversionsMatch(Dir(), kCases);
}

TEST(KerasTfOp, ErrorsNameTheLayerAndFunction) {
  nlohmann::json manifest = testing::KerasManifest(Dir());
  ASSERT_TRUE(manifest.contains("errors"));
  int seen = 0;
  for (const auto& [name, e] : manifest["errors"].items()) {
    SCOPED_TRACE(name);
    ++seen;
    StatusOr<KerasModel> m = LoadKerasModel(Dir() + "/" + e["model"].get<std::string>());
    ASSERT_FALSE(m.ok());
    const std::string& msg = m.status().message();
    for (const auto& s : e["must_name"]) {
      EXPECT_NE(msg.find(s.get<std::string>()), std::string::npos) << s << " not in: " << msg;
    }
  }
  EXPECT_EQ(seen, kErrors);
}

}  // namespace
}  // namespace graphrt
