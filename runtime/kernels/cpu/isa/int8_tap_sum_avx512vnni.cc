// Int8TapSumRow and Int8TapSum (int8_tap_sum.h) for AVX-512 VNNI. Compiled with the AVX-512 flags
// and -mavx512vnni (cmake/GraphrtLayers.cmake); only intrinsics and functions of this namespace are
// used (see isa/qgemm_kernel.inc).
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/cpu/int8_tap_sum.h"

namespace graphrt {
namespace isa {
namespace avx512vnni {

namespace {

// Int8TapRowShape's own functions are inline in a header: not called here.
inline int64_t Groups(const Int8TapRowShape& s) { return (s.window_rows + 3) / 4; }
inline int64_t ColBytes(const Int8TapRowShape& s) { return (s.channels + 15) / 16 * 64; }
inline int64_t Cols(const Int8TapRowShape& s) {
  return (s.out_cols - 1) * s.stride + (s.window_cols - 1) * s.dilation + 1;
}

inline __m128i Load16(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline void Store16(uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
// 16 sums; masked only where the channels end within them.
inline void Store(int32_t* p, __mmask16 mask, __m512i v) {
  if (mask == 0xFFFF) {
    _mm512_storeu_si512(p, v);
  } else {
    _mm512_mask_storeu_epi32(p, mask, v);
  }
}
inline __m256i Load32(const uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void Store32(uint8_t* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// One column of quads (padded * 4 bytes at dst) from the codes at r0..r3: two rounds of byte and
// word interleaves leave each 128-bit lane's 16 channels in order, 32 channels at a time (the
// lanes then regrouped), then 16, then one by one.
void QuadColumn(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const uint8_t* r3,
                int64_t channels, int64_t padded, uint8_t* dst) {
  int64_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    const __m256i a0 = Load32(r0 + c), a1 = Load32(r1 + c), a2 = Load32(r2 + c),
                  a3 = Load32(r3 + c);
    const __m256i lo01 = _mm256_unpacklo_epi8(a0, a1), hi01 = _mm256_unpackhi_epi8(a0, a1);
    const __m256i lo23 = _mm256_unpacklo_epi8(a2, a3), hi23 = _mm256_unpackhi_epi8(a2, a3);
    // Lane L of v0 holds channels 16L + 0..3, v1 16L + 4..7, v2 16L + 8..11, v3 16L + 12..15.
    const __m256i v0 = _mm256_unpacklo_epi16(lo01, lo23), v1 = _mm256_unpackhi_epi16(lo01, lo23);
    const __m256i v2 = _mm256_unpacklo_epi16(hi01, hi23), v3 = _mm256_unpackhi_epi16(hi01, hi23);
    uint8_t* q = dst + 4 * c;
    Store32(q, _mm256_permute2x128_si256(v0, v1, 0x20));
    Store32(q + 32, _mm256_permute2x128_si256(v2, v3, 0x20));
    Store32(q + 64, _mm256_permute2x128_si256(v0, v1, 0x31));
    Store32(q + 96, _mm256_permute2x128_si256(v2, v3, 0x31));
  }
  for (; c + 16 <= channels; c += 16) {
    const __m128i a0 = Load16(r0 + c), a1 = Load16(r1 + c), a2 = Load16(r2 + c),
                  a3 = Load16(r3 + c);
    const __m128i lo01 = _mm_unpacklo_epi8(a0, a1), hi01 = _mm_unpackhi_epi8(a0, a1);
    const __m128i lo23 = _mm_unpacklo_epi8(a2, a3), hi23 = _mm_unpackhi_epi8(a2, a3);
    uint8_t* q = dst + 4 * c;
    Store16(q, _mm_unpacklo_epi16(lo01, lo23));
    Store16(q + 16, _mm_unpackhi_epi16(lo01, lo23));
    Store16(q + 32, _mm_unpacklo_epi16(hi01, hi23));
    Store16(q + 48, _mm_unpackhi_epi16(hi01, hi23));
  }
  for (; c < padded; ++c) {
    const bool in = c < channels;
    dst[4 * c] = in ? r0[c] : 0;
    dst[4 * c + 1] = in ? r1[c] : 0;
    dst[4 * c + 2] = in ? r2[c] : 0;
    dst[4 * c + 3] = in ? r3[c] : 0;
  }
}

// The sums of 16 channels (c) of every output pixel, four pixels at a time (independent
// accumulators, to cover vpdpbusd's latency), of kRows output rows (1, or 2 for the row below:
// weights w[r] into out[r], each quad vector loaded once for both). kCols fixes the vpdpbusd a
// pixel (window_cols times groups), so that the loops unroll and the weights stay in registers.
template <int64_t kCols, int kRows>
void RowBlock(const Int8TapRowShape& s, const uint8_t* quads_in, const int8_t* const* w, int64_t c,
              int32_t* const* out) {
  const int64_t col_bytes = ColBytes(s);
  const int64_t group_bytes = Cols(s) * col_bytes;
  // Per vpdpbusd j (group g, window column kw): its weights, and where its quads start.
  __m512i held[kRows][kCols];
  int64_t start[kCols];
#pragma GCC unroll 16
  for (int64_t j = 0; j < kCols; ++j) {
#pragma GCC unroll 2
    for (int r = 0; r < kRows; ++r) held[r][j] = _mm512_loadu_si512(w[r] + j * col_bytes + 4 * c);
    start[j] = j / s.window_cols * group_bytes + j % s.window_cols * s.dilation * col_bytes;
  }
  const int64_t left = s.channels - c;
  const __mmask16 mask = left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1);
  const int64_t pixel_bytes = s.stride * col_bytes, channels = s.channels, out_cols = s.out_cols;
  const uint8_t* pixel = quads_in + 4 * c;
  int64_t at = c;  // the output offset of pixel ow
  int64_t ow = 0;
  for (; ow + 4 <= out_cols; ow += 4) {
    __m512i acc[kRows][4];
#pragma GCC unroll 2
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (int p = 0; p < 4; ++p) acc[r][p] = _mm512_setzero_si512();
    }
#pragma GCC unroll 16
    for (int64_t j = 0; j < kCols; ++j) {
#pragma GCC unroll 4
      for (int p = 0; p < 4; ++p) {
        const __m512i quad = _mm512_loadu_si512(pixel + p * pixel_bytes + start[j]);
#pragma GCC unroll 2
        for (int r = 0; r < kRows; ++r)
          acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], quad, held[r][j]);
      }
    }
#pragma GCC unroll 2
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (int p = 0; p < 4; ++p) Store(out[r] + at + p * channels, mask, acc[r][p]);
    }
    pixel += 4 * pixel_bytes;
    at += 4 * channels;
  }
  for (; ow < out_cols; ++ow) {
    __m512i acc[kRows];
#pragma GCC unroll 2
    for (int r = 0; r < kRows; ++r) acc[r] = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (int64_t j = 0; j < kCols; ++j) {
      const __m512i quad = _mm512_loadu_si512(pixel + start[j]);
#pragma GCC unroll 2
      for (int r = 0; r < kRows; ++r) acc[r] = _mm512_dpbusd_epi32(acc[r], quad, held[r][j]);
    }
#pragma GCC unroll 2
    for (int r = 0; r < kRows; ++r) Store(out[r] + at, mask, acc[r]);
    pixel += pixel_bytes;
    at += channels;
  }
}

// RowBlock for any window: a pixel at a time, the weights read as they are needed.
void RowBlockAny(const Int8TapRowShape& s, const uint8_t* quads_in, const int8_t* w, int64_t c,
                 int32_t* out) {
  const int64_t n = Groups(s) * s.window_cols;
  const int64_t col_bytes = ColBytes(s);
  const int64_t group_bytes = Cols(s) * col_bytes;
  const int64_t left = s.channels - c;
  const __mmask16 mask = left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1);
  for (int64_t ow = 0; ow < s.out_cols; ++ow) {
    const uint8_t* pixel = quads_in + ow * s.stride * col_bytes + 4 * c;
    __m512i acc = _mm512_setzero_si512();
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at =
          j / s.window_cols * group_bytes + j % s.window_cols * s.dilation * col_bytes;
      acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(pixel + at),
                                _mm512_loadu_si512(w + j * col_bytes + 4 * c));
    }
    _mm512_mask_storeu_epi32(out + ow * s.channels + c, mask, acc);
  }
}

}  // namespace

