#include "runtime/kernels/cpu/qgemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {
namespace {

constexpr QGemmIsa kAllIsas[] = {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512,
                                 QGemmIsa::kAvx512Vnni};

std::vector<QGemmIsa> RunningIsas() {
  std::vector<QGemmIsa> isas;
  for (QGemmIsa isa : kAllIsas) {
    if (QGemmIsaRuns(isa)) isas.push_back(isa);
  }
  return isas;
}

// A product with its operands: A m x k (row stride lda), B k x n (row stride ldb).
struct Operands {
  int64_t m, n, k, lda, ldb;
  std::vector<uint8_t> a;
  std::vector<int8_t> b;
};

// Full-range random values; strides wider than the rows, so that a kernel reading past a row
// reads other numbers instead of zeros.
Operands RandomOperands(int64_t m, int64_t n, int64_t k, std::mt19937* rng) {
  Operands o{m, n, k, k + 3, n + 5, {}, {}};
  o.a.resize(static_cast<size_t>(m * o.lda));
  o.b.resize(static_cast<size_t>(k * o.ldb));
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t& x : o.a) x = static_cast<uint8_t>(byte(*rng));
  for (int8_t& x : o.b) x = static_cast<int8_t>(byte(*rng) - 128);
  return o;
}

// The same operands with A's rows back to back (lda = k), as a 1x1 convolution passes them.
Operands WithDenseRows(const Operands& o) {
  Operands dense = o;
  dense.lda = o.k;
  dense.a.resize(static_cast<size_t>(o.m * o.k));
  for (int64_t i = 0; i < o.m; ++i) {
    for (int64_t p = 0; p < o.k; ++p) dense.a[i * o.k + p] = o.a[i * o.lda + p];
  }
  return dense;
}

Operands ConstantOperands(int64_t m, int64_t n, int64_t k, uint8_t a, int8_t b) {
  Operands o{m, n, k, k, n, {}, {}};
  o.a.assign(static_cast<size_t>(m * k), a);
  o.b.assign(static_cast<size_t>(k * n), b);
  return o;
}

std::vector<int32_t> Reference(const Operands& o) {
  std::vector<int32_t> c(static_cast<size_t>(o.m * o.n));
  QGemmReference(o.m, o.n, o.k, o.a.data(), o.lda, o.b.data(), o.ldb, c.data(), o.n);
  return c;
}

constexpr int32_t kUntouched = 0x5a5a5a5a;

// QGemm of columns [j0, j0 + n) into a c wider than that block, checked exactly against the
// reference; the columns outside the block must keep kUntouched. Returns whether all matched.
bool CheckColumns(const QGemmPackedB& packed, const Operands& o, const std::vector<int32_t>& want,
                  int64_t j0, int64_t n, const std::string& what) {
  const int64_t ldc = o.n + 2;
  std::vector<int32_t> c(static_cast<size_t>(o.m * ldc), kUntouched);
  QGemm(packed, o.m, o.a.data(), o.lda, c.data() + j0, ldc, j0, n);
  for (int64_t i = 0; i < o.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const bool inside = j >= j0 && j < j0 + n;
      const int32_t expected = inside ? want[i * o.n + j] : kUntouched;
      if (c[i * ldc + j] != expected) {
        ADD_FAILURE() << what << " j0 " << j0 << " n " << n << ": c(" << i << ", " << j
                      << ") = " << c[i * ldc + j] << ", want " << expected;
        return false;
      }
    }
  }
  return true;
}

std::string Describe(QGemmIsa isa, const Operands& o) {
  return std::string(QGemmIsaName(isa)) + " m " + std::to_string(o.m) + " n " +
         std::to_string(o.n) + " k " + std::to_string(o.k);
}

