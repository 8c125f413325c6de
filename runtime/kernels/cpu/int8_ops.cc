// graphrt's dynamically quantized ops, made by the optimizer (runtime/optimize/int8_weights.cc)
// from MatMul / Conv2D (or their _Fused forms) whose weights are Dequantize(qint8 Const, min,
// max): the float activation is quantized per Run and multiplied by the int8 weights in integers
// (int8_product.h), then the _Fused* epilogue runs in float.
//
//   _GraphrtQuantizedMatMul(a: float [m, k], b: qint8 [k, n], b_min, b_max, args...)
//   _GraphrtQuantizedConv2D(input: float NHWC, filter: qint8 HWIO, filter_min, filter_max, args...)
//   _GraphrtQuantizedDepthwiseConv2D(input: float NHWC, filter: qint8 [h, w, channels, 1],
//                                    filter_min, filter_max, args...)
//
// min/max are Dequantize's (SCALED, narrow_range): [n] per output channel with `axis` the
// channel axis (1 for MatMul, 3 for Conv2D, 2 for the depthwise one), or one value with axis -1.
// fused_ops / num_args / leakyrelu_alpha are _FusedMatMul's (fused_epilogue.h), or empty for the
// bare product.
//
// Static activation ranges: with float attrs input_min and input_max (both or neither) the input
// is quantized as QuantizeV2(x, input_min, input_max) T=quint8 mode=MIN_FIRST would quantize it
// (QuantizeActivationsMinFirst), and the product reads those codes as the Dequantize after it
// would, instead of choosing the range from x on each Run. The optimizer sets them where the
// input was such a QuantizeV2 -> Dequantize pair (`graphrt quantize --mode int8-static`).
//
// Codes between int8 ops: with Tinput = quint8 the input is already those codes (made by the op
// before, in the range input_min / input_max); with Toutput = quint8 and float attrs output_min /
// output_max the op writes, instead of its float output, the codes QuantizeV2 would make of it in
// that range. The optimizer chains them so where one int8 op feeds only int8 ops of one range.
#include <algorithm>
#include <functional>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/str_util.h"
#include "runtime/kernels/cpu/fused_epilogue.h"
#include "runtime/kernels/cpu/int8_product.h"
#include "runtime/kernels/cpu/int8_tap_sum.h"
#include "runtime/kernels/cpu/quantization_util.h"
#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

constexpr int kInputX = 0;
constexpr int kInputFilter = 1;
constexpr int kInputMin = 2;
constexpr int kInputMax = 3;
constexpr int kFirstArg = 4;
constexpr int kOutput = 0;

