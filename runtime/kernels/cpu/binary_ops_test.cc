#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

template <typename T>
std::vector<T> RunBinary(const char* op, const Tensor& x, const Tensor& y,
                         const TensorShape& expected_shape) {
  StatusOr<Tensor> z = RunOp(op, {x, y});
  EXPECT_TRUE(z.ok()) << op << ": " << z.status();
  if (!z.ok()) return {};
  EXPECT_EQ(z->shape(), expected_shape) << op;
  return Values<T>(*z);
}

TEST(BinaryOpsTest, BroadcastRowColumnAndScalar) {
  const Tensor m = MakeTensor<float>(TensorShape({2, 3}), std::vector<float>{1, 2, 3, 4, 5, 6});
  const Tensor row = MakeTensor<float>(TensorShape({3}), std::vector<float>{10, 20, 30});
  const Tensor col = MakeTensor<float>(TensorShape({2, 1}), std::vector<float>{100, 200});
  EXPECT_EQ(RunBinary<float>("Add", m, row, TensorShape({2, 3})),
            (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(RunBinary<float>("AddV2", col, m, TensorShape({2, 3})),
            (std::vector<float>{101, 102, 103, 204, 205, 206}));
  EXPECT_EQ(RunBinary<float>("Sub", MakeScalar<float>(1), m, TensorShape({2, 3})),
            (std::vector<float>{0, -1, -2, -3, -4, -5}));
  EXPECT_EQ(RunBinary<float>("Mul", row, col, TensorShape({2, 3})),
            (std::vector<float>{1000, 2000, 3000, 2000, 4000, 6000}));
  EXPECT_EQ(RunBinary<float>("RealDiv", m, MakeScalar<float>(2), TensorShape({2, 3})),
            (std::vector<float>{0.5, 1, 1.5, 2, 2.5, 3}));
  EXPECT_EQ(RunBinary<float>("SquaredDifference", m, row, TensorShape({2, 3})),
            (std::vector<float>{81, 324, 729, 36, 225, 576}));
}

// A naive numpy-broadcasting Add, to check the collapsed-dims machinery on many shapes.
std::vector<float> ReferenceAdd(const TensorShape& a, const std::vector<float>& av,
                                const TensorShape& b, const std::vector<float>& bv,
                                TensorShape* out_shape) {
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> ad(rank, 1), bd(rank, 1), od(rank);
  for (int i = 0; i < a.dims(); ++i) ad[rank - a.dims() + i] = a.dim_size(i);
  for (int i = 0; i < b.dims(); ++i) bd[rank - b.dims() + i] = b.dim_size(i);
  for (int i = 0; i < rank; ++i) od[i] = std::max(ad[i], bd[i]);
  *out_shape = TensorShape(od);
  std::vector<float> out(static_cast<size_t>(out_shape->num_elements()));
  std::vector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    int64_t ai = 0, bi = 0;
    for (int d = 0; d < rank; ++d) {
      ai = ai * ad[d] + (ad[d] == 1 ? 0 : index[d]);
      bi = bi * bd[d] + (bd[d] == 1 ? 0 : index[d]);
    }
    out[flat] = av[ai] + bv[bi];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < od[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(BinaryOpsTest, RandomBroadcastsUpToRankNineMatchReference) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + trial % 9;
    std::vector<int64_t> full(rank), a_dims, b_dims;
    for (int d = 0; d < rank; ++d) full[d] = 1 + rng() % 3;
    const int a_rank = static_cast<int>(rng() % (rank + 1));
    for (int d = 0; d < rank; ++d) {
      const bool a_one = rng() % 3 == 0, b_one = rng() % 3 == 0;
      if (d >= rank - a_rank) a_dims.push_back(a_one ? 1 : full[d]);
      b_dims.push_back(b_one ? 1 : full[d]);
    }
    const TensorShape a(a_dims), b(b_dims);
    std::vector<float> av(a.num_elements()), bv(b.num_elements());
    for (float& v : av) v = static_cast<float>(rng() % 100);
    for (float& v : bv) v = static_cast<float>(rng() % 100) * 1000;
    TensorShape out_shape;
    const std::vector<float> expected = ReferenceAdd(a, av, b, bv, &out_shape);
    SCOPED_TRACE(StrCat(a.DebugString(), " + ", b.DebugString()));
    StatusOr<Tensor> z = RunOp("AddV2", {MakeTensor<float>(a, av), MakeTensor<float>(b, bv)}, {},
                               /*threads=*/trial % 2 == 0 ? 1 : 3);
    ASSERT_TRUE(z.ok()) << z.status();
    EXPECT_EQ(z->shape(), out_shape);
    EXPECT_EQ(Values<float>(*z), expected);
  }
}

TEST(BinaryOpsTest, LargeBroadcastAcrossThreads) {
  // 300 x 1000 against a row and a column, so the work is split into shards mid-row.
  std::vector<float> big(300000), row(1000), col(300);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 977);
  for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<float>(i);
  for (size_t i = 0; i < col.size(); ++i) col[i] = static_cast<float>(i) * 0.5f;
  const Tensor t_big = MakeTensor<float>(TensorShape({300, 1000}), big);
  StatusOr<Tensor> by_row =
      RunOp("Mul", {t_big, MakeTensor<float>(TensorShape({1000}), row)}, {}, 4);
  StatusOr<Tensor> by_col =
      RunOp("Sub", {MakeTensor<float>(TensorShape({300, 1}), col), t_big}, {}, 4);
  ASSERT_TRUE(by_row.ok() && by_col.ok());
  for (int64_t i = 0; i < 300; ++i) {
    for (int64_t j = 0; j < 1000; j += 37) {
      const int64_t k = i * 1000 + j;
      ASSERT_EQ(by_row->data<float>()[k], big[k] * row[j]);
      ASSERT_EQ(by_col->data<float>()[k], col[i] - big[k]);
    }
  }
}

// A short per-channel vector against a whole tensor (an image normalized per channel) runs as
// long stretches of a tiled copy of the vector: every period, every phase a thread's share can
// start at, the vector on either side, and a vector with leading dims of 1.
TEST(BinaryOpsTest, ShortPerChannelVectorsMatchElementwise) {
  int checked = 0;
  for (int64_t channels : {2, 3, 7, 16, 63}) {
    const TensorShape shape({2, 37, 29, channels});
    const int64_t n = shape.num_elements();
    std::vector<float> big(n), vec(channels);
    for (int64_t i = 0; i < n; ++i) big[i] = static_cast<float>(i % 251) * 0.37f - 40.f;
    for (int64_t c = 0; c < channels; ++c) vec[c] = 0.5f + static_cast<float>(c) * 1.25f;
    const Tensor t_big = MakeTensor<float>(shape, big);
    for (const TensorShape& vec_shape :
         {TensorShape({channels}), TensorShape({1, 1, 1, channels})}) {
      for (int threads : {1, 3}) {
        StatusOr<Tensor> sub =
            RunOp("Sub", {t_big, MakeTensor<float>(vec_shape, vec)}, {}, threads);
        StatusOr<Tensor> div =
            RunOp("RealDiv", {MakeTensor<float>(vec_shape, vec), t_big}, {}, threads);
        ASSERT_TRUE(sub.ok() && div.ok());
        ASSERT_EQ(sub->shape(), shape);
        ASSERT_EQ(div->shape(), shape);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(sub->data<float>()[i], big[i] - vec[i % channels]) << i;
          ASSERT_EQ(div->data<float>()[i], vec[i % channels] / big[i]) << i;
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 5 * 2 * 2);
}

TEST(BinaryOpsTest, IntegerDivisionsMatchTensorFlow) {
  const Tensor x = MakeTensor<int32_t>(TensorShape({4}), std::vector<int>{-7, 7, -7, 7});
  const Tensor y = MakeTensor<int32_t>(TensorShape({4}), std::vector<int>{2, 2, -2, -2});
  const TensorShape s({4});
  // TensorFlow 2.15.1.
  EXPECT_EQ(RunBinary<int32_t>("Div", x, y, s), (std::vector<int32_t>{-3, 3, 3, -3}));
  EXPECT_EQ(RunBinary<int32_t>("TruncateDiv", x, y, s), (std::vector<int32_t>{-3, 3, 3, -3}));
  EXPECT_EQ(RunBinary<int32_t>("FloorDiv", x, y, s), (std::vector<int32_t>{-4, 3, 3, -4}));
  EXPECT_EQ(RunBinary<int32_t>("FloorMod", x, y, s), (std::vector<int32_t>{1, 1, -1, -1}));
  EXPECT_EQ(RunBinary<int32_t>("TruncateMod", x, y, s), (std::vector<int32_t>{-1, 1, -1, 1}));
  // INT_MIN / -1 wraps instead of trapping.
  const Tensor min = MakeTensor<int32_t>(TensorShape({1}), std::vector<int64_t>{kInt32Min});
  const Tensor minus_one = MakeTensor<int32_t>(TensorShape({1}), std::vector<int>{-1});
  EXPECT_EQ(RunBinary<int32_t>("Div", min, minus_one, TensorShape({1})),
            (std::vector<int32_t>{kInt32Min}));
  EXPECT_EQ(RunBinary<int32_t>("FloorDiv", min, minus_one, TensorShape({1})),
            (std::vector<int32_t>{kInt32Min}));
  EXPECT_EQ(RunBinary<int32_t>("FloorMod", min, minus_one, TensorShape({1})),
            (std::vector<int32_t>{0}));
  EXPECT_EQ(RunBinary<int32_t>("TruncateMod", min, minus_one, TensorShape({1})),
            (std::vector<int32_t>{0}));
  // Unsigned and narrow types.
  EXPECT_EQ(RunBinary<uint8_t>(
                "Div", MakeTensor<uint8_t>(TensorShape({2}), std::vector<int>{7, 200}),
                MakeTensor<uint8_t>(TensorShape({2}), std::vector<int>{2, 3}), TensorShape({2})),
            (std::vector<uint8_t>{3, 66}));
  EXPECT_EQ(RunBinary<int8_t>(
                "FloorDiv", MakeTensor<int8_t>(TensorShape({2}), std::vector<int>{-7, 7}),
                MakeTensor<int8_t>(TensorShape({1}), std::vector<int>{2}), TensorShape({2})),
            (std::vector<int8_t>{-4, 3}));
}

TEST(BinaryOpsTest, IntegerArithmeticWrapsLikeTensorFlow) {
  // TensorFlow 2.15.1.
  EXPECT_EQ(
      RunBinary<int32_t>(
          "AddV2", MakeTensor<int32_t>(TensorShape({2}), std::vector<int64_t>{2147483647, -5}),
          MakeTensor<int32_t>(TensorShape({2}), std::vector<int>{1, 3}), TensorShape({2})),
      (std::vector<int32_t>{kInt32Min, -2}));
  EXPECT_EQ(
      RunBinary<uint16_t>(
          "Mul", MakeTensor<uint16_t>(TensorShape({2}), std::vector<int>{65535, 300}),
          MakeTensor<uint16_t>(TensorShape({2}), std::vector<int>{65535, 300}), TensorShape({2})),
      (std::vector<uint16_t>{1, 24464}));
  EXPECT_EQ(
      RunBinary<uint8_t>("Sub", MakeScalar<uint8_t>(0), MakeScalar<uint8_t>(1), TensorShape()),
      (std::vector<uint8_t>{255}));
  EXPECT_EQ(RunBinary<int32_t>(
                "SquaredDifference",
                MakeTensor<int32_t>(TensorShape({2}), std::vector<int64_t>{kInt32Min, 7}),
                MakeTensor<int32_t>(TensorShape({2}), std::vector<int>{1, -3}), TensorShape({2})),
            (std::vector<int32_t>{1, 100}));
  EXPECT_EQ(
      RunBinary<int8_t>("Minimum", MakeTensor<int8_t>(TensorShape({2}), std::vector<int>{3, -3}),
                        MakeTensor<int8_t>(TensorShape({2}), std::vector<int>{-128, 127}),
                        TensorShape({2})),
      (std::vector<int8_t>{-128, -3}));
  // A long broadcast (vector loops plus a tail) against a reference.
  std::vector<int64_t> a(1000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>(i * 7) - 3000;
  std::vector<int64_t> expected;
  for (int64_t v : a) expected.push_back(v * -3);
  EXPECT_EQ(RunBinary<int64_t>("Mul", MakeTensor<int64_t>(TensorShape({1000}), a),
                               MakeScalar<int64_t>(-3), TensorShape({1000})),
            expected);
}

TEST(BinaryOpsTest, IntegerDivisionByZeroFails) {
  const Tensor x = MakeTensor<int32_t>(TensorShape({2}), std::vector<int>{1, 2});
  const Tensor zero = MakeTensor<int32_t>(TensorShape({2}), std::vector<int>{1, 0});
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    StatusOr<Tensor> z = RunOp(op, {x, zero});
    ASSERT_FALSE(z.ok()) << op;
    EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(z.status().message(), "Integer division by zero");
  }
  // TensorFlow reports these two as INTERNAL.
  for (const char* op : {"TruncateDiv", "TruncateMod"}) {
    StatusOr<Tensor> z = RunOp(op, {x, zero});
    ASSERT_FALSE(z.ok()) << op;
    EXPECT_EQ(z.status().code(), Code::kInternal);
  }
  // An empty output reads no divisor.
  StatusOr<Tensor> empty =
      RunOp("Div", {Tensor(::tensorflow::DT_INT32, TensorShape({0, 2})), zero});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 2}));
}

