#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/kernels/cpu/nn_test_util.h"
#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/cpu/sgemm.h"
#include "runtime/kernels/cpu/winograd.h"

namespace graphrt {
namespace testing {
namespace {

using ::tensorflow::AttrValue;

struct ConvCase {
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::string padding = "SAME";
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings;
  std::string data_format = "NHWC";
};

StatusOr<Tensor> RunConv(const std::string& op, const Tensor& input, const Tensor& filter,
                         const ConvCase& c, int threads = 1) {
  std::vector<std::pair<std::string, AttrValue>> attrs = {
      {"strides", AttrInts(c.strides)},
      {"padding", AttrString(c.padding)},
      {"dilations", AttrInts(c.dilations)},
      {"data_format", AttrString(c.data_format)}};
  if (!c.explicit_paddings.empty()) {
    attrs.push_back({"explicit_paddings", AttrInts(c.explicit_paddings)});
  }
  return RunOp(op, {input, filter}, attrs, threads);
}

// A direct NHWC convolution in double: TensorFlow's definition, one output at a time.
// `depthwise`: filter [kh, kw, depth, multiplier]; else [kh, kw, depth / groups, out_depth].
std::vector<double> ReferenceConv(const std::vector<float>& in, std::vector<int64_t> in_shape,
                                  const std::vector<float>& filter,
                                  std::vector<int64_t> filter_shape, bool depthwise,
                                  int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w,
                                  int64_t pad_top, int64_t pad_left, int64_t out_h, int64_t out_w) {
  const int64_t n = in_shape[0], h = in_shape[1], w = in_shape[2], d = in_shape[3];
  const int64_t kh = filter_shape[0], kw = filter_shape[1];
  const int64_t fd = filter_shape[2], fo = filter_shape[3];
  const int64_t out_d = depthwise ? d * fo : fo;
  const int64_t groups = depthwise ? 1 : d / fd;
  std::vector<double> out(n * out_h * out_w * out_d, 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        for (int64_t oc = 0; oc < out_d; ++oc) {
          double sum = 0;
          for (int64_t i = 0; i < kh; ++i) {
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ih = oh * stride_h - pad_top + i * dil_h;
              const int64_t iw = ow * stride_w - pad_left + j * dil_w;
              if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
              const float* pixel = &in[((b * h + ih) * w + iw) * d];
              if (depthwise) {
                const int64_t c = oc / fo, m = oc % fo;
                sum += static_cast<double>(pixel[c]) * filter[((i * kw + j) * d + c) * fo + m];
              } else {
                const int64_t g = oc / (fo / groups);
                for (int64_t c = 0; c < fd; ++c) {
                  sum += static_cast<double>(pixel[g * fd + c]) *
                         filter[((i * kw + j) * fd + c) * fo + oc];
                }
              }
            }
          }
          out[((b * out_h + oh) * out_w + ow) * out_d + oc] = sum;
        }
      }
    }
  }
  return out;
}

// NHWC [n, h, w, c] values -> NCHW order, and back.
template <typename V>
std::vector<V> NhwcToNchwValues(const std::vector<V>& v, int64_t n, int64_t h, int64_t w,
                                int64_t c) {
  std::vector<V> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        for (int64_t k = 0; k < c; ++k)
          out[((b * c + k) * h + i) * w + j] = v[((b * h + i) * w + j) * c + k];
  return out;
}

// Expected values below were computed by TensorFlow 2.15.1 on input Seq(n) and filter
// FilterSeq(n) (see nn_test_util.h) with the stated shapes and attrs.

TEST(ConvOpsTest, Conv2DMatchesTensorFlow) {
  const Tensor x = MakeTensor<float>({1, 5, 5, 2}, Seq(50));
  const Tensor f = MakeTensor<float>({3, 3, 2, 3}, FilterSeq(54));
  StatusOr<Tensor> same = RunConv("Conv2D", x, f, ConvCase());
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->shape(), TensorShape({1, 5, 5, 3}));
  const std::vector<double> same_expected = {
      3.0,    -5.125, -3.625, -6.125, -5.625, 5.375, -4.5,   3.0,    1.75,  2.625, 3.375,
      -4.625, 3.875,  -3.125, -0.5,   2.0,    4.625, -1.5,   4.375,  -3.5,  4.375, -0.625,
      4.75,   -3.0,   2.625,  -4.875, 3.375,  -5.5,  4.5,    -0.375, 0.375, 5.625, -6.625,
      6.875,  -7.625, -6.375, -6.375, -7.625, 6.875, -7.25,  4.75,   3.625, 2.375, 3.5,
      -1.5,   0.125,  -4.375, 3.375,  -3.0,   4.75,  -0.625, 4.375,  -3.5,  4.375, -0.625,
      4.75,   -3.0,   3.375,  -4.375, 0.125,  -0.5,  1.75,   2.25,   1.75,  3.0,   -4.5,
      5.375,  -5.625, -6.125, -3.375, -4.625, 4.625, -4.25,  4.25,   0.5};
  ExpectAllClose(AsDoubles<float>(*same), same_expected, 1e-6);

  ConvCase valid;
  valid.padding = "VALID";
  valid.strides = {1, 2, 2, 1};
  StatusOr<Tensor> v = RunConv("Conv2D", x, f, valid);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->shape(), TensorShape({1, 2, 2, 3}));
  ExpectAllClose(AsDoubles<float>(*v),
                 {4.375, -3.5, 4.375, 2.625, -4.875, 3.375, -3.0, 4.75, -0.625, -0.625, 4.75, -3.0},
                 1e-6);

  ConvCase dilated;
  dilated.strides = {1, 2, 1, 1};
  dilated.dilations = {1, 2, 2, 1};
  StatusOr<Tensor> d = RunConv("Conv2D", MakeTensor<float>({1, 6, 7, 2}, Seq(84)), f, dilated);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->shape(), TensorShape({1, 3, 7, 3}));
  ExpectAllClose(AsDoubles<float>(*d),
                 {-2.5,   1.875,  3.625, 1.375,  -3.375, 1.5,    1.625, 3.125, -3.25, -2.25,  2.125,
                  -1.375, 2.125,  -0.25, -0.875, 1.25,   -2.75,  1.125, 0.125, -0.75, -1.625, -0.75,
                  -0.875, -0.125, -0.25, -0.125, -0.875, -1.25,  -0.75, 2.375, 0.625, -2.125, -2.25,
                  -3.0,   3.375,  2.75,  -2.75,  -2.375, 2.375,  3.5,   2.375, -2.25, 1.125,  1.5,
                  -3.375, -1.625, 3.625, 1.875,  1.75,   -4.125, 1.375, 4.0,   1.0,   -0.25,  -4.75,
                  2.0,    0.875,  1.0,   0.0,    0.75,   0.375,  -0.25, -1.75},
                 1e-6);

  ConvCase padded;
  padded.padding = "EXPLICIT";
  padded.strides = {1, 1, 2, 1};
  padded.explicit_paddings = {0, 0, 2, 1, 0, 3, 0, 0};
  StatusOr<Tensor> e = RunConv("Conv2D", x, f, padded);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), TensorShape({1, 6, 3, 3}));
  ExpectAllClose(
      AsDoubles<float>(*e),
      {-1.125, 2.0,   0.75,  -1.875, 1.375,  0.25,   0.125,  0.375,  0.625, -6.125, -5.625,
       5.375,  2.625, 3.375, -4.625, -4.125, -0.25,  1.0,    4.375,  -3.5,  4.375,  2.625,
       -4.875, 3.375, 3.25,  -0.875, -0.625, 6.875,  -7.625, -6.375, -7.25, 4.75,   3.625,
       3.25,   -0.5,  -0.75, -3.0,   4.75,   -0.625, -0.625, 4.75,   -3.0,  -5.0,   1.25,
       0.5,    1.75,  3.0,   -4.5,   -3.375, -4.625, 4.625,  1.625,  0.125, 0.375},
      1e-6);

  StatusOr<Tensor> h = RunConv("Conv2D", MakeTensor<half>({1, 5, 5, 2}, Seq(50)),
                               MakeTensor<half>({3, 3, 2, 3}, FilterSeq(54)), ConvCase());
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectAllClose(AsDoubles<half>(*h), same_expected, 1e-3);
  StatusOr<Tensor> bf = RunConv("Conv2D", MakeTensor<bfloat16>({1, 5, 5, 2}, Seq(50)),
                                MakeTensor<bfloat16>({3, 3, 2, 3}, FilterSeq(54)), ConvCase());
  ASSERT_TRUE(bf.ok()) << bf.status();
  ExpectAllClose(AsDoubles<bfloat16>(*bf), same_expected, 1e-2);
}

