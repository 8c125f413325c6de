#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<float> kX = {-3.5f, -1.25f, -0.5f, 0.0f, 0.3f, 0.5f, 1.0f, 2.5f, 7.75f, 20.0f};

// Expected values computed by TensorFlow 2.15.1 (tf.raw_ops.<op> on float32, CPU).
const std::vector<std::pair<const char*, std::vector<double>>>& Cases() {
  static const auto* cases = new std::vector<std::pair<const char*, std::vector<double>>>{
      {"Tanh",
       {-0.9981778860092163, -0.8482837080955505, -0.46211716532707214, 0.0, 0.2913126051425934,
        0.46211716532707214, 0.7615941762924194, 0.9866142868995667, 0.9999997019767761, 1.0}},
      {"Sigmoid",
       {0.02931223064661026, 0.22270014882087708, 0.3775406777858734, 0.5, 0.5744425058364868,
        0.622459352016449, 0.7310585975646973, 0.9241418242454529, 0.9995694160461426, 1.0}},
      {"Relu", {0.0, 0.0, 0.0, 0.0, 0.30000001192092896, 0.5, 1.0, 2.5, 7.75, 20.0}},
      {"Relu6", {0.0, 0.0, 0.0, 0.0, 0.30000001192092896, 0.5, 1.0, 2.5, 6.0, 6.0}},
      {"Elu",
       {-0.9698026180267334, -0.7134951949119568, -0.39346933364868164, 0.0, 0.30000001192092896,
        0.5, 1.0, 2.5, 7.75, 20.0}},
      {"Selu",
       {-1.7050093412399292, -1.2543953657150269, -0.6917581558227539, 0.0, 0.3152103126049042,
        0.5253505110740662, 1.0507010221481323, 2.6267526149749756, 8.142932891845703,
        21.014020919799805}},
      {"Softplus",
       {0.02975042164325714, 0.2519291043281555, 0.4740769863128662, 0.6931471824645996,
        0.8543552160263062, 0.9740769267082214, 1.31326162815094, 2.578889846801758,
        7.750430583953857, 20.0}},
      {"Softsign",
       {-0.7777777910232544, -0.5555555820465088, -0.3333333432674408, 0.0, 0.23076924681663513,
        0.3333333432674408, 0.5, 0.7142857313156128, 0.8857142925262451, 0.9523809552192688}},
      {"LeakyRelu",
       {-0.699999988079071, -0.25, -0.10000000149011612, 0.0, 0.30000001192092896, 0.5, 1.0, 2.5,
        7.75, 20.0}},
  };
  return *cases;
}

TEST(ActivationOpsTest, FloatValuesMatchTensorFlow) {
  for (const auto& [op, expected] : Cases()) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> y = RunOp(op, {MakeTensor<float>(TensorShape({5, 2}), kX)});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->shape(), TensorShape({5, 2}));
    ExpectAllClose(AsDoubles<float>(*y), expected, 1e-5, 1e-7);
    StatusOr<Tensor> d = RunOp(op, {MakeTensor<double>(TensorShape({10}), kX)});
    ASSERT_TRUE(d.ok()) << d.status();
    ExpectAllClose(AsDoubles<double>(*d), expected, 1e-5, 1e-7);
  }
}

TEST(ActivationOpsTest, HalfAndBfloat16) {
  // TensorFlow 2.15.1 on float16 inputs kX.
  StatusOr<Tensor> elu = RunOp("Elu", {MakeTensor<half>(TensorShape({10}), kX)});
  ASSERT_TRUE(elu.ok()) << elu.status();
  ExpectAllClose(AsDoubles<half>(*elu),
                 {-0.9697265625, -0.71337890625, -0.3935546875, 0.0, 0.300048828125, 0.5, 1.0, 2.5,
                  7.75, 20.0},
                 1e-3);
  StatusOr<Tensor> tanh = RunOp("Tanh", {MakeTensor<half>(TensorShape({10}), kX)});
  ASSERT_TRUE(tanh.ok()) << tanh.status();
  ExpectAllClose(AsDoubles<half>(*tanh),
                 {-0.998046875, -0.84814453125, -0.462158203125, 0.0, 0.291259765625,
                  0.462158203125, 0.76171875, 0.98681640625, 1.0, 1.0},
                 1e-3);
  for (const auto& [op, expected] : Cases()) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> b = RunOp(op, {MakeTensor<bfloat16>(TensorShape({10}), kX)});
    ASSERT_TRUE(b.ok()) << b.status();
    ExpectAllClose(AsDoubles<bfloat16>(*b), expected, 2e-2, 1e-2);
  }
}

// Softplus switches formula at log(epsilon) + 2 (about -13.94 for float, -4.93 for half).
TEST(ActivationOpsTest, SoftplusThresholds) {
  const std::vector<float> x = {-20, -15, -14, -13.9f, -10, 0, 10, 13.9f, 14, 15, 20, 100};
  StatusOr<Tensor> y = RunOp("Softplus", {MakeTensor<float>(TensorShape({12}), x)});
  ASSERT_TRUE(y.ok()) << y.status();
  // TensorFlow 2.15.1.
  ExpectAllClose(AsDoubles<float>(*y),
                 {2.06115369216775e-09, 3.0590231858695915e-07, 8.315287232107949e-07,
                  9.189812431031896e-07, 4.539889778243378e-05, 0.6931471824645996,
                  10.000045776367188, 13.90000057220459, 14.0, 15.0, 20.0, 100.0},
                 1e-5);
  StatusOr<Tensor> h = RunOp("Softplus", {MakeTensor<half>(TensorShape({12}), x)});
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectAllClose(AsDoubles<half>(*h),
                 {0.0, 2.980232238769531e-07, 8.344650268554688e-07, 8.940696716308594e-07,
                  4.5418739318847656e-05, 0.693359375, 10.0, 13.8984375, 14.0, 15.0, 20.0, 100.0},
                 1e-3, 1e-9);
}

