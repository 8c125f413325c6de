#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<float> kX = {-3.5f, -1.25f, -0.5f, 0.0f, 0.3f, 0.5f, 1.0f, 2.5f, 7.75f, 20.0f};
const std::vector<float> kPositive = {0.001f, 0.3f, 0.5f, 1.0f, 2.5f, 7.75f, 20.0f, 100.0f};

struct UnaryCase {
  const char* op;
  const std::vector<float>* input;
  std::vector<double> expected;  // TensorFlow 2.15.1, float32
};

// Expected values computed by TensorFlow 2.15.1 (tf.raw_ops.<op> on float32, CPU).
const std::vector<UnaryCase>& FloatCases() {
  static const auto* cases = new std::vector<UnaryCase>{
      {"Exp",
       &kX,
       {0.03019738383591175, 0.2865048050880432, 0.6065306663513184, 1.0, 1.3498587608337402,
        1.6487212181091309, 2.7182817459106445, 12.182494163513184, 2321.572509765625,
        485165184.0}},
      {"Sin",
       &kX,
       {0.35078322887420654, -0.9489846229553223, -0.4794255495071411, 0.0, 0.29552021622657776,
        0.4794255495071411, 0.8414709568023682, 0.5984721779823303, 0.9945988059043884,
        0.9129452705383301}},
      {"Cos",
       &kX,
       {-0.9364566802978516, 0.3153223693370819, 0.8775825500488281, 1.0, 0.9553365111351013,
        0.8775825500488281, 0.5403022766113281, -0.8011435866355896, 0.10379435867071152,
        0.4080820679664612}},
      {"Erf",
       &kX,
       {-0.9999993443489075, -0.9229001998901367, -0.5204998850822449, 0.0, 0.328626811504364,
        0.5204998850822449, 0.8427008390426636, 0.9995929598808289, 1.0, 1.0}},
      {"Expm1",
       &kX,
       {-0.9698026180267334, -0.7134951949119568, -0.39346933364868164, 0.0, 0.3498587906360626,
        0.6487212777137756, 1.7182817459106445, 11.182494163513184, 2320.572509765625,
        485165184.0}},
      {"Floor", &kX, {-4.0, -2.0, -1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 7.0, 20.0}},
      {"Ceil", &kX, {-3.0, -1.0, -0.0, 0.0, 1.0, 1.0, 1.0, 3.0, 8.0, 20.0}},
      {"Round", &kX, {-4.0, -1.0, -0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 8.0, 20.0}},
      {"Sign", &kX, {-1.0, -1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}},
      {"Square",
       &kX,
       {12.25, 1.5625, 0.25, 0.0, 0.09000000357627869, 0.25, 1.0, 6.25, 60.0625, 400.0}},
      {"Neg", &kX, {3.5, 1.25, 0.5, -0.0, -0.30000001192092896, -0.5, -1.0, -2.5, -7.75, -20.0}},
      {"Abs", &kX, {3.5, 1.25, 0.5, 0.0, 0.30000001192092896, 0.5, 1.0, 2.5, 7.75, 20.0}},
      {"Log",
       &kPositive,
       {-6.907755374908447, -1.2039728164672852, -0.6931471824645996, 0.0, 0.9162907600402832,
        2.0476927757263184, 2.995732307434082, 4.605170249938965}},
      {"Sqrt",
       &kPositive,
       {0.03162277862429619, 0.547722578048706, 0.7071067690849304, 1.0, 1.5811388492584229,
        2.7838821411132812, 4.4721360206604, 10.0}},
      {"Rsqrt",
       &kPositive,
       {31.62277603149414, 1.8257417678833008, 1.4142135381698608, 1.0, 0.6324555277824402,
        0.3592106103897095, 0.22360679507255554, 0.10000000149011612}},
      {"Log1p",
       &kPositive,
       {0.00099950039293617, 0.2623642683029175, 0.40546509623527527, 0.6931471824645996,
        1.252763032913208, 2.169053792953491, 3.044522285461426, 4.6151204109191895}},
      {"Reciprocal",
       &kPositive,
       {1000.0, 3.3333332538604736, 1.9999998807907104, 0.9999999403953552, 0.3999999761581421,
        0.12903225421905518, 0.04999999701976776, 0.009999999776482582}},
  };
  return *cases;
}

