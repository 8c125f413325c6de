// Int8 weights through a Session (runtime/optimize/int8_weights.cc): a MatMul / Conv2D whose
// weights are Dequantize(Const qint8, min, max) runs as _GraphrtQuantizedMatMul /
// _GraphrtQuantizedConv2D (the placement report names the node made and the nodes replaced), with
// values within the quantization error of the float graph (remapping off: Dequantize in float);
// patterns that differ stay float; a bad int8 node is an error naming it.
//
// The error bound: x is rounded to scale_x / 2 at most, so y(i, j) moves by at most
// scale_x / 2 * sum_p |w(p, j)| (w the dequantized weights; the activations are 1-Lipschitz),
// plus float rounding (1e-5 relative).
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

#include "runtime/core/str_util.h"
#include "runtime/kernels/cpu/qgemm.h"
#include "runtime/session/session.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

std::string Shape(const std::vector<int64_t>& dims) {
  std::string shape;
  for (int64_t d : dims) shape += StrCat(" dim { size: ", d, " }");
  return shape;
}

std::string FloatConst(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<float>& values) {
  std::string vals;
  for (float v : values) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", v);
    vals += StrCat(" float_val: ", text);
  }
  return StrCat("node { name: '", name,
                "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {",
                Shape(dims), " }", vals, " } } } }\n");
}

// A Const of integer `type` (a DataType's name) whose values are held in int_val.
template <typename V>
std::string IntValConst(const std::string& name, const char* type, const std::vector<int64_t>& dims,
                        const std::vector<V>& values) {
  std::string vals;
  for (V v : values) vals += StrCat(" int_val: ", static_cast<int>(v));
  return StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: ", type,
                " } } attr { key: 'value' value { tensor { dtype: ", type, " tensor_shape {",
                Shape(dims), " }", vals, " } } } }\n");
}

std::string QInt8Const(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int8_t>& values) {
  return IntValConst(name, "DT_QINT8", dims, values);
}

std::string Placeholder(const std::string& name, const std::vector<int64_t>& dims,
                        const char* type = "DT_FLOAT") {
  return StrCat("node { name: '", name,
                "' op: 'Placeholder' attr { key: 'dtype' value { type: ", type,
                " } } attr { key: 'shape' value { shape {", Shape(dims), " } } } }\n");
}

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs, const std::string& attrs = "") {
  std::string in;
  for (const std::string& i : inputs) in += StrCat(" input: '", i, "'");
  return StrCat("node { name: '", name, "' op: '", op, "'", in,
                " attr { key: 'T' value { type: DT_FLOAT } } ", attrs, " }\n");
}

// A convolution's or pool's attrs: strides [1, stride, stride, 1] and `padding`.
std::string StridesAndPadding(int stride, const char* padding) {
  return StrCat("attr { key: 'strides' value { list { i: 1 i: ", stride, " i: ", stride,
                " i: 1 } } } attr { key: 'padding' value { s: '", padding, "' } }");
}

std::vector<float> Random(int64_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

std::vector<int8_t> RandomInt8(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-127, 127);
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

// Int8 weights as `graphrt quantize` writes them: <w>/quantized, <w>/min, <w>/max and the
// Dequantize named <w>. `ranges` values of max (min = -max unless `lo` is given).
struct Int8Weight {
  std::string text;
  std::vector<float> dequantized;  // row-major, as the float graph sees them
};

Int8Weight MakeInt8Weight(const std::string& w, const std::vector<int64_t>& dims, int64_t axis,
                          const std::vector<float>& hi, uint32_t seed,
                          const std::vector<float>* lo = nullptr, bool const_values = true) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  const std::vector<int8_t> q = RandomInt8(count, seed);
  std::vector<float> mins;
  for (size_t i = 0; i < hi.size(); ++i) mins.push_back(lo != nullptr ? (*lo)[i] : -hi[i]);
  const std::vector<int64_t> range_dims =
      axis == -1 ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(hi.size())};
  Int8Weight out;
  out.text = (const_values ? QInt8Const(w + "/quantized", dims, q)
                           : Placeholder(w + "/quantized", dims, "DT_QINT8")) +
             FloatConst(w + "/min", range_dims, mins) + FloatConst(w + "/max", range_dims, hi) +
             StrCat("node { name: '", w, "' op: 'Dequantize' input: '", w, "/quantized' input: '",
                    w, "/min' input: '", w,
                    "/max' attr { key: 'T' value { type: DT_QINT8 } } "
                    "attr { key: 'mode' value { s: 'SCALED' } } "
                    "attr { key: 'narrow_range' value { b: true } } "
                    "attr { key: 'axis' value { i: ",
                    axis, " } } attr { key: 'dtype' value { type: DT_FLOAT } } }\n");
  // The per-slice index of element i along `axis` (or 0).
  int64_t inner = 1;
  if (axis >= 0) {
    for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  }
  for (int64_t i = 0; i < count; ++i) {
    const size_t s = axis < 0 ? 0 : static_cast<size_t>((i / inner) % dims[axis]);
    const float scale = std::max(mins[s] / -127.0f, hi[s] / 127.0f);
    out.dequantized.push_back(q[i] * scale);
  }
  return out;
}

struct RunResult {
  Status status;
  std::vector<Tensor> outputs;
  PlacementReport report;
};

RunResult RunGraph(const std::string& text,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, bool remapping = true) {
  RunResult result;
  GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(text, &graph)) {
    result.status = Internal("the test's graph does not parse");
    return result;
  }
  SessionOptions options;
  options.config.rewrite_options.remapping = remapping;
  std::unique_ptr<Session> session;
  result.status = NewSession(options, &session);
  if (result.status.ok()) result.status = session->Create(graph);
  if (result.status.ok()) result.status = session->Run(feeds, fetches, {}, &result.outputs);
  if (session != nullptr) result.report = session->GetPlacementReport();
  return result;
}

