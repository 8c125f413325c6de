// Keras 3 files against Keras: the .keras archives and .weights.h5 files made by
// tests/fixtures/gen_keras3.py with Keras 3 and with tf-keras 2.15, `graphrt convert` of each,
// whole networks, and damaged archives (missing, truncated and corrupt members, zip bombs,
// unsafe paths, layers that cannot run), which must each give an error naming the file and the
// member or layer.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/keras/keras3_config.h"
#include "formats/keras/keras_graph_builder.h"
#include "formats/keras/keras_archive.h"
#include "formats/keras/zip_archive.h"
#include "migrate/keras_weights.h"
#include "runtime/core/str_util.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string Dir() { return testing::SourceDir() + "/tests/fixtures/keras3"; }

// What gen_keras3.py wrote: 13 small Keras 3 models as .keras and as .weights.h5 with their
// config.json, 12 tf-keras 2.15 .keras (activations_keras3 exists only in Keras 3); networks:
// keras.ops arithmetic, MobileNetV3Small, EfficientNetB0, a Transformer encoder and a
// TextVectorization classifier from Keras 3, the first three of those networks from tf-keras.
constexpr int kCases = 38;
constexpr int kNetworks = 8;

Json Manifest() { return testing::KerasManifest(Dir()); }

std::string Scratch(const std::string& name) { return ::testing::TempDir() + "/keras3_" + name; }

std::string Bytes(const std::string& path) {
  StatusOr<std::string> data = ReadFileToString(path);
  EXPECT_TRUE(data.ok()) << data.status();
  return data.ok() ? *data : std::string();
}

void Write(const std::string& path, const std::string& data) {
  ASSERT_TRUE(WriteStringToFile(path, data).ok()) << path;
}

uint32_t Fixed32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<uint8_t>(s[at + i])) << (8 * i);
  return v;
}

void PutFixed32(std::string* s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*s)[at + i] = static_cast<char>(v >> (8 * i));
}

// Where the central directory entry of `member` starts in the archive `zip`.
size_t CentralEntry(const std::string& zip, const std::string& member) {
  const std::string sig("PK\x01\x02", 4);
  for (size_t at = zip.find(sig); at != std::string::npos; at = zip.find(sig, at + 1)) {
    if (zip.compare(at + 46, member.size(), member) == 0) return at;
  }
  ADD_FAILURE() << "no central directory entry for " << member;
  return 0;
}

// Loading `path` fails, and the message names every string of `must_name`.
void ExpectRefused(const std::string& path, const std::vector<std::string>& must_name,
                   bool isolated = false) {
  KerasModelOptions options;
  options.read_hdf5_in_subprocess = isolated;
  StatusOr<KerasModel> model = LoadKerasModel(path, options);
  ASSERT_FALSE(model.ok()) << path << " loaded";
  for (const std::string& s : must_name) {
    EXPECT_NE(model.status().message().find(s), std::string::npos)
        << "'" << s << "' not in: " << model.status();
  }
}

TEST(Keras3Cases, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(Dir(), kCases); }

TEST(Keras3Cases, ConversionsRunInTensorFlow) {
  testing::ExpectKerasConversionsMatch(Dir(), kCases);
}

// The networks need layers added beside this part (TFOpLambda, Rescaling, Normalization,
// MultiHeadAttention, TextVectorization): they pass once those are in.
TEST(Keras3Networks, EveryNetworkMatchesKeras) {
  testing::ExpectKerasCasesMatch(Dir(), kNetworks, "networks");
  Json manifest = Manifest();
  int checked = 0;
  for (const Json& c : manifest.value("networks_convert_checked_by_tf", Json::array())) {
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    ++checked;
  }
  EXPECT_EQ(checked, kNetworks);
}

