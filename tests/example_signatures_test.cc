// Signatures over serialized tf.Examples, the way TensorFlow Serving calls them: the half_plus_two
// family (../shared) given x = 1, 2, 5 as Examples, and Estimator exports (LinearRegressor,
// DNNClassifier, DNNLinearCombinedClassifier; tests/fixtures/gen_estimator.py) over feature
// columns, against TensorFlow's outputs; malformed Examples; the command's --example flags.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "example.pb.h"
#include "formats/example_json.h"
#include "formats/file_util.h"
#include "formats/npy.h"
#include "formats/saved_model.h"
#include "runtime/session/saved_model.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

using Json = nlohmann::json;

std::string Serving(const std::string& name) {
  return testing::SharedDir() +
         "/testdata/real/tensorflow__serving/tensorflow_serving/servables/tensorflow/testdata/" +
         name;
}

std::string Fixture(const std::string& rel) {
  return testing::SourceDir() + "/tests/fixtures/" + rel;
}

std::string XExample(float x) {
  ::tensorflow::Example e;
  (*e.mutable_features()->mutable_feature())["x"].mutable_float_list()->add_value(x);
  return e.SerializeAsString();
}

Status LoadServing(const std::string& dir, SavedModelBundle* bundle) {
  SessionOptions options;
  options.config.allow_soft_placement = true;
  GRT_ASSIGN_OR_RETURN(std::string resolved, ResolveSavedModelDir(dir));
  return LoadSavedModel(options, RunOptions(), resolved, {"serve"}, bundle);
}

// Runs signature `key` on `examples`; outputs in the order of `out_keys`.
Status RunSignature(const SavedModelBundle& bundle, const std::string& key,
                    const std::vector<std::string>& examples,
                    const std::vector<std::string>& out_keys, std::vector<Tensor>* outputs) {
  GRT_ASSIGN_OR_RETURN(const SignatureDef* sig, bundle.GetSignature(key));
  if (sig->inputs().size() != 1) return InvalidArgument("signature ", key, " has several inputs");
  const std::string& input = sig->inputs().begin()->second.name();
  std::vector<std::string> fetches;
  for (const std::string& k : out_keys) {
    auto it = sig->outputs().find(k);
    if (it == sig->outputs().end()) return NotFound("signature ", key, " has no output ", k);
    fetches.push_back(it->second.name());
  }
  return bundle.session->Run({{input, Tensor::Vector<std::string>(examples)}}, fetches, {},
                             outputs);
}

TEST(ServingExamples, HalfPlusTwoFamilyMatchesTensorFlow) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  StatusOr<std::string> text = ReadFileToString(Fixture("serving_examples/expected.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  Json expected = Json::parse(*text);
  std::vector<std::string> examples;
  for (float x : expected["x"]) examples.push_back(XExample(x));
  int signatures = 0;
  for (const auto& [model, sigs] : expected["models"].items()) {
    SavedModelBundle bundle;
    Status s = LoadServing(Serving(model), &bundle);
    ASSERT_TRUE(s.ok()) << model << ": " << s;
    for (const auto& [key, outs] : sigs.items()) {
      SCOPED_TRACE(model + " " + key);
      std::vector<std::string> out_keys;
      if (outs.contains("error")) {
        // TensorFlow refuses this batch too (mkl's y2 adds a [1,10,10,1] conv output).
        StatusOr<const SignatureDef*> sig = bundle.GetSignature(key);
        ASSERT_TRUE(sig.ok());
        std::vector<Tensor> got;
        for (const auto& o : (*sig)->outputs()) out_keys.push_back(o.first);
        s = RunSignature(bundle, key, examples, out_keys, &got);
        EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
        continue;
      }
      for (const auto& [out_key, values] : outs.items()) out_keys.push_back(out_key);
      std::vector<Tensor> got;
      s = RunSignature(bundle, key, examples, out_keys, &got);
      ASSERT_TRUE(s.ok()) << s;
      for (size_t i = 0; i < out_keys.size(); ++i) {
        std::vector<float> want = outs[out_keys[i]];
        ASSERT_EQ(got[i].NumElements(), static_cast<int64_t>(want.size()));
        for (size_t j = 0; j < want.size(); ++j) {
          EXPECT_EQ(got[i].data<float>()[j], want[j]) << out_keys[i] << "[" << j << "]";
        }
      }
      ++signatures;
    }
  }
  // 3 signatures x 8 models, less mkl's y2 (which TensorFlow refuses too).
  EXPECT_EQ(signatures, 23);
}

TEST(ServingExamples, GpuPinnedModelNeedsSoftPlacement) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  StatusOr<std::string> dir = ResolveSavedModelDir(Serving("saved_model_half_plus_two_gpu"));
  ASSERT_TRUE(dir.ok());
  SavedModelBundle bundle;
  SessionOptions options;  // no soft placement: /device:GPU:0 does not exist
  Status s = LoadSavedModel(options, RunOptions(), *dir, {"serve"}, &bundle);
  if (s.ok()) {
    std::vector<Tensor> got;
    s = RunSignature(bundle, "regress_x_to_y", {XExample(2)}, {"outputs"}, &got);
  }
  EXPECT_FALSE(s.ok());
}

