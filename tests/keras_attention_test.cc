// Keras attention layers against Keras: the models made by
// tests/fixtures/gen_keras_attention.py (MultiHeadAttention, EinsumDense, Attention,
// AdditiveAttention, GroupNormalization, UnitNormalization, Keras masks reaching non-recurrent
// layers, a Transformer encoder block), their `graphrt convert` SavedModels, and the errors that
// must name the layer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "runtime/core/str_util.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string Dir() { return testing::SourceDir() + "/tests/fixtures/keras_attention"; }

// What gen_keras_attention.py wrote.
constexpr int kCases = 49;
constexpr int kErrorCases = 3;

TEST(KerasAttention, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(Dir(), kCases); }

TEST(KerasAttention, ConvertedSavedModelsMatchKeras) {
  testing::ExpectKerasConversionsMatch(Dir(), kCases);
}

TEST(KerasAttention, TransformerEncoderHasItsLayers) {
  StatusOr<KerasModel> m = LoadKerasModel(Dir() + "/transformer_encoder.h5");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->graph.inputs.size(), 2u);
  EXPECT_EQ(m->graph.inputs[0].name, "tokens");
  EXPECT_EQ(m->graph.inputs[1].name, "positions");
  bool has_mha = false;
  for (const auto& layer : m->graph.layers) {
    if (layer.class_name != "MultiHeadAttention") continue;
    has_mha = true;
    // query, key, value and attention_output kernels and biases.
    EXPECT_EQ(layer.weights.size(), 8u);
  }
  EXPECT_TRUE(has_mha);
}

TEST(KerasAttention, ErrorsNameTheLayer) { testing::ExpectKerasErrorsNamed(Dir(), kErrorCases); }

TEST(KerasAttention, MalformedConfigsNameTheLayer) {
  // Architectures given with --keras-config to a file whose layers hold no weights.
  const std::string in = R"({"class_name": "InputLayer", "config": {"name": "x",
      "batch_input_shape": [null, 3, 4]}, "name": "x", "inbound_nodes": []})";
  auto model = [&](const std::string& cls, const std::string& config,
                   const std::string& inbound = R"([[["x", 0, 0, {}]]])") {
    return StrCat(R"({"class_name": "Functional", "config": {"name": "m", "layers": [)", in,
                  R"(, {"class_name": ")", cls, R"(", "name": "y", "config": {"name": "y", )",
                  config, R"(}, "inbound_nodes": )", inbound,
                  R"(}], "input_layers": [["x", 0, 0]], "output_layers": [["y", 0, 0]]}})");
  };
  const std::string self = R"([[["x", 0, 0, {"value": ["x", 0, 0]}]]])";
  const std::vector<std::string> configs = {
      model("MultiHeadAttention", R"("num_heads": 0, "key_dim": 2)", self),
      model("MultiHeadAttention", R"("num_heads": 2, "key_dim": 2)"),  // no value
      model("MultiHeadAttention", R"("num_heads": 2, "key_dim": 2, "attention_axes": "oops")",
            self),
      model("MultiHeadAttention", R"("num_heads": 2, "key_dim": 2, "attention_axes": [0])", self),
      model("MultiHeadAttention", R"("num_heads": 2, "key_dim": 2)",
            R"([[["x", 0, 0, {"value": ["nowhere", 0, 0]}]]])"),
      model("MultiHeadAttention", R"("num_heads": 2, "key_dim": 2, "output_shape": [0])", self),
      model("EinsumDense", R"("equation": "abc", "output_shape": 2)"),
      model("EinsumDense", R"("equation": "ab,bc->ac", "output_shape": 2)"),
      model("EinsumDense", R"("equation": "abc,cd->abd", "output_shape": [3, 2],
                              "bias_axes": "z")"),
      model("EinsumDense", R"("equation": "aBc,cd->aBd", "output_shape": [3, 2])"),
      model("Attention", R"("score_mode": "dot")"),  // one input
      model("Attention", R"("score_mode": 7)", R"([[["x", 0, 0, {}], ["x", 0, 0, {}]]])"),
      model("AdditiveAttention", R"("use_scale": true)", R"([[["x", 0, 0, {}], ["x", 0, 0, {}]]])"),
      model("GroupNormalization", R"("groups": 3)"),
      model("GroupNormalization", R"("groups": 2, "axis": 0)"),
      model("UnitNormalization", R"("axis": 9)"),
      model("UnitNormalization", R"("axis": [])"),
  };
  const std::string path = ::testing::TempDir() + "/keras_attention_bad_config.json";
  for (const std::string& config : configs) {
    ASSERT_TRUE(WriteStringToFile(path, config).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m = LoadKerasModel(Dir() + "/unit_norm.h5", options);
    ASSERT_FALSE(m.ok()) << config;
    const std::string& msg = m.status().message();
    EXPECT_TRUE(msg.find("layer 'y'") != std::string::npos ||
                msg.find("'nowhere'") != std::string::npos ||
                msg.find("never become available") != std::string::npos)
        << config << "\n"
        << msg;
  }
}

}  // namespace
}  // namespace graphrt
