// Keras HDF5 models against Keras: the zoo made by tests/fixtures/gen_keras.py (one model per
// layer and option, whole networks), the real .h5 files in ../shared, the errors graphrt must
// report, `graphrt convert`, and the command line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/keras/keras_h5_file.h"
#include "formats/npy.h"
#include "runtime/core/str_util.h"
#include "formats/graph_def.h"
#include "meta_graph.pb.h"
#include "runtime/session/keras_model.h"
#include "migrate/keras_weights.h"
#include "runtime/session/saved_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string KerasDir() { return testing::SourceDir() + "/tests/fixtures/keras"; }

// What gen_keras.py wrote: zoo models ("cases") and models of ../shared ("real").
constexpr int kZooCases = 72;
constexpr int kRealCases = 7;

Json Manifest() { return testing::KerasManifest(KerasDir()); }

TEST(KerasZoo, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(KerasDir(), kZooCases); }

TEST(KerasReal, SharedFilesMatchKeras) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  testing::ExpectKerasCasesMatch(KerasDir(), kRealCases, "real");
}

TEST(KerasH5File, ReadsAttributesAndWeights) {
  StatusOr<keras::KerasH5File> f = keras::ReadKerasH5File(KerasDir() + "/dense.h5");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->keras_version, "2.15.1");
  EXPECT_EQ(f->backend, "tensorflow");
  EXPECT_NE(f->model_config.find("\"Sequential\""), std::string::npos);
  ASSERT_EQ(f->layers.size(), 2u);
  ASSERT_EQ(f->layers[0].weights.size(), 2u);
  EXPECT_EQ(f->layers[0].weights[0].name, "dense/kernel:0");
  EXPECT_EQ(f->layers[0].weights[0].value.dim_size(0), 5);
  EXPECT_EQ(f->layers[0].weights[0].value.dim_size(1), 4);
}

TEST(KerasH5File, OldKerasFixedLengthStrings) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  // Keras 2.1.3 wrote layer_names as fixed-length NULL-padded strings, plus a training_config
  // and optimizer weights.
  StatusOr<keras::KerasH5File> f =
      keras::ReadKerasH5File(testing::SharedDir() +
                             "/testdata/real/fastmachinelearning__hls4ml/example-models/keras/"
                             "KERAS_lstm_model_weights.h5");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->keras_version, "2.1.3");
  EXPECT_FALSE(f->training_config.empty());
  EXPECT_TRUE(f->has_optimizer_weights);
  ASSERT_EQ(f->layers.size(), 4u);
  EXPECT_EQ(f->layers[1].layer, "lstm_lstm");
  ASSERT_EQ(f->layers[1].weights.size(), 3u);
  EXPECT_EQ(f->layers[1].weights[1].name, "lstm_lstm/recurrent_kernel:0");
}

TEST(KerasZoo, Keras20SequentialConfigAsAList) {
  // Keras 2.0-2.2 wrote a Sequential's config as a bare list of layers, the first holding
  // batch_input_shape, with no InputLayer; the input is then named "<first layer>_input".
  const std::string config = R"({"class_name": "Sequential", "keras_version": "2.0.8",
      "config": [{"class_name": "Dense", "config": {"name": "dense", "units": 3,
                  "activation": "relu", "use_bias": true, "batch_input_shape": [null, 4]}},
                 {"class_name": "Dense", "config": {"name": "dense_1", "units": 2,
                  "activation": "linear", "use_bias": true}}]})";
  const std::string path = ::testing::TempDir() + "/keras20_sequential.json";
  ASSERT_TRUE(WriteStringToFile(path, config).ok());
  KerasModelOptions options;
  options.config_path = path;
  StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/weights_only_weights.h5", options);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->graph.inputs.size(), 1u);
  EXPECT_EQ(m->graph.inputs[0].name, "dense_input");
  EXPECT_EQ(m->graph.outputs[0].name, "dense_1");
  StatusOr<Tensor> x = ReadNpy(KerasDir() + "/weights_only.in0.npy");
  StatusOr<Tensor> want = ReadNpy(KerasDir() + "/weights_only.out0.npy");
  ASSERT_TRUE(x.ok() && want.ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(m->session->Run({{"dense_input:0", *x}}, {"dense_1:0"}, {}, &out).ok());
  EXPECT_EQ(testing::CompareTensors(out[0], *want, 1e-5, 1e-6), "");
}

