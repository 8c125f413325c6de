#include <gtest/gtest.h>

#include "runtime/kernels/cpu/nn_test_util.h"

namespace graphrt {
namespace testing {
namespace {

using ::tensorflow::DT_FLOAT;
using ::tensorflow::DT_INT32;

// Row-major [rows, cols] -> [cols, rows].
template <typename V>
std::vector<V> Transposed(const std::vector<V>& v, int64_t rows, int64_t cols) {
  std::vector<V> t(v.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = v[i * cols + j];
  }
  return t;
}

// op(a) * op(b) in double.
std::vector<double> ReferenceProduct(const std::vector<float>& a, const std::vector<float>& b,
                                     int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += static_cast<double>(ta ? a[p * m + i] : a[i * k + p]) *
               (tb ? b[j * k + p] : b[p * n + j]);
      }
      c[i * n + j] = sum;
    }
  }
  return c;
}

StatusOr<Tensor> MatMul(const Tensor& a, const Tensor& b, bool ta, bool tb, int threads = 1) {
  return RunOp("MatMul", {a, b}, {{"transpose_a", AttrBool(ta)}, {"transpose_b", AttrBool(tb)}},
               threads);
}

// Expected values computed by TensorFlow 2.15.1: MatMul of Seq(6) as [2,3] by FilterSeq(12) as
// [3,4] (the same for every transposition of the inputs).
const std::vector<double> kProduct = {2.125, -1.0, 0.25, -0.25, -2.25, 1.375, 0.625, -2.75};

TEST(MatMulOpsTest, FloatEveryTransposition) {
  const std::vector<float> a = Seq(6), b = FilterSeq(12);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(StrCat("ta=", ta, " tb=", tb));
      Tensor ta_t =
          ta ? MakeTensor<float>({3, 2}, Transposed(a, 2, 3)) : MakeTensor<float>({2, 3}, a);
      Tensor tb_t =
          tb ? MakeTensor<float>({4, 3}, Transposed(b, 3, 4)) : MakeTensor<float>({3, 4}, b);
      StatusOr<Tensor> y = MatMul(ta_t, tb_t, ta, tb);
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ(y->shape(), TensorShape({2, 4}));
      ExpectAllClose(AsDoubles<float>(*y), kProduct, 1e-6);
    }
  }
}

TEST(MatMulOpsTest, OtherTypes) {
  const std::vector<float> a = Seq(6), b = FilterSeq(12);
  StatusOr<Tensor> h =
      MatMul(MakeTensor<half>({2, 3}, a), MakeTensor<half>({3, 4}, b), false, false);
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectAllClose(AsDoubles<half>(*h), kProduct, 1e-3);
  StatusOr<Tensor> bf = MatMul(MakeTensor<bfloat16>({3, 2}, Transposed(a, 2, 3)),
                               MakeTensor<bfloat16>({3, 4}, b), true, false);
  ASSERT_TRUE(bf.ok()) << bf.status();
  ExpectAllClose(AsDoubles<bfloat16>(*bf), kProduct, 1e-2);
  StatusOr<Tensor> d = MatMul(MakeTensor<double>({2, 3}, a),
                              MakeTensor<double>({4, 3}, Transposed(b, 3, 4)), false, true);
  ASSERT_TRUE(d.ok()) << d.status();
  ExpectAllClose(AsDoubles<double>(*d), kProduct, 1e-12);

  // TensorFlow 2.15.1: MatMul of int32 Seq(6) * 4 by FilterSeq(12) * 2.
  const std::vector<int> ai = {-5, 2, -2, 5, 1, -3};
  const std::vector<int> bi = {-3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3};
  const std::vector<int> expected = {17, -8, 2, -2, -18, 11, 5, -22};
  StatusOr<Tensor> i32 =
      MatMul(MakeTensor<int32_t>({2, 3}, ai), MakeTensor<int32_t>({3, 4}, bi), false, false);
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_EQ(Values<int32_t>(*i32), std::vector<int32_t>(expected.begin(), expected.end()));
  StatusOr<Tensor> i64 = MatMul(MakeTensor<int64_t>({3, 2}, Transposed(ai, 2, 3)),
                                MakeTensor<int64_t>({4, 3}, Transposed(bi, 3, 4)), true, true);
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_EQ(Values<int64_t>(*i64), std::vector<int64_t>(expected.begin(), expected.end()));
}