TEST(Keras3Archive, ReadsMembersAndMetadata) {
  StatusOr<keras::KerasH5File> f = keras::ReadKerasArchive(Dir() + "/k3_lstm.keras");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->keras_version, "3.12.0");
  EXPECT_EQ(f->layout, keras::KerasWeightsLayout::kKeras3Raw);
  EXPECT_NE(f->model_config.find("\"LSTM\""), std::string::npos);
  // /layers/lstm/cell/vars/{0,1,2}: kernel, recurrent kernel, bias of the first LSTM (4 -> 3).
  const keras::KerasLayerWeights* lstm = nullptr;
  for (const auto& l : f->layers) {
    if (l.layer == "lstm") lstm = &l;
  }
  ASSERT_NE(lstm, nullptr);
  ASSERT_EQ(lstm->weights.size(), 3u);
  EXPECT_EQ(lstm->weights[0].name, "cell/vars/0");
  EXPECT_EQ(lstm->weights[0].value.dim_size(0), 4);
  EXPECT_EQ(lstm->weights[0].value.dim_size(1), 12);
  EXPECT_EQ(lstm->weights[2].name, "cell/vars/2");

  StatusOr<keras::KerasH5File> tk = keras::ReadKerasArchive(Dir() + "/tk_lstm.keras");
  ASSERT_TRUE(tk.ok()) << tk.status();
  EXPECT_EQ(tk->keras_version, "2.15.1");
  EXPECT_EQ(tk->layout, keras::KerasWeightsLayout::kKeras3Raw);
}

TEST(Keras3Archive, IsolatedReadMatchesInProcessRead) {
  const std::string path = Dir() + "/k3_bidirectional.keras";
  StatusOr<keras::KerasH5File> a = keras::ReadKerasArchive(path, {}, false);
  StatusOr<keras::KerasH5File> b = keras::ReadKerasArchive(path, {}, true);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->layout, b->layout);
  ASSERT_EQ(a->layers.size(), b->layers.size());
  for (size_t i = 0; i < a->layers.size(); ++i) {
    ASSERT_EQ(a->layers[i].weights.size(), b->layers[i].weights.size());
    for (size_t j = 0; j < a->layers[i].weights.size(); ++j) {
      EXPECT_EQ(a->layers[i].weights[j].name, b->layers[i].weights[j].name);
      EXPECT_EQ(testing::CompareTensors(a->layers[i].weights[j].value,
                                        b->layers[i].weights[j].value, 0, 0),
                "");
    }
  }
  // Bidirectional: forward before backward, as Keras's layer.weights (not by name).
  for (const auto& l : a->layers) {
    if (l.layer != "bidirectional") continue;
    ASSERT_EQ(l.weights.size(), 6u);
    EXPECT_EQ(l.weights[0].name, "forward_layer/cell/vars/0");
    EXPECT_EQ(l.weights[3].name, "backward_layer/cell/vars/0");
  }
}

TEST(Keras3Archive, FoundByContentNotName) {
  const std::string path = Scratch("renamed_model.bin");
  Write(path, Bytes(Dir() + "/k3_dense.keras"));
  StatusOr<KerasModel> model = LoadKerasModel(path);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->keras_version, "3.12.0");
  testing::CommandResult r = testing::RunGraphrt("inspect " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("3.12.0"), std::string::npos) << r.out;
}

TEST(Keras3Config, SnakeCaseMatchesKeras) {
  // keras.src.utils.naming.to_snake_case on the same names.
  const std::vector<std::pair<std::string, std::string>> names = {
      {"Dense", "dense"},
      {"Conv2D", "conv2d"},
      {"ReLU", "re_lu"},
      {"PReLU", "p_re_lu"},
      {"BatchNormalization", "batch_normalization"},
      {"LSTM", "lstm"},
      {"DepthwiseConv2D", "depthwise_conv2d"},
      {"Conv2DTranspose", "conv2d_transpose"},
      {"GlobalAveragePooling2D", "global_average_pooling2d"},
      {"MultiHeadAttention", "multi_head_attention"},
      {"UpSampling2D", "up_sampling2d"},
      {"SimpleRNN", "simple_rnn"},
      {"HTTPSServer", "https_server"},
      {"ABCdef", "ab_cdef"},
  };
  for (const auto& [cls, snake] : names) EXPECT_EQ(keras::internal::KerasSnakeCase(cls), snake);
}