TEST(KerasErrors, LambdaLayersAreNamedBeforeAnythingRuns) {
  StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/error_lambda.h5");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kUnimplemented);
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("double_it (Lambda)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("plus_one (Lambda)"), std::string::npos) << msg;
}

TEST(KerasErrors, WeightsThatDoNotFitNameLayerAndWeight) {
  KerasModelOptions options;
  options.config_path = KerasDir() + "/error_mismatch.json";
  StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/error_mismatch_weights.h5", options);
  ASSERT_FALSE(m.ok());
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("layer 'd1'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("d1/kernel:0"), std::string::npos) << msg;
}

TEST(KerasErrors, WeightsOnlyFileNeedsAConfig) {
  StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/weights_only_weights.h5");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("--keras-config"), std::string::npos);
}

TEST(KerasErrors, MalformedConfigsGiveErrorsNotCrashes) {
  // Architectures that do not make sense, given with --keras-config to a file without weights.
  const std::string in = R"({"class_name": "InputLayer", "config": {"name": "x",
      "batch_input_shape": [null, 3, 4]}, "name": "x", "inbound_nodes": []})";
  auto functional = [&](const std::string& layer) {
    return StrCat(R"({"class_name": "Functional", "config": {"name": "m", "layers": [)", in, ", ",
                  layer, R"(], "input_layers": [["x", 0, 0]], "output_layers": [["y", 0, 0]]}})");
  };
  auto layer = [](const std::string& cls, const std::string& config,
                  const std::string& inbound = R"([[["x", 0, 0, {}]]])") {
    return StrCat(R"({"class_name": ")", cls, R"(", "name": "y", "config": {"name": "y", )", config,
                  R"(}, "inbound_nodes": )", inbound, "}");
  };
  const std::vector<std::string> configs = {
      "not json",
      "[1, 2, 3]",
      R"({"class_name": "Functional"})",
      R"({"class_name": "Sequential", "config": {"layers": []}})",
      R"({"class_name": "Sequential", "config": {"layers": [{"class_name": "Dense"}]}})",
      functional(layer("Permute", R"("dims": [2, 1, 3])")),
      functional(layer("Concatenate", R"("axis": 7)")),
      functional(layer("RepeatVector", R"("n": 2)")),
      functional(layer("Softmax", R"("axis": -5)")),
      functional(layer("Dense", R"("units": 3)")),  // no weights for it
      functional(layer("Reshape", R"("target_shape": "oops")")),
      functional(layer("Activation", R"("activation": "no_such_activation")")),
      functional(layer("Add", "\"x\": 1", R"([[["nowhere", 0, 0, {}]]])")),
      functional(layer("Add", "\"x\": 1", R"([[["y", 0, 0, {}]]])")),
      functional(layer("LSTM", R"("units": 2)", R"([[["x", 0, 5, {}]]])")),
      functional(
          layer("Conv2D", R"("filters": 2, "kernel_size": 3, "data_format": "channels_first")")),
  };
  const std::string path = ::testing::TempDir() + "/keras_bad_config.json";
  {
    // A mask reaching a layer that would have to use it (other than a recurrent one) is refused
    // by name rather than ignored.
    const std::string masked = StrCat(
        R"({"class_name": "Functional", "config": {"name": "m", "layers": [)", in, ", ",
        R"({"class_name": "Masking", "name": "mask", "config": {"name": "mask", "mask_value": 0},
            "inbound_nodes": [[["x", 0, 0, {}]]]}, )",
        layer("Softmax", "\"axis\": -1", R"([[["mask", 0, 0, {}]]])"),
        R"(], "input_layers": [["x", 0, 0]], "output_layers": [["y", 0, 0]]}})");
    ASSERT_TRUE(WriteStringToFile(path, masked).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/softmax_axis1.h5", options);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("layer 'y' (Softmax) receives a Keras mask"),
              std::string::npos)
        << m.status();
    // A .keras zip archive that is not one: read as a zip, named as broken.
    const std::string zip = ::testing::TempDir() + "/model.keras";
    ASSERT_TRUE(WriteStringToFile(zip, std::string("PK\x03\x04rest of a zip", 18)).ok());
    m = LoadKerasModel(zip);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("not a zip archive"), std::string::npos) << m.status();
  }
  for (const std::string& config : configs) {
    ASSERT_TRUE(WriteStringToFile(path, config).ok());
    KerasModelOptions options;
    options.config_path = path;
    StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/softmax_axis1.h5", options);
    EXPECT_FALSE(m.ok()) << config;
  }
}