TEST(BinaryOpsTest, FloatDivisionsAndModuliMatchTensorFlow) {
  const Tensor x =
      MakeTensor<float>(TensorShape({9}), std::vector<double>{-7, 7, -7, 7, 5, -0.0, 1.0, kInf, 3});
  const Tensor y =
      MakeTensor<float>(TensorShape({9}), std::vector<double>{2, 2, -2, -2, 0, 3, kInf, 2, -kInf});
  StatusOr<Tensor> mod = RunOp("FloorMod", {x, y});
  ASSERT_TRUE(mod.ok()) << mod.status();
  // TensorFlow 2.15.1: [1 1 -1 -1 nan -0 1 nan -inf].
  ExpectAllClose(AsDoubles<float>(*mod), {1, 1, -1, -1, kNaN, -0.0, 1, kNaN, -kInf}, 0);
  EXPECT_TRUE(std::signbit(mod->data<float>()[5]));
  const Tensor x6 = MakeTensor<float>(TensorShape({6}), std::vector<double>{-7, 7, -7, 7, 5, 0});
  const Tensor y6 = MakeTensor<float>(TensorShape({6}), std::vector<double>{2, 2, -2, -2, 0, 0});
  StatusOr<Tensor> floor_div = RunOp("FloorDiv", {x6, y6});
  StatusOr<Tensor> trunc_div = RunOp("TruncateDiv", {x6, y6});
  StatusOr<Tensor> trunc_mod = RunOp("TruncateMod", {x6, y6});
  StatusOr<Tensor> div = RunOp("Div", {x6, y6});
  ASSERT_TRUE(floor_div.ok() && trunc_div.ok() && trunc_mod.ok() && div.ok());
  ExpectAllClose(AsDoubles<float>(*floor_div), {-4, 3, 3, -4, kInf, kNaN}, 0);
  ExpectAllClose(AsDoubles<float>(*trunc_div), {-3, 3, 3, -3, kInf, kNaN}, 0);
  ExpectAllClose(AsDoubles<float>(*trunc_mod), {-1, 1, -1, 1, kNaN, kNaN}, 0);
  ExpectAllClose(AsDoubles<float>(*div), {-3.5, 3.5, 3.5, -3.5, kInf, kNaN}, 0);
}

