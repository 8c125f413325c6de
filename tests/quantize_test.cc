// `graphrt quantize` and migrate/quantize.h: the modes on tests/fixtures/quantize (made by
// gen_quantize.py, which also ran each result in TensorFlow), calibration inputs, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <google/protobuf/util/message_differencer.h>
#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "graphrt_build_config.h"
#include "formats/graph_def.h"
#include "formats/npy.h"
#include "migrate/quantize.h"
#include "migrate/quantize_model.h"
#include "runtime/core/attr_util.h"
#include "runtime/session/saved_model.h"
#include "runtime/session/session.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

namespace fs = std::filesystem;

std::string Dir() { return testing::SourceDir() + "/tests/fixtures/quantize"; }

std::string Scratch(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/quantize_test_" + name;
  std::error_code ec;
  fs::remove_all(path, ec);
  return path;
}

nlohmann::json Manifest() {
  std::ifstream in(Dir() + "/manifest.json");
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

Tensor Npy(const std::string& file) {
  StatusOr<Tensor> t = ReadNpy(Dir() + "/" + file);
  EXPECT_TRUE(t.ok()) << file << ": " << t.status();
  return t.ok() ? *t : Tensor();
}

float MaxAbs(const Tensor& t) {
  float m = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) m = std::max(m, std::fabs(t.data<float>()[i]));
  return m;
}

// The JSON a --json command printed (stderr lines before it are skipped).
nlohmann::json JsonOf(const std::string& out) {
  const size_t brace = out.find('{');
  return nlohmann::json::parse(brace == std::string::npos ? "" : out.substr(brace), nullptr,
                               /*allow_exceptions=*/false);
}

// Runs a quantized model written by the command on `input`, with the remapper (which turns the
// int8 patterns into int8 kernels) on or off.
StatusOr<std::vector<Tensor>> RunWritten(const nlohmann::json& c, const std::string& path,
                                         const Tensor& input, bool remapping) {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  options.config.rewrite_options.remapping = remapping;
  std::vector<Tensor> out;
  if (c.contains("output_tensors")) {
    GraphDef graph;
    GRT_RETURN_IF_ERROR(ReadGraphDef(path, &graph));
    Session* raw = nullptr;
    GRT_RETURN_IF_ERROR(NewSession(options, &raw));
    std::unique_ptr<Session> session(raw);
    GRT_RETURN_IF_ERROR(session->Create(graph));
    GRT_RETURN_IF_ERROR(session->Run({{c["input"].get<std::string>(), input}},
                                     c["output_tensors"].get<std::vector<std::string>>(), {},
                                     &out));
    return out;
  }
  SavedModelBundle bundle;
  GRT_RETURN_IF_ERROR(LoadSavedModel(options, RunOptions(), path, {"serve"}, &bundle));
  const auto& sig = bundle.meta_graph_def.signature_def().at("serving_default");
  std::vector<std::string> fetches;
  for (const auto& key : c["output_keys"]) fetches.push_back(sig.outputs().at(key).name());
  GRT_RETURN_IF_ERROR(bundle.session->Run(
      {{sig.inputs().at(c["input_key"].get<std::string>()).name(), input}}, fetches, {}, &out));
  return out;
}

