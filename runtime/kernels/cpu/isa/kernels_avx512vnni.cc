// The vector kernels of the AVX-512 VNNI path of the int8 products (qgemm.h): vpdpbusd multiplies
// unsigned by signed bytes and adds each lane's four products to 32 bits without saturating.
// Compiled with the AVX-512 flags and -mavx512vnni (cmake/GraphrtLayers.cmake); runs only when
// QGemmIsaRuns(QGemmIsa::kAvx512Vnni).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/cpu/qgemm.h"

namespace graphrt {
namespace isa {
namespace avx512vnni {

namespace {
namespace qgemm {

// 6 x 64 register tiles (24 accumulators, 4 of B, 1 of A).
using V = __m512i;
constexpr int64_t kLanes = 16;
using AElem = uint8_t;
using BElem = int8_t;
constexpr int64_t kDepth = 4;
inline V Zero() { return _mm512_setzero_si512(); }
inline V LoadB(const BElem* p) { return _mm512_load_si512(p); }
#include "runtime/kernels/cpu/isa/qgemm_avx512_c.inc"
// A is multiplied as it is: only a block that ends inside a step is copied (qgemm_kernel.inc).
inline void ConvertA(const uint8_t* src, int64_t count, AElem* dst) {
  memcpy(dst, src, static_cast<size_t>(count));
}
inline V BroadcastA(const AElem* p) {
  int32_t quad;
  memcpy(&quad, p, sizeof(quad));
  return _mm512_set1_epi32(quad);
}
inline V DotAdd(V acc, V a, V b) { return _mm512_dpbusd_epi32(acc, a, b); }
constexpr int kMr = 6;
constexpr int kNv = 4;
constexpr int64_t kKc = 512;
constexpr int64_t kMc = 96;

}  // namespace qgemm
}  // namespace

#include "runtime/kernels/cpu/isa/qgemm_kernel.inc"

}  // namespace avx512vnni
}  // namespace isa
}  // namespace graphrt
