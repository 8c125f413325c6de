#include <cmath>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/nn_test_util.h"

namespace graphrt {
namespace testing {
namespace {

// Expected values computed by TensorFlow 2.15.1 (tf.raw_ops.Softmax / LogSoftmax, CPU) on
// Seq(12, 3, 13, 6, 0.5) as [3, 4].
const std::vector<double> kSoftmax = {
    0.008651688694953918, 0.03877418115735054, 0.17377382516860962,  0.7788002490997314,
    0.8530453443527222,   0.00574777415022254, 0.025759737938642502, 0.11544713377952576,
    0.8530453443527222,   0.00574777415022254, 0.025759737938642502, 0.11544713377952576};

TEST(SoftmaxOpsTest, SoftmaxMatchesTensorFlow) {
  const std::vector<float> x = Seq(12, 3, 13, 6, 0.5f);
  StatusOr<Tensor> y = RunOp("Softmax", {MakeTensor<float>({3, 4}, x)});
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectAllClose(AsDoubles<float>(*y), kSoftmax, 1e-6);
  StatusOr<Tensor> d = RunOp("Softmax", {MakeTensor<double>({3, 4}, x)}, {}, 2);
  ASSERT_TRUE(d.ok()) << d.status();
  ExpectAllClose(AsDoubles<double>(*d), kSoftmax, 1e-6);
  StatusOr<Tensor> h = RunOp("Softmax", {MakeTensor<half>({3, 4}, x)});
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectAllClose(AsDoubles<half>(*h), kSoftmax, 2e-3);
  StatusOr<Tensor> bf = RunOp("Softmax", {MakeTensor<bfloat16>({3, 1, 4}, x)});
  ASSERT_TRUE(bf.ok()) << bf.status();
  EXPECT_EQ(bf->shape(), TensorShape({3, 1, 4}));
  ExpectAllClose(AsDoubles<bfloat16>(*bf), kSoftmax, 1e-2);
  StatusOr<Tensor> rank1 = RunOp("Softmax", {MakeTensor<float>({5}, Seq(5, 3, 13, 6, 0.5f))});
  ASSERT_TRUE(rank1.ok()) << rank1.status();
  ExpectAllClose(AsDoubles<float>(*rank1),
                 {0.001926733530126512, 0.00863501988351345, 0.038699474185705185,
                  0.17343902587890625, 0.7772997617721558},
                 1e-6);
}

TEST(SoftmaxOpsTest, LogSoftmaxMatchesTensorFlow) {
  StatusOr<Tensor> y = RunOp("LogSoftmax", {MakeTensor<float>({3, 4}, Seq(12, 3, 13, 6, 0.5f))});
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectAllClose(
      AsDoubles<float>(*y),
      {-4.750000476837158, -3.2500007152557373, -1.7500007152557373, -0.25000065565109253,
       -0.1589425951242447, -5.158942699432373, -3.658942699432373, -2.158942699432373,
       -0.1589425951242447, -5.158942699432373, -3.658942699432373, -2.158942699432373},
      1e-6);
  // Large logits stay finite: Seq(6, 3, 13, 6, 100).
  StatusOr<Tensor> big = RunOp("LogSoftmax", {MakeTensor<float>({2, 3}, Seq(6, 3, 13, 6, 100.0f))});
  ASSERT_TRUE(big.ok()) << big.status();
  ExpectAllClose(AsDoubles<float>(*big), {-600.0, -300.0, 0.0, -300.0, 0.0, -1000.0}, 1e-6);
}

// Rows of every length against a direct computation, over several threads.
TEST(SoftmaxOpsTest, ManyRowsMatchReference) {
  const int64_t rows = 300, cols = 37;
  const std::vector<float> x = RandomValues(rows * cols, 9);
  StatusOr<Tensor> y = RunOp("Softmax", {MakeTensor<float>({rows, cols}, x)}, {}, 4);
  StatusOr<Tensor> ly = RunOp("LogSoftmax", {MakeTensor<float>({rows, cols}, x)}, {}, 4);
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_TRUE(ly.ok()) << ly.status();
  std::vector<double> expected, log_expected;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) {
      expected.push_back(std::exp(static_cast<double>(x[r * cols + c])) / sum);
      log_expected.push_back(x[r * cols + c] - std::log(sum));
    }
  }
  ExpectAllClose(AsDoubles<float>(*y), expected, 1e-5);
  ExpectAllClose(AsDoubles<float>(*ly), log_expected, 1e-5, 1e-6);
}

TEST(SoftmaxOpsTest, EmptyAndScalar) {
  StatusOr<Tensor> empty = RunOp("Softmax", {MakeTensor<float>({0, 3}, Seq(0))});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
  StatusOr<Tensor> no_classes = RunOp("LogSoftmax", {MakeTensor<float>({3, 0}, Seq(0))});
  ASSERT_TRUE(no_classes.ok()) << no_classes.status();
  EXPECT_EQ(no_classes->shape(), TensorShape({3, 0}));
  StatusOr<Tensor> scalar = RunOp("Softmax", {MakeScalar<float>(1.0f)});
  EXPECT_EQ(scalar.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(scalar.status().message(), "logits must have >= 1 dimension, got []");
}

StatusOr<Tensor> BiasAdd(const Tensor& value, const Tensor& bias, const std::string& format,
                         int threads = 1) {
  return RunOp("BiasAdd", {value, bias}, {{"data_format", AttrString(format)}}, threads);
}

TEST(SoftmaxOpsTest, BiasAdd) {
  const std::vector<float> x = Seq(24);
  const std::vector<float> b = {10, 20, 30};
  StatusOr<Tensor> nhwc =
      BiasAdd(MakeTensor<float>({2, 4, 3}, x), MakeTensor<float>({3}, b), "NHWC");
  ASSERT_TRUE(nhwc.ok()) << nhwc.status();
  StatusOr<Tensor> nchw =
      BiasAdd(MakeTensor<float>({2, 3, 4}, x), MakeTensor<float>({3}, b), "NCHW", 2);
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  for (int64_t i = 0; i < 24; ++i) {
    EXPECT_EQ(nhwc->data<float>()[i], x[i] + b[i % 3]);
    EXPECT_EQ(nchw->data<float>()[i], x[i] + b[(i / 4) % 3]);
  }
  // Rank 2 with NCHW: the channels are the last dim either way (as TensorFlow's kernel does).
  StatusOr<Tensor> rank2 = BiasAdd(MakeTensor<int32_t>({2, 3}, std::vector<int>{0, 1, 2, 3, 4, 5}),
                                   MakeTensor<int32_t>({3}, std::vector<int>{10, 20, 30}), "NCHW");
  ASSERT_TRUE(rank2.ok()) << rank2.status();
  EXPECT_EQ(Values<int32_t>(*rank2), (std::vector<int32_t>{10, 21, 32, 13, 24, 35}));
  StatusOr<Tensor> u8 =
      RunOp("BiasAddV1", {MakeTensor<uint8_t>({2, 2}, std::vector<int>{1, 2, 3, 4}),
                          MakeTensor<uint8_t>({2}, std::vector<int>{250, 5})});
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_EQ(Values<uint8_t>(*u8), (std::vector<uint8_t>{251, 7, 253, 9}));
  StatusOr<Tensor> h = BiasAdd(MakeTensor<half>({2, 3}, Seq(6)), MakeTensor<half>({3}, b), "NHWC");
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectAllClose(AsDoubles<half>(*h), {8.75, 20.5, 29.5, 11.25, 20.25, 29.25}, 0);
}

TEST(SoftmaxOpsTest, BiasAddErrors) {
  EXPECT_EQ(BiasAdd(MakeTensor<float>({3}, Seq(3)), MakeTensor<float>({3}, Seq(3)), "NHWC")
                .status()
                .message(),
            "Input tensor must be at least 2D: [3]");
  EXPECT_EQ(BiasAdd(MakeTensor<float>({2, 3}, Seq(6)), MakeTensor<float>({1, 3}, Seq(3)), "NHWC")
                .status()
                .message(),
            "Biases must be 1D: [1,3]");
  EXPECT_EQ(BiasAdd(MakeTensor<float>({2, 3, 4}, Seq(24)), MakeTensor<float>({4}, Seq(4)), "NCHW")
                .status()
                .message(),
            "Must provide as many biases as the last dimension of the input tensor: [4] vs. "
            "[2,3,4]");
  StatusOr<Tensor> empty =
      BiasAdd(MakeTensor<float>({0, 3}, Seq(0)), MakeTensor<float>({3}, Seq(3)), "NHWC");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
