// SavedModels written by other people's TensorFlow (../shared/testdata/real/tensorflow__serving):
// the half_plus_two family from TF 1.0 to TF 2.14, the stateful counter, soft placement of the
// GPU-pinned one, and the loader's errors.
#include "runtime/session/saved_model.h"

#include <gtest/gtest.h>

#include <map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/npy.h"
#include "formats/saved_model.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string Serving(const std::string& name) {
  return testing::SharedDir() +
         "/testdata/real/tensorflow__serving/tensorflow_serving/servables/tensorflow/testdata/" +
         name;
}

#define SKIP_WITHOUT_SHARED() GRT_REQUIRE_SHARED_OR_SKIP()

Status Predict(const SavedModelBundle& bundle, const std::vector<float>& x, std::vector<float>* y) {
  GRT_ASSIGN_OR_RETURN(const SignatureDef* sig, bundle.GetSignature("serving_default"));
  Tensor input =
      Tensor::Vector<float>(x).Reshaped(TensorShape({static_cast<int64_t>(x.size()), 1}));
  std::vector<Tensor> out;
  GRT_RETURN_IF_ERROR(bundle.session->Run({{sig->inputs().at("x").name(), input}},
                                          {sig->outputs().at("y").name()}, {}, &out));
  y->assign(out[0].data<float>(), out[0].data<float>() + out[0].NumElements());
  return Status::OK();
}

TEST(SavedModelTest, HalfPlusTwoFamilyPredicts) {
  SKIP_WITHOUT_SHARED();
  const std::vector<std::pair<std::string, float>> models = {
      {"saved_model_half_plus_two_cpu", 2.0f},
      {"saved_model_half_plus_two_2_versions", 2.0f},
      {"saved_model_half_plus_two_cpu_with_saved_model_config", 2.0f},
      {"saved_model_half_plus_two_mlmd", 2.0f},
      {"saved_model_half_plus_two_mkl", 2.0f},
      {"saved_model_half_plus_two_gpu_trt", 2.0f},
      {"saved_model_half_plus_two_tf2_cpu", 2.0f},
      {"saved_model_half_plus_three", 3.0f},
  };
  for (const auto& [name, offset] : models) {
    StatusOr<std::string> dir = ResolveSavedModelDir(Serving(name));
    ASSERT_TRUE(dir.ok()) << dir.status();
    SavedModelBundle bundle;
    SessionOptions options;
    options.config.allow_soft_placement = true;
    Status s = LoadSavedModel(options, RunOptions(), *dir, {"serve"}, &bundle);
    ASSERT_TRUE(s.ok()) << name << ": " << s;
    std::vector<float> y;
    s = Predict(bundle, {1, 2, 5}, &y);
    ASSERT_TRUE(s.ok()) << name << ": " << s;
    ASSERT_EQ(y.size(), 3u) << name;
    EXPECT_EQ(y[0], 0.5f * 1 + offset) << name;
    EXPECT_EQ(y[1], 0.5f * 2 + offset) << name;
    EXPECT_EQ(y[2], 0.5f * 5 + offset) << name;
  }
}

TEST(SavedModelTest, ServingBaseFolderLoadsHighestVersion) {
  SKIP_WITHOUT_SHARED();
  StatusOr<std::string> dir = ResolveSavedModelDir(Serving("saved_model_half_plus_two_2_versions"));
  ASSERT_TRUE(dir.ok());
  EXPECT_TRUE(EndsWith(*dir, "/00000124")) << *dir;
}

TEST(SavedModelTest, GpuPinnedModelNeedsSoftPlacement) {
  SKIP_WITHOUT_SHARED();
  std::string dir = Serving("saved_model_half_plus_two_gpu/00000123");
  SavedModelBundle bundle;
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  Status s = LoadSavedModel(options, RunOptions(), dir, {"serve"}, &bundle);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Cannot assign a device for operation"), std::string::npos) << s;
  EXPECT_NE(s.message().find("/device:GPU:0"), std::string::npos) << s;

  options.config.allow_soft_placement = true;
  SavedModelBundle soft;
  s = LoadSavedModel(options, RunOptions(), dir, {"serve"}, &soft);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<float> y;
  ASSERT_TRUE(Predict(soft, {1, 2, 5}, &y).ok());
  EXPECT_EQ(y, (std::vector<float>{2.5f, 3.0f, 4.5f}));
  int moved = 0;
  PlacementReport report = soft.session->GetPlacementReport();
  for (const PlacementDecision& d : report.decisions()) {
    EXPECT_EQ(d.assigned, "/job:localhost/replica:0/task:0/device:CPU:0") << d.node;
    if (d.requested.find("GPU") != std::string::npos) {
      ++moved;
      EXPECT_NE(d.reason.find("soft placement"), std::string::npos) << d.node << ": " << d.reason;
    }
  }
  EXPECT_GT(moved, 0);
}

