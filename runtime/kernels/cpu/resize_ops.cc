// ResizeBilinear (float output) and ResizeNearestNeighbor, on NHWC images.
//
// Source coordinates follow TensorFlow exactly, in float: scale = in / out, or (in - 1) /
// (out - 1) with align_corners; the legacy mapping is out * scale, the half-pixel one
// (out + 0.5) * scale - 0.5 (bilinear) or (out + 0.5) * scale before flooring (nearest).
// Nearest rounds instead of flooring with align_corners. Bilinear lerps along x, then y (each
// input row is lerped along x once per run of output rows that use it).

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsics
// headers when Eigen's half/bfloat16 packet code inlines them; the pragmas must precede Eigen.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

constexpr int kInputImages = 0;
constexpr int kInputSize = 1;
constexpr int kOutput = 0;

// TensorFlow's ImageResizerState checks and the output geometry.
struct ResizeGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, channels = 0, out_rows = 0, out_cols = 0;
  float row_scale = 0, col_scale = 0;
};

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

Status PlanResize(const Tensor& images, const Tensor& size, bool align_corners,
                  bool half_pixel_centers, ResizeGeometry* g) {
  if (half_pixel_centers && align_corners) {
    return InvalidArgument("If half_pixel_centers is True, align_corners must be False.");
  }
  if (images.dims() != 4) {
    return InvalidArgument("input must be 4-dimensional", images.shape().DebugString());
  }
  g->batch = images.dim_size(0);
  g->in_rows = images.dim_size(1);
  g->in_cols = images.dim_size(2);
  g->channels = images.dim_size(3);
  if (g->channels <= 0) return InvalidArgument("image must have at least one channel");
  if (g->in_rows <= 0 || g->in_cols <= 0) {
    return InvalidArgument("input image must be of non-zero size");
  }
  if (g->in_rows >= std::numeric_limits<int32_t>::max() ||
      g->in_cols >= std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("input sizes must be between 0 and max int32");
  }
  if (size.dims() != 1) {
    return InvalidArgument("shape_t must be 1-dimensional", size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return InvalidArgument("shape_t must have two elements", size.shape().DebugString());
  }
  g->out_rows = size.data<int32_t>()[0];
  g->out_cols = size.data<int32_t>()[1];
  if (g->out_rows <= 0 || g->out_cols <= 0) {
    return InvalidArgument("output dimensions must be positive");
  }
  g->row_scale = ResizeScale(g->in_rows, g->out_rows, align_corners);
  g->col_scale = ResizeScale(g->in_cols, g->out_cols, align_corners);
  return Status::OK();
}

// The two source indices and the weight of the upper one for each output index.
struct Interpolation {
  int64_t lower;
  int64_t upper;
  float lerp;
};

std::vector<Interpolation> BilinearTable(int64_t out_size, int64_t in_size, float scale,
                                         bool half_pixel_centers) {
  std::vector<Interpolation> table(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                        : static_cast<float>(i) * scale;
    const float in_floor = std::floor(in);
    // TF clamps lower at 0 and upper at in_size - 1; the extra clamps only guard memory.
    table[i].lower = std::min(std::max(static_cast<int64_t>(in_floor), int64_t{0}), in_size - 1);
    table[i].upper =
        std::max(std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1), int64_t{0});
    table[i].lerp = in - in_floor;
  }
  return table;
}

// An input row interpolated along x: out[ox * channels + c]. kChannels is the channel count when
// known at compile time (the common 1, 3, 4), else 0.
template <typename T, int kChannels>
void LerpAlongX(const T* row, const std::vector<Interpolation>& xs, int64_t dynamic_channels,
                float* out) {
  const int64_t channels = kChannels > 0 ? kChannels : dynamic_channels;
  for (const Interpolation& x : xs) {
    const T* left = row + x.lower * channels;
    const T* right = row + x.upper * channels;
    for (int64_t c = 0; c < channels; ++c) {
      const float l = static_cast<float>(left[c]);
      out[c] = l + (static_cast<float>(right[c]) - l) * x.lerp;
    }
    out += channels;
  }
}

// The last two input rows interpolated along x, so that output rows sharing an input row (as
// in any upscale) interpolate it once.
template <typename T>
class XLerpCache {
 public:
  // `in`: rows of in_row_size elements; the interpolated rows have xs.size() * channels.
  XLerpCache(const T* in, int64_t in_row_size, const std::vector<Interpolation>& xs,
             int64_t channels)
      : in_(in), in_row_size_(in_row_size), xs_(xs), channels_(channels) {
    for (Slot& slot : slots_) slot.values.resize(xs.size() * channels);
  }

  // Input row `index` (counting over the whole batch), interpolated along x.
  const float* Row(int64_t index) {
    for (Slot& slot : slots_) {
      if (slot.index == index) return slot.values.data();
    }
    Slot& slot = slots_[next_];
    next_ = 1 - next_;
    slot.index = index;
    const T* row = in_ + index * in_row_size_;
    float* out = slot.values.data();
    switch (channels_) {
      case 1:
        LerpAlongX<T, 1>(row, xs_, 1, out);
        break;
      case 3:
        LerpAlongX<T, 3>(row, xs_, 3, out);
        break;
      case 4:
        LerpAlongX<T, 4>(row, xs_, 4, out);
        break;
      default:
        LerpAlongX<T, 0>(row, xs_, channels_, out);
        break;
    }
    return out;
  }

