// The vector kernels of the AVX-512 path (cpu_isa.h): 16 floats a vector, 32 registers.
// Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma (cmake/GraphrtLayers.cmake);
// runs only when ActiveCpuIsa() says so.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/cpu/bias_activation.h"
#include "runtime/kernels/cpu/int8_tap_sum.h"
#include "runtime/kernels/cpu/qgemm.h"
#include "runtime/kernels/cpu/sgemm.h"
#include "runtime/kernels/cpu/small_depth_conv.h"
#include "runtime/kernels/cpu/tap_sum.h"
#include "runtime/kernels/cpu/winograd.h"

namespace graphrt {
namespace isa {
namespace avx512 {

namespace {

using V = __m512;
constexpr int64_t kLanes = 16;
inline V Zero() { return _mm512_setzero_ps(); }
inline V Load(const float* p) { return _mm512_loadu_ps(p); }
inline void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
inline V Broadcast(float x) { return _mm512_set1_ps(x); }
inline V Add(V x, V y) { return _mm512_add_ps(x, y); }
inline V Mul(V x, V y) { return _mm512_mul_ps(x, y); }
inline V Sub(V x, V y) { return _mm512_sub_ps(x, y); }
inline V Div(V x, V y) { return _mm512_div_ps(x, y); }
// maxps: y where either is NaN.
inline V MaxPs(V x, V y) { return _mm512_maskz_max_ps(0xFFFF, x, y); }  // (see Pow2)
// 2^n for integer-valued n in [-126, 127]; infinity for n = 128. (The zero-masked forms: GCC 12
// warns that the unmasked ones read an undefined vector.)
inline V Pow2(V n) {
  const __mmask16 all = 0xFFFF;
  const __m512i biased = _mm512_add_epi32(_mm512_maskz_cvtps_epi32(all, n), _mm512_set1_epi32(127));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all, biased, 23));
}
using M = __mmask16;  // a comparison's result
inline M LessThan(V x, V y) { return _mm512_cmp_ps_mask(x, y, _CMP_LT_OQ); }
inline V Select(M m, V if_true, V if_false) { return _mm512_mask_blend_ps(m, if_false, if_true); }
inline V MulAdd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
// The first n lanes of a vector, 1 <= n <= kLanes (the others read as zero, and not written).
inline __mmask16 FirstLanes(int64_t n) { return static_cast<__mmask16>((1u << n) - 1); }
inline V LoadFirst(const float* p, int64_t n) { return _mm512_maskz_loadu_ps(FirstLanes(n), p); }
inline void StoreFirst(float* p, V v, int64_t n) { _mm512_mask_storeu_ps(p, FirstLanes(n), v); }

// SGEMM: 12 x 32 register tiles (24 accumulators).
constexpr int kMr = 12;
constexpr int kNvMax = 2;
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 144;
constexpr int64_t kNc = 2048;

}  // namespace

#include "runtime/kernels/cpu/isa/bias_activation_kernel.inc"
#include "runtime/kernels/cpu/isa/sgemm_kernel.inc"
#include "runtime/kernels/cpu/isa/small_depth_conv_kernel.inc"
#include "runtime/kernels/cpu/isa/tap_sum_kernel.inc"
#include "runtime/kernels/cpu/isa/winograd_kernel.inc"

namespace {
namespace qgemm {

// Int8 products: both operands widened to int16, vpmaddwd. 8 x 32 register tiles (16
// accumulators, and room for the products in flight: 24 accumulators spill).
using V = __m512i;
constexpr int64_t kLanes = 16;
using AElem = int16_t;
using BElem = int16_t;
constexpr int64_t kDepth = 2;
inline V Zero() { return _mm512_setzero_si512(); }
inline V LoadB(const BElem* p) { return _mm512_load_si512(p); }
#include "runtime/kernels/cpu/isa/qgemm_avx512_c.inc"
// 32 bytes at a time, widened with vpmovzxbw; the tail through masks.
inline void ConvertA(const uint8_t* src, int64_t count, AElem* dst) {
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm512_storeu_si512(dst + i, _mm512_cvtepu8_epi16(bytes));
  }
  if (i < count) {
    const __mmask32 tail = static_cast<__mmask32>((uint64_t{1} << (count - i)) - 1);
    const __m256i bytes = _mm256_maskz_loadu_epi8(tail, src + i);
    _mm512_mask_storeu_epi16(dst + i, tail, _mm512_cvtepu8_epi16(bytes));
  }
}
inline V BroadcastA(const AElem* p) {
  int32_t pair;
  memcpy(&pair, p, sizeof(pair));
  return _mm512_set1_epi32(pair);
}
inline V DotAdd(V acc, V a, V b) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b)); }
constexpr int kMr = 8;
constexpr int kNv = 2;
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 192;

}  // namespace qgemm
}  // namespace

#include "runtime/kernels/cpu/isa/qgemm_kernel.inc"

namespace {

// Int8TapSum, with vpmaddwd and an add.
#include "runtime/kernels/cpu/isa/int8_tap_sum_avx512.inc"
inline VI DotAddI16(VI acc, VI x, VI y) { return _mm512_add_epi32(acc, _mm512_madd_epi16(x, y)); }

}  // namespace

#include "runtime/kernels/cpu/isa/int8_tap_sum_kernel.inc"

}  // namespace avx512
}  // namespace isa
}  // namespace graphrt