TEST(Keras3Config, WeightsAndAssetsGoToLayersByClassAndRank) {
  // Groups are named after classes, numbered per class in layer order; nested models' after
  // their own layers.
  Json model = Json::parse(R"({"class_name": "Functional", "config": {"layers": [
      {"class_name": "InputLayer", "config": {"name": "x"}},
      {"class_name": "Dense", "config": {"name": "a"}},
      {"class_name": "Conv1D", "config": {"name": "c"}},
      {"class_name": "Dense", "config": {"name": "b"}},
      {"class_name": "Sequential", "config": {"name": "inner", "layers": [
          {"class_name": "Dense", "config": {"name": "d"}},
          {"class_name": "TextVectorization", "config": {"name": "tv"}}]}}]}})");
  keras::KerasH5File raw;
  raw.path = "m.keras";
  raw.layout = keras::KerasWeightsLayout::kKeras3Raw;
  auto add = [&](const std::string& group, const std::string& weight) {
    raw.layers.push_back({group, {keras::KerasWeight{weight, Tensor()}}});
  };
  add("dense_1", "vars/0");
  add("dense", "vars/0");
  add("sequential", "layers/dense/vars/1");
  raw.assets["layers/sequential/layers/text_vectorization/vocabulary.txt"] = "the\ncat\n";
  raw.assets["layers/unknown/x.txt"] = "";
  StatusOr<keras::KerasH5File> mapped = keras::internal::MapKeras3Weights(model, raw);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->layout, keras::KerasWeightsLayout::kKeras3);
  ASSERT_EQ(mapped->layers.size(), 3u);
  EXPECT_EQ(mapped->layers[0].layer, "a");
  EXPECT_EQ(mapped->layers[0].weights[0].name, "a/vars/0");
  EXPECT_EQ(mapped->layers[1].layer, "b");
  EXPECT_EQ(mapped->layers[1].weights[0].name, "b/vars/0");
  EXPECT_EQ(mapped->layers[2].layer, "inner");
  EXPECT_EQ(mapped->layers[2].weights[0].name, "d/vars/1");
  EXPECT_EQ(mapped->assets.count("layers/inner/layers/tv/vocabulary.txt"), 1u);
  EXPECT_EQ(mapped->assets.count("layers/unknown/x.txt"), 1u);
  // A group no layer takes is named.
  add("lstm", "cell/vars/0");
  mapped = keras::internal::MapKeras3Weights(model, raw);
  ASSERT_FALSE(mapped.ok());
  EXPECT_NE(mapped.status().message().find("layers/lstm"), std::string::npos) << mapped.status();
}

TEST(Keras3Config, HostileKeras3ConfigsGiveErrors) {
  // A valid Keras 3 model with one piece replaced at a time; each must be an error, not a crash.
  const std::string base = R"({"module": "keras.src.models.functional", "class_name": "Functional",
      "config": {"name": "m", "layers": [
        {"module": "keras.layers", "class_name": "InputLayer", "name": "x",
         "config": {"batch_shape": [null, 3], "dtype": "float32", "name": "x"},
         "inbound_nodes": []},
        {"module": "keras.layers", "class_name": "Dense", "name": "d",
         "config": {"name": "d", "units": 2, "use_bias": false,
                    "dtype": {"module": "keras", "class_name": "DTypePolicy",
                              "config": {"name": "float32"}}},
         "inbound_nodes": [NODE]}],
      "input_layers": ["x", 0, 0], "output_layers": ["d", 0, 0]}})";
  const std::string good_node =
      R"({"args": [{"class_name": "__keras_tensor__", "config": {"keras_history": ["x", 0, 0]}}],
          "kwargs": {}})";
  keras::KerasH5File file;
  file.path = "m.keras";
  file.keras_version = "3.12.0";
  file.layout = keras::KerasWeightsLayout::kKeras3Raw;
  file.layers.push_back({"dense", {}});
  keras::KerasWeight kernel;
  kernel.name = "vars/0";
  kernel.value = Tensor(::tensorflow::DT_FLOAT, TensorShape({3, 2}));
  file.layers[0].weights.push_back(kernel);
  auto build = [&](const std::string& node) {
    std::string config = base;
    config.replace(config.find("NODE"), 4, node);
    return keras::BuildKerasGraph(config, file);
  };
  StatusOr<keras::KerasGraph> ok = build(good_node);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->inputs[0].shape, (std::vector<int64_t>{-1, 3}));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"args": [{"class_name": "__keras_tensor__", "config": {"keras_history": ["x", 0]}}]})",
       "keras_history"},
      {R"({"args": [{"class_name": "__keras_tensor__", "config": 7}]})", "__keras_tensor__"},
      {R"({"args": [3.0]})", "not a tensor"},
      {R"({"args": []})", "no tensor arguments"},
      {R"({"args": [{"class_name": "__keras_tensor__",
                     "config": {"keras_history": ["nowhere", 0, 0]}}]})",
       "d"},
      {R"({"args": [{"class_name": "__keras_tensor__",
                     "config": {"keras_history": ["x", 99999999999, 0]}}]})",
       "d"},
      {R"({"args": "x"})", "no tensor arguments"},
  };
  for (const auto& [node, must] : bad) {
    StatusOr<keras::KerasGraph> g = build(node);
    ASSERT_FALSE(g.ok()) << node;
    EXPECT_NE(g.status().message().find(must), std::string::npos) << g.status();
    // Errors of the Keras 3 spelling name the file; the walker's own name the layer.
    if (must != "d") {
      EXPECT_NE(g.status().message().find("m.keras"), std::string::npos) << g.status();
    }
  }
  // A quantized dtype policy is refused, naming it.
  std::string config = base;
  config.replace(config.find("NODE"), 4, good_node);
  config.replace(config.find("\"DTypePolicy\""), 13, "\"QuantizedDTypePolicy\"");
  StatusOr<keras::KerasGraph> q = keras::BuildKerasGraph(config, file);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("quantized"), std::string::npos) << q.status();
}

