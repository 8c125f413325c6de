// OpenCL kernels that move values: host/device copies, Const, Cast and Assign (a copy into a
// variable pinned to the GPU, whose value stays in device memory).
//
// Identity, NoOp, Placeholder, Reshape, Squeeze, ExpandDims, VariableV2, VarHandleOp,
// ReadVariableOp and AssignVariableOp need no device code: the CPU kernels
// (const_plumbing_ops.cc, shape_ops.cc, variable_ops.cc) are registered for GPU devices too.
#include <cstdint>
#include <cstdio>

#include "runtime/core/str_util.h"
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {

namespace {

using ::tensorflow::DT_FLOAT;

std::vector<DataType> NumericTypes() {
  std::vector<DataType> types = RealNumberTypes();
  types.push_back(::tensorflow::DT_BOOL);
  return types;
}

std::vector<DataType> NonFloatNumericTypes() {
  std::vector<DataType> types;
  for (DataType t : NumericTypes()) {
    if (t != DT_FLOAT) types.push_back(t);
  }
  return types;
}

// Copies a tensor into new memory of the same kind (device or host).
StatusOr<Tensor> CopyTensor(const Tensor& value) {
  if (!value.in_device_memory()) return value.DeepCopy();
  GRT_ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> copy,
                       value.device_buffer()->CopyRange(value.device_offset(), value.TotalBytes()));
  return Tensor::InDeviceMemory(value.dtype(), value.shape(), std::move(copy));
}

// The copies a plan inserts (runtime/exec/device_copies.h). Their errors name the nodes that
// read the copy, which the user knows, not only the copy node.
class CopyOp : public OpenClOpKernel {
 public:
  explicit CopyOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    to_device_ = type_string() == "_CopyHostToDevice";
    std::vector<std::string> readers;
    GetNodeAttrOr(ctx->def(), "_readers", &readers).IgnoreError();
    what_ = StrCat("copying a tensor ", to_device_ ? "to " : "from ", device()->name(),
                   readers.empty() ? "" : StrCat(" for node ", StrJoin(readers, ", node ")));
  }
  Status Compute(OpKernelContext* ctx) override {
    StatusOr<Tensor> out = to_device_ ? device()->CopyHostToDevice(ctx->input(0))
                                      : device()->CopyDeviceToHost(ctx->input(0));
    if (!out.ok()) return Status(out.status()).Prepend(what_);
    ctx->set_output(0, std::move(out).value());
    return Status::OK();
  }

 private:
  bool to_device_ = true;
  std::string what_;
};

// Two FNV-1a-style hashes (different offsets and multipliers) of a constant's bytes, as hex: with
// the node's name and shape, the key under which the device shares the uploaded value between
// plans.
std::string ConstantKey(const std::string& node, const Tensor& value) {
  uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  const unsigned char* bytes = static_cast<const unsigned char*>(value.raw_data());
  for (size_t i = 0; i < value.TotalBytes(); ++i) {
    a = (a ^ bytes[i]) * 0x100000001b3ULL;
    b = (b ^ bytes[i]) * 0x9e3779b97f4a7c15ULL;
  }
  char hex[34];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return StrCat(node, " ", DataTypeString(value.dtype()), value.shape().DebugString(), " ", hex);
}

// float constants are uploaded when the session's first plan holding them is built; later
// plans share the device copy (OpenClDevice::UploadConstant).
class ConstOp : public OpenClOpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    Tensor value;
    if (ctx->const_value() != nullptr) {
      value = *ctx->const_value();
    } else {
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("value", &value));
    }
    DataType dtype;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("dtype", &dtype));
    if (value.dtype() != dtype) {
      ctx->SetStatus(InvalidArgument("Const node ", ctx->def().name(), " has dtype ",
                                     DataTypeString(dtype), " but its value is ",
                                     DataTypeString(value.dtype())));
      return;
    }
    if (IsDeviceMemoryType(kDeviceGpu, dtype)) {
      StatusOr<Tensor> uploaded =
          device()->UploadConstant(ConstantKey(ctx->def().name(), value), value);
      GRT_CONSTRUCT_OK(ctx, uploaded.status());
      value = std::move(uploaded).value();
    }
    value_ = std::move(value);
  }
  Status Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, value_);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

