// The graph optimizer (runtime/optimize/) through a Session: each pass fires on a graph made for
// it (the placement report names the node it made and the nodes it replaced), gives the values
// the unoptimized graph gives, leaves fetched tensors alone, and turns off through
// ConfigProto.graph_options.rewrite_options or GRAPHRT_OPTIMIZER=0.
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

#include "runtime/core/attr_util.h"
#include "runtime/session/session.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string FloatConst(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<float>& values) {
  std::string shape, vals;
  for (int64_t d : dims) shape += StrCat(" dim { size: ", d, " }");
  for (float v : values) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", v);  // every float reads back exactly
    vals += StrCat(" float_val: ", text);
  }
  return StrCat("node { name: '", name,
                "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {",
                shape, " }", vals, " } } } }\n");
}

std::string Placeholder(const std::string& name, const std::vector<int64_t>& dims) {
  std::string shape;
  for (int64_t d : dims) shape += StrCat(" dim { size: ", d, " }");
  return StrCat("node { name: '", name,
                "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
                "attr { key: 'shape' value { shape {",
                shape, " } } } }\n");
}

// A node of float op `op` reading `inputs`, with extra attrs (text) `attrs`.
std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs, const std::string& attrs = "") {
  std::string in;
  for (const std::string& i : inputs) in += StrCat(" input: '", i, "'");
  return StrCat("node { name: '", name, "' op: '", op, "'", in,
                " attr { key: 'T' value { type: DT_FLOAT } } ", attrs, " }\n");
}

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

constexpr char kConvAttrs[] =
    "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
    "attr { key: 'padding' value { s: 'SAME' } }";

SessionConfig Off(void (*set)(GraphRewriteOptions*)) {
  SessionConfig config;
  set(&config.rewrite_options);
  return config;
}

struct RunResult {
  std::vector<Tensor> outputs;
  PlacementReport report;
};

RunResult RunGraph(const std::string& text,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, const SessionConfig& config) {
  GraphDef graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph)) << text;
  SessionOptions options;
  options.config = config;
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(options, &session).ok());
  Status s = session->Create(graph);
  EXPECT_TRUE(s.ok()) << s;
  RunResult result;
  s = session->Run(feeds, fetches, {}, &result.outputs);
  EXPECT_TRUE(s.ok()) << s;
  result.report = session->GetPlacementReport();
  return result;
}

// The report's decision for `node`, or an empty one.
PlacementDecision DecisionOf(const PlacementReport& report, const std::string& node) {
  const PlacementDecision* d = report.Find(node);
  return d == nullptr ? PlacementDecision() : *d;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void ExpectNear(const Tensor& a, const Tensor& b, float rel) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const float x = a.data<float>()[i], y = b.data<float>()[i];
    EXPECT_NEAR(x, y, rel * std::max(1.0f, std::fabs(y))) << "element " << i;
  }
}

Tensor RandomTensor(const std::vector<int64_t>& dims, uint32_t seed) {
  TensorShape shape(dims);
  return Tensor::Vector<float>(Random(shape.num_elements(), seed)).Reshaped(shape);
}

TEST(GraphOptimizer, PruningRemovesIdentitiesAndKeepsFetchedOnes) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string graph = Placeholder("x", {2}) + Op("id", "Identity", {"x"}) +
                            Op("stop", "StopGradient", {"id"}) + Op("y", "Neg", {"stop"}) +
                            Op("kept", "Identity", {"y"});
  Tensor x = Tensor::Vector<float>({1, -2});
  RunResult on = RunGraph(graph, {{"x", x}}, {"kept"}, SessionConfig());
  EXPECT_EQ(on.outputs[0].data<float>()[1], 2.0f);
  EXPECT_TRUE(Contains(DecisionOf(on.report, "id").reason, "model_pruning: removed id (Identity)"))
      << DecisionOf(on.report, "id").reason;
  EXPECT_TRUE(Contains(DecisionOf(on.report, "stop").reason, "removed stop (StopGradient)"));
  // The fetched Identity stays.
  EXPECT_FALSE(Contains(DecisionOf(on.report, "kept").reason, "removed"));

  RunResult off = RunGraph(graph, {{"x", x}}, {"kept"},
                           Off([](GraphRewriteOptions* r) { r->model_pruning = false; }));
  EXPECT_EQ(off.outputs[0].data<float>()[1], 2.0f);
  EXPECT_FALSE(Contains(DecisionOf(off.report, "id").reason, "model_pruning"));
}

TEST(GraphOptimizer, ConstantFoldingFoldsConstantsAndStaticShapes) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string graph =
      Placeholder("x", {2, 3}) + FloatConst("a", {3}, {1, 2, 3}) + FloatConst("b", {3}, {4, 5, 6}) +
      Op("sum", "AddV2", {"a", "b"}) + Op("y", "Mul", {"x", "sum"}) +
      "node { name: 'shape' op: 'Shape' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'out_type' value { type: DT_INT32 } } }\n"
      "node { name: 'z' op: 'Reshape' input: 'y' input: 'shape' "
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } "
      "}\n";
  Tensor x = Tensor::Vector<float>({1, 1, 1, 2, 2, 2}).Reshaped(TensorShape({2, 3}));
  RunResult on = RunGraph(graph, {{"x", x}}, {"z"}, SessionConfig());
  const std::vector<float> expected = {5, 7, 9, 10, 14, 18};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(on.outputs[0].data<float>()[i], expected[i]);
  PlacementDecision sum = DecisionOf(on.report, "sum");
  EXPECT_EQ(sum.op, "Const");
  EXPECT_TRUE(Contains(sum.reason, "constant_folding: sum (Const) replaces sum (AddV2)"))
      << sum.reason;
  EXPECT_EQ(DecisionOf(on.report, "shape").op, "Const");

  RunResult off = RunGraph(graph, {{"x", x}}, {"z"},
                           Off([](GraphRewriteOptions* r) { r->constant_folding = false; }));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(off.outputs[0].data<float>()[i], expected[i]);
  EXPECT_EQ(DecisionOf(off.report, "sum").op, "AddV2");
  EXPECT_EQ(DecisionOf(off.report, "shape").op, "Shape");
}

