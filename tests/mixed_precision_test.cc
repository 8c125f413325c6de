// Auto mixed precision on the CPU (runtime/optimize/mixed_precision.cc) against TensorFlow
// 2.15.1 (tests/fixtures/gen_mixed_precision.py): the MLP and CNN run with the same ConfigProto
// give TensorFlow's outputs within float16 / bfloat16 rounding (the manifest's rtol and atol:
// 4e-3 for float16, 3e-2 for bfloat16, atol scaled by max|output|), differ from float32's, and the
// placement report says which nodes ran in the reduced type. With the switch off, or where
// graphrt has no reduced kernel, nothing changes.
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <cstdlib>
#include <map>
#include <set>

#include <graphrt/graph_io.h>
#include <graphrt/npy.h>

#include "runtime/session/session.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

constexpr char kFloat16Config[] =
    "graph_options { rewrite_options { auto_mixed_precision_cpu: ON } }";
constexpr char kBfloat16Config[] =
    "graph_options { rewrite_options { auto_mixed_precision_onednn_bfloat16: ON } }";

std::string FixtureDir() { return testing::SourceDir() + "/tests/fixtures/mixed_precision"; }

std::map<std::string, testing::FixtureCase> Cases() {
  std::map<std::string, testing::FixtureCase> out;
  StatusOr<std::vector<testing::FixtureCase>> cases = testing::LoadManifest(FixtureDir());
  EXPECT_TRUE(cases.ok()) << cases.status();
  if (cases.ok()) {
    for (const testing::FixtureCase& c : *cases) out[c.name] = c;
  }
  return out;
}

SessionConfig Config(const std::string& text) {
  StatusOr<SessionConfig> config = SessionConfig::FromText(text);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : SessionConfig();
}

struct Result {
  Tensor logits;
  PlacementReport report;
  RunMetadata metadata;
};

// Runs a fixture case's graph and feed under `config`, traced.
Result RunCase(const testing::FixtureCase& c, const SessionConfig& config) {
  Result result;
  GraphDef graph;
  EXPECT_TRUE(ReadGraphDef(c.graph_path, &graph).ok());
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(options, &session).ok());
  Status s = session->Create(graph);
  EXPECT_TRUE(s.ok()) << s;
  StatusOr<Tensor> x = ReadNpy(c.feeds.at(0).second);
  EXPECT_TRUE(x.ok());
  if (!x.ok()) return result;
  RunOptions traced;
  traced.set_trace_level(RunOptions::FULL_TRACE);
  std::vector<Tensor> outputs;
  s = session->Run(traced, {{"x:0", *x}}, {"logits:0"}, {}, &outputs, &result.metadata);
  EXPECT_TRUE(s.ok()) << s;
  if (!outputs.empty()) result.logits = outputs[0];
  result.report = session->GetPlacementReport();
  return result;
}

Tensor Expected(const testing::FixtureCase& c) {
  StatusOr<Tensor> t = ReadNpy(c.fetches.at(0).second);
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : Tensor();
}

// node -> precision, for the report's nodes with one.
std::map<std::string, std::string> Precisions(const PlacementReport& report) {
  std::map<std::string, std::string> out;
  for (const PlacementDecision& d : report.decisions()) {
    if (!d.precision.empty()) out[d.node] = d.precision;
  }
  return out;
}

std::map<std::string, std::string> AllIn(const std::vector<std::string>& nodes,
                                         const std::string& precision) {
  std::map<std::string, std::string> out;
  for (const std::string& n : nodes) out[n] = precision;
  return out;
}

// The nodes TensorFlow moved (tests/fixtures/mixed_precision/rewrites.txt): float16 stops before
// the last BiasAdd (its reader is fetched); bfloat16 also takes infer ops that follow an allow op.
const std::vector<std::string> kMlpFloat16 = {"fc0/matmul", "fc0/bias", "fc0/relu",  "fc1/matmul",
                                              "fc1/bias",   "fc1/relu", "fc2/matmul"};
const std::vector<std::string> kCnnFloat16 = {"conv0/conv", "conv0/bias", "conv0/relu",
                                              "pool0",      "conv1/conv", "conv1/bias",
                                              "conv1/relu", "flatten",    "fc/matmul"};