const PlacementDecision* DecisionOf(const PlacementReport& report, const std::string& node) {
  static const PlacementDecision none;
  const PlacementDecision* d = report.Find(node);
  return d == nullptr ? &none : d;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Tensor FloatTensor(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  return Tensor::Vector<float>(values).Reshaped(TensorShape(dims));
}

// |int8 - float| <= scale_x / 2 * column_l1[j] + 1e-5 |float| + 1e-6 for output channel j.
void ExpectWithinQuantizationError(const Tensor& int8, const Tensor& reference, float scale_x,
                                   const std::vector<float>& column_l1) {
  ASSERT_EQ(int8.shape(), reference.shape());
  const int64_t n = static_cast<int64_t>(column_l1.size());
  float worst = 0.0f;
  for (int64_t i = 0; i < int8.NumElements(); ++i) {
    const float a = int8.data<float>()[i], e = reference.data<float>()[i];
    const float bound = 0.5f * scale_x * column_l1[i % n] + 1e-5f * std::fabs(e) + 1e-6f;
    EXPECT_LE(std::fabs(a - e), bound) << "element " << i << ": " << a << " vs " << e;
    worst = std::max(worst, std::fabs(a - e) / bound);
  }
  // Far inside the bound on average, but it is what the test can promise element by element.
  EXPECT_GT(worst, 0.0f) << "the int8 path should differ from float somewhere";
}

float ActivationScale(const std::vector<float>& x) {
  float lo = 0.0f, hi = 0.0f;
  for (float v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return (hi - lo) / 255.0f;
}

// Sum over the rows of |w| for each of the n columns of a [rows, n] matrix.
std::vector<float> ColumnL1(const std::vector<float>& w, int64_t n) {
  std::vector<float> l1(static_cast<size_t>(n), 0.0f);
  for (size_t i = 0; i < w.size(); ++i) l1[i % n] += std::fabs(w[i]);
  return l1;
}

TEST(Int8Weights, MatMulBiasReluRunsInInt8) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const int64_t m = 3, k = 37, n = 21;
  const Int8Weight w = MakeInt8Weight("w", {k, n}, 1, Random(n, 1, 0.1f, 1.0f), 2);
  const std::string graph = Placeholder("x", {m, k}) + w.text + FloatConst("b", {n}, Random(n, 3)) +
                            Op("mm", "MatMul", {"x", "w"}) + Op("bias", "BiasAdd", {"mm", "b"}) +
                            Op("relu", "Relu", {"bias"});
  const std::vector<float> x = Random(m * k, 4, -2.0f, 3.0f);
  RunResult on = RunGraph(graph, {{"x", FloatTensor({m, k}, x)}}, {"relu"});
  RunResult off = RunGraph(graph, {{"x", FloatTensor({m, k}, x)}}, {"relu"}, false);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  const PlacementDecision* relu = DecisionOf(on.report, "relu");
  EXPECT_EQ(relu->op, "_GraphrtQuantizedMatMul");
  EXPECT_TRUE(Contains(relu->reason,
                       "remapping: relu (_FusedMatMul) replaces mm (MatMul), "
                       "bias (BiasAdd), relu (Relu)"))
      << relu->reason;
  EXPECT_TRUE(Contains(relu->reason,
                       "remapping: relu (_GraphrtQuantizedMatMul) replaces "
                       "w (Dequantize), relu (_FusedMatMul)"))
      << relu->reason;
  EXPECT_TRUE(
      Contains(DecisionOf(on.report, "w")->reason, "folded into relu (_GraphrtQuantizedMatMul)"))
      << DecisionOf(on.report, "w")->reason;
  EXPECT_EQ(DecisionOf(off.report, "relu")->op, "Relu");
  ExpectWithinQuantizationError(on.outputs[0], off.outputs[0], ActivationScale(x),
                                ColumnL1(w.dequantized, n));
}

TEST(Int8Weights, ConvChainRunsInInt8PerChannelAndPerTensor) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  // conv1: 3x3 stride 2 SAME, per channel, + BiasAdd + Relu6; conv2: 1x1 per tensor, bare.
  const Int8Weight w1 = MakeInt8Weight("w1", {3, 3, 6, 13}, 3, Random(13, 5, 0.1f, 1.0f), 6);
  const Int8Weight w2 = MakeInt8Weight("w2", {1, 1, 13, 5}, -1, {0.7f}, 7);
  const std::string graph = Placeholder("x", {2, 11, 10, 6}) + w1.text + w2.text +
                            FloatConst("b", {13}, Random(13, 8)) +
                            Op("conv1", "Conv2D", {"x", "w1"}, StridesAndPadding(2, "SAME")) +
                            Op("bias", "BiasAdd", {"conv1", "b"}) + Op("act", "Relu6", {"bias"}) +
                            Op("conv2", "Conv2D", {"act", "w2"}, StridesAndPadding(1, "VALID"));
  const std::vector<float> x = Random(2 * 11 * 10 * 6, 9, -1.0f, 2.0f);
  const Tensor tx = FloatTensor({2, 11, 10, 6}, x);
  RunResult on = RunGraph(graph, {{"x", tx}}, {"act", "conv2"});
  RunResult off = RunGraph(graph, {{"x", tx}}, {"act", "conv2"}, false);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  // act is fetched, so the remapper fuses conv1 + bias + act, and conv2 reads it.
  EXPECT_EQ(DecisionOf(on.report, "act")->op, "_GraphrtQuantizedConv2D");
  EXPECT_EQ(DecisionOf(on.report, "conv2")->op, "_GraphrtQuantizedConv2D");
  EXPECT_TRUE(Contains(DecisionOf(on.report, "conv2")->reason,
                       "remapping: conv2 (_GraphrtQuantizedConv2D) replaces w2 (Dequantize), "
                       "conv2 (Conv2D)"))
      << DecisionOf(on.report, "conv2")->reason;
  ExpectWithinQuantizationError(on.outputs[0], off.outputs[0], ActivationScale(x),
                                ColumnL1(w1.dequantized, 13));
  // conv2 sees conv1's int8 output; compare it with the float conv of that output.
  const Tensor& act = on.outputs[0];
  std::vector<float> act_values(act.data<float>(), act.data<float>() + act.NumElements());
  const std::string conv2_alone =
      Placeholder("act", {2, 6, 5, 13}) + w2.text +
      Op("conv2", "Conv2D", {"act", "w2"}, StridesAndPadding(1, "VALID"));
  RunResult float2 = RunGraph(conv2_alone, {{"act", act}}, {"conv2"}, false);
  ASSERT_TRUE(float2.status.ok()) << float2.status;
  ExpectWithinQuantizationError(on.outputs[1], float2.outputs[0], ActivationScale(act_values),
                                ColumnL1(w2.dequantized, 5));
}