// FusedEpilogue reads its args from inputs 2 and 3; here they come after min and max.
class Int8OpBase : public OpKernel {
 public:
  Int8OpBase(OpKernelConstruction* ctx, int64_t channel_axis) : OpKernel(ctx) {
    std::vector<std::string> ops;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("fused_ops", &ops));
    if (!ops.empty()) {
      fused_ = true;
      GRT_CONSTRUCT_OK(ctx, epilogue_.Parse(*ctx));
    } else {
      int64_t num_args = 0;
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("num_args", &num_args));
      if (num_args != 0) {
        ctx->SetStatus(InvalidArgument("num_args is ", num_args, " without fused_ops"));
        return;
      }
    }
    int64_t axis = -1;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("axis", &axis));
    if (axis != channel_axis && axis != -1) {
      ctx->SetStatus(InvalidArgument("axis must be ", channel_axis,
                                     " (the output channels) or -1 (per tensor), got ", axis));
      return;
    }
    per_column_ = axis != -1;
    const bool has_min = FindAttr(ctx->def(), "input_min") != nullptr;
    const bool has_max = FindAttr(ctx->def(), "input_max") != nullptr;
    if (has_min != has_max) {
      ctx->SetStatus(InvalidArgument("input_min and input_max come together; got only ",
                                     has_min ? "input_min" : "input_max"));
      return;
    }
    if (has_min) {
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("input_min", &input_min_));
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("input_max", &input_max_));
      if (!std::isfinite(input_min_) || !std::isfinite(input_max_) || input_min_ > 0.0f ||
          input_max_ < 0.0f) {
        ctx->SetStatus(
            InvalidArgument("input_min and input_max must be finite with input_min <= 0 "
                            "<= input_max, got [",
                            input_min_, ", ", input_max_, "]"));
        return;
      }
      static_range_ = true;
    }
    constant_ = ctx->input_is_constant(kInputFilter) && ctx->input_is_constant(kInputMin) &&
                ctx->input_is_constant(kInputMax);
    GRT_CONSTRUCT_OK(ctx, ParseCodes(ctx));
  }

 protected:
  // The packed weights of this Run; `scratch` keeps non-constant ones alive.
  StatusOr<const Int8Weights*> Weights(const OpKernelContext& ctx, int64_t k, int64_t n,
                                       std::unique_ptr<Int8Weights>* scratch) {
    return cache_.Get(constant_, ActiveQGemmIsa(), ctx.input(kInputFilter), k, n,
                      ctx.input(kInputMin), ctx.input(kInputMax), per_column_, scratch);
  }

  // Checks that the input is of the node's Tinput.
  Status CheckInputType(const Tensor& x) const {
    if (x.dtype() != input_type_) {
      return InvalidArgument("input must be ", DataTypeString(input_type_), ", got ",
                             DataTypeString(x.dtype()));
    }
    return Status::OK();
  }

  // The elements of scratch that InputCodes needs for x.
  int64_t CodesScratch(const Tensor& x) const {
    return input_type_ == ::tensorflow::DT_QUINT8 ? 0 : x.NumElements();
  }

  // The input's codes: the input itself where it holds codes, else x quantized into `scratch`
  // (CodesScratch(x) elements; in the static range where the node has one, else in the range of
  // x). REQUIRES: CheckInputType(x) is OK.
  const uint8_t* InputCodes(const OpKernelContext& ctx, const Tensor& x, uint8_t* scratch,
                            ActivationQuantization* q) const {
    if (input_type_ == ::tensorflow::DT_QUINT8) {
      *q = input_codes_.dequantization;
      return x.data<uint8_t>();
    }
    *q = QuantizeInput(ctx, x.data<float>(), x.NumElements(), scratch);
    return scratch;
  }

  // Where the op's finished values go: `out` holds the values, or their codes (Toutput).
  void SetOutput(Tensor* out, Int8Output* o) const {
    if (output_type_ == ::tensorflow::DT_QUINT8) {
      o->codes = out->data<uint8_t>();
      o->requantization = output_codes_;
    } else {
      o->values = out->data<float>();
    }
  }

  // Checks the epilogue's args against an output of `out` with `channels` columns, and sets
  // the epilogue to run on finished blocks: in `output` where the output stage runs it itself
  // (bias, residual, Relu or Relu6), else in *epilogue (nothing without fused_ops).
  Status BindEpilogue(const OpKernelContext& ctx, const TensorShape& out, int64_t channels,
                      const char* what, Int8Epilogue* epilogue, Int8Output* output) const {
    if (!fused_) return Status::OK();
    for (int i = kFirstArg; i < ctx.num_inputs(); ++i) {
      if (ctx.input(i).dtype() != ::tensorflow::DT_FLOAT) {
        return InvalidArgument("fused argument ", i - kFirstArg, " must be float, got ",
                               DataTypeString(ctx.input(i).dtype()));
      }
    }
    const Tensor& bias = ctx.input(kFirstArg);
    if (bias.dims() != 1 || bias.dim_size(0) != channels) {
      return InvalidArgument("bias must be a vector of the output's ", channels, " ", what,
                             ", got ", bias.shape().DebugString());
    }
    const float* addend = nullptr;
    if (epilogue_.residual()) {
      const Tensor& other = ctx.input(kFirstArg + 1);
      if (other.shape() != out) {
        return InvalidArgument("the residual addend has shape ", other.shape().DebugString(),
                               ", the output ", out.DebugString());
      }
      addend = other.data<float>();
    }
    const float* b = bias.data<float>();
    if (epilogue_.ActivationAsClamp(&output->lower, &output->upper)) {
      output->bias = b;
      output->addend = addend;
      return Status::OK();
    }
    *epilogue = [this, b, addend, channels](int64_t row, int64_t rows, int64_t col, int64_t cols,
                                            float* o, int64_t ldo) {
      const float* add = addend == nullptr ? nullptr : addend + row * channels + col;
      if (cols == channels) {
        epilogue_.ApplyRows(b, add, rows, channels, o);
        return;
      }
      for (int64_t r = 0; r < rows; ++r) {
        epilogue_.ApplyRows(b + col, add == nullptr ? nullptr : add + r * channels, 1, cols,
                            o + r * ldo);
      }
    };
    return Status::OK();
  }

  // Checks the filter's dtype and rank.
  static Status CheckFilter(const Tensor& filter, int rank, const char* layout) {
    if (filter.dtype() != ::tensorflow::DT_QINT8 || filter.dims() != rank) {
      return InvalidArgument("filter must be qint8 of rank ", rank, " (", layout, "), got ",
                             DataTypeString(filter.dtype()), " ", filter.shape().DebugString());
    }
    return Status::OK();
  }

 private:
  // Quantizes the float input x[0, n) into codes q: in the static range where the node has one,
  // else in the range of x.
  ActivationQuantization QuantizeInput(const OpKernelContext& ctx, const float* x, int64_t n,
                                       uint8_t* q) const {
    if (static_range_) {
      return QuantizeActivationsMinFirst(ctx.device(), x, n, input_min_, input_max_, q);
    }
    return QuantizeActivations(ctx.device(), x, n, q);
  }

  // Tinput / Toutput and output_min / output_max (see the top of the file).
  Status ParseCodes(OpKernelConstruction* ctx) {
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx->def(), "Tinput", &input_type_));
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx->def(), "Toutput", &output_type_));
    for (DataType t : {input_type_, output_type_}) {
      if (t != ::tensorflow::DT_FLOAT && t != ::tensorflow::DT_QUINT8) {
        return InvalidArgument("Tinput and Toutput must be float or quint8, got ",
                               DataTypeString(t));
      }
    }
    if (input_type_ == ::tensorflow::DT_QUINT8) {
      if (!static_range_) {
        return InvalidArgument("a quint8 input needs its range in input_min and input_max");
      }
      input_codes_ = MinFirstCodesFor(input_min_, input_max_);
    }
    const bool has_min = FindAttr(ctx->def(), "output_min") != nullptr;
    const bool has_max = FindAttr(ctx->def(), "output_max") != nullptr;
    const bool codes_out = output_type_ == ::tensorflow::DT_QUINT8;
    if (has_min != codes_out || has_max != codes_out) {
      return InvalidArgument(
          "output_min and output_max come with Toutput quint8, and only with it");
    }
    if (!codes_out) return Status::OK();
    float lo = 0.0f, hi = 0.0f;
    GRT_RETURN_IF_ERROR(GetNodeAttr(ctx->def(), "output_min", &lo));
    GRT_RETURN_IF_ERROR(GetNodeAttr(ctx->def(), "output_max", &hi));
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > 0.0f || hi < 0.0f) {
      return InvalidArgument(
          "output_min and output_max must be finite with output_min <= 0 <= output_max, got [", lo,
          ", ", hi, "]");
    }
    output_codes_ = MinFirstCodesFor(lo, hi);
    return Status::OK();
  }

  FusedEpilogue epilogue_;
  bool fused_ = false;
  bool per_column_ = true;
  bool constant_ = false;
  bool static_range_ = false;
  float input_min_ = 0.0f, input_max_ = 0.0f;
  DataType input_type_ = ::tensorflow::DT_FLOAT;
  DataType output_type_ = ::tensorflow::DT_FLOAT;
  MinFirstCodes input_codes_, output_codes_;
  Int8WeightsCache cache_;
};

