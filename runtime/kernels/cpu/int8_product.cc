#include "runtime/kernels/cpu/int8_product.h"

#include <emmintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/core/str_util.h"
#include "runtime/kernels/cpu/int8_output.h"
#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/cpu/quantization_util.h"

namespace graphrt {

namespace {

// Elements per task of the element-wise passes (range, quantization).
constexpr int64_t kElementBlock = 1 << 16;
// Bytes of one block of the uint8 patch matrix: stays in L2 while it is multiplied.
constexpr int64_t kPatchBlockBytes = 256 * 1024;
// The int32 accumulators of one task: at most this many values (stays in L2 with the patches).
constexpr int64_t kAccumulatorBlock = 32 * 1024;

void ParallelFor(const Device* device, int64_t total, int64_t cost_per_unit,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (device == nullptr) {
    fn(0, total);
  } else {
    device->ParallelFor(total, cost_per_unit, fn);
  }
}

int Threads(const Device* device) {
  return device == nullptr ? 1 : std::max(1, device->intra_op_threads());
}

// [*lo, *hi] widened to cover x[0, n).
void WidenRange(const float* x, int64_t n, float* lo, float* hi) {
  __m128 vlo = _mm_set1_ps(*lo), vhi = _mm_set1_ps(*hi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
    vlo = _mm_min_ps(vlo, _mm_min_ps(a, b));
    vhi = _mm_max_ps(vhi, _mm_max_ps(a, b));
  }
  float l[4], h[4];
  _mm_storeu_ps(l, vlo);
  _mm_storeu_ps(h, vhi);
  float mn = std::min(std::min(l[0], l[1]), std::min(l[2], l[3]));
  float mx = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
  for (; i < n; ++i) {
    mn = std::min(mn, x[i]);
    mx = std::max(mx, x[i]);
  }
  *lo = mn;
  *hi = mx;
}

// Stores the codes of v[0..3] (int32, saturated to [0, 255]) at out[0, 16).
inline void StoreCodes(const __m128i v[4], uint8_t* out) {
  const __m128i lo = _mm_packs_epi32(v[0], v[1]), hi = _mm_packs_epi32(v[2], v[3]);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(lo, hi));
}

// q[i] = clamp(nearbyint(x[i] / scale) + zero_point, 0, 255). _mm_cvtps_epi32 rounds to nearest
// even, as nearbyint does in the default rounding mode; NaN becomes 0.
void QuantizeBlock(const float* x, int64_t n, const ActivationQuantization& q, uint8_t* out) {
  const __m128 scale = _mm_set1_ps(q.scale);
  const __m128i zp = _mm_set1_epi32(q.zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v[4];
    for (int j = 0; j < 4; ++j) {
      // Out-of-range values (and NaN) convert to INT32_MIN: negative, so 0 after saturation.
      v[j] = _mm_add_epi32(_mm_cvtps_epi32(_mm_div_ps(_mm_loadu_ps(x + i + 4 * j), scale)), zp);
    }
    StoreCodes(v, out + i);
  }
  for (; i < n; ++i) {
    const float r = std::nearbyint(x[i] / q.scale) + static_cast<float>(q.zero_point);
    out[i] = !(r >= 0.0f) ? 0 : (r >= 255.0f ? 255 : static_cast<uint8_t>(r));
  }
}

// What the output stage needs per column: zero_point * column_sums and scale_x * scale_w.
struct ColumnFactors {
  std::vector<int32_t> offsets;
  std::vector<float> multipliers;

  ColumnFactors(const ActivationQuantization& q, const Int8Weights& w) {
    const int64_t n = w.n();
    offsets.resize(static_cast<size_t>(n));
    multipliers.resize(static_cast<size_t>(n));
    const int32_t* sums = w.packed().column_sums();
    for (int64_t j = 0; j < n; ++j) {
      offsets[j] = q.zero_point * sums[j];
      multipliers[j] = q.scale * w.scales()[j];
    }
  }
};

}  // namespace

ActivationQuantization ActivationQuantizationForRange(float lo, float hi) {
  ActivationQuantization q;
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  const float scale = (hi - lo) / 255.0f;
  // All zeros (or a range too narrow for a normal scale): every value quantizes to 0.
  if (!(scale > 0.0f) || !std::isfinite(scale)) return q;
  q.scale = scale;
  const float zp = std::nearbyint(-lo / scale);
  q.zero_point = static_cast<int32_t>(std::min(255.0f, std::max(0.0f, zp)));
  return q;
}

