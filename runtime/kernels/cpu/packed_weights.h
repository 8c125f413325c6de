// A kernel's constant float weight matrix (a Conv2D filter or a MatMul operand that is a Const
// node's value), packed for the SGEMM kernels on its first use and reused by every later Run:
// the packing then costs once per session instead of once per product.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_PACKED_WEIGHTS_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_PACKED_WEIGHTS_H_

#include <cstdint>
#include <memory>
#include <mutex>

#include "runtime/kernels/cpu/sgemm.h"

namespace graphrt {

class PackedWeights {
 public:
  PackedWeights() = default;
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;

  // The packing of B(p, j) = b[p * b_row + j * b_col] (k x n) for `isa`, made by the first call.
  // Null where `isa` has no packed kernels or memory ran out, and for a call whose b or shape
  // differs from the first call's (that product then packs B itself). Safe from several threads.
  const SgemmPackedB* Get(CpuIsa isa, const float* b, int64_t b_row, int64_t b_col, int64_t k,
                          int64_t n);

 private:
  std::mutex mu_;
  bool packed_once_ = false;
  const float* source_ = nullptr;
  int64_t b_row_ = 0, b_col_ = 0;
  std::unique_ptr<SgemmPackedB> packed_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_PACKED_WEIGHTS_H_