// Each mode's result, written by the command, runs in graphrt with TensorFlow's outputs on the
// same file (gen_quantize.py loaded it in TensorFlow 2.15). Tolerances: with the remapper off
// graphrt computes what TensorFlow does (float32 over the stored weights and the
// QuantizeV2/Dequantize pairs): rtol 1e-5, atol 1e-5 x the largest output. With it on, MatMul and
// Conv2D run as int8 products whose activation is quantized per run to 8 bits, which TensorFlow
// does not do: within 4 % of the largest output (about 4 activation steps through three layers).
TEST(QuantizeFixtures, WrittenModelsGiveTensorFlowsOutputs) {
  const nlohmann::json manifest = Manifest();
  ASSERT_FALSE(manifest.is_discarded()) << Dir() << "/manifest.json";
  ASSERT_TRUE(manifest.contains("checked_by_tf")) << "gen_quantize.py ran without --graphrt";
  for (const auto& check : manifest["checked_by_tf"]) {
    EXPECT_TRUE(check["ok"].get<bool>()) << check.dump();
  }
  int ran = 0, keras = 0;
  for (const auto& c : manifest["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    if (c["model"].get<std::string>().find(".h5") != std::string::npos) {
      ++keras;
      // A build without HDF5 reads no Keras file (its refusal is tested in cli_test.cc).
      if (!GRAPHRT_WITH_HDF5) continue;
    }
    const bool graph_def = c.contains("output_tensors");
    const std::string out = Scratch(c["name"].get<std::string>() + (graph_def ? ".pb" : ""));
    std::string flags;
    bool shallow_int8 = false;
    for (const auto& f : c["flags"]) {
      flags += " " + (f == "calib" ? Dir() + "/calib" : f.get<std::string>());
      shallow_int8 |= f == "--quantize-shallow-convs";
    }
    testing::CommandResult r = testing::RunGraphrt(
        StrCat("quantize ", Dir(), "/", c["model"].get<std::string>(), " ", out, " --mode ",
               c["mode"].get<std::string>(), " --timing-rounds 0 --json", flags));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const nlohmann::json report = JsonOf(r.out);
    ASSERT_FALSE(report.is_discarded()) << r.out;
    const double size_ratio =
        report["weight_bytes_after"].get<double>() / report["weight_bytes_before"].get<double>();
    // int8: a quarter of the bytes plus 8 bytes of range per output channel, which in these
    // small layers (8 to 32 channels of 8 to 72 weights) is up to a sixth more; qnet's conv1
    // (216 of its 576 weights) stays float32 without --quantize-shallow-convs.
    const bool float_stem = graph_def && !shallow_int8;
    EXPECT_LE(size_ratio, c["mode"] == "fp16-weights" ? 0.5 : float_stem ? 0.45 : 0.42);
    if (c["mode"] != "fp16-weights") {
      // qnet: conv1, pw and fc at least (the depthwise too where it has an int8 kernel); qdense:
      // both Dense layers.
      EXPECT_GE(report["runs_int8"].size(), graph_def ? 3u : 2u) << report.dump();
    }
    const Tensor input = Npy(c["eval_input"]);
    const auto& tf_files = c["tf_outputs"];
    for (bool remapping : {false, true}) {
      SCOPED_TRACE(remapping ? "remapping on" : "remapping off");
      StatusOr<std::vector<Tensor>> got = RunWritten(c, out, input, remapping);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->size(), tf_files.size());
      for (size_t i = 0; i < got->size(); ++i) {
        const Tensor want = Npy(tf_files[i]);
        const bool exact = !remapping || c["mode"] == "fp16-weights";
        const double scale = MaxAbs(want);
        EXPECT_EQ(testing::CompareTensors((*got)[i], want, exact ? 1e-5 : 0,
                                          (exact ? 1e-5 : 0.04) * scale),
                  "")
            << "output " << i;
      }
    }
    ++ran;
  }
  EXPECT_EQ(keras, 2);
  EXPECT_EQ(ran, GRAPHRT_WITH_HDF5 ? 10 : 8);
}

