#include "runtime/kernels/cpu/int8_output.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/core/str_util.h"

namespace graphrt {
namespace {

// Every path gives the reference loop's bits, values and codes alike: with and without offsets,
// bias and addend, for no activation, Relu and Relu6, on widths with vector tails, and with NaN
// and infinities in the bias and addend (NaN passes the clamp as a value and is code 0).
TEST(Int8Output, EveryPathMatchesTheReference) {
  const float inf = std::numeric_limits<float>::infinity();
  struct Clamp {
    float lower, upper;
  };
  const Clamp clamps[] = {{-inf, inf}, {0.0f, inf}, {0.0f, 6.0f}};
  std::mt19937 gen(5);
  std::uniform_int_distribution<int32_t> sums(-40000, 40000);
  std::uniform_real_distribution<float> reals(-1.0f, 1.0f);
  int runs = 0;
  for (QGemmIsa isa : {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512}) {
    if (!QGemmIsaRuns(isa)) continue;
    for (int64_t cols : {1, 3, 4, 15, 16, 17, 37, 64, 100, 143}) {
      const int64_t rows = 5, ld = cols + 3;
      std::vector<int32_t> acc(static_cast<size_t>(rows * ld)), offsets(cols);
      std::vector<float> multipliers(cols), bias(cols), addend(static_cast<size_t>(rows * ld));
      for (int32_t& a : acc) a = sums(gen);
      for (int32_t& o : offsets) o = sums(gen) / 8;
      for (float& m : multipliers) m = 1e-4f * (1.0f + reals(gen));
      for (float& b : bias) b = 2.0f * reals(gen);
      for (float& a : addend) a = 3.0f * reals(gen);
      bias[0] = std::nanf("");
      addend[ld + cols - 1] = inf;
      addend[2 * ld] = -inf;
      for (int variant = 0; variant < 8; ++variant) {
        for (const Clamp& clamp : clamps) {
          for (bool codes : {false, true}) {
            Int8OutputArgs args;
            args.acc = acc.data();
            args.ld_acc = ld;
            args.rows = rows;
            args.cols = cols;
            args.offsets = (variant & 1) ? offsets.data() : nullptr;
            args.multipliers = multipliers.data();
            args.bias = (variant & 2) ? bias.data() : nullptr;
            args.addend = (variant & 4) ? addend.data() : nullptr;
            args.ld_addend = ld;
            args.lower = clamp.lower;
            args.upper = clamp.upper;
            args.ld_out = ld;
            args.range_scale = static_cast<float>(255.0 / (clamp.upper == 6.0f ? 6.0 : 9.0));
            args.min_scaled = clamp.lower == 0.0f ? 0 : -97;
            std::vector<float> want_values(static_cast<size_t>(rows * ld), 0.5f);
            std::vector<float> got_values = want_values;
            std::vector<uint8_t> want_codes(static_cast<size_t>(rows * ld), 7);
            std::vector<uint8_t> got_codes = want_codes;
            Int8OutputArgs want = args, got = args;
            if (codes) {
              want.codes = want_codes.data();
              got.codes = got_codes.data();
            } else {
              want.values = want_values.data();
              got.values = got_values.data();
            }
            Int8OutputRowsReference(want);
            Int8OutputRows(isa, got);
            SCOPED_TRACE(StrCat(QGemmIsaName(isa), " cols ", cols, " variant ", variant, " clamp [",
                                clamp.lower, ", ", clamp.upper, "]", codes ? " codes" : ""));
            if (codes) {
              EXPECT_EQ(got_codes, want_codes);
            } else {
              EXPECT_EQ(std::memcmp(got_values.data(), want_values.data(),
                                    got_values.size() * sizeof(float)),
                        0);
            }
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_GE(runs, 8 * 8 * 3 * 2);  // the baseline path at least
}

// The codes of one row of sums, acc[j] * multipliers[j] clamped to [lower, inf), with range_scale
// 1 and min_scaled -10: code = round(v) + 10.
std::vector<uint8_t> CodesOfOneRow(QGemmIsa isa, const std::vector<int32_t>& acc,
                                   const std::vector<float>& multipliers, float lower) {
  std::vector<uint8_t> codes(acc.size());
  Int8OutputArgs args;
  args.acc = acc.data();
  args.rows = 1;
  args.cols = static_cast<int64_t>(acc.size());
  args.multipliers = multipliers.data();
  args.lower = lower;
  args.upper = std::numeric_limits<float>::infinity();
  args.codes = codes.data();
  args.range_scale = 1.0f;
  args.min_scaled = -10;
  Int8OutputRows(isa, args);
  return codes;
}

// The codes are QuantizeV2's: round half away from zero at exact ties, 0 below the range and 255
// above it.
TEST(Int8Output, CodesRoundHalfAwayFromZero) {
  // v = acc * 0.5: code = round(acc / 2) + 10.
  std::vector<int32_t> acc = {-21, -20, -19, 1, 2, 3, 489, 490, 491, 600, -600, 5, 7, 9, 11, 13};
  std::vector<float> multipliers(acc.size(), 0.5f);
  for (QGemmIsa isa : {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512}) {
    if (!QGemmIsaRuns(isa)) continue;
    const std::vector<uint8_t> want = {0,   0,   0, 11, 11, 12, 255, 255,
                                       255, 255, 0, 13, 14, 15, 16,  17};
    EXPECT_EQ(CodesOfOneRow(isa, acc, multipliers, -std::numeric_limits<float>::infinity()), want)
        << QGemmIsaName(isa);
  }
}

// After Relu (a lower bound of 0) the codes take a shorter rounding (floor(p + h), h the float
// below 1/2): the same codes at ties and just below them, over 64 columns so that every path
// packs whole blocks of four vectors.
TEST(Int8Output, NonNegativeCodesRoundHalfAwayFromZero) {
  const float below_half = 0x1.fffffep-2f;
  const std::vector<int32_t> pattern = {1, 3, 5, 7, 1, 0, -3, 2000000};
  const std::vector<float> pattern_multipliers = {0.5f,       0.5f, 0.5f, 0.5f,
                                                  below_half, 0.5f, 0.5f, 0.5f};
  // 0.5, 1.5, 2.5, 3.5 round up; 0.49999997 down; 0, -1.5 (clamped to 0) and 1e6 (past 255).
  const std::vector<uint8_t> pattern_codes = {11, 12, 13, 14, 10, 10, 10, 255};
  std::vector<int32_t> acc;
  std::vector<float> multipliers;
  std::vector<uint8_t> want;
  for (int copy = 0; copy < 8; ++copy) {
    acc.insert(acc.end(), pattern.begin(), pattern.end());
    multipliers.insert(multipliers.end(), pattern_multipliers.begin(), pattern_multipliers.end());
    want.insert(want.end(), pattern_codes.begin(), pattern_codes.end());
  }
  int runs = 0;
  for (QGemmIsa isa : {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512}) {
    if (!QGemmIsaRuns(isa)) continue;
    EXPECT_EQ(CodesOfOneRow(isa, acc, multipliers, 0.0f), want) << QGemmIsaName(isa);
    ++runs;
  }
  EXPECT_GE(runs, 1);
}

// QuantizeMinFirst gives QuantizeV2's MIN_FIRST codes on every path: ties, NaN, infinities and
// values past either end of the range, over lengths that end inside a vector or a block of four.
TEST(Int8Output, QuantizeMinFirstMatchesScalarCodes) {
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> reals(-3.0f, 5.0f);
  const float range_scale = 255.0f / 8.0f;
  const int32_t min_scaled = -96;  // round(-3 * 255 / 8)
  int runs = 0;
  for (QGemmIsa isa : {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512}) {
    if (!QGemmIsaRuns(isa)) continue;
    for (int64_t n : {1, 15, 16, 17, 63, 64, 65, 130}) {
      std::vector<float> x(static_cast<size_t>(n));
      for (float& v : x) v = reals(gen);
      const float specials[] = {
          std::nanf(""),       inf,    -inf,   0.5f / range_scale, 2.5f / range_scale,
          -1.5f / range_scale, 100.0f, -100.0f};
      for (int64_t i = 0; i < n; i += 3) x[i] = specials[(i / 3) % 8];
      std::vector<uint8_t> got(static_cast<size_t>(n) + 1, 7);
      QuantizeMinFirst(isa, x.data(), n, range_scale, min_scaled, got.data());
      for (int64_t i = 0; i < n; ++i) {
        const float p = x[i] * range_scale;
        int want = 0;
        if (!std::isnan(p)) {
          const float r = std::round(std::min(1048576.0f, std::max(-1048576.0f, p)));
          want = static_cast<int>(std::min(255.0f, std::max(0.0f, r - min_scaled)));
        }
        ASSERT_EQ(got[i], want) << QGemmIsaName(isa) << " n=" << n << " x=" << x[i];
      }
      EXPECT_EQ(got[n], 7) << "wrote past the end";
      ++runs;
    }
  }
  EXPECT_GE(runs, 8);
}

}  // namespace
}  // namespace graphrt
