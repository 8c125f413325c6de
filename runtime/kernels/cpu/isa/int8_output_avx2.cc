// Int8OutputRows (int8_output.h) for AVX2: eight lanes.
#include <immintrin.h>

#include "runtime/kernels/cpu/int8_output.h"

namespace graphrt {
namespace isa {
namespace avx2 {
namespace {
namespace int8_output {

using V = __m256;
using VI = __m256i;
constexpr int64_t kLanes = 8;

inline V LoadF(const float* p) { return _mm256_loadu_ps(p); }
inline VI LoadI(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void StoreF(float* p, V v) { _mm256_storeu_ps(p, v); }
inline V BroadcastF(float x) { return _mm256_set1_ps(x); }
inline VI BroadcastI(int32_t x) { return _mm256_set1_epi32(x); }
inline V ToFloat(VI x) { return _mm256_cvtepi32_ps(x); }
inline VI Truncate(V x) { return _mm256_cvttps_epi32(x); }
inline VI FloorToInt(V x) { return _mm256_cvttps_epi32(_mm256_floor_ps(x)); }
inline VI AddI(VI a, VI b) { return _mm256_add_epi32(a, b); }
inline VI SubI(VI a, VI b) { return _mm256_sub_epi32(a, b); }
inline V AddF(V a, V b) { return _mm256_add_ps(a, b); }
inline V SubF(V a, V b) { return _mm256_sub_ps(a, b); }
inline V MulF(V a, V b) { return _mm256_mul_ps(a, b); }
inline V MaxF(V a, V b) { return _mm256_max_ps(a, b); }
inline V MinF(V a, V b) { return _mm256_min_ps(a, b); }
inline void StoreCodes(uint8_t* out, VI v) {
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(words, words));
}

// Each 128-bit lane L of the packs holds a[4L..4L+3], b[4L..], c[4L..], d[4L..]; one dword
// permute puts them in order.
inline void StoreCodes4(uint8_t* out, VI a, VI b, VI c, VI d) {
  const VI bytes = _mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
  const VI order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(bytes, order));
}

#include "runtime/kernels/cpu/isa/int8_output_padded_tail.inc"

}  // namespace int8_output
}  // namespace

#include "runtime/kernels/cpu/isa/int8_output_kernel.inc"

}  // namespace avx2
}  // namespace isa
}  // namespace graphrt