class QuantizedMatMulOp : public Int8OpBase {
 public:
  explicit QuantizedMatMulOp(OpKernelConstruction* ctx) : Int8OpBase(ctx, 1) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(kInputX);
    const Tensor& filter = ctx->input(kInputFilter);
    GRT_RETURN_IF_ERROR(CheckInputType(x));
    GRT_RETURN_IF_ERROR(CheckFilter(filter, 2, "[k, n]"));
    if (x.dims() != 2 || x.dim_size(1) != filter.dim_size(0)) {
      return InvalidArgument("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                             ", In[1]: ", filter.shape().DebugString());
    }
    const int64_t m = x.dim_size(0), k = x.dim_size(1), n = filter.dim_size(1);
    const TensorShape out_shape({m, n});
    Int8Epilogue epilogue;
    Int8Output output;
    GRT_RETURN_IF_ERROR(BindEpilogue(*ctx, out_shape, n, "columns", &epilogue, &output));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    SetOutput(out, &output);
    if (k == 0) {
      Int8ZeroProduct(m, n, epilogue, output);
      return Status::OK();
    }
    std::unique_ptr<Int8Weights> scratch;
    GRT_ASSIGN_OR_RETURN(const Int8Weights* weights, Weights(*ctx, k, n, &scratch));
    ScratchBuffer<uint8_t> codes(CodesScratch(x));
    ActivationQuantization q;
    const uint8_t* a = InputCodes(*ctx, x, codes.get(), &q);
    Int8MatMul(ctx->device(), a, m, q, *weights, epilogue, output);
    return Status::OK();
  }
};