 private:
  struct Slot {
    int64_t index = -1;
    std::vector<float> values;
  };
  const T* in_;
  int64_t in_row_size_;
  const std::vector<Interpolation>& xs_;
  int64_t channels_;
  Slot slots_[2];
  int next_ = 0;
};

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(kInputImages);
    ResizeGeometry g;
    GRT_RETURN_IF_ERROR(
        PlanResize(images, ctx->input(kInputSize), align_corners_, half_pixel_centers_, &g));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(
        kOutput, TensorShape({g.batch, g.out_rows, g.out_cols, g.channels}), &out));
    if (out->NumElements() == 0) return Status::OK();
    const T* in = images.data<T>();
    float* dst = out->data<float>();
    if (g.out_rows == g.in_rows && g.out_cols == g.in_cols) {
      ConvertElements<T, float>(ctx, in, images.NumElements(), dst);
      return Status::OK();
    }
    const std::vector<Interpolation> ys =
        BilinearTable(g.out_rows, g.in_rows, g.row_scale, half_pixel_centers_);
    const std::vector<Interpolation> xs =
        BilinearTable(g.out_cols, g.in_cols, g.col_scale, half_pixel_centers_);
    const int64_t row_len = g.out_cols * g.channels;
    ctx->ParallelFor(g.batch * g.out_rows, row_len * 8, [&](int64_t first, int64_t last) {
      XLerpCache<T> cache(in, g.in_cols * g.channels, xs, g.channels);
      using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;
      for (int64_t row = first; row < last; ++row) {
        const int64_t b = row / g.out_rows;
        const Interpolation& y = ys[row % g.out_rows];
        Eigen::Map<const Vector> top(cache.Row(b * g.in_rows + y.lower), row_len);
        Eigen::Map<const Vector> bottom(cache.Row(b * g.in_rows + y.upper), row_len);
        Eigen::Map<Vector>(dst + row * row_len, row_len) = top + (bottom - top) * y.lerp;
      }
    });
    return Status::OK();
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

std::vector<int64_t> NearestTable(int64_t out_size, int64_t in_size, float scale,
                                  bool align_corners, bool half_pixel_centers) {
  std::vector<int64_t> table(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in =
        half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    const int64_t index = static_cast<int64_t>(align_corners ? std::round(in) : std::floor(in));
    table[i] = std::max<int64_t>(0, std::min(index, in_size - 1));
  }
  return table;
}

template <typename T>
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(kInputImages);
    ResizeGeometry g;
    GRT_RETURN_IF_ERROR(
        PlanResize(images, ctx->input(kInputSize), align_corners_, half_pixel_centers_, &g));
    if (g.in_rows >= (1 << 24) || g.in_cols >= (1 << 24)) {
      return InvalidArgument("nearest neighbor requires max height & width of 2^24");
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(
        kOutput, TensorShape({g.batch, g.out_rows, g.out_cols, g.channels}), &out));
    if (out->NumElements() == 0) return Status::OK();
    const std::vector<int64_t> ys =
        NearestTable(g.out_rows, g.in_rows, g.row_scale, align_corners_, half_pixel_centers_);
    const std::vector<int64_t> xs =
        NearestTable(g.out_cols, g.in_cols, g.col_scale, align_corners_, half_pixel_centers_);
    const T* in = images.data<T>();
    T* dst = out->data<T>();
    const int64_t channels = g.channels;
    ctx->ParallelFor(g.batch * g.out_rows, g.out_cols * channels, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        const int64_t b = row / g.out_rows;
        const T* src = in + (b * g.in_rows + ys[row % g.out_rows]) * g.in_cols * channels;
        T* o = dst + row * g.out_cols * channels;
        if (channels == 1) {
          for (int64_t ox = 0; ox < g.out_cols; ++ox) o[ox] = src[xs[ox]];
          continue;
        }
        for (int64_t ox = 0; ox < g.out_cols; ++ox, o += channels) {
          std::memcpy(o, src + xs[ox] * channels, channels * sizeof(T));
        }
      }
    });
    return Status::OK();
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

template <typename T>
void RegisterResize(KernelRegistry* r) {
  r->Register(KernelDefBuilder("ResizeBilinear")
                  .Device(kDeviceCpu)
                  .TypeConstraint<T>("T")
                  .HostMemory("size"),
              MakeFactory<ResizeBilinearOp<T>>());
  r->Register(KernelDefBuilder("ResizeNearestNeighbor")
                  .Device(kDeviceCpu)
                  .TypeConstraint<T>("T")
                  .HostMemory("size"),
              MakeFactory<ResizeNearestNeighborOp<T>>());
}

}  // namespace

void RegisterResizeKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: both ops for the floating types and the 8/16/32/64-bit integers
  // but 32/64-bit unsigned.
  RegisterResize<float>(r);
  RegisterResize<double>(r);
  RegisterResize<half>(r);
  RegisterResize<bfloat16>(r);
  RegisterResize<int8_t>(r);
  RegisterResize<uint8_t>(r);
  RegisterResize<int16_t>(r);
  RegisterResize<uint16_t>(r);
  RegisterResize<int32_t>(r);
  RegisterResize<int64_t>(r);
}

}  // namespace graphrt