TEST(ConvOpsTest, GroupedPointwiseAndInt32) {
  StatusOr<Tensor> grouped = RunConv("Conv2D", MakeTensor<float>({1, 4, 4, 4}, Seq(64)),
                                     MakeTensor<float>({2, 2, 2, 6}, FilterSeq(48)), ConvCase());
  ASSERT_TRUE(grouped.ok()) << grouped.status();
  EXPECT_EQ(grouped->shape(), TensorShape({1, 4, 4, 6}));
  ExpectAllClose(
      AsDoubles<float>(*grouped),
      {2.5,    -4.875, 0.875, -1.375, -1.375, 3.0,   -2.5,  4.875,  0.875, 2.625,  0.875,  -1.75,
       2.125,  -4.625, 0.875, -1.625, 1.75,   -1.0,  -1.5,  2.75,   0.0,   -0.375, 2.75,   -1.125,
       1.75,   -1.625, -3.25, -4.625, 2.125,  1.875, 0.875, 2.625,  0.875, 4.875,  -2.5,   -2.875,
       -1.375, -1.375, -0.5,  -4.875, 2.5,    2.0,   -0.25, -1.375, 0.125, 1.875,  -2.125, -1.75,
       -0.375, 3.0,    -3.25, -2.375, -1.25,  0.75,  -1.25, -2.375, 0.875, 3.0,    -0.375, 1.5,
       -2.125, 4.625,  0.875, -2.625, -0.875, 0.875, 2.375, -4.125, 1.625, 0.0,    -1.5,   3.125,
       0.625,  2.25,   0.375, 0.625,  0.25,   0.75,  0.625, -2.625, 0.25,  1.125,  1.125,  -3.25,
       0.625,  2.125,  0.125, 0.25,   0.625,  1.0,   0.625, -2.25,  1.0,   0.0,    1.0,    -1.5},
      1e-6);

  ConvCase valid;
  valid.padding = "VALID";
  StatusOr<Tensor> pointwise = RunConv("Conv2D", MakeTensor<float>({2, 2, 3, 3}, Seq(36)),
                                       MakeTensor<float>({1, 1, 3, 2}, FilterSeq(6)), valid);
  ASSERT_TRUE(pointwise.ok()) << pointwise.status();
  ExpectAllClose(
      AsDoubles<float>(*pointwise),
      {1.125, -2.0,  -3.0,  0.625, -3.0,  0.5,    -3.0,  0.375, 1.125, 1.625,  1.125, 1.5,
       1.125, 1.375, 1.125, 1.25,  1.125, -1.625, 1.125, -1.75, 1.125, -1.875, 1.125, -2.0},
      1e-6);

  const std::vector<int> xi = {-5, 2, -2, 5,  1, -3, 4,  0, -4, 3, -1, -5, 2, -2, 5,  1,
                               -3, 4, 0,  -4, 3, -1, -5, 2, -2, 5, 1,  -3, 4, 0,  -4, 3};
  const std::vector<int> fi = {-3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2};
  StatusOr<Tensor> i32 = RunConv("Conv2D", MakeTensor<int32_t>({1, 4, 4, 2}, xi),
                                 MakeTensor<int32_t>({2, 2, 2, 2}, fi), ConvCase());
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_EQ(
      Values<int32_t>(*i32),
      (std::vector<int32_t>{4, -31, 28, -25, 19,  3, -4, 11, 12, 4,  25, -1, 5,   16, -29, 14,
                            9, 6,   22, 1,   -31, 7, 1,  -5, 12, -4, 9,  12, -27, -5, 12,  -14}));
}