TEST(UnaryOpsTest, FloatValuesMatchTensorFlow) {
  for (const UnaryCase& c : FloatCases()) {
    SCOPED_TRACE(c.op);
    const Tensor x =
        MakeTensor<float>(TensorShape({2, static_cast<int64_t>(c.input->size() / 2)}), *c.input);
    StatusOr<Tensor> y = RunOp(c.op, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->shape(), x.shape());
    ExpectAllClose(AsDoubles<float>(*y), c.expected, 1e-5, 1e-7);
  }
}

TEST(UnaryOpsTest, DoubleMatchesTensorFlow) {
  for (const UnaryCase& c : FloatCases()) {
    SCOPED_TRACE(c.op);
    StatusOr<Tensor> d = RunOp(
        c.op, {MakeTensor<double>(TensorShape({static_cast<int64_t>(c.input->size())}), *c.input)});
    ASSERT_TRUE(d.ok()) << d.status();
    ExpectAllClose(AsDoubles<double>(*d), c.expected, 1e-5, 1e-7);
  }
}

// half and bfloat16 compute through float: their results are the float results on the same
// (rounded) inputs, rounded once more.
template <typename T>
void ExpectFollowsFloat(const char* op, const std::vector<float>& input, double rtol) {
  const TensorShape shape({static_cast<int64_t>(input.size())});
  const Tensor narrow = MakeTensor<T>(shape, input);
  std::vector<float> rounded;
  for (double v : AsDoubles<T>(narrow)) rounded.push_back(static_cast<float>(v));
  StatusOr<Tensor> expected = RunOp(op, {MakeTensor<float>(shape, rounded)});
  StatusOr<Tensor> actual = RunOp(op, {narrow});
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::vector<double> want = AsDoubles<float>(*expected);
  for (double& v : want) v = static_cast<double>(static_cast<float>(static_cast<T>(v)));
  ExpectAllClose(AsDoubles<T>(*actual), want, rtol, rtol);
}

TEST(UnaryOpsTest, HalfAndBfloat16FollowFloat) {
  for (const UnaryCase& c : FloatCases()) {
    SCOPED_TRACE(c.op);
    ExpectFollowsFloat<half>(c.op, *c.input, 1e-3);
    ExpectFollowsFloat<bfloat16>(c.op, *c.input, 8e-3);
  }
}

TEST(UnaryOpsTest, LongInputsUseTheVectorPathToo) {
  // 1000 elements: most go through Eigen's packet functions, the tail through scalar ones.
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -10.0f + 0.02f * static_cast<float>(i);
  const Tensor t = MakeTensor<float>(TensorShape({1000}), x);
  struct Ref {
    const char* op;
    double (*fn)(double);
  };
  for (const Ref& r : {Ref{"Exp", [](double v) { return std::exp(v); }},
                       Ref{"Sin", [](double v) { return std::sin(v); }},
                       Ref{"Erf", [](double v) { return std::erf(v); }},
                       Ref{"Expm1", [](double v) { return std::expm1(v); }},
                       Ref{"Round", [](double v) { return std::nearbyint(v); }}}) {
    SCOPED_TRACE(r.op);
    StatusOr<Tensor> y = RunOp(r.op, {t}, {}, /*threads=*/4);
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<double> expected;
    for (float v : x) expected.push_back(r.fn(v));
    ExpectAllClose(AsDoubles<float>(*y), expected, 2e-6, 1e-6);
  }
}

TEST(UnaryOpsTest, RoundIsHalfToEven) {
  const Tensor x = MakeTensor<float>(
      TensorShape({8}), std::vector<float>{0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f});
  StatusOr<Tensor> y = RunOp("Round", {x});
  ASSERT_TRUE(y.ok()) << y.status();
  // TensorFlow: [0, 2, 2, -0, -2, -2, 2, 3].
  EXPECT_EQ(Values<float>(*y), (std::vector<float>{0, 2, 2, -0.0f, -2, -2, 2, 3}));
  EXPECT_TRUE(std::signbit(Values<float>(*y)[3]));
}

TEST(UnaryOpsTest, SignKeepsNaN) {
  const Tensor x =
      MakeTensor<float>(TensorShape({5}), std::vector<double>{kNaN, -0.0, 0.0, -2.0, 3.0});
  StatusOr<Tensor> y = RunOp("Sign", {x});
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectAllClose(AsDoubles<float>(*y), {kNaN, 0.0, 0.0, -1.0, 1.0}, 0);
  StatusOr<Tensor> yi =
      RunOp("Sign", {MakeTensor<int32_t>(TensorShape({3}), std::vector<int>{-5, 0, 5})});
  ASSERT_TRUE(yi.ok()) << yi.status();
  EXPECT_EQ(Values<int32_t>(*yi), (std::vector<int32_t>{-1, 0, 1}));
}