// A pattern's result with the optimizer on and off, and the on run's report.
struct Compared {
  RunResult on, off;
};
Compared RunBothWays(const std::string& graph, const Tensor& x, const std::string& fetch) {
  SessionConfig off;
  off.rewrite_options.remapping = false;
  Compared c{RunGraph(graph, {{"x", x}}, {fetch}, SessionConfig()),
             RunGraph(graph, {{"x", x}}, {fetch}, off)};
  if (!c.on.outputs.empty() && !c.off.outputs.empty()) {
    ExpectNear(c.on.outputs[0], c.off.outputs[0], 1e-5f);
  }
  return c;
}

TEST(GraphOptimizer, RemappingFusesConvBiasAndEachActivation) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"}) {
    SCOPED_TRACE(act);
    const std::string graph = Placeholder("x", {2, 5, 5, 3}) +
                              FloatConst("w", {3, 3, 3, 4}, Random(108, 1)) +
                              FloatConst("b", {4}, {0.5f, -0.5f, 0.25f, 1}) +
                              Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
                              Op("bias", "BiasAdd", {"conv", "b"}) + Op("out", act, {"bias"});
    Compared c = RunBothWays(graph, RandomTensor({2, 5, 5, 3}, 2), "out");
    PlacementDecision out = DecisionOf(c.on.report, "out");
    EXPECT_EQ(out.op, "_FusedConv2D");
    EXPECT_TRUE(Contains(out.reason, StrCat("remapping: out (_FusedConv2D) replaces conv (Conv2D), "
                                            "bias (BiasAdd), out (",
                                            act, ")")))
        << out.reason;
    EXPECT_TRUE(Contains(DecisionOf(c.on.report, "conv").reason, "folded into out (_FusedConv2D)"));
    EXPECT_EQ(DecisionOf(c.off.report, "out").op, act);
  }
}

TEST(GraphOptimizer, StepStatsNameTheReplacedNodes) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string graph =
      Placeholder("x", {1, 4, 4, 2}) + FloatConst("w", {1, 1, 2, 3}, Random(6, 41)) +
      FloatConst("b", {3}, {1, 2, 3}) + Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("bias", "BiasAdd", {"conv", "b"}) + Op("out", "Relu", {"bias"});
  GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(graph, &g));
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(SessionOptions(), &session).ok());
  ASSERT_TRUE(session->Create(g).ok());
  RunOptions traced;
  traced.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  ASSERT_TRUE(
      session
          ->Run(traced, {{"x", RandomTensor({1, 4, 4, 2}, 42)}}, {"out"}, {}, &outputs, &metadata)
          .ok());
  std::string label;
  for (const auto& dev : metadata.step_stats().dev_stats()) {
    for (const auto& node : dev.node_stats()) {
      if (node.node_name() == "out") label = node.timeline_label();
    }
  }
  EXPECT_EQ(label, "out = _FusedConv2D() replaces conv (Conv2D), bias (BiasAdd), out (Relu)");
}

TEST(GraphOptimizer, RemappingFusesMatMulAndDepthwiseAndSwish) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  // MatMul + Add of a 1-D Const + swish.
  std::string graph = Placeholder("x", {3, 4}) + FloatConst("w", {4, 5}, Random(20, 3)) +
                      FloatConst("b", {5}, Random(5, 4)) + Op("mm", "MatMul", {"x", "w"}) +
                      Op("add", "AddV2", {"mm", "b"}) + Op("sig", "Sigmoid", {"add"}) +
                      Op("swish", "Mul", {"add", "sig"});
  Compared c = RunBothWays(graph, RandomTensor({3, 4}, 5), "swish");
  EXPECT_EQ(DecisionOf(c.on.report, "swish").op, "_FusedMatMul");
  EXPECT_TRUE(Contains(DecisionOf(c.on.report, "swish").reason,
                       "mm (MatMul), add (AddV2), sig (Sigmoid), swish (Mul)"));
  // Depthwise + BiasAdd + Relu6.
  graph = Placeholder("x", {1, 6, 6, 2}) + FloatConst("w", {3, 3, 2, 2}, Random(36, 6)) +
          FloatConst("b", {4}, Random(4, 7)) +
          Op("dw", "DepthwiseConv2dNative", {"x", "w"}, kConvAttrs) +
          Op("bias", "BiasAdd", {"dw", "b"}) + Op("out", "Relu6", {"bias"});
  c = RunBothWays(graph, RandomTensor({1, 6, 6, 2}, 8), "out");
  EXPECT_EQ(DecisionOf(c.on.report, "out").op, "_FusedDepthwiseConv2dNative");
}

