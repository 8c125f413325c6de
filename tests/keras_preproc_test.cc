// Keras preprocessing layers against Keras: the zoo made by tests/fixtures/gen_keras_preproc.py
// (one model per layer and option), their `graphrt convert`, the configs graphrt must refuse,
// and vocabularies read from a .keras archive's assets (filled by hand, and from archives
// tf-keras wrote).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/keras/keras_graph_builder.h"
#include "formats/keras/keras_h5_file.h"
#include "formats/npy.h"
#include "runtime/session/keras_model.h"
#include "tests/fixture_util.h"
#include "tests/keras_fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string PreprocDir() { return testing::SourceDir() + "/tests/fixtures/keras_preproc"; }

// What gen_keras_preproc.py wrote.
constexpr int kCases = 76;
constexpr int kErrorCases = 8;
constexpr int kArchives = 3;

TEST(KerasPreproc, EveryModelMatchesKeras) { testing::ExpectKerasCasesMatch(PreprocDir(), kCases); }

TEST(KerasPreproc, SavedModelRunsInGraphrtAndWasRunByTensorFlow) {
  testing::ExpectKerasConversionsMatch(PreprocDir(), kCases);
}

TEST(KerasPreproc, BadConfigsNameTheLayer) {
  testing::ExpectKerasErrorsNamed(PreprocDir(), kErrorCases);
}

// A functional model of `layers` (each {"class_name", "config"}) applied one after another to
// one string input of shape [batch, width]; every layer is an output.
std::string ChainConfig(const std::vector<Json>& layers, int width) {
  Json model_layers = Json::array();
  model_layers.push_back({{"class_name", "InputLayer"},
                          {"name", "x"},
                          {"inbound_nodes", Json::array()},
                          {"config",
                           {{"name", "x"},
                            {"dtype", "string"},
                            {"batch_input_shape", Json::array({nullptr, width})}}}});
  Json outputs = Json::array();
  for (const Json& layer : layers) {
    Json l = layer;
    const std::string name = l["config"]["name"];
    l["name"] = name;
    l["inbound_nodes"] = Json::array({Json::array({Json::array({"x", 0, 0, Json::object()})})});
    model_layers.push_back(l);
    outputs.push_back(Json::array({name, 0, 0}));
  }
  Json model = {{"class_name", "Functional"},
                {"config",
                 {{"name", "model"},
                  {"layers", model_layers},
                  {"input_layers", Json::array({Json::array({"x", 0, 0})})},
                  {"output_layers", outputs}}}};
  return model.dump();
}

Json Lookup(const std::string& class_name, const std::string& name, Json extra = Json::object()) {
  Json config = {{"name", name}, {"vocabulary", nullptr}};
  config.update(extra);
  return {{"class_name", class_name}, {"config", config}};
}

// Builds the graph of `file` and runs it on `x`.
std::vector<Tensor> RunWithAssets(const keras::KerasH5File& file, const Tensor& x) {
  StatusOr<keras::KerasGraph> g = keras::BuildKerasGraph(file.model_config, file, {});
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return {};
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(SessionOptions(), &session).ok());
  Status s = session->Create(g->graph);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> fetches;
  for (const auto& out : g->outputs) fetches.push_back(out.tensor);
  std::vector<Tensor> outputs;
  s = session->Run({{g->inputs[0].tensor, x}}, fetches, {}, &outputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return outputs;
}

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
}