TEST(SavedModelTest, CounterIsStatefulAcrossRuns) {
  SKIP_WITHOUT_SHARED();
  SavedModelBundle bundle;
  ASSERT_TRUE(LoadSavedModel(SessionOptions(), RunOptions(),
                             Serving("saved_model_counter/00000123"), {"serve"}, &bundle)
                  .ok());
  auto run = [&](const std::string& signature, std::vector<std::pair<std::string, Tensor>> feeds) {
    const SignatureDef* sig = *bundle.GetSignature(signature);
    std::vector<Tensor> out;
    Status s = bundle.session->Run(feeds, {sig->outputs().at("output").name()}, {}, &out);
    EXPECT_TRUE(s.ok()) << signature << ": " << s;
    return out.empty() ? -1.0f : out[0].scalar<float>();
  };
  EXPECT_EQ(run("reset_counter", {}), 0.0f);
  EXPECT_EQ(run("incr_counter", {}), 1.0f);
  EXPECT_EQ(run("incr_counter", {}), 2.0f);
  EXPECT_EQ(run("incr_counter_by", {{"delta:0", Tensor::Scalar<float>(3.0f)}}), 5.0f);
  EXPECT_EQ(run("get_counter", {}), 5.0f);
  EXPECT_EQ(run("reset_counter", {}), 0.0f);
}

TEST(SavedModelTest, LoaderErrors) {
  SKIP_WITHOUT_SHARED();
  SavedModelBundle bundle;
  Status s = LoadSavedModel(SessionOptions(), RunOptions(), "/no/such/model", {"serve"}, &bundle);
  EXPECT_EQ(s.code(), Code::kNotFound);
  s = LoadSavedModel(SessionOptions(), RunOptions(),
                     Serving("saved_model_half_plus_two_cpu/00000123"), {"serve", "gpu"}, &bundle);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("{ serve }"), std::string::npos) << s;
  ASSERT_TRUE(LoadSavedModel(SessionOptions(), RunOptions(),
                             Serving("saved_model_half_plus_two_cpu/00000123"), {"serve"}, &bundle)
                  .ok());
  StatusOr<const SignatureDef*> sig = bundle.GetSignature("nope");
  EXPECT_EQ(sig.status().code(), Code::kNotFound);
  EXPECT_NE(sig.status().message().find("regress_x_to_y"), std::string::npos);
}

TEST(SavedModelTest, NoVariablesFolderIsFine) {
  SKIP_WITHOUT_SHARED();
  SavedModelBundle bundle;
  std::string dir =
      testing::SharedDir() +
      "/testdata/real/onnx__tensorflow-onnx/tests/models/saved_model_with_redundant_inputs";
  Status s = LoadSavedModel(SessionOptions(), RunOptions(), dir, {"serve"}, &bundle);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  std::vector<float> x(10, 2.0f), y(10, 5.0f);
  s = bundle.session->Run(
      {{"Placeholder:0", Tensor::Vector<float>(x).Reshaped(TensorShape({1, 10}))},
       {"Placeholder_1:0", Tensor::Vector<float>(y).Reshaped(TensorShape({1, 10}))}},
      {"Add:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // z = x + 1: the graph ignores its second input (hence "redundant inputs").
  EXPECT_EQ(out[0].data<float>()[0], 3.0f);
  EXPECT_EQ(out[0].data<float>()[9], 3.0f);
}

}  // namespace
}  // namespace graphrt