// Shapes that take each path of gemm.h: matrix-vector, row blocks, column blocks, one block.
TEST(MatMulOpsTest, LargeProductsMatchReference) {
  struct Shape {
    int64_t m, k, n;
  };
  for (const Shape& s : {Shape{1, 784, 256}, Shape{67, 300, 70}, Shape{5, 200, 300}, Shape{3, 7, 2},
                         Shape{130, 64, 1}}) {
    const std::vector<float> a = RandomValues(s.m * s.k, 1), b = RandomValues(s.k * s.n, 2);
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(StrCat(s.m, "x", s.k, "x", s.n, " ta=", ta, " tb=", tb));
        Tensor at = ta ? MakeTensor<float>({s.k, s.m}, a) : MakeTensor<float>({s.m, s.k}, a);
        Tensor bt = tb ? MakeTensor<float>({s.n, s.k}, b) : MakeTensor<float>({s.k, s.n}, b);
        const std::vector<double> expected = ReferenceProduct(a, b, s.m, s.k, s.n, ta, tb);
        for (int threads : {1, 4}) {
          StatusOr<Tensor> y = MatMul(at, bt, ta, tb, threads);
          ASSERT_TRUE(y.ok()) << y.status();
          EXPECT_EQ(y->shape(), TensorShape({s.m, s.n}));
          ExpectAllClose(AsDoubles<float>(*y), expected, 1e-5, 1e-5);
        }
        // double copies transposed operands instead of using Eigen's transposed kernels.
        StatusOr<Tensor> d = MatMul(
            ta ? MakeTensor<double>({s.k, s.m}, a) : MakeTensor<double>({s.m, s.k}, a),
            tb ? MakeTensor<double>({s.n, s.k}, b) : MakeTensor<double>({s.k, s.n}, b), ta, tb, 4);
        ASSERT_TRUE(d.ok()) << d.status();
        ExpectAllClose(Values<double>(*d), expected, 1e-12, 1e-12);
      }
    }
  }
}

TEST(MatMulOpsTest, EmptyAndZeroInnerDimension) {
  StatusOr<Tensor> y = MatMul(MakeTensor<float>({2, 0}, std::vector<float>{}),
                              MakeTensor<float>({0, 3}, std::vector<float>{}), false, false);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<float>(*y), std::vector<float>(6, 0.0f));
  StatusOr<Tensor> e =
      MatMul(MakeTensor<float>({0, 4}, std::vector<float>{}),
             MakeTensor<float>({4, 3}, std::vector<float>(12, 1.0f)), false, false);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), TensorShape({0, 3}));
}