TEST(QGemmTest, NamesAndRunsAgreeWithCpuIsa) {
  EXPECT_STREQ(QGemmIsaName(QGemmIsa::kBaseline), "baseline");
  EXPECT_STREQ(QGemmIsaName(QGemmIsa::kAvx2), "avx2");
  EXPECT_STREQ(QGemmIsaName(QGemmIsa::kAvx512), "avx512");
  EXPECT_STREQ(QGemmIsaName(QGemmIsa::kAvx512Vnni), "avx512vnni");
  const int detected = static_cast<int>(DetectedCpuIsa());
  EXPECT_TRUE(QGemmIsaRuns(QGemmIsa::kBaseline));
  EXPECT_EQ(QGemmIsaRuns(QGemmIsa::kAvx2), detected >= static_cast<int>(CpuIsa::kAvx2));
  EXPECT_EQ(QGemmIsaRuns(QGemmIsa::kAvx512), detected >= static_cast<int>(CpuIsa::kAvx512));
  if (QGemmIsaRuns(QGemmIsa::kAvx512Vnni)) {
    EXPECT_TRUE(QGemmIsaRuns(QGemmIsa::kAvx512));
  }
  // A path the CPU lacks packs nothing (its code would not run here); every path is counted as
  // running or lacking, so that none is skipped unseen.
  const int8_t b[4] = {1, -2, 3, -4};
  int running = 0, lacking = 0;
  for (QGemmIsa isa : kAllIsas) {
    std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, b, 2, 2, 2);
    if (QGemmIsaRuns(isa)) {
      ++running;
      ASSERT_NE(packed, nullptr) << QGemmIsaName(isa);
      EXPECT_EQ(packed->isa(), isa);
    } else {
      ++lacking;
      EXPECT_EQ(packed, nullptr) << QGemmIsaName(isa) << " packed on a CPU without it";
    }
  }
  EXPECT_EQ(running + lacking, 4);
  EXPECT_EQ(running, static_cast<int>(RunningIsas().size()));
  EXPECT_EQ(running, 1 + detected + (QGemmIsaRuns(QGemmIsa::kAvx512Vnni) ? 1 : 0));
}

TEST(QGemmTest, ActivePathIsTheWidestWithinActiveCpuIsa) {
  const QGemmIsa active = ActiveQGemmIsa();
  EXPECT_TRUE(QGemmIsaRuns(active));
  switch (ActiveCpuIsa()) {
    case CpuIsa::kBaseline:
      EXPECT_EQ(active, QGemmIsa::kBaseline);
      break;
    case CpuIsa::kAvx2:
      EXPECT_EQ(active, QGemmIsa::kAvx2);
      break;
    case CpuIsa::kAvx512:
      EXPECT_EQ(active,
                QGemmIsaRuns(QGemmIsa::kAvx512Vnni) ? QGemmIsa::kAvx512Vnni : QGemmIsa::kAvx512);
      break;
  }
}

TEST(QGemmTest, PackRejectsEmptyShapesAndKeepsTheShape) {
  const int8_t b[6] = {1, 2, 3, 4, 5, 6};
  for (QGemmIsa isa : RunningIsas()) {
    EXPECT_EQ(QGemmPackedB::Pack(isa, b, 3, 0, 3), nullptr) << QGemmIsaName(isa);
    EXPECT_EQ(QGemmPackedB::Pack(isa, b, 3, 2, 0), nullptr) << QGemmIsaName(isa);
    std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, b, 3, 2, 3);
    ASSERT_NE(packed, nullptr) << QGemmIsaName(isa);
    EXPECT_EQ(packed->k(), 2);
    EXPECT_EQ(packed->n(), 3);
  }
}