// A 1x1 convolution whose only reader is a depthwise one, each with its bias and activation
// (MobileNetV2's and EfficientNet's inverted residual blocks): one _GraphrtFusedExpandDepthwise
// that names all six nodes, with the two convolutions' values; with a 1x1 projection after it
// (bias, optionally the block input added, optionally Relu), one _GraphrtFusedInvertedResidual
// for the whole block. Expansions of over 1 MiB are computed in bands of rows on each thread
// (their first case here on 1 to 3 threads); the smaller ones whole. The cases cover stride 2
// after a folded Pad, 5x5 and dilated windows, channels that are not whole vectors, batch 2, and
// swish (applied after the product, not in its tiles).
TEST(GraphOptimizer, RemappingFusesInvertedResidualBlocks) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  struct Case {
    std::vector<int64_t> x;  // NHWC
    int64_t expanded, window, stride, dilation;
    bool pad;  // a Pad (1 before, 1 after) and VALID, else SAME
    bool swish;
    int64_t projected;    // the projection's channels; 0: none
    bool residual, relu;  // the projection's epilogue
  };
  const Case cases[] = {
      {{1, 64, 64, 8}, 96, 3, 1, 1, false, false, 8, true, false},    // bands of 10 rows
      {{1, 66, 66, 8}, 96, 3, 2, 1, true, false, 24, false, false},   // stride 2, padding
      {{1, 48, 72, 12}, 80, 5, 1, 1, false, false, 0, false, false},  // 5x5
      {{1, 48, 48, 8}, 128, 3, 1, 2, false, false, 16, false, true},  // dilation 2
      {{2, 64, 70, 6}, 36, 3, 1, 1, false, true, 6, true, true},      // 36 channels, swish
      {{1, 9, 7, 3}, 20, 3, 1, 1, false, false, 0, false, false},     // whole
      {{2, 15, 13, 5}, 24, 3, 2, 1, true, true, 10, false, false},    // whole, stride 2
  };
  int run = 0;
  for (const Case& k : cases) {
    SCOPED_TRACE(StrCat("case ", run));
    const int64_t in = k.x[3], e = k.expanded;
    std::string graph =
        Placeholder("x", k.x) + FloatConst("we", {1, 1, in, e}, Random(in * e, 60 + run)) +
        FloatConst("be", {e}, Random(e, 70 + run)) +
        FloatConst("wd", {k.window, k.window, e, 1}, Random(k.window * k.window * e, 80 + run)) +
        FloatConst("bd", {e}, Random(e, 90 + run)) +
        Op("expand", "Conv2D", {"x", "we"}, kConvAttrs) +
        Op("expand_bias", "BiasAdd", {"expand", "be"});
    std::string replaced = "expand (Conv2D), expand_bias (BiasAdd), ";
    if (k.swish) {
      graph += Op("expand_sig", "Sigmoid", {"expand_bias"}) +
               Op("expand_act", "Mul", {"expand_bias", "expand_sig"});
      replaced += "expand_sig (Sigmoid), expand_act (Mul), ";
    } else {
      graph += Op("expand_act", "Relu6", {"expand_bias"});
      replaced += "expand_act (Relu6), ";
    }
    std::string expanded = "expand_act";
    const std::string dw_attrs =
        StrCat("attr { key: 'strides' value { list { i: 1 i: ", k.stride, " i: ", k.stride,
               " i: 1 } } } attr { key: 'dilations' value { list { i: 1 i: ", k.dilation,
               " i: ", k.dilation, " i: 1 } } } attr { key: 'padding' value { s: '",
               k.pad ? "VALID" : "SAME", "' } }");
    if (k.pad) {
      graph +=
          "node { name: 'paddings' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
          "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } "
          "dim { size: 2 } } int_val: 0 int_val: 0 int_val: 1 int_val: 1 int_val: 1 int_val: 1 "
          "int_val: 0 int_val: 0 } } } }\n"
          "node { name: 'pad' op: 'Pad' input: 'expand_act' input: 'paddings' "
          "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tpaddings' value { type: "
          "DT_INT32 } } }\n";
      expanded = "pad";
    }
    graph += Op("dw", "DepthwiseConv2dNative", {expanded, "wd"}, dw_attrs) +
             Op("dw_bias", "BiasAdd", {"dw", "bd"});
    replaced += "dw (DepthwiseConv2dNative), dw_bias (BiasAdd), ";
    if (k.swish) {
      graph += Op("sig", "Sigmoid", {"dw_bias"}) + Op("out", "Mul", {"dw_bias", "sig"});
      replaced += "sig (Sigmoid), out (Mul)";
    } else {
      graph += Op("out", "Relu6", {"dw_bias"});
      replaced += "out (Relu6)";
    }
    std::string fetch = "out";
    if (k.projected > 0) {
      const int64_t p = k.projected;
      graph += FloatConst("wp", {1, 1, e, p}, Random(e * p, 110 + run)) +
               FloatConst("bp", {p}, Random(p, 120 + run)) +
               Op("proj", "Conv2D", {"out", "wp"}, kConvAttrs) +
               Op("proj_bias", "BiasAdd", {"proj", "bp"});
      replaced += ", proj (Conv2D), proj_bias (BiasAdd)";
      fetch = "proj_bias";
      if (k.residual) {
        graph += Op("proj_add", "AddV2", {fetch, "x"});
        replaced += ", proj_add (AddV2)";
        fetch = "proj_add";
      }
      if (k.relu) {
        graph += Op("proj_relu", "Relu", {fetch});
        replaced += ", proj_relu (Relu)";
        fetch = "proj_relu";
      }
    }
    const Tensor x = RandomTensor(k.x, 100 + run);
    SessionConfig off;
    off.rewrite_options.remapping = false;
    const RunResult plain = RunGraph(graph, {{"x", x}}, {fetch}, off);
    ASSERT_EQ(plain.outputs.size(), 1u);
    for (int threads = 1; threads <= (run == 0 ? 3 : 1); ++threads) {
      SCOPED_TRACE(StrCat(threads, " threads"));
      SessionConfig on;
      on.intra_op_parallelism_threads = threads;
      const RunResult fused = RunGraph(graph, {{"x", x}}, {fetch}, on);
      ASSERT_EQ(fused.outputs.size(), 1u);
      ExpectNear(fused.outputs[0], plain.outputs[0], 1e-5f);
      const PlacementDecision d = DecisionOf(fused.report, fetch);
      EXPECT_EQ(d.op,
                k.projected > 0 ? "_GraphrtFusedInvertedResidual" : "_GraphrtFusedExpandDepthwise");
      EXPECT_TRUE(Contains(d.reason, replaced)) << d.reason;
    }
    ++run;
  }
  EXPECT_EQ(run, 7);

  // The expansion read by a second node, or fetched itself, stays a node of its own.
  const std::string graph =
      Placeholder("x", {1, 6, 6, 4}) + FloatConst("we", {1, 1, 4, 8}, Random(32, 50)) +
      FloatConst("be", {8}, Random(8, 51)) + FloatConst("wd", {3, 3, 8, 1}, Random(72, 52)) +
      FloatConst("bd", {8}, Random(8, 53)) + Op("expand", "Conv2D", {"x", "we"}, kConvAttrs) +
      Op("expand_bias", "BiasAdd", {"expand", "be"}) + Op("expand_act", "Relu6", {"expand_bias"}) +
      Op("dw", "DepthwiseConv2dNative", {"expand_act", "wd"}, kConvAttrs) +
      Op("dw_bias", "BiasAdd", {"dw", "bd"}) + Op("out", "Relu6", {"dw_bias"});
  const RunResult fetched = RunGraph(graph, {{"x", RandomTensor({1, 6, 6, 4}, 54)}},
                                     {"out", "expand_act"}, SessionConfig());
  EXPECT_EQ(DecisionOf(fetched.report, "out").op, "_FusedDepthwiseConv2dNative");
  EXPECT_EQ(DecisionOf(fetched.report, "expand_act").op, "_FusedConv2D");
}