// fp16-weights changes outputs by at most 1e-3 relative to float32 (the acceptance bound).
TEST(QuantizeFixtures, Fp16WeightsStayWithin1e3OfFloat32) {
  StatusOr<GraphDef> graph = [] {
    GraphDef g;
    Status s = ReadGraphDef(Dir() + "/qnet.pb", &g);
    return s.ok() ? StatusOr<GraphDef>(g) : StatusOr<GraphDef>(s);
  }();
  ASSERT_TRUE(graph.ok()) << graph.status();
  migrate::QuantizeJob job;
  job.options.mode = migrate::QuantizeMode::kFp16Weights;
  job.inputs = {
      {"images", "images:0", ::tensorflow::DT_FLOAT, PartialTensorShape({-1, 16, 16, 3})}};
  job.outputs = {{"logits", "logits:0"}};
  StatusOr<std::vector<migrate::CalibrationExample>> examples =
      migrate::ReadCalibrationData(Dir() + "/calib", job.inputs);
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 48u);
  job.examples = *examples;
  job.eval_split = 0.25;
  job.timing_rounds = 1;
  migrate::QuantizeReport report;
  ASSERT_TRUE(migrate::RunQuantizeJob(job, &*graph, &report).ok());
  EXPECT_EQ(report.calibration_examples, 36);
  EXPECT_EQ(report.eval_examples, 12);
  ASSERT_EQ(report.eval.size(), 1u);
  EXPECT_LE(report.calibration[0].max_rel_error, 1e-3);
  EXPECT_LE(report.eval[0].max_rel_error, 1e-3);
  EXPECT_GT(report.eval[0].top1_agreement, 0.99);
  EXPECT_GT(report.float_ms, 0);
  EXPECT_GT(report.quantized_ms, 0);
  int casts = 0;
  for (const auto& node : graph->node()) casts += node.op() == "Cast" ? 1 : 0;
  EXPECT_EQ(casts, static_cast<int>(report.quantized.size()));
}

TEST(QuantizeCalibration, JsonLinesAndNpyFolderReadTheSameExamples) {
  const std::vector<migrate::QuantizeInput> inputs = {
      {"images", "images:0", ::tensorflow::DT_FLOAT, PartialTensorShape({-1, 16, 16, 3})}};
  StatusOr<std::vector<migrate::CalibrationExample>> npy =
      migrate::ReadCalibrationData(Dir() + "/calib", inputs);
  StatusOr<std::vector<migrate::CalibrationExample>> jsonl =
      migrate::ReadCalibrationData(Dir() + "/calib.jsonl", inputs);
  ASSERT_TRUE(npy.ok()) << npy.status();
  ASSERT_TRUE(jsonl.ok()) << jsonl.status();
  ASSERT_EQ(jsonl->size(), 4u);
  for (size_t e = 0; e < jsonl->size(); ++e) {
    EXPECT_EQ((*jsonl)[e][0].shape(), TensorShape({1, 16, 16, 3}));
    EXPECT_EQ(testing::CompareTensors((*jsonl)[e][0], (*npy)[e][0], 0, 1e-6), "") << e;
  }
}

TEST(QuantizeCalibration, RangeMethodsClipOutliersAndKeepZero) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Tensor values(::tensorflow::DT_FLOAT, TensorShape({100000}));
  for (int64_t i = 0; i < values.NumElements(); ++i) values.data<float>()[i] = normal(rng);
  values.data<float>()[0] = 50.0f;  // one outlier
  migrate::RangeCollector minmax(migrate::CalibrationMethod::kMinMax);
  migrate::RangeCollector percentile(migrate::CalibrationMethod::kPercentile, 99.9);
  migrate::RangeCollector entropy(migrate::CalibrationMethod::kEntropy);
  for (auto* c : {&minmax, &percentile, &entropy}) ASSERT_TRUE(c->Add(values).ok());
  EXPECT_EQ(minmax.Range().max, 50.0f);
  // |x| of a standard normal passes 3.29 with probability 1e-3.
  EXPECT_NEAR(percentile.Range().max, 3.29f, 0.1f);
  EXPECT_LT(entropy.Range().max, 20.0f);
  EXPECT_GT(entropy.Range().max, 2.0f);
  Tensor positive(::tensorflow::DT_FLOAT, TensorShape({3}));
  positive.data<float>()[0] = 1;
  positive.data<float>()[1] = 2;
  positive.data<float>()[2] = 3;
  migrate::RangeCollector p(migrate::CalibrationMethod::kMinMax);
  ASSERT_TRUE(p.Add(positive).ok());
  EXPECT_EQ(p.Range().min, 0.0f);
  EXPECT_EQ(p.Range().max, 3.0f);
  Tensor ints(::tensorflow::DT_INT32, TensorShape({2}));
  EXPECT_FALSE(p.Add(ints).ok());
}

