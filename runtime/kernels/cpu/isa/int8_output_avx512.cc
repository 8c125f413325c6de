// Int8OutputRows (int8_output.h) for AVX-512: sixteen lanes.
#include <immintrin.h>

// GCC 12 takes the _mm512_undefined_* operands of the masked forms inside these intrinsics for
// uninitialized values (a false positive of its own headers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "runtime/kernels/cpu/int8_output.h"

namespace graphrt {
namespace isa {
namespace avx512 {
namespace {
namespace int8_output {

using V = __m512;
using VI = __m512i;
constexpr int64_t kLanes = 16;

inline V LoadF(const float* p) { return _mm512_loadu_ps(p); }
inline VI LoadI(const int32_t* p) { return _mm512_loadu_si512(p); }
inline void StoreF(float* p, V v) { _mm512_storeu_ps(p, v); }
inline V BroadcastF(float x) { return _mm512_set1_ps(x); }
inline VI BroadcastI(int32_t x) { return _mm512_set1_epi32(x); }
inline V ToFloat(VI x) { return _mm512_cvtepi32_ps(x); }
inline VI Truncate(V x) { return _mm512_cvttps_epi32(x); }
inline VI FloorToInt(V x) {
  return _mm512_cvt_roundps_epi32(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
inline VI AddI(VI a, VI b) { return _mm512_add_epi32(a, b); }
inline VI SubI(VI a, VI b) { return _mm512_sub_epi32(a, b); }
inline V AddF(V a, V b) { return _mm512_add_ps(a, b); }
inline V SubF(V a, V b) { return _mm512_sub_ps(a, b); }
inline V MulF(V a, V b) { return _mm512_mul_ps(a, b); }
inline V MaxF(V a, V b) { return _mm512_max_ps(a, b); }
inline V MinF(V a, V b) { return _mm512_min_ps(a, b); }
inline void StoreCodes(uint8_t* out, VI v) {
  // Unsigned saturation after the negative values are taken to 0.
  const __m128i codes = _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, _mm512_setzero_si512()));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), codes);
}

// Two signed and one unsigned saturating packs (vpmovusdb costs two steps a vector here) leave
// each 128-bit lane L holding a[4L..4L+3], b[4L..], c[4L..], d[4L..]; one dword permute puts
// them in order.
inline void StoreCodes4(uint8_t* out, VI a, VI b, VI c, VI d) {
  const VI bytes = _mm512_packus_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
  const VI order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  _mm512_storeu_si512(out, _mm512_permutexvar_epi32(order, bytes));
}

// The first n lanes, by mask.
inline __mmask16 FirstLanes(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
inline VI LoadIN(const int32_t* p, int64_t n) { return _mm512_maskz_loadu_epi32(FirstLanes(n), p); }
inline V LoadFN(const float* p, int64_t n) { return _mm512_maskz_loadu_ps(FirstLanes(n), p); }
inline void StoreFN(float* p, V v, int64_t n) { _mm512_mask_storeu_ps(p, FirstLanes(n), v); }
inline void StoreCodesN(uint8_t* p, VI v, int64_t n) {
  _mm512_mask_cvtusepi32_storeu_epi8(p, FirstLanes(n), _mm512_max_epi32(v, _mm512_setzero_si512()));
}

}  // namespace int8_output
}  // namespace

#include "runtime/kernels/cpu/isa/int8_output_kernel.inc"

}  // namespace avx512
}  // namespace isa
}  // namespace graphrt