TEST(Keras3Cli, InspectDescribesArchive) {
  testing::CommandResult r =
      testing::RunGraphrt("inspect --json " + Dir() + "/k3_multi_io_shared.keras");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json doc = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  EXPECT_EQ(doc["format"], "keras_archive");
  EXPECT_EQ(doc["keras_version"], "3.12.0");
  EXPECT_EQ(doc["inputs"].size(), 2u);
  EXPECT_EQ(doc["outputs"].size(), 2u);
  bool shared = false;
  for (const Json& l : doc["layers"]) {
    if (l["name"] != "shared") continue;
    shared = true;
    ASSERT_EQ(l["weights"].size(), 2u);
    EXPECT_EQ(l["weights"][0]["name"], "shared/vars/0");
    EXPECT_EQ(l["weights"][0]["shape"], Json::parse("[5, 4]"));
  }
  EXPECT_TRUE(shared) << r.out;

  r = testing::RunGraphrt("inspect --json " + Dir() + "/k3_gru.weights.h5 --keras-config " + Dir() +
                          "/k3_gru.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  doc = Json::parse(r.out, nullptr, false);
  EXPECT_EQ(doc["format"], "keras3_weights_h5");
  // Without its architecture, a Keras 3 .weights.h5 says what it needs.
  r = testing::RunGraphrt("run " + Dir() + "/k3_gru.weights.h5");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("--keras-config"), std::string::npos) << r.out;
}

TEST(Keras3Cli, LoadWeightsNamesKeras3WeightsAfterTheArchitecture) {
  // graphrt's own conversion of the model is the graph; the .weights.h5 fills its variables.
  const std::string sm = Scratch("lw_sm");
  const std::string out = Scratch("lw_out");
  std::filesystem::remove_all(sm);
  std::filesystem::remove_all(out);
  KerasModelOptions options;
  options.config_path = Dir() + "/k3_conv_bn_pool.json";
  ASSERT_TRUE(ExportKerasSavedModel(Dir() + "/k3_conv_bn_pool.weights.h5", options, sm).ok());
  LoadWeightsOptions lw;
  LoadWeightsReport report;
  Status s = LoadKerasWeightsIntoGraph(sm, Dir() + "/k3_conv_bn_pool.weights.h5", out, lw, &report);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--keras-config"), std::string::npos) << s;
  lw.keras_config = Dir() + "/k3_conv_bn_pool.json";
  report = LoadWeightsReport();
  s = LoadKerasWeightsIntoGraph(sm, Dir() + "/k3_conv_bn_pool.weights.h5", out, lw, &report);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(report.unmatched_keras.empty());
  EXPECT_TRUE(report.unmatched_variables.empty());
  // conv2d (2), batch_normalization (4), conv2d_1 (2), depthwise_conv2d (2), dense (2).
  EXPECT_EQ(report.assigned.size(), 12u);
  std::filesystem::remove_all(out);
  // The same through the command.
  testing::CommandResult r =
      testing::RunGraphrt("load-weights " + sm + " " + Dir() + "/k3_conv_bn_pool.weights.h5 -o " +
                          out + " --keras-config " + Dir() + "/k3_conv_bn_pool.json --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"conv2d_1/kernel\""), std::string::npos) << r.out;
  std::filesystem::remove_all(sm);
  std::filesystem::remove_all(out);
}

TEST(Keras3Errors, DamagedArchivesNameFileAndMember) {
  Json manifest = Manifest();
  ASSERT_TRUE(manifest.contains("errors"));
  int n = 0;
  for (const auto& [key, e] : manifest["errors"].items()) {
    SCOPED_TRACE(key);
    std::vector<std::string> must = e["must_name"].get<std::vector<std::string>>();
    ExpectRefused(Dir() + "/" + e["model"].get<std::string>(), must, false);
    ExpectRefused(Dir() + "/" + e["model"].get<std::string>(), must, true);
    ++n;
  }
  EXPECT_EQ(n, 7);
}

