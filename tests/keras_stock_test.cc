// Stock tf-keras layers and options against Keras: the models made by
// tests/fixtures/gen_keras_stock.py (Identity, LocallyConnected1D/2D in tf-keras's three
// implementations, SpectralNormalization, SyncBatchNormalization, RandomFourierFeatures,
// HashedCrossing, and options of the other layers: grouped convolutions, normalization over
// several axes, activation options, asymmetric padding, broadcasting merges, ...), their
// `graphrt convert` SavedModels, and the errors that must name the layer.
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

std::string Dir() { return testing::SourceDir() + "/tests/fixtures/keras_stock"; }

// What gen_keras_stock.py wrote.
constexpr int kCases = 81;
constexpr int kErrorCases = 3;

TEST(KerasStock, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(Dir(), kCases); }

TEST(KerasStock, ConvertedSavedModelsMatchKeras) {
  testing::ExpectKerasConversionsMatch(Dir(), kCases);
}

TEST(KerasStock, ErrorsNameTheLayer) { testing::ExpectKerasErrorsNamed(Dir(), kErrorCases); }

TEST(KerasStock, MalformedConfigsNameTheLayer) {
  // Architectures given with --keras-config to a file whose layers hold no weights.
  const std::string in = R"({"class_name": "InputLayer", "config": {"name": "x",
      "batch_input_shape": [null, 6, 4]}, "name": "x", "inbound_nodes": []})";
  auto model = [&](const std::string& cls, const std::string& config) {
    return StrCat(R"({"class_name": "Functional", "config": {"name": "m", "layers": [)", in,
                  R"(, {"class_name": ")", cls, R"(", "name": "y", "config": {"name": "y", )",
                  config, R"(}, "inbound_nodes": [[["x", 0, 0, {}]]]}],
                  "input_layers": [["x", 0, 0]], "output_layers": [["y", 0, 0]]}})");
  };
  const std::vector<std::string> configs = {
      model("LocallyConnected1D", R"("filters": 2, "kernel_size": 2, "implementation": 0)"),
      model("LocallyConnected1D", R"("filters": 2, "kernel_size": 9)"),
      model("LocallyConnected1D", R"("filters": 2, "kernel_size": 2, "padding": "same")"),
      model("LocallyConnected1D", R"("filters": 2, "kernel_size": 2, "padding": "causal",
                                     "implementation": 2)"),
      model("LocallyConnected1D", R"("filters": 0, "kernel_size": 2, "implementation": 3)"),
      model("LocallyConnected1D", R"("filters": 2, "kernel_size": 2,
                                     "data_format": "channels_first")"),
      model("LocallyConnected2D", R"("filters": 2, "kernel_size": 2)"),
      model("LocallyConnected1D", R"("filters": 2, "kernel_size": 2)"),  // no weights
      model("SpectralNormalization", R"("power_iterations": 1)"),        // no inner layer
      model("RandomFourierFeatures", R"("output_dim": 3)"),              // rank 3 input
      model("Conv1D", R"("filters": 2, "kernel_size": 2, "groups": 3)"),
      model("Conv1D", R"("filters": 2, "kernel_size": 2, "groups": 0)"),
      model("BatchNormalization", R"("axis": [])"),
      model("BatchNormalization", R"("axis": [0, 2])"),
      model("Softmax", R"("axis": [1, 5])"),
      model("DenseFeatures", R"("feature_columns": [])"),
      model("HashedCrossing", R"("num_bins": 4)"),  // one input
      model("RandomFourierFeatures", R"("output_dim": 0)"),
  };
  const std::string path = ::testing::TempDir() + "/keras_stock_bad_config.json";
  for (const std::string& config : configs) {
    ASSERT_TRUE(WriteStringToFile(path, config).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m = LoadKerasModel(Dir() + "/identity.h5", options);
    ASSERT_FALSE(m.ok()) << config;
    EXPECT_NE(m.status().message().find("layer 'y'"), std::string::npos) << config << "\n"
                                                                         << m.status().message();
  }
}

}  // namespace
}  // namespace graphrt