void ExpectMatchesTensorFlow(const std::string& model, const std::string& mode,
                             const std::string& config_text, std::vector<std::string> moved,
                             const std::string& precision) {
  std::map<std::string, testing::FixtureCase> cases = Cases();
  ASSERT_TRUE(cases.count(model + "_" + mode) && cases.count(model + "_f32"));
  const testing::FixtureCase& c = cases.at(model + "_" + mode);
  const testing::FixtureCase& f32 = cases.at(model + "_f32");
  Result r = RunCase(c, Config(config_text));
  ASSERT_TRUE(r.logits.IsInitialized());
  EXPECT_EQ(r.logits.dtype(), ::tensorflow::DT_FLOAT);  // fetched dtypes never change
  EXPECT_EQ(testing::CompareTensors(r.logits, Expected(c), c.rtol, c.atol), "");
  // The rewrite ran: float32's answer is not reproduced.
  EXPECT_NE(testing::CompareTensors(r.logits, Expected(f32), f32.rtol, f32.atol), "");
  EXPECT_EQ(Precisions(r.report), AllIn(moved, precision));
  // Casts: on the feed, on the weights (folded into Consts of the reduced type), and back to
  // float32 after the last moved node.
  int casts = 0;
  for (const PlacementDecision& d : r.report.decisions()) {
    if (d.op != "Cast") continue;
    ++casts;
    EXPECT_EQ(d.assigned, "/job:localhost/replica:0/task:0/device:CPU:0") << d.node;
  }
  EXPECT_EQ(casts, 2);
  const PlacementDecision* back = r.report.Find(moved.back() + "/CastToFp32");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->op, "Cast");
}

TEST(MixedPrecision, Float16MlpMatchesTensorFlow) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  ExpectMatchesTensorFlow("mlp", "f16", kFloat16Config, kMlpFloat16, "float16");
}

TEST(MixedPrecision, Float16CnnMatchesTensorFlow) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  ExpectMatchesTensorFlow("cnn", "f16", kFloat16Config, kCnnFloat16, "float16");
}

TEST(MixedPrecision, Bfloat16MlpMatchesTensorFlow) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  std::vector<std::string> moved = kMlpFloat16;
  moved.push_back("fc2/bias");
  ExpectMatchesTensorFlow("mlp", "bf16", kBfloat16Config, moved, "bfloat16");
}

TEST(MixedPrecision, Bfloat16CnnMatchesTensorFlow) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  std::vector<std::string> moved = kCnnFloat16;
  moved.push_back("fc/bias");
  ExpectMatchesTensorFlow("cnn", "bf16", kBfloat16Config, moved, "bfloat16");
}

TEST(MixedPrecision, StepStatsShowTheReducedTypes) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  std::map<std::string, testing::FixtureCase> cases = Cases();
  ASSERT_TRUE(cases.count("mlp_f16"));
  Result r = RunCase(cases.at("mlp_f16"), Config(kFloat16Config));
  std::map<std::string, DataType> output_dtype;
  for (const auto& dev : r.metadata.step_stats().dev_stats()) {
    for (const auto& node : dev.node_stats()) {
      if (node.output_size() > 0) {
        output_dtype[node.node_name()] = node.output(0).tensor_description().dtype();
      }
    }
  }
  EXPECT_EQ(output_dtype["fc0/matmul"], ::tensorflow::DT_HALF);
  EXPECT_EQ(output_dtype["fc1/relu"], ::tensorflow::DT_HALF);
  EXPECT_EQ(output_dtype["_arg_x_0_0/CastToFp16"], ::tensorflow::DT_HALF);
  EXPECT_EQ(output_dtype["fc2/matmul/CastToFp32"], ::tensorflow::DT_FLOAT);
  EXPECT_EQ(output_dtype["fc2/bias"], ::tensorflow::DT_FLOAT);
  EXPECT_EQ(output_dtype["logits"], ::tensorflow::DT_FLOAT);
}

