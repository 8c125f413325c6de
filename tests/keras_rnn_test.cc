// Keras recurrent layers against Keras: the models of tests/fixtures/gen_keras_rnn.py (CuDNNLSTM
// and CuDNNGRU files and cuDNN-layout weights under LSTM/GRU configs, RNN over cells and
// StackedRNNCells, ConvLSTM1D/2D/3D, Bidirectional over each), their `graphrt convert`, and the
// errors graphrt must report for them.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/keras/keras_h5_file.h"
#include "runtime/core/str_util.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string RnnDir() { return testing::SourceDir() + "/tests/fixtures/keras_rnn"; }

// What gen_keras_rnn.py wrote: 10 CuDNN cases, 19 others.
constexpr int kRnnCases = 29;

TEST(KerasRnn, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(RnnDir(), kRnnCases); }

TEST(KerasRnn, ConversionsRunInTensorFlowAndGraphrt) {
  testing::ExpectKerasConversionsMatch(RnnDir(), kRnnCases);
}

TEST(KerasRnn, CuDNNFilesHoldTheCuDNNLayout) {
  // The fixtures are what a GPU-trained Keras 2 model saves: CuDNN classes, two biases each.
  StatusOr<keras::KerasH5File> f = keras::ReadKerasH5File(RnnDir() + "/cudnn_lstm.h5");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_NE(f->model_config.find("\"CuDNNLSTM\""), std::string::npos);
  bool found = false;
  for (const auto& layer : f->layers) {
    for (const auto& w : layer.weights) {
      if (w.name == "cu_dnnlstm/bias:0") {
        found = true;
        EXPECT_EQ(w.value.dim_size(0), 8 * 4);  // 8 * units
      }
    }
  }
  EXPECT_TRUE(found);
  f = keras::ReadKerasH5File(RnnDir() + "/cudnn_gru_weights_in_gru_weights.h5");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->layers.size(), 2u);  // the input layer, then the GRU
  ASSERT_EQ(f->layers[1].weights.size(), 3u);
  EXPECT_EQ(f->layers[1].weights[2].value.dims(), 1);
  EXPECT_EQ(f->layers[1].weights[2].value.dim_size(0), 6 * 4);  // 6 * units
  // Each unidirectional CuDNN layer's outputs were also checked against cuDNN's equations.
  Json manifest = testing::KerasManifest(RnnDir());
  int cross_checked = 0;
  for (const Json& c : manifest["cases"])
    cross_checked += c.value("cudnn_cross_checked_outputs", 0);
  EXPECT_EQ(cross_checked, 8);
}

TEST(KerasRnnErrors, FixturesNameTheLayer) { testing::ExpectKerasErrorsNamed(RnnDir(), 2); }

TEST(KerasRnnErrors, HostileConfigsNameTheLayer) {
  auto model = [](const std::string& input_shape, const std::string& cls,
                  const std::string& config) {
    return StrCat(
        R"({"class_name": "Functional", "config": {"name": "m", "layers": [)",
        R"({"class_name": "InputLayer", "name": "x", "config": {"name": "x", "batch_input_shape": )",
        input_shape, R"(}, "inbound_nodes": []}, {"class_name": ")", cls,
        R"(", "name": "y", "config": {"name": "y", )", config,
        R"(}, "inbound_nodes": [[["x", 0, 0, {}]]]}], "input_layers": [["x", 0, 0]],)",
        R"( "output_layers": [["y", 0, 0]]}})");
  };
  const std::string seq = "[null, 3, 4]", img = "[null, 3, 5, 2]";
  const std::vector<std::string> configs = {
      model(seq, "RNN", R"("cell": {"class_name": "MinimalRNNCell", "config": {"units": 2}})"),
      model(seq, "RNN", R"("cell": {"class_name": "StackedRNNCells", "config": {"cells": []}})"),
      model(seq, "RNN", R"("return_sequences": true)"),
      model(seq, "LSTM", R"("units": -3)"),
      model(seq, "CuDNNGRU", R"("units": 0)"),
      model(seq, "ConvLSTM1D", R"("filters": 2, "kernel_size": 3)"),  // rank 3, not 4
      model(img, "ConvLSTM1D", R"("filters": 2, "kernel_size": 3, "padding": "causal")"),
      model(img, "ConvLSTM1D", R"("filters": 2, "kernel_size": 0)"),
      model(img, "ConvLSTM1D",
            R"("filters": 2, "kernel_size": 3, "data_format": "channels_middle")"),
      model(seq, "Bidirectional", R"("layer": {"class_name": "Dense", "config": {"units": 2}})"),
      model(seq, "Bidirectional",
            R"("layer": {"class_name": "LSTM", "config": {"units": 2}},
               "backward_layer": {"class_name": "Conv1D", "config": {"filters": 2}})"),
  };
  // The weights fit (the file's layer 'rnn'), the batch size is absurd.
  std::string huge =
      model("[2000000000, 5, 3]", "GRU", R"("units": 4, "reset_after": true, "stateful": true)");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {R"("name": "y", "config": {"name": "y")", R"("name": "rnn", "config": {"name": "rnn")"},
           {R"(["y", 0, 0])", R"(["rnn", 0, 0])"}}) {
    huge.replace(huge.find(from), from.size(), to);
  }
  const std::string path = ::testing::TempDir() + "/keras_rnn_bad_config.json";
  {
    ASSERT_TRUE(WriteStringToFile(path, huge).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m =
        LoadKerasModel(RnnDir() + "/cudnn_gru_weights_in_gru_weights.h5", options);
    ASSERT_FALSE(m.ok()) << huge;
    EXPECT_NE(m.status().message().find("layer 'rnn': states of shape"), std::string::npos)
        << m.status();
  }
  for (const std::string& config : configs) {
    ASSERT_TRUE(WriteStringToFile(path, config).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m =
        LoadKerasModel(RnnDir() + "/cudnn_gru_weights_in_gru_weights.h5", options);
    ASSERT_FALSE(m.ok()) << config;
    EXPECT_NE(m.status().message().find("'y'"), std::string::npos) << m.status() << "\n" << config;
  }
}

}  // namespace
}  // namespace graphrt