TEST(BinaryOpsTest, NoNanVariants) {
  StatusOr<Tensor> div =
      RunOp("DivNoNan", {MakeTensor<float>(TensorShape({4}), std::vector<double>{-7, 1, 0, kNaN}),
                         MakeTensor<float>(TensorShape({4}), std::vector<double>{2, 0, 0, 0})});
  ASSERT_TRUE(div.ok()) << div.status();
  ExpectAllClose(AsDoubles<float>(*div), {-3.5, 0, 0, 0}, 0);
  StatusOr<Tensor> mul = RunOp(
      "MulNoNan", {MakeTensor<float>(TensorShape({4}), std::vector<double>{kInf, kNaN, 1, kInf}),
                   MakeTensor<float>(TensorShape({4}), std::vector<double>{0, 0, 2, 1})});
  ASSERT_TRUE(mul.ok()) << mul.status();
  ExpectAllClose(AsDoubles<float>(*mul), {0, 0, 2, kInf}, 0);
}

TEST(BinaryOpsTest, MaximumAndMinimumPropagateNaN) {
  // Long enough for the vector path; NaN in a few places on both sides.
  std::vector<double> a(40), b(40);
  for (int i = 0; i < 40; ++i) {
    a[i] = i % 7 == 0 ? kNaN : i;
    b[i] = i % 5 == 0 ? kNaN : 40 - i;
  }
  for (const char* op : {"Maximum", "Minimum"}) {
    for (auto make :
         {+[](const std::vector<double>& v) { return MakeTensor<float>(TensorShape({40}), v); },
          +[](const std::vector<double>& v) { return MakeTensor<half>(TensorShape({40}), v); }}) {
      SCOPED_TRACE(op);
      StatusOr<Tensor> z = RunOp(op, {make(a), make(b)});
      ASSERT_TRUE(z.ok()) << z.status();
      const std::vector<double> got =
          z->dtype() == ::tensorflow::DT_HALF ? AsDoubles<half>(*z) : AsDoubles<float>(*z);
      for (int i = 0; i < 40; ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
          EXPECT_TRUE(std::isnan(got[i])) << i;
        } else {
          EXPECT_EQ(got[i],
                    std::string(op) == "Maximum" ? std::max(a[i], b[i]) : std::min(a[i], b[i]))
              << i;
        }
      }
    }
  }
  EXPECT_EQ(
      RunBinary<int64_t>("Maximum", MakeTensor<int64_t>(TensorShape({2}), std::vector<int>{-3, 9}),
                         MakeScalar<int64_t>(0), TensorShape({2})),
      (std::vector<int64_t>{0, 9}));
}

