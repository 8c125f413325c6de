// OpenCL elementwise kernels: the unary activations and math, binary math with numpy
// broadcasting, and BiasAdd (a broadcast Add). float32 only.
#include <map>

#include "runtime/kernels/common/broadcast.h"
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {

namespace {

const std::map<std::string, std::string>& UnaryKernels() {
  static const auto* kernels = new std::map<std::string, std::string>{
      {"Relu", "unary_relu"},
      {"Relu6", "unary_relu6"},
      {"Elu", "unary_elu"},
      {"Selu", "unary_selu"},
      {"Sigmoid", "unary_sigmoid"},
      {"Tanh", "unary_tanh"},
      {"Softplus", "unary_softplus"},
      {"Softsign", "unary_softsign"},
      {"Neg", "unary_neg"},
      {"Abs", "unary_abs"},
      {"Exp", "unary_exp"},
      {"Log", "unary_log"},
      {"Log1p", "unary_log1p"},
      {"Expm1", "unary_expm1"},
      {"Sqrt", "unary_sqrt"},
      {"Rsqrt", "unary_rsqrt"},
      {"Square", "unary_square"},
      {"Reciprocal", "unary_reciprocal"},
      {"Inv", "unary_reciprocal"},
      {"Floor", "unary_floor"},
      {"Ceil", "unary_ceil"},
      {"Round", "unary_round"},
      {"Rint", "unary_round"},
      {"Sign", "unary_sign"},
      {"Sin", "unary_sin"},
      {"Cos", "unary_cos"},
      {"LeakyRelu", "unary_leaky_relu"},
  };
  return *kernels;
}

const std::map<std::string, std::string>& BinaryKernels() {
  static const auto* kernels = new std::map<std::string, std::string>{
      {"Add", "binary_add"},         {"AddV2", "binary_add"},
      {"BiasAdd", "binary_add"},     {"BiasAddV1", "binary_add"},
      {"Sub", "binary_sub"},         {"Mul", "binary_mul"},
      {"RealDiv", "binary_div"},     {"Div", "binary_div"},
      {"Maximum", "binary_maximum"}, {"Minimum", "binary_minimum"},
      {"Pow", "binary_pow"},         {"SquaredDifference", "binary_squared_difference"},
  };
  return *kernels;
}

class ClUnaryOp : public OpenClOpKernel {
 public:
  explicit ClUnaryOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    if (type_string() == "LeakyRelu") {
      GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "alpha", &alpha_));
    }
    GRT_CONSTRUCT_OK(ctx,
                     kernel_.Load(cl(), ElementwiseProgram(), UnaryKernels().at(type_string())));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& in = ctx->input(0);
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, in.shape(), &out));
    cl_int n = static_cast<cl_int>(in.NumElements());
    if (type_string() == "LeakyRelu") return Launch(kernel_, n, Mem(in), Mem(out), n, alpha_);
    return Launch(kernel_, n, Mem(in), Mem(out), n);
  }

 private:
  ClKernel kernel_;
  float alpha_ = 0.2f;
};

class ClBinaryOp : public OpenClOpKernel {
 public:
  explicit ClBinaryOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    is_bias_add_ = type_string() == "BiasAdd" || type_string() == "BiasAddV1";
    if (type_string() == "BiasAdd") {
      std::string format = "NHWC";
      GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "data_format", &format));
      if (format != "NHWC" && format != "NCHW") {
        ctx->SetStatus(InvalidArgument("Invalid data format: ", format));
        return;
      }
      nchw_ = format == "NCHW";
    }
    GRT_CONSTRUCT_OK(ctx,
                     kernel_.Load(cl(), ElementwiseProgram(), BinaryKernels().at(type_string())));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 1));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TensorShape b_shape = b.shape();
    if (is_bias_add_) GRT_RETURN_IF_ERROR(BiasShape(a.shape(), b.shape(), &b_shape));
    // The CPU kernels' broadcasting, collapsed to as few dims as the operands allow.
    GRT_ASSIGN_OR_RETURN(BroadcastPlan plan, BroadcastPlan::Make({a.shape(), b_shape}));
    const std::vector<int64_t>& dims = plan.dims();
    if (static_cast<int>(dims.size()) > kMaxOpenClRank) {
      return Unimplemented("OpenCL broadcasting of ", a.shape().DebugString(), " and ",
                           b.shape().DebugString(), " needs more than ", kMaxOpenClRank, " dims");
    }
    std::vector<int64_t> a_strides, b_strides;
    for (size_t d = 0; d < dims.size(); ++d) {
      a_strides.push_back(plan.stride(static_cast<int>(d), 0));
      b_strides.push_back(plan.stride(static_cast<int>(d), 1));
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, plan.output_shape(), &out));
    cl_int n = static_cast<cl_int>(out.NumElements());
    return Launch(kernel_, n, Mem(a), Mem(b), Mem(out), n, static_cast<cl_int>(dims.size()),
                  IntVector(dims), IntVector(a_strides), IntVector(b_strides));
  }

 private:
  // The bias seen as a broadcastable operand: [C] for NHWC, [C, 1, ...] for NCHW.
  Status BiasShape(const TensorShape& value, const TensorShape& bias, TensorShape* out) const {
    if (value.dims() < 2) {
      return InvalidArgument("Input tensor must be at least 2D: ", value.DebugString());
    }
    if (bias.dims() != 1) {
      return InvalidArgument("Biases must be 1D: ", bias.DebugString());
    }
    int channel_dim = nchw_ ? 1 : value.dims() - 1;
    if (bias.dim_size(0) != value.dim_size(channel_dim)) {
      return InvalidArgument(
          "Must provide as many biases as the last dimension of the input "
          "tensor: ",
          bias.DebugString(), " vs. ", value.DebugString());
    }
    std::vector<int64_t> dims = {bias.dim_size(0)};
    if (nchw_) dims.resize(static_cast<size_t>(value.dims() - 1), 1);
    *out = TensorShape(dims);
    return Status::OK();
  }

  ClKernel kernel_;
  bool is_bias_add_ = false;
  bool nchw_ = false;
};

}  // namespace

void RegisterOpenClCwiseKernels(KernelRegistry* r) {
  for (const auto& [op, kernel] : UnaryKernels()) {
    r->Register(KernelDefBuilder(op).Device(kDeviceGpu).TypeConstraint<float>("T"),
                MakeFactory<ClUnaryOp>());
  }
  for (const auto& [op, kernel] : BinaryKernels()) {
    r->Register(KernelDefBuilder(op).Device(kDeviceGpu).TypeConstraint<float>("T"),
                MakeFactory<ClBinaryOp>());
  }
}

}  // namespace graphrt