namespace {

ActivationQuantization QuantizeActivationsTo(const Device* device, const float* x, int64_t n,
                                             uint8_t* q) {
  const int64_t blocks = (n + kElementBlock - 1) / kElementBlock;
  std::vector<float> lo(static_cast<size_t>(blocks), 0.0f), hi(static_cast<size_t>(blocks), 0.0f);
  ParallelFor(device, blocks, kElementBlock, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      const int64_t start = b * kElementBlock;
      WidenRange(x + start, std::min(kElementBlock, n - start), &lo[b], &hi[b]);
    }
  });
  float mn = 0.0f, mx = 0.0f;
  for (int64_t b = 0; b < blocks; ++b) {
    mn = std::min(mn, lo[b]);
    mx = std::max(mx, hi[b]);
  }
  const ActivationQuantization quantization = ActivationQuantizationForRange(mn, mx);
  ParallelFor(device, blocks, kElementBlock * 4, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      const int64_t start = b * kElementBlock;
      QuantizeBlock(x + start, std::min(kElementBlock, n - start), quantization, q + start);
    }
  });
  return quantization;
}

ActivationQuantization QuantizeActivationsMinFirstTo(const Device* device, const float* x,
                                                     int64_t n, float range_min, float range_max,
                                                     uint8_t* q) {
  const MinFirstCodes codes = MinFirstCodesFor(range_min, range_max);
  const QGemmIsa isa = ActiveQGemmIsa();
  const int64_t blocks = (n + kElementBlock - 1) / kElementBlock;
  ParallelFor(device, blocks, kElementBlock * 4, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      const int64_t start = b * kElementBlock;
      QuantizeMinFirst(isa, x + start, std::min(kElementBlock, n - start), codes.range_scale,
                       codes.min_scaled, q + start);
    }
  });
  return codes.dequantization;
}

}  // namespace

MinFirstCodes MinFirstCodesFor(float range_min, float range_max) {
  // QuantizeEigen<quint8> and DequantizeEigen<quint8> (quantization_util.h), term for term.
  MinFirstCodes codes;
  codes.range_scale =
      range_max == range_min ? 0.0f : static_cast<float>(255.0 / (range_max - range_min));
  codes.min_scaled = static_cast<int32_t>(std::round(range_min * codes.range_scale));
  ActivationQuantization& q = codes.dequantization;
  q.scale = static_cast<float>((range_max - range_min) / 255.0);
  if (q.scale > 0.0f) {
    const float zp = -std::round(range_min / q.scale);
    q.zero_point = static_cast<int32_t>(std::min(255.0f, std::max(0.0f, zp)));
  }
  return codes;
}

void QuantizeMinFirstBlock(const float* x, int64_t n, const MinFirstCodes& codes, uint8_t* q) {
  QuantizeMinFirst(ActiveQGemmIsa(), x, n, codes.range_scale, codes.min_scaled, q);
}

ActivationQuantization QuantizeActivations(const Device* device, const float* x, int64_t n,
                                           uint8_t* q) {
  return QuantizeActivationsTo(device, x, n, q);
}

ActivationQuantization QuantizeActivationsMinFirst(const Device* device, const float* x, int64_t n,
                                                   float range_min, float range_max, uint8_t* q) {
  return QuantizeActivationsMinFirstTo(device, x, n, range_min, range_max, q);
}

void Int8FinishBlock(QGemmIsa isa, const int32_t* acc, int64_t ld_acc, int64_t row, int64_t rows,
                     int64_t col, int64_t cols, int64_t n, const int32_t* offsets,
                     const float* multipliers, const Int8Epilogue& epilogue, const Int8Output& out,
                     float* scratch) {
  Int8OutputArgs args;
  args.acc = acc;
  args.ld_acc = ld_acc;
  args.rows = rows;
  args.cols = cols;
  args.offsets = offsets;
  args.multipliers = multipliers;
  args.lower = -std::numeric_limits<float>::infinity();
  args.upper = std::numeric_limits<float>::infinity();
  if (epilogue) {
    // A general epilogue runs on the float values: in the output, or in scratch (row stride
    // cols) before their codes.
    const bool codes = out.codes != nullptr;
    const int64_t ldo = codes ? cols : n;
    float* values = codes ? scratch : out.values + row * n + col;
    args.values = values;
    args.ld_out = ldo;
    Int8OutputRows(isa, args);
    epilogue(row, rows, col, cols, values, ldo);
    for (int64_t r = 0; codes && r < rows; ++r) {
      QuantizeMinFirstBlock(values + r * ldo, cols, out.requantization,
                            out.codes + (row + r) * n + col);
    }
    return;
  }
  args.bias = out.bias == nullptr ? nullptr : out.bias + col;
  args.addend = out.addend == nullptr ? nullptr : out.addend + row * n + col;
  args.ld_addend = n;
  args.lower = out.lower;
  args.upper = out.upper;
  args.ld_out = n;
  if (out.codes != nullptr) {
    args.codes = out.codes + row * n + col;
    args.range_scale = out.requantization.range_scale;
    args.min_scaled = out.requantization.min_scaled;
  } else {
    args.values = out.values + row * n + col;
  }
  Int8OutputRows(isa, args);
}

