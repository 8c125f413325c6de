// If / While / Case / PartitionedCall: run bodies from the function library through the
// session's FunctionRuntime, on the calling thread.
#include "runtime/core/clock.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

std::vector<Tensor> Inputs(OpKernelContext* ctx, int first) {
  std::vector<Tensor> args;
  for (int i = first; i < ctx->num_inputs(); ++i) args.push_back(ctx->input(i));
  return args;
}

Status SetOutputs(OpKernelContext* ctx, const std::vector<Tensor>& results,
                  const std::string& what) {
  if (static_cast<int>(results.size()) != ctx->num_outputs()) {
    return InvalidArgument(what, " returned ", results.size(), " values; the node has ",
                           ctx->num_outputs(), " outputs");
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].dtype() != ctx->output_type(static_cast<int>(i))) {
      return InvalidArgument(what, " returned ", DataTypeString(results[i].dtype()), " for output ",
                             i, ", declared ",
                             DataTypeString(ctx->output_type(static_cast<int>(i))));
    }
    ctx->set_output(static_cast<int>(i), results[i]);
  }
  return Status::OK();
}

// TensorFlow's truth of a predicate: a scalar's value (non-zero for numbers), or, for a
// non-scalar, whether it has any elements.
StatusOr<bool> ToBool(const Tensor& t) {
  if (t.dims() > 0) return t.NumElements() > 0;
  if (t.dtype() == ::tensorflow::DT_BOOL) return t.scalar<bool>();
  if (t.dtype() == ::tensorflow::DT_STRING) return !t.scalar<std::string>().empty();
  bool value = false;
  Status s = VisitNumericType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    value = static_cast<float>(t.scalar<T>()) != 0.0f;
  });
  if (!s.ok())
    return InvalidArgument("cannot use a ", DataTypeString(t.dtype()), " as a condition");
  return value;
}

Status NeedFunctions(OpKernelContext* ctx) {
  if (ctx->functions() == nullptr) {
    return FailedPrecondition("node ", ctx->node_name(),
                              " calls a function but no function library is available");
  }
  return Status::OK();
}

class IfOp : public OpKernel {
 public:
  explicit IfOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("then_branch", &then_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("else_branch", &else_));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(NeedFunctions(ctx));
    GRT_ASSIGN_OR_RETURN(bool cond, ToBool(ctx->input(0)));
    const auto& branch = cond ? then_ : else_;
    std::vector<Tensor> results;
    GRT_RETURN_IF_ERROR(ctx->functions()->Call(branch, Inputs(ctx, 1), &results, ctx));
    return SetOutputs(ctx, results, StrCat("branch ", branch.name()));
  }

 private:
  ::tensorflow::NameAttrList then_, else_;
};

class CaseOp : public OpKernel {
 public:
  explicit CaseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const ::tensorflow::AttrValue* branches = FindAttr(ctx->def(), "branches");
    if (branches == nullptr) {
      ctx->SetStatus(InvalidArgument("Case node ", ctx->def().name(), " has no branches"));
      return;
    }
    branches_.assign(branches->list().func().begin(), branches->list().func().end());
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(NeedFunctions(ctx));
    const Tensor& index = ctx->input(0);
    if (index.dims() != 0) return InvalidArgument("branch_index must be a scalar");
    int32_t b = index.scalar<int32_t>();
    // Out-of-range indices take the last branch, as TensorFlow's Case does.
    if (b < 0 || b >= static_cast<int32_t>(branches_.size()))
      b = static_cast<int32_t>(branches_.size()) - 1;
    std::vector<Tensor> results;
    GRT_RETURN_IF_ERROR(ctx->functions()->Call(branches_[b], Inputs(ctx, 1), &results, ctx));
    return SetOutputs(ctx, results, StrCat("branch ", branches_[b].name()));
  }

 private:
  std::vector<::tensorflow::NameAttrList> branches_;
};

class WhileOp : public OpKernel {
 public:
  explicit WhileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("cond", &cond_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("body", &body_));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(NeedFunctions(ctx));
    std::vector<Tensor> vars = Inputs(ctx, 0);
    int64_t deadline = ctx->step() != nullptr ? ctx->step()->deadline_micros : 0;
    for (int64_t iteration = 0;; ++iteration) {
      if (deadline > 0 && NowMicros() > deadline) {
        return DeadlineExceeded("Timed out: While node ", name(), " was still looping after ",
                                iteration, " iterations when the run's deadline passed");
      }
      std::vector<Tensor> cond;
      GRT_RETURN_IF_ERROR(ctx->functions()->Call(cond_, vars, &cond, ctx));
      if (cond.empty()) return InvalidArgument("While cond ", cond_.name(), " returned nothing");
      GRT_ASSIGN_OR_RETURN(bool go, ToBool(cond[0]));
      if (!go) break;
      std::vector<Tensor> next;
      GRT_RETURN_IF_ERROR(ctx->functions()->Call(body_, vars, &next, ctx));
      if (next.size() != vars.size()) {
        return InvalidArgument("While body ", body_.name(), " returned ", next.size(),
                               " values for ", vars.size(), " loop variables");
      }
      vars = std::move(next);
    }
    return SetOutputs(ctx, vars, StrCat("While ", name()));
  }

 private:
  ::tensorflow::NameAttrList cond_, body_;
};

class PartitionedCallOp : public OpKernel {
 public:
  explicit PartitionedCallOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("f", &f_));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(NeedFunctions(ctx));
    std::vector<Tensor> results;
    GRT_RETURN_IF_ERROR(ctx->functions()->Call(f_, Inputs(ctx, 0), &results, ctx));
    return SetOutputs(ctx, results, StrCat("function ", f_.name()));
  }

 private:
  ::tensorflow::NameAttrList f_;
};

}  // namespace

void RegisterFunctionalKernels(KernelRegistry* r) {
  for (const char* op : {"If", "StatelessIf"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<IfOp>());
  }
  for (const char* op : {"While", "StatelessWhile"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<WhileOp>());
  }
  for (const char* op : {"Case", "StatelessCase"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<CaseOp>());
  }
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<PartitionedCallOp>());
  }
}

}  // namespace graphrt
