// Kernels of the v1 control-flow ops. They only route tensors; which outputs are dead and which
// frame and iteration a value belongs to is the executor's work (runtime/exec/executor.cc).
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

class SwitchOp : public OpKernel {
 public:
  explicit SwitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    if (pred.dims() != 0 || pred.dtype() != ::tensorflow::DT_BOOL) {
      return InvalidArgument("The second input must be a scalar, but it has shape ",
                             pred.shape().DebugString());
    }
    // The output not set stays dead.
    ctx->forward_input(0, pred.scalar<bool>() ? 1 : 0);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      ctx->forward_input(i, 0);
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
      return Status::OK();
    }
    return Internal("Merge ", name(), " ran with no live input");
  }
  bool IsExpensive() const override { return false; }
};

// Enter, Exit, NextIteration, LoopCond and their Ref forms.
class ForwardRefOp : public OpKernel {
 public:
  explicit ForwardRefOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    ctx->forward_input(0, 0);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  explicit ControlTriggerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext*) override { return Status::OK(); }
  bool IsExpensive() const override { return false; }
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry* r) {
  for (const char* op : {"Switch", "RefSwitch"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<SwitchOp>());
  }
  for (const char* op : {"Merge", "RefMerge"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<MergeOp>());
  }
  for (const char* op :
       {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<ForwardRefOp>());
  }
  r->Register(KernelDefBuilder("ControlTrigger").Device(kDeviceCpu),
              MakeFactory<ControlTriggerOp>());
}

}  // namespace graphrt
