// The epilogue of TensorFlow's fused ops (_FusedConv2D, _FusedDepthwiseConv2dNative,
// _FusedMatMul) as graphrt's optimizer makes them: `fused_ops` is "BiasAdd", optionally "Add"
// (a residual of the output's shape), then at most one activation, applied to the product's output
// seen as [rows, channels] (NHWC or a matrix).
//
// The activations compute as graphrt's own kernels do: Relu and Relu6 pass NaN on, Elu is
// exp(x) - 1 below zero, LeakyRelu is x * alpha where x <= 0, and "_MklSwish" (TensorFlow's
// name for x * sigmoid(x); also "_FusedSwish") multiplies by the logistic function, and
// "_FusedHardSwish" is x * relu6(x + 3) * (1/6). For float, every activation but Tanh runs
// vectorized (bias_activation.h).
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_FUSED_EPILOGUE_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_FUSED_EPILOGUE_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/core/str_util.h"
#include "runtime/kernels/cpu/bias_activation.h"
#include "runtime/kernels/cpu/cpu_isa.h"
#include "runtime/kernels/cpu/sgemm.h"
#include "runtime/kernels/op_kernel.h"

namespace graphrt {

class FusedEpilogue {
 public:
  enum class Activation {
    kNone,
    kRelu,
    kRelu6,
    kElu,
    kLeakyRelu,
    kSigmoid,
    kTanh,
    kSwish,
    kHardSwish
  };

