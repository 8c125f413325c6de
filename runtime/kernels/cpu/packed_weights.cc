#include "runtime/kernels/cpu/packed_weights.h"

namespace graphrt {

const SgemmPackedB* PackedWeights::Get(CpuIsa isa, const float* b, int64_t b_row, int64_t b_col,
                                       int64_t k, int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!packed_once_) {
    packed_once_ = true;
    source_ = b;
    b_row_ = b_row;
    b_col_ = b_col;
    packed_ = SgemmPackedB::Pack(isa, b, b_row, b_col, k, n);
  }
  const SgemmPackedB* p = packed_.get();
  if (p == nullptr || b != source_ || b_row != b_row_ || b_col != b_col_ || p->isa() != isa ||
      p->k() != k || p->n() != n) {
    return nullptr;
  }
  return p;
}

}  // namespace graphrt