// A pattern that differs from the int8 weights stays float: the values are the float graph's.
void ExpectStaysFloat(const Int8Weight& w, int64_t k, int64_t n, bool feed_weights = false) {
  std::string graph = Placeholder("x", {2, k}) + w.text + FloatConst("b", {n}, Random(n, 3)) +
                      Op("mm", "MatMul", {"x", "w"}) + Op("bias", "BiasAdd", {"mm", "b"});
  std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", FloatTensor({2, k}, Random(2 * k, 4))}};
  if (feed_weights) {
    Tensor q(::tensorflow::DT_QINT8, TensorShape({k, n}));
    const std::vector<int8_t> values = RandomInt8(k * n, 5);
    std::copy(values.begin(), values.end(), q.data<int8_t>());
    feeds.push_back({"w/quantized", q});
  }
  RunResult on = RunGraph(graph, feeds, {"bias"});
  RunResult off = RunGraph(graph, feeds, {"bias"}, false);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  EXPECT_EQ(DecisionOf(on.report, "bias")->op, "_FusedMatMul");
  for (int64_t i = 0; i < on.outputs[0].NumElements(); ++i) {
    const float a = on.outputs[0].data<float>()[i], e = off.outputs[0].data<float>()[i];
    EXPECT_NEAR(a, e, 1e-5f * std::max(1.0f, std::fabs(e))) << i;
  }
}

TEST(Int8Weights, OtherPatternsStayFloat) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const int64_t k = 9, n = 6;
  {
    SCOPED_TRACE("per tensor with min != -max");
    const std::vector<float> lo = {-0.5f};
    ExpectStaysFloat(MakeInt8Weight("w", {k, n}, -1, {0.8f}, 1, &lo), k, n);
  }
  {
    SCOPED_TRACE("per channel along k (axis 0)");
    ExpectStaysFloat(MakeInt8Weight("w", {k, n}, 0, Random(k, 2, 0.1f, 1.0f), 1), k, n);
  }
  {
    SCOPED_TRACE("weights fed, not Const");
    ExpectStaysFloat(MakeInt8Weight("w", {k, n}, 1, Random(n, 2, 0.1f, 1.0f), 1, nullptr, false), k,
                     n, true);
  }
}

TEST(Int8Weights, BadInt8NodeIsAnErrorNamingIt) {
  const std::string ranges = FloatConst("lo", {4}, {-1, -1, -1, -1}) +
                             FloatConst("hi", {4}, {1, 1, 1, 1}) + Placeholder("x", {2, 6});
  auto int8_node = [](const std::string& filter) {
    return StrCat("node { name: 'qmm' op: '_GraphrtQuantizedMatMul' input: 'x' input: '", filter,
                  "' input: 'lo' input: 'hi' }\n");
  };
  const Tensor x = FloatTensor({2, 6}, Random(12, 1));
  // k of 5 against x's 6.
  RunResult wrong_shape = RunGraph(
      ranges + QInt8Const("f", {5, 4}, RandomInt8(20, 1)) + int8_node("f"), {{"x", x}}, {"qmm"});
  ASSERT_FALSE(wrong_shape.status.ok());
  EXPECT_TRUE(Contains(wrong_shape.status.message(), "qmm")) << wrong_shape.status;
  EXPECT_TRUE(Contains(wrong_shape.status.message(), "Matrix size-incompatible"))
      << wrong_shape.status;
  // A float filter where qint8 belongs.
  RunResult wrong_type = RunGraph(ranges + FloatConst("f", {6, 4}, Random(24, 2)) + int8_node("f"),
                                  {{"x", x}}, {"qmm"});
  ASSERT_FALSE(wrong_type.status.ok());
  EXPECT_TRUE(Contains(wrong_type.status.message(), "qmm")) << wrong_type.status;
}

// x's activation quantization as `graphrt quantize --mode int8-static` writes it:
// <x>/quantize = QuantizeV2(x, <x>/range_min, <x>/range_max) and <x>/dequantize after it.
std::string StaticQdq(const std::string& x, float lo, float hi, const char* mode = "MIN_FIRST",
                      float ensure_minimum_range = 0.0f) {
  return FloatConst(x + "/range_min", {}, {lo}) + FloatConst(x + "/range_max", {}, {hi}) +
         StrCat("node { name: '", x, "/quantize' op: 'QuantizeV2' input: '", x, "' input: '", x,
                "/range_min' input: '", x,
                "/range_max' attr { key: 'T' value { type: DT_QUINT8 } } "
                "attr { key: 'mode' value { s: '",
                mode,
                "' } } attr { key: 'round_mode' value { s: 'HALF_AWAY_FROM_ZERO' } } "
                "attr { key: 'narrow_range' value { b: false } } "
                "attr { key: 'axis' value { i: -1 } } "
                "attr { key: 'ensure_minimum_range' value { f: ",
                ensure_minimum_range, " } } }\n") +
         StrCat("node { name: '", x, "/dequantize' op: 'Dequantize' input: '", x,
                "/quantize' input: '", x, "/quantize:1' input: '", x,
                "/quantize:2' attr { key: 'T' value { type: DT_QUINT8 } } "
                "attr { key: 'mode' value { s: '",
                mode,
                "' } } attr { key: 'narrow_range' value { b: false } } "
                "attr { key: 'axis' value { i: -1 } } "
                "attr { key: 'dtype' value { type: DT_FLOAT } } }\n");
}

// The static range nudged so that 0 is a level, as int8-static writes it.
constexpr float kStaticLo = -1.5f * 70 / 255, kStaticHi = 1.5f * 185 / 255;