// Random shapes against the reference: NHWC and NCHW (which TensorFlow's CPU kernels reject,
// checked here against the NHWC reference), several threads, patch blocks of every kind.
TEST(ConvOpsTest, Conv2DMatchesReference) {
  struct Case {
    std::vector<int64_t> in, filter;
    int64_t stride_h, stride_w, dil_h, dil_w;
    std::string padding;
  };
  const std::vector<Case> cases = {
      {{2, 17, 19, 5}, {3, 3, 5, 7}, 2, 2, 1, 1, "SAME"},
      {{1, 40, 40, 8}, {3, 3, 8, 16}, 1, 1, 1, 1, "SAME"},  // many patch blocks
      {{3, 9, 8, 6}, {2, 3, 3, 4}, 1, 2, 2, 1, "VALID"},    // groups, dilation
      {{2, 7, 7, 4}, {1, 1, 4, 9}, 1, 1, 1, 1, "SAME"},     // pointwise GEMM
      {{1, 12, 12, 3}, {1, 1, 3, 5}, 2, 2, 1, 1, "VALID"},  // strided 1x1
      {{2, 5, 6, 3}, {5, 6, 3, 4}, 1, 1, 1, 1, "VALID"},    // filter covers the image
      // Windows inside the image and whole packets of output channels: no patch matrix.
      {{2, 11, 13, 6}, {3, 2, 6, 48}, 2, 1, 1, 2, "VALID"},
      {{1, 12, 14, 5}, {2, 2, 5, 80}, 1, 1, 1, 1, "VALID"},
      {{3, 4, 4, 2}, {4, 4, 2, 16}, 1, 1, 1, 1, "VALID"},
      // ... and on a zero-padded copy of the input where the windows reach the padding.
      {{2, 9, 10, 3}, {3, 3, 3, 32}, 2, 2, 2, 1, "SAME"},
      {{1, 7, 5, 1}, {5, 5, 1, 16}, 1, 1, 1, 1, "SAME"},
      // Few input channels: read straight from the (padded) input on AVX2 and AVX-512
      // (small_depth_conv.h), here with four vectors of output channels and with a partial one.
      {{1, 13, 11, 3}, {7, 7, 3, 64}, 2, 2, 1, 1, "SAME"},
      {{2, 9, 9, 4}, {3, 3, 4, 20}, 1, 1, 1, 1, "SAME"},
      // Rows of 11 and 17 pixels: whole register tiles, then four pixels, then one.
      {{1, 9, 22, 3}, {7, 7, 3, 64}, 2, 2, 1, 1, "SAME"},
      {{1, 6, 17, 2}, {3, 3, 2, 16}, 1, 1, 1, 1, "SAME"},
  };
  for (const Case& c : cases) {
    const int64_t n = c.in[0], h = c.in[1], w = c.in[2], d = c.in[3];
    const std::vector<float> x = RandomValues(n * h * w * d, 11);
    const int64_t filter_size = c.filter[0] * c.filter[1] * c.filter[2] * c.filter[3];
    const std::vector<float> f = RandomValues(filter_size, 12);
    WindowDim rows, cols;
    Padding padding = c.padding == "SAME" ? Padding::kSame : Padding::kValid;
    ASSERT_TRUE(ComputeWindowDim(h, c.filter[0], c.dil_h, c.stride_h, padding, 0, 0, &rows).ok());
    ASSERT_TRUE(ComputeWindowDim(w, c.filter[1], c.dil_w, c.stride_w, padding, 0, 0, &cols).ok());
    const std::vector<double> expected =
        ReferenceConv(x, c.in, f, c.filter, false, c.stride_h, c.stride_w, c.dil_h, c.dil_w,
                      rows.pad_before, cols.pad_before, rows.output, cols.output);
    for (const char* format : {"NHWC", "NCHW"}) {
      SCOPED_TRACE(StrCat(c.in[1], "x", c.in[2], "x", c.in[3], " filter ", c.filter[0], "x",
                          c.filter[1], " ", format));
      const bool nchw = std::string(format) == "NCHW";
      ConvCase attrs;
      attrs.padding = c.padding;
      attrs.data_format = format;
      attrs.strides = nchw ? std::vector<int64_t>{1, 1, c.stride_h, c.stride_w}
                           : std::vector<int64_t>{1, c.stride_h, c.stride_w, 1};
      attrs.dilations = nchw ? std::vector<int64_t>{1, 1, c.dil_h, c.dil_w}
                             : std::vector<int64_t>{1, c.dil_h, c.dil_w, 1};
      Tensor input = nchw ? MakeTensor<float>({n, d, h, w}, NhwcToNchwValues(x, n, h, w, d))
                          : MakeTensor<float>({n, h, w, d}, x);
      StatusOr<Tensor> y =
          RunConv("Conv2D", input, MakeTensor<float>(TensorShape(c.filter), f), attrs, 3);
      ASSERT_TRUE(y.ok()) << y.status();
      const int64_t out_d = c.filter[3];
      std::vector<double> want =
          nchw ? NhwcToNchwValues(expected, n, rows.output, cols.output, out_d) : expected;
      ExpectAllClose(AsDoubles<float>(*y), want, 1e-5, 1e-5);
    }
  }
}