TEST(MixedPrecision, OffChangesNothing) {
  std::map<std::string, testing::FixtureCase> cases = Cases();
  for (const char* text :
       {"", "graph_options { rewrite_options { auto_mixed_precision_cpu: OFF } }",
        // The meta optimizer off turns every pass off, this one too.
        "graph_options { rewrite_options { auto_mixed_precision_cpu: ON "
        "disable_meta_optimizer: true } }"}) {
    SessionConfig config = Config(text);
    EXPECT_EQ(config.rewrite_options.cpu_mixed_precision, ReducedPrecision::kNone) << text;
    for (const char* model : {"mlp", "cnn"}) {
      ASSERT_TRUE(cases.count(StrCat(model, "_f32")));
      const testing::FixtureCase& c = cases.at(StrCat(model, "_f32"));
      Result r = RunCase(c, config);
      EXPECT_EQ(testing::CompareTensors(r.logits, Expected(c), c.rtol, c.atol), "") << text;
      EXPECT_TRUE(Precisions(r.report).empty()) << text;
      for (const PlacementDecision& d : r.report.decisions()) {
        EXPECT_NE(d.op, "Cast") << d.node << " " << text;
      }
    }
  }
}

// A graph whose only allow-listed op has no reduced kernel (graphrt's _FusedMatMul is float32
// only) runs as it would without the switch, to the bit.
TEST(MixedPrecision, OpWithoutReducedKernelStaysFloat32) {
  const std::string text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: 2 }
            dim { size: 3 }
          }
        }
      }
    }
    node {
      name: "w"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {
              dim { size: 3 }
              dim { size: 2 }
            }
            float_val: [ 0.1, -0.7, 1.3, 0.33, -2.1, 0.9 ]
          }
        }
      }
    }
    node {
      name: "b"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } }
            float_val: [ 0.01, -0.2 ]
          }
        }
      }
    }
    node {
      name: "fc"
      op: "_FusedMatMul"
      input: [ "x", "w", "b" ]
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "num_args"
        value { i: 1 }
      }
      attr {
        key: "fused_ops"
        value { list { s: "BiasAdd" } }
      }
    }
    node {
      name: "act"
      op: "Relu"
      input: "fc"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "out"
      op: "Identity"
      input: "act"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  Tensor x(::tensorflow::DT_FLOAT, TensorShape({2, 3}));
  const float values[] = {0.123456f, -1.5f, 2.75f, 3.14159f, 0.001f, -0.333333f};
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = values[i];
  std::vector<Tensor> outputs[2];
  PlacementReport report;
  for (int on = 0; on < 2; ++on) {
    SessionOptions options;
    if (on) options.config = Config(kFloat16Config);
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(options, &session).ok());
    ASSERT_TRUE(session->Create(graph).ok());
    Status s = session->Run({{"x", x}}, {"out"}, {}, &outputs[on]);
    ASSERT_TRUE(s.ok()) << s;
    if (on) report = session->GetPlacementReport();
  }
  EXPECT_EQ(testing::CompareTensors(outputs[1][0], outputs[0][0], 0, 0), "");
  EXPECT_TRUE(Precisions(report).empty());
  for (const PlacementDecision& d : report.decisions()) EXPECT_NE(d.op, "Cast") << d.node;
}

