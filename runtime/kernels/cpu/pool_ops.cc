// MaxPool, MaxPoolV2 (window and strides as inputs) and AvgPool.
//
// Windows are clipped to the image: padding never contributes, so a SAME average divides by the
// number of pixels the window covers in the image, as TensorFlow's does. Pooling runs in NHWC,
// vectorized over channels; NCHW inputs are transposed in and out (TensorFlow's CPU kernels
// reject NCHW). MaxPool can also pool across channels instead (ksize [1, 1, 1, k]).

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsics
// headers when Eigen's half/bfloat16 packet code inlines them; the pragmas must precede Eigen.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <emmintrin.h>

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/cpu/cpu_isa.h"
#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/cpu/tap_sum.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

constexpr int kInput = 0;
constexpr int kInputKsize = 1;    // MaxPoolV2
constexpr int kInputStrides = 2;  // MaxPoolV2
constexpr int kOutput = 0;

enum class PoolKind { kMax, kAvg };

// The pooling attrs (or MaxPoolV2 inputs), checked.
struct PoolSpec {
  PoolKind kind = PoolKind::kMax;
  DataFormat format = DataFormat::kNHWC;
  Padding padding = Padding::kValid;
  std::vector<int64_t> ksize, strides, explicit_paddings;
  int h = 1, w = 2, c = 3;

  Status ParseAttrs(const OpKernelConstruction& ctx, bool window_from_attrs) {
    std::string format_name, padding_name;
    GRT_RETURN_IF_ERROR(ctx.GetAttr("data_format", &format_name));
    if (format_name == "NCHW_VECT_C") {
      return Unimplemented("MaxPool with data_format NCHW_VECT_C (qint8) is not supported");
    }
    GRT_RETURN_IF_ERROR(ParseDataFormat(format_name, &format));
    if (format == DataFormat::kNCHW) {
      c = 1;
      h = 2;
      w = 3;
    }
    GRT_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding_name));
    GRT_RETURN_IF_ERROR(ParsePadding(padding_name, &padding));
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx.def(), "explicit_paddings", &explicit_paddings));
    if (padding == Padding::kExplicit) {
      if (explicit_paddings.size() != 8) {
        return InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                               explicit_paddings.size());
      }
      for (int64_t p : explicit_paddings) {
        if (p < 0) return InvalidArgument("All elements of explicit_paddings must be nonnegative");
      }
      if (explicit_paddings[0] != 0 || explicit_paddings[1] != 0 || explicit_paddings[2 * c] != 0 ||
          explicit_paddings[2 * c + 1] != 0) {
        return InvalidArgument(
            "Nonzero explicit padding in the batch or depth dimensions is not supported");
      }
    }
    if (!window_from_attrs) return Status::OK();
    GRT_RETURN_IF_ERROR(ctx.GetAttr("ksize", &ksize));
    GRT_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
    return CheckWindow();
  }

  Status CheckWindow() const {
    if (ksize.size() != 4) {
      return InvalidArgument("Sliding window ksize field must specify 4 dimensions");
    }
    if (strides.size() != 4) {
      return InvalidArgument("Sliding window stride field must specify 4 dimensions");
    }
    for (int i = 0; i < 4; ++i) {
      if (ksize[i] <= 0) {
        return InvalidArgument("Sliding window ksize for dimension ", i, " was zero.");
      }
    }
    if (ksize[0] != 1 || strides[0] != 1) {
      return Unimplemented("Pooling is not yet supported on the batch dimension.");
    }
    if (kind == PoolKind::kAvg && ksize[c] != 1) {
      return Unimplemented("Non-spatial pooling is not yet supported. Volunteers? :)");
    }
    if (kind == PoolKind::kMax && ksize[c] != 1) {
      if (ksize[h] != 1 || ksize[w] != 1) {
        return Unimplemented(
            "MaxPooling supports exactly one of pooling across depth or pooling across "
            "width/height.");
      }
      if (ksize[c] != strides[c]) {
        return Unimplemented(
            "Depthwise max pooling requires the depth window to equal the depth stride");
      }
    }
    if (padding == Padding::kExplicit) {
      const char* sides[4] = {"Top", "Bottom", "Left", "Right"};
      const int64_t windows[4] = {ksize[h], ksize[h], ksize[w], ksize[w]};
      const int64_t pads[4] = {explicit_paddings[2 * h], explicit_paddings[2 * h + 1],
                               explicit_paddings[2 * w], explicit_paddings[2 * w + 1]};
      for (int i = 0; i < 4; ++i) {
        if (pads[i] >= windows[i]) {
          return InvalidArgument(sides[i], " padding ", pads[i],
                                 " needs to be smaller than the window size ", windows[i]);
        }
      }
    }
    return Status::OK();
  }

  bool depth_pooling() const { return ksize[c] != 1; }

  Status Geometry(const TensorShape& shape, Window2D* g) const {
    g->batch = shape.dim_size(0);
    g->in_rows = shape.dim_size(h);
    g->in_cols = shape.dim_size(w);
    g->depth = shape.dim_size(c);
    if (depth_pooling()) {
      // Channels pool in groups; the spatial dims pass through (TF ignores their strides).
      g->out_rows = g->in_rows;
      g->out_cols = g->in_cols;
      return Status::OK();
    }
    g->window_rows = ksize[h];
    g->window_cols = ksize[w];
    g->stride_rows = strides[h];
    g->stride_cols = strides[w];
    const bool is_explicit = padding == Padding::kExplicit;
    WindowDim rows, cols;
    GRT_RETURN_IF_ERROR(ComputeWindowDim(g->in_rows, g->window_rows, 1, g->stride_rows, padding,
                                         is_explicit ? explicit_paddings[2 * h] : 0,
                                         is_explicit ? explicit_paddings[2 * h + 1] : 0, &rows));
    GRT_RETURN_IF_ERROR(ComputeWindowDim(g->in_cols, g->window_cols, 1, g->stride_cols, padding,
                                         is_explicit ? explicit_paddings[2 * w] : 0,
                                         is_explicit ? explicit_paddings[2 * w + 1] : 0, &cols));
    g->out_rows = rows.output;
    g->out_cols = cols.output;
    g->pad_top = rows.pad_before;
    g->pad_left = cols.pad_before;
    return Status::OK();
  }
};

