#include "runtime/kernels/cpu/qgemm.h"

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace graphrt {

// The baseline path: SSE2, which every x86-64 has, compiled with the library's own flags.
namespace isa {
namespace baseline {

namespace {
namespace qgemm {

// Both operands widened to int16, pmaddwd. 4 x 8 register tiles (8 accumulators).
using V = __m128i;
constexpr int64_t kLanes = 4;
using AElem = int16_t;
using BElem = int16_t;
constexpr int64_t kDepth = 2;
inline V Zero() { return _mm_setzero_si128(); }
inline V LoadB(const BElem* p) { return _mm_load_si128(reinterpret_cast<const V*>(p)); }
inline V LoadC(const int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const V*>(p)); }
inline void StoreC(int32_t* p, V v) { _mm_storeu_si128(reinterpret_cast<V*>(p), v); }
inline V Add(V x, V y) { return _mm_add_epi32(x, y); }
// SSE2 has no masked moves that are not also non-temporal: the lanes go through memory.
inline V LoadCFirst(const int32_t* p, int64_t count) {
  alignas(16) int32_t lanes[kLanes] = {0, 0, 0, 0};
  for (int64_t j = 0; j < count; ++j) lanes[j] = p[j];
  return _mm_load_si128(reinterpret_cast<const V*>(lanes));
}
inline void StoreCFirst(int32_t* p, V v, int64_t count) {
  alignas(16) int32_t lanes[kLanes];
  _mm_store_si128(reinterpret_cast<V*>(lanes), v);
  for (int64_t j = 0; j < count; ++j) p[j] = lanes[j];
}
// 16 bytes at a time, interleaved with zeros, then 8 (MobileNet's depths are multiples of 8).
inline void ConvertA(const uint8_t* src, int64_t count, AElem* dst) {
  const V zero = _mm_setzero_si128();
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const V bytes = _mm_loadu_si128(reinterpret_cast<const V*>(src + i));
    _mm_storeu_si128(reinterpret_cast<V*>(dst + i), _mm_unpacklo_epi8(bytes, zero));
    _mm_storeu_si128(reinterpret_cast<V*>(dst + i + 8), _mm_unpackhi_epi8(bytes, zero));
  }
  if (i + 8 <= count) {
    const V bytes = _mm_loadl_epi64(reinterpret_cast<const V*>(src + i));
    _mm_storeu_si128(reinterpret_cast<V*>(dst + i), _mm_unpacklo_epi8(bytes, zero));
    i += 8;
  }
  for (; i < count; ++i) dst[i] = src[i];
}
inline V BroadcastA(const AElem* p) {
  int32_t pair;
  memcpy(&pair, p, sizeof(pair));
  return _mm_set1_epi32(pair);
}
inline V DotAdd(V acc, V a, V b) { return _mm_add_epi32(acc, _mm_madd_epi16(a, b)); }
constexpr int kMr = 4;
constexpr int kNv = 2;
constexpr int64_t kKc = 512;
constexpr int64_t kMc = 128;

}  // namespace qgemm
}  // namespace

#include "runtime/kernels/cpu/isa/qgemm_kernel.inc"

}  // namespace baseline
}  // namespace isa

namespace {

// One row per QGemmIsa, in the enum's order.
struct QGemmPath {
  size_t (*packed_b_bytes)(int64_t k, int64_t n);
  void (*pack_b)(const int8_t* b, int64_t ldb, int64_t k, int64_t n, void* dst);
  size_t (*workspace_bytes)();
  void (*product)(const void* packed_b, int64_t k, int64_t m, const uint8_t* a, int64_t lda,
                  int32_t* c, int64_t ldc, int64_t j0, int64_t n, void* workspace);
};

constexpr QGemmPath kPaths[] = {
    {isa::baseline::QGemmPackedBBytes, isa::baseline::QGemmPackB,
     isa::baseline::QGemmWorkspaceBytes, isa::baseline::QGemm},
    {isa::avx2::QGemmPackedBBytes, isa::avx2::QGemmPackB, isa::avx2::QGemmWorkspaceBytes,
     isa::avx2::QGemm},
    {isa::avx512::QGemmPackedBBytes, isa::avx512::QGemmPackB, isa::avx512::QGemmWorkspaceBytes,
     isa::avx512::QGemm},
    {isa::avx512vnni::QGemmPackedBBytes, isa::avx512vnni::QGemmPackB,
     isa::avx512vnni::QGemmWorkspaceBytes, isa::avx512vnni::QGemm},
};

const QGemmPath& PathOf(QGemmIsa isa) { return kPaths[static_cast<int>(isa)]; }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// 64-byte aligned, rounded up to whole cache lines; null when memory runs out.
void* AlignedAlloc(size_t bytes) { return std::aligned_alloc(64, (bytes + 63) / 64 * 64); }

// Each thread keeps its block of packed A from one product to the next (at most 128 KiB).
void* ThreadWorkspace(size_t bytes) {
  thread_local std::unique_ptr<void, FreeDeleter> buffer;
  thread_local size_t capacity = 0;
  if (capacity < bytes) {
    buffer.reset(AlignedAlloc(bytes));
    capacity = buffer ? bytes : 0;
  }
  return buffer.get();
}

class PackedB final : public QGemmPackedB {
 public:
  PackedB(QGemmIsa isa, int64_t k, int64_t n, void* data, int32_t* column_sums)
      : isa_(isa), k_(k), n_(n), data_(data), column_sums_(column_sums) {}

