#include "runtime/kernels/cpu/int8_output.h"

#include <emmintrin.h>

#include <cmath>
#include <cstring>

namespace graphrt {

void Int8OutputRowsReference(const Int8OutputArgs& a) {
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t j = 0; j < a.cols; ++j) {
      const int32_t offset = a.offsets == nullptr ? 0 : a.offsets[j];
      float v = static_cast<float>(a.acc[r * a.ld_acc + j] - offset) * a.multipliers[j];
      if (a.bias != nullptr) v = v + a.bias[j];
      if (a.addend != nullptr) v = v + a.addend[r * a.ld_addend + j];
      // maxps / minps: the second operand unless the first is greater / smaller (NaN stays).
      v = a.lower > v ? a.lower : v;
      v = a.upper < v ? a.upper : v;
      if (a.codes == nullptr) {
        a.values[r * a.ld_out + j] = v;
        continue;
      }
      const float code = std::round(v * a.range_scale) - static_cast<float>(a.min_scaled);
      a.codes[r * a.ld_out + j] =
          !(code >= 0.0f) ? 0 : (code >= 255.0f ? 255 : static_cast<uint8_t>(code));
    }
  }
}

namespace isa {
namespace baseline {
namespace {
namespace int8_output {

using V = __m128;
using VI = __m128i;
constexpr int64_t kLanes = 4;

inline V LoadF(const float* p) { return _mm_loadu_ps(p); }
inline VI LoadI(const int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void StoreF(float* p, V v) { _mm_storeu_ps(p, v); }
inline V BroadcastF(float x) { return _mm_set1_ps(x); }
inline VI BroadcastI(int32_t x) { return _mm_set1_epi32(x); }
inline V ToFloat(VI x) { return _mm_cvtepi32_ps(x); }
inline VI Truncate(V x) { return _mm_cvttps_epi32(x); }
// SSE2 has no floor: truncate, and take 1 where that rounded up (x negative, not whole).
inline VI FloorToInt(V x) {
  const VI t = _mm_cvttps_epi32(x);
  return _mm_add_epi32(t, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(t), x)));
}
inline VI AddI(VI a, VI b) { return _mm_add_epi32(a, b); }
inline VI SubI(VI a, VI b) { return _mm_sub_epi32(a, b); }
inline V AddF(V a, V b) { return _mm_add_ps(a, b); }
inline V SubF(V a, V b) { return _mm_sub_ps(a, b); }
inline V MulF(V a, V b) { return _mm_mul_ps(a, b); }
inline V MaxF(V a, V b) { return _mm_max_ps(a, b); }
inline V MinF(V a, V b) { return _mm_min_ps(a, b); }
inline void StoreCodes(uint8_t* out, VI v) {
  const __m128i words = _mm_packs_epi32(v, v);
  const int32_t codes = _mm_cvtsi128_si32(_mm_packus_epi16(words, words));
  std::memcpy(out, &codes, sizeof(codes));
}
inline void StoreCodes4(uint8_t* out, VI a, VI b, VI c, VI d) {
  const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
}

#include "runtime/kernels/cpu/isa/int8_output_padded_tail.inc"

}  // namespace int8_output
}  // namespace

#include "runtime/kernels/cpu/isa/int8_output_kernel.inc"

}  // namespace baseline
}  // namespace isa
}  // namespace graphrt