  // Reads fused_ops, num_args and leakyrelu_alpha, each name after `prefix` (a node with two
  // epilogues names the first one's attrs apart); errors name what graphrt cannot fuse.
  Status Parse(const OpKernelConstruction& ctx, const std::string& prefix = "") {
    std::vector<std::string> ops;
    GRT_RETURN_IF_ERROR(ctx.GetAttr(prefix + "fused_ops", &ops));
    int64_t num_args = 0;
    GRT_RETURN_IF_ERROR(ctx.GetAttr(prefix + "num_args", &num_args));
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx.def(), prefix + "leakyrelu_alpha", &alpha_));
    residual_ = ops.size() >= 2 && ops[1] == "Add";
    const size_t activations = ops.size() - (residual_ ? 2 : 1);
    if (ops.empty() || ops[0] != "BiasAdd" || num_args != (residual_ ? 2 : 1) || activations > 1) {
      return Unimplemented(
          "graphrt fuses BiasAdd, an optional residual Add and one activation (num_args 1 or 2), "
          "got fused_ops [",
          StrJoin(ops, ", "), "] with num_args ", num_args);
    }
    if (activations == 1) {
      const std::string& a = ops.back();
      if (a == "Relu") {
        activation_ = Activation::kRelu;
      } else if (a == "Relu6") {
        activation_ = Activation::kRelu6;
      } else if (a == "Elu") {
        activation_ = Activation::kElu;
      } else if (a == "LeakyRelu") {
        activation_ = Activation::kLeakyRelu;
      } else if (a == "Sigmoid") {
        activation_ = Activation::kSigmoid;
      } else if (a == "Tanh") {
        activation_ = Activation::kTanh;
      } else if (a == "_MklSwish" || a == "_FusedSwish") {
        activation_ = Activation::kSwish;
      } else if (a == "_FusedHardSwish") {
        activation_ = Activation::kHardSwish;
      } else {
        return Unimplemented("graphrt cannot fuse the activation ", a);
      }
    }
    return Status::OK();
  }

  // Whether fused_ops has the residual Add (args[1], of the output's shape).
  bool residual() const { return residual_; }

  // The clamp [*lower, *upper] that the activation is, taken as maxps(lower, x) then
  // minps(upper, x) (which pass NaN on, as ApplyRows does): no activation, Relu or Relu6. False
  // for the others.
  bool ActivationAsClamp(float* lower, float* upper) const {
    const float inf = std::numeric_limits<float>::infinity();
    switch (activation_) {
      case Activation::kNone:
        *lower = -inf;
        *upper = inf;
        return true;
      case Activation::kRelu:
        *lower = 0.0f;
        *upper = inf;
        return true;
      case Activation::kRelu6:
        *lower = 0.0f;
        *upper = 6.0f;
        return true;
      default:
        return false;
    }
  }

  // Checks args[0] (the bias, `channels` long: `what` names them in the error) and args[1] (the
  // residual, when there is one) against an output of shape `out` (inputs first_arg and
  // first_arg + 1 of the kernel), and points *bias and *addend (null without a residual) at
  // their values.
  Status Check(const OpKernelContext& ctx, const TensorShape& out, int64_t channels,
               const char* what, const float** bias, const float** addend,
               int first_arg = 2) const {
    const Tensor& b = ctx.input(first_arg);
    if (b.dims() != 1 || b.dim_size(0) != channels) {
      return InvalidArgument("bias must be a vector of the output's ", channels, " ", what,
                             ", got ", b.shape().DebugString());
    }
    *bias = b.data<float>();
    *addend = nullptr;
    if (residual_) {
      const Tensor& other = ctx.input(first_arg + 1);
      if (other.shape() != out) {
        return InvalidArgument("the residual addend has shape ", other.shape().DebugString(),
                               ", the output ", out.DebugString());
      }
      *addend = other.data<float>();
    }
    return Status::OK();
  }

  // Checks the arguments (Check), then applies the epilogue to `out`, the product seen as
  // [rows, channels], in place.
  Status Run(OpKernelContext* ctx, int64_t rows, int64_t channels, const char* what,
             Tensor* out) const {
    const float* bias = nullptr;
    const float* addend = nullptr;
    GRT_RETURN_IF_ERROR(Check(*ctx, out->shape(), channels, what, &bias, &addend));
    if (out->NumElements() == 0) return Status::OK();
    Apply(ctx, bias, addend, rows, channels, out->data<float>());
    return Status::OK();
  }

  // The epilogue as the packed SGEMM applies it tile by tile (sgemm.h), with `bias` and `addend`
  // (null: none) as ApplyRows takes them; false where the activation is not vectorized.
  bool TileEpilogue(const float* bias, const float* addend, SgemmEpilogue* out) const {
    if (!VectorActivation(&out->activation)) return false;
    out->bias = bias;
    out->addend = addend;
    out->alpha = alpha_;
    return true;
  }

  // Calls fn(first, count) for blocks of [rows, channels] of about 16K values (a few blocks
  // fit in L2), shared out over the intra-op threads: how an epilogue pass is split.
  template <typename Fn>
  static void ForEachRowBlock(const OpKernelContext* ctx, int64_t rows, int64_t channels, Fn fn) {
    const int64_t rows_per_block = std::max<int64_t>(1, 16384 / std::max<int64_t>(channels, 1));
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    ctx->ParallelFor(blocks, rows_per_block * channels * 8, [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        const int64_t r0 = b * rows_per_block;
        fn(r0, std::min(rows_per_block, rows - r0));
      }
    });
  }

  // out[r, c] = activation(out[r, c] + bias[c] (+ addend[r, c])) for `rows` rows, on the calling
  // thread. REQUIRES: bias has `channels` elements; addend is null or has rows * channels.
  void ApplyRows(const float* bias, const float* addend, int64_t rows, int64_t channels,
                 float* out) const {
    RowActivation vector_activation;
    if (VectorActivation(&vector_activation)) {
      BiasActivationArgs args;
      args.bias = bias;
      args.addend = addend;
      args.rows = rows;
      args.channels = channels;
      args.activation = vector_activation;
      args.alpha = alpha_;
      args.out = out;
      BiasActivationRows(ActiveCpuIsa(), args);
      return;
    }
    for (int64_t r = 0; r < rows; ++r) {
      ApplyRow(bias, addend == nullptr ? nullptr : addend + r * channels, channels,
               out + r * channels);
    }
  }

 private:
  // ApplyRows over blocks of rows shared out over the intra-op threads.
  void Apply(const OpKernelContext* ctx, const float* bias, const float* addend, int64_t rows,
             int64_t channels, float* out) const {
    ForEachRowBlock(ctx, rows, channels, [&](int64_t r0, int64_t count) {
      ApplyRows(bias, addend == nullptr ? nullptr : addend + r0 * channels, count, channels,
                out + r0 * channels);
    });
  }

  // The activations that bias_activation.h vectorizes (all but Tanh).
  bool VectorActivation(RowActivation* out) const {
    static constexpr std::pair<Activation, RowActivation> kVectorized[] = {
        {Activation::kNone, RowActivation::kNone},
        {Activation::kRelu, RowActivation::kRelu},
        {Activation::kRelu6, RowActivation::kRelu6},
        {Activation::kLeakyRelu, RowActivation::kLeakyRelu},
        {Activation::kHardSwish, RowActivation::kHardSwish},
        {Activation::kElu, RowActivation::kElu},
        {Activation::kSigmoid, RowActivation::kSigmoid},
        {Activation::kSwish, RowActivation::kSwish}};
    for (const auto& [activation, vector] : kVectorized) {
      if (activation == activation_) {
        *out = vector;
        return true;
      }
    }
    return false;
  }

  template <typename T>
  void ApplyRow(const T* bias, const T* addend, int64_t channels, T* row) const {
    for (int64_t c = 0; c < channels; ++c) row[c] += bias[c];
    if (addend != nullptr) {
      for (int64_t c = 0; c < channels; ++c) row[c] += addend[c];
    }
    switch (activation_) {
      case Activation::kNone:
        return;
      case Activation::kRelu:
        for (int64_t c = 0; c < channels; ++c) row[c] = row[c] < T(0) ? T(0) : row[c];
        return;
      case Activation::kRelu6:
        for (int64_t c = 0; c < channels; ++c) {
          row[c] = row[c] < T(0) ? T(0) : (row[c] > T(6) ? T(6) : row[c]);
        }
        return;
      case Activation::kElu:
        for (int64_t c = 0; c < channels; ++c)
          row[c] = row[c] < T(0) ? T(std::exp(row[c]) - T(1)) : row[c];
        return;
      case Activation::kLeakyRelu:
        for (int64_t c = 0; c < channels; ++c) {
          row[c] = row[c] > T(0) ? row[c] : T(row[c] * static_cast<T>(alpha_));
        }
        return;
      case Activation::kSigmoid:
        for (int64_t c = 0; c < channels; ++c) row[c] = T(1) / (T(1) + std::exp(-row[c]));
        return;
      case Activation::kTanh:
        for (int64_t c = 0; c < channels; ++c) row[c] = std::tanh(row[c]);
        return;
      case Activation::kHardSwish:
        for (int64_t c = 0; c < channels; ++c) {
          const T r = row[c] + T(3);
          row[c] = row[c] * (r < T(0) ? T(0) : (r > T(6) ? T(6) : r)) * T(1.0 / 6.0);
        }
        return;
      case Activation::kSwish:
        for (int64_t c = 0; c < channels; ++c) row[c] = row[c] / (T(1) + std::exp(-row[c]));
        return;
    }
  }

  Activation activation_ = Activation::kNone;
  bool residual_ = false;
  float alpha_ = 0.2f;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_FUSED_EPILOGUE_H_
