#include "runtime/kernels/cpu/bias_activation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace graphrt {
namespace {

// The epilogue as fused_epilogue.h's scalar loop computes it.
float Expected(float x, float bias, const float* addend, RowActivation activation, float alpha) {
  x += bias;
  if (addend != nullptr) x += *addend;
  switch (activation) {
    case RowActivation::kNone:
      return x;
    case RowActivation::kRelu:
      return x < 0 ? 0 : x;
    case RowActivation::kRelu6:
      return x < 0 ? 0 : (x > 6 ? 6 : x);
    case RowActivation::kLeakyRelu:
      return x > 0 ? x : x * alpha;
    case RowActivation::kHardSwish: {
      const float r = x + 3;
      return x * (r < 0 ? 0 : (r > 6 ? 6 : r)) * static_cast<float>(1.0 / 6.0);
    }
    default:
      break;
  }
  return x;
}

// The activations with exp, in double precision, of the float x + bias (+ addend).
double ExpectedWithExp(float x, float bias, const float* addend, RowActivation activation) {
  x += bias;
  if (addend != nullptr) x += *addend;
  const double v = x;
  switch (activation) {
    case RowActivation::kElu:
      return v < 0 ? std::expm1(v) : v;
    case RowActivation::kSigmoid:
      return 1 / (1 + std::exp(-v));
    case RowActivation::kSwish:
      return v / (1 + std::exp(-v));
    default:
      return v;
  }
}

// Runs BiasActivationRows of `isa` on `out` ([rows, bias.size()]), with the residual when
// `residual`.
void RunRows(CpuIsa isa, const std::vector<float>& bias, const std::vector<float>& addend,
             bool residual, int64_t rows, RowActivation activation, float alpha, float* out) {
  BiasActivationArgs args;
  args.bias = bias.data();
  args.addend = residual ? addend.data() : nullptr;
  args.rows = rows;
  args.channels = static_cast<int64_t>(bias.size());
  args.activation = activation;
  args.alpha = alpha;
  args.out = out;
  BiasActivationRows(isa, args);
}

std::vector<CpuIsa> Paths() {
  std::vector<CpuIsa> paths;
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(DetectedCpuIsa())) paths.push_back(isa);
  }
  return paths;
}

// Every path this CPU runs gives the scalar loop's values bit for bit (NaN passed on), for
// channel counts that end inside a vector and on a boundary, with and without a residual.
TEST(BiasActivationTest, EveryPathMatchesTheScalarEpilogueExactly) {
  const std::vector<CpuIsa> paths = Paths();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-10.f, 10.f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (RowActivation activation :
         {RowActivation::kNone, RowActivation::kRelu, RowActivation::kRelu6,
          RowActivation::kLeakyRelu, RowActivation::kHardSwish}) {
      for (int64_t channels : {1, 3, 4, 8, 16, 17, 40, 100}) {
        for (bool residual : {false, true}) {
          const int64_t rows = 3;
          std::vector<float> bias(channels), addend(rows * channels), out(rows * channels + 1);
          for (float& x : bias) x = dist(rng);
          for (float& x : addend) x = dist(rng);
          for (float& x : out) x = dist(rng);
          out[channels / 2] = nan;
          out[rows * channels] = 42.f;
          const std::vector<float> before = out;
          RunRows(isa, bias, addend, residual, rows, activation, 0.3f, out.data());
          for (int64_t i = 0; i < rows * channels; ++i) {
            const float want = Expected(before[i], bias[i % channels],
                                        residual ? &addend[i] : nullptr, activation, 0.3f);
            if (std::isnan(want)) {
              ASSERT_TRUE(std::isnan(out[i])) << CpuIsaName(isa) << " at " << i;
            } else {
              ASSERT_EQ(out[i], want)
                  << CpuIsaName(isa) << " activation " << static_cast<int>(activation)
                  << " channels " << channels << " at " << i;
            }
          }
          ASSERT_EQ(out[rows * channels], 42.f) << "wrote past the end";
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size()) * 5 * 8 * 2);
}

// Elu, Sigmoid and Swish (exp from a polynomial) on every path: within 1e-6 relative of the
// formula in double precision over the whole float range that matters (|x| up to 100, where
// the results saturate or underflow), NaN passed on, on channel counts that end inside a
// vector.
TEST(BiasActivationTest, ExpActivationsMatchDoublePrecisionOnEveryPath) {
  const std::vector<CpuIsa> paths = Paths();
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> wide(-100.f, 100.f), narrow(-4.f, 4.f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (RowActivation activation :
         {RowActivation::kElu, RowActivation::kSigmoid, RowActivation::kSwish}) {
      for (int64_t channels : {1, 7, 16, 33}) {
        for (bool residual : {false, true}) {
          const int64_t rows = 64;
          std::vector<float> bias(channels), addend(rows * channels), out(rows * channels);
          for (float& x : bias) x = narrow(rng) * 0.1f;
          for (float& x : addend) x = narrow(rng) * 0.1f;
          for (size_t i = 0; i < out.size(); ++i) out[i] = i % 2 ? wide(rng) : narrow(rng);
          out[0] = nan;
          const std::vector<float> before = out;
          RunRows(isa, bias, addend, residual, rows, activation, 0.f, out.data());
          ASSERT_TRUE(std::isnan(out[0])) << CpuIsaName(isa);
          for (int64_t i = 1; i < rows * channels; ++i) {
            const double want = ExpectedWithExp(before[i], bias[i % channels],
                                                residual ? &addend[i] : nullptr, activation);
            // Elu is exp(x) - 1 as TensorFlow computes it: near zero the subtraction leaves the
            // rounding of exp(x) near 1, a few 1e-8, as absolute error. Sigmoid and Swish of
            // x < -87 underflow (exp(-x) is infinite from 88.38 on).
            const double absolute = activation == RowActivation::kElu ? 3e-7 : 1e-35;
            ASSERT_NEAR(out[i], want, 1e-6 * std::fabs(want) + absolute)
                << CpuIsaName(isa) << " activation " << static_cast<int>(activation) << " channels "
                << channels << " at " << i << " x " << before[i];
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size()) * 3 * 4 * 2);
}

}  // namespace
}  // namespace graphrt
