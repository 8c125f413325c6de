// Keras convolution, pooling and reshaping layers against Keras: the models of
// tests/fixtures/gen_keras_conv.py (Conv3D, the transposed convolutions, DepthwiseConv1D, 3-D
// pooling and reshaping, the aliases, channels_first on every layer that takes it), their
// `graphrt convert`, and the errors graphrt must report for them.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/keras/keras_h5_file.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string ConvDir() { return testing::SourceDir() + "/tests/fixtures/keras_conv"; }

// What gen_keras_conv.py wrote: 53 models of new layers and options (2 of them under alias class
// names, 4 transposed convolutions over inputs of unknown size), 34 channels_first models (one a
// small network); 5 error fixtures.
constexpr int kConvCases = 87;
constexpr int kChannelsFirstCases = 34;
constexpr int kErrorCases = 5;

TEST(KerasConv, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(ConvDir(), kConvCases); }

TEST(KerasConv, ConversionsRunInTensorFlowAndGraphrt) {
  testing::ExpectKerasConversionsMatch(ConvDir(), kConvCases);
}

TEST(KerasConv, ChannelsFirstCasesSayHowKerasOutputsWereMade) {
  Json manifest = testing::KerasManifest(ConvDir());
  int channels_first = 0;
  for (const Json& c : manifest["cases"]) {
    if (c["name"].get<std::string>().rfind("cf_", 0) != 0) continue;
    ++channels_first;
    EXPECT_FALSE(c.value("note", "").empty()) << c["name"];
  }
  EXPECT_EQ(channels_first, kChannelsFirstCases);
}

TEST(KerasConvErrors, FixturesNameTheLayer) {
  testing::ExpectKerasErrorsNamed(ConvDir(), kErrorCases);
}

// A fixture's own model_config with one key of its first layer (after the input) replaced: the
// layer's name, and the error LoadKerasModel gives ("" when it loads).
std::pair<std::string, std::string> LoadWithConfigValue(const std::string& model,
                                                        const std::string& key, const Json& value) {
  StatusOr<keras::KerasH5File> f = keras::ReadKerasH5File(ConvDir() + "/" + model);
  if (!f.ok()) return {"", f.status().ToString()};
  Json config = Json::parse(f->model_config);
  Json& layer = config["config"]["layers"][1];
  layer["config"][key] = value;
  const std::string path = ::testing::TempDir() + "/keras_conv_hostile.json";
  if (!WriteStringToFile(path, config.dump()).ok()) return {"", "cannot write " + path};
  KerasModelOptions options;
  options.config_path = path;
  StatusOr<KerasModel> m = LoadKerasModel(ConvDir() + "/" + model, options);
  return {layer["config"]["name"].get<std::string>(), m.ok() ? "" : m.status().ToString()};
}

TEST(KerasConvErrors, HostileConfigsNameTheLayer) {
  const Json huge = 1 << 20;
  struct Case {
    std::string model, key;
    Json value;
    std::string must_name;
  };
  const std::vector<Case> cases = {
      // Dilated kernels spread out in memory, and transposed outputs, of absurd sizes.
      {"conv3d_dilation.h5", "dilation_rate", Json::array({huge, 1, huge}), "dilation_rate"},
      {"depthwise_conv1d_dilation.h5", "dilation_rate", Json::array({huge}), "dilation_rate"},
      {"conv2d_transpose_dilation.h5", "dilation_rate", Json::array({huge, huge}), "too large"},
      {"max_pooling3d_default.h5", "pool_size", Json::array({huge, 2, 2}), "pool_size"},
      {"conv3d_transpose_valid.h5", "strides", Json::array({huge, huge, huge}), "too large"},
      // data_format and padding of the wrong type or value.
      {"cf_conv2d.h5", "data_format", 7, "data_format '7'"},
      {"cf_max_pooling3d.h5", "data_format", "channels_middle", "channels_middle"},
      {"cf_zero_padding3d.h5", "data_format", "NCDHW", "NCDHW"},
      {"conv1d_transpose_valid.h5", "padding", "causal", "unsupported padding 'causal'"},
      {"depthwise_conv1d_valid.h5", "padding", "causal", "unsupported padding 'causal'"},
      {"max_pooling3d_default.h5", "padding", "reflect", "unsupported padding 'reflect'"},
      {"conv3d_valid.h5", "padding", 3, "malformed config"},
      {"conv2d_groups.h5", "groups", 4, "groups 4"},
      {"conv2d_groups.h5", "filters", 0, "kernel"},
      {"conv3d_transpose_output_padding.h5", "output_padding", Json::array({1, 0, 1LL << 62}),
       "output_padding"},
      {"upsampling3d.h5", "size", Json::array({huge, huge, huge}), "too large"},
      {"conv3d_transpose_valid.h5", "groups", 2, "groups 2"},
  };
  for (const Case& c : cases) {
    auto [layer, error] = LoadWithConfigValue(c.model, c.key, c.value);
    ASSERT_FALSE(layer.empty()) << c.model << ": " << error;
    EXPECT_NE(error.find("layer '" + layer + "'"), std::string::npos) << c.model << ": " << error;
    EXPECT_NE(error.find(c.must_name), std::string::npos) << c.model << ": " << error;
  }
}

}  // namespace
}  // namespace graphrt