TEST(MatMulOpsTest, BadShapesAreErrors) {
  StatusOr<Tensor> mismatch =
      MatMul(MakeTensor<float>({2, 3}, Seq(6)), MakeTensor<float>({4, 5}, Seq(20)), false, false);
  EXPECT_EQ(mismatch.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(mismatch.status().message(), "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  StatusOr<Tensor> rank1 =
      MatMul(MakeTensor<float>({3}, Seq(3)), MakeTensor<float>({3}, Seq(3)), false, false);
  EXPECT_EQ(rank1.status().code(), Code::kInvalidArgument);
  StatusOr<Tensor> rank3 =
      MatMul(MakeTensor<float>({1, 2, 3}, Seq(6)), MakeTensor<float>({3, 2}, Seq(6)), false, false);
  EXPECT_EQ(rank3.status().code(), Code::kInvalidArgument);
}

StatusOr<Tensor> BatchMatMul(const std::string& op, const Tensor& x, const Tensor& y,
                             bool adj_x = false, bool adj_y = false, int threads = 1) {
  std::vector<std::pair<std::string, ::tensorflow::AttrValue>> attrs = {{"adj_x", AttrBool(adj_x)},
                                                                        {"adj_y", AttrBool(adj_y)}};
  if (op == "BatchMatMulV3") {
    attrs.push_back({"Ta", AttrType(x.dtype())});
    attrs.push_back({"Tb", AttrType(y.dtype())});
    attrs.push_back({"Tout", AttrType(x.dtype())});
  }
  return RunOp(op, {x, y}, attrs, threads);
}

TEST(MatMulOpsTest, BatchMatMulV2Broadcasts) {
  // TensorFlow 2.15.1: BatchMatMulV2(Seq(12) as [2,1,2,3], FilterSeq(18) as [3,3,2]).
  StatusOr<Tensor> y = BatchMatMul("BatchMatMulV2", MakeTensor<float>({2, 1, 2, 3}, Seq(12)),
                                   MakeTensor<float>({3, 3, 2}, FilterSeq(18)));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({2, 3, 2, 2}));
  ExpectAllClose(AsDoubles<float>(*y),
                 {1.125, -2.0, -3.0, 0.625, 1.625, 1.125, 0.375, -3.0, -1.375, 1.625, 0.25, 0.375,
                  -3.0,  0.5,  -3.0, 0.375, 0.5,   -3.0,  0.625, -3.0, 0.5,    0.5,   0.75, 0.625},
                 1e-6);
  // With adj_x and adj_y: Seq(12) as [2,1,3,2], FilterSeq(18) as [3,2,3].
  StatusOr<Tensor> adj = BatchMatMul("BatchMatMulV3", MakeTensor<float>({2, 1, 3, 2}, Seq(12)),
                                     MakeTensor<float>({3, 2, 3}, FilterSeq(18)), true, true);
  ASSERT_TRUE(adj.ok()) << adj.status();
  EXPECT_EQ(adj->shape(), TensorShape({2, 3, 2, 2}));
  ExpectAllClose(AsDoubles<float>(*adj),
                 {1.375, 0.625,  0.5,  1.0, 1.625, 0.875, -2.875, -2.375, -0.75, -1.5, 0.75, 1.25,
                  -2.5,  -2.625, 0.75, 0.5, 0.75,  0.625, -2.375, -2.625, 1.375, 1.25, 1.5,  1.25},
                 1e-6);
}

TEST(MatMulOpsTest, BatchMatMulTypes) {
  // TensorFlow 2.15.1: BatchMatMul on bfloat16 Seq(12) as [2,2,3] and FilterSeq(12) as [2,3,2].
  StatusOr<Tensor> bf = BatchMatMul("BatchMatMul", MakeTensor<bfloat16>({2, 2, 3}, Seq(12)),
                                    MakeTensor<bfloat16>({2, 3, 2}, FilterSeq(12)));
  ASSERT_TRUE(bf.ok()) << bf.status();
  ExpectAllClose(AsDoubles<bfloat16>(*bf), {1.125, -2.0, -3.0, 0.625, 0.5, -3.0, 0.625, -3.0},
                 1e-2);

  // TensorFlow 2.15.1: BatchMatMulV3 int8 x uint8 -> int32.
  const std::vector<int> x8 = {-5, 2, -2, 5, 1, -3, 4, 0, -4, 3, -1, -5};
  const std::vector<int> y8 = {0, 5, 3, 1, 6, 4, 2, 0, 5, 3, 1, 6};
  ::tensorflow::NodeDef node = MakeNode("BatchMatMulV3", {{"Ta", AttrType(::tensorflow::DT_INT8)},
                                                          {"Tb", AttrType(::tensorflow::DT_UINT8)},
                                                          {"Tout", AttrType(DT_INT32)}});
  StatusOr<std::vector<Tensor>> out =
      RunKernel(node, {MakeTensor<int8_t>({2, 2, 3}, x8), MakeTensor<uint8_t>({2, 3, 2}, y8)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DT_INT32);
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{-6, -31, -15, 14, 4, -24, -4, -33}));

  StatusOr<Tensor> i16 = BatchMatMul(
      "BatchMatMulV2", MakeTensor<int16_t>({1, 2, 3}, std::vector<int>(x8.begin(), x8.begin() + 6)),
      MakeTensor<int16_t>({3, 2}, std::vector<int>(y8.begin(), y8.begin() + 6)));
  ASSERT_TRUE(i16.ok()) << i16.status();
  EXPECT_EQ(Values<int16_t>(*i16), (std::vector<int16_t>{-6, -31, -15, 14}));
}

