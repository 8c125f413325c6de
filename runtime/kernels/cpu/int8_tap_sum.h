// The inner loop of graphrt's int8 depthwise convolution (int8_ops.cc): for pixels p in
// [0, pixels) and channels c in [0, channels),
//
//   out[p * channels + c] = sum over taps t of int32(srcs[t][p * pixel_stride + c]) * w[t][c]
//
// with srcs the input's uint8 codes (the zero point is the caller's: it subtracts zero_point *
// sum_t w[t][c] afterwards) and w the int8 filter. One call covers a run of output pixels whose
// taps lie pixel_stride apart (a row's interior), or one pixel whose taps point anywhere (an edge,
// where padding taps read a buffer of the zero point's code).
//
// Exact: the codes and weights are widened to int16 and go through pmaddwd in pairs of taps, whose
// pair sums (at most 2 * 255 * 128) cannot saturate, into int32 accumulators (no overflow below
// 33000 taps). The weights are packed once per Run (Int8TapWeights) as pmaddwd wants them: each
// pair of taps interleaved per channel, in the order in which the per-128-bit-lane unpacks of the
// inputs leave the channels, so the loop widens and unpacks only the inputs. One kernel per
// QGemmIsa path, in isa/kernels_<path>.cc (isa/int8_tap_sum_kernel.inc); every path gives
// Int8TapSumReference's integers.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_

#include <cstdint>
#include <vector>

#include "runtime/kernels/cpu/qgemm.h"

namespace graphrt {

namespace isa {
namespace baseline {
// REQUIRES: channels >= 8 (the int16 lanes of one vector); `packed` as Int8TapWeights packs it
// for 8 lanes. Likewise below for 16 and 32.
void Int8TapSum(const uint8_t* const* srcs, int64_t pixel_stride, int64_t pixels,
                const int16_t* packed, int64_t taps, int64_t channels, int32_t* out);
}  // namespace baseline
namespace avx2 {
void Int8TapSum(const uint8_t* const* srcs, int64_t pixel_stride, int64_t pixels,
                const int16_t* packed, int64_t taps, int64_t channels, int32_t* out);
}  // namespace avx2
namespace avx512 {
void Int8TapSum(const uint8_t* const* srcs, int64_t pixel_stride, int64_t pixels,
                const int16_t* packed, int64_t taps, int64_t channels, int32_t* out);
}  // namespace avx512
}  // namespace isa

// A depthwise filter's weights w[t][c] (filter[t * channels + c]) packed for one QGemmIsa path's
// Int8TapSum. The layout, for a path of L int16 lanes a vector (8, 16 or 32): channel blocks
// starting at min(b * L, channels - L) for b in [0, ceil(channels / L)) (a last partial block
// overlaps the one before it and recomputes some sums, to the same values); per block, per pair
// of taps (2i, 2i + 1) (an odd last tap paired with weight 0), two vectors of L int16: `lo` holds
// the pairs (w[2i][ch], w[2i + 1][ch]) of the channels ch = block + 8 * (j / 4) + j % 4 for j in
// [0, L / 2), as punpcklwd of two vectors of codes leaves them, `hi` those of ch + 4. Where the
// channels are fewer than L the next narrower path is used, and below 8 the plain loop.
class Int8TapWeights {
 public:
  // REQUIRES: QGemmIsaRuns(isa), taps >= 1, channels >= 1.
  Int8TapWeights(QGemmIsa isa, const int8_t* filter, int64_t taps, int64_t channels);

  int64_t taps() const { return taps_; }
  int64_t channels() const { return channels_; }
  // The int16 lanes of the path's vectors: 32, 16 or 8, or 0 for the plain loop.
  int64_t lanes() const { return lanes_; }
  const int16_t* packed() const { return packed_.data(); }
  // w[t][c] at plain()[t * channels + c].
  const int8_t* plain() const { return plain_.data(); }

 private:
  int64_t taps_, channels_, lanes_;
  std::vector<int16_t> packed_;
  std::vector<int8_t> plain_;
};

// The plain loop every path must match.
inline void Int8TapSumReference(const uint8_t* const* srcs, int64_t pixel_stride, int64_t pixels,
                                const int8_t* w, int64_t taps, int64_t channels, int32_t* out) {
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t c = 0; c < channels; ++c) {
      int32_t sum = 0;
      for (int64_t t = 0; t < taps; ++t) {
        sum += int32_t{srcs[t][p * pixel_stride + c]} * int32_t{w[t * channels + c]};
      }
      out[p * channels + c] = sum;
    }
  }
}

// Runs the kernel of the path `w` was packed for. REQUIRES: pixels >= 0; srcs holds w.taps()
// pointers, each readable at [p * pixel_stride, p * pixel_stride + channels) for p < pixels.
inline void Int8TapSum(const Int8TapWeights& w, const uint8_t* const* srcs, int64_t pixel_stride,
                       int64_t pixels, int32_t* out) {
  switch (w.lanes()) {
    case 32:
      isa::avx512::Int8TapSum(srcs, pixel_stride, pixels, w.packed(), w.taps(), w.channels(), out);
      return;
    case 16:
      isa::avx2::Int8TapSum(srcs, pixel_stride, pixels, w.packed(), w.taps(), w.channels(), out);
      return;
    case 8:
      isa::baseline::Int8TapSum(srcs, pixel_stride, pixels, w.packed(), w.taps(), w.channels(),
                                out);
      return;
    default:
      Int8TapSumReference(srcs, pixel_stride, pixels, w.plain(), w.taps(), w.channels(), out);
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_
