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
  }
  return x;
}

// Every path this CPU runs gives the scalar loop's values bit for bit (NaN passed on), for
// channel counts that end inside a vector and on a boundary, with and without a residual.
TEST(BiasActivationTest, EveryPathMatchesTheScalarEpilogueExactly) {
  std::vector<CpuIsa> paths;
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(DetectedCpuIsa())) paths.push_back(isa);
  }
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
          BiasActivationArgs args;
          args.bias = bias.data();
          args.addend = residual ? addend.data() : nullptr;
          args.rows = rows;
          args.channels = channels;
          args.activation = activation;
          args.alpha = 0.3f;
          args.out = out.data();
          BiasActivationRows(isa, args);
          for (int64_t i = 0; i < rows * channels; ++i) {
            const float want = Expected(before[i], bias[i % channels],
                                        residual ? &addend[i] : nullptr, activation, 0.3f);
            if (std::isnan(want)) {
              ASSERT_TRUE(std::isnan(out[i])) << CpuIsaName(isa) << " at " << i;
            } else {
              ASSERT_EQ(out[i], want) << CpuIsaName(isa) << " activation "
                                      << static_cast<int>(activation) << " channels " << channels
                                      << " at " << i;
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

}  // namespace
}  // namespace graphrt