// 53 inputs run mostly through the packet (SIMD) versions of the functors, the rest through
// the scalar ones; both must agree with the exact formulas.
TEST(ActivationOpsTest, VectorAndScalarPathsAgree) {
  std::vector<float> x;
  for (int i = 0; i <= 52; ++i) x.push_back(-12.0f + 24.0f * static_cast<float>(i) / 52.0f);
  const Tensor t = MakeTensor<float>(TensorShape({53}), x);
  struct Ref {
    const char* op;
    double (*fn)(double);
  };
  for (const Ref& r : {
           Ref{"Tanh", [](double v) { return std::tanh(v); }},
           Ref{"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
           Ref{"Elu", [](double v) { return v < 0 ? std::expm1(v) : v; }},
           Ref{"Selu",
               [](double v) {
                 return v < 0 ? 1.7580993408473768599402175208123 * std::expm1(v)
                              : 1.0507009873554804934193349852946 * v;
               }},
           Ref{"Softplus", [](double v) { return std::log1p(std::exp(v)); }},
           Ref{"Softsign", [](double v) { return v / (1 + std::abs(v)); }},
           Ref{"Relu6", [](double v) { return std::min(std::max(v, 0.0), 6.0); }},
       }) {
    SCOPED_TRACE(r.op);
    StatusOr<Tensor> y = RunOp(r.op, {t});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<double> expected;
    for (float v : x) expected.push_back(r.fn(v));
    ExpectAllClose(AsDoubles<float>(*y), expected, 1e-5, 1e-6);
  }
  StatusOr<Tensor> leaky = RunOp("LeakyRelu", {t}, {{"alpha", AttrFloat(-0.7f)}});
  ASSERT_TRUE(leaky.ok()) << leaky.status();
  std::vector<double> expected;
  for (float v : x) expected.push_back(v > 0 ? v : v * -0.7f);
  ExpectAllClose(AsDoubles<float>(*leaky), expected, 1e-6);
}

TEST(ActivationOpsTest, NaNPropagates) {
  const Tensor x = MakeTensor<float>(TensorShape({3}), std::vector<double>{kNaN, -1.0, 7.0});
  // TensorFlow 2.15.1: Relu [nan 0 7], Relu6 [nan 0 6], LeakyRelu [nan -0.2 7].
  for (const auto& [op, expected] : std::vector<std::pair<const char*, std::vector<double>>>{
           {"Relu", {kNaN, 0, 7}},
           {"Relu6", {kNaN, 0, 6}},
           {"LeakyRelu", {kNaN, -0.2, 7}},
           {"Elu", {kNaN, std::expm1(-1.0), 7}},
           {"Softplus", {kNaN, std::log1p(std::exp(-1.0)), 7.000911712646484}}}) {
    SCOPED_TRACE(op);
    StatusOr<Tensor> y = RunOp(op, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectAllClose(AsDoubles<float>(*y), expected, 1e-6);
  }
  StatusOr<Tensor> softsign =
      RunOp("Softsign", {MakeScalar<float>(std::numeric_limits<float>::infinity())});
  ASSERT_TRUE(softsign.ok()) << softsign.status();
  EXPECT_TRUE(std::isnan(softsign->scalar<float>()));  // TensorFlow: inf / (inf + 1) = nan
}

TEST(ActivationOpsTest, IntegerRelu) {
  const Tensor x = MakeTensor<int32_t>(TensorShape({4}), std::vector<int>{-5, 0, 3, 9});
  StatusOr<Tensor> relu = RunOp("Relu", {x});
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ(Values<int32_t>(*relu), (std::vector<int32_t>{0, 0, 3, 9}));
  StatusOr<Tensor> relu6 =
      RunOp("Relu6", {MakeTensor<uint8_t>(TensorShape({3}), std::vector<int>{0, 3, 200})});
  ASSERT_TRUE(relu6.ok()) << relu6.status();
  EXPECT_EQ(Values<uint8_t>(*relu6), (std::vector<uint8_t>{0, 3, 6}));
  EXPECT_FALSE(RunOp("Elu", {x}).ok());  // no integer Elu in TensorFlow
}

TEST(ActivationOpsTest, LeakyReluDefaultAlphaAndEmptyInput) {
  StatusOr<Tensor> y = RunOp("LeakyRelu", {MakeScalar<float>(-2.0f)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_FLOAT_EQ(y->scalar<float>(), -0.4f);  // alpha defaults to 0.2
  StatusOr<Tensor> empty = RunOp("Sigmoid", {Tensor(::tensorflow::DT_FLOAT, TensorShape({3, 0}))});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({3, 0}));
}

TEST(ActivationOpsTest, ManyThreadsGiveTheSameResult) {
  std::vector<float> x(100000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 8.0f;
  const Tensor t = MakeTensor<float>(TensorShape({100000}), x);
  StatusOr<Tensor> one = RunOp("Tanh", {t}, {}, 1);
  StatusOr<Tensor> four = RunOp("Tanh", {t}, {}, 4);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_EQ(Values<float>(*one), Values<float>(*four));
}

}  // namespace
}  // namespace testing
}  // namespace graphrt