void Int8ZeroProduct(int64_t rows, int64_t n, const Int8Epilogue& epilogue, const Int8Output& out) {
  const std::vector<int32_t> zeros(static_cast<size_t>(rows * n), 0);
  const std::vector<float> ones(static_cast<size_t>(n), 1.0f);
  std::vector<float> scratch(static_cast<size_t>(rows * n));
  Int8FinishBlock(QGemmIsa::kBaseline, zeros.data(), n, 0, rows, 0, n, n, nullptr, ones.data(),
                  epilogue, out, scratch.data());
}

StatusOr<std::unique_ptr<Int8Weights>> Int8Weights::Make(QGemmIsa isa, const int8_t* b, int64_t k,
                                                         int64_t n, const Tensor& min,
                                                         const Tensor& max, bool per_column,
                                                         const char* what) {
  const int64_t ranges = per_column ? n : 1;
  for (const Tensor* t : {&min, &max}) {
    const bool shape_ok =
        per_column ? (t->dims() == 1 && t->dim_size(0) == n) : t->NumElements() == 1;
    if (t->dtype() != ::tensorflow::DT_FLOAT || !shape_ok) {
      return InvalidArgument(what, "_", t == &min ? "min" : "max", " must be float ",
                             per_column ? StrCat("[", n, "]") : std::string("with one value"),
                             " (one per output channel), got ", DataTypeString(t->dtype()), " ",
                             t->shape().DebugString());
    }
  }
  auto weights = std::unique_ptr<Int8Weights>(new Int8Weights());
  weights->scales_.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < ranges; ++j) {
    const float lo = min.data<float>()[j], hi = max.data<float>()[j];
    GRT_RETURN_IF_ERROR(CheckRangeOrder(lo, hi, what));
    // Dequantize's SCALED scale for qint8 with narrow_range (quantized_convert_ops.cc).
    weights->scales_[j] = std::max(lo / -127.0f, hi / 127.0f);
  }
  if (!per_column) std::fill(weights->scales_.begin(), weights->scales_.end(), weights->scales_[0]);
  weights->packed_ = QGemmPackedB::Pack(isa, b, n, k, n);
  if (weights->packed_ == nullptr) {
    return ResourceExhausted("cannot pack the ", k, " x ", n, " int8 ", what);
  }
  return weights;
}

StatusOr<const Int8Weights*> Int8WeightsCache::Get(bool constant, QGemmIsa isa,
                                                   const Tensor& filter, int64_t k, int64_t n,
                                                   const Tensor& min, const Tensor& max,
                                                   bool per_column,
                                                   std::unique_ptr<Int8Weights>* scratch) {
  const int8_t* b = filter.data<int8_t>();
  if (constant) {
    std::lock_guard<std::mutex> lock(mu_);
    if (weights_ != nullptr && source_ == b && weights_->k() == k && weights_->n() == n &&
        weights_->packed().isa() == isa) {
      return weights_.get();
    }
    GRT_ASSIGN_OR_RETURN(weights_, Int8Weights::Make(isa, b, k, n, min, max, per_column, "filter"));
    source_ = b;
    return weights_.get();
  }
  GRT_ASSIGN_OR_RETURN(*scratch, Int8Weights::Make(isa, b, k, n, min, max, per_column, "filter"));
  return scratch->get();
}