// dst = max(dst, src) over n bytes. Eigen has no packets for bytes and -O2 leaves the plain loop
// scalar; SSE2 (every x86-64) takes 16 at a time.
void MaxBytesInto(uint8_t* dst, const uint8_t* src, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_max_epu8(a, b));
  }
  for (; i < n; ++i) dst[i] = std::max(dst[i], src[i]);
}

// dst = max(dst, src) over n floats, as Eigen's max of arrays gives it (std::max(dst, src): a NaN
// in dst stays, a NaN in src is passed over), four at a time: maxps returns its second operand
// where either is NaN. The Eigen expression over a pixel's few channels costs more than the
// maxima.
void MaxFloatsInto(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    _mm_storeu_ps(dst + i, _mm_max_ps(_mm_loadu_ps(src + i), _mm_loadu_ps(dst + i)));
  }
  for (; i < n; ++i) dst[i] = std::max(dst[i], src[i]);
}

// Spatial pooling of an NHWC image batch into out[N, OH, OW, depth].
template <typename T, PoolKind kKind>
void PoolNhwc(const OpKernelContext* ctx, const Window2D& g, const T* in, T* out) {
  using C = ComputeType<T>;
  using Vector = Eigen::Array<C, Eigen::Dynamic, 1>;
  using TVector = Eigen::Array<T, Eigen::Dynamic, 1>;
  const int64_t depth = g.depth;
  const int64_t cost = g.out_cols * g.window_rows * g.window_cols * depth;
  // float on the AVX2 / AVX-512 paths: the columns whose windows lie inside the image
  // ([inner0, inner1)) in registers, all taps of a few pixels at a time (tap_sum.h), the same
  // operations in the same order as the loops below.
  const CpuIsa isa = ActiveCpuIsa();
  const bool vector_taps = std::is_same_v<T, float> && HasTapSum(isa);
  const int64_t inner0 = std::min(g.out_cols, (g.pad_left + g.stride_cols - 1) / g.stride_cols);
  const int64_t last_start = g.in_cols - g.window_cols + g.pad_left;  // padded column
  const int64_t inner1 =
      !vector_taps || last_start < 0
          ? inner0
          : std::max(inner0, std::min(g.out_cols, last_start / g.stride_cols + 1));
  ctx->ParallelFor(g.batch * g.out_rows, cost, [&](int64_t first, int64_t last) {
    // half and bfloat16 sums accumulate in float.
    Vector acc(kKind == PoolKind::kAvg && kIsReducedFloat<T> ? depth : 0);
    std::vector<const float*> srcs(vector_taps ? g.window_rows * g.window_cols : 0);
    for (int64_t row = first; row < last; ++row) {
      const int64_t n = row / g.out_rows, oh = row % g.out_rows;
      const int64_t h_start = oh * g.stride_rows - g.pad_top;
      const int64_t h0 = std::max<int64_t>(h_start, 0);
      const int64_t h1 = std::min(h_start + g.window_rows, g.in_rows);
      if constexpr (std::is_same_v<T, float>) {
        if (inner1 > inner0 && h1 > h0) {
          int64_t taps = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t kw = 0; kw < g.window_cols; ++kw) {
              srcs[taps++] = in + ((n * g.in_rows + ih) * g.in_cols + inner0 * g.stride_cols -
                                   g.pad_left + kw) *
                                      depth;
            }
          }
          T* dst = out + (row * g.out_cols + inner0) * depth;
          if constexpr (kKind == PoolKind::kMax) {
            TapMaxPixels(isa, srcs.data(), taps, inner1 - inner0, depth, g.stride_cols * depth,
                         dst);
          } else {
            TapMeanPixels(isa, srcs.data(), taps, inner1 - inner0, depth, g.stride_cols * depth,
                          static_cast<float>(taps), dst);
          }
        }
      }
      for (int64_t ow = 0; ow < g.out_cols; ++ow) {
        if (ow == inner0 && h1 > h0) ow = inner1;
        if (ow >= g.out_cols) break;
        const int64_t w_start = ow * g.stride_cols - g.pad_left;
        const int64_t w0 = std::max<int64_t>(w_start, 0);
        const int64_t w1 = std::min(w_start + g.window_cols, g.in_cols);
        T* dst = out + (row * g.out_cols + ow) * depth;
        auto pixel = [&](int64_t ih, int64_t iw) {
          return in + ((n * g.in_rows + ih) * g.in_cols + iw) * depth;
        };
        if (h0 >= h1 || w0 >= w1) {
          // Unreachable with TF's padding limits; keep the output defined anyway.
          std::fill(dst, dst + depth, T(0));
          continue;
        }
        if constexpr (kKind == PoolKind::kMax &&
                      (std::is_same_v<T, uint8_t> || std::is_same_v<T, float>)) {
          std::copy(pixel(h0, w0), pixel(h0, w0) + depth, dst);
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = (ih == h0 ? w0 + 1 : w0); iw < w1; ++iw) {
              if constexpr (std::is_same_v<T, float>) {
                MaxFloatsInto(dst, pixel(ih, iw), depth);
              } else {
                MaxBytesInto(dst, pixel(ih, iw), depth);
              }
            }
          }
        } else if constexpr (kKind == PoolKind::kMax) {
          Eigen::Map<TVector> result(dst, depth);
          result = Eigen::Map<const TVector>(pixel(h0, w0), depth);
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = (ih == h0 ? w0 + 1 : w0); iw < w1; ++iw) {
              result = result.max(Eigen::Map<const TVector>(pixel(ih, iw), depth));
            }
          }
        } else if constexpr (kIsReducedFloat<T>) {
          acc.setZero();
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) {
              acc += Eigen::Map<const TVector>(pixel(ih, iw), depth).template cast<float>();
            }
          }
          const float count = static_cast<float>((h1 - h0) * (w1 - w0));
          Eigen::Map<TVector>(dst, depth) = (acc / count).template cast<T>();
        } else {
          Eigen::Map<Vector> result(dst, depth);
          result.setZero();
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) {
              result += Eigen::Map<const Vector>(pixel(ih, iw), depth);
            }
          }
          result /= static_cast<C>((h1 - h0) * (w1 - w0));
        }
      }
    }
  });
}

