#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

StatusOr<Tensor> Cast(const Tensor& x, DataType dst, bool truncate = false) {
  return RunOp(
      "Cast", {x},
      {{"SrcT", AttrType(x.dtype())}, {"DstT", AttrType(dst)}, {"Truncate", AttrBool(truncate)}});
}

template <typename Dst>
std::vector<Dst> CastValues(const Tensor& x, bool truncate = false) {
  StatusOr<Tensor> y = Cast(x, DataTypeToEnum<Dst>::value, truncate);
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  EXPECT_EQ(y->shape(), x.shape());
  return Values<Dst>(*y);
}

// The expected values below were computed by TensorFlow 2.15.1 on x86-64 (tf.raw_ops.Cast).
TEST(CastOpsTest, FloatToIntegerTruncatesAndWrapsLikeTensorFlow) {
  const Tensor f = MakeTensor<float>(TensorShape({7}),
                                     std::vector<double>{kNaN, kInf, -kInf, 3e9, -3e9, 2.7, -2.7});
  const int32_t kMin32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(CastValues<int32_t>(f),
            (std::vector<int32_t>{kMin32, kMin32, kMin32, kMin32, kMin32, 2, -2}));
  const Tensor f64 = MakeTensor<float>(
      TensorShape({7}), std::vector<double>{kNaN, kInf, -kInf, 3e19, -3e19, 2.7, -2.7});
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(CastValues<int64_t>(f64),
            (std::vector<int64_t>{kMin64, kMin64, kMin64, kMin64, kMin64, 2, -2}));
  const Tensor small = MakeTensor<float>(
      TensorShape({8}), std::vector<double>{kNaN, kInf, -kInf, 300, -5, 2.7, -2.7, 255.9});
  EXPECT_EQ(CastValues<uint8_t>(small), (std::vector<uint8_t>{0, 0, 0, 44, 251, 2, 254, 255}));
  const Tensor small8 = MakeTensor<float>(
      TensorShape({8}), std::vector<double>{kNaN, kInf, -kInf, 300, -300, 2.7, -2.7, 127.5});
  EXPECT_EQ(CastValues<int8_t>(small8), (std::vector<int8_t>{0, 0, 0, 44, -44, 2, -2, 127}));
  const Tensor f16 = MakeTensor<float>(TensorShape({6}),
                                       std::vector<double>{kNaN, kInf, -kInf, 70000, -70000, 2.7});
  EXPECT_EQ(CastValues<int16_t>(f16), (std::vector<int16_t>{0, 0, 0, 4464, -4464, 2}));
  const Tensor u =
      MakeTensor<float>(TensorShape({6}), std::vector<double>{kNaN, kInf, -kInf, 70000, -5, 2.7});
  EXPECT_EQ(CastValues<uint16_t>(u), (std::vector<uint16_t>{0, 0, 0, 4464, 65531, 2}));
  const Tensor u32 =
      MakeTensor<float>(TensorShape({6}), std::vector<double>{kNaN, kInf, -kInf, 5e9, -5, 2.7});
  EXPECT_EQ(CastValues<uint32_t>(u32),
            (std::vector<uint32_t>{0, 0, 0, 705032704u, 4294967291u, 2}));
  const Tensor u64 = MakeTensor<float>(TensorShape({7}),
                                       std::vector<double>{kNaN, kInf, -kInf, 3e19, -5, 2.7, 1e19});
  const uint64_t k2To63 = uint64_t{1} << 63;
  EXPECT_EQ(CastValues<uint64_t>(u64),
            (std::vector<uint64_t>{k2To63, k2To63, k2To63, k2To63, 18446744073709551611ull, 2,
                                   static_cast<uint64_t>(1e19f)}));
  const Tensor d =
      MakeTensor<double>(TensorShape({6}), std::vector<double>{kNaN, kInf, -kInf, 3e9, -3e9, 2.7});
  EXPECT_EQ(CastValues<int32_t>(d),
            (std::vector<int32_t>{kMin32, kMin32, kMin32, kMin32, kMin32, 2}));
  const Tensor h =
      MakeTensor<half>(TensorShape({6}), std::vector<double>{kNaN, kInf, -kInf, 300, -5, 2.7});
  EXPECT_EQ(CastValues<uint8_t>(h), (std::vector<uint8_t>{0, 0, 0, 44, 251, 2}));
  EXPECT_EQ(CastValues<int32_t>(MakeTensor<half>(TensorShape({1}), std::vector<double>{60000})),
            (std::vector<int32_t>{60000}));
}