TEST(BinaryOpsTest, PowMatchesTensorFlow) {
  EXPECT_EQ(RunBinary<int32_t>(
                "Pow", MakeTensor<int32_t>(TensorShape({5}), std::vector<int>{2, -3, 0, 1, -1}),
                MakeTensor<int32_t>(TensorShape({5}), std::vector<int>{10, 3, 0, 5, 3}),
                TensorShape({5})),
            (std::vector<int32_t>{1024, -27, 1, 1, -1}));
  EXPECT_EQ(RunBinary<int8_t>("Pow", MakeScalar<int8_t>(3), MakeScalar<int8_t>(5), TensorShape()),
            (std::vector<int8_t>{-13}));  // 243 wraps, as in TensorFlow
  StatusOr<Tensor> negative = RunOp("Pow", {MakeScalar<int32_t>(2), MakeScalar<int32_t>(-1)});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "Integers to negative integer powers are not allowed");
  StatusOr<Tensor> f =
      RunOp("Pow", {MakeTensor<float>(TensorShape({4}), std::vector<double>{2, -8, 0, -2}),
                    MakeTensor<float>(TensorShape({4}), std::vector<double>{0.5, 1.0 / 3, -1, 2})});
  ASSERT_TRUE(f.ok()) << f.status();
  // TensorFlow 2.15.1: [1.4142135 nan inf 4].
  ExpectAllClose(AsDoubles<float>(*f), {1.4142135381698608, kNaN, kInf, 4}, 1e-6);
}