// A conv (+ bias + relu) and a MatMul whose inputs go through QuantizeV2 -> Dequantize run in int8
// on x itself: the pair is gone (listed as replaced), and the values are the float QDQ graph's
// (optimizer remapping off) up to float rounding, far within one step of the output.
TEST(Int8Weights, StaticActivationRangeSkipsTheQuantizePair) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight w = MakeInt8Weight("w", {3, 3, 5, 11}, 3, Random(11, 21, 0.1f, 1.0f), 22);
  const Int8Weight w2 = MakeInt8Weight("w2", {11 * 4 * 3, 6}, 1, Random(6, 23, 0.1f, 1.0f), 24);
  const std::string graph =
      Placeholder("x", {2, 7, 6, 5}) + StaticQdq("x", kStaticLo, kStaticHi) + w.text + w2.text +
      FloatConst("b", {11}, Random(11, 25)) + FloatConst("shape", {2}, {2, 11 * 4 * 3}) +
      Op("conv", "Conv2D", {"x/dequantize", "w"}, StridesAndPadding(2, "SAME")) +
      Op("bias", "BiasAdd", {"conv", "b"}) + Op("relu", "Relu", {"bias"}) +
      StaticQdq("relu", 0.0f, 2.0f) +
      "node { name: 'flat' op: 'Reshape' input: 'relu/dequantize' input: 'shape_i' "
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } "
      "}\n"
      "node { name: 'shape_i' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } "
      "int_val: 2 int_val: 132 } } } }\n" +
      Placeholder("y", {2, 11 * 4 * 3}) + StaticQdq("y", kStaticLo, kStaticHi) +
      Op("mm", "MatMul", {"y/dequantize", "w2"});
  const Tensor x = FloatTensor({2, 7, 6, 5}, Random(2 * 7 * 6 * 5, 26, -1.0f, 1.5f));
  const Tensor y = FloatTensor({2, 132}, Random(2 * 132, 27, -1.0f, 1.5f));
  RunResult on = RunGraph(graph, {{"x", x}, {"y", y}}, {"relu", "mm"});
  RunResult off = RunGraph(graph, {{"x", x}, {"y", y}}, {"relu", "mm"}, false);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  const PlacementDecision* relu = DecisionOf(on.report, "relu");
  EXPECT_EQ(relu->op, "_GraphrtQuantizedConv2D");
  EXPECT_TRUE(Contains(relu->reason,
                       "remapping: relu (_GraphrtQuantizedConv2D) replaces w (Dequantize), relu "
                       "(_FusedConv2D), x/quantize (QuantizeV2), x/dequantize (Dequantize)"))
      << relu->reason;
  EXPECT_EQ(DecisionOf(on.report, "mm")->op, "_GraphrtQuantizedMatMul");
  EXPECT_TRUE(Contains(DecisionOf(on.report, "x/quantize")->reason, "relu"))
      << DecisionOf(on.report, "x/quantize")->reason;
  EXPECT_EQ(DecisionOf(off.report, "x/quantize")->op, "QuantizeV2");
  // Same codes, same integers: only the float rounding of the output stage differs.
  for (int o = 0; o < 2; ++o) {
    const Tensor& a = on.outputs[o];
    const Tensor& e = off.outputs[o];
    ASSERT_EQ(a.shape(), e.shape());
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      EXPECT_NEAR(a.data<float>()[i], e.data<float>()[i],
                  1e-5f * (1.0f + std::fabs(e.data<float>()[i])))
          << "output " << o << " element " << i;
    }
  }
}

// One pair feeding two int8 convs is bypassed by both and removed; a pair that a float op reads
// too stays (the int8 node still reads x in the static range); a MIN_COMBINED pair is not
// int8-static's, and a range left narrower than ensure_minimum_range is widened as QuantizeV2
// widens it.
TEST(Int8Weights, StaticActivationRangeSharedOrReadElsewhere) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight wa = MakeInt8Weight("wa", {1, 1, 4, 3}, 3, Random(3, 31, 0.1f, 1.0f), 32);
  const Int8Weight wb = MakeInt8Weight("wb", {1, 1, 4, 5}, -1, {0.6f}, 33);
  const std::string conv_attrs = StridesAndPadding(1, "VALID");
  const Tensor x = FloatTensor({1, 3, 5, 4}, Random(60, 34, -1.0f, 1.5f));
  auto check = [&](const std::string& graph, const std::vector<std::string>& fetches) {
    RunResult on = RunGraph(graph, {{"x", x}}, fetches);
    RunResult off = RunGraph(graph, {{"x", x}}, fetches, false);
    EXPECT_TRUE(on.status.ok()) << on.status;
    EXPECT_TRUE(off.status.ok()) << off.status;
    for (size_t o = 0; o < on.outputs.size() && o < off.outputs.size(); ++o) {
      for (int64_t i = 0; i < on.outputs[o].NumElements(); ++i) {
        const float e = off.outputs[o].data<float>()[i];
        EXPECT_NEAR(on.outputs[o].data<float>()[i], e, 1e-5f * (1.0f + std::fabs(e)))
            << fetches[o] << " element " << i;
      }
    }
    return on;
  };
  {
    SCOPED_TRACE("shared by two int8 convs");
    RunResult on =
        check(StaticQdq("x", kStaticLo, kStaticHi) + Placeholder("x", {1, 3, 5, 4}) + wa.text +
                  wb.text + Op("a", "Conv2D", {"x/dequantize", "wa"}, conv_attrs) +
                  Op("b", "Conv2D", {"x/dequantize", "wb"}, conv_attrs),
              {"a", "b"});
    for (const char* node : {"a", "b"}) {
      EXPECT_TRUE(Contains(DecisionOf(on.report, node)->reason, "x/dequantize (Dequantize)"))
          << DecisionOf(on.report, node)->reason;
    }
  }
  {
    SCOPED_TRACE("read by a float Relu too");
    RunResult on = check(StaticQdq("x", kStaticLo, kStaticHi) + Placeholder("x", {1, 3, 5, 4}) +
                             wa.text + Op("a", "Conv2D", {"x/dequantize", "wa"}, conv_attrs) +
                             Op("r", "Relu", {"x/dequantize"}),
                         {"a", "r"});
    EXPECT_EQ(DecisionOf(on.report, "a")->op, "_GraphrtQuantizedConv2D");
    EXPECT_FALSE(Contains(DecisionOf(on.report, "a")->reason, "x/quantize"))
        << DecisionOf(on.report, "a")->reason;
    EXPECT_EQ(DecisionOf(on.report, "x/quantize")->op, "QuantizeV2");
  }
  {
    SCOPED_TRACE("ensure_minimum_range widens a narrow range");
    RunResult on =
        check(StaticQdq("x", -0.001f, 0.002f, "MIN_FIRST", 0.01f) + Placeholder("x", {1, 3, 5, 4}) +
                  wa.text + Op("a", "Conv2D", {"x/dequantize", "wa"}, conv_attrs),
              {"a"});
    EXPECT_TRUE(Contains(DecisionOf(on.report, "a")->reason, "x/quantize (QuantizeV2)"))
        << DecisionOf(on.report, "a")->reason;
  }
  {
    SCOPED_TRACE("MIN_COMBINED: the dynamic int8 conv after the float pair");
    RunResult on = RunGraph(StaticQdq("x", kStaticLo, kStaticHi, "MIN_COMBINED") +
                                Placeholder("x", {1, 3, 5, 4}) + wa.text +
                                Op("a", "Conv2D", {"x/dequantize", "wa"}, conv_attrs),
                            {{"x", x}}, {"a"});
    ASSERT_TRUE(on.status.ok()) << on.status;
    EXPECT_EQ(DecisionOf(on.report, "a")->op, "_GraphrtQuantizedConv2D");
    EXPECT_EQ(DecisionOf(on.report, "x/quantize")->op, "QuantizeV2");
  }
}

