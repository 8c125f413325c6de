// The int8 products (int8_product.h) and their ops (int8_ops.cc) against a plain reference that
// quantizes x by the header's formulas and multiplies in int64: the same integers and the same
// float operations, so the results agree to float rounding of the epilogue (1e-6 relative).
// Every QGemmIsa this CPU runs is checked through the product functions; the ops run the active
// one (GRAPHRT_ISA picks it).
#include "runtime/kernels/cpu/int8_product.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/kernels/cpu/math_test_util.h"
#include "runtime/kernels/cpu/quantization_util.h"
#include "runtime/ops/window_geometry.h"

namespace graphrt {
namespace testing {
namespace {

using ::tensorflow::AttrValue;

struct RefQuantization {
  float scale = 1.0f;
  int32_t zero_point = 0;
  std::vector<uint8_t> q;
};

RefQuantization QuantizeReference(const std::vector<float>& x) {
  float lo = 0.0f, hi = 0.0f;
  for (float v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  RefQuantization r;
  const float scale = (hi - lo) / 255.0f;
  if (scale > 0.0f) {
    r.scale = scale;
    r.zero_point = static_cast<int32_t>(std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f));
  }
  for (float v : x) {
    const float q = std::nearbyint(v / r.scale) + static_cast<float>(r.zero_point);
    r.q.push_back(static_cast<uint8_t>(std::clamp(q, 0.0f, 255.0f)));
  }
  return r;
}

// y(i, j) = float(sum_p (a(i, p) - zp) * w(p, j)) * (scale_x * scale_w[j]), in int64.
std::vector<float> ReferenceProduct(const std::vector<uint8_t>& a, int64_t m, int64_t k, int32_t zp,
                                    float scale_x, const std::vector<int8_t>& w, int64_t n,
                                    const std::vector<float>& scale_w) {
  std::vector<float> y(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += (int64_t{a[i * k + p]} - zp) * w[p * n + j];
      y[i * n + j] = static_cast<float>(acc) * (scale_x * scale_w[j]);
    }
  }
  return y;
}

std::vector<float> RandomFloats(int64_t n, uint32_t seed, float lo, float hi) {
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

// Per-column ranges (min = -max), or one range repeated in `scales`.
struct Ranges {
  Tensor min, max;
  std::vector<float> scales;
};

Ranges MakeRanges(int64_t n, bool per_column, uint32_t seed) {
  const std::vector<float> hi = RandomFloats(per_column ? n : 1, seed, 0.05f, 2.0f);
  std::vector<float> lo;
  for (float h : hi) lo.push_back(-h);
  Ranges r;
  r.min = per_column ? Tensor::Vector<float>(lo) : Tensor::Scalar<float>(lo[0]);
  r.max = per_column ? Tensor::Vector<float>(hi) : Tensor::Scalar<float>(hi[0]);
  for (int64_t j = 0; j < n; ++j) r.scales.push_back(hi[per_column ? j : 0] / 127.0f);
  return r;
}

std::vector<QGemmIsa> RunningIsas() {
  std::vector<QGemmIsa> isas;
  for (QGemmIsa isa :
       {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512, QGemmIsa::kAvx512Vnni}) {
    if (QGemmIsaRuns(isa)) isas.push_back(isa);
  }
  return isas;
}

void ExpectClose(const std::vector<float>& actual, const std::vector<float>& expected,
                 const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < actual.size() && bad < 5; ++i) {
    const float a = actual[i], e = expected[i];
    if (!(std::fabs(a - e) <= 1e-6f * std::fabs(e) + 1e-30f)) {
      ADD_FAILURE() << what << " element " << i << ": " << a << " vs " << e;
      ++bad;
    }
  }
}

TEST(Int8Product, ActivationQuantizationFollowsTheFormula) {
  std::vector<std::vector<float>> inputs = {
      {},
      std::vector<float>(37, 0.0f),
      RandomFloats(1, 1, -3, 2),
      RandomFloats(15, 2, -3, 2),
      RandomFloats(16, 3, 0.5f, 2),     // all positive: zero point 0
      RandomFloats(33, 4, -4, -0.25f),  // all negative: zero point 255
      RandomFloats(100003, 5, -1, 7)};  // several blocks
  inputs[3][7] = 0.0f;
  for (const std::vector<float>& x : inputs) {
    const RefQuantization want = QuantizeReference(x);
    std::vector<uint8_t> q(x.size());
    const ActivationQuantization got =
        QuantizeActivations(nullptr, x.data(), static_cast<int64_t>(x.size()), q.data());
    EXPECT_EQ(got.scale, want.scale) << x.size();
    EXPECT_EQ(got.zero_point, want.zero_point) << x.size();
    EXPECT_EQ(q, want.q) << x.size();
  }
  EXPECT_EQ(QuantizeReference(RandomFloats(16, 3, 0.5f, 2)).zero_point, 0);
  EXPECT_EQ(QuantizeReference(RandomFloats(33, 4, -4, -0.25f)).zero_point, 255);
}

TEST(Int8Product, MatMulMatchesTheIntegerReferenceOnEveryIsa) {
  struct Case {
    int64_t m, k, n;
  };
  const Case cases[] = {{1, 1, 1},    {1, 7, 3},      {1, 512, 1000}, {2, 17, 9},   {5, 33, 31},
                        {16, 64, 48}, {65, 100, 130}, {130, 15, 257}, {3, 1000, 5}, {64, 257, 17}};
  for (QGemmIsa isa : RunningIsas()) {
    for (const Case& c : cases) {
      for (bool per_column : {true, false}) {
        const std::string what = StrCat(QGemmIsaName(isa), " ", c.m, "x", c.k, "x", c.n,
                                        per_column ? " per column" : " per tensor");
        const std::vector<float> x = RandomFloats(c.m * c.k, 11 + c.k, -1.5f, 2.5f);
        const std::vector<int8_t> w = RandomInt8(c.k * c.n, 13 + c.n);
        const Ranges r = MakeRanges(c.n, per_column, 17);
        auto weights =
            Int8Weights::Make(isa, w.data(), c.k, c.n, r.min, r.max, per_column, "filter");
        ASSERT_TRUE(weights.ok()) << weights.status();
        std::vector<uint8_t> a(x.size());
        const ActivationQuantization q =
            QuantizeActivations(nullptr, x.data(), c.m * c.k, a.data());
        std::vector<float> y(static_cast<size_t>(c.m * c.n));
        Int8MatMul(nullptr, a.data(), c.m, q, **weights, nullptr, Int8Output::Values(y.data()));
        const RefQuantization ref = QuantizeReference(x);
        ExpectClose(y,
                    ReferenceProduct(ref.q, c.m, c.k, ref.zero_point, ref.scale, w, c.n, r.scales),
                    what);
      }
    }
  }
}

struct ConvCase {
  int64_t batch, rows, cols, depth, kh, kw, out_depth;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  Padding padding = Padding::kSame;
};

// Patches of the uint8 input, the zero point where the window hangs over the padding.
std::vector<uint8_t> ReferencePatches(const std::vector<uint8_t>& in, const ConvCase& c,
                                      const Window2D& g, uint8_t pad) {
  std::vector<uint8_t> patches;
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t oh = 0; oh < g.out_rows; ++oh) {
      for (int64_t ow = 0; ow < g.out_cols; ++ow) {
        for (int64_t i = 0; i < c.kh; ++i) {
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t ih = oh * c.stride_h - g.pad_top + i * c.dil_h;
            const int64_t iw = ow * c.stride_w - g.pad_left + j * c.dil_w;
            for (int64_t d = 0; d < c.depth; ++d) {
              const bool inside = ih >= 0 && ih < c.rows && iw >= 0 && iw < c.cols;
              patches.push_back(inside ? in[((b * c.rows + ih) * c.cols + iw) * c.depth + d] : pad);
            }
          }
        }
      }
    }
  }
  return patches;
}

