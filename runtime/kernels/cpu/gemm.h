// Row-major matrix products for the CPU kernels (MatMul, BatchMatMul, Conv2D).
//
// float and double run graphrt's own kernels. PanelGemm (a * b): b is read in place, a panel of
// 16-64 columns at a time (no packing), while register tiles of 6 rows by 1-4 SIMD packets of c
// accumulate the whole inner dimension. DotGemm (a * b^T): tiles of 4 x 4 dot products,
// vectorized along the inner dimension. On one core they beat Eigen's GEMM by 20-60% on the
// shapes of dense layers and im2col convolutions, and their blocks split over threads without
// packing anything twice. Matrix-vector products, integer types, narrow results and a^T * b^T
// go to Eigen (GEMV or GEMM). A large product is cut into blocks of rows or columns run on the
// intra-op threads.
//
// float products on the AVX2 and AVX-512 paths (cpu_isa.h) go to the packed, cache-blocked
// kernels of sgemm.h instead, which reach 80-90 % of the FMA peak.
//
// half and bfloat16 are not multiplied here: callers widen them to float, as TensorFlow does for
// bfloat16, so that sums accumulate in float.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_GEMM_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_GEMM_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#include <Eigen/Core>

#include "runtime/kernels/cpu/bias_activation.h"
#include "runtime/kernels/cpu/cpu_isa.h"
#include "runtime/kernels/cpu/sgemm.h"
#include "runtime/kernels/op_kernel.h"