// conv -> bias -> relu6 -> QDQ -> depthwise (+ bias + relu6) -> QDQ -> 1x1 conv, as int8-static
// writes MobileNetV2's blocks: every product runs in int8 with its static range, each pair is
// gone, and the values are the float QDQ graph's up to float rounding. A depthwise filter with a
// multiplier of 2 stays float.
TEST(Int8Weights, DepthwiseRunsInInt8WithStaticRanges) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight w1 = MakeInt8Weight("w1", {1, 1, 3, 37}, 3, Random(37, 41, 0.1f, 1.0f), 42);
  const Int8Weight dw = MakeInt8Weight("dw", {3, 3, 37, 1}, 2, Random(37, 43, 0.1f, 1.0f), 44);
  const Int8Weight w2 = MakeInt8Weight("w2", {1, 1, 37, 5}, 3, Random(5, 45, 0.1f, 1.0f), 46);
  const std::string same_s2 = StridesAndPadding(2, "SAME");
  const std::string valid_s1 = StridesAndPadding(1, "VALID");
  const std::string graph =
      Placeholder("x", {2, 9, 8, 3}) + StaticQdq("x", kStaticLo, kStaticHi) + w1.text + dw.text +
      w2.text + FloatConst("b1", {37}, Random(37, 47)) + FloatConst("b2", {37}, Random(37, 48)) +
      Op("c1", "Conv2D", {"x/dequantize", "w1"}, valid_s1) + Op("bias1", "BiasAdd", {"c1", "b1"}) +
      Op("a1", "Relu6", {"bias1"}) + StaticQdq("a1", 0.0f, 6.0f) +
      Op("d", "DepthwiseConv2dNative", {"a1/dequantize", "dw"}, same_s2) +
      Op("bias2", "BiasAdd", {"d", "b2"}) + Op("a2", "Relu6", {"bias2"}) +
      StaticQdq("a2", 0.0f, 6.0f) + Op("c2", "Conv2D", {"a2/dequantize", "w2"}, valid_s1);
  const Tensor x = FloatTensor({2, 9, 8, 3}, Random(2 * 9 * 8 * 3, 49, -1.0f, 1.5f));
  RunResult on = RunGraph(graph, {{"x", x}}, {"c2"});
  RunResult off = RunGraph(graph, {{"x", x}}, {"c2"}, false);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  const PlacementDecision* a2 = DecisionOf(on.report, "a2");
  EXPECT_EQ(a2->op, "_GraphrtQuantizedDepthwiseConv2D");
  EXPECT_TRUE(Contains(a2->reason,
                       "remapping: a2 (_GraphrtQuantizedDepthwiseConv2D) replaces dw (Dequantize), "
                       "a2 (_FusedDepthwiseConv2dNative), a1/quantize (QuantizeV2), a1/dequantize "
                       "(Dequantize)"))
      << a2->reason;
  EXPECT_EQ(DecisionOf(on.report, "a1")->op, "_GraphrtQuantizedConv2D");
  EXPECT_EQ(DecisionOf(on.report, "c2")->op, "_GraphrtQuantizedConv2D");
  ASSERT_EQ(on.outputs[0].shape(), off.outputs[0].shape());
  for (int64_t i = 0; i < on.outputs[0].NumElements(); ++i) {
    const float e = off.outputs[0].data<float>()[i];
    // Same codes everywhere, unless float rounding moves a value across a rounding boundary of
    // the next quantization: then one code of a2, at most 6 / 255 * sum |w2| on c2.
    EXPECT_NEAR(on.outputs[0].data<float>()[i], e, 1e-4f * (1.0f + std::fabs(e))) << i;
  }

  const Int8Weight dw2 = MakeInt8Weight("dw", {3, 3, 3, 2}, 2, Random(3, 50, 0.1f, 1.0f), 51);
  RunResult multiplier = RunGraph(Placeholder("x", {1, 5, 5, 3}) + dw2.text +
                                      Op("d", "DepthwiseConv2dNative", {"x", "dw"}, valid_s1),
                                  {{"x", FloatTensor({1, 5, 5, 3}, Random(75, 52))}}, {"d"});
  ASSERT_TRUE(multiplier.status.ok()) << multiplier.status;
  EXPECT_EQ(DecisionOf(multiplier.report, "d")->op, "DepthwiseConv2dNative");
}

// The output dtype of each node that step stats list, after one traced Run of `graph`.
std::map<std::string, DataType> OutputTypes(
    const std::string& graph, const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  std::map<std::string, DataType> types;
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(graph, &g));
  std::unique_ptr<Session> session;
  EXPECT_TRUE(NewSession(SessionOptions(), &session).ok());
  EXPECT_TRUE(session->Create(g).ok());
  RunOptions traced;
  traced.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  const Status s = session->Run(traced, feeds, fetches, {}, &outputs, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  for (const auto& dev : metadata.step_stats().dev_stats()) {
    for (const auto& node : dev.node_stats()) {
      if (node.output_size() > 0) {
        types[node.node_name()] = node.output(0).tensor_description().dtype();
      }
    }
  }
  return types;
}