class QuantizedConv2DOp : public Int8OpBase {
 public:
  explicit QuantizedConv2DOp(OpKernelConstruction* ctx) : QuantizedConv2DOp(ctx, 3) {}

 protected:
  // The window attrs, shared with the depthwise op (whose filter's channel axis is 2).
  QuantizedConv2DOp(OpKernelConstruction* ctx, int64_t channel_axis)
      : Int8OpBase(ctx, channel_axis) {
    std::string format, padding;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("data_format", &format));
    if (format != "NHWC") {
      ctx->SetStatus(Unimplemented(ctx->def().op(), " takes NHWC, got ", format));
      return;
    }
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("padding", &padding));
    GRT_CONSTRUCT_OK(ctx, ParsePadding(padding, &padding_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("strides", &strides_));
    dilations_ = {1, 1, 1, 1};
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "dilations", &dilations_));
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "explicit_paddings", &explicit_paddings_));
    if (strides_.size() != 4 || dilations_.size() != 4 || strides_[0] != 1 || strides_[3] != 1 ||
        dilations_[0] != 1 || dilations_[3] != 1 || strides_[1] <= 0 || strides_[2] <= 0 ||
        dilations_[1] <= 0 || dilations_[2] <= 0) {
      ctx->SetStatus(InvalidArgument(
          "strides and dilations must be 4 positive values, 1 in the batch and depth dims; got "
          "strides [",
          StrJoin(strides_, ", "), "], dilations [", StrJoin(dilations_, ", "), "]"));
      return;
    }
    const bool is_explicit = padding_ == Padding::kExplicit;
    bool paddings_ok = is_explicit ? explicit_paddings_.size() == 8 : explicit_paddings_.empty();
    for (size_t i = 0; paddings_ok && i < explicit_paddings_.size(); ++i) {
      const bool spatial = i >= 2 && i < 6;
      paddings_ok = explicit_paddings_[i] >= 0 && (spatial || explicit_paddings_[i] == 0);
    }
    if (!paddings_ok) {
      ctx->SetStatus(InvalidArgument(
          "explicit_paddings must be 8 non-negative values, zero in the batch and depth dims, "
          "with EXPLICIT padding, and empty otherwise; got [",
          StrJoin(explicit_paddings_, ", "), "]"));
    }
  }

 public:
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(kInputX);
    const Tensor& filter = ctx->input(kInputFilter);
    GRT_RETURN_IF_ERROR(CheckInputType(input));
    GRT_RETURN_IF_ERROR(CheckFilter(filter, 4, "HWIO"));
    if (input.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional, got ", input.shape().DebugString());
    }
    if (input.dim_size(3) != filter.dim_size(2)) {
      return InvalidArgument("input depth ", input.dim_size(3), " must equal the filter's ",
                             filter.dim_size(2), " (grouped convolutions stay in float)");
    }
    if (filter.dim_size(0) == 0 || filter.dim_size(1) == 0) {
      return InvalidArgument("filter must not have zero elements, got ",
                             filter.shape().DebugString());
    }
    Window2D g;
    GRT_RETURN_IF_ERROR(Geometry(input.shape(), filter.shape(), &g));
    const int64_t n = filter.dim_size(3);
    const TensorShape out_shape({g.batch, g.out_rows, g.out_cols, n});
    Int8Epilogue epilogue;
    Int8Output output;
    GRT_RETURN_IF_ERROR(BindEpilogue(*ctx, out_shape, n, "channels", &epilogue, &output));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    SetOutput(out, &output);
    const int64_t k = g.window_rows * g.window_cols * g.depth;
    if (k == 0) {
      Int8ZeroProduct(out->NumElements() / n, n, epilogue, output);
      return Status::OK();
    }
    std::unique_ptr<Int8Weights> scratch;
    GRT_ASSIGN_OR_RETURN(const Int8Weights* weights, Weights(*ctx, k, n, &scratch));
    ScratchBuffer<uint8_t> codes(CodesScratch(input));
    ActivationQuantization q;
    const uint8_t* in = InputCodes(*ctx, input, codes.get(), &q);
    Int8Conv2D(ctx->device(), g, in, q, *weights, epilogue, output);
    return Status::OK();
  }

 protected:
  Status Geometry(const TensorShape& in, const TensorShape& filter, Window2D* g) const {
    g->batch = in.dim_size(0);
    g->in_rows = in.dim_size(1);
    g->in_cols = in.dim_size(2);
    g->depth = in.dim_size(3);
    g->window_rows = filter.dim_size(0);
    g->window_cols = filter.dim_size(1);
    g->stride_rows = strides_[1];
    g->stride_cols = strides_[2];
    g->dilation_rows = dilations_[1];
    g->dilation_cols = dilations_[2];
    const bool is_explicit = padding_ == Padding::kExplicit;
    WindowDim rows, cols;
    GRT_RETURN_IF_ERROR(ComputeWindowDim(
        g->in_rows, g->window_rows, g->dilation_rows, g->stride_rows, padding_,
        is_explicit ? explicit_paddings_[2] : 0, is_explicit ? explicit_paddings_[3] : 0, &rows));
    GRT_RETURN_IF_ERROR(ComputeWindowDim(
        g->in_cols, g->window_cols, g->dilation_cols, g->stride_cols, padding_,
        is_explicit ? explicit_paddings_[4] : 0, is_explicit ? explicit_paddings_[5] : 0, &cols));
    g->out_rows = rows.output;
    g->out_cols = cols.output;
    g->pad_top = rows.pad_before;
    g->pad_left = cols.pad_before;
    return Status::OK();
  }

  Padding padding_ = Padding::kValid;
  std::vector<int64_t> strides_, dilations_, explicit_paddings_;
};