TEST(BinaryOpsTest, HalfAndBfloat16) {
  const std::vector<float> a = {1.5f, -2.25f, 3.0f, 100.0f};
  const std::vector<float> b = {0.25f, 4.0f, -1.5f, 3.0f};
  for (const char* op : {"AddV2", "Sub", "Mul", "RealDiv", "SquaredDifference", "FloorDiv"}) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> f =
        RunOp(op, {MakeTensor<float>(TensorShape({4}), a), MakeTensor<float>(TensorShape({4}), b)});
    StatusOr<Tensor> h =
        RunOp(op, {MakeTensor<half>(TensorShape({4}), a), MakeTensor<half>(TensorShape({4}), b)});
    StatusOr<Tensor> bf = RunOp(
        op, {MakeTensor<bfloat16>(TensorShape({4}), a), MakeTensor<bfloat16>(TensorShape({4}), b)});
    ASSERT_TRUE(f.ok() && h.ok() && bf.ok());
    ExpectAllClose(AsDoubles<half>(*h), AsDoubles<float>(*f), 1e-3);
    ExpectAllClose(AsDoubles<bfloat16>(*bf), AsDoubles<float>(*f), 8e-3);
  }
}

TEST(BinaryOpsTest, StringAddConcatenates) {
  Tensor x(::tensorflow::DT_STRING, TensorShape({2}));
  x.data<std::string>()[0] = "a";
  x.data<std::string>()[1] = "b";
  Tensor y(::tensorflow::DT_STRING, TensorShape({1}));
  y.data<std::string>()[0] = "c";
  EXPECT_EQ(RunBinary<std::string>("Add", x, y, TensorShape({2})),
            (std::vector<std::string>{"ac", "bc"}));
  EXPECT_FALSE(RunOp("AddV2", {x, y}).ok());  // AddV2 has no string kernel
}