namespace graphrt {
namespace {

// tests/fixtures/saved_models (gen_saved_models.py): TF2 SavedModels with functional control
// flow and Keras RNNs, a TF1 .meta training graph with loops restored from its checkpoint, and
// the SavedModels of ../shared run through their signatures -- against TensorFlow's outputs.
// Runs the manifest's cases whose model is in ../shared (`shared`) or in the fixture folder;
// `expected_cases` is how many of those gen_saved_models.py wrote.
void RunSavedModelFixtures(bool shared_cases, int expected_cases) {
  std::string dir = testing::SourceDir() + "/tests/fixtures/saved_models";
  StatusOr<std::string> text = ReadFileToString(dir + "/manifest.json");
  ASSERT_TRUE(text.ok()) << text.status();
  nlohmann::json manifest = nlohmann::json::parse(*text);
  int failed = 0, cases = 0;
  std::string report;
  for (const auto& c : manifest["cases"]) {
    std::string name = c["name"];
    std::string model = c["model"];
    bool shared = StartsWith(model, "shared:");
    if (shared != shared_cases) continue;  // the other test's case
    ++cases;
    std::string path = shared ? testing::SharedDir() + "/" + model.substr(7) : dir + "/" + model;
    auto fail = [&](const std::string& why) {
      ++failed;
      report += StrCat("  ", name, ": ", why, "\n");
    };
    std::unique_ptr<Session> session;
    std::map<std::string, std::string> inputs, outputs;  // key -> tensor
    if (c["kind"] == "meta") {
      MetaGraphDef meta;
      Status s = ReadBinaryOrTextProto(path, "MetaGraphDef", &meta);
      if (s.ok())
        s = LoadMetaGraph(SessionOptions(), meta, dir + "/" + c["checkpoint"].get<std::string>(),
                          &session);
      if (!s.ok()) {
        fail(s.ToString());
        continue;
      }
    } else {
      SavedModelBundle bundle;
      std::unordered_set<std::string> tags;
      for (const auto& t : c["tags"]) tags.insert(t.get<std::string>());
      Status s = LoadSavedModel(SessionOptions(), RunOptions(), path, tags, &bundle);
      if (!s.ok()) {
        fail(s.ToString());
        continue;
      }
      StatusOr<const SignatureDef*> sig = bundle.GetSignature(c["signature"]);
      if (!sig.ok()) {
        fail(sig.status().ToString());
        continue;
      }
      for (const auto& [k, v] : (*sig)->inputs()) inputs[k] = v.name();
      for (const auto& [k, v] : (*sig)->outputs()) outputs[k] = v.name();
      session = std::move(bundle.session);
    }
    auto tensor_of = [](const std::map<std::string, std::string>& m, const std::string& key) {
      auto it = m.find(key);
      return it == m.end() ? key : it->second;
    };
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (const auto& [key, file] : c["feeds"].items()) {
      StatusOr<Tensor> t = ReadNpy(dir + "/" + file.get<std::string>());
      if (!t.ok()) {
        fail(t.status().ToString());
        break;
      }
      feeds.emplace_back(tensor_of(inputs, key), *t);
    }
    if (feeds.size() != c["feeds"].size()) continue;
    std::vector<std::string> fetches;
    std::vector<std::string> expected_files;
    for (const auto& [key, file] : c["fetches"].items()) {
      fetches.push_back(tensor_of(outputs, key));
      expected_files.push_back(dir + "/" + file.get<std::string>());
    }
    std::vector<Tensor> results;
    Status s = session->Run(feeds, fetches, {}, &results);
    if (!s.ok()) {
      fail(s.ToString());
      continue;
    }
    for (size_t i = 0; i < fetches.size(); ++i) {
      StatusOr<Tensor> expected = ReadNpy(expected_files[i]);
      std::string diff = expected.ok()
                             ? testing::CompareTensors(results[i], *expected, c["rtol"], c["atol"])
                             : expected.status().ToString();
      if (!diff.empty()) fail(StrCat(fetches[i], ": ", diff));
    }
  }
  EXPECT_EQ(cases, expected_cases);
  EXPECT_EQ(failed, 0) << report;
}

TEST(SavedModelFixtures, MatchTensorFlow) { RunSavedModelFixtures(/*shared_cases=*/false, 7); }

TEST(SavedModelFixtures, SharedModelsMatchTensorFlow) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  RunSavedModelFixtures(/*shared_cases=*/true, 11);
}

}  // namespace
}  // namespace graphrt