// Grappler's colouring on a chain MatMul -> Tanh -> MatMul -> Exp -> AddV2 -> MatMul: the infer op
// between two allow ops joins them, the deny op (Exp) stays float32 and so does the infer op it
// feeds (AddV2), and the last MatMul moves alone, between its own Casts: the nodes TensorFlow
// 2.15.1 moves in this graph (its partition graph, checked by hand).
TEST(MixedPrecision, DenyListStopsThePropagation) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  auto weight = [](const std::string& name, float scale) {
    std::string values;
    for (int i = 0; i < 16; ++i) values += StrCat(" float_val: ", scale * ((i * 7) % 5 - 2));
    return StrCat("node { name: '", name,
                  "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
                  "'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { "
                  "size: 4 } }",
                  values, " } } } }\n");
  };
  auto op = [](const std::string& name, const std::string& type, const std::string& a,
               const std::string& b) {
    return StrCat("node { name: '", name, "' op: '", type, "' input: '", a, "'",
                  b.empty() ? "" : StrCat(" input: '", b, "'"),
                  " attr { key: 'T' value { type: DT_FLOAT } } }\n");
  };
  const std::string text = StrCat(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      weight("w1", 0.3f), weight("w2", 0.2f), weight("w3", 0.1f), op("m1", "MatMul", "x", "w1"),
      op("t", "Tanh", "m1", ""), op("m2", "MatMul", "t", "w2"), op("e", "Exp", "m2", ""),
      op("a", "AddV2", "e", "e"), op("m3", "MatMul", "a", "w3"), op("out", "Identity", "m3", ""));
  GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  Tensor x(::tensorflow::DT_FLOAT, TensorShape({2, 4}));
  for (int i = 0; i < 8; ++i) x.data<float>()[i] = 0.37f * static_cast<float>(i) - 1.1f;
  std::vector<Tensor> outputs[2];
  PlacementReport report;
  for (int on = 0; on < 2; ++on) {
    SessionOptions options;
    if (on) options.config = Config(kFloat16Config);
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(options, &session).ok());
    ASSERT_TRUE(session->Create(graph).ok());
    Status s = session->Run({{"x", x}}, {"out"}, {}, &outputs[on]);
    ASSERT_TRUE(s.ok()) << s;
    if (on) report = session->GetPlacementReport();
  }
  EXPECT_EQ(Precisions(report), AllIn({"m1", "t", "m2", "m3"}, "float16"));
  std::set<std::string> casts;
  for (const PlacementDecision& d : report.decisions()) {
    if (d.op == "Cast") casts.insert(d.node);
  }
  EXPECT_EQ(casts, (std::set<std::string>{"_arg_x_0_0/CastToFp16", "m2/CastToFp32", "a/CastToFp16",
                                          "m3/CastToFp32"}));
  // float16 rounding of values up to a few units, through three products.
  EXPECT_EQ(testing::CompareTensors(outputs[1][0], outputs[0][0], 1e-2, 1e-2), "");
  EXPECT_NE(testing::CompareTensors(outputs[1][0], outputs[0][0], 0, 0), "");
}

TEST(MixedPrecision, ConfigReadsTensorFlowsFieldNames) {
  SessionConfig f16 = Config(kFloat16Config);
  EXPECT_EQ(f16.rewrite_options.cpu_mixed_precision, ReducedPrecision::kFloat16);
  EXPECT_TRUE(f16.reduced_precision_requested);
  SessionConfig bf16 = Config(kBfloat16Config);
  EXPECT_EQ(bf16.rewrite_options.cpu_mixed_precision, ReducedPrecision::kBfloat16);
  EXPECT_EQ(Config("graph_options { rewrite_options { auto_mixed_precision_mkl: ON } }")
                .rewrite_options.cpu_mixed_precision,
            ReducedPrecision::kBfloat16);
  // TensorFlow runs the bfloat16 pass first; the float16 one then finds nothing to move.
  EXPECT_EQ(Config("graph_options { rewrite_options { auto_mixed_precision_cpu: ON "
                   "auto_mixed_precision_onednn_bfloat16: ON } }")
                .rewrite_options.cpu_mixed_precision,
            ReducedPrecision::kBfloat16);
  // Plain auto_mixed_precision is for CUDA GPUs: only noted.
  SessionConfig cuda = Config("graph_options { rewrite_options { auto_mixed_precision: ON } }");
  EXPECT_TRUE(cuda.reduced_precision_requested);
  EXPECT_EQ(cuda.rewrite_options.cpu_mixed_precision, ReducedPrecision::kNone);
  // Round trips.
  for (const SessionConfig& c : {f16, bf16, cuda}) {
    SessionConfig back = SessionConfig::FromProto(c.ToProto());
    EXPECT_EQ(back.rewrite_options.cpu_mixed_precision, c.rewrite_options.cpu_mixed_precision);
    EXPECT_TRUE(back.reduced_precision_requested);
  }
  EXPECT_FALSE(SessionConfig().ToProto().graph_options().has_rewrite_options());
}

}  // namespace
}  // namespace graphrt