TEST(CastOpsTest, BoolConversions) {
  EXPECT_EQ(CastValues<bool>(
                MakeTensor<float>(TensorShape({4}), std::vector<double>{kNaN, 0, -0.0, 0.1})),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(
      CastValues<bool>(MakeTensor<half>(TensorShape({4}), std::vector<double>{0, -0.0, kNaN, 1})),
      (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(CastValues<bool>(MakeTensor<int32_t>(TensorShape({3}), std::vector<int>{0, 2, -1})),
            (std::vector<bool>{false, true, true}));
  const Tensor b = MakeTensor<bool>(TensorShape({2}), std::vector<bool>{true, false});
  EXPECT_EQ(CastValues<float>(b), (std::vector<float>{1, 0}));
  EXPECT_EQ(AsDoubles<half>(*Cast(b, ::tensorflow::DT_HALF)), (std::vector<double>{1, 0}));
  EXPECT_EQ(CastValues<int64_t>(b), (std::vector<int64_t>{1, 0}));
}

uint16_t Bits(bfloat16 v) {
  uint16_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

TEST(CastOpsTest, Bfloat16RoundsToNearestEvenOrTruncates) {
  const Tensor f = MakeTensor<float>(TensorShape({4}),
                                     std::vector<double>{1.00390625, 1.01171875, 3.4e38, kNaN});
  std::vector<uint16_t> bits;
  for (bfloat16 v : CastValues<bfloat16>(f)) bits.push_back(Bits(v));
  EXPECT_EQ(bits, (std::vector<uint16_t>{16256, 16258, 32640, 32704}));
  const Tensor g = MakeTensor<float>(TensorShape({3}),
                                     std::vector<double>{1.00390625, 1.01171875, 1.0078125 + 1e-6});
  bits.clear();
  for (bfloat16 v : CastValues<bfloat16>(g, /*truncate=*/true)) bits.push_back(Bits(v));
  EXPECT_EQ(bits, (std::vector<uint16_t>{16256, 16257, 16257}));
}

TEST(CastOpsTest, HalfAndDoubleNarrowing) {
  EXPECT_EQ(
      AsDoubles<half>(*Cast(
          MakeTensor<float>(TensorShape({3}), std::vector<double>{1.00048828125, 70000, 1e-8}),
          ::tensorflow::DT_HALF)),
      (std::vector<double>{1, kInf, 0}));
  EXPECT_EQ(
      AsDoubles<half>(*Cast(
          MakeTensor<float>(TensorShape({2}), std::vector<double>{1.00048828125 + 1e-7, 70000}),
          ::tensorflow::DT_HALF, /*truncate=*/true)),
      (std::vector<double>{1, kInf}));
  // double -> float: nearest, or truncated.
  const Tensor d =
      MakeTensor<double>(TensorShape({2}), std::vector<double>{1 + 0x1p-24 + 0x1p-30, 1 + 0x1p-30});
  EXPECT_EQ(CastValues<float>(d), (std::vector<float>{1 + 0x1p-23f, 1}));
  EXPECT_EQ(CastValues<float>(d, /*truncate=*/true), (std::vector<float>{1, 1}));
  // Integers to half round through float; out of range is inf.
  EXPECT_EQ(
      AsDoubles<half>(*Cast(MakeTensor<int32_t>(TensorShape({2}), std::vector<int>{70000, 2049}),
                            ::tensorflow::DT_HALF)),
      (std::vector<double>{kInf, 2048}));
  EXPECT_EQ(
      AsDoubles<bfloat16>(*Cast(
          MakeTensor<int64_t>(TensorShape({2}), std::vector<int64_t>{(int64_t{1} << 40) + 5, 257}),
          ::tensorflow::DT_BFLOAT16)),
      (std::vector<double>{1099511627776.0, 256}));
  EXPECT_EQ(
      AsDoubles<half>(*Cast(MakeTensor<bfloat16>(TensorShape({2}), std::vector<double>{1e10, 1.5}),
                            ::tensorflow::DT_HALF)),
      (std::vector<double>{kInf, 1.5}));
}

TEST(CastOpsTest, IntegerConversionsWrap) {
  EXPECT_EQ(CastValues<int32_t>(MakeTensor<int64_t>(
                TensorShape({2}), std::vector<int64_t>{(int64_t{1} << 40) + 5, -1})),
            (std::vector<int32_t>{5, -1}));
  EXPECT_EQ(CastValues<uint8_t>(MakeTensor<int32_t>(TensorShape({2}), std::vector<int>{300, -1})),
            (std::vector<uint8_t>{44, 255}));
}

TEST(CastOpsTest, EveryNumericPairRoundTripsSmallIntegers) {
  const std::vector<DataType> types = {
      ::tensorflow::DT_FLOAT,    ::tensorflow::DT_DOUBLE, ::tensorflow::DT_HALF,
      ::tensorflow::DT_BFLOAT16, ::tensorflow::DT_INT8,   ::tensorflow::DT_UINT8,
      ::tensorflow::DT_INT16,    ::tensorflow::DT_UINT16, ::tensorflow::DT_INT32,
      ::tensorflow::DT_INT64,    ::tensorflow::DT_UINT32, ::tensorflow::DT_UINT64,
      ::tensorflow::DT_BOOL};
  // 0..9 (0..1 for bool) survive every conversion; 40 elements exercise the vector paths.
  for (DataType src : types) {
    for (DataType dst : types) {
      SCOPED_TRACE(StrCat(DataTypeString(src), " -> ", DataTypeString(dst)));
      const int modulus = src == ::tensorflow::DT_BOOL || dst == ::tensorflow::DT_BOOL ? 2 : 10;
      std::vector<int> values(40);
      for (int i = 0; i < 40; ++i) values[i] = i % modulus;
      StatusOr<Tensor> x = Cast(MakeTensor<int32_t>(TensorShape({40}), values), src);
      ASSERT_TRUE(x.ok()) << x.status();
      StatusOr<Tensor> y = Cast(*x, dst);
      ASSERT_TRUE(y.ok()) << y.status();
      ASSERT_EQ(y->dtype(), dst);
      StatusOr<Tensor> back = Cast(*y, ::tensorflow::DT_INT32);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(Values<int32_t>(*back), std::vector<int32_t>(values.begin(), values.end()));
    }
  }
}

TEST(CastOpsTest, SameTypeForwardsAndStringsAreUnsupported) {
  const Tensor x = MakeTensor<float>(TensorShape({2}), std::vector<float>{1, 2});
  StatusOr<Tensor> y = Cast(x, ::tensorflow::DT_FLOAT);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->SharesBufferWith(x));
  Tensor s(::tensorflow::DT_STRING, TensorShape({1}));
  StatusOr<Tensor> bad = Cast(s, ::tensorflow::DT_INT32);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kUnimplemented);
  EXPECT_TRUE(EndsWith(bad.status().message(), "Cast string to int32 is not supported"))
      << bad.status();
  EXPECT_FALSE(Cast(x, ::tensorflow::DT_STRING).ok());
}

TEST(CastOpsTest, EmptyTensor) {
  StatusOr<Tensor> y =
      Cast(Tensor(::tensorflow::DT_FLOAT, TensorShape({0, 4})), ::tensorflow::DT_INT64);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({0, 4}));
  EXPECT_EQ(y->dtype(), ::tensorflow::DT_INT64);
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