// Many small products go to threads whole; compare against the reference per batch.
TEST(MatMulOpsTest, ManySmallProducts) {
  const int64_t batches = 37, m = 3, k = 4, n = 5;
  const std::vector<float> x = RandomValues(batches * m * k, 3), y = RandomValues(k * n, 4);
  StatusOr<Tensor> out = BatchMatMul("BatchMatMulV2", MakeTensor<float>({batches, m, k}, x),
                                     MakeTensor<float>({k, n}, y), false, false, 4);
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> expected;
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<float> xb(x.begin() + b * m * k, x.begin() + (b + 1) * m * k);
    for (double v : ReferenceProduct(xb, y, m, k, n, false, false)) expected.push_back(v);
  }
  ExpectAllClose(AsDoubles<float>(*out), expected, 1e-5, 1e-6);
}

TEST(MatMulOpsTest, BatchShapeErrors) {
  StatusOr<Tensor> v1_broadcast = BatchMatMul("BatchMatMul", MakeTensor<float>({2, 2, 3}, Seq(12)),
                                              MakeTensor<float>({1, 3, 5}, Seq(15)));
  EXPECT_EQ(v1_broadcast.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(v1_broadcast.status().message(),
            "In[0].dim(0) and In[1].dim(0) must be the same: [2,2,3] vs [1,3,5]");
  StatusOr<Tensor> incompatible =
      BatchMatMul("BatchMatMulV2", MakeTensor<float>({2, 2, 3}, Seq(12)),
                  MakeTensor<float>({3, 3, 5}, Seq(45)));
  EXPECT_EQ(incompatible.status().message(),
            "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,5]");
  StatusOr<Tensor> rank1 = BatchMatMul("BatchMatMulV2", MakeTensor<float>({2, 3}, Seq(6)),
                                       MakeTensor<float>({3}, Seq(3)));
  EXPECT_EQ(rank1.status().message(), "In[1] ndims must be >= 2: 1");
  StatusOr<Tensor> inner = BatchMatMul("BatchMatMulV2", MakeTensor<float>({2, 2, 3}, Seq(12)),
                                       MakeTensor<float>({2, 4, 5}, Seq(40)));
  EXPECT_EQ(inner.status().message(), "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,5]");
  StatusOr<Tensor> empty_batch = BatchMatMul("BatchMatMulV2", MakeTensor<float>({0, 2, 3}, Seq(0)),
                                             MakeTensor<float>({3, 4}, Seq(12)));
  ASSERT_TRUE(empty_batch.ok()) << empty_batch.status();
  EXPECT_EQ(empty_batch->shape(), TensorShape({0, 2, 4}));
  // Huge batch dims around an empty matrix: an empty result, nothing allocated per batch.
  StatusOr<Tensor> huge =
      BatchMatMul("BatchMatMulV2", MakeTensor<float>({int64_t{1} << 40, 0, 3}, Seq(0)),
                  MakeTensor<float>({1, 3, 4}, Seq(12)));
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_EQ(huge->shape(), TensorShape({int64_t{1} << 40, 0, 4}));
}

TEST(MatMulOpsTest, ShapeFunctions) {
  const OpRegistration* reg = OpRegistry::Global()->Find("BatchMatMulV2");
  ASSERT_NE(reg, nullptr);
  ::tensorflow::NodeDef node =
      MakeNode("BatchMatMulV2", {{"T", AttrType(DT_FLOAT)}, {"adj_y", AttrBool(true)}});
  InferenceContext c(node, {PartialTensorShape({2, 1, -1, 3}), PartialTensorShape({5, 7, 3})}, {},
                     1);
  ASSERT_TRUE(reg->shape_fn(&c).ok());
  EXPECT_EQ(c.output(0).DebugString(), PartialTensorShape({2, 5, -1, 7}).DebugString());
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