// 3x3 and 5x5 convolutions of unit stride on the AVX2 and AVX-512 paths run Winograd's
// F(4x4, 3x3) or F(2x2, 3x3) (winograd.h; a 5x5 as four 3x3 blocks): odd sizes (tiles cut by the
// output's edge), channels that are not whole vectors, several bands of tiles (one crossing from
// an image to the next), SAME, VALID and uneven explicit padding, one to three threads. Each
// output is within 4x the im2col path's distance from the double sum, plus a share of the sum of
// the products' magnitudes (the transforms add and subtract up to 16 or 36 terms before the
// products).
TEST(ConvOpsTest, WinogradMatchesReference) {
  struct Case {
    std::vector<int64_t> in;
    int64_t out_depth;
    std::vector<int64_t> pads;  // top, bottom, left, right (EXPLICIT); empty: `padding`
    std::string padding;
    int64_t window = 3;
  };
  const std::vector<Case> cases = {
      {{1, 9, 11, 16}, 16, {}, "SAME"},
      {{2, 8, 7, 19}, 21, {}, "VALID"},
      {{1, 40, 36, 64}, 48, {}, "SAME"},  // several bands
      {{1, 10, 9, 24}, 17, {2, 0, 1, 3}, "EXPLICIT"},
      {{4, 12, 10, 32}, 24, {}, "SAME"},  // whole bands shared out over two threads
      {{3, 10, 60, 64}, 64, {}, "SAME"},  // F(4x4, 3x3): bands of 7 tile rows, images of 3
      {{2, 14, 14, 32}, 64, {}, "VALID", 5},
      {{1, 11, 9, 17}, 19, {}, "SAME", 5},
      {{1, 9, 10, 16}, 16, {1, 3, 2, 0}, "EXPLICIT", 5},
  };
  const CpuIsa isa = ActiveCpuIsa();
  int64_t winograd_cases = 0;
  for (const Case& c : cases) {
    const int64_t n = c.in[0], h = c.in[1], w = c.in[2], d = c.in[3];
    const int64_t k = c.window;
    SCOPED_TRACE(StrCat(h, "x", w, "x", d, " -> ", c.out_depth, " ", k, "x", k, " ", c.padding));
    const std::vector<float> x = RandomValues(n * h * w * d, 21);
    const std::vector<float> f = RandomValues(k * k * d * c.out_depth, 22);
    std::vector<float> abs_x(x.size()), abs_f(f.size());
    std::transform(x.begin(), x.end(), abs_x.begin(), [](float v) { return std::abs(v); });
    std::transform(f.begin(), f.end(), abs_f.begin(), [](float v) { return std::abs(v); });
    const std::vector<int64_t> filter_shape = {k, k, d, c.out_depth};
    WindowDim rows, cols;
    ConvCase attrs;
    attrs.padding = c.padding;
    if (c.pads.empty()) {
      const Padding padding = c.padding == "SAME" ? Padding::kSame : Padding::kValid;
      ASSERT_TRUE(ComputeWindowDim(h, k, 1, 1, padding, 0, 0, &rows).ok());
      ASSERT_TRUE(ComputeWindowDim(w, k, 1, 1, padding, 0, 0, &cols).ok());
    } else {
      attrs.explicit_paddings = {0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3], 0, 0};
      ASSERT_TRUE(
          ComputeWindowDim(h, k, 1, 1, Padding::kExplicit, c.pads[0], c.pads[1], &rows).ok());
      ASSERT_TRUE(
          ComputeWindowDim(w, k, 1, 1, Padding::kExplicit, c.pads[2], c.pads[3], &cols).ok());
    }
    Window2D g;
    g.batch = n;
    g.in_rows = h;
    g.in_cols = w;
    g.depth = d;
    g.window_rows = g.window_cols = k;
    g.out_rows = rows.output;
    g.out_cols = cols.output;
    g.pad_top = rows.pad_before;
    g.pad_left = cols.pad_before;
    EXPECT_EQ(WinogradApplies(isa, g, d, c.out_depth), HasPackedSgemm(isa));
    const auto reference = [&](const std::vector<float>& in, const std::vector<float>& filter) {
      return ReferenceConv(in, c.in, filter, filter_shape, false, 1, 1, 1, 1, rows.pad_before,
                           cols.pad_before, rows.output, cols.output);
    };
    const std::vector<double> expected = reference(x, f);
    const std::vector<double> magnitude = reference(abs_x, abs_f);
    const Tensor input = MakeTensor<float>({n, h, w, d}, x);
    const Tensor filter = MakeTensor<float>(TensorShape(filter_shape), f);
    ASSERT_EQ(setenv("GRAPHRT_WINOGRAD", "0", 1), 0);
    StatusOr<Tensor> im2col = RunConv("Conv2D", input, filter, attrs);
    ASSERT_EQ(unsetenv("GRAPHRT_WINOGRAD"), 0);
    ASSERT_TRUE(im2col.ok()) << im2col.status();
    // The default forms, F(4x4, 3x3) and F(2x2, 5x5), then F(2x2, 3x3) (GRAPHRT_WINOGRAD=2).
    for (const char* setting : {"", "2"}) {
      SCOPED_TRACE(StrCat("GRAPHRT_WINOGRAD=", setting));
      if (*setting != 0) {
        ASSERT_EQ(setenv("GRAPHRT_WINOGRAD", setting, 1), 0);
      }
      // The 6x6 forms mix a tile with coefficients up to 5 (B) and 8 (F(4x4, 3x3)'s A): their
      // error is up to 2e-6 of an output's magnitude, and outputs whose terms are all zero (a
      // window wholly in the padding) get the rounding of their tile's others, 1e-6 of the
      // largest magnitude.
      const bool six = WinogradTile() == 4;
      const double tolerance = six ? 2e-6 : 1e-6;
      const double floor = six ? 1e-6 * *std::max_element(magnitude.begin(), magnitude.end()) : 0.0;
      for (int threads : {1, 2, 3}) {
        StatusOr<Tensor> y = RunConv("Conv2D", input, filter, attrs, threads);
        ASSERT_TRUE(y.ok()) << y.status();
        ASSERT_EQ(y->NumElements(), static_cast<int64_t>(expected.size()));
        double worst = 0;
        for (size_t i = 0; i < expected.size(); ++i) {
          const double error = std::abs(y->data<float>()[i] - expected[i]);
          const double direct = std::abs(im2col->data<float>()[i] - expected[i]);
          worst = std::max(worst, error / magnitude[i]);
          ASSERT_LE(error, 4 * direct + tolerance * magnitude[i] + floor)
              << "element " << i << ": " << y->data<float>()[i] << " vs " << expected[i];
        }
        RecordProperty(StrCat("worst_relative_to_magnitude_", k, "x", k, "_", h, "x", w, "_",
                              threads, "_", *setting == 0 ? "default" : setting),
                       StrCat(worst));
      }
      winograd_cases += WinogradApplies(isa, g, d, c.out_depth);
      ASSERT_EQ(unsetenv("GRAPHRT_WINOGRAD"), 0);
    }
  }
  EXPECT_EQ(winograd_cases, HasPackedSgemm(isa) ? 18 : 0);
}