namespace graphrt {

// A row-major matrix in memory: element (i, j) at data[i * stride + j].
template <typename T>
struct MatrixRef {
  T* data;
  int64_t rows;
  int64_t cols;
  int64_t stride;
};

// B packed beforehand for the float kernels (a constant filter or weight matrix), and the column
// of it at which the product's b starts. Other types, and ISA paths without packed kernels,
// ignore it.
struct PrepackedB {
  const SgemmPackedB* packed = nullptr;
  int64_t j0 = 0;
};

namespace gemm_internal {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const RowMajorMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MutableMap = Eigen::Map<RowMajorMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// Products that instantiate Eigen's kernels for every storage order. Other types (rarer in
// models) copy a transposed operand instead, which keeps their compile time down.
template <typename T>
inline constexpr bool kAllStorageOrders = std::is_same<T, float>::value;

// Below this many multiply-adds the packed kernels' set-up costs more than they save.
inline constexpr int64_t kMinPackedWork = 1024;

// Below this many multiply-adds a product is not worth splitting over threads.
inline constexpr int64_t kMinParallelWork = int64_t{1} << 18;

// The types PanelGemm handles.
template <typename T>
inline constexpr bool kPanelType = std::is_same<T, float>::value || std::is_same<T, double>::value;

template <typename T>
using Packet = typename Eigen::internal::packet_traits<T>::type;
template <typename T>
inline constexpr int64_t kLanes = Eigen::internal::packet_traits<T>::size;
// Register tile: kTileRows rows by up to kWidePackets packets (24 accumulators with 32 vector
// registers, 12 with 16).
inline constexpr int kTileRows = 6;
inline constexpr int kWidePackets = EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS >= 32 ? 4 : 2;

// c[kRows, kPackets * lanes] = a[kRows, k] * b[k, kPackets * lanes], the tile held in registers.
// a(r, p) is a[r * a_row + p * a_col]; row p of b starts at b + p * ldb.
template <typename T, int kRows, int kPackets>
inline void MicroTile(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t ldb, T* c,
                      int64_t ldc, int64_t k) {
  using P = Packet<T>;
  constexpr int64_t kL = kLanes<T>;
  P acc[kRows][kPackets];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < kPackets; ++j) acc[r][j] = Eigen::internal::pset1<P>(T(0));
  }
  for (int64_t p = 0; p < k; ++p) {
    P bv[kPackets];
#pragma GCC unroll 8
    for (int j = 0; j < kPackets; ++j) bv[j] = Eigen::internal::ploadu<P>(b + p * ldb + j * kL);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const P av = Eigen::internal::pset1<P>(a[r * a_row + p * a_col]);
#pragma GCC unroll 8
      for (int j = 0; j < kPackets; ++j) acc[r][j] = Eigen::internal::pmadd(av, bv[j], acc[r][j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < kPackets; ++j) Eigen::internal::pstoreu(c + r * ldc + j * kL, acc[r][j]);
  }
}

// Calls tile(std::integral_constant<int, R>(), r) for rows [r, r + R) of [0, count): R is
// kTileRows for whole tiles, then once with the remaining rows (R < kTileRows), so each
// micro-kernel is instantiated for a compile-time row count.
template <typename Tile>
void ForEachRowTile(int64_t count, Tile&& tile) {
  static_assert(kTileRows == 6, "the remainder cases below assume 6-row tiles");
  int64_t r = 0;
  for (; r + kTileRows <= count; r += kTileRows) tile(std::integral_constant<int, kTileRows>(), r);
  switch (count - r) {
    case 5:
      tile(std::integral_constant<int, 5>(), r);
      break;
    case 4:
      tile(std::integral_constant<int, 4>(), r);
      break;
    case 3:
      tile(std::integral_constant<int, 3>(), r);
      break;
    case 2:
      tile(std::integral_constant<int, 2>(), r);
      break;
    case 1:
      tile(std::integral_constant<int, 1>(), r);
      break;
    default:
      break;
  }
}

// All m rows of one panel of kPackets * lanes columns.
template <typename T, int kPackets>
void PanelRows(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t ldb, T* c, int64_t ldc,
               int64_t m, int64_t k) {
  ForEachRowTile(m, [&](auto rows, int64_t r) {
    MicroTile<T, decltype(rows)::value, kPackets>(a + r * a_row, a_row, a_col, b, ldb, c + r * ldc,
                                                  ldc, k);
  });
}

// c[m, n] = a[m, k] * b[k, n], with a(r, p) at a[r * a_row + p * a_col] and b, c row-major.
// REQUIRES: n >= 1, k >= 1.
template <typename T>
void PanelGemm(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t ldb, T* c, int64_t ldc,
               int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kL = kLanes<T>;
  int64_t j = 0;
  for (; j + kWidePackets * kL <= n; j += kWidePackets * kL) {
    PanelRows<T, kWidePackets>(a, a_row, a_col, b + j, ldb, c + j, ldc, m, k);
  }
  if constexpr (kWidePackets > 2) {
    for (; j + 2 * kL <= n; j += 2 * kL)
      PanelRows<T, 2>(a, a_row, a_col, b + j, ldb, c + j, ldc, m, k);
  }
  for (; j + kL <= n; j += kL) PanelRows<T, 1>(a, a_row, a_col, b + j, ldb, c + j, ldc, m, k);
  if (j == n) return;
  // The last columns, fewer than a packet: through a zero-padded copy of that part of b.
  const int64_t rest = n - j;
  std::unique_ptr<T[]> b_rest(new T[k * kL]);
  std::unique_ptr<T[]> c_rest(new T[m * kL]);
  for (int64_t p = 0; p < k; ++p) {
    std::copy(b + p * ldb + j, b + p * ldb + n, b_rest.get() + p * kL);
    std::fill(b_rest.get() + p * kL + rest, b_rest.get() + (p + 1) * kL, T(0));
  }
  PanelRows<T, 1>(a, a_row, a_col, b_rest.get(), kL, c_rest.get(), kL, m, k);
  for (int64_t r = 0; r < m; ++r) {
    std::copy(c_rest.get() + r * kL, c_rest.get() + r * kL + rest, c + r * ldc + j);
  }
}

// c[kRows, kCols] = a[kRows, k] * bt[kCols, k]^T: dot products along k, vectorized over k, all
// kRows * kCols of them in registers. Rows of a and bt are contiguous (strides lda, ldbt).
template <typename T, int kRows, int kCols>
inline void DotTile(const T* a, int64_t lda, const T* bt, int64_t ldbt, T* c, int64_t ldc,
                    int64_t k) {
  using P = Packet<T>;
  constexpr int64_t kL = kLanes<T>;
  P acc[kRows][kCols];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) acc[r][j] = Eigen::internal::pset1<P>(T(0));
  }
  int64_t p = 0;
  for (; p + kL <= k; p += kL) {
    P av[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) av[r] = Eigen::internal::ploadu<P>(a + r * lda + p);
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) {
      const P bv = Eigen::internal::ploadu<P>(bt + j * ldbt + p);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) acc[r][j] = Eigen::internal::pmadd(av[r], bv, acc[r][j]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int j = 0; j < kCols; ++j) {
      T sum = Eigen::internal::predux(acc[r][j]);
      for (int64_t q = p; q < k; ++q) sum += a[r * lda + q] * bt[j * ldbt + q];
      c[r * ldc + j] = sum;
    }
  }
}

// Dot tiles are kDotRows x kDotCols.
inline constexpr int kDotRows = 4;
inline constexpr int kDotCols = EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS >= 32 ? 4 : 2;

template <typename T, int kRows>
void DotRowBlock(const T* a, int64_t lda, const T* bt, int64_t ldbt, T* c, int64_t ldc, int64_t n,
                 int64_t k) {
  int64_t j = 0;
  for (; j + kDotCols <= n; j += kDotCols) {
    DotTile<T, kRows, kDotCols>(a, lda, bt + j * ldbt, ldbt, c + j, ldc, k);
  }
  for (; j < n; ++j) DotTile<T, kRows, 1>(a, lda, bt + j * ldbt, ldbt, c + j, ldc, k);
}