// Cast to or from float: the other side lives in host memory, so the conversion happens on
// the host next to the copy (TensorFlow rounds and truncates the same way static_cast does).
class CastOp : public OpenClOpKernel {
 public:
  using OpenClOpKernel::OpenClOpKernel;
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DataType dst = output_type(0);
    if (in.dtype() == dst) {
      ctx->set_output(0, in);
      return Status::OK();
    }
    Tensor host = in;
    if (in.in_device_memory()) {
      GRT_ASSIGN_OR_RETURN(host, device()->CopyDeviceToHost(in));
    }
    GRT_ASSIGN_OR_RETURN(Tensor converted, Tensor::Allocate(dst, in.shape()));
    GRT_RETURN_IF_ERROR(Convert(host, &converted));
    if (IsDeviceMemoryType(kDeviceGpu, dst)) {
      GRT_ASSIGN_OR_RETURN(converted, device()->CopyHostToDevice(converted));
    }
    ctx->set_output(0, std::move(converted));
    return Status::OK();
  }

 private:
  static Status Convert(const Tensor& in, Tensor* out) {
    const int64_t n = in.NumElements();
    if (in.dtype() == DT_FLOAT) {
      const float* src = in.data<float>();
      return VisitNumericType(out->dtype(), [&](auto tag) {
        using D = typename decltype(tag)::type;
        D* dst = out->data<D>();
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<D>(src[i]);
      });
    }
    float* dst = out->data<float>();
    return VisitNumericType(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      const S* src = in.data<S>();
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
    });
  }
};

class AssignOp : public OpenClOpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }
  Status Compute(OpKernelContext* ctx) override {
    if (!ctx->input_is_ref(0)) return InvalidArgument("Assign needs a reference input");
    std::mutex* mu;
    Tensor* ref = ctx->mutable_input_ref(0, &mu);
    const Tensor& value = ctx->input(1);
    GRT_ASSIGN_OR_RETURN(Tensor copy, CopyTensor(value));
    {
      std::lock_guard<std::mutex> lock(*mu);
      if (validate_shape_ && ref->IsInitialized() && ref->shape() != value.shape()) {
        return InvalidArgument("Assign requires shapes of both tensors to match. lhs shape= ",
                               ref->shape().DebugString(),
                               " rhs shape= ", value.shape().DebugString());
      }
      *ref = std::move(copy);
    }
    ctx->forward_input(0, 0);
    return Status::OK();
  }

 private:
  bool validate_shape_ = true;
};

}  // namespace

void RegisterOpenClPlumbingKernels(KernelRegistry* r) {
  const std::vector<DataType> numeric = NumericTypes();
  r->Register(KernelDefBuilder("_CopyHostToDevice").Device(kDeviceGpu).TypeConstraint("T", numeric),
              MakeFactory<CopyOp>());
  r->Register(KernelDefBuilder("_CopyDeviceToHost").Device(kDeviceGpu).TypeConstraint("T", numeric),
              MakeFactory<CopyOp>());
  r->Register(KernelDefBuilder("Const").Device(kDeviceGpu).TypeConstraint("dtype", numeric),
              MakeFactory<ConstOp>());
  r->Register(KernelDefBuilder("Cast")
                  .Device(kDeviceGpu)
                  .TypeConstraint("SrcT", {DT_FLOAT})
                  .TypeConstraint("DstT", numeric),
              MakeFactory<CastOp>());
  r->Register(KernelDefBuilder("Cast")
                  .Device(kDeviceGpu)
                  .TypeConstraint("SrcT", NonFloatNumericTypes())
                  .TypeConstraint("DstT", {DT_FLOAT}),
              MakeFactory<CastOp>());
  r->Register(KernelDefBuilder("Assign").Device(kDeviceGpu).TypeConstraint("T", numeric),
              MakeFactory<AssignOp>());
}

}  // namespace graphrt