// Max over groups of `window` consecutive channels: out[P, depth / window].
template <typename T>
void DepthMaxPool(const OpKernelContext* ctx, int64_t pixels, int64_t depth, int64_t window,
                  const T* in, T* out) {
  const int64_t out_depth = depth / window;
  ctx->ParallelFor(pixels, depth, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      const T* src = in + p * depth;
      T* dst = out + p * out_depth;
      for (int64_t d = 0; d < out_depth; ++d) {
        T m = src[d * window];
        for (int64_t i = 1; i < window; ++i) m = std::max(m, src[d * window + i]);
        dst[d] = m;
      }
    }
  });
}

template <typename T>
class PoolOp : public OpKernel {
 public:
  PoolOp(OpKernelConstruction* ctx, PoolKind kind, bool window_from_attrs)
      : OpKernel(ctx), window_from_attrs_(window_from_attrs) {
    spec_.kind = kind;
    GRT_CONSTRUCT_OK(ctx, spec_.ParseAttrs(*ctx, window_from_attrs));
  }

  Status Compute(OpKernelContext* ctx) override {
    PoolSpec spec = spec_;
    if (!window_from_attrs_) {
      GRT_RETURN_IF_ERROR(ReadWindowInput(ctx->input(kInputKsize), &spec.ksize));
      GRT_RETURN_IF_ERROR(ReadWindowInput(ctx->input(kInputStrides), &spec.strides));
      GRT_RETURN_IF_ERROR(spec.CheckWindow());
    }
    const Tensor& input = ctx->input(kInput);
    if (input.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional: ", input.shape().DebugString());
    }
    Window2D g;
    GRT_RETURN_IF_ERROR(spec.Geometry(input.shape(), &g));
    int64_t out_depth = g.depth;
    if (spec.depth_pooling()) {
      if (g.depth % spec.ksize[spec.c] != 0) {
        return Unimplemented(
            "Depthwise max pooling requires the depth window to evenly divide the input depth");
      }
      out_depth = g.depth / spec.ksize[spec.c];
    }
    const bool nchw = spec.format == DataFormat::kNCHW;
    const TensorShape out_shape = nchw ? TensorShape({g.batch, out_depth, g.out_rows, g.out_cols})
                                       : TensorShape({g.batch, g.out_rows, g.out_cols, out_depth});
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();

    Tensor in_nhwc = input;
    Tensor out_nhwc = *out;
    if (nchw) {
      GRT_ASSIGN_OR_RETURN(in_nhwc, NchwToNhwc<T>(ctx, input));
      GRT_ASSIGN_OR_RETURN(
          out_nhwc, Tensor::Allocate(out->dtype(),
                                     TensorShape({g.batch, g.out_rows, g.out_cols, out_depth})));
    }
    if (spec.depth_pooling()) {
      DepthMaxPool<T>(ctx, g.batch * g.in_rows * g.in_cols, g.depth, spec.ksize[spec.c],
                      in_nhwc.data<T>(), out_nhwc.data<T>());
    } else if (spec.kind == PoolKind::kMax) {
      PoolNhwc<T, PoolKind::kMax>(ctx, g, in_nhwc.data<T>(), out_nhwc.data<T>());
    } else {
      PoolNhwc<T, PoolKind::kAvg>(ctx, g, in_nhwc.data<T>(), out_nhwc.data<T>());
    }
    if (nchw) NhwcToNchw<T>(ctx, out_nhwc, out);
    return Status::OK();
  }

