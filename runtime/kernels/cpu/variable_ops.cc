// Variable kernels (reference and resource variables). Variables live in the Session's
// ResourceMgr, so they keep their values across runs.
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/variable.h"

namespace graphrt {

void VariableName(const OpKernelConstruction* ctx, std::string* container, std::string* name) {
  GetNodeAttrOr(ctx->def(), "container", container).IgnoreError();
  GetNodeAttrOr(ctx->def(), "shared_name", name).IgnoreError();
  if (container->empty()) *container = "localhost";
  if (name->empty()) *name = ctx->def().name();
}

StatusOr<std::shared_ptr<Var>> LookupVar(OpKernelContext* ctx, int input) {
  const Tensor& handle = ctx->input(input);
  if (handle.dtype() != ::tensorflow::DT_RESOURCE || handle.NumElements() != 1) {
    return InvalidArgument("expected a resource handle, got ", handle.DebugString());
  }
  const ResourceHandle& h = handle.scalar<ResourceHandle>();
  StatusOr<std::shared_ptr<Var>> var = ctx->resources()->Lookup<Var>(h.container, h.name);
  if (!var.ok()) {
    return FailedPrecondition(
        "Could not find variable ", h.name, ". This could mean that the ",
        "variable has been deleted or was never initialized. (Container: ", h.container, ")");
  }
  return var;
}

namespace {

// Makes *t the sole owner of its buffer before an in-place update.
void EnsureExclusive(Tensor* t) {
  if (!t->BufferIsExclusive()) *t = t->DeepCopy();
}

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    VariableName(ctx, &container_, &name_);
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<Var> var,
                         ctx->resources()->LookupOrCreate<Var>(
                             container_, name_, [this]() -> StatusOr<std::shared_ptr<Var>> {
                               return std::make_shared<Var>(name_, dtype_);
                             }));
    ctx->set_output_ref(0, var->mu(), var->tensor(), var, &var->name());
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_;
  std::string container_, name_;
};

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }
  Status Compute(OpKernelContext* ctx) override {
    if (!ctx->input_is_ref(0)) return InvalidArgument("Assign needs a reference input");
    std::mutex* mu;
    Tensor* ref = ctx->mutable_input_ref(0, &mu);
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*mu);
      if (validate_shape_ && ref->IsInitialized() && ref->shape() != value.shape()) {
        return InvalidArgument("Assign requires shapes of both tensors to match. lhs shape= ",
                               ref->shape().DebugString(),
                               " rhs shape= ", value.shape().DebugString());
      }
      *ref = value.DeepCopy();
    }
    ctx->forward_input(0, 0);
    return Status::OK();
  }

 private:
  bool validate_shape_ = true;
};

template <typename T, bool kAdd>
class AssignUpdateOp : public OpKernel {
 public:
  explicit AssignUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    if (!ctx->input_is_ref(0)) return InvalidArgument(type_string(), " needs a reference input");
    std::mutex* mu;
    Tensor* ref = ctx->mutable_input_ref(0, &mu);
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*mu);
      if (!ref->IsInitialized()) {
        return FailedPrecondition("Attempting to use uninitialized value (input 0 of node ", name(),
                                  ")");
      }
      if (ref->shape() != value.shape()) {
        return InvalidArgument("Must have the same shape: ", ref->shape().DebugString(), " vs ",
                               value.shape().DebugString());
      }
      EnsureExclusive(ref);
      Update(ref, value);
    }
    ctx->forward_input(0, 0);
    return Status::OK();
  }

  static void Update(Tensor* ref, const Tensor& value) {
    T* out = ref->data<T>();
    const T* in = value.data<T>();
    for (int64_t i = 0; i < value.NumElements(); ++i) {
      out[i] = kAdd ? static_cast<T>(out[i] + in[i]) : static_cast<T>(out[i] - in[i]);
    }
  }
};

class IsVariableInitializedOp : public OpKernel {
 public:
  explicit IsVariableInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    bool initialized = false;
    if (ctx->input_is_ref(0)) {
      std::mutex* mu;
      Tensor* ref = ctx->mutable_input_ref(0, &mu);
      std::lock_guard<std::mutex> lock(*mu);
      initialized = ref->IsInitialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
    return Status::OK();
  }
};

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string container, name;
    VariableName(ctx, &container, &name);
    DataType dtype;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("dtype", &dtype));
    handle_ = Tensor(::tensorflow::DT_RESOURCE, TensorShape());
    ResourceHandle& h = handle_.scalar<ResourceHandle>();
    h.container = container;
    h.name = name;
    h.device = ctx->device() != nullptr ? ctx->device()->name() : "";
    h.maybe_type_name = "Var";
    dtype_ = dtype;
  }
  Status Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, handle_);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor handle_;
  DataType dtype_;
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVar(ctx, 0));
    std::lock_guard<std::mutex> lock(*var->mu());
    if (!var->tensor()->IsInitialized()) {
      return FailedPrecondition("Read of uninitialized variable ", var->name());
    }
    if (var->tensor()->dtype() != output_type(0)) {
      return InvalidArgument("Trying to read variable ", var->name(),
                             " with wrong dtype. Expected ", DataTypeString(output_type(0)),
                             " got ", DataTypeString(var->tensor()->dtype()));
    }
    ctx->set_output(0, *var->tensor());
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& handle = ctx->input(0);
    if (handle.dtype() != ::tensorflow::DT_RESOURCE || handle.NumElements() != 1) {
      return InvalidArgument("expected a resource handle");
    }
    const ResourceHandle& h = handle.scalar<ResourceHandle>();
    DataType dtype = dtype_;
    std::string name = h.name;
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<Var> var,
                         ctx->resources()->LookupOrCreate<Var>(
                             h.container, h.name, [&]() -> StatusOr<std::shared_ptr<Var>> {
                               return std::make_shared<Var>(name, dtype);
                             }));
    const Tensor& value = ctx->input(1);
    if (var->dtype() != value.dtype()) {
      return InvalidArgument("Trying to assign variable with wrong dtype. Expected ",
                             DataTypeString(var->dtype()), " got ", DataTypeString(value.dtype()));
    }
    std::lock_guard<std::mutex> lock(*var->mu());
    *var->tensor() = value;
    return Status::OK();
  }

 private:
  DataType dtype_;
};

