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
#include <memory>

#include "runtime/kernels/cpu/bias_activation.h"
#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {

// A fused layer's bias, residual and activation (bias_activation.h), applied to each tile of c
// as soon as its last sums are stored, while it is still in L1: c(i, j) = activation((c(i, j) +
// bias[j]) + addend[i * ldc + j]), the same bits as BiasActivationRows. bias is indexed by the
// product's columns; addend (null: none) is laid out as c.
struct SgemmEpilogue {
  const float* bias = nullptr;
  const float* addend = nullptr;
  RowActivation activation = RowActivation::kNone;
  float alpha = 0;
};

// Whether the packed SGEMM applies `activation` in registers as it stores a tile. It applies the
// others over each tile after storing it, which measures slower than a pass over blocks of rows
// in L2 (EfficientNetB0's swish, 2-3 %).
inline bool SgemmEpilogueInRegisters(RowActivation activation) {
  return activation == RowActivation::kNone || activation == RowActivation::kRelu ||
         activation == RowActivation::kRelu6;
}

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
  const SgemmEpilogue* epilogue = nullptr;  // none when null
  // B was packed beforehand and the products that read it take more than L2 holds, so that it
  // comes from memory: the kernels ask for it ahead (where few rows share each of its panels).
  bool b_from_memory = false;
};

// The most bytes of B a product can expect to find in L2 again (1 MB: Zen 4; Intel's server cores
// from Skylake on have 1 to 2 MB).
inline constexpr int64_t kSgemmL2Bytes = int64_t{1} << 20;

// Whether PackedSgemm has a kernel for `isa` (the baseline path has none: it keeps gemm.h's).
bool HasPackedSgemm(CpuIsa isa);

// c = A * B on the calling thread with the kernels of `isa`. Returns false, having done nothing,
// when the packing buffers cannot be allocated.
// REQUIRES: HasPackedSgemm(isa), the CPU runs `isa`, m, n, k >= 1, c does not overlap a or b.
bool PackedSgemm(CpuIsa isa, const SgemmArgs& args);

// A matrix B packed once for many products with it (a constant filter or weight matrix): the
// per-product packing of B, which costs as much as a product of few rows, is then skipped.
class SgemmPackedB {
 public:
  // B(p, j) = b[p * b_row + j * b_col], k x n. Null when `isa` has no packed kernels, k or n is
  // below 1, or memory runs out.
  static std::unique_ptr<SgemmPackedB> Pack(CpuIsa isa, const float* b, int64_t b_row,
                                            int64_t b_col, int64_t k, int64_t n);
  ~SgemmPackedB();
  SgemmPackedB(const SgemmPackedB&) = delete;
  SgemmPackedB& operator=(const SgemmPackedB&) = delete;

  CpuIsa isa() const { return isa_; }
  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // Column blocks of a product start at multiples of this.
  int64_t panel_columns() const { return panel_columns_; }
  // The panels from column j0 on. REQUIRES: j0 % panel_columns() == 0.
  const float* panels(int64_t j0) const { return data_ + j0 * k_; }

 private:
  SgemmPackedB(CpuIsa isa, int64_t k, int64_t n, int64_t panel_columns, float* data)
      : isa_(isa), k_(k), n_(n), panel_columns_(panel_columns), data_(data) {}
  CpuIsa isa_;
  int64_t k_, n_, panel_columns_;
  float* data_;  // 64-byte aligned, owned
};

// As PackedSgemm, with B's columns [j0, j0 + args.n) taken from `packed`. args.b still points at
// B(0, j0): products of a few rows read B in place.
// REQUIRES: packed.isa() == isa, args.k == packed.k(), j0 % packed.panel_columns() == 0,
// j0 + args.n <= packed.n().
bool PackedSgemm(CpuIsa isa, const SgemmArgs& args, const SgemmPackedB& packed, int64_t j0);

namespace isa {
// One per path (isa/kernels_avx2.cc, isa/kernels_avx512.cc). `workspace` holds at least
// SgemmWorkspaceFloats() floats, 64-byte aligned. Sgemm packs B itself when `prepacked` is null,
// and otherwise reads SgemmPackB's panels of `panel_columns` columns from there.
namespace avx2 {
size_t SgemmWorkspaceFloats();
int64_t SgemmPanelColumns(int64_t n);
void SgemmPackB(const float* b, int64_t b_row, int64_t b_col, int64_t k, int64_t n, float* dst);
void Sgemm(const SgemmArgs& args, const float* prepacked, int64_t panel_columns, float* workspace);
}  // namespace avx2
namespace avx512 {
size_t SgemmWorkspaceFloats();
int64_t SgemmPanelColumns(int64_t n);
void SgemmPackB(const float* b, int64_t b_row, int64_t b_col, int64_t k, int64_t n, float* dst);
void Sgemm(const SgemmArgs& args, const float* prepacked, int64_t panel_columns, float* workspace);
}  // namespace avx512
}  // namespace isa

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_SGEMM_H_