 private:
  static Status ReadWindowInput(const Tensor& t, std::vector<int64_t>* values) {
    values->clear();
    for (int64_t i = 0; i < t.NumElements(); ++i) values->push_back(t.data<int32_t>()[i]);
    return Status::OK();
  }

  PoolSpec spec_;
  bool window_from_attrs_;
};

template <typename T>
class MaxPoolOp : public PoolOp<T> {
 public:
  explicit MaxPoolOp(OpKernelConstruction* ctx) : PoolOp<T>(ctx, PoolKind::kMax, true) {}
};

template <typename T>
class MaxPoolV2Op : public PoolOp<T> {
 public:
  explicit MaxPoolV2Op(OpKernelConstruction* ctx) : PoolOp<T>(ctx, PoolKind::kMax, false) {}
};

template <typename T>
class AvgPoolOp : public PoolOp<T> {
 public:
  explicit AvgPoolOp(OpKernelConstruction* ctx) : PoolOp<T>(ctx, PoolKind::kAvg, true) {}
};

template <typename T>
void RegisterMaxPool(KernelRegistry* r, DataType type = DataTypeToEnum<T>::value) {
  r->Register(KernelDefBuilder("MaxPool").Device(kDeviceCpu).TypeConstraint("T", {type}),
              MakeFactory<MaxPoolOp<T>>());
  r->Register(KernelDefBuilder("MaxPoolV2")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", {type})
                  .HostMemory("ksize")
                  .HostMemory("strides"),
              MakeFactory<MaxPoolV2Op<T>>());
}

template <typename T>
void RegisterAvgPool(KernelRegistry* r) {
  r->Register(KernelDefBuilder("AvgPool").Device(kDeviceCpu).TypeConstraint<T>("T"),
              MakeFactory<AvgPoolOp<T>>());
}

}  // namespace

void RegisterPoolKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: MaxPool(V2) for the floating types and the integers but 32/64-bit
  // unsigned, and quint8; AvgPool for the floating types.
  RegisterMaxPool<float>(r);
  RegisterMaxPool<double>(r);
  RegisterMaxPool<half>(r);
  RegisterMaxPool<bfloat16>(r);
  RegisterMaxPool<int8_t>(r);
  RegisterMaxPool<uint8_t>(r);
  // Codes of one range (the int8 pass, optimize/int8_weights.cc): the map is monotone, so their
  // max is the max's code.
  RegisterMaxPool<uint8_t>(r, ::tensorflow::DT_QUINT8);
  RegisterMaxPool<int16_t>(r);
  RegisterMaxPool<uint16_t>(r);
  RegisterMaxPool<int32_t>(r);
  RegisterMaxPool<int64_t>(r);
  RegisterAvgPool<float>(r);
  RegisterAvgPool<double>(r);
  RegisterAvgPool<half>(r);
  RegisterAvgPool<bfloat16>(r);
}

}  // namespace graphrt