// _GraphrtQuantizedDepthwiseConv2D: a depthwise convolution with multiplier 1 (filter [h, w,
// channels, 1], ranges per channel along axis 2 or one for all), in integers: the input's uint8
// codes (read in place where they arrive as codes) times the filter, summed per channel over the
// window in int32 (Int8TapSum, per QGemmIsa path), then float(sum - zero_point * sum_t w[t][c]) *
// scale_x * scale_w[c] and the epilogue. That is the sum of (code - zero_point) * w exactly, the
// subtraction in int32. Taps over the padding read the zero point's code, so they add nothing.
class QuantizedDepthwiseConv2DOp : public QuantizedConv2DOp {
 public:
  explicit QuantizedDepthwiseConv2DOp(OpKernelConstruction* ctx) : QuantizedConv2DOp(ctx, 2) {
    int64_t axis = 2;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("axis", &axis));
    per_channel_ = axis != -1;
    constant_filter_ = ctx->input_is_constant(kInputFilter);
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(kInputX);
    const Tensor& filter = ctx->input(kInputFilter);
    GRT_RETURN_IF_ERROR(CheckInputType(input));
    GRT_RETURN_IF_ERROR(CheckFilter(filter, 4, "[h, w, channels, 1]"));
    if (input.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional, got ", input.shape().DebugString());
    }
    if (filter.dim_size(3) != 1 || input.dim_size(3) != filter.dim_size(2)) {
      return InvalidArgument("filter must be [h, w, ", input.dim_size(3),
                             ", 1] (the input's channels, multiplier 1), got ",
                             filter.shape().DebugString());
    }
    if (filter.dim_size(0) == 0 || filter.dim_size(1) == 0) {
      return InvalidArgument("filter must not have zero elements, got ",
                             filter.shape().DebugString());
    }
    Window2D g;
    GRT_RETURN_IF_ERROR(Geometry(input.shape(), filter.shape(), &g));
    const int64_t channels = g.depth;
    const TensorShape out_shape({g.batch, g.out_rows, g.out_cols, channels});
    Int8Epilogue epilogue;
    Int8Output output;
    GRT_RETURN_IF_ERROR(BindEpilogue(*ctx, out_shape, channels, "channels", &epilogue, &output));
    std::vector<float> scale_w;
    GRT_RETURN_IF_ERROR(
        FilterScales(ctx->input(kInputMin), ctx->input(kInputMax), channels, &scale_w));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    SetOutput(out, &output);

