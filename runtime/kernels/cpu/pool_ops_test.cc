#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/kernels/cpu/nn_test_util.h"

namespace graphrt {
namespace testing {
namespace {

using ::tensorflow::AttrValue;

StatusOr<Tensor> Pool(const std::string& op, const Tensor& x, std::vector<int64_t> ksize,
                      std::vector<int64_t> strides, const std::string& padding,
                      const std::string& format = "NHWC",
                      std::vector<int64_t> explicit_paddings = {}, int threads = 1) {
  std::vector<std::pair<std::string, AttrValue>> attrs = {{"ksize", AttrInts(ksize)},
                                                          {"strides", AttrInts(strides)},
                                                          {"padding", AttrString(padding)},
                                                          {"data_format", AttrString(format)}};
  if (!explicit_paddings.empty()) {
    attrs.push_back({"explicit_paddings", AttrInts(explicit_paddings)});
  }
  return RunOp(op, {x}, attrs, threads);
}

// The pooling input of the expectations below: Seq(50, 3, 13, 6, 0.5) as [1, 5, 5, 2].
std::vector<float> PoolInput(int64_t n = 50) { return Seq(n, 3, 13, 6, 0.5f); }

// Expected values computed by TensorFlow 2.15.1 (tf.raw_ops.MaxPool / AvgPool, CPU).
const std::vector<double> kAvgSameK3S2 = {-0.5,
                                          -0.625,
                                          0.75,
                                          0.0833333358168602,
                                          0.375,
                                          0.25,
                                          0.3333333432674408,
                                          -0.3333333432674408,
                                          -0.2222222238779068,
                                          -0.1666666716337204,
                                          -0.4166666567325592,
                                          0.0,
                                          0.625,
                                          0.5,
                                          0.25,
                                          0.6666666865348816,
                                          -0.125,
                                          -0.25};

TEST(PoolOpsTest, MatchesTensorFlow) {
  const Tensor x = MakeTensor<float>({1, 5, 5, 2}, PoolInput());
  StatusOr<Tensor> max_same = Pool("MaxPool", x, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(max_same.ok()) << max_same.status();
  EXPECT_EQ(max_same->shape(), TensorShape({1, 3, 3, 2}));
  ExpectAllClose(
      AsDoubles<float>(*max_same),
      {2.0, 1.5, 3.0, 3.0, 2.5, 3.0, 3.0, 2.5, 2.5, 3.0, 2.0, 3.0, 3.0, 3.0, 2.5, 3.0, 2.0, 2.5},
      0);
  // SAME averages divide by the pixels inside the image only.
  StatusOr<Tensor> avg_same = Pool("AvgPool", x, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(avg_same.ok()) << avg_same.status();
  ExpectAllClose(AsDoubles<float>(*avg_same), kAvgSameK3S2, 1e-6);

  StatusOr<Tensor> max_valid = Pool("MaxPool", x, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  ASSERT_TRUE(max_valid.ok()) << max_valid.status();
  EXPECT_EQ(max_valid->shape(), TensorShape({1, 4, 4, 2}));
  ExpectAllClose(AsDoubles<float>(*max_valid),
                 {2.0, 1.5, 3.0, 1.5, 3.0, 3.0, 2.5, 3.0, 2.0, 2.5, 2.0, 2.0, 1.5, 3.0, 1.5, 3.0,
                  3.0, 2.5, 2.5, 2.0, 2.5, 2.0, 2.0, 1.5, 3.0, 3.0, 2.5, 3.0, 2.5, 2.5, 2.0, 2.5},
                 0);
  StatusOr<Tensor> avg_valid = Pool("AvgPool", x, {1, 2, 3, 1}, {1, 2, 1, 1}, "VALID");
  ASSERT_TRUE(avg_valid.ok()) << avg_valid.status();
  EXPECT_EQ(avg_valid->shape(), TensorShape({1, 2, 3, 2}));
  ExpectAllClose(AsDoubles<float>(*avg_valid),
                 {-0.0833333358168602, -0.75, 0.75, 0.0833333358168602, 0.5, -0.1666666716337204,
                  0.6666666865348816, 0.0, -0.6666666865348816, -0.25, 0.1666666716337204, -0.5},
                 1e-6);
  StatusOr<Tensor> max_explicit =
      Pool("MaxPool", x, {1, 3, 2, 1}, {1, 2, 2, 1}, "EXPLICIT", "NHWC", {0, 0, 2, 1, 1, 0, 0, 0});
  ASSERT_TRUE(max_explicit.ok()) << max_explicit.status();
  EXPECT_EQ(max_explicit->shape(), TensorShape({1, 3, 3, 2}));
  ExpectAllClose(
      AsDoubles<float>(*max_explicit),
      {-3.0, -1.5, 3.0, 1.5, 2.5, 1.0, 1.0, 2.5, 3.0, 2.0, 2.5, 3.0, 3.0, 2.5, 2.5, 3.0, 2.0, 2.5},
      0);
  StatusOr<Tensor> depth = Pool("MaxPool", MakeTensor<float>({1, 2, 2, 6}, PoolInput(24)),
                                {1, 1, 1, 3}, {1, 1, 1, 3}, "VALID");
  ASSERT_TRUE(depth.ok()) << depth.status();
  EXPECT_EQ(depth->shape(), TensorShape({1, 2, 2, 2}));
  ExpectAllClose(AsDoubles<float>(*depth), {0.0, 3.0, 2.5, 0.5, 2.0, 3.0, 1.0, 2.5}, 0);
}

TEST(PoolOpsTest, OtherTypes) {
  const std::vector<int> xi8 = {-6, -3, 0, 3, 6, -4, -1, 2, 5, -5, -2, 1, 4, -6, -3, 0};
  StatusOr<Tensor> i8 =
      Pool("MaxPool", MakeTensor<int8_t>({1, 4, 4, 1}, xi8), {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_EQ(Values<int8_t>(*i8), (std::vector<int8_t>{6, 3, 5, 1}));
  StatusOr<Tensor> h = Pool("AvgPool", MakeTensor<half>({1, 5, 5, 2}, PoolInput()), {1, 3, 3, 1},
                            {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectAllClose(AsDoubles<half>(*h), kAvgSameK3S2, 1e-3);
  StatusOr<Tensor> bf = Pool("MaxPool", MakeTensor<bfloat16>({1, 5, 5, 2}, PoolInput()),
                             {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  ASSERT_TRUE(bf.ok()) << bf.status();
  ExpectAllClose(
      AsDoubles<bfloat16>(*bf),
      {2.0, 1.5, 3.0, 3.0, 2.5, 3.0, 3.0, 2.5, 2.5, 3.0, 2.0, 3.0, 3.0, 3.0, 2.5, 3.0, 2.0, 2.5},
      0);
}

// uint8 and quint8 (codes, which the int8 pass pools) take 16 channels at a time and the rest one
// by one: both give float MaxPool's values, SAME and VALID.
TEST(PoolOpsTest, BytesMatchFloat) {
  const int64_t depth = 16 + 3;
  std::vector<float> x;
  for (float v : RandomValues(2 * 5 * 6 * depth, 7)) x.push_back(std::floor((v + 1.0f) * 127.9f));
  const TensorShape shape({2, 5, 6, depth});
  for (const char* padding : {"SAME", "VALID"}) {
    StatusOr<Tensor> f =
        Pool("MaxPool", MakeTensor<float>(shape, x), {1, 3, 2, 1}, {1, 2, 1, 1}, padding);
    ASSERT_TRUE(f.ok()) << f.status();
    Tensor codes = MakeTensor<uint8_t>(shape, x);
    for (DataType type : {::tensorflow::DT_UINT8, ::tensorflow::DT_QUINT8}) {
      Tensor in(type, shape);
      std::copy(codes.data<uint8_t>(), codes.data<uint8_t>() + codes.NumElements(),
                in.data<uint8_t>());
      StatusOr<Tensor> b = Pool("MaxPool", in, {1, 3, 2, 1}, {1, 2, 1, 1}, padding);
      ASSERT_TRUE(b.ok()) << b.status();
      EXPECT_EQ(b->dtype(), type);
      ExpectAllClose(AsDoubles<uint8_t>(*b), AsDoubles<float>(*f), 0);
    }
  }
}

// Float max pooling takes four channels at a time and the rest one by one: the values of double
// max pooling (the Eigen expression), SAME and VALID, windows over the edges.
TEST(PoolOpsTest, FloatMaxMatchesDouble) {
  const int64_t depth = 8 + 3;
  const std::vector<float> x = RandomValues(2 * 7 * 6 * depth, 9);
  const TensorShape shape({2, 7, 6, depth});
  for (const char* padding : {"SAME", "VALID"}) {
    StatusOr<Tensor> f =
        Pool("MaxPool", MakeTensor<float>(shape, x), {1, 3, 2, 1}, {1, 2, 1, 1}, padding);
    StatusOr<Tensor> d =
        Pool("MaxPool", MakeTensor<double>(shape, x), {1, 3, 2, 1}, {1, 2, 1, 1}, padding);
    ASSERT_TRUE(f.ok() && d.ok());
    ASSERT_EQ(f->shape(), d->shape());
    ExpectAllClose(AsDoubles<float>(*f), AsDoubles<double>(*d), 0);
  }
}

// float pooling over channel counts that fill the vector kernels (tap_sum.h: four vectors, three,
// and a tail) gives, bit for bit, a plain loop's result: the max as std::max from the first tap on
// (a NaN taken first stays, a NaN coming later is passed over), the mean as the taps added in
// order from 0 and divided by their count. Strides, SAME and VALID, 1 and 2 threads.
TEST(PoolOpsTest, FloatPoolingOverWideChannelsMatchesPlainLoops) {
  const int64_t batch = 2, rows = 9, cols = 11, depth = 4 * 16 + 3 * 16 + 5;
  std::vector<float> x = RandomValues(batch * rows * cols * depth, 21);
  for (size_t i = 0; i < x.size(); i += 97) x[i] = std::nanf("");
  const Tensor input = MakeTensor<float>({batch, rows, cols, depth}, x);
  struct Case {
    int64_t window_rows, window_cols, stride;
    const char* padding;
  };
  int cases = 0;
  for (const Case& c : {Case{3, 3, 1, "SAME"}, Case{3, 3, 2, "VALID"}, Case{2, 2, 2, "SAME"},
                        Case{3, 2, 1, "VALID"}, Case{5, 5, 2, "SAME"}}) {
    for (const char* op : {"MaxPool", "AvgPool"}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(StrCat(op, " ", c.window_rows, "x", c.window_cols, " stride ", c.stride, " ",
                            c.padding, ", ", threads, " threads"));
        StatusOr<Tensor> got = Pool(op, input, {1, c.window_rows, c.window_cols, 1},
                                    {1, c.stride, c.stride, 1}, c.padding, "NHWC", {}, threads);
        ASSERT_TRUE(got.ok()) << got.status();
        const bool same = std::string(c.padding) == "SAME";
        const int64_t out_rows =
            same ? (rows + c.stride - 1) / c.stride : (rows - c.window_rows) / c.stride + 1;
        const int64_t out_cols =
            same ? (cols + c.stride - 1) / c.stride : (cols - c.window_cols) / c.stride + 1;
        ASSERT_EQ(got->shape(), TensorShape({batch, out_rows, out_cols, depth}));
        const int64_t pad_top =
            same ? std::max<int64_t>(0, (out_rows - 1) * c.stride + c.window_rows - rows) / 2 : 0;
        const int64_t pad_left =
            same ? std::max<int64_t>(0, (out_cols - 1) * c.stride + c.window_cols - cols) / 2 : 0;
        int64_t mismatches = 0;
        for (int64_t n = 0; n < batch; ++n) {
          for (int64_t oh = 0; oh < out_rows; ++oh) {
            for (int64_t ow = 0; ow < out_cols; ++ow) {
              for (int64_t k = 0; k < depth; ++k) {
                float acc = 0;
                int64_t count = 0;
                for (int64_t ih = oh * c.stride - pad_top;
                     ih < oh * c.stride - pad_top + c.window_rows; ++ih) {
                  for (int64_t iw = ow * c.stride - pad_left;
                       iw < ow * c.stride - pad_left + c.window_cols; ++iw) {
                    if (ih < 0 || ih >= rows || iw < 0 || iw >= cols) continue;
                    const float v = x[((n * rows + ih) * cols + iw) * depth + k];
                    if (std::string(op) == "MaxPool") {
                      acc = count == 0 ? v : std::max(acc, v);
                    } else {
                      acc += v;
                    }
                    ++count;
                  }
                }
                if (std::string(op) == "AvgPool") acc /= static_cast<float>(count);
                const float y =
                    got->data<float>()[((n * out_rows + oh) * out_cols + ow) * depth + k];
                const bool equal = std::isnan(acc) ? std::isnan(y) : y == acc;
                mismatches += !equal;
              }
            }
          }
        }
        EXPECT_EQ(mismatches, 0);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 20);
}

// NCHW (rejected by TensorFlow's CPU kernels) gives the NHWC result, transposed.
TEST(PoolOpsTest, NchwMatchesNhwc) {
  const int64_t n = 2, h = 9, w = 7, c = 5;
  const std::vector<float> x = RandomValues(n * h * w * c, 5);
  std::vector<float> x_nchw(x.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        for (int64_t k = 0; k < c; ++k)
          x_nchw[((b * c + k) * h + i) * w + j] = x[((b * h + i) * w + j) * c + k];
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> nhwc = Pool(op, MakeTensor<float>({n, h, w, c}, x), {1, 3, 2, 1}, {1, 2, 2, 1},
                                 "SAME", "NHWC", {}, 3);
    StatusOr<Tensor> nchw = Pool(op, MakeTensor<float>({n, c, h, w}, x_nchw), {1, 1, 3, 2},
                                 {1, 1, 2, 2}, "SAME", "NCHW", {}, 3);
    ASSERT_TRUE(nhwc.ok()) << nhwc.status();
    ASSERT_TRUE(nchw.ok()) << nchw.status();
    const int64_t oh = nhwc->dim_size(1), ow = nhwc->dim_size(2);
    EXPECT_EQ(nchw->shape(), TensorShape({n, c, oh, ow}));
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          for (int64_t k = 0; k < c; ++k)
            EXPECT_EQ(nhwc->data<float>()[((b * oh + i) * ow + j) * c + k],
                      nchw->data<float>()[((b * c + k) * oh + i) * ow + j]);
  }
}

TEST(PoolOpsTest, MaxPoolV2TakesWindowAsInputs) {
  ::tensorflow::NodeDef node = MakeNode(
      "MaxPoolV2", {{"T", AttrType(::tensorflow::DT_FLOAT)}, {"padding", AttrString("SAME")}});
  StatusOr<std::vector<Tensor>> out = RunKernel(
      node, {MakeTensor<float>({1, 5, 5, 2}, PoolInput()), Tensor::Vector<int32_t>({1, 3, 3, 1}),
             Tensor::Vector<int32_t>({1, 2, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectAllClose(
      AsDoubles<float>((*out)[0]),
      {2.0, 1.5, 3.0, 3.0, 2.5, 3.0, 3.0, 2.5, 2.5, 3.0, 2.0, 3.0, 3.0, 3.0, 2.5, 3.0, 2.0, 2.5},
      0);
  StatusOr<std::vector<Tensor>> bad =
      RunKernel(node, {MakeTensor<float>({1, 5, 5, 2}, PoolInput()),
                       Tensor::Vector<int32_t>({1, 3, 3}), Tensor::Vector<int32_t>({1, 2, 2, 1})});
  EXPECT_EQ(bad.status().message(), "Sliding window ksize field must specify 4 dimensions");
}

TEST(PoolOpsTest, EmptyAndErrors) {
  StatusOr<Tensor> empty =
      Pool("MaxPool", MakeTensor<float>({0, 3, 3, 1}, Seq(0)), {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 2, 2, 1}));

  const Tensor x = MakeTensor<float>({1, 3, 3, 1}, Seq(9));
  EXPECT_EQ(Pool("MaxPool", x, {2, 1, 1, 1}, {1, 1, 1, 1}, "SAME").status().code(),
            Code::kUnimplemented);
  EXPECT_EQ(Pool("MaxPool", x, {1, 5, 5, 1}, {1, 1, 1, 1}, "VALID").status().message(),
            "Computed output size would be negative: -1 [input_size: 3, effective_filter_size: "
            "5, stride: 1]");
  EXPECT_EQ(Pool("MaxPool", x, {1, 2, 2, 1}, {1, 0, 1, 1}, "SAME").status().message(),
            "Stride must be > 0, but got 0");
  EXPECT_TRUE(ErrorEndsWith(Pool("MaxPool", x, {1, 2, 2, 1, 1}, {1, 1, 1, 1}, "SAME").status(),
                            "Sliding window ksize field must specify 4 dimensions"));
  EXPECT_TRUE(ErrorEndsWith(
      Pool("MaxPool", x, {1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT", "NHWC", {0, 0, 0, 2, 1, 1, 0, 0})
          .status(),
      "Bottom padding 2 needs to be smaller than the window size 2"));
  EXPECT_EQ(
      Pool("AvgPool", MakeTensor<float>({1, 3, 3, 4}, Seq(36)), {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID")
          .status()
          .code(),
      Code::kUnimplemented);
  EXPECT_EQ(
      Pool("MaxPool", MakeTensor<float>({1, 3, 3, 5}, Seq(45)), {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID")
          .status()
          .message(),
      "Depthwise max pooling requires the depth window to evenly divide the input depth");
  EXPECT_EQ(
      Pool("MaxPool", MakeTensor<float>({3, 3, 1}, Seq(9)), {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID")
          .status()
          .code(),
      Code::kInvalidArgument);
}

TEST(PoolOpsTest, ShapeFunction) {
  const OpRegistration* reg = OpRegistry::Global()->Find("MaxPool");
  ASSERT_NE(reg, nullptr);
  ::tensorflow::NodeDef node = MakeNode("MaxPool", {{"ksize", AttrInts({1, 1, 3, 3})},
                                                    {"strides", AttrInts({1, 1, 2, 2})},
                                                    {"padding", AttrString("VALID")},
                                                    {"data_format", AttrString("NCHW")}});
  InferenceContext c(node, {PartialTensorShape({-1, 8, 9, 10})}, {}, 1);
  ASSERT_TRUE(reg->shape_fn(&c).ok());
  EXPECT_EQ(c.output(0).DebugString(), PartialTensorShape({-1, 8, 4, 4}).DebugString());
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
