// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3, in inference and training mode.
//
// Inference: y = (x - mean) * (scale * rsqrt(variance + epsilon)) + offset, with the
// per-channel factor computed once. The statistics outputs pass mean and variance through, as
// TensorFlow's default CPU kernels do; reserve_space_3 (V3) is empty.
// Training: the batch's own mean and (biased) variance normalize x; batch_mean and
// batch_variance report them, the variance with Bessel's correction, blended with the running
// values when exponential_avg_factor != 1; reserve_space_1/2 hold the batch mean and biased
// variance. Sums accumulate in double.
//
// x is seen as [outer, channels, inner]: inner == 1 for channels last (NHWC, NDHWC), outer ==
// batch for channels first (NCHW, NCDHW). half and bfloat16 x are computed in float.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

constexpr int kInputX = 0;
constexpr int kInputScale = 1;
constexpr int kInputOffset = 2;
constexpr int kInputMean = 3;
constexpr int kInputVariance = 4;
constexpr int kOutputY = 0;
constexpr int kOutputBatchMean = 1;
constexpr int kOutputBatchVariance = 2;
constexpr int kOutputReserve1 = 3;
constexpr int kOutputReserve2 = 4;
constexpr int kOutputReserve3 = 5;

// x as [outer, channels, inner].
struct ChannelLayout {
  int64_t outer = 0, channels = 0, inner = 0;
};

// y = (x - mean[c]) * factor[c] + offset[c] for every element.
template <typename T>
void Normalize(const OpKernelContext* ctx, const ChannelLayout& l, const T* x, const float* mean,
               const float* factor, const float* offset, T* y) {
  using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;
  if (l.inner == 1) {
    Eigen::Map<const Vector> m(mean, l.channels), f(factor, l.channels), o(offset, l.channels);
    ctx->ParallelFor(l.outer, l.channels * 3, [&](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const int64_t base = r * l.channels;
        if constexpr (kIsReducedFloat<T>) {
          using TVector = Eigen::Array<T, Eigen::Dynamic, 1>;
          Eigen::Map<TVector>(y + base, l.channels) =
              ((Eigen::Map<const TVector>(x + base, l.channels).template cast<float>() - m) * f + o)
                  .template cast<T>();
        } else {
          Eigen::Map<Vector>(y + base, l.channels) =
              (Eigen::Map<const Vector>(x + base, l.channels) - m) * f + o;
        }
      }
    });
    return;
  }
  ctx->ParallelFor(l.outer * l.channels, l.inner * 3, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      const int64_t c = p % l.channels, base = p * l.inner;
      if constexpr (kIsReducedFloat<T>) {
        using TVector = Eigen::Array<T, Eigen::Dynamic, 1>;
        Eigen::Map<TVector>(y + base, l.inner) =
            ((Eigen::Map<const TVector>(x + base, l.inner).template cast<float>() - mean[c]) *
                 factor[c] +
             offset[c])
                .template cast<T>();
      } else {
        Eigen::Map<Vector>(y + base, l.inner) =
            (Eigen::Map<const Vector>(x + base, l.inner) - mean[c]) * factor[c] + offset[c];
      }
    }
  });
}

// Per-channel sums of f(x) over everything but the channel dim, in double.
template <typename T, typename Fn>
std::vector<double> ChannelSums(const OpKernelContext* ctx, const ChannelLayout& l, const T* x,
                                Fn f) {
  // Fixed shards, each with its own partial sums, merged in order (deterministic results).
  const int64_t rows = l.outer;
  const int64_t shards =
      std::max<int64_t>(1, std::min<int64_t>(rows, 4 * ctx->device()->intra_op_threads()));
  std::vector<std::vector<double>> partial(shards, std::vector<double>(l.channels, 0.0));
  auto sum_rows = [&](int64_t r0, int64_t r1, std::vector<double>& acc) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* row = x + r * l.channels * l.inner;
      for (int64_t c = 0; c < l.channels; ++c) {
        const T* plane = row + c * l.inner;
        double sum = 0;
        for (int64_t i = 0; i < l.inner; ++i) {
          sum += f(static_cast<double>(static_cast<float>(plane[i])), c);
        }
        acc[c] += sum;
      }
    }
  };
  ctx->ParallelFor(shards, rows / shards * l.channels * l.inner * 2,
                   [&](int64_t first, int64_t last) {
                     for (int64_t s = first; s < last; ++s) {
                       sum_rows(rows * s / shards, rows * (s + 1) / shards, partial[s]);
                     }
                   });
  std::vector<double> total(l.channels, 0.0);
  for (const auto& p : partial) {
    for (int64_t c = 0; c < l.channels; ++c) total[c] += p[c];
  }
  return total;
}

