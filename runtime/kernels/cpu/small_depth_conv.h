// Convolutions whose input has few channels (a network's first layer on RGB or gray images),
// computed straight from the input on the AVX2 and AVX-512 paths. Their im2col rows are short
// (27 floats for a 3x3 window on RGB), which leaves the packed SGEMM's tiles mostly idle; here
// each output pixel instead keeps all its output channels in registers while every tap's input
// value is broadcast once against the tap's row of weights.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_SMALL_DEPTH_CONV_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_SMALL_DEPTH_CONV_H_

#include <cstdint>

#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {

// Input channels up to which SmallDepthConvRow runs.
inline constexpr int64_t kSmallDepthMax = 4;

// One row of outputs: out[p * out_depth + co] = sum over kh < window_rows, kw < window_cols and
// ci < depth of in[kh * row_step + kw * tap_step + p * pixel_step + ci] * filter[((kh *
// window_cols + kw) * depth + ci) * out_depth + co], for p < pixels (the input already padded).
struct SmallDepthConvArgs {
  const float* in = nullptr;
  int64_t row_step = 0, tap_step = 0, pixel_step = 0;
  int64_t window_rows = 0, window_cols = 0, depth = 0;
  const float* filter = nullptr;  // HWIO
  int64_t out_depth = 0;
  int64_t pixels = 0;
  float* out = nullptr;
};

// Whether `isa` has SmallDepthConvRow for this many output channels (four vectors at most).
inline bool HasSmallDepthConv(CpuIsa isa, int64_t out_depth) {
  if (isa == CpuIsa::kAvx512) return out_depth <= 64;
  if (isa == CpuIsa::kAvx2) return out_depth <= 32;
  return false;
}

namespace isa {
namespace avx2 {
void SmallDepthConvRow(const SmallDepthConvArgs& args);
}  // namespace avx2
namespace avx512 {
void SmallDepthConvRow(const SmallDepthConvArgs& args);
}  // namespace avx512
}  // namespace isa

// Runs the SmallDepthConvRow of `isa`. REQUIRES: HasSmallDepthConv(isa, args.out_depth),
// 1 <= args.out_depth, and the CPU runs `isa`.
inline void SmallDepthConvRow(CpuIsa isa, const SmallDepthConvArgs& args) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::SmallDepthConvRow(args);
  } else {
    isa::avx2::SmallDepthConvRow(args);
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_SMALL_DEPTH_CONV_H_