// ---------------------------------------------------------------------------------------------
// Estimator exports.

TEST(EstimatorFixtures, ClassifyRegressPredictMatchTensorFlow) {
  const std::string dir = Fixture("estimator");
  StatusOr<std::string> text = ReadFileToString(dir + "/manifest.json");
  ASSERT_TRUE(text.ok()) << text.status();
  Json manifest = Json::parse(*text);
  StatusOr<std::vector<std::string>> examples =
      SerializedExamplesFromJsonLines(dir + "/" + manifest["examples"].get<std::string>());
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_GE(examples->size(), 8u);
  const double rtol = manifest["rtol"], atol = manifest["atol"];
  int checked = 0;
  for (const Json& model : manifest["models"]) {
    SavedModelBundle bundle;
    SessionOptions options;
    Status s = LoadSavedModel(options, RunOptions(), dir + "/" + model["dir"].get<std::string>(),
                              {"serve"}, &bundle);
    ASSERT_TRUE(s.ok()) << model["name"] << ": " << s;
    for (const Json& sig : model["signatures"]) {
      SCOPED_TRACE(model["name"].get<std::string>() + " " + sig["key"].get<std::string>());
      std::vector<std::string> out_keys, files;
      for (const auto& [k, f] : sig["outputs"].items()) {
        out_keys.push_back(k);
        files.push_back(f);
      }
      std::vector<Tensor> got;
      s = RunSignature(bundle, sig["key"], *examples, out_keys, &got);
      ASSERT_TRUE(s.ok()) << s;
      for (size_t i = 0; i < out_keys.size(); ++i) {
        StatusOr<Tensor> want = ReadNpy(dir + "/" + files[i]);
        ASSERT_TRUE(want.ok()) << want.status();
        std::string diff = testing::CompareTensors(got[i], *want, rtol, atol);
        EXPECT_EQ(diff, "") << out_keys[i];
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 25);  // the outputs of every signature of the 3 models
}

// ---------------------------------------------------------------------------------------------
// Malformed Examples: INVALID_ARGUMENT naming the feature and the example, never a crash.

class MalformedExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = LoadSavedModel(SessionOptions(), RunOptions(), Fixture("estimator/linear_regressor"),
                              {"serve"}, &bundle_);
    ASSERT_TRUE(s.ok()) << s;
  }
  Status Regress(const std::vector<std::string>& examples) {
    std::vector<Tensor> got;
    return RunSignature(bundle_, "regression", examples, {"outputs"}, &got);
  }
  static std::string FromJson(const std::string& json) {
    StatusOr<::tensorflow::Example> e = ExampleFromJson(json, "test");
    EXPECT_TRUE(e.ok()) << e.status();
    return e.ok() ? e->SerializeAsString() : "";
  }
  SavedModelBundle bundle_;
};

TEST_F(MalformedExamples, GoodBatchRuns) {
  EXPECT_TRUE(Regress({FromJson(R"({"age": [30.0]})"), FromJson(R"({"age": [41.5]})")}).ok());
}