TEST(KerasErrors, CorruptFilesGiveErrorsNotCrashes) {
  StatusOr<std::string> bytes = ReadFileToString(KerasDir() + "/small_cnn.h5");
  ASSERT_TRUE(bytes.ok());
  const std::string dir = ::testing::TempDir() + "/keras_corrupt";
  std::filesystem::create_directories(dir);
  // Truncated at several points, and with a run of bytes overwritten at several offsets.
  std::vector<std::string> variants;
  for (size_t cut : {size_t{0}, size_t{7}, size_t{600}, bytes->size() / 2, bytes->size() - 9}) {
    variants.push_back(bytes->substr(0, cut));
  }
  for (size_t at = 0; at + 64 < bytes->size(); at += bytes->size() / 13) {
    std::string v = *bytes;
    for (size_t i = 0; i < 64; ++i) v[at + i] = static_cast<char>(v[at + i] ^ 0x5a);
    variants.push_back(v);
  }
  int failed = 0;
  for (size_t i = 0; i < variants.size(); ++i) {
    std::string path = StrCat(dir, "/v", i, ".h5");
    ASSERT_TRUE(WriteStringToFile(path, variants[i]).ok());
    StatusOr<KerasModel> m = LoadKerasModel(path);
    if (!m.ok()) {
      ++failed;
      EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status();
    }
  }
  // Every truncation fails; an overwritten run may land in padding and change nothing.
  EXPECT_GE(failed, 5);
  StatusOr<KerasModel> m = LoadKerasModel(KerasDir() + "/manifest.json.h5");
  EXPECT_FALSE(m.ok());
}

TEST(KerasConvert, SavedModelRunsInGraphrtAndWasRunByTensorFlow) {
  testing::ExpectKerasConversionsMatch(KerasDir(), kZooCases);
  // And an existing folder is never written over.
  const std::string dir = ::testing::TempDir() + "/keras_convert_small_cnn";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(ExportKerasSavedModel(KerasDir() + "/small_cnn.h5", KerasModelOptions(), dir).ok());
  EXPECT_FALSE(ExportKerasSavedModel(KerasDir() + "/small_cnn.h5", KerasModelOptions(), dir).ok())
      << "an existing folder must not be overwritten";
  SavedModelBundle bundle;
  ASSERT_TRUE(LoadSavedModel(SessionOptions(), RunOptions(), dir, {"serve"}, &bundle).ok());
  StatusOr<Tensor> x = ReadNpy(KerasDir() + "/small_cnn.in0.npy");
  StatusOr<Tensor> want = ReadNpy(KerasDir() + "/small_cnn.out0.npy");
  ASSERT_TRUE(x.ok() && want.ok());
  const auto& sig = bundle.meta_graph_def.signature_def().at("serving_default");
  std::vector<Tensor> out;
  ASSERT_TRUE(bundle.session
                  ->Run({{sig.inputs().begin()->second.name(), *x}},
                        {sig.outputs().begin()->second.name()}, {}, &out)
                  .ok());
  EXPECT_EQ(testing::CompareTensors(out[0], *want, 1e-5, 1e-5), "");
}

