// The vector kernels of the baseline path (cpu_isa.h): SSE2, which every x86-64 CPU has, 4 floats
// a vector. Compiled with the library's own flags. Only the kernels that the baseline code of
// conv_ops.cc and gemm.h does not already have are built here.
#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/cpu/bias_activation.h"
#include "runtime/kernels/cpu/int8_tap_sum.h"

namespace graphrt {
namespace isa {
namespace baseline {

namespace {

using V = __m128;
constexpr int64_t kLanes = 4;
inline V Zero() { return _mm_setzero_ps(); }
inline V Load(const float* p) { return _mm_loadu_ps(p); }
inline void Store(float* p, V v) { _mm_storeu_ps(p, v); }
inline V Broadcast(float x) { return _mm_set1_ps(x); }
inline V Add(V x, V y) { return _mm_add_ps(x, y); }
inline V Mul(V x, V y) { return _mm_mul_ps(x, y); }
inline V Sub(V x, V y) { return _mm_sub_ps(x, y); }
inline V Div(V x, V y) { return _mm_div_ps(x, y); }
// 2^n for integer-valued n in [-126, 127]; infinity for n = 128.
inline V Pow2(V n) {
  return _mm_castsi128_ps(
      _mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(n), _mm_set1_epi32(127)), 23));
}
using M = __m128;  // a comparison's result: all ones or all zeros per lane
inline M LessThan(V x, V y) { return _mm_cmplt_ps(x, y); }
inline V Select(M m, V if_true, V if_false) {
  return _mm_or_ps(_mm_and_ps(m, if_true), _mm_andnot_ps(m, if_false));
}

}  // namespace

#include "runtime/kernels/cpu/isa/bias_activation_kernel.inc"

namespace {

// Int8TapSum: 8 int16 a vector.
using VI = __m128i;
constexpr int64_t kI16Lanes = 8;
inline VI LoadI16(const int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const VI*>(p)); }
inline VI LoadU8AsI16(const uint8_t* p) {
  return _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const VI*>(p)), _mm_setzero_si128());
}
inline VI ZeroI() { return _mm_setzero_si128(); }
inline VI DotAddI16(VI acc, VI x, VI y) { return _mm_add_epi32(acc, _mm_madd_epi16(x, y)); }
inline VI UnpackLoI16(VI x, VI y) { return _mm_unpacklo_epi16(x, y); }
inline VI UnpackHiI16(VI x, VI y) { return _mm_unpackhi_epi16(x, y); }
inline void StorePairSums(int32_t* out, VI lo, VI hi) {
  _mm_storeu_si128(reinterpret_cast<VI*>(out), lo);
  _mm_storeu_si128(reinterpret_cast<VI*>(out + 4), hi);
}

}  // namespace

#include "runtime/kernels/cpu/isa/int8_tap_sum_kernel.inc"

}  // namespace baseline
}  // namespace isa
}  // namespace graphrt
