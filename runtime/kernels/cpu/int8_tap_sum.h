// The inner loop of graphrt's int8 depthwise convolution (int8_ops.cc): for c in [0, channels),
//
//   out[c] = sum over taps t of int32(srcs[t][c]) * int32(weights[t][c])
//
// with srcs the input's codes less their zero point (int16, |s| <= 255) and weights the int8
// filter widened to int16. Exact: the taps go in pairs through pmaddwd, whose pair sums (at most
// 2 * 255 * 127) cannot saturate, into int32 accumulators (no overflow below 33000 taps). One
// kernel per QGemmIsa path, in isa/kernels_<path>.cc (isa/int8_tap_sum_kernel.inc); every path
// gives Int8TapSumReference's integers.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_

#include <cstdint>

#include "runtime/kernels/cpu/qgemm.h"

namespace graphrt {

namespace isa {
namespace baseline {
void Int8TapSum(const int16_t* const* srcs, const int16_t* const* weights, int64_t taps,
                int64_t channels, int32_t* out);
}  // namespace baseline
namespace avx2 {
void Int8TapSum(const int16_t* const* srcs, const int16_t* const* weights, int64_t taps,
                int64_t channels, int32_t* out);
}  // namespace avx2
namespace avx512 {
void Int8TapSum(const int16_t* const* srcs, const int16_t* const* weights, int64_t taps,
                int64_t channels, int32_t* out);
}  // namespace avx512
}  // namespace isa

// Runs `isa`'s kernel (the AVX-512 one for kAvx512Vnni). REQUIRES: QGemmIsaRuns(isa), taps >= 0.
inline void Int8TapSum(QGemmIsa isa, const int16_t* const* srcs, const int16_t* const* weights,
                       int64_t taps, int64_t channels, int32_t* out) {
  switch (isa) {
    case QGemmIsa::kAvx512:
    case QGemmIsa::kAvx512Vnni:
      isa::avx512::Int8TapSum(srcs, weights, taps, channels, out);
      return;
    case QGemmIsa::kAvx2:
      isa::avx2::Int8TapSum(srcs, weights, taps, channels, out);
      return;
    case QGemmIsa::kBaseline:
      break;
  }
  isa::baseline::Int8TapSum(srcs, weights, taps, channels, out);
}

// The plain loop every path must match.
inline void Int8TapSumReference(const int16_t* const* srcs, const int16_t* const* weights,
                                int64_t taps, int64_t channels, int32_t* out) {
  for (int64_t c = 0; c < channels; ++c) {
    int32_t sum = 0;
    for (int64_t t = 0; t < taps; ++t) sum += int32_t{srcs[t][c]} * int32_t{weights[t][c]};
    out[c] = sum;
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_