// Keras 2.12+ and Keras 3 write an adapted vocabulary to assets/layers/<snake_case class>
// [_<k>]/vocabulary.txt, k counting earlier layers of the class: the second StringLookup reads
// string_lookup_1's.
TEST(KerasPreproc, VocabulariesFromKerasArchiveAssets) {
  keras::KerasH5File file;
  file.path = "hand_made.keras";
  file.model_config = ChainConfig(
      {Lookup("StringLookup", "first"), Lookup("StringLookup", "second"),
       Lookup("StringLookup", "third", {{"output_mode", "count"}, {"mask_token", ""}}),
       Lookup("TextVectorization", "text",
              {{"output_sequence_length", 4}, {"split", "whitespace"}, {"standardize", "lower"}})},
      1);
  file.assets["layers/string_lookup/vocabulary.txt"] = "[UNK]\na\nb";
  file.assets["layers/string_lookup_1/vocabulary.txt"] = "[UNK]\nb\nc\nd";
  // Outside int output the mask token has no index: the file starts with the OOV token.
  file.assets["layers/string_lookup_2/vocabulary.txt"] = "[UNK]\nb\nb c";
  file.assets["layers/text_vectorization/vocabulary.txt"] = "\n[UNK]\nb c\nb\na";
  Tensor x(::tensorflow::DT_STRING, TensorShape({3, 1}));
  x.data<std::string>()[0] = "a";
  x.data<std::string>()[1] = "b c";
  x.data<std::string>()[2] = "B";
  std::vector<Tensor> out = RunWithAssets(file, x);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Ints(out[0]), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{0, 0, 0}));
  // Counts over [OOV, b, "b c"].
  ASSERT_EQ(out[2].shape(), TensorShape({3, 3}));
  const float* counts = out[2].data<float>();
  EXPECT_EQ(std::vector<float>(counts, counts + 9),
            (std::vector<float>{1, 0, 0, 0, 0, 1, 1, 0, 0}));
  // Ids of [mask, OOV, "b c", b, a]: the split never makes the token "b c".
  EXPECT_EQ(Ints(out[3]), (std::vector<int64_t>{4, 0, 0, 0, 3, 1, 0, 0, 3, 0, 0, 0}));
}

// Adapted lookups saved by tf-keras 2.15 as .keras: the archive's assets (kept as files by the
// generator) with the model's JSON config give Keras's outputs.
TEST(KerasPreproc, VocabulariesFromRealKerasArchiveAssets) {
  Json manifest = testing::KerasManifest(PreprocDir());
  ASSERT_TRUE(manifest.is_object());
  int matched = 0;
  for (const Json& a : manifest["archives"]) {
    const std::string folder = PreprocDir() + "/archive_" + a["name"].get<std::string>();
    keras::KerasH5File file;
    file.path = a["name"].get<std::string>() + ".keras";
    StatusOr<std::string> config =
        ReadFileToString(PreprocDir() + "/" + a["config"].get<std::string>());
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    file.model_config = *config;
    for (const Json& asset : a["assets"]) {
      StatusOr<std::string> text = ReadFileToString(folder + "/assets/" + asset.get<std::string>());
      ASSERT_TRUE(text.ok()) << text.status().ToString();
      file.assets[asset.get<std::string>()] = *text;
    }
    StatusOr<Tensor> x = ReadNpy(PreprocDir() + "/" + a["inputs"][0].get<std::string>());
    ASSERT_TRUE(x.ok()) << x.status().ToString();
    std::vector<Tensor> out = RunWithAssets(file, *x);
    ASSERT_EQ(out.size(), a["outputs"].size()) << a["name"];
    bool ok = true;
    for (size_t i = 0; i < out.size(); ++i) {
      StatusOr<Tensor> want = ReadNpy(PreprocDir() + "/" + a["outputs"][i].get<std::string>());
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      std::string diff = testing::CompareTensors(out[i], *want, a["rtol"], a["atol"]);
      EXPECT_EQ(diff, "") << a["name"] << " output " << i;
      ok = ok && diff.empty();
    }
    matched += ok ? 1 : 0;
  }
  EXPECT_EQ(matched, kArchives);
}

TEST(KerasPreproc, MissingVocabularyAssetNamesTheLayer) {
  keras::KerasH5File file;
  file.path = "hand_made.keras";
  file.model_config = ChainConfig({Lookup("IntegerLookup", "ids")}, 2);
  file.assets["layers/string_lookup/vocabulary.txt"] = "[UNK]\na";
  StatusOr<keras::KerasGraph> g = keras::BuildKerasGraph(file.model_config, file, {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'ids'"), std::string::npos) << g.status().ToString();
  EXPECT_NE(g.status().message().find("vocabulary"), std::string::npos);
  file.assets["layers/integer_lookup/vocabulary.txt"] = "-1\n7\nseven";
  g = keras::BuildKerasGraph(file.model_config, file, {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'ids'"), std::string::npos) << g.status().ToString();
  EXPECT_NE(g.status().message().find("seven"), std::string::npos);
}

}  // namespace
}  // namespace graphrt