Window2D GeometryOf(const ConvCase& c) {
  Window2D g;
  g.batch = c.batch;
  g.in_rows = c.rows;
  g.in_cols = c.cols;
  g.depth = c.depth;
  g.window_rows = c.kh;
  g.window_cols = c.kw;
  g.stride_rows = c.stride_h;
  g.stride_cols = c.stride_w;
  g.dilation_rows = c.dil_h;
  g.dilation_cols = c.dil_w;
  WindowDim rows, cols;
  EXPECT_TRUE(ComputeWindowDim(c.rows, c.kh, c.dil_h, c.stride_h, c.padding, 0, 0, &rows).ok());
  EXPECT_TRUE(ComputeWindowDim(c.cols, c.kw, c.dil_w, c.stride_w, c.padding, 0, 0, &cols).ok());
  g.out_rows = rows.output;
  g.out_cols = cols.output;
  g.pad_top = rows.pad_before;
  g.pad_left = cols.pad_before;
  return g;
}

const ConvCase kConvCases[] = {
    {1, 9, 7, 3, 3, 3, 5},
    {2, 8, 8, 16, 3, 3, 33, 2, 2},
    {1, 10, 11, 5, 3, 2, 7, 1, 1, 2, 2},
    {1, 12, 9, 17, 5, 5, 9, 2, 1, 1, 2, Padding::kValid},
    {3, 6, 5, 8, 1, 1, 19},                              // 1x1: the input is the patch matrix
    {1, 7, 7, 9, 1, 1, 4, 2, 2, 1, 1, Padding::kValid},  // 1x1 strided
    {1, 20, 20, 64, 3, 3, 64},
};

