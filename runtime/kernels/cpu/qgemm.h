// Integer matrix products for the int8 kernels: c(i, j) = sum_p A(i, p) * B(p, j), A unsigned 8-bit
// (activations, with a zero point the caller subtracts through column_sums()), B signed 8-bit
// (weights, packed once), c 32-bit. Every path gives the exact integer result (no saturating
// intermediate), so the paths agree bit for bit with QGemmReference.
//
// Paths, chosen at run time like the float kernels (cpu_isa.h): baseline (SSE2), AVX2, AVX-512
// and AVX-512 VNNI (vpdpbusd). GRAPHRT_ISA caps the path as it does for the float kernels;
// GRAPHRT_ISA=avx512 keeps VNNI where the CPU has it.
//
// The baseline, AVX2 and AVX-512 paths widen both operands to 16 bits (B once, when it is packed;
// A a block at a time) and multiply with pmaddwd, whose pair sums (at most 2 * 255 * 128) cannot
// saturate; pmaddubsw, which saturates at 16 bits, is never used. The VNNI path multiplies the
// bytes with vpdpbusd, which sums four products into 32 bits without saturating, reading A where
// it lies (never past A(m - 1, k - 1)). The kernels are in isa/qgemm_kernel.inc, compiled once
// per path.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_QGEMM_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_QGEMM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {

enum class QGemmIsa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2, kAvx512Vnni = 3 };

const char* QGemmIsaName(QGemmIsa isa);
// Whether this CPU runs `isa`'s kernels.
bool QGemmIsaRuns(QGemmIsa isa);
// The path the int8 kernels take: the widest this CPU runs within ActiveCpuIsa().
QGemmIsa ActiveQGemmIsa();

// B (k x n, B(p, j) = b[p * ldb + j]) laid out for `isa`'s kernels, with its column sums.
class QGemmPackedB {
 public:
  // Null when k or n is below 1, QGemmIsaRuns(isa) is false, or memory runs out.
  static std::unique_ptr<QGemmPackedB> Pack(QGemmIsa isa, const int8_t* b, int64_t ldb, int64_t k,
                                            int64_t n);
  virtual ~QGemmPackedB() = default;

  virtual QGemmIsa isa() const = 0;
  virtual int64_t k() const = 0;
  virtual int64_t n() const = 0;
  // sum_p B(p, j), n values: c(i, j) - zero_point * column_sums()[j] is the product with A - zero
  // point.
  virtual const int32_t* column_sums() const = 0;
};

// c(i, j0 + j) for i < m, j < n: A(i, p) = a[i * lda + p], c row-major with row stride ldc
// (c points at row 0, column j0 of the caller's matrix). n < 0 means all columns from j0.
// Safe to call from many threads at once with one packed B.
// REQUIRES: m >= 0, 0 <= j0, j0 + n <= b.n(), QGemmIsaRuns(b.isa()).
void QGemm(const QGemmPackedB& b, int64_t m, const uint8_t* a, int64_t lda, int32_t* c, int64_t ldc,
           int64_t j0 = 0, int64_t n = -1);

// The plain loop every path must match. Sums wrap modulo 2^32 as in the vector kernels; they
// cannot overflow while k <= 65793 (2^31 / (255 * 128)).
void QGemmReference(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                    int64_t ldb, int32_t* c, int64_t ldc);

namespace isa {
// One per path: isa::baseline in qgemm.cc, the others in isa/kernels_<path>.cc. The packed B
// holds QGemmPackedBBytes(k, n) bytes, 64-byte aligned; `workspace` QGemmWorkspaceBytes(),
// 64-byte aligned, one per calling thread. QGemm writes c(i, j0 + j) for i < m, j < n, with
// c pointing at column j0 as in graphrt::QGemm.
namespace baseline {
size_t QGemmPackedBBytes(int64_t k, int64_t n);
void QGemmPackB(const int8_t* b, int64_t ldb, int64_t k, int64_t n, void* dst);
size_t QGemmWorkspaceBytes();
void QGemm(const void* packed_b, int64_t k, int64_t m, const uint8_t* a, int64_t lda, int32_t* c,
           int64_t ldc, int64_t j0, int64_t n, void* workspace);
}  // namespace baseline
namespace avx2 {
size_t QGemmPackedBBytes(int64_t k, int64_t n);
void QGemmPackB(const int8_t* b, int64_t ldb, int64_t k, int64_t n, void* dst);
size_t QGemmWorkspaceBytes();
void QGemm(const void* packed_b, int64_t k, int64_t m, const uint8_t* a, int64_t lda, int32_t* c,
           int64_t ldc, int64_t j0, int64_t n, void* workspace);
}  // namespace avx2
namespace avx512 {
size_t QGemmPackedBBytes(int64_t k, int64_t n);
void QGemmPackB(const int8_t* b, int64_t ldb, int64_t k, int64_t n, void* dst);
size_t QGemmWorkspaceBytes();
void QGemm(const void* packed_b, int64_t k, int64_t m, const uint8_t* a, int64_t lda, int32_t* c,
           int64_t ldc, int64_t j0, int64_t n, void* workspace);
}  // namespace avx512
namespace avx512vnni {
size_t QGemmPackedBBytes(int64_t k, int64_t n);
void QGemmPackB(const int8_t* b, int64_t ldb, int64_t k, int64_t n, void* dst);
size_t QGemmWorkspaceBytes();
void QGemm(const void* packed_b, int64_t k, int64_t m, const uint8_t* a, int64_t lda, int32_t* c,
           int64_t ldc, int64_t j0, int64_t n, void* workspace);
}  // namespace avx512vnni
}  // namespace isa

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_QGEMM_H_