// c[m, n] = a[m, k] * bt[n, k]^T, all row-major. REQUIRES: m, n, k >= 1.
template <typename T>
void DotGemm(const T* a, int64_t lda, const T* bt, int64_t ldbt, T* c, int64_t ldc, int64_t m,
             int64_t n, int64_t k) {
  int64_t r = 0;
  for (; r + kDotRows <= m; r += kDotRows) {
    DotRowBlock<T, kDotRows>(a + r * lda, lda, bt, ldbt, c + r * ldc, ldc, n, k);
  }
  for (; r < m; ++r) DotRowBlock<T, 1>(a + r * lda, lda, bt, ldbt, c + r * ldc, ldc, n, k);
}

// GemmOnThisThread's product; true when `epilogue` was applied too (by the packed SGEMM) or there
// was nothing to apply it to.
template <typename T>
bool Product(const MatrixRef<const T>& a, bool transpose_a, const MatrixRef<const T>& b,
             bool transpose_b, const MatrixRef<T>& c, PrepackedB prepacked,
             const SgemmEpilogue* epilogue) {
  MutableMap<T> out(c.data, c.rows, c.cols, Eigen::OuterStride<>(c.stride));
  if (c.rows == 0 || c.cols == 0) return true;
  const int64_t m = c.rows, n = c.cols;
  const int64_t k = transpose_a ? a.rows : a.cols;
  if (k == 0) {
    out.setZero();
    return false;
  }
  if constexpr (std::is_same<T, float>::value) {
    const CpuIsa isa = ActiveCpuIsa();
    if (HasPackedSgemm(isa) && n >= 2 && m * n * k >= kMinPackedWork) {
      SgemmArgs args;
      args.m = m;
      args.n = n;
      args.k = k;
      args.a = a.data;
      args.a_row = transpose_a ? 1 : a.stride;
      args.a_col = transpose_a ? a.stride : 1;
      args.b = b.data;
      args.b_row = transpose_b ? 1 : b.stride;
      args.b_col = transpose_b ? b.stride : 1;
      args.c = c.data;
      args.ldc = c.stride;
      args.epilogue = epilogue;
      const SgemmPackedB* packed = prepacked.packed;
      if (packed != nullptr && packed->isa() == isa && packed->k() == k &&
          prepacked.j0 % packed->panel_columns() == 0 && prepacked.j0 + n <= packed->n()) {
        args.b_from_memory = packed->k() * packed->n() * int64_t{sizeof(float)} > kSgemmL2Bytes;
        if (PackedSgemm(isa, args, *packed, prepacked.j0)) return true;
      } else if (PackedSgemm(isa, args)) {
        return true;
      }
    }
  }
  if constexpr (kPanelType<T>) {
    // a * b^T (a dense layer with [out, in] weights, attention scores): dot products.
    if (transpose_b && !transpose_a && m >= 2 && k >= kLanes<T>) {
      DotGemm<T>(a.data, a.stride, b.data, b.stride, c.data, c.stride, m, n, k);
      return false;
    }
    // Matrix-vector products and results narrower than a packet stay with Eigen.
    if (!transpose_b && m >= 2 && n >= kLanes<T>) {
      PanelGemm<T>(a.data, transpose_a ? 1 : a.stride, transpose_a ? a.stride : 1, b.data, b.stride,
                   c.data, c.stride, m, n, k);
      return false;
    }
  }
  ConstMap<T> lhs(a.data, a.rows, a.cols, Eigen::OuterStride<>(a.stride));
  ConstMap<T> rhs(b.data, b.rows, b.cols, Eigen::OuterStride<>(b.stride));
  if constexpr (kAllStorageOrders<T>) {
    if (!transpose_a && !transpose_b) {
      out.noalias() = lhs * rhs;
    } else if (!transpose_a) {
      out.noalias() = lhs * rhs.transpose();
    } else if (!transpose_b) {
      out.noalias() = lhs.transpose() * rhs;
    } else {
      out.noalias() = lhs.transpose() * rhs.transpose();
    }
  } else {
    RowMajorMatrix<T> lhs_copy, rhs_copy;
    if (transpose_a) lhs_copy = lhs.transpose();
    if (transpose_b) rhs_copy = rhs.transpose();
    ConstMap<T> l(transpose_a ? lhs_copy.data() : a.data, m, k,
                  Eigen::OuterStride<>(transpose_a ? k : a.stride));
    ConstMap<T> r(transpose_b ? rhs_copy.data() : b.data, k, n,
                  Eigen::OuterStride<>(transpose_b ? n : b.stride));
    out.noalias() = l * r;
  }
  return false;
}

}  // namespace gemm_internal