template <typename T>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "exponential_avg_factor", &avg_factor_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    std::string format;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("data_format", &format));
    if (format == "NHWC" || format == "NDHWC") {
      channels_first_ = false;
    } else if (format == "NCHW" || format == "NCDHW") {
      channels_first_ = true;
    } else {
      ctx->SetStatus(InvalidArgument("Invalid data format: ", format));
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(kInputX);
    if (x.dims() != 4 && x.dims() != 5) {
      return InvalidArgument("input must be 4 or 5-dimensional", x.shape().DebugString());
    }
    const int channel_dim = channels_first_ ? 1 : x.dims() - 1;
    ChannelLayout l;
    l.channels = x.dim_size(channel_dim);
    l.inner = 1;
    for (int i = channel_dim + 1; i < x.dims(); ++i) l.inner *= x.dim_size(i);
    l.outer = 1;
    for (int i = 0; i < channel_dim; ++i) l.outer *= x.dim_size(i);

    const char* names[] = {"x", "scale", "offset", "mean", "variance"};
    for (int i = kInputScale; i <= kInputVariance; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() != 1) {
        return InvalidArgument(names[i], " must be 1-dimensional", t.shape().DebugString());
      }
      const bool stats = i == kInputMean || i == kInputVariance;
      if (stats && is_training_ && avg_factor_ == 1.0f) continue;  // may be empty
      if (t.NumElements() != l.channels) {
        const std::string prefix = !stats         ? ""
                                   : is_training_ ? "When exponential_avg_factor != 1, "
                                                  : "When is_training=false, ";
        return InvalidArgument(prefix, names[i],
                               " must have the same number of elements as the channels of x, "
                               "got ",
                               t.NumElements(), " and ", l.channels);
      }
    }
    const float* scale = ctx->input(kInputScale).data<float>();
    const float* offset = ctx->input(kInputOffset).data<float>();
    const TensorShape channel_shape({l.channels});

    Tensor* y = nullptr;
    GRT_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output(kInputX, kOutputY, x.shape(), &y));
    if (ctx->num_outputs() > kOutputReserve3) {
      Tensor* reserve3 = nullptr;
      GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutputReserve3, TensorShape({0}), &reserve3));
    }

    Tensor* batch_mean = nullptr;
    Tensor* batch_var = nullptr;
    Tensor* reserve1 = nullptr;
    Tensor* reserve2 = nullptr;
    if (x.NumElements() == 0) {
      // TensorFlow's answer for an empty batch: NaN statistics, zero reserves.
      for (int i : {kOutputBatchMean, kOutputBatchVariance, kOutputReserve1, kOutputReserve2}) {
        Tensor* t = nullptr;
        GRT_RETURN_IF_ERROR(ctx->allocate_output(i, channel_shape, &t));
        const float fill = i <= kOutputBatchVariance ? std::numeric_limits<float>::quiet_NaN() : 0;
        std::fill(t->data<float>(), t->data<float>() + l.channels, fill);
      }
      return Status::OK();
    }

    std::vector<float> mean(l.channels), variance(l.channels);
    if (!is_training_) {
      const float* m = ctx->input(kInputMean).data<float>();
      const float* v = ctx->input(kInputVariance).data<float>();
      mean.assign(m, m + l.channels);
      variance.assign(v, v + l.channels);
      ctx->set_output(kOutputBatchMean, ctx->input(kInputMean));
      ctx->set_output(kOutputBatchVariance, ctx->input(kInputVariance));
      ctx->set_output(kOutputReserve1, ctx->input(kInputMean));
      ctx->set_output(kOutputReserve2, ctx->input(kInputVariance));
    } else {
      const int64_t count = l.outer * l.inner;
      const T* xd = x.data<T>();
      std::vector<double> sums = ChannelSums<T>(ctx, l, xd, [](double v, int64_t) { return v; });
      std::vector<double> mean_d(l.channels);
      for (int64_t c = 0; c < l.channels; ++c) mean_d[c] = sums[c] / count;
      std::vector<double> squares = ChannelSums<T>(
          ctx, l, xd, [&](double v, int64_t c) { return (v - mean_d[c]) * (v - mean_d[c]); });
      const double bessel = count > 1 ? static_cast<double>(count) / (count - 1) : 1.0;
      GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutputBatchMean, channel_shape, &batch_mean));
      GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutputBatchVariance, channel_shape, &batch_var));
      GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutputReserve1, channel_shape, &reserve1));
      GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutputReserve2, channel_shape, &reserve2));
      const bool blend = avg_factor_ != 1.0f;
      const float* old_mean = blend ? ctx->input(kInputMean).data<float>() : nullptr;
      const float* old_var = blend ? ctx->input(kInputVariance).data<float>() : nullptr;
      const float f = avg_factor_;
      for (int64_t c = 0; c < l.channels; ++c) {
        mean[c] = static_cast<float>(mean_d[c]);
        variance[c] = static_cast<float>(squares[c] / count);
        const float unbiased = static_cast<float>(squares[c] / count * bessel);
        reserve1->data<float>()[c] = mean[c];
        reserve2->data<float>()[c] = variance[c];
        batch_mean->data<float>()[c] = blend ? (1 - f) * old_mean[c] + f * mean[c] : mean[c];
        batch_var->data<float>()[c] = blend ? (1 - f) * old_var[c] + f * unbiased : unbiased;
      }
    }
    std::vector<float> factor(l.channels);
    for (int64_t c = 0; c < l.channels; ++c) {
      factor[c] = (1.0f / std::sqrt(variance[c] + epsilon_)) * scale[c];
    }
    Normalize<T>(ctx, l, x.data<T>(), mean.data(), factor.data(), offset, y->data<T>());
    return Status::OK();
  }

 private:
  float epsilon_ = 1e-4f;
  float avg_factor_ = 1.0f;
  bool is_training_ = true;
  bool channels_first_ = false;
};

template <typename T>
void RegisterV2V3(KernelRegistry* r) {
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
    r->Register(
        KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<float>("U").TypeConstraint<T>("T"),
        MakeFactory<FusedBatchNormOp<T>>());
  }
}

}  // namespace

void RegisterBatchNormKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: FusedBatchNorm for float; V2 and V3 for T in {float, half,
  // bfloat16} with U = float.
  r->Register(KernelDefBuilder("FusedBatchNorm").Device(kDeviceCpu).TypeConstraint<float>("T"),
              MakeFactory<FusedBatchNormOp<float>>());
  RegisterV2V3<float>(r);
  RegisterV2V3<half>(r);
  RegisterV2V3<bfloat16>(r);
}

}  // namespace graphrt
