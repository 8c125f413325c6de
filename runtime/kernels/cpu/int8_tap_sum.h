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
// QGemmIsa path, written once in isa/int8_tap_sum_kernel.inc and built in isa/kernels_<path>.cc
// (the VNNI path's, with vpdpwssd for pmaddwd and the add, in isa/int8_tap_sum_avx512vnni.cc);
// every path gives Int8TapSumReference's integers.
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
namespace avx512vnni {
void Int8TapSum(const uint8_t* const* srcs, int64_t pixel_stride, int64_t pixels,
                const int16_t* packed, int64_t taps, int64_t channels, int32_t* out);
}  // namespace avx512vnni
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
  // Where lanes() is 32: whether the kernel is the VNNI path's (vpdpwssd for pmaddwd and add).
  bool vnni() const { return vnni_; }
  const int16_t* packed() const { return packed_.data(); }
  // w[t][c] at plain()[t * channels + c].
  const int8_t* plain() const { return plain_.data(); }

 private:
  int64_t taps_, channels_, lanes_;
  bool vnni_;
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
      if (w.vnni()) {
        isa::avx512vnni::Int8TapSum(srcs, pixel_stride, pixels, w.packed(), w.taps(), w.channels(),
                                    out);
      } else {
        isa::avx512::Int8TapSum(srcs, pixel_stride, pixels, w.packed(), w.taps(), w.channels(),
                                out);
      }
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

// The VNNI path (QGemmIsa::kAvx512Vnni) also has a kernel that takes one output row at a time
// (the depthwise op uses it for stride 1, where it is the faster): vpdpbusd
// multiplies four uint8 codes by four int8 weights a 32-bit lane and adds the products to the
// lane without saturating, so the window's rows go in groups of four (the last group filled
// with weight 0). For each group the kernel first lays out the input columns the row needs as
// quads (the group's four codes of a channel side by side, a column beyond the input's all
// zero_code), once for every output pixel that reads them, then runs one vpdpbusd per window
// column and 16 channels.
struct Int8TapRowShape {
  int64_t window_rows = 0, window_cols = 0, channels = 0;
  int64_t in_cols = 0, pad_left = 0, stride = 1, dilation = 1, out_cols = 0;

  int64_t groups() const { return (window_rows + 3) / 4; }
  // The channels rounded up to 16, one vector of quads.
  int64_t padded_channels() const { return (channels + 15) / 16 * 16; }
  // The columns the row reads, from input column -pad_left on.
  int64_t cols() const { return (out_cols - 1) * stride + (window_cols - 1) * dilation + 1; }
  // The bytes of Int8TapSumRow's scratch.
  int64_t scratch_bytes() const { return groups() * cols() * padded_channels() * 4; }
};

// The filter w[kh][kw][c] (filter[(kh * window_cols + kw) * channels + c]) as Int8TapSumRow
// reads it: per group g, window column kw and channel c (padded_channels()), the four bytes
// w[4g + i - shift][kw][c] for i < 4 (0 outside the window's rows or channels). Shift 1 is for
// Int8TapSumRow's row below. REQUIRES: shift 0, or shift 1 and window_rows <= 3.
std::vector<int8_t> PackInt8TapQuads(const Int8TapRowShape& shape, const int8_t* filter,
                                     int64_t shift = 0);

namespace isa {
namespace avx512vnni {
// For ow in [0, out_cols) and c in [0, channels):
//
//   out[ow * channels + c] = sum over kh, kw of code(rows[kh], iw) * w[kh][kw][c],
//   iw = ow * stride + kw * dilation - pad_left,
//
// where code(r, iw) is r[iw * channels + c] for iw in [0, in_cols), else zero_code. With
// out_below, also the next output row, whose window lies one input row lower (rows[kh + 1]), into
// out_below, by the weights quads_below (PackInt8TapQuads with shift 1): the quads of the four
// input rows are laid out once for both. REQUIRES: QGemmIsaRuns(kAvx512Vnni), out_cols >= 1, rows
// holds window_rows pointers (window_rows + 1 with out_below, which needs window_rows <= 3) to
// in_cols * channels codes each, quads from PackInt8TapQuads, scratch of shape.scratch_bytes()
// bytes.
void Int8TapSumRow(const Int8TapRowShape& shape, const uint8_t* const* rows, uint8_t zero_code,
                   const int8_t* quads, uint8_t* scratch, int32_t* out,
                   const int8_t* quads_below = nullptr, int32_t* out_below = nullptr);
}  // namespace avx512vnni
}  // namespace isa

// The plain loop Int8TapSumRow must match.
inline void Int8TapSumRowReference(const Int8TapRowShape& s, const uint8_t* const* rows,
                                   uint8_t zero_code, const int8_t* filter, int32_t* out) {
  for (int64_t ow = 0; ow < s.out_cols; ++ow) {
    for (int64_t c = 0; c < s.channels; ++c) {
      int32_t sum = 0;
      for (int64_t kh = 0; kh < s.window_rows; ++kh) {
        for (int64_t kw = 0; kw < s.window_cols; ++kw) {
          const int64_t iw = ow * s.stride + kw * s.dilation - s.pad_left;
          const int32_t code =
              iw >= 0 && iw < s.in_cols ? rows[kh][iw * s.channels + c] : int32_t{zero_code};
          sum += code * filter[(kh * s.window_cols + kw) * s.channels + c];
        }
      }
      out[ow * s.channels + c] = sum;
    }
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_INT8_TAP_SUM_H_