// c = op(a) * op(b) on the calling thread, where op(x) is x, or x transposed when the flag says
// so. c is m x n; op(a) is m x k; op(b) is k x n. `prepacked`, when given, holds op(b) packed.
// `epilogue` (float only), when given, is then applied to c: by the packed SGEMM tile by tile,
// or else row by row (BiasActivationRows).
// REQUIRES: c does not overlap a or b.
template <typename T>
void GemmOnThisThread(const MatrixRef<const T>& a, bool transpose_a, const MatrixRef<const T>& b,
                      bool transpose_b, const MatrixRef<T>& c, PrepackedB prepacked = {},
                      const SgemmEpilogue* epilogue = nullptr) {
  if (gemm_internal::Product<T>(a, transpose_a, b, transpose_b, c, prepacked, epilogue) ||
      epilogue == nullptr) {
    return;
  }
  if constexpr (std::is_same<T, float>::value) {
    const CpuIsa isa = ActiveCpuIsa();
    for (int64_t r = 0; r < c.rows; ++r) {
      BiasActivationArgs row;
      row.bias = epilogue->bias;
      row.addend = epilogue->addend == nullptr ? nullptr : epilogue->addend + r * c.stride;
      row.rows = 1;
      row.channels = c.cols;
      row.activation = epilogue->activation;
      row.alpha = epilogue->alpha;
      row.out = c.data + r * c.stride;
      BiasActivationRows(isa, row);
    }
  }
}

// As GemmOnThisThread, with a large product split over the intra-op threads of `ctx`.
template <typename T>
void Gemm(const OpKernelContext* ctx, const MatrixRef<const T>& a, bool transpose_a,
          const MatrixRef<const T>& b, bool transpose_b, const MatrixRef<T>& c,
          PrepackedB prepacked = {}, const SgemmEpilogue* epilogue = nullptr) {
  const int64_t m = c.rows, n = c.cols;
  const int64_t k = transpose_a ? a.rows : a.cols;
  const int64_t work = m * n * std::max<int64_t>(k, 1);
  const int threads = ctx->device()->intra_op_threads();
  int64_t shards = std::min<int64_t>(threads, work / gemm_internal::kMinParallelWork);
  // Split the larger dimension: every block reads all of the operand it does not split.
  // Column blocks are whole register panels (of the packed B's, when there is one), row blocks
  // whole register tiles.
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  const int64_t unit = by_rows ? gemm_internal::kTileRows
                       : prepacked.packed != nullptr
                           ? prepacked.packed->panel_columns()
                           : gemm_internal::kWidePackets * gemm_internal::kLanes<float>;
  shards = std::min(shards, (extent + unit - 1) / unit);
  if (shards <= 1) {
    GemmOnThisThread<T>(a, transpose_a, b, transpose_b, c, prepacked, epilogue);
    return;
  }
  const int64_t block = (extent / shards + unit - 1) / unit * unit;
  const int64_t blocks = (extent + block - 1) / block;
  ctx->ParallelFor(blocks, work / blocks, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t begin = i * block;
      const int64_t size = std::min(block, extent - begin);
      if (by_rows) {
        MatrixRef<const T> a_block =
            transpose_a ? MatrixRef<const T>{a.data + begin, a.rows, size, a.stride}
                        : MatrixRef<const T>{a.data + begin * a.stride, size, a.cols, a.stride};
        SgemmEpilogue rows_epilogue;
        if (epilogue != nullptr) {
          rows_epilogue = *epilogue;
          if (epilogue->addend != nullptr) rows_epilogue.addend += begin * c.stride;
        }
        GemmOnThisThread<T>(a_block, transpose_a, b, transpose_b,
                            {c.data + begin * c.stride, size, n, c.stride}, prepacked,
                            epilogue == nullptr ? nullptr : &rows_epilogue);
      } else {
        MatrixRef<const T> b_block =
            transpose_b ? MatrixRef<const T>{b.data + begin * b.stride, size, b.cols, b.stride}
                        : MatrixRef<const T>{b.data + begin, b.rows, size, b.stride};
        SgemmEpilogue columns_epilogue;
        if (epilogue != nullptr) {
          columns_epilogue = *epilogue;
          columns_epilogue.bias += begin;
          if (epilogue->addend != nullptr) columns_epilogue.addend += begin;
        }
        GemmOnThisThread<T>(a, transpose_a, b_block, transpose_b,
                            {c.data + begin, m, size, c.stride},
                            {prepacked.packed, prepacked.j0 + begin},
                            epilogue == nullptr ? nullptr : &columns_epilogue);
      }
    }
  });
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_GEMM_H_