// conv -> relu6 -> zero Pad -> QDQ -> VALID depthwise -> relu6 -> QDQ -> conv, the weights of the
// last with a control edge to a NoOp (as Keras graphs have): every product runs in int8, the Pad
// is folded into the depthwise's explicit padding (listed as replaced, and never run), and each
// int8 op that only int8 ops read passes them quint8 codes (step stats show the dtype) which are
// the codes they made of the float values before: fetching a1 too, which keeps its output
// float, gives the same bits.
TEST(Int8Weights, ChainedOpsPassCodesAndFoldThePad) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight w1 = MakeInt8Weight("w1", {1, 1, 3, 19}, 3, Random(19, 61, 0.1f, 1.0f), 62);
  const Int8Weight dw = MakeInt8Weight("dw", {3, 3, 19, 1}, 2, Random(19, 63, 0.1f, 1.0f), 64);
  const Int8Weight w2 = MakeInt8Weight("w2", {1, 1, 19, 5}, 3, Random(5, 65, 0.1f, 1.0f), 66);
  const std::string valid = StridesAndPadding(1, "VALID");
  const std::string valid_s2 = StridesAndPadding(2, "VALID");
  const std::string graph =
      Placeholder("x", {2, 9, 8, 3}) + StaticQdq("x", kStaticLo, kStaticHi) + w1.text + dw.text +
      w2.text + FloatConst("b1", {19}, Random(19, 67)) + FloatConst("b2", {19}, Random(19, 68)) +
      Op("c1", "Conv2D", {"x/dequantize", "w1"}, valid) + Op("bias1", "BiasAdd", {"c1", "b1"}) +
      Op("a1", "Relu6", {"bias1"}) +
      "node { name: 'pads' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } dim "
      "{ size: 2 } } int_val: [0, 0, 1, 1, 0, 1, 0, 0] } } } }\n" +
      Op("pad", "Pad", {"a1", "pads"}, "attr { key: 'Tpaddings' value { type: DT_INT32 } }") +
      StaticQdq("pad", 0.0f, 6.0f) +
      Op("d", "DepthwiseConv2dNative", {"pad/dequantize", "dw"}, valid_s2) +
      Op("bias2", "BiasAdd", {"d", "b2"}) + Op("a2", "Relu6", {"bias2"}) +
      StaticQdq("a2", 0.0f, 6.0f) + Op("c2", "Conv2D", {"a2/dequantize", "w2"}, valid) +
      "node { name: 'noop' op: 'NoOp' input: '^w2' }\n";
  const Tensor x = FloatTensor({2, 9, 8, 3}, Random(2 * 9 * 8 * 3, 69, -1.0f, 1.5f));
  RunResult on = RunGraph(graph, {{"x", x}}, {"c2"});
  RunResult off = RunGraph(graph, {{"x", x}}, {"c2"}, false);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  for (const char* node : {"a1", "c2"}) {
    EXPECT_EQ(DecisionOf(on.report, node)->op, "_GraphrtQuantizedConv2D") << node;
  }
  const PlacementDecision* a2 = DecisionOf(on.report, "a2");
  EXPECT_EQ(a2->op, "_GraphrtQuantizedDepthwiseConv2D");
  EXPECT_TRUE(Contains(a2->reason, "pad (Pad), pad/quantize (QuantizeV2), pad/dequantize"))
      << a2->reason;
  ASSERT_EQ(on.outputs[0].shape(), off.outputs[0].shape());
  ASSERT_EQ(on.outputs[0].shape(), TensorShape({2, 5, 4, 5}));
  for (int64_t i = 0; i < on.outputs[0].NumElements(); ++i) {
    const float e = off.outputs[0].data<float>()[i];
    EXPECT_NEAR(on.outputs[0].data<float>()[i], e, 1e-4f * (1.0f + std::fabs(e))) << i;
  }

  const std::map<std::string, DataType> types = OutputTypes(graph, {{"x", x}}, {"c2"});
  ASSERT_EQ(types.count("a1"), 1u);
  ASSERT_EQ(types.count("a2"), 1u);
  EXPECT_EQ(types.at("a1"), ::tensorflow::DT_QUINT8);
  EXPECT_EQ(types.at("a2"), ::tensorflow::DT_QUINT8);
  EXPECT_EQ(types.at("c2"), ::tensorflow::DT_FLOAT);
  EXPECT_EQ(types.count("pad"), 0u) << "the folded Pad ran";

  RunResult unchained = RunGraph(graph, {{"x", x}}, {"c2", "a1"});
  ASSERT_TRUE(unchained.status.ok()) << unchained.status;
  EXPECT_EQ(OutputTypes(graph, {{"x", x}}, {"c2", "a1"}).at("a1"), ::tensorflow::DT_FLOAT);
  ASSERT_EQ(unchained.outputs[0].shape(), on.outputs[0].shape());
  EXPECT_EQ(std::memcmp(unchained.outputs[0].data<float>(), on.outputs[0].data<float>(),
                        on.outputs[0].TotalBytes()),
            0);
}

std::string Int32Const(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int>& values) {
  return IntValConst(name, "DT_INT32", dims, values);
}

const std::string kValid = StridesAndPadding(1, "VALID");

std::string MaxPool(const std::string& name, const std::string& input, const char* padding) {
  return Op(name, "MaxPool", {input},
            StrCat("attr { key: 'ksize' value { list { i: 1 i: 3 i: 3 i: 1 } } } ",
                   StridesAndPadding(2, padding)));
}

std::string Concat(const std::string& name, const std::vector<std::string>& inputs) {
  std::vector<std::string> all = inputs;
  all.push_back(name + "/axis");
  return Int32Const(name + "/axis", {}, {3}) +
         Op(name, "ConcatV2", all,
            StrCat("attr { key: 'N' value { i: ", inputs.size(),
                   " } } attr { key: 'Tidx' value { type: DT_INT32 } }"));
}

// `fetch` of `graph` with the optimizer on, against the float QDQ graph (remapping off) up to a
// code moved by float rounding (see ChainedOpsPassCodesAndFoldThePad), and bit for bit against
// the same run with `unchain` fetched too (which keeps those nodes float).
void ExpectChainedMatchesUnchained(const std::string& graph, const Tensor& x,
                                   const std::string& fetch,
                                   const std::vector<std::string>& unchain) {
  RunResult on = RunGraph(graph, {{"x", x}}, {fetch});
  RunResult off = RunGraph(graph, {{"x", x}}, {fetch}, false);
  std::vector<std::string> fetches = {fetch};
  fetches.insert(fetches.end(), unchain.begin(), unchain.end());
  RunResult unchained = RunGraph(graph, {{"x", x}}, fetches);
  ASSERT_TRUE(on.status.ok()) << on.status;
  ASSERT_TRUE(off.status.ok()) << off.status;
  ASSERT_TRUE(unchained.status.ok()) << unchained.status;
  ASSERT_EQ(on.outputs[0].shape(), off.outputs[0].shape());
  for (int64_t i = 0; i < on.outputs[0].NumElements(); ++i) {
    const float e = off.outputs[0].data<float>()[i];
    EXPECT_NEAR(on.outputs[0].data<float>()[i], e, 1e-4f * (1.0f + std::fabs(e))) << i;
  }
  const std::map<std::string, DataType> types = OutputTypes(graph, {{"x", x}}, fetches);
  for (const std::string& node : unchain) {
    ASSERT_EQ(types.count(node), 1u) << node;
    EXPECT_EQ(types.at(node), ::tensorflow::DT_FLOAT) << node;
  }
  ASSERT_EQ(unchained.outputs[0].shape(), on.outputs[0].shape());
  EXPECT_EQ(std::memcmp(unchained.outputs[0].data<float>(), on.outputs[0].data<float>(),
                        on.outputs[0].TotalBytes()),
            0);
}