// The form follows the shape: F(4x4, 3x3) where the batch's output holds 12 or more 4x4 tiles,
// F(2x2, 3x3) below (ResNet50's 7x7 layers at batch 1), F(2x2, 5x5) for 5x5 windows; a kernel's
// WinogradWeights keeps one transform per form its Runs ask for.
TEST(ConvOpsTest, WinogradFormFollowsTheShape) {
  const CpuIsa isa = ActiveCpuIsa();
  if (!HasPackedSgemm(isa)) GTEST_SKIP() << "no packed SGEMM on this path";
  Window2D g;
  g.in_rows = g.in_cols = g.out_rows = g.out_cols = 7;
  g.depth = 16;
  g.window_rows = g.window_cols = 3;
  g.batch = 1;  // 4 tiles of 4x4
  const WinogradForm one = ChooseWinogradForm(g);
  EXPECT_EQ(one.tile, 2);
  EXPECT_EQ(one.taps, 3);
  g.batch = 3;  // 12
  EXPECT_EQ(ChooseWinogradForm(g).tile, 4);
  const std::vector<float> f = RandomValues(9 * 16 * 16, 5);
  WinogradWeights weights;
  const WinogradFilter* f4 = weights.Get(isa, f.data(), g, 16);
  g.batch = 1;
  const WinogradFilter* f2 = weights.Get(isa, f.data(), g, 16);
  ASSERT_NE(f4, nullptr);
  ASSERT_NE(f2, nullptr);
  EXPECT_TRUE(f4->form() == (WinogradForm{4, 3}));
  EXPECT_TRUE(f2->form() == (WinogradForm{2, 3}));
  EXPECT_EQ(weights.Get(isa, f.data(), g, 16), f2);
  EXPECT_EQ(weights.Get(isa, f.data() + 1, g, 16), nullptr);  // another filter
  g.window_rows = g.window_cols = 5;
  const WinogradForm five = ChooseWinogradForm(g);
  EXPECT_EQ(five.tile, 2);
  EXPECT_EQ(five.taps, 5);
  ASSERT_EQ(setenv("GRAPHRT_WINOGRAD", "2", 1), 0);
  EXPECT_EQ(ChooseWinogradForm(g).taps, 3);
  ASSERT_EQ(unsetenv("GRAPHRT_WINOGRAD"), 0);
}

TEST(ConvOpsTest, DepthwiseMatchesTensorFlow) {
  const std::vector<float> fd = FilterSeq(36);
  ConvCase strided;
  strided.strides = {1, 2, 2, 1};
  StatusOr<Tensor> s2 = RunConv("DepthwiseConv2dNative", MakeTensor<float>({1, 5, 5, 2}, Seq(50)),
                                MakeTensor<float>({3, 3, 2, 2}, fd), strided);
  ASSERT_TRUE(s2.ok()) << s2.status();
  EXPECT_EQ(s2->shape(), TensorShape({1, 3, 3, 4}));
  const std::vector<double> s2_expected = {
      1.375,  2.0,    2.25,   2.25,  -4.25, 0.125, -3.75, -0.625, 1.25,  -0.625, 1.625, 0.875,
      1.875,  -0.125, 1.875,  2.125, 1.0,   2.625, -1.5,  3.5,    1.125, -0.75,  1.75,  -1.375,
      -2.125, -1.625, -0.875, -3.5,  3.0,   1.625, 2.375, 2.375,  -3.25, 0.875,  -3.5,  -0.875};
  ExpectAllClose(AsDoubles<float>(*s2), s2_expected, 1e-6);
  StatusOr<Tensor> half_s2 =
      RunConv("DepthwiseConv2dNative", MakeTensor<half>({1, 5, 5, 2}, Seq(50)),
              MakeTensor<half>({3, 3, 2, 2}, fd), strided);
  ASSERT_TRUE(half_s2.ok()) << half_s2.status();
  ExpectAllClose(AsDoubles<half>(*half_s2), s2_expected, 1e-3);

  ConvCase valid;
  valid.padding = "VALID";
  StatusOr<Tensor> m1 = RunConv("DepthwiseConv2dNative", MakeTensor<float>({2, 4, 5, 3}, Seq(120)),
                                MakeTensor<float>({2, 3, 3, 1}, FilterSeq(18)), valid);
  ASSERT_TRUE(m1.ok()) << m1.status();
  EXPECT_EQ(m1->shape(), TensorShape({2, 3, 3, 3}));
  ExpectAllClose(
      AsDoubles<float>(*m1),
      {-0.125, 2.125, -1.5,   -3.875, 2.25,   -1.625, -3.5,   1.0,    1.0,   0.375,  -1.375,
       2.0,    2.125, -5.375, 1.875,  2.5,    -1.125, 1.75,   2.25,   2.0,   -1.375, -0.125,
       2.125,  -1.5,  -3.875, 2.25,   -1.625, 3.25,   1.875,  -5.375, 2.25,  2.0,    -1.375,
       -0.125, 2.125, -1.5,   -3.125, -1.625, 2.25,   -2.75,  -1.5,   2.125, 0.375,  -1.375,
       2.0,    2.875, 1.75,   -1.125, 3.25,   1.875,  -5.375, 2.25,   2.0,   -1.375},
      1e-6);
}

