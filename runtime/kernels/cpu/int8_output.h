// The output stage of graphrt's int8 products (int8_product.h, int8_ops.cc) in one pass over
// their int32 sums, for the epilogues that need no more than a bias, a residual addend and Relu or
// Relu6: for each of `rows` rows and `cols` columns,
//
//   v = float(acc[j] - offsets[j]) * multipliers[j]      one conversion, one product
//   v = (v + bias[j]) + addend[j]                        where given
//   v = min(upper, max(lower, v))                        Relu: [0, inf), Relu6: [0, 6]; NaN stays
//
// then v itself, or, for an int8 op that writes codes, QuantizeV2's MIN_FIRST code of v:
// clamp(round(v * range_scale) - min_scaled, 0, 255), round half away from zero, NaN 0. Every
// step is the one that OutputStage, BiasActivationRows (bias_activation.h) and
// QuantizeMinFirstBlock take in turn, in the same order without fused multiply-adds, so the values
// and codes are the same bits; one pass keeps the block in registers instead of writing and
// reading it three times. One kernel per path (isa/int8_output_kernel.inc): SSE2 here, AVX2 and
// AVX-512 in isa/int8_output_<path>.cc.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_INT8_OUTPUT_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_INT8_OUTPUT_H_

#include <cstdint>

#include "runtime/kernels/cpu/qgemm.h"

namespace graphrt {

struct Int8OutputArgs {
  const int32_t* acc = nullptr;  // rows x cols sums, row stride ld_acc
  int64_t ld_acc = 0;
  int64_t rows = 0, cols = 0;
  const int32_t* offsets = nullptr;    // cols values, or null for none
  const float* multipliers = nullptr;  // cols values
  const float* bias = nullptr;         // cols values, or null
  const float* addend = nullptr;       // rows x cols values (row stride ld_addend), or null
  int64_t ld_addend = 0;
  float lower = 0, upper = 0;  // the activation's clamp; -inf and inf for none
  // Exactly one of the two: float values, or MIN_FIRST codes (range_scale, min_scaled as in
  // MinFirstCodes of int8_product.h); row stride ld_out.
  float* values = nullptr;
  uint8_t* codes = nullptr;
  int64_t ld_out = 0;
  float range_scale = 0;
  int32_t min_scaled = 0;
};

namespace isa {
namespace baseline {
void Int8OutputRows(const Int8OutputArgs& args);
void QuantizeMinFirst(const float* x, int64_t n, float range_scale, int32_t min_scaled,
                      uint8_t* out);
}  // namespace baseline
namespace avx2 {
void Int8OutputRows(const Int8OutputArgs& args);
void QuantizeMinFirst(const float* x, int64_t n, float range_scale, int32_t min_scaled,
                      uint8_t* out);
}  // namespace avx2
namespace avx512 {
void Int8OutputRows(const Int8OutputArgs& args);
void QuantizeMinFirst(const float* x, int64_t n, float range_scale, int32_t min_scaled,
                      uint8_t* out);
}  // namespace avx512
}  // namespace isa

// Runs `isa`'s kernel (the AVX-512 one for kAvx512Vnni). REQUIRES: QGemmIsaRuns(isa).
inline void Int8OutputRows(QGemmIsa isa, const Int8OutputArgs& args) {
  switch (isa) {
    case QGemmIsa::kAvx512:
    case QGemmIsa::kAvx512Vnni:
      isa::avx512::Int8OutputRows(args);
      return;
    case QGemmIsa::kAvx2:
      isa::avx2::Int8OutputRows(args);
      return;
    case QGemmIsa::kBaseline:
      break;
  }
  isa::baseline::Int8OutputRows(args);
}

// QuantizeV2's MIN_FIRST codes of n floats (MinFirstCodes of int8_product.h: clamp(round(x *
// range_scale) - min_scaled, 0, 255), round half away from zero, NaN 0), the same steps as the
// output stage's codes, on `isa`'s vectors. REQUIRES: QGemmIsaRuns(isa).
inline void QuantizeMinFirst(QGemmIsa isa, const float* x, int64_t n, float range_scale,
                             int32_t min_scaled, uint8_t* out) {
  switch (isa) {
    case QGemmIsa::kAvx512:
    case QGemmIsa::kAvx512Vnni:
      isa::avx512::QuantizeMinFirst(x, n, range_scale, min_scaled, out);
      return;
    case QGemmIsa::kAvx2:
      isa::avx2::QuantizeMinFirst(x, n, range_scale, min_scaled, out);
      return;
    case QGemmIsa::kBaseline:
      break;
  }
  isa::baseline::QuantizeMinFirst(x, n, range_scale, min_scaled, out);
}

// The plain loop every path must match.
void Int8OutputRowsReference(const Int8OutputArgs& args);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_INT8_OUTPUT_H_