// conv -> relu -> zero Pad -> MaxPool -> QDQ -> conv -> relu -> MaxPool -> Reshape -> QDQ ->
// MatMul, as int8-static writes the fixture CNN (and ResNet50's stem): the int8 convs write the
// codes of their readers' range, the Pad, the pools and the Reshape run on them (step stats show
// quint8), and the MatMul reads them. Max commutes with the monotone quantization and the range
// starts at 0, whose code the Pad writes, so the result is the unchained run's bit for bit.
TEST(Int8Weights, CodesPassThroughMaxPoolAndReshape) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight w1 = MakeInt8Weight("w1", {3, 3, 3, 21}, 3, Random(21, 71, 0.1f, 1.0f), 72);
  const Int8Weight w2 = MakeInt8Weight("w2", {1, 1, 21, 18}, 3, Random(18, 73, 0.1f, 1.0f), 74);
  const Int8Weight w3 = MakeInt8Weight("w3", {2 * 2 * 18, 7}, 1, Random(7, 75, 0.1f, 1.0f), 76);
  const std::string graph =
      Placeholder("x", {2, 11, 12, 3}) + StaticQdq("x", kStaticLo, kStaticHi) + w1.text + w2.text +
      w3.text + FloatConst("b1", {21}, Random(21, 77)) + FloatConst("b2", {18}, Random(18, 78)) +
      Op("c1", "Conv2D", {"x/dequantize", "w1"}, kValid) + Op("bias1", "BiasAdd", {"c1", "b1"}) +
      Op("a1", "Relu", {"bias1"}) + Int32Const("pads", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0}) +
      Op("pad", "Pad", {"a1", "pads"}, "attr { key: 'Tpaddings' value { type: DT_INT32 } }") +
      MaxPool("pool1", "pad", "VALID") + StaticQdq("pool1", 0.0f, 3.0f) +
      Op("c2", "Conv2D", {"pool1/dequantize", "w2"}, kValid) +
      Op("bias2", "BiasAdd", {"c2", "b2"}) + Op("a2", "Relu", {"bias2"}) +
      MaxPool("pool2", "a2", "VALID") + Int32Const("shape", {2}, {2, 2 * 2 * 18}) +
      "node { name: 'flat' op: 'Reshape' input: 'pool2' input: 'shape' "
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } "
      "}\n" +
      StaticQdq("flat", 0.0f, 4.0f) + Op("mm", "MatMul", {"flat/dequantize", "w3"});
  const Tensor x = FloatTensor({2, 11, 12, 3}, Random(2 * 11 * 12 * 3, 79, -1.0f, 1.5f));
  RunResult on = RunGraph(graph, {{"x", x}}, {"mm"});
  ASSERT_TRUE(on.status.ok()) << on.status;
  EXPECT_EQ(DecisionOf(on.report, "a1")->op, "_GraphrtQuantizedConv2D");
  EXPECT_EQ(DecisionOf(on.report, "a2")->op, "_GraphrtQuantizedConv2D");
  EXPECT_EQ(DecisionOf(on.report, "mm")->op, "_GraphrtQuantizedMatMul");
  const std::map<std::string, DataType> types = OutputTypes(graph, {{"x", x}}, {"mm"});
  for (const char* node : {"a1", "pad", "pool1", "a2", "pool2", "flat"}) {
    ASSERT_EQ(types.count(node), 1u) << node;
    EXPECT_EQ(types.at(node), ::tensorflow::DT_QUINT8) << node;
  }
  EXPECT_EQ(types.at("mm"), ::tensorflow::DT_FLOAT);
  ExpectChainedMatchesUnchained(graph, x, "mm", {"pool1", "flat"});
}

// Two int8 convs -> ConcatV2 -> QDQ -> conv: both write the codes of the reader's range, the
// ConcatV2 copies them, and the result is the unchained run's bit for bit.
TEST(Int8Weights, CodesPassThroughConcat) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight wa = MakeInt8Weight("wa", {1, 1, 4, 5}, 3, Random(5, 81, 0.1f, 1.0f), 82);
  const Int8Weight wb = MakeInt8Weight("wb", {3, 3, 4, 6}, -1, {0.7f}, 83);
  const Int8Weight wc = MakeInt8Weight("wc", {1, 1, 11, 3}, 3, Random(3, 84, 0.1f, 1.0f), 85);
  const std::string same = StridesAndPadding(1, "SAME");
  const std::string graph =
      Placeholder("x", {1, 6, 7, 4}) + StaticQdq("x", kStaticLo, kStaticHi) + wa.text + wb.text +
      wc.text + FloatConst("ba", {5}, Random(5, 86)) + FloatConst("bb", {6}, Random(6, 87)) +
      Op("ca", "Conv2D", {"x/dequantize", "wa"}, kValid) + Op("biasa", "BiasAdd", {"ca", "ba"}) +
      Op("ra", "Relu", {"biasa"}) + Op("cb", "Conv2D", {"x/dequantize", "wb"}, same) +
      Op("biasb", "BiasAdd", {"cb", "bb"}) + Op("rb", "Relu6", {"biasb"}) +
      Concat("cat", {"ra", "rb"}) + StaticQdq("cat", 0.0f, 5.0f) +
      Op("c", "Conv2D", {"cat/dequantize", "wc"}, kValid);
  const Tensor x = FloatTensor({1, 6, 7, 4}, Random(6 * 7 * 4, 88, -1.0f, 1.5f));
  RunResult on = RunGraph(graph, {{"x", x}}, {"c"});
  ASSERT_TRUE(on.status.ok()) << on.status;
  for (const char* node : {"ra", "rb", "c"}) {
    EXPECT_EQ(DecisionOf(on.report, node)->op, "_GraphrtQuantizedConv2D") << node;
  }
  const std::map<std::string, DataType> types = OutputTypes(graph, {{"x", x}}, {"c"});
  for (const char* node : {"ra", "rb", "cat"}) {
    ASSERT_EQ(types.count(node), 1u) << node;
    EXPECT_EQ(types.at(node), ::tensorflow::DT_QUINT8) << node;
  }
  ExpectChainedMatchesUnchained(graph, x, "c", {"cat"});
}