// The static mode's QuantizeV2 ranges put 0 exactly on a uint8 level, and --exclude keeps ops
// float.
TEST(QuantizeGraphTest, StaticRangesHoldZeroAndExcludeKeepsOpsFloat) {
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(Dir() + "/qnet.pb", &graph).ok());
  migrate::QuantizeOptions options;
  options.mode = migrate::QuantizeMode::kInt8Static;
  options.exclude = "fc";
  options.quantize_shallow_convs = true;
  StatusOr<std::vector<migrate::QuantizableOp>> ops =
      migrate::FindQuantizableOps(graph, options, nullptr);
  ASSERT_TRUE(ops.ok());
  ASSERT_EQ(ops->size(), 3u);  // conv1, dw, pw; fc excluded
  std::map<std::string, migrate::TensorRange> ranges;
  for (const auto& op : *ops) ranges[op.activation] = {-0.37f, 2.9f};
  migrate::QuantizeSummary summary;
  ASSERT_TRUE(migrate::QuantizeGraph(options, ranges, &graph, &summary).ok());
  EXPECT_EQ(summary.quantized.size(), 3u);
  int quantize_nodes = 0;
  auto scalar_of = [&](const std::string& name) {
    for (const auto& other : graph.node()) {
      Tensor v;
      if (other.name() == name && GetNodeAttr(other, "value", &v).ok()) return v.scalar<float>();
    }
    ADD_FAILURE() << "no Const " << name;
    return 0.0f;
  };
  for (const auto& node : graph.node()) {
    if (node.op() == "MatMul") {
      EXPECT_EQ(node.input(1), "fc/kernel");
    }
    if (node.op() != "QuantizeV2") continue;
    ++quantize_nodes;
    const float lo = scalar_of(node.input(1)), hi = scalar_of(node.input(2));
    const double steps = -lo / ((static_cast<double>(hi) - lo) / 255.0);
    EXPECT_NEAR(steps, std::round(steps), 1e-3) << node.name();
    EXPECT_LT(lo, 0.0f);
    EXPECT_GT(hi, 2.8f);
  }
  EXPECT_EQ(quantize_nodes, 3);
  // Nothing to quantize: a clear error and the graph as it was.
  migrate::QuantizeOptions all_excluded = options;
  all_excluded.exclude = ".*";
  GraphDef before = graph;
  Status s = migrate::QuantizeGraph(all_excluded, ranges, &graph, &summary);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("no quantizable op"), std::string::npos) << s;
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(graph, before));
}

// A convolution over at most 4 channels and 36 values a patch (qnet's conv1: 3x3 over the image's
// 3 channels) stays float32 unless asked for, and says why; the others (pw: 1x1 over 8) are
// quantized either way.
TEST(QuantizeGraphTest, ShallowConvolutionsStayFloatByDefault) {
  GraphDef graph;
  ASSERT_TRUE(ReadGraphDef(Dir() + "/qnet.pb", &graph).ok());
  migrate::QuantizeOptions options;
  options.mode = migrate::QuantizeMode::kInt8Dynamic;
  std::vector<std::string> skipped;
  StatusOr<std::vector<migrate::QuantizableOp>> ops =
      migrate::FindQuantizableOps(graph, options, &skipped);
  ASSERT_TRUE(ops.ok()) << ops.status();
  std::vector<std::string> names;
  for (const auto& op : *ops) names.push_back(op.node);
  EXPECT_EQ(names, (std::vector<std::string>{"dw", "pw", "fc"}));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0],
            "conv1 (Conv2D): patches of 3x3x3 values, faster in float32 "
            "(--quantize-shallow-convs quantizes it)");
  options.quantize_shallow_convs = true;
  ops = migrate::FindQuantizableOps(graph, options, nullptr);
  ASSERT_TRUE(ops.ok()) << ops.status();
  ASSERT_EQ(ops->size(), 4u);
  EXPECT_EQ((*ops)[0].node, "conv1");
}