TEST(QGemmTest, ColumnSumsAreTheSumsOfB) {
  std::mt19937 rng(3);
  int checked = 0;
  for (QGemmIsa isa : RunningIsas()) {
    for (int64_t k : {1, 7, 300}) {
      for (int64_t n : {1, 33, 70}) {
        const Operands o = RandomOperands(1, n, k, &rng);
        std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
        ASSERT_NE(packed, nullptr);
        for (int64_t j = 0; j < n; ++j) {
          int32_t sum = 0;
          for (int64_t p = 0; p < k; ++p) sum += o.b[p * o.ldb + j];
          ASSERT_EQ(packed->column_sums()[j], sum) << Describe(isa, o) << " column " << j;
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 9 * static_cast<int>(RunningIsas().size()));
}

// Every running path, on random shapes that cut the register tiles and blocks at odd places,
// with full-range values, whole and in column blocks that start anywhere.
TEST(QGemmTest, EveryPathMatchesTheReferenceExactly) {
  const std::vector<QGemmIsa> isas = RunningIsas();
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> small(1, 70);
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes = {{1, 1, 1},     {1, 1, 5},     {2, 3, 1},    {1, 64, 4},
                               {6, 64, 4},    {4, 16, 512},  {7, 65, 513}, {300, 257, 513},
                               {5, 33, 1300}, {97, 40, 2100}};
  constexpr int kRandomShapes = 60;
  for (int s = 0; s < kRandomShapes; ++s) shapes.push_back({small(rng), small(rng), small(rng)});
  int products = 0, blocks = 0;
  for (const Shape& s : shapes) {
    const Operands o = s.m % 2 == 0 ? WithDenseRows(RandomOperands(s.m, s.n, s.k, &rng))
                                    : RandomOperands(s.m, s.n, s.k, &rng);
    const std::vector<int32_t> want = Reference(o);
    for (QGemmIsa isa : isas) {
      const std::string what = Describe(isa, o);
      std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
      ASSERT_NE(packed, nullptr) << what;
      // n < 0: every column.
      {
        const int64_t ldc = o.n;
        std::vector<int32_t> c(static_cast<size_t>(o.m * ldc), kUntouched);
        QGemm(*packed, o.m, o.a.data(), o.lda, c.data(), ldc);
        ASSERT_EQ(c, want) << what;
        ++products;
      }
      std::uniform_int_distribution<int64_t> start(0, o.n - 1);
      for (int trial = 0; trial < 3; ++trial) {
        const int64_t j0 = start(rng);
        std::uniform_int_distribution<int64_t> count(1, o.n - j0);
        ASSERT_TRUE(CheckColumns(*packed, o, want, j0, count(rng), what));
        ++blocks;
      }
    }
  }
  const int cases = static_cast<int>(shapes.size() * isas.size());
  EXPECT_EQ(products, cases);
  EXPECT_EQ(blocks, 3 * cases);
  EXPECT_EQ(products, (10 + kRandomShapes) * static_cast<int>(isas.size()));
}

// The edges of the register tiles one by one: every width from 1 to past one 64-column panel
// (each number of vectors in a panel, a partial last vector or none), row counts on both sides of
// each path's tile height (4, 6 or 8), in one or several depth blocks, shallow depths as in
// MobileNet's 1x1 convolutions (16, 24) and depths that end inside a 4-deep step. Column blocks
// start at the first column, at a multiple of 8 or 16 (a whole vector into the panel) and inside
// a vector.
TEST(QGemmTest, NarrowAndShortTilesMatchTheReference) {
  const std::vector<QGemmIsa> isas = RunningIsas();
  std::mt19937 rng(17);
  int products = 0;
  for (int64_t k : {16, 27}) {
    for (int64_t n = 1; n <= 80; ++n) {
      for (int64_t m : {1, 5, 13}) {
        // Rows back to back for one row count: A packed in one run on the int16 paths.
        const Operands o =
            m == 13 ? WithDenseRows(RandomOperands(m, n, k, &rng)) : RandomOperands(m, n, k, &rng);
        const std::vector<int32_t> want = Reference(o);
        for (QGemmIsa isa : isas) {
          const std::string what = Describe(isa, o);
          std::unique_ptr<QGemmPackedB> packed =
              QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
          ASSERT_NE(packed, nullptr) << what;
          ASSERT_TRUE(CheckColumns(*packed, o, want, 0, n, what));
          for (int64_t j0 : {8, 16, 19}) {
            if (j0 < n) {
              ASSERT_TRUE(CheckColumns(*packed, o, want, j0, n - j0, what));
            }
          }
          ++products;
        }
      }
    }
  }
  EXPECT_EQ(products, 2 * 80 * 3 * static_cast<int>(isas.size()));
  // Every row count up to two tiles and a bit, and several depth blocks (512 deep on VNNI, 256
  // or 512 on the others), the last of which ends inside a step: partial vectors accumulate.
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes;
  for (int64_t m = 1; m <= 19; ++m) shapes.push_back({m, 24, 24});
  shapes.push_back({200, 16, 32});
  for (int64_t n : {8, 17, 24, 48, 72, 144}) shapes.push_back({29, n, 1030});
  shapes.push_back({7, 17, 1027});
  for (const Shape& s : shapes) {
    const Operands o = RandomOperands(s.m, s.n, s.k, &rng);
    const std::vector<int32_t> want = Reference(o);
    for (QGemmIsa isa : isas) {
      const std::string what = Describe(isa, o);
      std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
      ASSERT_NE(packed, nullptr) << what;
      ASSERT_TRUE(CheckColumns(*packed, o, want, 0, s.n, what));
      ASSERT_TRUE(CheckColumns(*packed, o, want, s.n / 3, s.n - s.n / 3, what));
    }
  }
}

// A in a buffer that ends at its last element: the VNNI kernel reads A where it lies, 4 bytes a
// step, and must not read past the end when k is not a multiple of 4 (AddressSanitizer would
// say so; without it, the results must still match).
TEST(QGemmTest, ReadsANoFurtherThanItsLastElement) {
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> byte(0, 255);
  int checked = 0;
  for (QGemmIsa isa : RunningIsas()) {
    for (int64_t k : {1, 2, 3, 4, 5, 6, 7, 9, 513, 1030}) {
      for (int64_t lda : {k, k + 1}) {
        Operands o = RandomOperands(7, 20, k, &rng);
        o.lda = lda;
        o.a = std::vector<uint8_t>(static_cast<size_t>((o.m - 1) * lda + k));
        for (uint8_t& x : o.a) x = static_cast<uint8_t>(byte(rng));
        const std::vector<int32_t> want = Reference(o);
        std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
        ASSERT_NE(packed, nullptr);
        std::vector<int32_t> c(want.size(), kUntouched);
        QGemm(*packed, o.m, o.a.data(), lda, c.data(), o.n);
        ASSERT_EQ(c, want) << Describe(isa, o) << " lda " << lda;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 10 * 2 * static_cast<int>(RunningIsas().size()));
}

// The largest magnitudes: every product 255 * -128 or 255 * 127, over a depth that spans several
// blocks, where a saturating 16-bit step (pmaddubsw) would be off.
TEST(QGemmTest, ExtremeValuesAreExact) {
  struct Corner {
    uint8_t a;
    int8_t b;
  };
  const Corner corners[] = {{255, -128}, {255, 127}, {0, -128}, {1, -1}};
  const int64_t depths[] = {1, 2, 3, 4, 5, 63, 1029, 4099};
  int checked = 0;
  for (QGemmIsa isa : RunningIsas()) {
    for (const Corner& corner : corners) {
      for (int64_t k : depths) {
        const Operands o = ConstantOperands(9, 67, k, corner.a, corner.b);
        const std::vector<int32_t> want = Reference(o);
        ASSERT_EQ(want[0], static_cast<int32_t>(k * corner.a * corner.b));
        std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
        ASSERT_NE(packed, nullptr);
        std::vector<int32_t> c(want.size(), kUntouched);
        QGemm(*packed, o.m, o.a.data(), o.lda, c.data(), o.n);
        ASSERT_EQ(c, want) << Describe(isa, o) << " a " << int{corner.a} << " b " << int{corner.b};
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 4 * 8 * static_cast<int>(RunningIsas().size()));
}

// Alternating extremes in A and B, so that neighbouring products in one 32-bit lane have
// opposite signs and the largest magnitudes.
TEST(QGemmTest, AlternatingExtremesAreExact) {
  const int64_t m = 13, n = 70, k = 777;
  Operands o{m, n, k, k, n, {}, {}};
  o.a.resize(static_cast<size_t>(m * k));
  o.b.resize(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < m * k; ++i) o.a[i] = (i % 3 == 0) ? 0 : 255;
  for (int64_t i = 0; i < k * n; ++i) o.b[i] = (i % 2 == 0) ? -128 : 127;
  const std::vector<int32_t> want = Reference(o);
  int checked = 0;
  for (QGemmIsa isa : RunningIsas()) {
    std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, k, n);
    ASSERT_NE(packed, nullptr);
    std::vector<int32_t> c(want.size());
    QGemm(*packed, m, o.a.data(), o.lda, c.data(), n);
    EXPECT_EQ(c, want) << QGemmIsaName(isa);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(RunningIsas().size()));
}

TEST(QGemmTest, NoRowsWritesNothing) {
  const int8_t b[4] = {1, 2, 3, 4};
  for (QGemmIsa isa : RunningIsas()) {
    std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, b, 2, 2, 2);
    ASSERT_NE(packed, nullptr);
    int32_t c = kUntouched;
    QGemm(*packed, 0, nullptr, 2, &c, 2);
    EXPECT_EQ(c, kUntouched) << QGemmIsaName(isa);
  }
}

// Threads share one packed B, each with its own rows and column blocks of c (each thread packs
// its blocks of A in a workspace of its own).
TEST(QGemmTest, ThreadsShareOnePackedB) {
  std::mt19937 rng(5);
  const Operands o = RandomOperands(123, 150, 700, &rng);
  const std::vector<int32_t> want = Reference(o);
  constexpr int kThreads = 4;
  constexpr int kRounds = 3;
  for (QGemmIsa isa : RunningIsas()) {
    std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(isa, o.b.data(), o.ldb, o.k, o.n);
    ASSERT_NE(packed, nullptr);
    std::vector<int32_t> c(want.size(), kUntouched);
    std::vector<int> products(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // Thread t: rows [t * m / 4, (t + 1) * m / 4) in two column blocks split at an odd
        // column, several times over.
        const int64_t r0 = t * o.m / kThreads, r1 = (t + 1) * o.m / kThreads;
        const int64_t split = 37 + 2 * t;
        for (int round = 0; round < kRounds; ++round) {
          const uint8_t* a = o.a.data() + r0 * o.lda;
          int32_t* rows = c.data() + r0 * o.n;
          QGemm(*packed, r1 - r0, a, o.lda, rows, o.n, 0, split);
          QGemm(*packed, r1 - r0, a, o.lda, rows + split, o.n, split);
          ++products[t];
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(c, want) << QGemmIsaName(isa);
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(products[t], kRounds);
  }
}

}  // namespace
}  // namespace graphrt
