// The inner loops of the depthwise convolution (conv_ops.cc) for the AVX2 and AVX-512 paths, all
// taps of four vectors of outputs accumulated in registers before one store:
// - TapSum: out[i] = sum over taps t of srcs[t][i] * weights[t][i % period], for i in [0, len)
//   (a row of outputs whose windows are runs of the input: unit column stride);
// - TapSumPixels: out[p * depth + c] = sum over taps t of srcs[t][p * step + c] * weights[t][c],
//   for p in [0, pixels) and c in [0, depth) (pixels whose windows are `step` floats apart);
// - TapRows: the same for unit column stride and dilation and a window 3 or 5 columns
//   wide, given per window row: out[p * depth + c] = sum over rows r and kw < window_cols of
//   srcs[r][(p + kw) * depth + c] * weights[r][kw * depth + c]. Each input vector is loaded once
//   for the outputs that use it and the weights stay in registers; the sums are TapSumPixels'
//   bit for bit (the same multiply-adds in the same order);
// - TapMaxPixels / TapMeanPixels: pooling's TapSumPixels, without weights. The max is
//   maxps(srcs[t][i], acc) over t from acc = srcs[0][i] on (a NaN already taken stays, a NaN
//   coming in is passed over: pool_ops.cc's order); the mean adds the taps in order from 0 and
//   divides the sum by `divisor` once;
// - ColumnSums: acc[i] += src[r * stride + i] for r = 0, 1, ..., rows - 1 in turn, i in [0, n):
//   a Sum or Mean over the outer dim of a row-major tensor (reduction_ops.cc), the sums in
//   registers across the rows.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_TAP_SUM_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_TAP_SUM_H_

#include <cstdint>

#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {

// A period that every path's TapSum takes: a multiple of four AVX-512 vectors.
inline constexpr int64_t kTapSumPeriodUnit = 64;

// Whether TapSum has a kernel for `isa` (the baseline path keeps conv_ops.cc's).
inline bool HasTapSum(CpuIsa isa) { return isa == CpuIsa::kAvx2 || isa == CpuIsa::kAvx512; }

namespace isa {
// REQUIRES: period is a multiple of kTapSumPeriodUnit; taps >= 0.
namespace avx2 {
void TapSum(const float* const* srcs, const float* const* weights, int64_t taps, int64_t len,
            int64_t period, float* out);
void TapSumPixels(const float* const* srcs, const float* const* weights, int64_t taps,
                  int64_t pixels, int64_t depth, int64_t step, float* out);
void TapRows(const float* const* srcs, const float* const* weights, int64_t rows, int window_cols,
             int64_t pixels, int64_t depth, float* out);
void TapMaxPixels(const float* const* srcs, int64_t taps, int64_t pixels, int64_t depth,
                  int64_t step, float* out);
void TapMeanPixels(const float* const* srcs, int64_t taps, int64_t pixels, int64_t depth,
                   int64_t step, float divisor, float* out);
void ColumnSums(const float* src, int64_t rows, int64_t stride, int64_t n, float* acc);
}  // namespace avx2
namespace avx512 {
void TapSum(const float* const* srcs, const float* const* weights, int64_t taps, int64_t len,
            int64_t period, float* out);
void TapSumPixels(const float* const* srcs, const float* const* weights, int64_t taps,
                  int64_t pixels, int64_t depth, int64_t step, float* out);
void TapRows(const float* const* srcs, const float* const* weights, int64_t rows, int window_cols,
             int64_t pixels, int64_t depth, float* out);
void TapMaxPixels(const float* const* srcs, int64_t taps, int64_t pixels, int64_t depth,
                  int64_t step, float* out);
void TapMeanPixels(const float* const* srcs, int64_t taps, int64_t pixels, int64_t depth,
                   int64_t step, float divisor, float* out);
void ColumnSums(const float* src, int64_t rows, int64_t stride, int64_t n, float* acc);
}  // namespace avx512
}  // namespace isa

// Runs the TapSum of `isa`. REQUIRES: HasTapSum(isa) and the CPU runs it.
inline void TapSum(CpuIsa isa, const float* const* srcs, const float* const* weights, int64_t taps,
                   int64_t len, int64_t period, float* out) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::TapSum(srcs, weights, taps, len, period, out);
  } else {
    isa::avx2::TapSum(srcs, weights, taps, len, period, out);
  }
}

// Runs the TapSumPixels of `isa`. REQUIRES: HasTapSum(isa) and the CPU runs it.
inline void TapSumPixels(CpuIsa isa, const float* const* srcs, const float* const* weights,
                         int64_t taps, int64_t pixels, int64_t depth, int64_t step, float* out) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::TapSumPixels(srcs, weights, taps, pixels, depth, step, out);
  } else {
    isa::avx2::TapSumPixels(srcs, weights, taps, pixels, depth, step, out);
  }
}

// Runs the TapMaxPixels of `isa` (taps >= 1). REQUIRES: HasTapSum(isa) and the CPU runs it.
inline void TapMaxPixels(CpuIsa isa, const float* const* srcs, int64_t taps, int64_t pixels,
                         int64_t depth, int64_t step, float* out) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::TapMaxPixels(srcs, taps, pixels, depth, step, out);
  } else {
    isa::avx2::TapMaxPixels(srcs, taps, pixels, depth, step, out);
  }
}

// Runs the TapMeanPixels of `isa`. REQUIRES: HasTapSum(isa) and the CPU runs it.
inline void TapMeanPixels(CpuIsa isa, const float* const* srcs, int64_t taps, int64_t pixels,
                          int64_t depth, int64_t step, float divisor, float* out) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::TapMeanPixels(srcs, taps, pixels, depth, step, divisor, out);
  } else {
    isa::avx2::TapMeanPixels(srcs, taps, pixels, depth, step, divisor, out);
  }
}

// Runs the ColumnSums of `isa`. REQUIRES: HasTapSum(isa) and the CPU runs it.
inline void ColumnSums(CpuIsa isa, const float* src, int64_t rows, int64_t stride, int64_t n,
                       float* acc) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::ColumnSums(src, rows, stride, n, acc);
  } else {
    isa::avx2::ColumnSums(src, rows, stride, n, acc);
  }
}

// Whether TapRows takes a window `window_cols` wide over `depth` channels: 3 or 5 columns, and
// whole AVX-512 vectors of channels.
inline bool TapRowsApplies(int64_t window_cols, int64_t depth) {
  return (window_cols == 3 || window_cols == 5) && depth % 16 == 0;
}

// Runs the TapRows of `isa`. REQUIRES: HasTapSum(isa), the CPU runs it, and
// TapRowsApplies(window_cols, depth).
inline void TapRows(CpuIsa isa, const float* const* srcs, const float* const* weights, int64_t rows,
                    int window_cols, int64_t pixels, int64_t depth, float* out) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::TapRows(srcs, weights, rows, window_cols, pixels, depth, out);
  } else {
    isa::avx2::TapRows(srcs, weights, rows, window_cols, pixels, depth, out);
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_TAP_SUM_H_
