#include "tests/keras_fixture_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "formats/file_util.h"
#include "formats/npy.h"
#include "runtime/core/str_util.h"
#include "runtime/session/keras_model.h"
#include "runtime/session/saved_model.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace testing {
namespace {

using Json = nlohmann::json;

// Runs the model on one call's inputs ({"inputs": [...], "outputs": [...]}); "" when every
// output matches Keras's.
std::string RunCall(const std::string& dir, KerasModel* model, const Json& c, const Json& call) {
  const keras::KerasGraph& g = model->graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    StatusOr<Tensor> x = ReadNpy(dir + "/" + call["inputs"][i].get<std::string>());
    if (!x.ok()) return x.status().ToString();
    feeds.emplace_back(g.inputs[i].tensor, *x);
  }
  std::vector<std::string> fetches;
  for (const auto& out : g.outputs) fetches.push_back(out.tensor);
  std::vector<Tensor> outputs;
  Status s = model->session->Run(feeds, fetches, {}, &outputs);
  if (!s.ok()) return s.ToString();
  std::string failures;
  for (size_t i = 0; i < outputs.size(); ++i) {
    StatusOr<Tensor> want = ReadNpy(dir + "/" + call["outputs"][i].get<std::string>());
    if (!want.ok()) return want.status().ToString();
    std::string diff = CompareTensors(outputs[i], *want, c["rtol"], c["atol"]);
    if (!diff.empty()) failures += StrCat(" output ", i, " (", g.outputs[i].tensor, "): ", diff);
  }
  return failures;
}

KerasModelOptions CaseOptions(const std::string& dir, const Json& c) {
  KerasModelOptions options;
  if (c.contains("config")) options.config_path = dir + "/" + c["config"].get<std::string>();
  return options;
}

// Converts one case to a SavedModel, loads it and runs its serving signature; "" when its
// outputs match Keras's.
std::string ConvertAndRun(const std::string& dir, const Json& c) {
  const std::string out = ::testing::TempDir() + "/keras_convert_" + c["name"].get<std::string>();
  std::filesystem::remove_all(out);
  Status s = ExportKerasSavedModel(KerasModelPath(dir, c["model"]), CaseOptions(dir, c), out);
  if (!s.ok()) return s.ToString();
  SavedModelBundle bundle;
  s = LoadSavedModel(SessionOptions(), RunOptions(), out, {"serve"}, &bundle);
  if (!s.ok()) return s.ToString();
  const auto& sig = bundle.meta_graph_def.signature_def().at("serving_default");
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < c["inputs"].size(); ++i) {
    StatusOr<Tensor> x = ReadNpy(dir + "/" + c["inputs"][i].get<std::string>());
    if (!x.ok()) return x.status().ToString();
    const std::string key = c["input_names"][i];
    if (!sig.inputs().count(key)) return "no signature input " + key;
    feeds.emplace_back(sig.inputs().at(key).name(), *x);
  }
  // Output keys: the output layer's name, NAME_<index> when a layer gives several outputs.
  std::vector<std::string> keys, fetches;
  for (size_t i = 0; i < c["output_keys"].size(); ++i) {
    std::string key = c["output_keys"][i];
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) key = StrCat(key, "_", i);
    keys.push_back(key);
    if (!sig.outputs().count(key)) return "no signature output " + key;
    fetches.push_back(sig.outputs().at(key).name());
  }
  std::vector<Tensor> outputs;
  s = bundle.session->Run(feeds, fetches, {}, &outputs);
  if (!s.ok()) return s.ToString();
  std::string failures;
  for (size_t i = 0; i < outputs.size(); ++i) {
    StatusOr<Tensor> want = ReadNpy(dir + "/" + c["outputs"][i].get<std::string>());
    if (!want.ok()) return want.status().ToString();
    std::string diff = CompareTensors(outputs[i], *want, c["rtol"], c["atol"]);
    if (!diff.empty()) failures += StrCat(" output ", i, ": ", diff);
  }
  std::filesystem::remove_all(out);
  return failures;
}

}  // namespace