template <typename T, bool kAdd>
class AssignUpdateVariableOp : public OpKernel {
 public:
  explicit AssignUpdateVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVar(ctx, 0));
    const Tensor& value = ctx->input(1);
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* t = var->tensor();
    if (!t->IsInitialized())
      return FailedPrecondition("Read of uninitialized variable ", var->name());
    if (t->shape() != value.shape()) {
      return InvalidArgument("Cannot update variable with shape ", t->shape().DebugString(),
                             " using a Tensor with shape ", value.shape().DebugString(),
                             ", shapes must be equal.");
    }
    EnsureExclusive(t);
    AssignUpdateOp<T, kAdd>::Update(t, value);
    return Status::OK();
  }
};

class VarIsInitializedOp : public OpKernel {
 public:
  explicit VarIsInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    StatusOr<std::shared_ptr<Var>> var = LookupVar(ctx, 0);
    bool initialized = false;
    if (var.ok()) {
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      initialized = (*var)->tensor()->IsInitialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
    return Status::OK();
  }
};

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }
  Status Compute(OpKernelContext* ctx) override {
    const ResourceHandle& h = ctx->input(0).scalar<ResourceHandle>();
    Status s = ctx->resources()->Delete(h.container, h.name);
    if (!s.ok() && ignore_lookup_error_ && s.code() == Code::kNotFound) return Status::OK();
    return s;
  }

 private:
  bool ignore_lookup_error_ = true;
};

class VariableShapeOp : public OpKernel {
 public:
  explicit VariableShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVar(ctx, 0));
    std::lock_guard<std::mutex> lock(*var->mu());
    const std::vector<int64_t>& dims = var->tensor()->shape().dim_sizes();
    if (output_type(0) == ::tensorflow::DT_INT64) {
      ctx->set_output(0, Tensor::Vector<int64_t>(dims));
    } else {
      ctx->set_output(0, Tensor::Vector<int32_t>(std::vector<int32_t>(dims.begin(), dims.end())));
    }
    return Status::OK();
  }
};

template <typename T>
void RegisterUpdates(KernelRegistry* r) {
  r->Register(KernelDefBuilder("AssignAdd").Device(kDeviceCpu).TypeConstraint<T>("T"),
              MakeFactory<AssignUpdateOp<T, true>>());
  r->Register(KernelDefBuilder("AssignSub").Device(kDeviceCpu).TypeConstraint<T>("T"),
              MakeFactory<AssignUpdateOp<T, false>>());
  r->Register(KernelDefBuilder("AssignAddVariableOp").Device(kDeviceCpu).TypeConstraint<T>("dtype"),
              MakeFactory<AssignUpdateVariableOp<T, true>>());
  r->Register(KernelDefBuilder("AssignSubVariableOp").Device(kDeviceCpu).TypeConstraint<T>("dtype"),
              MakeFactory<AssignUpdateVariableOp<T, false>>());
}

}  // namespace

void RegisterVariableKernels(KernelRegistry* r) {
  for (const char* op : {"VariableV2", "Variable"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<VariableOp>());
  }
  r->Register(KernelDefBuilder("Assign").Device(kDeviceCpu), MakeFactory<AssignOp>());
  RegisterUpdates<float>(r);
  RegisterUpdates<double>(r);
  RegisterUpdates<half>(r);
  RegisterUpdates<bfloat16>(r);
  RegisterUpdates<int8_t>(r);
  RegisterUpdates<int16_t>(r);
  RegisterUpdates<int32_t>(r);
  RegisterUpdates<int64_t>(r);
  RegisterUpdates<uint8_t>(r);
  RegisterUpdates<uint16_t>(r);
  RegisterUpdates<uint32_t>(r);
  RegisterUpdates<uint64_t>(r);
  r->Register(KernelDefBuilder("IsVariableInitialized").Device(kDeviceCpu),
              MakeFactory<IsVariableInitializedOp>());
  r->Register(KernelDefBuilder("VarHandleOp").Device(kDeviceCpu), MakeFactory<VarHandleOp>());
  r->Register(KernelDefBuilder("ReadVariableOp").Device(kDeviceCpu), MakeFactory<ReadVariableOp>());
  r->Register(KernelDefBuilder("AssignVariableOp").Device(kDeviceCpu),
              MakeFactory<AssignVariableOp>());
  r->Register(KernelDefBuilder("VarIsInitializedOp").Device(kDeviceCpu),
              MakeFactory<VarIsInitializedOp>());
  r->Register(KernelDefBuilder("DestroyResourceOp").Device(kDeviceCpu),
              MakeFactory<DestroyResourceOp>());
  r->Register(KernelDefBuilder("VariableShape").Device(kDeviceCpu), MakeFactory<VariableShapeOp>());
}

}  // namespace graphrt