TEST(KerasLoadWeights, MetaGraphVariablesTakeKerasWeightsThroughANameMap) {
  Json manifest = Manifest();
  const Json& lw = manifest["load_weights"];
  ASSERT_TRUE(lw.is_object());
  // What gen_keras.py --graphrt recorded: TensorFlow restored graphrt's output and matched Keras.
  EXPECT_TRUE(lw["checked_by_tf"]["ok"].get<bool>()) << lw.dump();
  const std::string dir = KerasDir() + "/";
  const std::string out = ::testing::TempDir() + "/keras_lw/loaded";
  std::filesystem::remove_all(::testing::TempDir() + "/keras_lw");
  std::filesystem::create_directories(::testing::TempDir() + "/keras_lw");
  LoadWeightsOptions options;
  options.name_map["dense_1/"] = "head/";
  options.checkpoint = dir + lw["checkpoint"].get<std::string>();
  LoadWeightsReport report;
  Status s =
      LoadKerasWeightsIntoGraph(dir + lw["meta"].get<std::string>(),
                                dir + lw["weights"].get<std::string>(), out, options, &report);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(report.assigned.size(), 4u);
  EXPECT_TRUE(report.unmatched_keras.empty());
  EXPECT_EQ(report.unmatched_variables, std::vector<std::string>{"extra/step"});

  ::tensorflow::MetaGraphDef meta;
  ASSERT_TRUE(
      ReadBinaryOrTextProto(dir + lw["meta"].get<std::string>(), "MetaGraphDef", &meta).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(LoadMetaGraph(SessionOptions(), meta, out, &session).ok());
  StatusOr<Tensor> x = ReadNpy(dir + lw["input"].get<std::string>());
  StatusOr<Tensor> want = ReadNpy(dir + lw["expected"].get<std::string>());
  ASSERT_TRUE(x.ok() && want.ok());
  std::vector<Tensor> got;
  ASSERT_TRUE(session->Run({{"x:0", *x}}, {"y:0"}, {}, &got).ok());
  EXPECT_EQ(testing::CompareTensors(got[0], *want, 1e-5, 1e-6), "");

  // Shapes are checked before anything is written: dense/ weights into head/ variables.
  LoadWeightsOptions wrong = options;
  wrong.name_map = {{"dense/", "head/"}, {"dense_1/", "dense/"}};
  LoadWeightsReport report2;
  const std::string out2 = ::testing::TempDir() + "/keras_lw/wrong";
  s = LoadKerasWeightsIntoGraph(dir + lw["meta"].get<std::string>(),
                                dir + lw["weights"].get<std::string>(), out2, wrong, &report2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'dense' weight 'dense/kernel:0'"), std::string::npos) << s;
  EXPECT_FALSE(FileExists(out2 + ".index"));
}

TEST(KerasCli, RunInspectAndErrors) {
  const std::string dir = KerasDir();
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("run ", dir, "/dense.h5 --input input_1=", dir, "/dense.in0.npy --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json doc = Json::parse(r.out);
  ASSERT_EQ(doc["outputs"].size(), 1u);
  EXPECT_EQ(doc["outputs"][0]["name"], "dense_1");
  StatusOr<Tensor> want = ReadNpy(dir + "/dense.out0.npy");
  ASSERT_TRUE(want.ok());
  ASSERT_EQ(doc["outputs"][0]["values"].size(), static_cast<size_t>(want->NumElements()));
  for (int64_t i = 0; i < want->NumElements(); ++i) {
    float got = doc["outputs"][0]["values"][i].get<float>();
    EXPECT_NEAR(got, want->data<float>()[i], 1e-5 * (1 + std::abs(want->data<float>()[i])));
  }
  // Weights-only with --keras-config, inline input.
  r = testing::RunGraphrt(StrCat("run ", dir, "/weights_only_weights.h5 --keras-config ", dir,
                                 "/weights_only.json --input 'input_1=[[1,2,3,4]]'"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("dense_1: float32[1,2]"), std::string::npos) << r.out;

  // A layer with several outputs: lstm, lstm:1, lstm:2; --output picks one.
  r = testing::RunGraphrt(StrCat("run ", dir, "/lstm_return_state_nobias.h5 --input input_1=", dir,
                                 "/lstm_return_state_nobias.in0.npy --output lstm:2 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  doc = Json::parse(r.out);
  ASSERT_EQ(doc["outputs"].size(), 1u);
  EXPECT_EQ(doc["outputs"][0]["name"], "lstm:2");
  StatusOr<Tensor> c_state = ReadNpy(dir + "/lstm_return_state_nobias.out2.npy");
  ASSERT_TRUE(c_state.ok());
  EXPECT_NEAR(doc["outputs"][0]["values"][0].get<float>(), c_state->data<float>()[0], 1e-5);

  r = testing::RunGraphrt(StrCat("inspect ", dir, "/small_cnn.h5"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("keras_version: 2.15.1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv2d (Conv2D) -> (None, 12, 12, 8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv2d/kernel:0 (3, 3, 3, 8)"), std::string::npos) << r.out;
  r = testing::RunGraphrt(StrCat("inspect ", dir, "/small_cnn.h5 --json"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(Json::parse(r.out)["outputs"][0]["name"], "dense_1");

  r = testing::RunGraphrt(StrCat("run ", dir, "/error_lambda.h5 --input input_1=[[1,2,3]]"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("graphrt: error:"), std::string::npos);
  EXPECT_NE(r.out.find("double_it (Lambda)"), std::string::npos) << r.out;

  const std::string out = ::testing::TempDir() + "/keras_cli_convert";
  std::filesystem::remove_all(out);
  r = testing::RunGraphrt(StrCat("convert ", dir, "/dense.h5 ", out));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(StrCat("run ", out, " --input input_1=", dir, "/dense.in0.npy"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("dense_1: float32[2,3]"), std::string::npos) << r.out;
}

TEST(KerasCli, LoadWeightsIntoASavedModel) {
  // A SavedModel of the weights-only architecture (its variables named as Keras names them),
  // refilled from the .h5: every variable matched, the copy runs with Keras's outputs.
  const std::string dir = KerasDir();
  const std::string tmp = ::testing::TempDir() + "/keras_lw_sm";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("convert ", dir, "/weights_only_weights.h5 ", tmp,
                                 "/sm --keras-config ", dir, "/weights_only.json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = testing::RunGraphrt(StrCat("load-weights ", tmp, "/sm ", dir, "/weights_only_weights.h5 -o ",
                                 tmp, "/sm2 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["assigned"].size(), 4u) << r.out;
  EXPECT_EQ(doc["assigned"]["dense_1/kernel:0"], "dense_1/kernel");
  EXPECT_TRUE(doc["unmatched_keras"].empty());
  EXPECT_TRUE(doc["unmatched_variables"].empty());
  r = testing::RunGraphrt(
      StrCat("run ", tmp, "/sm2 --input input_1=", dir, "/weights_only.in0.npy --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  StatusOr<Tensor> want = ReadNpy(dir + "/weights_only.out0.npy");
  ASSERT_TRUE(want.ok());
  Json out = Json::parse(r.out)["outputs"][0]["values"];
  ASSERT_EQ(out.size(), static_cast<size_t>(want->NumElements()));
  for (int64_t i = 0; i < want->NumElements(); ++i) {
    EXPECT_NEAR(out[i].get<float>(), want->data<float>()[i], 1e-5);
  }
  // Weights that do not fit: nothing written, exit 2, the layer and weight named.
  r = testing::RunGraphrt(StrCat("load-weights ", tmp, "/sm ", dir, "/dense.h5 -o ", tmp, "/sm3"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("weight 'dense/kernel:0' has shape [5,4]"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(tmp + "/sm3"));
}

}  // namespace
}  // namespace graphrt