TEST(ConvOpsTest, DepthwiseMatchesReference) {
  // Dilations and NCHW, which TensorFlow's CPU kernel rejects, and unequal strides; each path of
  // the kernel (unit stride and multiplier 1 or not, interior and edge columns).
  struct Case {
    int64_t n, h, w, d, m, kh, kw, stride_h, stride_w, dil_h, dil_w;
    std::string padding;
  };
  const std::vector<Case> cases = {
      {2, 11, 9, 6, 2, 3, 3, 1, 2, 2, 1, "SAME"},
      {1, 12, 13, 20, 1, 3, 3, 1, 1, 1, 1, "SAME"},
      {2, 9, 10, 7, 1, 3, 2, 1, 1, 2, 3, "SAME"},
      {1, 8, 9, 16, 1, 5, 5, 2, 2, 1, 1, "SAME"},
      {1, 7, 6, 3, 3, 2, 3, 1, 1, 1, 1, "VALID"},
      {1, 6, 3, 5, 1, 3, 5, 1, 1, 1, 1, "SAME"},
      // Multiplier 1 with column strides, read in place: depths of whole chunks, whole vectors
      // and a scalar tail, dilated and not, and windows over both edges.
      {1, 9, 11, 40, 1, 3, 3, 2, 2, 1, 1, "SAME"},
      {2, 14, 15, 96, 1, 3, 3, 2, 2, 1, 1, "VALID"},
      {1, 10, 13, 7, 1, 3, 3, 3, 3, 1, 1, "SAME"},
      {1, 12, 12, 17, 1, 3, 3, 1, 2, 1, 2, "SAME"},
      {1, 4, 3, 64, 1, 5, 5, 2, 2, 1, 1, "SAME"},
      // Unit stride, whole vectors of channels, windows 3 and 5 wide: rows of pixels in blocks of
      // 8 and single ones.
      {2, 9, 21, 48, 1, 3, 3, 1, 1, 1, 1, "SAME"},
      {1, 11, 14, 32, 1, 5, 5, 1, 1, 1, 1, "SAME"},
      {1, 6, 12, 16, 1, 3, 5, 1, 1, 1, 1, "VALID"},
      {1, 7, 30, 16, 1, 2, 3, 2, 1, 1, 1, "SAME"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(StrCat(c.h, "x", c.w, "x", c.d, " m=", c.m, " k=", c.kh, "x", c.kw,
                        " s=", c.stride_h, ",", c.stride_w, " dil=", c.dil_h, ",", c.dil_w));
    const std::vector<float> x = RandomValues(c.n * c.h * c.w * c.d, 21);
    const std::vector<float> f = RandomValues(c.kh * c.kw * c.d * c.m, 22);
    const Padding padding = c.padding == "SAME" ? Padding::kSame : Padding::kValid;
    WindowDim rows, cols;
    ASSERT_TRUE(ComputeWindowDim(c.h, c.kh, c.dil_h, c.stride_h, padding, 0, 0, &rows).ok());
    ASSERT_TRUE(ComputeWindowDim(c.w, c.kw, c.dil_w, c.stride_w, padding, 0, 0, &cols).ok());
    const std::vector<double> expected = ReferenceConv(
        x, {c.n, c.h, c.w, c.d}, f, {c.kh, c.kw, c.d, c.m}, true, c.stride_h, c.stride_w, c.dil_h,
        c.dil_w, rows.pad_before, cols.pad_before, rows.output, cols.output);
    const Tensor filter = MakeTensor<float>({c.kh, c.kw, c.d, c.m}, f);
    ConvCase nhwc;
    nhwc.padding = c.padding;
    nhwc.strides = {1, c.stride_h, c.stride_w, 1};
    nhwc.dilations = {1, c.dil_h, c.dil_w, 1};
    StatusOr<Tensor> y = RunConv("DepthwiseConv2dNative",
                                 MakeTensor<float>({c.n, c.h, c.w, c.d}, x), filter, nhwc, 3);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectAllClose(AsDoubles<float>(*y), expected, 1e-5, 1e-6);
    ConvCase nchw = nhwc;
    nchw.data_format = "NCHW";
    nchw.strides = {1, 1, c.stride_h, c.stride_w};
    nchw.dilations = {1, 1, c.dil_h, c.dil_w};
    StatusOr<Tensor> yc =
        RunConv("DepthwiseConv2dNative",
                MakeTensor<float>({c.n, c.d, c.h, c.w}, NhwcToNchwValues(x, c.n, c.h, c.w, c.d)),
                filter, nchw, 3);
    ASSERT_TRUE(yc.ok()) << yc.status();
    ExpectAllClose(AsDoubles<float>(*yc),
                   NhwcToNchwValues(expected, c.n, rows.output, cols.output, c.d * c.m), 1e-5,
                   1e-6);
  }
}

TEST(ConvOpsTest, EmptyShapes) {
  StatusOr<Tensor> batch0 = RunConv("Conv2D", MakeTensor<float>({0, 3, 3, 2}, Seq(0)),
                                    MakeTensor<float>({2, 2, 2, 3}, FilterSeq(24)), ConvCase());
  ASSERT_TRUE(batch0.ok()) << batch0.status();
  EXPECT_EQ(batch0->shape(), TensorShape({0, 3, 3, 3}));
  StatusOr<Tensor> out0 = RunConv("Conv2D", MakeTensor<float>({1, 3, 3, 1}, Seq(9)),
                                  MakeTensor<float>({1, 1, 1, 0}, Seq(0)), ConvCase());
  ASSERT_TRUE(out0.ok()) << out0.status();
  EXPECT_EQ(out0->shape(), TensorShape({1, 3, 3, 0}));
  StatusOr<Tensor> no_channels = RunConv("Conv2D", MakeTensor<float>({1, 3, 3, 0}, Seq(0)),
                                         MakeTensor<float>({1, 1, 1, 2}, Seq(2)), ConvCase());
  ASSERT_TRUE(no_channels.ok()) << no_channels.status();
  EXPECT_EQ(Values<float>(*no_channels), std::vector<float>(18, 0.0f));
  StatusOr<Tensor> dw_empty_window =
      RunConv("DepthwiseConv2dNative", MakeTensor<float>({1, 3, 3, 2}, Seq(18)),
              MakeTensor<float>({0, 1, 2, 3}, Seq(0)), ConvCase());
  ASSERT_TRUE(dw_empty_window.ok()) << dw_empty_window.status();
  EXPECT_EQ(Values<float>(*dw_empty_window), std::vector<float>(54, 0.0f));
}

TEST(ConvOpsTest, BadInputsAreErrors) {
  const Tensor x = MakeTensor<float>({1, 3, 3, 3}, Seq(27));
  auto error = [&](const Tensor& in, const Tensor& f, const ConvCase& c) {
    StatusOr<Tensor> y = RunConv("Conv2D", in, f, c);
    EXPECT_FALSE(y.ok());
    return y.status();
  };
  EXPECT_EQ(error(MakeTensor<float>({3, 3, 3}, Seq(27)), MakeTensor<float>({1, 1, 3, 1}, Seq(3)),
                  ConvCase())
                .message(),
            "convolution input must be 4-dimensional: [3,3,3]");
  EXPECT_EQ(error(x, MakeTensor<float>({1, 1, 2, 1}, Seq(2)), ConvCase()).message(),
            "input depth must be evenly divisible by filter depth: 3 vs 2");
  EXPECT_EQ(error(MakeTensor<float>({1, 3, 3, 4}, Seq(36)), MakeTensor<float>({1, 1, 2, 3}, Seq(6)),
                  ConvCase())
                .message(),
            "output depth must be evenly divisible by number of groups: 3 vs 2");
  ConvCase valid;
  valid.padding = "VALID";
  EXPECT_EQ(error(x, MakeTensor<float>({5, 5, 3, 1}, Seq(75)), valid).message(),
            "Computed output size would be negative: -1 [input_size: 3, effective_filter_size: "
            "5, stride: 1]");

  const Tensor f = MakeTensor<float>({1, 1, 3, 1}, Seq(3));
  ConvCase batch_stride;
  batch_stride.strides = {2, 1, 1, 1};
  EXPECT_EQ(error(x, f, batch_stride).code(), Code::kUnimplemented);
  ConvCase zero_stride;
  zero_stride.strides = {1, 0, 1, 1};
  EXPECT_TRUE(
      ErrorEndsWith(error(x, f, zero_stride), "Row and column strides should be larger than 0."));
  ConvCase huge_dilation;
  huge_dilation.dilations = {1, int64_t{1} << 40, 1, 1};
  EXPECT_EQ(error(x, MakeTensor<float>({2, 1, 3, 1}, Seq(6)), huge_dilation).code(),
            Code::kInvalidArgument);
  ConvCase short_paddings;
  short_paddings.padding = "EXPLICIT";
  short_paddings.explicit_paddings = {0, 0, 1, 1};
  EXPECT_TRUE(ErrorEndsWith(error(x, f, short_paddings),
                            "explicit_paddings attribute must contain 8 values, but got: 4"));
  ConvCase negative;
  negative.padding = "EXPLICIT";
  negative.explicit_paddings = {0, 0, -1, 1, 1, 1, 0, 0};
  EXPECT_TRUE(ErrorEndsWith(error(x, f, negative),
                            "All elements of explicit_paddings must be nonnegative"));

  StatusOr<Tensor> dw =
      RunConv("DepthwiseConv2dNative", x, MakeTensor<float>({1, 1, 2, 1}, Seq(2)), ConvCase());
  EXPECT_EQ(dw.status().message(), "input and filter must have the same depth: 3 vs 2");
}

// _FusedConv2D runs its epilogue (bias, residual Add, Relu) on each block of rows it computes:
// the values are the plain convolution's plus bias plus residual, through Relu, and a bias or
// residual of the wrong shape is an error before anything is computed.
TEST(ConvOpsTest, FusedConvEpilogueValuesAndBadArguments) {
  const Tensor x = MakeTensor<float>({2, 5, 5, 3}, Seq(150));
  const Tensor f = MakeTensor<float>({3, 3, 3, 4}, FilterSeq(108));
  AttrValue fused_ops;
  for (const char* op : {"BiasAdd", "Add", "Relu"}) fused_ops.mutable_list()->add_s(op);
  auto fused = [&](const Tensor& bias, const Tensor& residual) {
    return RunOp("_FusedConv2D", {x, f, bias, residual},
                 {{"strides", AttrInts({1, 1, 1, 1})},
                  {"padding", AttrString("SAME")},
                  {"dilations", AttrInts({1, 1, 1, 1})},
                  {"data_format", AttrString("NHWC")},
                  {"fused_ops", fused_ops},
                  {"num_args", AttrInt(2)}});
  };
  StatusOr<Tensor> conv = RunConv("Conv2D", x, f, ConvCase());
  ASSERT_TRUE(conv.ok()) << conv.status();
  const std::vector<float> bias = {0.5f, -40.f, 2.f, -3.f};
  std::vector<float> residual(200);
  for (size_t i = 0; i < residual.size(); ++i) residual[i] = static_cast<float>(i % 7) - 3.f;
  StatusOr<Tensor> y =
      fused(MakeTensor<float>({4}, bias), MakeTensor<float>({2, 5, 5, 4}, residual));
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->shape(), TensorShape({2, 5, 5, 4}));
  for (int64_t i = 0; i < 200; ++i) {
    const float want = std::max(0.f, conv->data<float>()[i] + bias[i % 4] + residual[i]);
    EXPECT_FLOAT_EQ(y->data<float>()[i], want) << i;
  }

  StatusOr<Tensor> short_bias = fused(MakeTensor<float>({2}, std::vector<float>{1, 2}),
                                      MakeTensor<float>({2, 5, 5, 4}, residual));
  EXPECT_EQ(short_bias.status().message(),
            "bias must be a vector of the output's 4 channels, got [2]");
  StatusOr<Tensor> wrong_residual =
      fused(MakeTensor<float>({4}, bias), MakeTensor<float>({1, 5, 5, 4}, Seq(100)));
  EXPECT_EQ(wrong_residual.status().message(),
            "the residual addend has shape [1,5,5,4], the output [2,5,5,4]");
}