// A Mul whose only reader is a 1x1 convolution: one _GraphrtFusedChannelScaledConv2D that names
// the Mul and the convolution's nodes, with their values (1e-5 relative: the scales may go into
// the filter, which rounds each product differently). Covered: one scale per image and channel
// into the filter (more pixels than output channels) and into the input (fewer), the scales as
// the first operand, one scale row for two images, scales of unknown static shape (a Keras
// squeeze-and-excitation block's), an elementwise Mul (multiplied out first), and a residual.
TEST(GraphOptimizer, RemappingFusesChannelScalesIntoPointwiseConv) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  struct Case {
    std::vector<int64_t> x, y;  // the Mul's operands
    bool y_unknown;             // y's placeholder has no static shape
    int64_t out;                // output channels
    bool residual;
  };
  const Case cases[] = {
      {{2, 9, 7, 16}, {2, 1, 1, 16}, false, 5, false},   // into the filter
      {{1, 3, 3, 16}, {1, 1, 1, 16}, false, 24, false},  // into the input
      {{2, 1, 1, 12}, {2, 6, 5, 12}, false, 7, true},    // scales first, residual
      {{2, 6, 6, 8}, {1, 1, 1, 8}, false, 3, false},     // one row of scales for two images
      {{1, 10, 10, 20}, {1, 1, 1, 20}, true, 6, false},  // unknown static shape
      {{2, 4, 4, 8}, {2, 4, 4, 8}, true, 4, false},      // elementwise: multiplied out
  };
  int run = 0;
  for (const Case& k : cases) {
    SCOPED_TRACE(StrCat("case ", run));
    const std::vector<int64_t>& image = k.x[1] == 1 && k.x[2] == 1 ? k.y : k.x;
    const int64_t depth = image[3];
    std::string graph =
        Placeholder("x", k.x) +
        (k.y_unknown ? "node { name: 'y' op: 'Placeholder' attr { key: 'dtype' "
                       "value { type: DT_FLOAT } } }\n"
                     : Placeholder("y", k.y)) +
        FloatConst("w", {1, 1, depth, k.out}, Random(depth * k.out, 130 + run)) +
        FloatConst("b", {k.out}, Random(k.out, 140 + run)) + Op("mul", "Mul", {"x", "y"}) +
        Op("conv", "Conv2D", {"mul", "w"}, kConvAttrs) + Op("bias", "BiasAdd", {"conv", "b"});
    std::string fetch = "bias";
    std::string replaced = "mul (Mul), conv (Conv2D), bias (BiasAdd)";
    std::vector<std::pair<std::string, Tensor>> feeds = {{"x", RandomTensor(k.x, 150 + run)},
                                                         {"y", RandomTensor(k.y, 160 + run)}};
    if (k.residual) {
      std::vector<int64_t> out_dims = image;
      out_dims[3] = k.out;
      graph += Placeholder("r", out_dims) + Op("sum", "AddV2", {"bias", "r"});
      feeds.push_back({"r", RandomTensor(out_dims, 170 + run)});
      fetch = "sum";
      replaced += ", sum (AddV2)";
    }
    SessionConfig off;
    off.rewrite_options.remapping = false;
    const RunResult plain = RunGraph(graph, feeds, {fetch}, off);
    const RunResult fused = RunGraph(graph, feeds, {fetch}, SessionConfig());
    ASSERT_EQ(plain.outputs.size(), 1u);
    ASSERT_EQ(fused.outputs.size(), 1u);
    ExpectNear(fused.outputs[0], plain.outputs[0], 1e-5f);
    const PlacementDecision d = DecisionOf(fused.report, fetch);
    EXPECT_EQ(d.op, "_GraphrtFusedChannelScaledConv2D");
    EXPECT_TRUE(Contains(d.reason, replaced)) << d.reason;
    ++run;
  }
  EXPECT_EQ(run, 6);

  // An elementwise Mul of known shapes is left alone: nothing to gain.
  const std::string elementwise = Placeholder("x", {1, 4, 4, 8}) + Placeholder("y", {1, 4, 4, 8}) +
                                  FloatConst("w", {1, 1, 8, 2}, Random(16, 183)) +
                                  FloatConst("b", {2}, {1, 2}) + Op("mul", "Mul", {"x", "y"}) +
                                  Op("conv", "Conv2D", {"mul", "w"}, kConvAttrs) +
                                  Op("bias", "BiasAdd", {"conv", "b"});
  const RunResult left = RunGraph(
      elementwise, {{"x", RandomTensor({1, 4, 4, 8}, 184)}, {"y", RandomTensor({1, 4, 4, 8}, 185)}},
      {"bias"}, SessionConfig());
  EXPECT_EQ(DecisionOf(left.report, "bias").op, "_FusedConv2D");

  // Operands of the wrong depth: the convolution's error, not a crash.
  const std::string graph = Placeholder("x", {1, 4, 4, 8}) + Placeholder("y", {1, 1, 1, 8}) +
                            FloatConst("w", {1, 1, 6, 2}, Random(12, 180)) +
                            FloatConst("b", {2}, {1, 2}) + Op("mul", "Mul", {"x", "y"}) +
                            Op("conv", "Conv2D", {"mul", "w"}, kConvAttrs) +
                            Op("bias", "BiasAdd", {"conv", "b"});
  GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(graph, &g));
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(SessionOptions(), &session).ok());
  ASSERT_TRUE(session->Create(g).ok());
  std::vector<Tensor> outputs;
  const Status s =
      session->Run({{"x", RandomTensor({1, 4, 4, 8}, 181)}, {"y", RandomTensor({1, 1, 1, 8}, 182)}},
                   {"bias"}, {}, &outputs);
  EXPECT_FALSE(s.ok());
}