TEST(Int8Product, Conv2DMatchesTheIntegerReferenceOnEveryIsa) {
  for (QGemmIsa isa : RunningIsas()) {
    for (const ConvCase& c : kConvCases) {
      const Window2D g = GeometryOf(c);
      const int64_t k = c.kh * c.kw * c.depth;
      const std::vector<float> x =
          RandomFloats(c.batch * c.rows * c.cols * c.depth, 3 + c.depth, -0.5f, 3.0f);
      const std::vector<int8_t> w = RandomInt8(k * c.out_depth, 5 + c.out_depth);
      const Ranges r = MakeRanges(c.out_depth, true, 7);
      auto weights = Int8Weights::Make(isa, w.data(), k, c.out_depth, r.min, r.max, true, "f");
      ASSERT_TRUE(weights.ok()) << weights.status();
      std::vector<uint8_t> in(x.size());
      const ActivationQuantization q =
          QuantizeActivations(nullptr, x.data(), static_cast<int64_t>(x.size()), in.data());
      const int64_t pixels = c.batch * g.out_rows * g.out_cols;
      std::vector<float> y(static_cast<size_t>(pixels * c.out_depth));
      Int8Conv2D(nullptr, g, in.data(), q, **weights, nullptr, Int8Output::Values(y.data()));
      const RefQuantization ref = QuantizeReference(x);
      const std::vector<uint8_t> patches =
          ReferencePatches(ref.q, c, g, static_cast<uint8_t>(ref.zero_point));
      ExpectClose(
          y,
          ReferenceProduct(patches, pixels, k, ref.zero_point, ref.scale, w, c.out_depth, r.scales),
          StrCat(QGemmIsaName(isa), " conv ", c.rows, "x", c.cols, "x", c.depth, " k ", c.kh, "x",
                 c.kw, " -> ", c.out_depth));
    }
  }
}

// The ops, through their kernels (the active QGemmIsa).

Tensor QInt8Tensor(const std::vector<int64_t>& dims, const std::vector<int8_t>& values) {
  Tensor t(::tensorflow::DT_QINT8, TensorShape(dims));
  std::copy(values.begin(), values.end(), t.data<int8_t>());
  return t;
}

AttrValue AttrStrings(const std::vector<std::string>& values) {
  AttrValue v;
  for (const std::string& s : values) v.mutable_list()->add_s(s);
  return v;
}

float Activate(const std::string& a, float v) {
  if (a == "Relu") return std::max(v, 0.0f);
  if (a == "Relu6") return std::min(std::max(v, 0.0f), 6.0f);
  if (a == "Elu") return v < 0 ? std::expm1(v) : v;
  if (a == "LeakyRelu") return v > 0 ? v : v * 0.2f;
  if (a == "Sigmoid") return 1.0f / (1.0f + std::exp(-v));
  if (a == "Tanh") return std::tanh(v);
  if (a == "_MklSwish") return v / (1.0f + std::exp(-v));
  return v;
}