void Int8MatMul(const Device* device, const uint8_t* a, int64_t m, const ActivationQuantization& q,
                const Int8Weights& w, const Int8Epilogue& epilogue, const Int8Output& out) {
  const int64_t n = w.n(), k = w.k();
  if (m <= 0) return;
  const ColumnFactors factors(q, w);
  // Tasks of up to 64 rows and a column range: a single row (a dense layer at batch 1) splits
  // its columns over the threads.
  const int64_t rows_per_task = std::min<int64_t>(m, 64);
  const int64_t row_tasks = (m + rows_per_task - 1) / rows_per_task;
  int64_t cols_per_task = std::max<int64_t>(16, kAccumulatorBlock / rows_per_task);
  const int64_t threads = Threads(device);
  if (row_tasks < threads) {
    const int64_t wanted = (n + (threads / row_tasks) - 1) / (threads / row_tasks);
    cols_per_task = std::min(cols_per_task, std::max<int64_t>(64, (wanted + 15) / 16 * 16));
  }
  cols_per_task = std::min(cols_per_task, n);
  const int64_t col_tasks = (n + cols_per_task - 1) / cols_per_task;
  ParallelFor(device, row_tasks * col_tasks, rows_per_task * cols_per_task * k / 8,
              [&](int64_t first, int64_t last) {
                const size_t block = static_cast<size_t>(rows_per_task * cols_per_task);
                std::vector<int32_t> acc(block);
                std::vector<float> scratch(out.codes != nullptr && epilogue ? block : 0);
                for (int64_t t = first; t < last; ++t) {
                  const int64_t r0 = (t / col_tasks) * rows_per_task;
                  const int64_t j0 = (t % col_tasks) * cols_per_task;
                  const int64_t rows = std::min(rows_per_task, m - r0);
                  const int64_t cols = std::min(cols_per_task, n - j0);
                  QGemm(w.packed(), rows, a + r0 * k, k, acc.data(), cols, j0, cols);
                  Int8FinishBlock(w.packed().isa(), acc.data(), cols, r0, rows, j0, cols, n,
                                  factors.offsets.data() + j0, factors.multipliers.data() + j0,
                                  epilogue, out, scratch.data());
                }
              });
}

void Int8Conv2D(const Device* device, const Window2D& g, const uint8_t* in,
                const ActivationQuantization& q, const Int8Weights& w, const Int8Epilogue& epilogue,
                const Int8Output& out) {
  const int64_t n = w.n(), k = w.k();
  const int64_t pixels = g.batch * g.out_rows * g.out_cols;
  if (pixels <= 0) return;
  const ColumnFactors factors(q, w);
  // A 1x1 window that visits every input pixel once reads the input as the patch matrix.
  const bool direct = g.window_rows == 1 && g.window_cols == 1 && g.stride_rows == 1 &&
                      g.stride_cols == 1 && g.pad_top == 0 && g.pad_left == 0 &&
                      g.out_rows == g.in_rows && g.out_cols == g.in_cols;
  int64_t per_task = std::max<int64_t>(
      16, std::min(kPatchBlockBytes / std::max<int64_t>(k, 1), kAccumulatorBlock / n));
  const int64_t threads = Threads(device);
  per_task = std::min(per_task, std::max<int64_t>(16, (pixels + threads - 1) / threads));
  per_task = std::min(per_task, pixels);
  const int64_t tasks = (pixels + per_task - 1) / per_task;
  const uint8_t pad = static_cast<uint8_t>(q.zero_point);
  ParallelFor(device, tasks, per_task * n * k / 8, [&](int64_t first, int64_t last) {
    std::unique_ptr<uint8_t[]> patches(direct ? nullptr : new uint8_t[per_task * k]);
    std::vector<int32_t> acc(static_cast<size_t>(per_task * n));
    std::vector<float> scratch(out.codes != nullptr && epilogue ? static_cast<size_t>(per_task * n)
                                                                : 0);
    for (int64_t t = first; t < last; ++t) {
      const int64_t p0 = t * per_task;
      const int64_t count = std::min(per_task, pixels - p0);
      const uint8_t* a = in + p0 * k;
      if (!direct) {
        Im2Col<uint8_t>(in, g, 0, g.depth, p0, count, pad, patches.get());
        a = patches.get();
      }
      QGemm(w.packed(), count, a, k, acc.data(), n);
      Int8FinishBlock(w.packed().isa(), acc.data(), n, p0, count, 0, n, n, factors.offsets.data(),
                      factors.multipliers.data(), epilogue, out, scratch.data());
    }
  });
}

}  // namespace graphrt