TEST_F(MalformedExamples, GarbageBytes) {
  Status s = Regress({FromJson(R"({"age": [30.0]})"), std::string("\xff\xff\x01garbage", 10)});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("Example index: 1"), std::string::npos) << s;
}

TEST_F(MalformedExamples, WrongFeatureType) {
  Status s = Regress({FromJson(R"({"age": [30.0]})"), FromJson(R"({"age": ["thirty"]})")});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("age"), std::string::npos) << s;
  EXPECT_NE(s.message().find("Example index: 1"), std::string::npos) << s;
  s = Regress({FromJson(R"({"age": [30.0], "color": [3]})")});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("color"), std::string::npos) << s;
}

TEST_F(MalformedExamples, TooManyValuesForDenseFeature) {
  Status s = Regress({FromJson(R"({"age": [30.0]})"), FromJson(R"({"age": [30.0]})"),
                      FromJson(R"({"age": [30.0, 31.0]})")});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("age"), std::string::npos) << s;
  EXPECT_NE(s.message().find("Example index: 2"), std::string::npos) << s;
}

TEST_F(MalformedExamples, MissingRequiredFeature) {
  Status s = Regress({FromJson(R"({"hours": [30.0]})")});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("age"), std::string::npos) << s;
  EXPECT_NE(s.message().find("required"), std::string::npos) << s;
}

TEST(MalformedExamplesV1, HalfPlusTwoParseExampleNamesFeatureAndIndex) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  SavedModelBundle bundle;
  ASSERT_TRUE(LoadServing(Serving("saved_model_half_plus_two_cpu"), &bundle).ok());
  std::vector<Tensor> got;
  ::tensorflow::Example wrong;
  (*wrong.mutable_features()->mutable_feature())["x"].mutable_int64_list()->add_value(2);
  Status s = RunSignature(bundle, "regress_x_to_y", {XExample(1), wrong.SerializeAsString()},
                          {"outputs"}, &got);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("Feature: x"), std::string::npos) << s;
  EXPECT_NE(s.message().find("Example index: 1"), std::string::npos) << s;
  s = RunSignature(bundle, "regress_x_to_y", {"\x0a\x05truncated"}, {"outputs"}, &got);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
}

// ---------------------------------------------------------------------------------------------
// graphrt run --example / --examples.

TEST(CliExamples, RegressWithExampleFlags) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  const std::string model = Serving("saved_model_half_plus_two_cpu");
  testing::CommandResult r =
      testing::RunGraphrt("run " + model +
                          " --signature regress_x_to_y --example '{\"x\": [1.0]}' --example "
                          "'{\"x\": [2.0]}' --example '{\"x\": [5.0]}'");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("outputs: float32[3,1] [2.5, 3, 4.5]"), std::string::npos) << r.out;
  r = testing::RunGraphrt("run " + model +
                          " --signature classify_x_to_y --example '{\"x\": [2.0]}' --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"values\": [3]"), std::string::npos) << r.out;
  // An int64_list where the graph parses floats: the feature is named.
  r = testing::RunGraphrt("run " + model + " --signature regress_x_to_y --example '{\"x\": [2]}'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("Feature: x"), std::string::npos) << r.out;
  r = testing::RunGraphrt("run " + model + " --signature regress_x_to_y --example '{\"x\": '");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(CliExamples, GpuPinnedModelRunsWithSoftPlacement) {
  GRT_REQUIRE_SHARED_OR_SKIP();
  testing::CommandResult r = testing::RunGraphrt(
      "run " + Serving("saved_model_half_plus_two_gpu") +
      " --soft-placement --signature regress_x_to_y2 --example '{\"x\": [1.0]}' "
      "--example '{\"x\": [5.0]}'");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("outputs: float32[2,1] [3.5, 5.5]"), std::string::npos) << r.out;
}

TEST(CliExamples, ClassifyEstimatorFromJsonLines) {
  const std::string model = Fixture("estimator/dnn_linear_combined_classifier");
  testing::CommandResult r =
      testing::RunGraphrt("run " + model + " --signature classification --examples " +
                          Fixture("estimator/examples.jsonl") + " --output scores");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("scores: float32[12,2]"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace graphrt