    ScratchBuffer<uint8_t> codes(CodesScratch(input));
    ActivationQuantization q;
    const uint8_t* in = InputCodes(*ctx, input, codes.get(), &q);
    const int64_t taps = g.window_rows * g.window_cols;
    const int8_t* f = filter.data<int8_t>();
    const QGemmIsa isa = ActiveQGemmIsa();
    // The VNNI path's row kernel (int8_tap_sum.h) lays out each input column the row reads once:
    // the faster with stride 1, where each column serves several pixels; with stride 2 the
    // pixel-run kernel was as fast or faster on MobileNetV2's layers (Zen 4). With stride and
    // dilation 1 down the rows and a window of at most 3 rows, it takes two output rows a call,
    // the second from the same quads.
    const bool row_kernel = isa == QGemmIsa::kAvx512Vnni && g.stride_cols == 1;
    const bool row_pairs =
        row_kernel && g.stride_rows == 1 && g.dilation_rows == 1 && g.window_rows <= 3;
    Int8TapRowShape shape;
    shape.window_rows = g.window_rows;
    shape.window_cols = g.window_cols;
    shape.channels = channels;
    shape.in_cols = g.in_cols;
    shape.pad_left = g.pad_left;
    shape.stride = g.stride_cols;
    shape.dilation = g.dilation_cols;
    shape.out_cols = g.out_cols;
    const std::shared_ptr<const FilterPack> pack = Pack(f, isa, shape, row_kernel, row_pairs);
    // offsets[c] = zero_point * sum_t w[t][c].
    std::vector<int32_t> offsets(static_cast<size_t>(channels));
    std::vector<float> multipliers(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      offsets[c] = q.zero_point * pack->sums[c];
      multipliers[c] = q.scale * scale_w[c];
    }
    // One input row of the zero point's code: a tap in a padding row reads it where it would
    // read a real row, and a tap left or right of the input reads its start.
    const std::vector<uint8_t> pad(static_cast<size_t>(std::max<int64_t>(g.in_cols, 1) * channels),
                                   static_cast<uint8_t>(q.zero_point));
    // The output columns [interior_first, interior_last) whose windows lie inside the input's
    // columns: one Int8TapSum call a row covers them, a tap's pixels stride_cols apart.
    const int64_t span_cols = (g.window_cols - 1) * g.dilation_cols;
    const int64_t interior_first =
        std::min((g.pad_left + g.stride_cols - 1) / g.stride_cols, g.out_cols);
    const int64_t last_start = g.in_cols - 1 - span_cols + g.pad_left;
    const int64_t interior_last =
        last_start < 0
            ? interior_first
            : std::max(interior_first, std::min(last_start / g.stride_cols + 1, g.out_cols));
    const std::vector<int8_t>& quads = pack->quads;
    const std::vector<int8_t>& quads_below = pack->quads_below;
    const std::optional<Int8TapWeights>& weights = pack->weights;