  QGemmIsa isa() const override { return isa_; }
  int64_t k() const override { return k_; }
  int64_t n() const override { return n_; }
  const int32_t* column_sums() const override {
    return static_cast<const int32_t*>(column_sums_.get());
  }
  const void* data() const { return data_.get(); }

 private:
  QGemmIsa isa_;
  int64_t k_, n_;
  std::unique_ptr<void, FreeDeleter> data_;  // the path's layout
  std::unique_ptr<void, FreeDeleter> column_sums_;
};

// cpuid leaf 7, sub-leaf 0: ECX bit 11 is AVX512_VNNI. Its registers are the AVX-512 ones, which
// DetectedCpuIsa() has already checked that the OS saves.
bool CpuHasAvx512Vnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & (1u << 11)) != 0;
#else
  return false;
#endif
}

}  // namespace

const char* QGemmIsaName(QGemmIsa isa) {
  switch (isa) {
    case QGemmIsa::kAvx2:
      return "avx2";
    case QGemmIsa::kAvx512:
      return "avx512";
    case QGemmIsa::kAvx512Vnni:
      return "avx512vnni";
    case QGemmIsa::kBaseline:
      break;
  }
  return "baseline";
}

bool QGemmIsaRuns(QGemmIsa isa) {
  static const CpuIsa detected = DetectedCpuIsa();
  static const bool vnni = detected == CpuIsa::kAvx512 && CpuHasAvx512Vnni();
  switch (isa) {
    case QGemmIsa::kBaseline:
      return true;
    case QGemmIsa::kAvx2:
      return static_cast<int>(detected) >= static_cast<int>(CpuIsa::kAvx2);
    case QGemmIsa::kAvx512:
      return detected == CpuIsa::kAvx512;
    case QGemmIsa::kAvx512Vnni:
      return vnni;
  }
  return false;
}

QGemmIsa ActiveQGemmIsa() {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return QGemmIsaRuns(QGemmIsa::kAvx512Vnni) ? QGemmIsa::kAvx512Vnni : QGemmIsa::kAvx512;
    case CpuIsa::kAvx2:
      return QGemmIsa::kAvx2;
    case CpuIsa::kBaseline:
      break;
  }
  return QGemmIsa::kBaseline;
}

std::unique_ptr<QGemmPackedB> QGemmPackedB::Pack(QGemmIsa isa, const int8_t* b, int64_t ldb,
                                                 int64_t k, int64_t n) {
  if (k < 1 || n < 1 || !QGemmIsaRuns(isa)) return nullptr;
  const QGemmPath& path = PathOf(isa);
  std::unique_ptr<void, FreeDeleter> data(AlignedAlloc(path.packed_b_bytes(k, n)));
  std::unique_ptr<void, FreeDeleter> sums_buffer(
      AlignedAlloc(static_cast<size_t>(n) * sizeof(int32_t)));
  if (data == nullptr || sums_buffer == nullptr) return nullptr;
  path.pack_b(b, ldb, k, n, data.get());
  int32_t* sums = static_cast<int32_t*>(sums_buffer.get());
  for (int64_t j = 0; j < n; ++j) sums[j] = 0;
  for (int64_t p = 0; p < k; ++p) {
    const int8_t* row = b + p * ldb;
    for (int64_t j = 0; j < n; ++j) sums[j] += row[j];
  }
  std::unique_ptr<QGemmPackedB> packed(new (std::nothrow) PackedB(isa, k, n, data.get(), sums));
  if (packed == nullptr) return nullptr;
  data.release();
  sums_buffer.release();
  return packed;
}

void QGemm(const QGemmPackedB& b, int64_t m, const uint8_t* a, int64_t lda, int32_t* c, int64_t ldc,
           int64_t j0, int64_t n) {
  if (n < 0) n = b.n() - j0;
  if (m < 1 || n < 1) return;
  const QGemmPath& path = PathOf(b.isa());
  void* workspace = ThreadWorkspace(path.workspace_bytes());
  if (workspace == nullptr) {
    // The product is owed and there is no way to say it failed: end as operator new would.
    std::fprintf(stderr, "graphrt: out of memory for a %zu-byte int8 product block\n",
                 path.workspace_bytes());
    std::abort();
  }
  path.product(static_cast<const PackedB&>(b).data(), b.k(), m, a, lda, c, ldc, j0, n, workspace);
}

void QGemmReference(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                    int64_t ldb, int32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint32_t sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += static_cast<uint32_t>(a[i * lda + p] * static_cast<int32_t>(b[p * ldb + j]));
      }
      c[i * ldc + j] = static_cast<int32_t>(sum);
    }
  }
}

}  // namespace graphrt