Json KerasManifest(const std::string& dir) {
  StatusOr<std::string> text = ReadFileToString(dir + "/manifest.json");
  if (!text.ok()) return Json();
  return Json::parse(*text, nullptr, false);
}

std::string KerasModelPath(const std::string& dir, const std::string& model) {
  if (model.rfind("shared:", 0) == 0) return SharedDir() + "/" + model.substr(7);
  return dir + "/" + model;
}

std::string RunKerasCase(const std::string& dir, const Json& c) {
  StatusOr<KerasModel> model = LoadKerasModel(KerasModelPath(dir, c["model"]), CaseOptions(dir, c));
  if (!model.ok()) return model.status().ToString();
  const keras::KerasGraph& g = model->graph;
  if (g.inputs.size() != c["inputs"].size() || g.outputs.size() != c["outputs"].size()) {
    return StrCat("graphrt sees ", g.inputs.size(), " inputs and ", g.outputs.size(),
                  " outputs; Keras ", c["inputs"].size(), " and ", c["outputs"].size());
  }
  std::string failure = RunCall(dir, &*model, c, c);
  if (failure.empty() && c.contains("then")) {
    failure = RunCall(dir, &*model, c, c["then"]);
    if (!failure.empty()) failure = "second call (stateful): " + failure;
  }
  return failure;
}

void ExpectKerasCasesMatch(const std::string& dir, int expected, const std::string& key) {
  Json manifest = KerasManifest(dir);
  ASSERT_TRUE(manifest.is_object()) << "missing or malformed " << dir << "/manifest.json";
  int passed = 0, ran = 0;
  for (const Json& c : manifest[key]) {
    std::string failure = RunKerasCase(dir, c);
    ++ran;
    EXPECT_EQ(failure, "") << c["name"];
    if (failure.empty()) ++passed;
  }
  EXPECT_EQ(ran, expected) << dir << " " << key;
  std::cout << passed << " of " << ran << " Keras models of " << dir << " match\n";
}

void ExpectKerasConversionsMatch(const std::string& dir, int expected) {
  Json manifest = KerasManifest(dir);
  ASSERT_TRUE(manifest.is_object()) << "missing or malformed " << dir << "/manifest.json";
  ASSERT_TRUE(manifest.contains("convert_checked_by_tf"))
      << dir << ": the generator ran without --graphrt";
  int checked_by_tf = 0;
  for (const Json& c : manifest["convert_checked_by_tf"]) {
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    checked_by_tf += c["ok"].get<bool>() ? 1 : 0;
  }
  EXPECT_EQ(checked_by_tf, expected);
  int converted = 0;
  for (const Json& c : manifest["cases"]) {
    EXPECT_EQ(ConvertAndRun(dir, c), "") << c["name"];
    ++converted;
  }
  EXPECT_EQ(converted, expected);
}

void ExpectKerasErrorsNamed(const std::string& dir, int expected) {
  Json manifest = KerasManifest(dir);
  ASSERT_TRUE(manifest.is_object() && manifest.contains("errors")) << dir << ": no errors";
  int refused = 0;
  for (const auto& [name, e] : manifest["errors"].items()) {
    StatusOr<KerasModel> m = LoadKerasModel(KerasModelPath(dir, e["model"]), CaseOptions(dir, e));
    ++refused;
    if (m.ok()) {
      ADD_FAILURE() << dir << " " << name << " was not refused";
      continue;
    }
    for (const Json& word : e["must_name"]) {
      EXPECT_NE(m.status().message().find(word.get<std::string>()), std::string::npos)
          << name << ": " << m.status();
    }
  }
  EXPECT_EQ(refused, expected) << dir;
}

}  // namespace testing
}  // namespace graphrt
