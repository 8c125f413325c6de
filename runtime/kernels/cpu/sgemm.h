// Packed, cache-blocked float matrix products for the AVX2 and AVX-512 paths (cpu_isa.h).
//
// PackedSgemm computes c[m, n] = A[m, k] * B[k, n] with operands of any strides, so that
// transposed operands and column blocks need no copy of their own. It follows the BLIS
// blocking: B is packed kKc rows by kNc columns at a time into panels of kNr columns (kept in
// L3), A kMc rows at a time into panels of kMr rows (kept in L2), and a micro-kernel holds a
// kMr x kNr tile of c in registers while it runs over the kKc-deep panels. The kernels
// themselves are in isa/sgemm_kernel.inc, compiled once per path (isa/kernels_<path>.cc).
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_SGEMM_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_SGEMM_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {

// The operands of one product: A(i, p) = a[i * a_row + p * a_col], B(p, j) = b[p * b_row + j *
// b_col], c row-major with row stride ldc.
struct SgemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  int64_t a_row = 0, a_col = 0;
  const float* b = nullptr;
  int64_t b_row = 0, b_col = 0;
  float* c = nullptr;
  int64_t ldc = 0;
};

// Whether PackedSgemm has a kernel for `isa` (the baseline path has none: it keeps gemm.h's).
bool HasPackedSgemm(CpuIsa isa);

// c = A * B on the calling thread with the kernels of `isa`. Returns false, having done nothing,
// when the packing buffers cannot be allocated.
// REQUIRES: HasPackedSgemm(isa), the CPU runs `isa`, m, n, k >= 1, c does not overlap a or b.
bool PackedSgemm(CpuIsa isa, const SgemmArgs& args);

namespace isa {
// One per path (isa/kernels_avx2.cc, isa/kernels_avx512.cc). `workspace` holds at least
// SgemmWorkspaceFloats() floats, 64-byte aligned.
namespace avx2 {
size_t SgemmWorkspaceFloats();
void Sgemm(const SgemmArgs& args, float* workspace);
}  // namespace avx2
namespace avx512 {
size_t SgemmWorkspaceFloats();
void Sgemm(const SgemmArgs& args, float* workspace);
}  // namespace avx512
}  // namespace isa

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_SGEMM_H_
