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

bool RunSgemm(CpuIsa isa, const SgemmArgs& args, const float* prepacked, int64_t panel_columns) {
  const bool wide = isa == CpuIsa::kAvx512;
  float* workspace = ThreadWorkspace(wide ? isa::avx512::SgemmWorkspaceFloats()
                                          : isa::avx2::SgemmWorkspaceFloats());
  if (workspace == nullptr) return false;
  if (wide) {
    isa::avx512::Sgemm(args, prepacked, panel_columns, workspace);
  } else {
    isa::avx2::Sgemm(args, prepacked, panel_columns, workspace);
  }
  return true;
}

}  // namespace

bool HasPackedSgemm(CpuIsa isa) { return isa == CpuIsa::kAvx2 || isa == CpuIsa::kAvx512; }

bool PackedSgemm(CpuIsa isa, const SgemmArgs& args) { return RunSgemm(isa, args, nullptr, 0); }

bool PackedSgemm(CpuIsa isa, const SgemmArgs& args, const SgemmPackedB& packed, int64_t j0) {
  return RunSgemm(isa, args, packed.panels(j0), packed.panel_columns());
}

std::unique_ptr<SgemmPackedB> SgemmPackedB::Pack(CpuIsa isa, const float* b, int64_t b_row,
                                                 int64_t b_col, int64_t k, int64_t n) {
  if (!HasPackedSgemm(isa) || k < 1 || n < 1) return nullptr;
  const bool wide = isa == CpuIsa::kAvx512;
  const int64_t panel_columns =
      wide ? isa::avx512::SgemmPanelColumns(n) : isa::avx2::SgemmPanelColumns(n);
  const int64_t padded_n = (n + panel_columns - 1) / panel_columns * panel_columns;
  const size_t bytes = (static_cast<size_t>(k * padded_n) * sizeof(float) + 63) / 64 * 64;
  float* data = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (data == nullptr) return nullptr;
  if (wide) {
    isa::avx512::SgemmPackB(b, b_row, b_col, k, n, data);
  } else {
    isa::avx2::SgemmPackB(b, b_row, b_col, k, n, data);
  }
  return std::unique_ptr<SgemmPackedB>(new SgemmPackedB(isa, k, n, panel_columns, data));
}

SgemmPackedB::~SgemmPackedB() { std::free(data_); }

}  // namespace graphrt