// Keras's swish in a frozen graph (tf-keras 2.15): x * sigmoid(beta * x) with a Const beta of 1,
// and tf.custom_gradient's IdentityN(result, x, beta) after it. Pruning removes the IdentityN,
// and the swish then fuses into the convolution.
TEST(GraphOptimizer, PruningRemovesIdentityNSoCustomGradientSwishFuses) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string graph =
      Placeholder("x", {1, 5, 5, 3}) + FloatConst("w", {3, 3, 3, 4}, Random(108, 51)) +
      FloatConst("b", {4}, {0.5f, -0.5f, 0.25f, 1}) + Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("bias", "BiasAdd", {"conv", "b"}) + FloatConst("beta", {}, {1.0f}) +
      Op("scaled", "Mul", {"beta", "bias"}) + Op("sig", "Sigmoid", {"scaled"}) +
      Op("swish", "Mul", {"bias", "sig"}) +
      "node { name: 'idn' op: 'IdentityN' input: 'swish' input: 'bias' input: 'beta' "
      "attr { key: 'T' value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } } }\n" +
      Op("out", "Neg", {"idn"});
  Compared c = RunBothWays(graph, RandomTensor({1, 5, 5, 3}, 52), "out");
  EXPECT_TRUE(
      Contains(DecisionOf(c.on.report, "idn").reason, "model_pruning: removed idn (IdentityN)"))
      << DecisionOf(c.on.report, "idn").reason;
  EXPECT_EQ(DecisionOf(c.on.report, "swish").op, "_FusedConv2D");
  EXPECT_TRUE(Contains(DecisionOf(c.on.report, "swish").reason,
                       "conv (Conv2D), bias (BiasAdd), scaled (Mul), sig (Sigmoid), swish (Mul)"))
      << DecisionOf(c.on.report, "swish").reason;
  ASSERT_EQ(c.on.outputs.size(), 1u);
  // Against the formula, not only against the unfused graph.
  RunResult plain = RunGraph(graph, {{"x", RandomTensor({1, 5, 5, 3}, 52)}}, {"bias"},
                             Off([](GraphRewriteOptions* r) { r->remapping = false; }));
  for (int64_t i = 0; i < plain.outputs[0].NumElements(); ++i) {
    const float v = plain.outputs[0].data<float>()[i];
    const float want = -v / (1.0f + std::exp(-v));
    EXPECT_NEAR(c.on.outputs[0].data<float>()[i], want, 1e-5f * std::max(1.0f, std::fabs(want)));
  }
}