TEST(BinaryOpsTest, IncompatibleShapesFail) {
  StatusOr<Tensor> z = RunOp("AddV2", {Tensor(::tensorflow::DT_FLOAT, TensorShape({2, 3})),
                                       Tensor(::tensorflow::DT_FLOAT, TensorShape({4, 3}))});
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(z.status().message(), "Incompatible shapes: [2,3] vs. [4,3]");
  EXPECT_FALSE(RunOp("Mul", {Tensor(::tensorflow::DT_INT32, TensorShape({0})),
                             Tensor(::tensorflow::DT_INT32, TensorShape({2}))})
                   .ok());
}

TEST(BinaryOpsTest, EmptyAndScalarShapes) {
  StatusOr<Tensor> z = RunOp("AddV2", {Tensor(::tensorflow::DT_FLOAT, TensorShape({0, 1})),
                                       Tensor(::tensorflow::DT_FLOAT, TensorShape({1, 3}))});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->shape(), TensorShape({0, 3}));
  EXPECT_EQ(RunBinary<double>("Mul", MakeScalar<double>(3), MakeScalar<double>(4), TensorShape()),
            (std::vector<double>{12}));
  EXPECT_EQ(
      RunBinary<double>("Mul", MakeTensor<double>(TensorShape({1, 1}), std::vector<double>{3}),
                        MakeScalar<double>(4), TensorShape({1, 1})),
      (std::vector<double>{12}));
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