    const int64_t rows = g.batch * g.out_rows;
    ParallelFor(
        ctx->device(), rows, g.out_cols * taps * channels, [&](int64_t first, int64_t last) {
          ScratchBuffer<uint8_t> quad_scratch(row_kernel ? shape.scratch_bytes() : 0);
          std::vector<const uint8_t*> row_starts(static_cast<size_t>(g.window_rows + 1));
          std::vector<const uint8_t*> srcs(static_cast<size_t>(taps));
          // One output row's sums (two with row_pairs), then their output stage.
          const int64_t row_values = g.out_cols * channels;
          std::vector<int32_t> acc(static_cast<size_t>(2 * row_values));
          std::vector<float> scratch(output.codes != nullptr && epilogue ? 2 * row_values : 0);
          for (int64_t row = first, n = 1; row < last; row += n) {
            const int64_t b = row / g.out_rows, oh = row % g.out_rows;
            n = row_pairs && row + 1 < last && oh + 1 < g.out_rows ? 2 : 1;
            for (int64_t kh = 0; kh < g.window_rows + n - 1; ++kh) {
              const int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
              row_starts[kh] = ih >= 0 && ih < g.in_rows
                                   ? in + (b * g.in_rows + ih) * g.in_cols * channels
                                   : pad.data();
            }
            // The taps of output column ow; with `clip` those left or right of the input read
            // the pad row's start.
            const auto set_taps = [&](int64_t ow, bool clip) {
              const int64_t iw0 = ow * g.stride_cols - g.pad_left;
              for (int64_t kh = 0, t = 0; kh < g.window_rows; ++kh) {
                for (int64_t kw = 0; kw < g.window_cols; ++kw, ++t) {
                  const int64_t iw = iw0 + kw * g.dilation_cols;
                  srcs[t] = clip && (iw < 0 || iw >= g.in_cols) ? pad.data()
                                                                : row_starts[kh] + iw * channels;
                }
              }
            };
            if (row_kernel) {
              isa::avx512vnni::Int8TapSumRow(
                  shape, row_starts.data(), static_cast<uint8_t>(q.zero_point), quads.data(),
                  quad_scratch.get(), acc.data(), n == 2 ? quads_below.data() : nullptr,
                  n == 2 ? acc.data() + row_values : nullptr);
            }
            for (int64_t ow = 0; ow < (row_kernel ? 0 : g.out_cols); ++ow) {
              if (ow == interior_first && interior_last > interior_first) {
                set_taps(ow, false);
                Int8TapSum(*weights, srcs.data(), g.stride_cols * channels,
                           interior_last - interior_first, acc.data() + ow * channels);
                ow = interior_last - 1;
                continue;
              }
              set_taps(ow, true);
              Int8TapSum(*weights, srcs.data(), 0, 1, acc.data() + ow * channels);
            }
            Int8FinishBlock(isa, acc.data(), channels, row * g.out_cols, n * g.out_cols, 0,
                            channels, channels, offsets.data(), multipliers.data(), epilogue,
                            output, scratch.data());
          }
        });
    return Status::OK();
  }

 private:
  // Dequantize's SCALED narrow_range scale per channel: max(min / -127, max / 127).
  Status FilterScales(const Tensor& min, const Tensor& max, int64_t channels,
                      std::vector<float>* scales) const {
    for (const Tensor* t : {&min, &max}) {
      const bool shape_ok =
          per_channel_ ? (t->dims() == 1 && t->dim_size(0) == channels) : t->NumElements() == 1;
      if (t->dtype() != ::tensorflow::DT_FLOAT || !shape_ok) {
        return InvalidArgument("filter_", t == &min ? "min" : "max", " must be float ",
                               per_channel_ ? StrCat("[", channels, "]") : "with one value",
                               " (one per channel), got ", DataTypeString(t->dtype()), " ",
                               t->shape().DebugString());
      }
    }
    scales->resize(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t j = per_channel_ ? c : 0;
      const float lo = min.data<float>()[j], hi = max.data<float>()[j];
      GRT_RETURN_IF_ERROR(CheckRangeOrder(lo, hi, "filter"));
      (*scales)[c] = std::max(lo / -127.0f, hi / 127.0f);
    }
    return Status::OK();
  }

  // What the kernels take of the filter alone: made once where the filter is a Const (the same
  // buffer every Run), else on each Run.
  struct FilterPack {
    std::vector<int32_t> sums;               // sum_t w[t][c]
    std::vector<int8_t> quads, quads_below;  // the row kernel's (row_pairs: quads_below too)
    std::optional<Int8TapWeights> weights;   // the pixel-run kernel's
  };

  // The pack of filter f for this Run's kernels (row_kernel and row_pairs depend only on the
  // node's attrs and isa, so one cached pack per isa serves every Run).
  std::shared_ptr<const FilterPack> Pack(const int8_t* f, QGemmIsa isa,
                                         const Int8TapRowShape& shape, bool row_kernel,
                                         bool row_pairs) {
    if (constant_filter_) {
      std::lock_guard<std::mutex> lock(pack_mu_);
      if (pack_ != nullptr && pack_filter_ == f && pack_isa_ == isa) return pack_;
    }
    const int64_t taps = shape.window_rows * shape.window_cols, channels = shape.channels;
    auto pack = std::make_shared<FilterPack>();
    pack->sums.assign(static_cast<size_t>(channels), 0);
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t c = 0; c < channels; ++c) pack->sums[c] += f[t * channels + c];
    }
    if (row_kernel) pack->quads = PackInt8TapQuads(shape, f);
    if (row_pairs) pack->quads_below = PackInt8TapQuads(shape, f, 1);
    if (!row_kernel) pack->weights.emplace(isa, f, taps, channels);
    if (constant_filter_) {
      std::lock_guard<std::mutex> lock(pack_mu_);
      pack_ = pack;
      pack_filter_ = f;
      pack_isa_ = isa;
    }
    return pack;
  }

  static void ParallelFor(const Device* device, int64_t total, int64_t cost,
                          const std::function<void(int64_t, int64_t)>& fn) {
    if (device == nullptr) {
      fn(0, total);
    } else {
      device->ParallelFor(total, cost, fn);
    }
  }

  bool per_channel_ = true;
  bool constant_filter_ = false;
  std::mutex pack_mu_;
  std::shared_ptr<const FilterPack> pack_;  // guarded by pack_mu_, with the two below
  const int8_t* pack_filter_ = nullptr;
  QGemmIsa pack_isa_ = QGemmIsa::kBaseline;
};

}  // namespace

void RegisterInt8Kernels(KernelRegistry* r) {
  r->Register(KernelDefBuilder("_GraphrtQuantizedMatMul").Device(kDeviceCpu),
              MakeFactory<QuantizedMatMulOp>());
  r->Register(KernelDefBuilder("_GraphrtQuantizedConv2D").Device(kDeviceCpu),
              MakeFactory<QuantizedConv2DOp>());
  r->Register(KernelDefBuilder("_GraphrtQuantizedDepthwiseConv2D").Device(kDeviceCpu),
              MakeFactory<QuantizedDepthwiseConv2DOp>());
}

}  // namespace graphrt