TEST(Int8Ops, QuantizedMatMulRunsEachEpilogue) {
  const int64_t m = 3, k = 45, n = 23;
  const std::vector<float> x = RandomFloats(m * k, 1, -2, 2);
  const std::vector<int8_t> w = RandomInt8(k * n, 2);
  const Ranges r = MakeRanges(n, true, 3);
  const std::vector<float> bias = RandomFloats(n, 4, -1, 1);
  const std::vector<float> residual = RandomFloats(m * n, 5, -1, 1);
  const RefQuantization ref = QuantizeReference(x);
  const std::vector<float> product =
      ReferenceProduct(ref.q, m, k, ref.zero_point, ref.scale, w, n, r.scales);
  const Tensor tx = MakeTensor<float>(TensorShape({m, k}), x);
  const Tensor tw = QInt8Tensor({k, n}, w);
  for (const char* name :
       {"", "Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh", "_MklSwish"}) {
    const std::string activation = name;
    for (bool with_residual : {false, true}) {
      std::vector<std::string> ops = {"BiasAdd"};
      if (with_residual) ops.push_back("Add");
      if (!activation.empty()) ops.push_back(activation);
      std::vector<Tensor> inputs = {tx, tw, r.min, r.max, Tensor::Vector<float>(bias)};
      if (with_residual) inputs.push_back(MakeTensor<float>(TensorShape({m, n}), residual));
      for (int threads : {1, 3}) {
        auto out =
            RunOp("_GraphrtQuantizedMatMul", inputs,
                  {{"fused_ops", AttrStrings(ops)}, {"num_args", AttrInt(with_residual ? 2 : 1)}},
                  threads);
        ASSERT_TRUE(out.ok()) << out.status();
        std::vector<float> want(product.size());
        for (int64_t i = 0; i < m * n; ++i) {
          want[i] =
              Activate(activation, product[i] + bias[i % n] + (with_residual ? residual[i] : 0.0f));
        }
        ExpectClose(Values<float>(*out), want, StrCat(StrJoin(ops, "+"), " threads ", threads));
      }
    }
  }
  // The bare product (no fused_ops), per tensor.
  const Ranges one = MakeRanges(n, false, 6);
  auto out = RunOp("_GraphrtQuantizedMatMul", {tx, tw, one.min, one.max}, {{"axis", AttrInt(-1)}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(Values<float>(*out),
              ReferenceProduct(ref.q, m, k, ref.zero_point, ref.scale, w, n, one.scales),
              "per tensor");
}

TEST(Int8Ops, QuantizedMatMulOfZerosGivesTheBias) {
  const int64_t m = 2, k = 19, n = 11;
  const Ranges r = MakeRanges(n, true, 3);
  const std::vector<float> bias = RandomFloats(n, 4, -1, 1);
  auto out =
      RunOp("_GraphrtQuantizedMatMul",
            {MakeTensor<float>(TensorShape({m, k}), std::vector<float>(m * k, 0.0f)),
             QInt8Tensor({k, n}, RandomInt8(k * n, 1)), r.min, r.max, Tensor::Vector<float>(bias)},
            {{"fused_ops", AttrStrings({"BiasAdd"})}, {"num_args", AttrInt(1)}});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < m * n; ++i) EXPECT_EQ(out->data<float>()[i], bias[i % n]) << i;
}

TEST(Int8Ops, QuantizedConv2DMatchesTheReferenceForEachPadding) {
  struct OpCase {
    ConvCase conv;
    std::string padding;
    std::vector<int64_t> explicit_paddings;
  };
  const OpCase cases[] = {
      {{2, 9, 8, 5, 3, 3, 7, 2, 1}, "SAME", {}},
      {{1, 9, 8, 5, 3, 3, 7, 1, 1, 2, 1}, "VALID", {}},
      {{1, 6, 7, 3, 3, 2, 6, 1, 2}, "EXPLICIT", {0, 0, 1, 2, 2, 0, 0, 0}},
      {{1, 0, 0, 4, 1, 1, 3}, "SAME", {}},  // empty image
  };
  for (const OpCase& oc : cases) {
    const ConvCase& c = oc.conv;
    const std::vector<float> x = RandomFloats(c.batch * c.rows * c.cols * c.depth, 8, -1.0f, 1.5f);
    const int64_t k = c.kh * c.kw * c.depth;
    const std::vector<int8_t> w = RandomInt8(k * c.out_depth, 9);
    const Ranges r = MakeRanges(c.out_depth, true, 10);
    const std::vector<float> bias = RandomFloats(c.out_depth, 11, -1, 1);
    std::vector<std::pair<std::string, AttrValue>> attrs = {
        {"strides", AttrInts({1, c.stride_h, c.stride_w, 1})},
        {"dilations", AttrInts({1, c.dil_h, c.dil_w, 1})},
        {"padding", AttrString(oc.padding)},
        {"fused_ops", AttrStrings({"BiasAdd", "Relu"})},
        {"num_args", AttrInt(1)}};
    if (!oc.explicit_paddings.empty()) {
      attrs.push_back({"explicit_paddings", AttrInts(oc.explicit_paddings)});
    }
    // The geometry: SAME/VALID by the rule, EXPLICIT on the padded input.
    ConvCase padded = c;
    int64_t pad_top = 0, pad_left = 0;
    if (oc.padding == "EXPLICIT") {
      padded.padding = Padding::kValid;
      padded.rows += oc.explicit_paddings[2] + oc.explicit_paddings[3];
      padded.cols += oc.explicit_paddings[4] + oc.explicit_paddings[5];
      pad_top = oc.explicit_paddings[2];
      pad_left = oc.explicit_paddings[4];
    } else {
      padded.padding = oc.padding == "SAME" ? Padding::kSame : Padding::kValid;
    }
    Window2D g = GeometryOf(padded);
    if (oc.padding == "EXPLICIT") {
      g.in_rows = c.rows;
      g.in_cols = c.cols;
      g.pad_top = pad_top;
      g.pad_left = pad_left;
    }
    const RefQuantization ref = QuantizeReference(x);
    const int64_t pixels = c.batch * g.out_rows * g.out_cols;
    const std::vector<float> product =
        ReferenceProduct(ReferencePatches(ref.q, c, g, static_cast<uint8_t>(ref.zero_point)),
                         pixels, k, ref.zero_point, ref.scale, w, c.out_depth, r.scales);
    for (int threads : {1, 4}) {
      auto out = RunOp("_GraphrtQuantizedConv2D",
                       {MakeTensor<float>(TensorShape({c.batch, c.rows, c.cols, c.depth}), x),
                        QInt8Tensor({c.kh, c.kw, c.depth, c.out_depth}, w), r.min, r.max,
                        Tensor::Vector<float>(bias)},
                       attrs, threads);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->shape(), TensorShape({c.batch, g.out_rows, g.out_cols, c.out_depth}));
      std::vector<float> want(product.size());
      for (size_t i = 0; i < want.size(); ++i) {
        want[i] = std::max(0.0f, product[i] + bias[i % c.out_depth]);
      }
      ExpectClose(Values<float>(*out), want, StrCat(oc.padding, " threads ", threads));
    }
  }
}

