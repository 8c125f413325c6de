// The epilogue of the fused convolutions and products (fused_epilogue.h):
// out[r, c] = activation((out[r, c] + bias[c]) + addend[r, c]), vectorized on every path
// (isa/bias_activation_kernel.inc, built for SSE2, AVX2 and AVX-512) and free of data-dependent
// branches, which a scalar loop over signs that vary at random mispredicts.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_BIAS_ACTIVATION_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_BIAS_ACTIVATION_H_

#include <cstdint>

#include "runtime/kernels/cpu/cpu_isa.h"

namespace graphrt {

// Relu and Relu6 pass NaN on; LeakyRelu is x * alpha where x <= 0; HardSwish is
// (x * relu6(x + 3)) * (1/6), each as graphrt's own kernels compute them. Elu (exp(x) - 1 below
// zero), Sigmoid (1 / (1 + exp(-x))) and Swish (x / (1 + exp(-x))) take exp from a polynomial
// within 2 ulp; the values are within 1e-6 relative of the formulas in double precision (or 1e-35
// absolute where they underflow, 3e-7 for Elu's exp(x) - 1 near zero).
enum class RowActivation {
  kNone = 0,
  kRelu,
  kRelu6,
  kLeakyRelu,
  kHardSwish,
  kElu,
  kSigmoid,
  kSwish
};

// What a BiasActivationRows call does. addend is null, or rows * channels values.
struct BiasActivationArgs {
  const float* bias = nullptr;
  const float* addend = nullptr;
  int64_t rows = 0, channels = 0;
  RowActivation activation = RowActivation::kNone;
  float alpha = 0;
  float* out = nullptr;
};

namespace isa {
namespace baseline {
void BiasActivationRows(const BiasActivationArgs& args);
}  // namespace baseline
namespace avx2 {
void BiasActivationRows(const BiasActivationArgs& args);
}  // namespace avx2
namespace avx512 {
void BiasActivationRows(const BiasActivationArgs& args);
}  // namespace avx512
}  // namespace isa

// Runs the kernel of `isa`. REQUIRES: the CPU runs `isa`.
inline void BiasActivationRows(CpuIsa isa, const BiasActivationArgs& args) {
  switch (isa) {
    case CpuIsa::kAvx512:
      isa::avx512::BiasActivationRows(args);
      return;
    case CpuIsa::kAvx2:
      isa::avx2::BiasActivationRows(args);
      return;
    case CpuIsa::kBaseline:
      break;
  }
  isa::baseline::BiasActivationRows(args);
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_BIAS_ACTIVATION_H_