TEST(UnaryOpsTest, IntegerOpsWrapLikeTensorFlow) {
  const Tensor x = MakeTensor<int32_t>(
      TensorShape({4}), std::vector<int64_t>{std::numeric_limits<int32_t>::min(), -3, 0, 7});
  StatusOr<Tensor> neg = RunOp("Neg", {x});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_EQ(Values<int32_t>(*neg),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 3, 0, -7}));
  StatusOr<Tensor> abs = RunOp("Abs", {x});
  ASSERT_TRUE(abs.ok()) << abs.status();
  EXPECT_EQ(Values<int32_t>(*abs),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 3, 0, 7}));
  StatusOr<Tensor> sq =
      RunOp("Square", {MakeTensor<uint8_t>(TensorShape({2}), std::vector<int>{20, 3})});
  ASSERT_TRUE(sq.ok()) << sq.status();
  EXPECT_EQ(Values<uint8_t>(*sq), (std::vector<uint8_t>{144, 9}));  // TensorFlow: 400 wraps to 144
  StatusOr<Tensor> round =
      RunOp("Round", {MakeTensor<int64_t>(TensorShape({2}), std::vector<int>{3, -3})});
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Values<int64_t>(*round), (std::vector<int64_t>{3, -3}));
}

TEST(UnaryOpsTest, Predicates) {
  const Tensor x = MakeTensor<float>(TensorShape({4}), std::vector<double>{kNaN, kInf, -kInf, 1.0});
  for (const auto& [op, expected] : std::vector<std::pair<const char*, std::vector<bool>>>{
           {"IsNan", {true, false, false, false}},
           {"IsInf", {false, true, true, false}},
           {"IsFinite", {false, false, false, true}}}) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> y = RunOp(op, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->dtype(), ::tensorflow::DT_BOOL);
    EXPECT_EQ(Values<bool>(*y), expected);
    StatusOr<Tensor> yh =
        RunOp(op, {MakeTensor<half>(TensorShape({4}), std::vector<double>{kNaN, kInf, -kInf, 1})});
    ASSERT_TRUE(yh.ok()) << yh.status();
    EXPECT_EQ(Values<bool>(*yh), expected);
  }
}

TEST(UnaryOpsTest, SpecialValues) {
  const Tensor x = MakeTensor<float>(TensorShape({3}), std::vector<double>{0.0, 4.0, -1.0});
  StatusOr<Tensor> rsqrt = RunOp("Rsqrt", {x});
  ASSERT_TRUE(rsqrt.ok()) << rsqrt.status();
  ExpectAllClose(AsDoubles<float>(*rsqrt), {kInf, 0.5, kNaN}, 0);  // TensorFlow: [inf 0.5 nan]
  StatusOr<Tensor> log1p =
      RunOp("Log1p", {MakeTensor<float>(TensorShape({2}), std::vector<double>{-1.0, -2.0})});
  ASSERT_TRUE(log1p.ok()) << log1p.status();
  ExpectAllClose(AsDoubles<float>(*log1p), {-kInf, kNaN}, 0);
  StatusOr<Tensor> inv =
      RunOp("Inv", {MakeTensor<float>(TensorShape({2}), std::vector<double>{0.0, 2.0})});
  ASSERT_TRUE(inv.ok()) << inv.status();
  ExpectAllClose(AsDoubles<float>(*inv), {kInf, 0.5}, 0);
}

TEST(UnaryOpsTest, EmptyAndScalarInputs) {
  StatusOr<Tensor> empty = RunOp("Exp", {Tensor(::tensorflow::DT_FLOAT, TensorShape({0, 3}))});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
  StatusOr<Tensor> scalar = RunOp("Sqrt", {MakeScalar<float>(9.0f)});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape(), TensorShape());
  EXPECT_EQ(scalar->scalar<float>(), 3.0f);
}

TEST(UnaryOpsTest, UnregisteredDtypeIsNotFound) {
  // TensorFlow has no integer Exp or Inv kernel.
  EXPECT_FALSE(RunOp("Exp", {MakeScalar<int32_t>(1)}).ok());
  EXPECT_FALSE(RunOp("Inv", {MakeScalar<int32_t>(2)}).ok());
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
