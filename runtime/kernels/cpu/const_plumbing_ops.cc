// Const, Placeholder, the identities, NoOp, and _Arg/_Retval (feeds, fetches, function
// arguments). None of these computes: they hand tensors on without copying.
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->const_value() != nullptr) {
      value_ = *ctx->const_value();
    } else {
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("value", &value_));
    }
    DataType dtype;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("dtype", &dtype));
    if (value_.dtype() != dtype) {
      ctx->SetStatus(InvalidArgument("Const node ", ctx->def().name(), " has dtype ",
                                     DataTypeString(dtype), " but its value is ",
                                     DataTypeString(value_.dtype())));
    }
  }
  Status Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, value_);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "shape", &shape_));
  }
  Status Compute(OpKernelContext* ctx) override {
    std::string shape = shape_.unknown_rank() ? "" : StrCat(" and shape ", shape_.DebugString());
    return InvalidArgument("You must feed a value for placeholder tensor '", name(),
                           "' with dtype ", DataTypeString(dtype_), shape);
  }

 private:
  DataType dtype_;
  PartialTensorShape shape_;
};

// Identity, StopGradient, Snapshot, PreventGradient, PlaceholderWithDefault and the like.
class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs() && i < ctx->num_outputs(); ++i) {
      ctx->set_output(i, ctx->input(i));
    }
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("shape", &shape_));
  }
  Status Compute(OpKernelContext* ctx) override {
    if (!shape_.IsCompatibleWith(ctx->input(0).shape())) {
      return InvalidArgument("Shape of tensor ", name(), " ", ctx->input(0).shape().DebugString(),
                             " is not compatible with expected shape ", shape_.DebugString(), ".");
    }
    ctx->set_output(0, ctx->input(0));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  PartialTensorShape shape_;
};

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("message", &message_));
  }
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const T* data = in.data<T>();
    bool has_nan = false, has_inf = false;
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      float v = static_cast<float>(data[i]);
      has_nan |= std::isnan(v);
      has_inf |= std::isinf(v);
    }
    if (has_nan || has_inf) {
      const char* what = has_nan && has_inf ? "Inf and NaN" : (has_nan ? "NaN" : "Inf");
      return InvalidArgument(message_, " : Tensor had ", what, " values");
    }
    ctx->set_output(0, in);
    return Status::OK();
  }

 private:
  std::string message_;
};

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext*) override { return Status::OK(); }
  bool IsExpensive() const override { return false; }
};

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("index", &index_));
  }
  Status Compute(OpKernelContext* ctx) override {
    if (ctx->call_frame() == nullptr) return Internal("_Arg ", name(), " run without a frame");
    Tensor value;
    GRT_RETURN_IF_ERROR(ctx->call_frame()->GetArg(index_, &value));
    if (value.dtype() != output_type(0)) {
      return InvalidArgument("argument ", index_, " (", name(), ") must be ",
                             DataTypeString(output_type(0)), ", got ",
                             DataTypeString(value.dtype()));
    }
    ctx->set_output(0, std::move(value));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("index", &index_));
  }
  Status Compute(OpKernelContext* ctx) override {
    if (ctx->call_frame() == nullptr) return Internal("_Retval ", name(), " run without a frame");
    return ctx->call_frame()->SetRetval(index_, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

template <typename T>
void RegisterCheckNumerics(KernelRegistry* r) {
  r->Register(KernelDefBuilder("CheckNumerics").Device(kDeviceCpu).TypeConstraint<T>("T"),
              MakeFactory<CheckNumericsOp<T>>());
}

}  // namespace

void RegisterConstPlumbingKernels(KernelRegistry* r) {
  r->Register(KernelDefBuilder("Const").Device(kDeviceCpu).TypeConstraint("dtype", AllTypes()),
              MakeFactory<ConstOp>());
  for (const char* op : {"Placeholder", "PlaceholderV2"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<PlaceholderOp>());
  }
  r->Register(KernelDefBuilder("PlaceholderWithDefault").Device(kDeviceCpu),
              MakeFactory<ForwardOp>());
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient", "IdentityN"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<ForwardOp>());
  }
  r->Register(KernelDefBuilder("EnsureShape").Device(kDeviceCpu), MakeFactory<EnsureShapeOp>());
  RegisterCheckNumerics<float>(r);
  RegisterCheckNumerics<double>(r);
  RegisterCheckNumerics<half>(r);
  RegisterCheckNumerics<bfloat16>(r);
  r->Register(KernelDefBuilder("NoOp").Device(kDeviceCpu), MakeFactory<NoOp>());
  r->Register(KernelDefBuilder("_Arg").Device(kDeviceCpu), MakeFactory<ArgOp>());
  r->Register(KernelDefBuilder("_Retval").Device(kDeviceCpu), MakeFactory<RetvalOp>());
}

}  // namespace graphrt