AttrValue AttrF(float f) {
  AttrValue v;
  v.set_f(f);
  return v;
}

AttrValue AttrDtype(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

// QuantizeActivationsMinFirst writes QuantizeV2's codes (QuantizeEigen<quint8>, the kernel's own
// arithmetic) for every value, ties, NaN, infinities and far out-of-range values included, in the
// vector body and the tail, and reports Dequantize's scale and zero point.
TEST(Int8Product, MinFirstCodesEqualQuantizeV2) {
  const std::vector<std::pair<float, float>> ranges = {
      {-1.0f, 1.5f}, {0.0f, 6.0f},   {-0.3f, 0.0f}, {-12.5f * 3 / 255, 12.5f * 252 / 255},
      {0.0f, 0.0f},  {-1e-6f, 2e-6f}};
  for (const auto& [lo, hi] : ranges) {
    // Two blocks of the element-wise pass and a tail past the 16-wide vector body.
    std::vector<float> x = RandomFloats(70000 + 13, 7, 2.5f * lo - 1.0f, 2.5f * hi + 1.0f);
    // Exact ties of x * s: multiples of half a step.
    const float s = lo == hi ? 0.0f : static_cast<float>(255.0 / (hi - lo));
    for (int i = 0; i < 200 && s > 0.0f; ++i) x[i] = (static_cast<float>(i) - 100.5f) / s;
    x[300] = std::nanf("");
    x[301] = std::numeric_limits<float>::infinity();
    x[302] = -std::numeric_limits<float>::infinity();
    x[303] = 3e38f;
    x[70010] = -3e38f;
    x[70011] = std::nanf("");
    const QuantizeEigen<uint8_t> reference(lo, hi);
    {
      std::vector<uint8_t> q(x.size());
      const ActivationQuantization quantization = QuantizeActivationsMinFirst(
          nullptr, x.data(), static_cast<int64_t>(x.size()), lo, hi, q.data());
      int bad = 0;
      for (size_t i = 0; i < x.size() && bad < 5; ++i) {
        if (q[i] != reference(x[i])) {
          ADD_FAILURE() << "[" << lo << ", " << hi << "] x[" << i << "] = " << x[i] << ": "
                        << int{q[i]} << " vs " << int{reference(x[i])};
          ++bad;
        }
      }
      // Dequantize's view of the codes: offset + q * scale = (q - zero_point) * scale.
      const DequantizeEigen<uint8_t> dequantize(lo, hi);
      for (int code : {0, 17, 255}) {
        const float want = dequantize(static_cast<uint8_t>(code));
        EXPECT_NEAR((code - quantization.zero_point) * quantization.scale, want,
                    1e-6f * (std::fabs(want) + hi - lo))
            << "[" << lo << ", " << hi << "] code " << code;
      }
    }
  }
}

// With input_min / input_max the ops quantize in that range: the product of QuantizeV2's codes.
TEST(Int8Ops, StaticRangeUsesQuantizeV2Codes) {
  const int64_t m = 5, k = 19, n = 7;
  const float lo = -2.0f * 60 / 255, hi = 2.0f * 195 / 255;
  std::vector<float> x = RandomFloats(m * k, 11, -2.5f, 2.5f);  // past the range both ways
  const std::vector<int8_t> w = RandomInt8(k * n, 12);
  const Ranges r = MakeRanges(n, true, 13);
  const QuantizeEigen<uint8_t> quantize(lo, hi);
  std::vector<uint8_t> codes;
  for (float v : x) codes.push_back(quantize(v));
  const float scale_x = static_cast<float>((hi - lo) / 255.0);
  const int32_t zp = static_cast<int32_t>(-std::round(lo / scale_x));
  const std::vector<float> want = ReferenceProduct(codes, m, k, zp, scale_x, w, n, r.scales);
  StatusOr<Tensor> out =
      RunOp("_GraphrtQuantizedMatMul",
            {MakeTensor<float>(TensorShape({m, k}), x), QInt8Tensor({k, n}, w), r.min, r.max},
            {{"input_min", AttrF(lo)}, {"input_max", AttrF(hi)}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(Values<float>(*out), want, "static MatMul");
}

// _GraphrtQuantizedDepthwiseConv2D against an integer reference: the input quantized by the
// dynamic formula (or QuantizeV2's in a static range), sum over the window of (code - zp) * w in
// int64 with padding taps left out, float(sum) * scale_x * scale_w[c], bias, Relu6. Odd channel
// counts around the vector widths, strides, dilations, SAME and VALID; the active QGemmIsa path
// (GRAPHRT_ISA picks it).
TEST(Int8Ops, QuantizedDepthwiseMatchesTheIntegerReference) {
  struct Case {
    int64_t batch, rows, cols, channels, kh, kw, stride, dilation;
    const char* padding;
    bool static_range;
  };
  const std::vector<Case> cases = {{1, 7, 6, 37, 3, 3, 1, 1, "SAME", false},
                                   {2, 9, 8, 16, 3, 3, 2, 1, "SAME", true},
                                   {1, 8, 9, 33, 5, 5, 1, 2, "VALID", false},
                                   {1, 5, 5, 3, 2, 3, 2, 1, "VALID", true},
                                   {1, 6, 7, 96, 3, 3, 2, 1, "SAME", false}};
  for (const Case& k : cases) {
    const int64_t c = k.channels;
    const std::vector<float> x = RandomFloats(k.batch * k.rows * k.cols * c, 61 + c, -1.0f, 3.0f);
    const std::vector<int8_t> w = RandomInt8(k.kh * k.kw * c, 62 + c);
    const Ranges r = MakeRanges(c, true, 63);
    const std::vector<float> bias = RandomFloats(c, 64, -1.0f, 1.0f);
    const float lo = -1.0f * 51 / 255, hi = 1.0f * 204 / 255;
    RefQuantization q;
    if (k.static_range) {
      const QuantizeEigen<uint8_t> quantize(lo, hi);
      for (float v : x) q.q.push_back(quantize(v));
      q.scale = static_cast<float>((hi - lo) / 255.0);
      q.zero_point = static_cast<int32_t>(-std::round(lo / q.scale));
    } else {
      q = QuantizeReference(x);
    }
    WindowDim rows, cols;
    const Padding padding = std::string(k.padding) == "SAME" ? Padding::kSame : Padding::kValid;
    ASSERT_TRUE(ComputeWindowDim(k.rows, k.kh, k.dilation, k.stride, padding, 0, 0, &rows).ok());
    ASSERT_TRUE(ComputeWindowDim(k.cols, k.kw, k.dilation, k.stride, padding, 0, 0, &cols).ok());
    std::vector<float> want;
    for (int64_t b = 0; b < k.batch; ++b) {
      for (int64_t oh = 0; oh < rows.output; ++oh) {
        for (int64_t ow = 0; ow < cols.output; ++ow) {
          for (int64_t ch = 0; ch < c; ++ch) {
            int64_t acc = 0;
            for (int64_t i = 0; i < k.kh; ++i) {
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t ih = oh * k.stride - rows.pad_before + i * k.dilation;
                const int64_t iw = ow * k.stride - cols.pad_before + j * k.dilation;
                if (ih < 0 || ih >= k.rows || iw < 0 || iw >= k.cols) continue;
                acc += (int64_t{q.q[((b * k.rows + ih) * k.cols + iw) * c + ch]} - q.zero_point) *
                       w[(i * k.kw + j) * c + ch];
              }
            }
            const float y = static_cast<float>(acc) * (q.scale * r.scales[ch]) + bias[ch];
            want.push_back(std::min(6.0f, std::max(0.0f, y)));
          }
        }
      }
    }
    std::vector<std::pair<std::string, AttrValue>> attrs = {
        {"strides", AttrInts({1, k.stride, k.stride, 1})},
        {"dilations", AttrInts({1, k.dilation, k.dilation, 1})},
        {"padding", AttrString(k.padding)},
        {"fused_ops", AttrStrings({"BiasAdd", "Relu6"})},
        {"num_args", AttrInt(1)}};
    if (k.static_range) {
      attrs.push_back({"input_min", AttrF(lo)});
      attrs.push_back({"input_max", AttrF(hi)});
    }
    for (int threads : {1, 3}) {
      StatusOr<Tensor> out =
          RunOp("_GraphrtQuantizedDepthwiseConv2D",
                {MakeTensor<float>(TensorShape({k.batch, k.rows, k.cols, c}), x),
                 QInt8Tensor({k.kh, k.kw, c, 1}, w), r.min, r.max, Tensor::Vector<float>(bias)},
                attrs, threads);
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectClose(Values<float>(*out), want,
                  StrCat("channels ", c, " ", k.padding, " threads ", threads));
    }
  }
}

// Codes between int8 ops: with Toutput quint8 an op writes QuantizeV2's codes (QuantizeEigen) of
// the float output it would write, epilogue included; with Tinput quint8 an op reads such codes
// and gives the bits it gives when it quantizes the float values itself. For each op, with a
// fused bias + Relu6 and without.
TEST(Int8Ops, CodesInAndOut) {
  const float lo = -2.0f * 60 / 255, hi = 2.0f * 195 / 255;  // 0 is a level
  const float out_lo = -3.0f * 40 / 255, out_hi = 3.0f * 215 / 255;
  const std::vector<std::pair<std::string, AttrValue>> conv = {{"strides", AttrInts({1, 2, 2, 1})},
                                                               {"padding", AttrString("SAME")}};
  struct Case {
    const char* op;
    std::vector<int64_t> x_dims, w_dims;
    int64_t channels;
  };
  const Case cases[] = {{"_GraphrtQuantizedMatMul", {5, 19}, {19, 7}, 7},
                        {"_GraphrtQuantizedConv2D", {2, 7, 6, 5}, {3, 3, 5, 9}, 9},
                        {"_GraphrtQuantizedDepthwiseConv2D", {2, 7, 6, 11}, {3, 3, 11, 1}, 11}};
  for (const Case& c : cases) {
    for (bool fused : {false, true}) {
      SCOPED_TRACE(StrCat(c.op, fused ? " with bias + Relu6" : ""));
      int64_t xn = 1, wn = 1;
      for (int64_t d : c.x_dims) xn *= d;
      for (int64_t d : c.w_dims) wn *= d;
      const Tensor x = MakeTensor<float>(TensorShape(c.x_dims), RandomFloats(xn, 81, -2.5f, 2.5f));
      const Tensor w = QInt8Tensor(c.w_dims, RandomInt8(wn, 82));
      const Ranges r = MakeRanges(c.channels, true, 83);
      std::vector<Tensor> inputs = {x, w, r.min, r.max};
      std::vector<std::pair<std::string, AttrValue>> attrs = {
          {"input_min", AttrF(lo)},
          {"input_max", AttrF(hi)},
          {"axis", AttrInt(std::string(c.op) == "_GraphrtQuantizedMatMul"   ? 1
                           : std::string(c.op) == "_GraphrtQuantizedConv2D" ? 3
                                                                            : 2)}};
      if (std::string(c.op) != "_GraphrtQuantizedMatMul")
        attrs.insert(attrs.end(), conv.begin(), conv.end());
      if (fused) {
        inputs.push_back(Tensor::Vector<float>(RandomFloats(c.channels, 84, -1, 1)));
        attrs.push_back({"fused_ops", AttrStrings({"BiasAdd", "Relu6"})});
        attrs.push_back({"num_args", AttrInt(1)});
      }
      auto values = RunOp(c.op, inputs, attrs);
      ASSERT_TRUE(values.ok()) << values.status();
      auto coded_attrs = attrs;
      coded_attrs.push_back({"Toutput", AttrDtype(::tensorflow::DT_QUINT8)});
      coded_attrs.push_back({"output_min", AttrF(out_lo)});
      coded_attrs.push_back({"output_max", AttrF(out_hi)});
      auto codes = RunOp(c.op, inputs, coded_attrs);
      ASSERT_TRUE(codes.ok()) << codes.status();
      ASSERT_EQ(codes->dtype(), ::tensorflow::DT_QUINT8);
      ASSERT_EQ(codes->shape(), values->shape());
      const QuantizeEigen<uint8_t> quantize(out_lo, out_hi);
      int bad = 0;
      for (int64_t i = 0; i < values->NumElements() && bad < 5; ++i) {
        const uint8_t want = quantize(values->data<float>()[i]);
        if (codes->data<uint8_t>()[i] != want) {
          ADD_FAILURE() << "element " << i << ": " << int{codes->data<uint8_t>()[i]} << " vs "
                        << int{want};
          ++bad;
        }
      }

      // Reading codes: x's own codes as a quint8 tensor give the float-input op's bits.
      const QuantizeEigen<uint8_t> quantize_x(lo, hi);
      Tensor x_codes(::tensorflow::DT_QUINT8, x.shape());
      for (int64_t i = 0; i < xn; ++i) x_codes.data<uint8_t>()[i] = quantize_x(x.data<float>()[i]);
      auto read_attrs = attrs;
      read_attrs.push_back({"Tinput", AttrDtype(::tensorflow::DT_QUINT8)});
      std::vector<Tensor> coded_inputs = inputs;
      coded_inputs[0] = x_codes;
      auto from_codes = RunOp(c.op, coded_inputs, read_attrs);
      ASSERT_TRUE(from_codes.ok()) << from_codes.status();
      ASSERT_EQ(from_codes->shape(), values->shape());
      EXPECT_EQ(std::memcmp(from_codes->data<float>(), values->data<float>(), values->TotalBytes()),
                0);
    }
  }
}

TEST(Int8Ops, BadInputsAreErrors) {
  const int64_t k = 6, n = 4;
  const Tensor x = MakeTensor<float>(TensorShape({2, k}), RandomFloats(2 * k, 1, -1, 1));
  const Tensor w = QInt8Tensor({k, n}, RandomInt8(k * n, 2));
  const Ranges r = MakeRanges(n, true, 3);
  auto expect_error = [](const StatusOr<Tensor>& out, const std::string& part) {
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find(part), std::string::npos) << out.status();
  };
  // A float filter.
  expect_error(RunOp("_GraphrtQuantizedMatMul",
                     {x, MakeTensor<float>(TensorShape({k, n}), RandomFloats(k * n, 1, -1, 1)),
                      r.min, r.max}),
               "filter must be qint8");
  // A filter of the wrong rank, and one whose k does not match.
  expect_error(RunOp("_GraphrtQuantizedMatMul",
                     {x, QInt8Tensor({k * n}, RandomInt8(k * n, 2)), r.min, r.max}),
               "filter must be qint8 of rank 2");
  expect_error(RunOp("_GraphrtQuantizedMatMul",
                     {x, QInt8Tensor({k + 1, n}, RandomInt8((k + 1) * n, 2)), r.min, r.max}),
               "Matrix size-incompatible");
  // Ranges of the wrong length, out of order, or per tensor with axis 1.
  const Ranges short_ranges = MakeRanges(n - 1, true, 3);
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, short_ranges.min, short_ranges.max}),
               "filter_min must be float [4]");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.max, r.min}), "filter");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max}, {{"axis", AttrInt(0)}}),
               "axis must be 1");
  // A bias of the wrong length.
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max, Tensor::Vector<float>({1})},
                     {{"fused_ops", AttrStrings({"BiasAdd"})}, {"num_args", AttrInt(1)}}),
               "bias must be a vector of the output's 4 columns");
  // Conv2D: a grouped convolution and a rank-2 filter.
  const Tensor image = MakeTensor<float>(TensorShape({1, 4, 4, 6}), RandomFloats(96, 1, -1, 1));
  const std::vector<std::pair<std::string, AttrValue>> conv = {{"strides", AttrInts({1, 1, 1, 1})},
                                                               {"padding", AttrString("SAME")}};
  const Ranges r3 = MakeRanges(3, true, 4);
  expect_error(RunOp("_GraphrtQuantizedConv2D",
                     {image, QInt8Tensor({1, 1, 3, 3}, RandomInt8(9, 1)), r3.min, r3.max}, conv),
               "input depth 6 must equal the filter's 3");
  expect_error(RunOp("_GraphrtQuantizedConv2D", {image, w, r.min, r.max}, conv),
               "filter must be qint8 of rank 4");
  // Depthwise: a multiplier above 1, and ranges that are not one per channel.
  expect_error(RunOp("_GraphrtQuantizedDepthwiseConv2D",
                     {image, QInt8Tensor({3, 3, 6, 2}, RandomInt8(108, 1)),
                      MakeRanges(12, true, 4).min, MakeRanges(12, true, 4).max},
                     conv),
               "filter must be [h, w, 6, 1]");
  expect_error(RunOp("_GraphrtQuantizedDepthwiseConv2D",
                     {image, QInt8Tensor({3, 3, 6, 1}, RandomInt8(54, 1)), r3.min, r3.max}, conv),
               "filter_min must be float [6]");
  // Static ranges: one without the other, and one that leaves out 0.
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max}, {{"input_min", AttrF(-1)}}),
               "input_min and input_max come together");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max},
                     {{"input_min", AttrF(0.5f)}, {"input_max", AttrF(1)}}),
               "input_min <= 0 <= input_max");
  // Codes: an input of another type than Tinput, quint8 input without its range, quint8 output
  // without its range or a range in the wrong order, a range without quint8 output.
  const std::vector<std::pair<std::string, AttrValue>> codes_in = {
      {"Tinput", AttrDtype(::tensorflow::DT_QUINT8)},
      {"input_min", AttrF(-1)},
      {"input_max", AttrF(1)}};
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max}, codes_in),
               "input must be quint8, got float");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max},
                     {{"Tinput", AttrDtype(::tensorflow::DT_QUINT8)}}),
               "a quint8 input needs its range");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max},
                     {{"Toutput", AttrDtype(::tensorflow::DT_QUINT8)}}),
               "output_min and output_max come with Toutput quint8");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max},
                     {{"output_min", AttrF(-1)}, {"output_max", AttrF(1)}}),
               "output_min and output_max come with Toutput quint8");
  expect_error(RunOp("_GraphrtQuantizedMatMul", {x, w, r.min, r.max},
                     {{"Toutput", AttrDtype(::tensorflow::DT_QUINT8)},
                      {"output_min", AttrF(1)},
                      {"output_max", AttrF(-1)}}),
               "output_min <= 0 <= output_max");
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
