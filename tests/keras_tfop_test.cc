// TFOpLambda / SlicingOpLambda, Rescaling and Normalization against Keras: the models
// tests/fixtures/gen_keras_tfop.py wrote (one per tf function and option, MobileNetV3Small and
// EfficientNetB0), their `graphrt convert` SavedModels, and the errors graphrt must report.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "runtime/core/str_util.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

std::string Dir() { return testing::SourceDir() + "/tests/fixtures/keras_tfop"; }

// 25 small models and the two applications.
constexpr int kCases = 27;
constexpr int kErrors = 6;

TEST(KerasTfOp, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(Dir(), kCases); }

TEST(KerasTfOp, ConversionsMatchKerasInTensorFlow) {
  testing::ExpectKerasConversionsMatch(Dir(), kCases);
}

TEST(KerasTfOp, ErrorsNameTheLayerAndFunction) { testing::ExpectKerasErrorsNamed(Dir(), kErrors); }

TEST(KerasTfOp, HostileCallsNameTheLayer) {
  // A model of an input "x" [?, 6, 2] and a layer "y" of class `cls` called as `inbound`.
  auto model = [](const std::string& cls, const std::string& config, const std::string& inbound) {
    return StrCat(R"({"class_name": "Functional", "config": {"name": "m", "layers": [)",
                  R"({"class_name": "InputLayer", "name": "x", "inbound_nodes": [], )",
                  R"("config": {"name": "x", "batch_input_shape": [null, 6, 2]}}, )",
                  R"({"class_name": ")", cls, R"(", "name": "y", "config": {"name": "y")",
                  config.empty() ? "" : ", ", config, R"(}, "inbound_nodes": )", inbound,
                  R"(}], "input_layers": [["x", 0, 0]], "output_layers": [["y", 0, 0]]}})");
  };
  auto op = [&](const std::string& function, const std::string& kwargs) {
    return model("TFOpLambda", StrCat(R"("function": ")", function, R"(")"),
                 StrCat(R"([["x", 0, 0, )", kwargs, "]]"));
  };
  // config -> what the error must say
  const std::vector<std::pair<std::string, std::string>> cases = {
      {model("TFOpLambda", R"("function": "math.add")", "[5]"),
       "layer 'y': malformed inbound node 5"},
      {model("TFOpLambda", R"("function": "math.add")", R"([["x", 0, 0, [1, 2]]])"),
       "layer 'y': call arguments are not a JSON object"},
      {model("TFOpLambda", "", R"([["x", 0, 0, {}]])"), "y (TFOpLambda : function not supported)"},
      {op("math.add", R"({"y": ["nope", 0, 0]})"), "inputs never become available"},
      {op("math.add", R"({"y": ["x", 0, 5]})"), "layer 'y' takes output 5 of 'x'"},
      {op("math.add", R"({"y": {"__input__": 99}})"),
       "layer 'y' (TFOpLambda math.add): tensor reference 99 out of range"},
      {op("math.add", R"({"y": "abc"})"), "layer 'y' (TFOpLambda math.add): constant \"abc\""},
      {op("math.add", R"({"y": [[1], [1, 2]]})"), "not a rectangular list of numbers"},
      {op("math.add", R"({"y": [1, 2, 3]})"), "do not broadcast"},
      {op("math.add", "{}"), "layer 'y' (TFOpLambda math.add): missing argument y"},
      {op("reshape", R"({"shape": [-1, 2000000000, 2000000000]})"), "layer 'y' (TFOpLambda"},
      {op("split", R"({"num_or_size_splits": 0, "axis": 1})"), "split of a dimension of 6 into 0"},
      {op("split", R"({"num_or_size_splits": [4, 4], "axis": 1})"), "split sizes [4,4]"},
      {op("cast", R"({"dtype": "nonsense"})"), "cast to dtype 'nonsense'"},
      {op("expand_dims", R"({"axis": 1e300})"),
       "layer 'y' (TFOpLambda): malformed config: the number"},
      {op("linalg.matmul", R"({"b": [[1.0]]})"), "layer 'y' (TFOpLambda linalg.matmul): matmul of"},
      {op("math.reduce_sum", R"({"axis": [1, 1]})"), "axis 1 given twice"},
      {op("expand_dims", R"({"axis": 9})"), "axis 9 is out of range for rank 4"},
      {model("SlicingOpLambda", R"("function": "__operators__.getitem")",
             R"([["x", 0, 0, {"slice_spec": {"start": 1, "stop": null, "step": 0}}]])"),
       "layer 'y' (SlicingOpLambda __operators__.getitem): slice step 0"},
      {model("SlicingOpLambda", R"("function": "__operators__.getitem")",
             R"([["x", 0, 0, {"slice_spec": [0, 9]}]])"),
       "index 9 of a dimension of 6"},
      {model("Normalization", R"("axis": -1, "mean": [1, 2])", R"([[["x", 0, 0, {}]]])"),
       "layer 'y': a mean without a variance"},
      {model("Normalization", R"("axis": -1, "mean": [1, 2, 3], "variance": 1)",
             R"([[["x", 0, 0, {}]]])"),
       "layer 'y': mean has 3 values for statistics of shape [2]"},
      {model("Normalization", R"("axis": 0, "mean": 1, "variance": 1)", R"([[["x", 0, 0, {}]]])"),
       "layer 'y': normalization over the batch axis"},
      {model("Normalization", R"("axis": -1)", R"([[["x", 0, 0, {}]]])"),
       "layer 'y': the architecture needs a weight 'mean'"},
      {model("Rescaling", R"("scale": [1, 2, 3])", R"([[["x", 0, 0, {}]]])"),
       "layer 'y': 3 scales or offsets for 2 channels"},
      {model("Rescaling", R"("scale": "big")", R"([[["x", 0, 0, {}]]])"),
       "layer 'y' (Rescaling): malformed config"},
  };
  const std::string path = ::testing::TempDir() + "/keras_tfop_hostile.json";
  for (const auto& [config, error] : cases) {
    ASSERT_TRUE(WriteStringToFile(path, config).ok());
    KerasModelOptions options;
    options.config_path = path;
    // A file without weights: the config alone describes the model.
    StatusOr<KerasModel> m = LoadKerasModel(Dir() + "/bias_add.h5", options);
    ASSERT_FALSE(m.ok()) << config;
    EXPECT_NE(m.status().message().find(error), std::string::npos)
        << config << "\n  gave: " << m.status();
  }
}

}  // namespace
}  // namespace graphrt
