// Dynamically quantized products, as ONNX Runtime's dynamic quantization computes them: the
// weights are int8 (symmetric, one scale per output column or one for all) and packed once; the
// float activations x are quantized on each Run, per tensor, to uint8 with a zero point:
//
//   range [lo, hi] = [min(0, min x), max(0, max x)], scale = (hi - lo) / 255,
//   zero_point = clamp(nearbyint(-lo / scale), 0, 255), q = clamp(nearbyint(x / scale) + zp, 0,
//   255)
//
// (all-zero x: scale 1, zero point 0). 0 is exact, so padding and Relu outputs lose nothing. The
// integer product acc = sum_p q(i, p) * w(p, j) runs in QGemm (qgemm.h), and the output stage
// gives y(i, j) = float(acc(i, j) - zp * column_sum(j)) * (scale_x * scale_w(j)), exactly as
// written (the subtraction in int32, then one float conversion and one float product), before an
// optional float epilogue. Against x * dequantized weights in float the error of y(i, j) is at
// most scale_x / 2 * sum_p |w(p, j)| (rounding of x), plus float rounding.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_INT8_PRODUCT_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_INT8_PRODUCT_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/devices/device.h"
#include "runtime/kernels/common/window.h"
#include "runtime/kernels/cpu/qgemm.h"

namespace graphrt {

// x ~ scale * (q - zero_point) with q in [0, 255].
struct ActivationQuantization {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The quantization of a tensor whose values lie in [lo, hi] (lo <= 0 <= hi), by the formulas
// above.
ActivationQuantization ActivationQuantizationForRange(float lo, float hi);

// Chooses the quantization of x[0, n) and writes q[0, n), sharing the work out over `device`'s
// intra-op threads (null: the calling thread). Vectorized (SSE2).
ActivationQuantization QuantizeActivations(const Device* device, const float* x, int64_t n,
                                           uint8_t* q);

// TensorFlow's QuantizeV2 (T=quint8, mode=MIN_FIRST, round_mode=HALF_AWAY_FROM_ZERO) of x[0, n)
// for a fixed range [range_min, range_max] (the range QuantizeV2 uses, already widened to hold 0):
//
//   s = float(255.0 / (range_max - range_min)) (0 for an empty range),
//   q = clamp(round(x * s) - round(range_min * s), 0, 255), round half away from zero,
//
// the same codes QuantizeV2 writes (NaN: 0). Returns what Dequantize (MIN_FIRST) makes of them:
// scale = float((range_max - range_min) / 255.0), zero_point = -round(range_min / scale) (clamped
// to [0, 255], the code of 0). Shares the work out as QuantizeActivations does. REQUIRES:
// range_min <= 0 <= range_max, both finite.
ActivationQuantization QuantizeActivationsMinFirst(const Device* device, const float* x, int64_t n,
                                                   float range_min, float range_max, uint8_t* q);

// QuantizeV2's MIN_FIRST codes for a fixed range, as QuantizeActivationsMinFirst makes them:
// code = clamp(round(x * range_scale) - min_scaled, 0, 255).
struct MinFirstCodes {
  float range_scale = 0.0f;
  int32_t min_scaled = 0;
  // What Dequantize (MIN_FIRST) makes of the codes.
  ActivationQuantization dequantization;
};

// The codes of [range_min, range_max] (REQUIRES as for QuantizeActivationsMinFirst).
MinFirstCodes MinFirstCodesFor(float range_min, float range_max);

// x[0, n) into codes by `codes`, on the calling thread.
void QuantizeMinFirstBlock(const float* x, int64_t n, const MinFirstCodes& codes, uint8_t* q);

// Int8 weights B (k x n) with one float scale per column, packed for QGemm.
class Int8Weights {
 public:
  // B(p, j) = b[p * n + j]; min/max are Dequantize's SCALED narrow_range inputs: a vector of n
  // values when `axis` is the column axis (per_column true), else one value. The scale of column
  // j is TensorFlow's: max(min / -127, max / 127). Errors (naming `what`, the filter) for a
  // min/max of the wrong shape or out of order; k must be >= 1 and n >= 1.
  static StatusOr<std::unique_ptr<Int8Weights>> Make(QGemmIsa isa, const int8_t* b, int64_t k,
                                                     int64_t n, const Tensor& min,
                                                     const Tensor& max, bool per_column,
                                                     const char* what);