// Bad input: a clear error naming the problem, and nothing written.
TEST(QuantizeCli, BadInputIsNamedAndNothingIsWritten) {
  const std::string model = Dir() + "/qnet.pb";
  const std::string out = Scratch("bad_out.pb");
  const std::string bad = Scratch("bad_calibration");
  fs::create_directories(bad + "/shape");
  fs::create_directories(bad + "/dtype");
  fs::create_directories(bad + "/empty");
  ASSERT_TRUE(
      WriteNpy(bad + "/shape/images.npy", Tensor(::tensorflow::DT_FLOAT, TensorShape({4, 8, 8, 3})))
          .ok());
  ASSERT_TRUE(WriteNpy(bad + "/dtype/images.npy",
                       Tensor(::tensorflow::DT_INT32, TensorShape({4, 16, 16, 3})))
                  .ok());
  ASSERT_TRUE(WriteStringToFile(bad + "/none.jsonl", "\n").ok());
  // A file that is not .npy, one cut inside its header, JSON Lines that do not parse or name
  // another input.
  fs::create_directories(bad + "/corrupt");
  fs::create_directories(bad + "/truncated");
  ASSERT_TRUE(WriteStringToFile(bad + "/corrupt/images.npy", "not an array").ok());
  ASSERT_TRUE(WriteNpy(bad + "/truncated/images.npy",
                       Tensor(::tensorflow::DT_FLOAT, TensorShape({4, 16, 16, 3})))
                  .ok());
  StatusOr<std::string> whole = ReadFileToString(bad + "/truncated/images.npy");
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(WriteStringToFile(bad + "/truncated/images.npy", whole->substr(0, 40)).ok());
  ASSERT_TRUE(WriteStringToFile(bad + "/broken.jsonl", "{\"images\": [[1, 2\n").ok());
  ASSERT_TRUE(WriteStringToFile(bad + "/other.jsonl", "{\"pixels\": [1, 2]}\n").ok());
  ASSERT_TRUE(WriteStringToFile(bad + "/add.pbtxt",
                                "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { "
                                "type: DT_FLOAT } } }\n"
                                "node { name: 'y' op: 'Relu' input: 'x' attr { key: 'T' value { "
                                "type: DT_FLOAT } } }\n")
                  .ok());
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/shape"),
       "takes [?,16,16,3]"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/dtype"), "int32"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/empty"), "images"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/none.jsonl"),
       "holds no example"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/corrupt"),
       "corrupt/images.npy is not a .npy file"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/truncated"),
       "truncated/images.npy: truncated .npy header"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/broken.jsonl"),
       "broken.jsonl line 1: not a JSON object"},
      {StrCat(model, " ", out, " --mode int8-static --calibration ", bad, "/other.jsonl"),
       "other.jsonl line 1: no value for input images"},
      {StrCat(bad, "/missing.pb ", out, " --mode int8-dynamic"), "missing.pb"},
      {StrCat(model, " ", out, " --mode int8-static"), "needs --calibration"},
      {StrCat(bad, "/add.pbtxt ", out, " --mode int8-dynamic --output y"), "no quantizable op"},
      {StrCat(model, " ", out, " --mode int4"), "--mode int4"},
      {StrCat(model, " ", model, " --mode int8-dynamic"), "never overwrites its input"},
      {StrCat(testing::SourceDir(), "/tests/fixtures/saved_models/keras_lstm ", out,
              " --mode int8-dynamic"),
       "TensorFlow 2 SavedModel"},
  };
  for (const Case& c : cases) {
    testing::CommandResult r = testing::RunGraphrt("quantize " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
  // An existing OUT stays as it was without --force.
  ASSERT_TRUE(WriteStringToFile(out, "keep").ok());
  testing::CommandResult r = testing::RunGraphrt(
      StrCat("quantize ", model, " ", out, " --mode fp16-weights --timing-rounds 0"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  StatusOr<std::string> kept = ReadFileToString(out);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, "keep");
}

}  // namespace
}  // namespace graphrt
