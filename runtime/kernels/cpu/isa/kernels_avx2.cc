// The vector kernels of the AVX2 + FMA path (cpu_isa.h): 8 floats a vector, 16 registers.
// Compiled with -mavx2 -mfma (cmake/GraphrtLayers.cmake); runs only when ActiveCpuIsa() says so.
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
namespace avx2 {

namespace {

using V = __m256;
constexpr int64_t kLanes = 8;
inline V Zero() { return _mm256_setzero_ps(); }
inline V Load(const float* p) { return _mm256_loadu_ps(p); }
inline void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
inline V Broadcast(float x) { return _mm256_set1_ps(x); }
inline V Add(V x, V y) { return _mm256_add_ps(x, y); }
inline V Mul(V x, V y) { return _mm256_mul_ps(x, y); }
inline V Sub(V x, V y) { return _mm256_sub_ps(x, y); }
inline V Div(V x, V y) { return _mm256_div_ps(x, y); }
// maxps: y where either is NaN.
inline V MaxPs(V x, V y) { return _mm256_max_ps(x, y); }
// 2^n for integer-valued n in [-126, 127]; infinity for n = 128.
inline V Pow2(V n) {
  return _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
using M = __m256;  // a comparison's result
inline M LessThan(V x, V y) { return _mm256_cmp_ps(x, y, _CMP_LT_OQ); }
inline V Select(M m, V if_true, V if_false) { return _mm256_blendv_ps(if_false, if_true, m); }
inline V MulAdd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
// The first n lanes of a vector, 1 <= n <= kLanes (the others read as zero, and not written).
inline __m256i FirstLanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline V LoadFirst(const float* p, int64_t n) { return _mm256_maskload_ps(p, FirstLanes(n)); }
inline void StoreFirst(float* p, V v, int64_t n) { _mm256_maskstore_ps(p, FirstLanes(n), v); }

// SGEMM: 6 x 16 register tiles (12 accumulators).
constexpr int kMr = 6;
constexpr int kNvMax = 2;
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 72;
constexpr int64_t kNc = 2048;

}  // namespace

#include "runtime/kernels/cpu/isa/bias_activation_kernel.inc"
#include "runtime/kernels/cpu/isa/sgemm_kernel.inc"
#include "runtime/kernels/cpu/isa/small_depth_conv_kernel.inc"
#include "runtime/kernels/cpu/isa/tap_sum_kernel.inc"
#include "runtime/kernels/cpu/isa/winograd_kernel.inc"

namespace {
namespace qgemm {

// Int8 products: both operands widened to int16, vpmaddwd. 4 x 16 register tiles (8
// accumulators, 2 of B, 1 of A, and room for the products in flight: 6 rows spill).
using V = __m256i;
constexpr int64_t kLanes = 8;
using AElem = int16_t;
using BElem = int16_t;
constexpr int64_t kDepth = 2;
inline V Zero() { return _mm256_setzero_si256(); }
inline V LoadB(const BElem* p) { return _mm256_load_si256(reinterpret_cast<const V*>(p)); }
inline V LoadC(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const V*>(p)); }
inline void StoreC(int32_t* p, V v) { _mm256_storeu_si256(reinterpret_cast<V*>(p), v); }
inline V Add(V x, V y) { return _mm256_add_epi32(x, y); }
// All ones in lanes [0, count).
inline V FirstLanes(int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline V LoadCFirst(const int32_t* p, int64_t count) {
  return _mm256_maskload_epi32(p, FirstLanes(count));
}
inline void StoreCFirst(int32_t* p, V v, int64_t count) {
  _mm256_maskstore_epi32(p, FirstLanes(count), v);
}
// 16 bytes at a time, widened with vpmovzxbw, then 8 (MobileNet's depths are multiples of 8).
inline void ConvertA(const uint8_t* src, int64_t count, AElem* dst) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_si256(reinterpret_cast<V*>(dst + i), _mm256_cvtepu8_epi16(bytes));
  }
  if (i + 8 <= count) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_cvtepu8_epi16(bytes));
    i += 8;
  }
  for (; i < count; ++i) dst[i] = src[i];
}
inline V BroadcastA(const AElem* p) {
  int32_t pair;
  memcpy(&pair, p, sizeof(pair));
  return _mm256_set1_epi32(pair);
}
inline V DotAdd(V acc, V a, V b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
constexpr int kMr = 4;
constexpr int kNv = 2;
constexpr int64_t kKc = 512;
constexpr int64_t kMc = 96;

}  // namespace qgemm
}  // namespace

#include "runtime/kernels/cpu/isa/qgemm_kernel.inc"

namespace {

// Int8TapSum: 16 int16 a vector; the unpacks work per 128-bit lane, so lo holds channels 0-3 and
// 8-11, hi 4-7 and 12-15.
using VI = __m256i;
constexpr int64_t kI16Lanes = 16;
inline VI LoadI16(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const VI*>(p)); }
inline VI LoadU8AsI16(const uint8_t* p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline VI ZeroI() { return _mm256_setzero_si256(); }
inline VI DotAddI16(VI acc, VI x, VI y) { return _mm256_add_epi32(acc, _mm256_madd_epi16(x, y)); }
inline VI UnpackLoI16(VI x, VI y) { return _mm256_unpacklo_epi16(x, y); }
inline VI UnpackHiI16(VI x, VI y) { return _mm256_unpackhi_epi16(x, y); }
inline void StorePairSums(int32_t* out, VI lo, VI hi) {
  _mm256_storeu_si256(reinterpret_cast<VI*>(out), _mm256_permute2x128_si256(lo, hi, 0x20));
  _mm256_storeu_si256(reinterpret_cast<VI*>(out + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}

}  // namespace

#include "runtime/kernels/cpu/isa/int8_tap_sum_kernel.inc"

}  // namespace avx2
}  // namespace isa
}  // namespace graphrt