  const QGemmPackedB& packed() const { return *packed_; }
  const float* scales() const { return scales_.data(); }
  int64_t k() const { return packed_->k(); }
  int64_t n() const { return packed_->n(); }

 private:
  std::unique_ptr<QGemmPackedB> packed_;
  std::vector<float> scales_;
};

// A kernel's constant int8 weights, made on the first Run and reused by every later one (as
// packed_weights.h does for float). Safe from several threads.
class Int8WeightsCache {
 public:
  // The weights for this Run: the cached ones where `constant` (filter, min and max are Const
  // values, the same buffers every Run), else freshly made into *scratch.
  StatusOr<const Int8Weights*> Get(bool constant, QGemmIsa isa, const Tensor& filter, int64_t k,
                                   int64_t n, const Tensor& min, const Tensor& max, bool per_column,
                                   std::unique_ptr<Int8Weights>* scratch);

 private:
  std::mutex mu_;
  const void* source_ = nullptr;
  std::unique_ptr<Int8Weights> weights_;
};

// Receives finished float output: rows [row, row + rows) and columns [col, col + cols) of the
// output (row stride ldo), at `out`, after the output stage, for a bias / activation in place.
// Called from the intra-op threads, each call on a disjoint block.
using Int8Epilogue = std::function<void(int64_t row, int64_t rows, int64_t col, int64_t cols,
                                        float* out, int64_t ldo)>;

// Where a product's finished output goes (row stride: its number of columns): float values, or
// with `codes` set, QuantizeV2's MIN_FIRST codes of those values in `requantization`'s range,
// made from each block while it is in cache, so that the next int8 op reads the codes without a
// float tensor in between. Either way the epilogue runs on float values first.
//
// Without a general Int8Epilogue, the output stage runs the epilogue itself where it needs no more
// than `bias` (one value per column), `addend` (the output's shape) and the clamp of Relu or
// Relu6 (int8_output.h): the sums become values or codes in one pass.
struct Int8Output {
  static Int8Output Values(float* values) {
    Int8Output out;
    out.values = values;
    return out;
  }

  float* values = nullptr;
  uint8_t* codes = nullptr;
  MinFirstCodes requantization;
  const float* bias = nullptr;
  const float* addend = nullptr;
  float lower = -std::numeric_limits<float>::infinity();
  float upper = std::numeric_limits<float>::infinity();
};

// Finishes the block of rows [row, row + rows) and columns [col, col + cols) of an n-column
// output from its int32 sums (row stride ld_acc): float(acc - offsets[j]) * multipliers[j]
// (offsets may be null; both start at column col), then `epilogue` where there is one, else
// out's own, into `out`. `scratch` holds rows * cols floats where out holds codes and epilogue is
// not empty.
void Int8FinishBlock(QGemmIsa isa, const int32_t* acc, int64_t ld_acc, int64_t row, int64_t rows,
                     int64_t col, int64_t cols, int64_t n, const int32_t* offsets,
                     const float* multipliers, const Int8Epilogue& epilogue, const Int8Output& out,
                     float* scratch);

// The output of a product without terms (k == 0) over `rows` rows of n columns: every sum 0.
void Int8ZeroProduct(int64_t rows, int64_t n, const Int8Epilogue& epilogue, const Int8Output& out);

// out (m x n) = the output stage of a (m x k uint8, row stride k, quantized as `q`) times w.
// REQUIRES: w.k() == k.
void Int8MatMul(const Device* device, const uint8_t* a, int64_t m, const ActivationQuantization& q,
                const Int8Weights& w, const Int8Epilogue& epilogue, const Int8Output& out);

// The NHWC convolution of `in` (uint8, quantized as `q`, shape [batch, in_rows, in_cols, depth])
// by w (the HWIO filter seen as [window_rows * window_cols * depth, out_depth]) into out
// ([batch, out_rows, out_cols, out_depth]): im2col over uint8 with the zero point as padding,
// blocks of output pixels over the intra-op threads. REQUIRES: w.k() == window_rows *
// window_cols * depth.
void Int8Conv2D(const Device* device, const Window2D& g, const uint8_t* in,
                const ActivationQuantization& q, const Int8Weights& w, const Int8Epilogue& epilogue,
                const Int8Output& out);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_INT8_PRODUCT_H_