TEST(GraphOptimizer, RemappingFusesHardSwish) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  // Keras's hard_swish: x * relu6(x + 3) * (1 / 6), after a convolution and its bias.
  const std::string graph =
      Placeholder("x", {1, 5, 5, 3}) + FloatConst("w", {3, 3, 3, 4}, Random(108, 31)) +
      FloatConst("b", {4}, {0.5f, -2, 1, 0}) + FloatConst("three", {}, {3}) +
      FloatConst("sixth", {}, {1.0f / 6.0f}) + Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("bias", "BiasAdd", {"conv", "b"}) + Op("plus3", "AddV2", {"bias", "three"}) +
      Op("r6", "Relu6", {"plus3"}) + Op("prod", "Mul", {"bias", "r6"}) +
      Op("hs", "Mul", {"prod", "sixth"});
  Tensor x = Tensor::Vector<float>(Random(75, 32)).Reshaped(TensorShape({1, 5, 5, 3}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] *= 4;  // reach both clamps
  Compared c = RunBothWays(graph, x, "hs");
  PlacementDecision hs = DecisionOf(c.on.report, "hs");
  EXPECT_EQ(hs.op, "_FusedConv2D");
  EXPECT_TRUE(Contains(hs.reason, "plus3 (AddV2), r6 (Relu6), prod (Mul), hs (Mul)")) << hs.reason;
}

TEST(GraphOptimizer, RemappingLeavesFetchedIntermediatesAlone) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string graph =
      Placeholder("x", {1, 4, 4, 2}) + FloatConst("w", {1, 1, 2, 3}, Random(6, 9)) +
      FloatConst("b", {3}, {1, 2, 3}) + Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("bias", "BiasAdd", {"conv", "b"}) + Op("out", "Relu", {"bias"});
  RunResult r =
      RunGraph(graph, {{"x", RandomTensor({1, 4, 4, 2}, 10)}}, {"out", "bias"}, SessionConfig());
  ASSERT_EQ(r.outputs.size(), 2u);
  // bias is fetched: conv + bias may fuse (bias is their last node), the Relu may not.
  EXPECT_EQ(DecisionOf(r.report, "out").op, "Relu");
  for (int64_t i = 0; i < r.outputs[0].NumElements(); ++i) {
    EXPECT_EQ(r.outputs[0].data<float>()[i], std::max(0.0f, r.outputs[1].data<float>()[i]));
  }
}

TEST(GraphOptimizer, BatchNormAndConstantMulFoldIntoWeights) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string bn_attrs =
      "attr { key: 'is_training' value { b: false } } "
      "attr { key: 'epsilon' value { f: 0.001 } } attr { key: 'U' value { type: DT_FLOAT } }";
  // Conv2D, then the batch norm; `biased`: with a BiasAdd between (a Keras convolution with
  // use_bias).
  auto bn_graph = [&](bool biased) {
    return Placeholder("x", {2, 5, 5, 3}) + FloatConst("w", {3, 3, 3, 4}, Random(108, 11)) +
           FloatConst("b", {4}, {0.3f, -0.1f, 0.05f, -0.4f}) +
           FloatConst("scale", {4}, {0.5f, 1.5f, 2, 0.75f}) +
           FloatConst("offset", {4}, {0.1f, -0.2f, 0.3f, 0}) +
           FloatConst("mean", {4}, {0.05f, -0.1f, 0.2f, 0.4f}) +
           FloatConst("var", {4}, {1, 0.5f, 2, 0.25f}) +
           Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
           (biased ? Op("bias", "BiasAdd", {"conv", "b"}) : std::string()) +
           Op("bn", "FusedBatchNormV3",
              {biased ? "bias" : "conv", "scale", "offset", "mean", "var"}, bn_attrs) +
           Op("out", "Relu", {"bn"});
  };
  SessionConfig off;
  off.rewrite_options.arithmetic_optimization = false;
  off.rewrite_options.remapping = false;
  Tensor x = RandomTensor({2, 5, 5, 3}, 12);
  RunResult on, plain;
  for (bool biased : {false, true}) {
    SCOPED_TRACE(biased ? "Conv2D, BiasAdd, batch norm" : "Conv2D, batch norm");
    on = RunGraph(bn_graph(biased), {{"x", x}}, {"out"}, SessionConfig());
    plain = RunGraph(bn_graph(biased), {{"x", x}}, {"out"}, off);
    ExpectNear(on.outputs[0], plain.outputs[0], 1e-5f);
    EXPECT_TRUE(Contains(DecisionOf(on.report, "bn").reason,
                         StrCat("arithmetic_optimization: bn (BiasAdd) replaces conv (Conv2D), ",
                                biased ? "bias (BiasAdd), " : "", "bn (FusedBatchNormV3)")))
        << DecisionOf(on.report, "bn").reason;
    EXPECT_EQ(DecisionOf(on.report, "out").op, "_FusedConv2D");
    EXPECT_EQ(DecisionOf(plain.report, "bn").op, "FusedBatchNormV3");
  }

  const std::string mul_graph = Placeholder("x", {3, 4}) + FloatConst("w", {4, 2}, Random(8, 13)) +
                                FloatConst("k", {2}, {2, -0.5f}) + Op("mm", "MatMul", {"x", "w"}) +
                                Op("scaled", "Mul", {"mm", "k"}) + Op("out", "Neg", {"scaled"});
  Tensor m = RandomTensor({3, 4}, 14);
  on = RunGraph(mul_graph, {{"x", m}}, {"out"}, SessionConfig());
  plain = RunGraph(mul_graph, {{"x", m}}, {"out"}, off);
  ExpectNear(on.outputs[0], plain.outputs[0], 1e-6f);
  EXPECT_TRUE(Contains(DecisionOf(on.report, "scaled").reason,
                       "arithmetic_optimization: folded into mm (MatMul)"))
      << DecisionOf(on.report, "scaled").reason;
}

