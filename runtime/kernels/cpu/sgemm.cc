#include "runtime/kernels/cpu/sgemm.h"

#include <cstdlib>
#include <memory>

namespace graphrt {

namespace {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// Each thread keeps its packing buffers from one product to the next (a few MiB at most).
float* ThreadWorkspace(size_t floats) {
  thread_local std::unique_ptr<float, FreeDeleter> buffer;
  thread_local size_t capacity = 0;
  if (capacity < floats) {
    const size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    buffer.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    capacity = buffer ? floats : 0;
  }
  return buffer.get();
}

}  // namespace

bool HasPackedSgemm(CpuIsa isa) { return isa == CpuIsa::kAvx2 || isa == CpuIsa::kAvx512; }

bool PackedSgemm(CpuIsa isa, const SgemmArgs& args) {
  const bool wide = isa == CpuIsa::kAvx512;
  float* workspace = ThreadWorkspace(wide ? isa::avx512::SgemmWorkspaceFloats()
                                          : isa::avx2::SgemmWorkspaceFloats());
  if (workspace == nullptr) return false;
  if (wide) {
    isa::avx512::Sgemm(args, workspace);
  } else {
    isa::avx2::Sgemm(args, workspace);
  }
  return true;
}

}  // namespace graphrt