void Int8TapSumRow(const Int8TapRowShape& s, const uint8_t* const* rows, uint8_t zero_code,
                   const int8_t* quads, uint8_t* scratch, int32_t* out, const int8_t* quads_below,
                   int32_t* out_below) {
  // The input rows the quads hold: the window's, and one more for the row below.
  const int64_t rows_read = out_below != nullptr ? s.window_rows + 1 : s.window_rows;
  const int64_t col_bytes = ColBytes(s), padded = col_bytes / 4, cols = Cols(s);
  const __m512i pad = _mm512_set1_epi8(static_cast<char>(zero_code));
  // The columns [0, first) and [last, cols) lie beyond the input: the zero point's code.
  const int64_t first = s.pad_left < cols ? s.pad_left : cols;
  const int64_t last = s.pad_left + s.in_cols < cols ? s.pad_left + s.in_cols : cols;
  const int64_t channels = s.channels;
  for (int64_t g = 0; g < Groups(s); ++g) {
    uint8_t* q = scratch + g * cols * col_bytes;
    for (int64_t b = 0; b < first * col_bytes; b += 64) _mm512_storeu_si512(q + b, pad);
    for (int64_t b = (last > first ? last : first) * col_bytes; b < cols * col_bytes; b += 64) {
      _mm512_storeu_si512(q + b, pad);
    }
    if (last <= first) continue;
    // A row past those read (weight 0) reads the group's first.
    const uint8_t* r[4];
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t kh = 4 * g + i;
      r[i] = rows[kh < rows_read ? kh : 4 * g] + (first - s.pad_left) * channels;
    }
    const uint8_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
    for (int64_t x = first; x < last; ++x) {
      QuadColumn(r0, r1, r2, r3, channels, padded, q + x * col_bytes);
      r0 += channels;
      r1 += channels;
      r2 += channels;
      r3 += channels;
    }
  }
  const int64_t taps = Groups(s) * s.window_cols;
  const int8_t* const w[2] = {quads, quads_below};
  int32_t* const outs[2] = {out, out_below};
  for (int64_t c = 0; c < s.channels; c += 16) {
    switch (taps) {
      case 3:  // 3 x 3 (one group of rows)
        if (out_below != nullptr) {
          RowBlock<3, 2>(s, scratch, w, c, outs);
        } else {
          RowBlock<3, 1>(s, scratch, w, c, outs);
        }
        break;
      default:
        RowBlockAny(s, scratch, quads, c, out);
        if (out_below != nullptr) RowBlockAny(s, scratch, quads_below, c, out_below);
    }
  }
}

namespace {

// Int8TapSum (isa/int8_tap_sum_kernel.inc): the AVX-512 path's helpers, with vpdpwssd for
// pmaddwd and the add.
#include "runtime/kernels/cpu/isa/int8_tap_sum_avx512.inc"
inline VI DotAddI16(VI acc, VI x, VI y) { return _mm512_dpwssd_epi32(acc, x, y); }

}  // namespace

#include "runtime/kernels/cpu/isa/int8_tap_sum_kernel.inc"

}  // namespace avx512vnni
}  // namespace isa
}  // namespace graphrt