// As above with weights of a real model's size, written as tensor_content: the session holds
// them beside its NodeDefs (SeparateConstValues), folding reads them there and puts its scaled
// filters there too (AddConst), and the result matches the unfolded graph. The MatMul reads its
// weights transposed, so they are scaled by row.
TEST(GraphOptimizer, FoldingIntoWeightsHeldBesideTheNodeDefs) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string bn_attrs =
      "attr { key: 'is_training' value { b: false } } "
      "attr { key: 'epsilon' value { f: 0.001 } } attr { key: 'U' value { type: DT_FLOAT } }";
  const std::string text =
      Placeholder("x", {1, 6, 6, 8}) + FloatConst("w", {1}, {0}) + FloatConst("scale", {1}, {0}) +
      FloatConst("offset", {1}, {0}) + FloatConst("mean", {1}, {0}) + FloatConst("var", {1}, {0}) +
      FloatConst("flat", {2}, {-1, 216}) + FloatConst("m", {1}, {0}) + FloatConst("k", {1}, {0}) +
      Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("bn", "FusedBatchNormV3", {"conv", "scale", "offset", "mean", "var"}, bn_attrs) +
      Op("relu", "Relu", {"bn"}) +
      "node { name: 'rows' op: 'Reshape' input: 'relu' input: 'flat' "
      "attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tshape' value { type: DT_INT32 } } }\n" +
      Op("mm", "MatMul", {"rows", "m"}, "attr { key: 'transpose_b' value { b: true } }") +
      Op("scaled", "Mul", {"mm", "k"}) + Op("out", "Neg", {"scaled"});
  GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  auto positive = [](std::vector<float> v) {
    for (float& x : v) x = 0.5f + std::fabs(x);
    return v;
  };
  const std::map<std::string, Tensor> values = {
      {"w", RandomTensor({3, 3, 8, 24}, 21)},
      {"scale", Tensor::Vector<float>(Random(24, 22))},
      {"offset", Tensor::Vector<float>(Random(24, 23))},
      {"mean", Tensor::Vector<float>(Random(24, 24))},
      {"var", Tensor::Vector<float>(positive(Random(24, 25)))},
      {"flat", Tensor::Vector<int32_t>({-1, 6 * 6 * 24})},
      {"m", RandomTensor({40, 6 * 6 * 24}, 26)},
      {"k", Tensor::Vector<float>(Random(40, 27))}};
  for (::tensorflow::NodeDef& node : *graph.mutable_node()) {
    auto it = values.find(node.name());
    if (it == values.end()) continue;
    SetNodeAttr(&node, "dtype", it->second.dtype());
    SetNodeAttr(&node, "value", it->second);
  }
  std::string with_values;  // RunGraph reads text: tensor_content stays tensor_content
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(graph, &with_values));
  SessionConfig off;
  off.rewrite_options.arithmetic_optimization = false;
  off.rewrite_options.remapping = false;
  Tensor x = RandomTensor({1, 6, 6, 8}, 28);
  RunResult on = RunGraph(with_values, {{"x", x}}, {"out"}, SessionConfig());
  RunResult plain = RunGraph(with_values, {{"x", x}}, {"out"}, off);
  ExpectNear(on.outputs[0], plain.outputs[0], 1e-4f);
  EXPECT_TRUE(Contains(DecisionOf(on.report, "bn").reason, "arithmetic_optimization"))
      << DecisionOf(on.report, "bn").reason;
  EXPECT_TRUE(Contains(DecisionOf(on.report, "scaled").reason,
                       "arithmetic_optimization: folded into mm (MatMul)"))
      << DecisionOf(on.report, "scaled").reason;
}