// The depthwise convolution runs its epilogue row by row inside the convolution: the same
// values as the plain op followed by BiasAdd and Relu6, on the strided path and the unit one.
TEST(ConvOpsTest, FusedDepthwiseEpilogueValues) {
  AttrValue fused_ops;
  for (const char* op : {"BiasAdd", "Relu6"}) fused_ops.mutable_list()->add_s(op);
  for (int64_t stride : {1, 2}) {
    SCOPED_TRACE(StrCat("stride ", stride));
    const Tensor x = MakeTensor<float>({2, 7, 9, 24}, RandomValues(2 * 7 * 9 * 24, 31));
    std::vector<float> f = RandomValues(3 * 3 * 24, 32);
    for (float& v : f) v *= 8.f;  // outputs beyond 6 and below 0
    const Tensor filter = MakeTensor<float>({3, 3, 24, 1}, f);
    const std::vector<float> bias = RandomValues(24, 33);
    ConvCase plain;
    plain.strides = {1, stride, stride, 1};
    StatusOr<Tensor> conv = RunConv("DepthwiseConv2dNative", x, filter, plain);
    ASSERT_TRUE(conv.ok()) << conv.status();
    StatusOr<Tensor> y =
        RunOp("_FusedDepthwiseConv2dNative", {x, filter, MakeTensor<float>({24}, bias)},
              {{"strides", AttrInts({1, stride, stride, 1})},
               {"padding", AttrString("SAME")},
               {"dilations", AttrInts({1, 1, 1, 1})},
               {"data_format", AttrString("NHWC")},
               {"fused_ops", fused_ops},
               {"num_args", AttrInt(1)}});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(y->shape(), conv->shape());
    int clipped = 0;
    for (int64_t i = 0; i < y->NumElements(); ++i) {
      const float sum = conv->data<float>()[i] + bias[i % 24];
      clipped += sum < 0.f || sum > 6.f;
      EXPECT_EQ(y->data<float>()[i], std::min(6.f, std::max(0.f, sum))) << i;
    }
    EXPECT_GT(clipped, 0);
  }
}