TEST(Keras3Errors, TruncatedArchivesNeverCrash) {
  const std::string good = Bytes(Dir() + "/k3_dense.keras");
  const std::string path = Scratch("truncated.keras");
  // Every prefix length in 64 steps, and the last bytes one by one (the end record).
  std::vector<size_t> lengths;
  for (size_t i = 0; i < 64; ++i) lengths.push_back(good.size() * i / 64);
  for (size_t i = 1; i <= 24; ++i) lengths.push_back(good.size() - i);
  for (size_t n : lengths) {
    Write(path, good.substr(0, n));
    StatusOr<KerasModel> model = LoadKerasModel(path);
    ASSERT_FALSE(model.ok()) << n;
    EXPECT_NE(model.status().message().find(path), std::string::npos) << model.status();
  }
}

TEST(Keras3Errors, TruncatedMemberNamed) {
  // The weights member claims more bytes than the archive holds.
  std::string zip = Bytes(Dir() + "/k3_dense.keras");
  size_t at = CentralEntry(zip, "model.weights.h5");
  PutFixed32(&zip, at + 20, Fixed32(zip, at + 20) + 100000);
  PutFixed32(&zip, at + 24, Fixed32(zip, at + 24) + 100000);
  const std::string path = Scratch("truncated_member.keras");
  Write(path, zip);
  ExpectRefused(path, {path, "model.weights.h5", "past the end"});
}

TEST(Keras3Errors, CorruptCrcNamed) {
  std::string zip = Bytes(Dir() + "/k3_dense.keras");
  size_t data = zip.find("\"class_name\"");  // inside config.json, stored
  ASSERT_NE(data, std::string::npos);
  zip[data + 2] = 'X';
  const std::string path = Scratch("bad_crc.keras");
  Write(path, zip);
  ExpectRefused(path, {path, "config.json", "CRC"});
}

TEST(Keras3Errors, ZipBombRefusedByLimits) {
  // A deflated member whose declared size is 4 GiB: refused by the ratio before any allocation.
  std::string zip = Bytes(Dir() + "/k3_ops_arith.keras");
  size_t at = CentralEntry(zip, "model.weights.h5");
  ASSERT_EQ(zip[at + 10], 8) << "the network archives are deflated";
  PutFixed32(&zip, at + 24, 0xfffffff0u);
  std::string path = Scratch("bomb.keras");
  Write(path, zip);
  ExpectRefused(path, {path, "model.weights.h5", "max_compression_ratio"});
  // A stored member declaring 4 GiB is past the end of the file: refused before reading.
  zip = Bytes(Dir() + "/k3_dense.keras");
  at = CentralEntry(zip, "model.weights.h5");
  PutFixed32(&zip, at + 20, 0xfffffff0u);
  PutFixed32(&zip, at + 24, 0xfffffff0u);
  path = Scratch("bomb_stored.keras");
  Write(path, zip);
  ExpectRefused(path, {path, "model.weights.h5"});
  // Past the member limit itself.
  keras::KerasH5ReadOptions small;
  small.max_weight_bytes = 1000;
  small.max_attribute_bytes = 4000;
  StatusOr<keras::KerasH5File> f = keras::ReadKerasArchive(Dir() + "/k3_dense.keras", small);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("model.weights.h5"), std::string::npos) << f.status();
}

TEST(Keras3Errors, ZipReaderRejectsGarbage) {
  const std::string path = Scratch("garbage.keras");
  Write(path, std::string("PK\x03\x04", 4) + std::string(100, '\xff'));
  StatusOr<std::unique_ptr<keras::ZipArchive>> zip = keras::ZipArchive::Open(path);
  ASSERT_FALSE(zip.ok());
  EXPECT_NE(zip.status().message().find(path), std::string::npos);
  // A central directory claiming more entries than it can hold.
  std::string good = Bytes(Dir() + "/k3_dense.keras");
  size_t end = good.rfind(std::string("PK\x05\x06", 4));
  ASSERT_NE(end, std::string::npos);
  good[end + 10] = '\xff';
  good[end + 11] = '\x7f';
  Write(path, good);
  zip = keras::ZipArchive::Open(path);
  ASSERT_FALSE(zip.ok());
}

}  // namespace
}  // namespace graphrt