TEST(GraphOptimizer, RemappingFoldsPadAndFusesResidualAddRelu) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const std::string paddings =
      "node { name: 'paddings' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } "
      "dim { size: 2 } } int_val: 0 int_val: 0 int_val: 1 int_val: 2 int_val: 1 int_val: 0 "
      "int_val: 0 int_val: 0 } } } }\n";
  const std::string valid =
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
      "attr { key: 'padding' value { s: 'VALID' } }";
  const std::string graph =
      Placeholder("x", {1, 6, 6, 4}) + paddings + FloatConst("w", {3, 3, 4, 4}, Random(144, 21)) +
      FloatConst("b", {4}, {0.1f, 0.2f, -0.3f, 0}) +
      "node { name: 'pad' op: 'Pad' input: 'x' input: 'paddings' "
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tpaddings' value { type: DT_INT32 } "
      "} }\n" +
      Op("conv", "Conv2D", {"pad", "w"}, valid) + Op("bias", "BiasAdd", {"conv", "b"}) +
      FloatConst("w2", {1, 1, 4, 4}, Random(16, 22)) +
      Op("shortcut", "Conv2D", {"x", "w2"}, kConvAttrs) + Op("sum", "AddV2", {"bias", "shortcut"}) +
      Op("out", "Relu", {"sum"});
  // pad (1, 2) rows and (1, 0) columns on a 6x6 input, VALID 3x3: a 7x5 output, but the shortcut
  // is 6x6: shapes differ, so the residual Add must not fuse. A 1x1-padded version fuses.
  Tensor x = RandomTensor({1, 6, 6, 4}, 23);
  SessionConfig off;
  off.rewrite_options.remapping = false;
  std::string same = graph;
  const std::string old_pads = "int_val: 0 int_val: 0 int_val: 1 int_val: 2 int_val: 1 int_val: 0";
  same.replace(same.find(old_pads), old_pads.size(),
               "int_val: 0 int_val: 0 int_val: 1 int_val: 1 int_val: 1 int_val: 1");
  RunResult on = RunGraph(same, {{"x", x}}, {"out"}, SessionConfig());
  RunResult plain = RunGraph(same, {{"x", x}}, {"out"}, off);
  ExpectNear(on.outputs[0], plain.outputs[0], 1e-5f);
  PlacementDecision out = DecisionOf(on.report, "out");
  EXPECT_EQ(out.op, "_FusedConv2D");
  EXPECT_TRUE(Contains(out.reason, "conv (Conv2D), bias (BiasAdd), sum (AddV2), out (Relu)"))
      << out.reason;
  EXPECT_TRUE(Contains(DecisionOf(on.report, "conv").reason,
                       "remapping: conv (Conv2D) replaces pad (Pad), conv (Conv2D)"))
      << DecisionOf(on.report, "conv").reason;

  // The same with the batch unknown, as in a network's input: both sides of the Add carry the
  // placeholder's batch, so their shapes are equal symbolically and the Add still fuses.
  std::string unknown_batch = same;
  const std::string batch_one = "dim { size: 1 } dim { size: 6 }";
  unknown_batch.replace(unknown_batch.find(batch_one), batch_one.size(),
                        "dim { size: -1 } dim { size: 6 }");
  Tensor x3 = RandomTensor({3, 6, 6, 4}, 24);
  on = RunGraph(unknown_batch, {{"x", x3}}, {"out"}, SessionConfig());
  plain = RunGraph(unknown_batch, {{"x", x3}}, {"out"}, off);
  ExpectNear(on.outputs[0], plain.outputs[0], 1e-5f);
  EXPECT_TRUE(Contains(DecisionOf(on.report, "out").reason,
                       "conv (Conv2D), bias (BiasAdd), sum (AddV2), out (Relu)"))
      << DecisionOf(on.report, "out").reason;

  // Shapes that differ: the sum cannot be computed at all (TensorFlow would fail too), so only
  // check that the Add was not fused with a shape it cannot take.
  GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(graph, &g));
  SessionOptions options;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(options, &session).ok());
  ASSERT_TRUE(session->Create(g).ok());
  std::vector<Tensor> outputs;
  EXPECT_FALSE(session->Run({{"x", x}}, {"out"}, {}, &outputs).ok());
  EXPECT_NE(DecisionOf(session->GetPlacementReport(), "out").op, "_FusedConv2D");
}

TEST(GraphOptimizer, RewriteOptionsComeFromConfigProto) {
  StatusOr<SessionConfig> config = SessionConfig::FromText(
      "graph_options { rewrite_options { constant_folding: OFF remapping: OFF "
      "disable_model_pruning: true } }");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->rewrite_options.constant_folding);
  EXPECT_FALSE(config->rewrite_options.remapping);
  EXPECT_FALSE(config->rewrite_options.model_pruning);
  EXPECT_TRUE(config->rewrite_options.arithmetic_optimization);
  SessionConfig again = SessionConfig::FromProto(config->ToProto());
  EXPECT_FALSE(again.rewrite_options.remapping);
  EXPECT_TRUE(again.rewrite_options.layout_optimizer);
  config =
      SessionConfig::FromText("graph_options { rewrite_options { disable_meta_optimizer: true } }");
  ASSERT_TRUE(config.ok());
  EXPECT_FALSE(config->rewrite_options.arithmetic_optimization);
  EXPECT_FALSE(config->rewrite_options.model_pruning);
  EXPECT_TRUE(SessionConfig().ToProto().graph_options().has_rewrite_options() == false);
}

TEST(GraphOptimizer, EnvironmentTurnsEveryPassOff) {
  const char* before = std::getenv("GRAPHRT_OPTIMIZER");
  std::string saved = before == nullptr ? "" : before;
  setenv("GRAPHRT_OPTIMIZER", "0", 1);
  const std::string graph =
      Placeholder("x", {2}) + Op("id", "Identity", {"x"}) + Op("y", "Neg", {"id"});
  RunResult r = RunGraph(graph, {{"x", Tensor::Vector<float>({1, 2})}}, {"y"}, SessionConfig());
  EXPECT_FALSE(Contains(DecisionOf(r.report, "id").reason, "model_pruning"));
  if (before == nullptr) {
    unsetenv("GRAPHRT_OPTIMIZER");
  } else {
    setenv("GRAPHRT_OPTIMIZER", saved.c_str(), 1);
  }
}

}  // namespace
}  // namespace graphrt
