#include "runtime/kernels/cpu/tap_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace graphrt {
namespace {

// The vector paths (AVX2, AVX-512) this CPU runs.
std::vector<CpuIsa> VectorPaths() {
  std::vector<CpuIsa> paths;
  for (CpuIsa isa : {CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(DetectedCpuIsa())) paths.push_back(isa);
  }
  return paths;
}

// `count` vectors of `size` random values in [-1, 1), and pointers to them.
struct RandomRows {
  RandomRows(int64_t count, int64_t size, std::mt19937* rng)
      : values(count, std::vector<float>(size)) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (auto& row : values) {
      for (float& x : row) x = dist(*rng);
      pointers.push_back(row.data());
    }
  }
  std::vector<std::vector<float>> values;
  std::vector<const float*> pointers;
};

// Every TapSum path this CPU runs, against a double-precision sum, for lengths that end inside
// a chunk, inside a vector and on a boundary, and periods of one and several units.
TEST(TapSumTest, EveryPathMatchesDoubleSum) {
  const std::vector<CpuIsa> paths = VectorPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 rng(3);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (int64_t taps : {0, 1, 4, 9, 25}) {
      for (int64_t len : {1, 7, 8, 15, 16, 63, 64, 65, 200, 1000}) {
        for (int64_t period : {kTapSumPeriodUnit, 3 * kTapSumPeriodUnit}) {
          const RandomRows src(taps, len, &rng), weight(taps, period, &rng);
          std::vector<float> out(len + 1, 42.f);
          TapSum(isa, src.pointers.data(), weight.pointers.data(), taps, len, period, out.data());
          for (int64_t i = 0; i < len; ++i) {
            double sum = 0, magnitude = 0;
            for (int64_t t = 0; t < taps; ++t) {
              const double term =
                  static_cast<double>(src.values[t][i]) * weight.values[t][i % period];
              sum += term;
              magnitude += std::fabs(term);
            }
            ASSERT_NEAR(out[i], sum, 1e-6 * magnitude + 1e-7)
                << CpuIsaName(isa) << " taps=" << taps << " len=" << len << " at " << i;
          }
          ASSERT_EQ(out[len], 42.f) << "wrote past the end";
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size()) * 5 * 10 * 2);
}

// TapSumPixels on every path against a double-precision sum: depths of whole chunks, whole
// vectors and scalar tails, pixel steps of one and three pixels.
TEST(TapSumTest, PixelsMatchDoubleSum) {
  const std::vector<CpuIsa> paths = VectorPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 rng(4);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (int64_t taps : {0, 1, 9}) {
      for (int64_t depth : {1, 7, 8, 16, 24, 40, 64, 96, 100}) {
        for (int64_t step_pixels : {1, 3}) {
          const int64_t pixels = 5, step = step_pixels * depth;
          const RandomRows src(taps, pixels * step, &rng), weight(taps, depth, &rng);
          std::vector<float> out(pixels * depth + 1, 42.f);
          TapSumPixels(isa, src.pointers.data(), weight.pointers.data(), taps, pixels, depth, step,
                       out.data());
          for (int64_t p = 0; p < pixels; ++p) {
            for (int64_t c = 0; c < depth; ++c) {
              double sum = 0, magnitude = 0;
              for (int64_t t = 0; t < taps; ++t) {
                const double term =
                    static_cast<double>(src.values[t][p * step + c]) * weight.values[t][c];
                sum += term;
                magnitude += std::fabs(term);
              }
              ASSERT_NEAR(out[p * depth + c], sum, 1e-6 * magnitude + 1e-7)
                  << CpuIsaName(isa) << " taps=" << taps << " depth=" << depth << " at " << p << ","
                  << c;
            }
          }
          ASSERT_EQ(out[pixels * depth], 42.f) << "wrote past the end";
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size()) * 3 * 9 * 2);
}

// TapRows gives TapSumPixels' bits (the same multiply-adds in the same order) for windows 3 and
// 5 wide, 0 to 3 window rows, pixel counts around its blocks of 8.
TEST(TapSumTest, RowsGiveTapSumPixelsBits) {
  const std::vector<CpuIsa> paths = VectorPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 rng(5);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (int width : {3, 5}) {
      for (int64_t rows : {0, 1, 3}) {
        for (int64_t depth : {16, 48}) {
          for (int64_t pixels : {1, 7, 8, 9, 17}) {
            ASSERT_TRUE(TapRowsApplies(width, depth));
            const int64_t cols = pixels + width - 1;
            const RandomRows src(rows, cols * depth, &rng), weight(rows, width * depth, &rng);
            // The same taps one by one, as TapSumPixels takes them.
            std::vector<const float*> tap_srcs, tap_weights;
            for (int64_t r = 0; r < rows; ++r) {
              for (int kw = 0; kw < width; ++kw) {
                tap_srcs.push_back(src.pointers[r] + kw * depth);
                tap_weights.push_back(weight.pointers[r] + kw * depth);
              }
            }
            std::vector<float> got(pixels * depth + 1, 42.f), want(pixels * depth + 1, 42.f);
            TapRows(isa, src.pointers.data(), weight.pointers.data(), rows, width, pixels, depth,
                    got.data());
            TapSumPixels(isa, tap_srcs.data(), tap_weights.data(), rows * width, pixels, depth,
                         depth, want.data());
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_EQ(got[i], want[i])
                  << CpuIsaName(isa) << " width=" << width << " rows=" << rows << " depth=" << depth
                  << " pixels=" << pixels << " at " << i;
            }
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size()) * 2 * 3 * 2 * 5);
}

}  // namespace
}  // namespace graphrt