// Where a value between int8 nodes is read by anything else, comes from anything else, or is
// read in two ranges, or a zero Pad's zeros would not be code 0, the whole region stays float
// (and runs).
TEST(Int8Weights, CodeRegionsStayFloatWhenAnythingElseTouchesThem) {
  GRT_SKIP_WHEN_OPTIMIZER_OFF();
  const Int8Weight w1 = MakeInt8Weight("w1", {1, 1, 3, 8}, 3, Random(8, 91, 0.1f, 1.0f), 92);
  const Int8Weight w2 = MakeInt8Weight("w2", {1, 1, 8, 4}, 3, Random(4, 93, 0.1f, 1.0f), 94);
  const Int8Weight w3 = MakeInt8Weight("w3", {1, 1, 8, 5}, 3, Random(5, 95, 0.1f, 1.0f), 96);
  const Int8Weight w4 = MakeInt8Weight("w4", {1, 1, 11, 4}, 3, Random(4, 97, 0.1f, 1.0f), 98);
  // x -> QDQ -> conv (+ bias) -> relu a1, then a1 -> MaxPool -> QDQ -> conv c2.
  const std::string stem = Placeholder("x", {1, 7, 7, 3}) + StaticQdq("x", kStaticLo, kStaticHi) +
                           w1.text + FloatConst("b1", {8}, Random(8, 90)) +
                           Op("c1", "Conv2D", {"x/dequantize", "w1"}, kValid) +
                           Op("bias1", "BiasAdd", {"c1", "b1"}) + Op("a1", "Relu", {"bias1"});
  const std::string head = stem + w2.text + MaxPool("pool", "a1", "SAME") +
                           StaticQdq("pool", 0.0f, 3.0f) +
                           Op("c2", "Conv2D", {"pool/dequantize", "w2"}, kValid);
  const Tensor x = FloatTensor({1, 7, 7, 3}, Random(7 * 7 * 3, 99, -1.0f, 1.5f));
  auto expect_float = [&](const std::string& graph, const std::vector<std::string>& fetches,
                          const std::vector<std::string>& float_nodes) {
    const std::map<std::string, DataType> types = OutputTypes(graph, {{"x", x}}, fetches);
    for (const std::string& node : float_nodes) {
      ASSERT_EQ(types.count(node), 1u) << node;
      EXPECT_EQ(types.at(node), ::tensorflow::DT_FLOAT) << node;
    }
    RunResult on = RunGraph(graph, {{"x", x}}, fetches);
    RunResult off = RunGraph(graph, {{"x", x}}, fetches, false);
    ASSERT_TRUE(on.status.ok()) << on.status;
    ASSERT_TRUE(off.status.ok()) << off.status;
    EXPECT_EQ(DecisionOf(on.report, "a1")->op, "_GraphrtQuantizedConv2D");
    for (size_t o = 0; o < fetches.size(); ++o) {
      for (int64_t i = 0; i < on.outputs[o].NumElements(); ++i) {
        const float e = off.outputs[o].data<float>()[i];
        EXPECT_NEAR(on.outputs[o].data<float>()[i], e, 1e-4f * (1.0f + std::fabs(e)))
            << fetches[o] << " element " << i;
      }
    }
  };
  {
    SCOPED_TRACE("the MaxPool is read by a float Relu too");
    expect_float(head + Op("r", "Relu", {"pool"}), {"c2", "r"}, {"a1", "pool"});
  }
  {
    SCOPED_TRACE("the MaxPool is read in two ranges");
    expect_float(head + w3.text + StaticQdq("pool2", 0.0f, 2.0f) +
                     Op("pool2", "Identity", {"pool"}) +  // names the second pair
                     Op("c3", "Conv2D", {"pool2/dequantize", "w3"}, kValid),
                 {"c2", "c3"}, {"a1", "pool"});
  }
  {
    SCOPED_TRACE("a zero Pad where 0's code is not 0");
    expect_float(
        stem + w3.text + Int32Const("pads", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0}) +
            Op("pad", "Pad", {"a1", "pads"}, "attr { key: 'Tpaddings' value { type: DT_INT32 } }") +
            MaxPool("padpool", "pad", "VALID") + StaticQdq("padpool", kStaticLo, kStaticHi) +
            Op("c3", "Conv2D", {"padpool/dequantize", "w3"}, kValid),
        {"c3"}, {"a1", "pad", "padpool"});
  }
  {
    SCOPED_TRACE("a ConcatV2 of an int8 conv and a float input");
    expect_float(stem + w4.text + Concat("cat", {"a1", "x"}) +
                     StaticQdq("cat", kStaticLo, kStaticHi) +
                     Op("c4", "Conv2D", {"cat/dequantize", "w4"}, kValid),
                 {"c4"}, {"a1", "cat"});
  }
}

// Time per Run on one intra-op thread, int8 (remapping on) against float (remapping off: the
// Dequantize folds into a float Const). Run by hand:
//   build/tests/graphrt_tests --gtest_also_run_disabled_tests --gtest_filter='*Int8Timing*'
TEST(Int8Weights, DISABLED_Int8TimingAgainstFloat) {
  auto time_per_run = [](const std::string& text, const Tensor& x, const std::string& fetch,
                         bool remapping) {
    GraphDef graph;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph));
    SessionOptions options;
    options.config.rewrite_options.remapping = remapping;
    options.config.intra_op_parallelism_threads = 1;
    options.config.inter_op_parallelism_threads = 1;
    std::unique_ptr<Session> session;
    EXPECT_TRUE(NewSession(options, &session).ok());
    EXPECT_TRUE(session->Create(graph).ok());
    std::vector<Tensor> out;
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(session->Run({{"x", x}}, {fetch}, {}, &out).ok());
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
      const int runs = 20;
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < runs; ++i) session->Run({{"x", x}}, {fetch}, {}, &out).IgnoreError();
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count() / runs);
    }
    return best;
  };
  std::printf("QGemmIsa: %s\n", QGemmIsaName(ActiveQGemmIsa()));
  const Int8Weight dense = MakeInt8Weight("w", {512, 1000}, 1, Random(1000, 1, 0.1f, 1.0f), 2);
  const std::string matmul =
      Placeholder("x", {1, 512}) + dense.text + Op("y", "MatMul", {"x", "w"});
  const Tensor x1 = FloatTensor({1, 512}, Random(512, 3));
  std::printf("MatMul 1x512 @ 512x1000: int8 %.1f us, float %.1f us\n",
              time_per_run(matmul, x1, "y", true), time_per_run(matmul, x1, "y", false));
  const Int8Weight filter = MakeInt8Weight("w", {3, 3, 64, 64}, 3, Random(64, 4, 0.1f, 1.0f), 5);
  const std::string conv = Placeholder("x", {1, 56, 56, 64}) + filter.text +
                           Op("y", "Conv2D", {"x", "w"}, StridesAndPadding(1, "SAME"));
  const Tensor x2 = FloatTensor({1, 56, 56, 64}, Random(56 * 56 * 64, 6));
  std::printf("Conv2D 1x56x56x64 * 3x3x64x64 SAME: int8 %.1f us, float %.1f us\n",
              time_per_run(conv, x2, "y", true), time_per_run(conv, x2, "y", false));
}

}  // namespace
}  // namespace graphrt
