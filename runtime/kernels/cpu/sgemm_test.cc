#include "runtime/kernels/cpu/sgemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "runtime/kernels/cpu/bias_activation.h"
#include "runtime/kernels/cpu/cpu_isa.h"
#include "runtime/kernels/cpu/packed_weights.h"

namespace graphrt {
namespace {

struct Shape {
  int64_t m, n, k;
};

// c[m, n] (row stride ldc) = a[m, k] * b[k, n], both row-major.
SgemmArgs RowMajorProduct(const Shape& s, const float* a, const float* b, int64_t ldc) {
  SgemmArgs args;
  args.m = s.m;
  args.n = s.n;
  args.k = s.k;
  args.a = a;
  args.a_row = s.k;
  args.a_col = 1;
  args.b = b;
  args.b_row = s.n;
  args.b_col = 1;
  args.ldc = ldc;
  return args;
}

// The packed paths this CPU runs.
std::vector<CpuIsa> PackedPaths() {
  std::vector<CpuIsa> paths;
  for (CpuIsa isa : {CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(DetectedCpuIsa())) paths.push_back(isa);
  }
  return paths;
}

// Every packed path this CPU runs, against a double-precision product, on shapes that cut
// every block and register tile at odd places, with each operand transposed or not and c a
// block of a wider matrix.
TEST(PackedSgemmTest, EveryPathMatchesDoubleProductOnOddShapes) {
  const std::vector<CpuIsa> paths = PackedPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  const std::vector<Shape> shapes = {
      {1, 1, 1},    {1, 37, 5},   {2, 16, 3},   {3, 9, 300},    {4, 100, 17},  {5, 7, 1},
      {6, 16, 256}, {7, 33, 257}, {12, 32, 64}, {13, 31, 513},  {25, 65, 129}, {71, 15, 30},
      {73, 48, 8},  {145, 3, 40}, {150, 97, 2}, {300, 129, 31}, {17, 2100, 9}, {33, 2049, 260}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (const Shape& s : shapes) {
      for (int transposes = 0; transposes < 4; ++transposes) {
        const bool ta = transposes & 1, tb = transposes & 2;
        std::vector<float> a(s.m * s.k), b(s.k * s.n);
        for (float& x : a) x = dist(rng);
        for (float& x : b) x = dist(rng);
        const int64_t ldc = s.n + 3;
        std::vector<float> c(s.m * ldc, 42.f);
        SgemmArgs args;
        args.m = s.m;
        args.n = s.n;
        args.k = s.k;
        args.a = a.data();
        args.a_row = ta ? 1 : s.k;
        args.a_col = ta ? s.m : 1;
        args.b = b.data();
        args.b_row = tb ? 1 : s.n;
        args.b_col = tb ? s.k : 1;
        args.c = c.data();
        args.ldc = ldc;
        ASSERT_TRUE(PackedSgemm(isa, args));
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            if (j >= s.n) {
              ASSERT_EQ(c[i * ldc + j], 42.f) << "wrote past the columns of c";
              continue;
            }
            double sum = 0, magnitude = 0;
            for (int64_t p = 0; p < s.k; ++p) {
              const double term = static_cast<double>(a[i * args.a_row + p * args.a_col]) *
                                  b[p * args.b_row + j * args.b_col];
              sum += term;
              magnitude += std::fabs(term);
            }
            // float accumulation over k terms: a few ulps of the sum of magnitudes.
            ASSERT_NEAR(c[i * ldc + j], sum, 1e-6 * magnitude + 1e-7)
                << CpuIsaName(isa) << " m=" << s.m << " n=" << s.n << " k=" << s.k << " ta=" << ta
                << " tb=" << tb << " at (" << i << ", " << j << ")";
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size() * shapes.size() * 4));
}

// With B marked as coming from memory, the tiles that ask for it ahead (blocks of at most 60
// rows, B packed once) give the very bits of the ones that do not, with and without the epilogue
// in the tiles, over depths shorter than the distance asked ahead (the first ask lands in the
// next panel), longer ones, and ones cut into blocks (panels not contiguous).
TEST(PackedSgemmTest, AskingForBAheadGivesTheSameBits) {
  const std::vector<CpuIsa> paths = PackedPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  const std::vector<Shape> shapes = {{12, 70, 5}, {24, 64, 100}, {49, 97, 300}, {60, 33, 513}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (const Shape& s : shapes) {
      std::vector<float> a(s.m * s.k), b(s.k * s.n), bias(s.n);
      for (float& x : a) x = dist(rng);
      for (float& x : b) x = dist(rng);
      for (float& x : bias) x = dist(rng);
      std::unique_ptr<SgemmPackedB> packed = SgemmPackedB::Pack(isa, b.data(), s.n, 1, s.k, s.n);
      ASSERT_NE(packed, nullptr);
      SgemmEpilogue epilogue;
      epilogue.bias = bias.data();
      epilogue.activation = RowActivation::kRelu;
      const SgemmEpilogue* const ends[] = {nullptr, &epilogue};
      for (const SgemmEpilogue* end : ends) {
        std::vector<float> plain(s.m * s.n, 42.f), ahead(s.m * s.n, 7.f);
        SgemmArgs args = RowMajorProduct(s, a.data(), b.data(), s.n);
        args.epilogue = end;
        args.c = plain.data();
        ASSERT_TRUE(PackedSgemm(isa, args, *packed, 0));
        args.c = ahead.data();
        args.b_from_memory = true;
        ASSERT_TRUE(PackedSgemm(isa, args, *packed, 0));
        for (size_t i = 0; i < plain.size(); ++i) {
          ASSERT_EQ(ahead[i], plain[i]) << CpuIsaName(isa) << " m=" << s.m << " n=" << s.n
                                        << " k=" << s.k << " element " << i;
        }
        double sum = 0;  // element (m - 1, n - 1) against the double product
        for (int64_t p = 0; p < s.k; ++p) {
          sum += static_cast<double>(a[(s.m - 1) * s.k + p]) * b[p * s.n + s.n - 1];
        }
        if (end != nullptr) sum = std::max(0.0, sum + bias[s.n - 1]);
        EXPECT_NEAR(ahead.back(), sum, 1e-5 * s.k);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size() * shapes.size() * 2));
}

// The epilogue run inside the tiles gives the very bits of the product followed by
// BiasActivationRows, for every activation, with and without an addend, on few-row and blocked
// products (K over one block, so that only the last block's tiles finish), B packed once or
// per product, c a block of a wider matrix that is left alone past its columns.
TEST(PackedSgemmTest, EpilogueInTilesGivesBiasActivationRowsBits) {
  const std::vector<CpuIsa> paths = PackedPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  const std::vector<Shape> shapes = {{3, 37, 5}, {13, 24, 300}, {40, 144, 16}, {25, 7, 513}};
  const std::vector<RowActivation> activations = {
      RowActivation::kNone,      RowActivation::kRelu,      RowActivation::kRelu6,
      RowActivation::kLeakyRelu, RowActivation::kHardSwish, RowActivation::kElu,
      RowActivation::kSigmoid,   RowActivation::kSwish};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (const Shape& s : shapes) {
      const int64_t ldc = s.n + 5;
      std::vector<float> a(s.m * s.k), b(s.k * s.n), bias(s.n), addend(s.m * ldc);
      for (float& x : a) x = dist(rng);
      for (float& x : b) x = dist(rng);
      for (float& x : bias) x = 4.f * dist(rng);
      for (float& x : addend) x = 4.f * dist(rng);
      std::unique_ptr<SgemmPackedB> packed = SgemmPackedB::Pack(isa, b.data(), s.n, 1, s.k, s.n);
      ASSERT_NE(packed, nullptr);
      for (RowActivation activation : activations) {
        for (bool with_addend : {false, true}) {
          for (bool prepacked : {false, true}) {
            SgemmArgs args = RowMajorProduct(s, a.data(), b.data(), ldc);
            std::vector<float> want(s.m * ldc, 42.f), got(s.m * ldc, 42.f);
            args.c = want.data();
            ASSERT_TRUE(prepacked ? PackedSgemm(isa, args, *packed, 0) : PackedSgemm(isa, args));
            for (int64_t i = 0; i < s.m; ++i) {
              BiasActivationArgs row;
              row.bias = bias.data();
              row.addend = with_addend ? addend.data() + i * ldc : nullptr;
              row.rows = 1;
              row.channels = s.n;
              row.activation = activation;
              row.alpha = 0.2f;
              row.out = want.data() + i * ldc;
              BiasActivationRows(isa, row);
            }
            SgemmEpilogue epilogue;
            epilogue.bias = bias.data();
            epilogue.addend = with_addend ? addend.data() : nullptr;
            epilogue.activation = activation;
            epilogue.alpha = 0.2f;
            args.c = got.data();
            args.epilogue = &epilogue;
            ASSERT_TRUE(prepacked ? PackedSgemm(isa, args, *packed, 0) : PackedSgemm(isa, args));
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_EQ(got[i], want[i])
                  << CpuIsaName(isa) << " m=" << s.m << " n=" << s.n << " k=" << s.k
                  << " activation " << static_cast<int>(activation) << " addend " << with_addend
                  << " prepacked " << prepacked << " at " << i;
            }
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(paths.size() * shapes.size() * activations.size() * 4));
}

// B packed once (SgemmPackedB) gives the very bits of B packed per product (products of more
// than 4 rows), for the whole of B and for column blocks starting at a panel boundary, as
// Gemm's threads split it.
TEST(PackedSgemmTest, PrepackedBGivesTheSameBitsAsPackingPerProduct) {
  const std::vector<CpuIsa> paths = PackedPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  const std::vector<Shape> shapes = {{1, 40, 7},     {3, 16, 300}, {5, 70, 33},  {13, 31, 513},
                                     {49, 512, 600}, {71, 15, 30}, {150, 97, 2}, {33, 2100, 260}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int checked = 0;
  for (CpuIsa isa : paths) {
    for (const Shape& s : shapes) {
      for (bool tb : {false, true}) {
        std::vector<float> a(s.m * s.k), b(s.k * s.n);
        for (float& x : a) x = dist(rng);
        for (float& x : b) x = dist(rng);
        const int64_t b_row = tb ? 1 : s.n, b_col = tb ? s.k : 1;
        std::unique_ptr<SgemmPackedB> packed =
            SgemmPackedB::Pack(isa, b.data(), b_row, b_col, s.k, s.n);
        ASSERT_NE(packed, nullptr);
        const int64_t width = packed->panel_columns();
        // The whole product, then the columns from the second panel on.
        for (int64_t j0 : {int64_t{0}, width}) {
          if (j0 >= s.n) continue;
          const int64_t n = s.n - j0;
          SgemmArgs args;
          args.m = s.m;
          args.n = n;
          args.k = s.k;
          args.a = a.data();
          args.a_row = s.k;
          args.a_col = 1;
          args.b = b.data() + j0 * b_col;
          args.b_row = b_row;
          args.b_col = b_col;
          std::vector<float> want(s.m * n), got(s.m * n);
          args.ldc = n;
          args.c = want.data();
          ASSERT_TRUE(PackedSgemm(isa, args));
          args.c = got.data();
          ASSERT_TRUE(PackedSgemm(isa, args, *packed, j0));
          if (s.m > 4) {
            ASSERT_EQ(got, want) << CpuIsaName(isa) << " m=" << s.m << " n=" << s.n << " k=" << s.k
                                 << " tb=" << tb << " j0=" << j0;
          } else {
            // Products of up to 4 rows stream B and sum in another order: within float rounding.
            for (int64_t i = 0; i < s.m * n; ++i) {
              double magnitude = 0;
              for (int64_t p = 0; p < s.k; ++p) {
                magnitude += std::fabs(static_cast<double>(a[i / n * s.k + p]) *
                                       args.b[p * b_row + (i % n) * b_col]);
              }
              ASSERT_NEAR(got[i], want[i], 1e-6 * magnitude + 1e-7)
                  << CpuIsaName(isa) << " m=" << s.m << " n=" << s.n << " k=" << s.k << " tb=" << tb
                  << " j0=" << j0 << " at " << i;
            }
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, static_cast<int>(paths.size() * shapes.size() * 2));
}

// PackedWeights packs on the first call and hands that packing only to calls for the same
// matrix (same buffer, layout and shape); any other call gets null and packs B itself.
TEST(PackedWeightsTest, ReusesThePackingOnlyForTheSameMatrix) {
  const std::vector<CpuIsa> paths = PackedPaths();
  if (paths.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  const CpuIsa isa = paths.back();
  std::vector<float> b(64 * 48, 0.5f), other(64 * 48, 0.25f);
  PackedWeights weights;
  const SgemmPackedB* first = weights.Get(isa, b.data(), 48, 1, 64, 48);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->k(), 64);
  EXPECT_EQ(first->n(), 48);
  EXPECT_EQ(weights.Get(isa, b.data(), 48, 1, 64, 48), first);
  EXPECT_EQ(weights.Get(isa, other.data(), 48, 1, 64, 48), nullptr);
  EXPECT_EQ(weights.Get(isa, b.data(), 1, 64, 64, 48), nullptr);
  EXPECT_EQ(weights.Get(isa, b.data(), 48, 1, 32, 48), nullptr);
  EXPECT_EQ(weights.Get(CpuIsa::kBaseline, b.data(), 48, 1, 64, 48), nullptr);
  PackedWeights baseline;
  EXPECT_EQ(baseline.Get(CpuIsa::kBaseline, b.data(), 48, 1, 64, 48), nullptr);
}

}  // namespace
}  // namespace graphrt