TEST(ConvOpsTest, ShapeFunction) {
  const OpRegistration* reg = OpRegistry::Global()->Find("Conv2D");
  ASSERT_NE(reg, nullptr);
  ::tensorflow::NodeDef node = MakeNode("Conv2D", {{"T", AttrType(::tensorflow::DT_FLOAT)},
                                                   {"strides", AttrInts({1, 1, 2, 2})},
                                                   {"padding", AttrString("SAME")},
                                                   {"data_format", AttrString("NCHW")}});
  InferenceContext c(node, {PartialTensorShape({-1, 3, 9, 8}), PartialTensorShape({3, 3, 3, 16})},
                     {}, 1);
  ASSERT_TRUE(reg->shape_fn(&c).ok());
  EXPECT_EQ(c.output(0).DebugString(), PartialTensorShape({-1, 16, 5, 4}).DebugString());
}

// graphrt's own fused block nodes refuse operands of the wrong shape by name (the remapper makes
// them with matching ones; a hand-written graph need not).
TEST(ConvOpsTest, FusedBlockNodesNameBadOperands) {
  auto ops = [](std::initializer_list<const char*> names) {
    AttrValue list;
    for (const char* n : names) list.mutable_list()->add_s(n);
    return list;
  };
  const std::vector<std::pair<std::string, AttrValue>> block = {
      {"strides", AttrInts({1, 1, 1, 1})},
      {"padding", AttrString("SAME")},
      {"fused_ops", ops({"BiasAdd", "Relu6"})},
      {"expand_fused_ops", ops({"BiasAdd", "Relu6"})}};
  std::vector<std::pair<std::string, AttrValue>> residual = block;
  residual.push_back({"project_fused_ops", ops({"BiasAdd", "Add"})});
  residual.push_back({"project_num_args", AttrInt(2)});
  const Tensor x = MakeTensor<float>({1, 4, 4, 3}, Seq(48));
  const Tensor we = MakeTensor<float>({1, 1, 3, 8}, Seq(24));
  const Tensor b8 = MakeTensor<float>({8}, Seq(8));
  const Tensor wd = MakeTensor<float>({3, 3, 8, 1}, Seq(72));
  const Tensor wp = MakeTensor<float>({1, 1, 8, 3}, Seq(24));
  const Tensor b3 = MakeTensor<float>({3}, Seq(3));
  auto message = [](const StatusOr<Tensor>& r) {
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  ASSERT_TRUE(RunOp("_GraphrtFusedExpandDepthwise", {x, we, b8, wd, b8}, block).ok());
  ASSERT_TRUE(
      RunOp("_GraphrtFusedInvertedResidual", {x, we, b8, wd, b8, wp, b3, x}, residual).ok());
  std::string m = message(RunOp("_GraphrtFusedExpandDepthwise",
                                {x, MakeTensor<float>({1, 1, 2, 8}, Seq(16)), b8, wd, b8}, block));
  EXPECT_TRUE(has(m, "the expansion filter must be [1, 1, 3, channels], got [1,1,2,8]")) << m;
  m = message(RunOp("_GraphrtFusedExpandDepthwise",
                    {x, we, b8, MakeTensor<float>({3, 3, 4, 1}, Seq(36)), b8}, block));
  EXPECT_TRUE(has(m, "the depthwise filter must be [rows, cols, 8, 1]")) << m;
  m = message(RunOp("_GraphrtFusedExpandDepthwise", {x, we, b8, wd, MakeTensor<float>({4}, Seq(4))},
                    block));
  EXPECT_TRUE(has(m, "bias must be a vector of the 8 channels, got [4]")) << m;
  m = message(RunOp("_GraphrtFusedInvertedResidual",
                    {x, we, b8, wd, b8, MakeTensor<float>({1, 1, 5, 3}, Seq(15)), b3, x},
                    residual));
  EXPECT_TRUE(has(m, "the projection filter must be [1, 1, 8, channels]")) << m;
  m = message(RunOp("_GraphrtFusedInvertedResidual",
                    {x, we, b8, wd, b8, wp, b3, MakeTensor<float>({1, 4, 4, 2}, Seq(32))},
                    residual));
  EXPECT_TRUE(has(m, "the residual addend has shape [1,4,4,2], the output [1,4,4,3]")) << m;

  const std::vector<std::pair<std::string, AttrValue>> scaled = {
      {"strides", AttrInts({1, 1, 1, 1})},
      {"padding", AttrString("VALID")},
      {"fused_ops", ops({"BiasAdd"})},
      {"num_args", AttrInt(1)}};
  const Tensor s = MakeTensor<float>({1, 1, 1, 3}, Seq(3));
  ASSERT_TRUE(RunOp("_GraphrtFusedChannelScaledConv2D",
                    {x, s, MakeTensor<float>({1, 1, 3, 3}, Seq(9)), b3}, scaled)
                  .ok());
  m = message(RunOp("_GraphrtFusedChannelScaledConv2D",
                    {x, s, MakeTensor<float>({3, 3, 3, 3}, Seq(81)), b3}, scaled));
  EXPECT_TRUE(has(m, "the filter must be [1, 1, 3, channels], got [3,3,3,3]")) << m;
  m = message(RunOp(
      "_GraphrtFusedChannelScaledConv2D",
      {x, MakeTensor<float>({1, 4, 2, 3}, Seq(24)), MakeTensor<float>({1, 1, 3, 3}, Seq(9)), b3},
      scaled));
  EXPECT_TRUE(has(m, "Incompatible shapes")) << m;
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
