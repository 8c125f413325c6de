// The variable resource behind both reference variables (VariableV2) and resource variables
// (VarHandleOp): a tensor guarded by a mutex. Updates in place copy first when a reader still
// holds the buffer, so a value once read never changes under its reader.
#ifndef GRAPHRT_RUNTIME_KERNELS_VARIABLE_H_
#define GRAPHRT_RUNTIME_KERNELS_VARIABLE_H_

#include <mutex>
#include <string>

#include "runtime/core/tensor.h"
#include "runtime/kernels/op_kernel.h"
#include "runtime/kernels/resource_mgr.h"

namespace graphrt {

class Var : public ResourceBase {
 public:
  Var(std::string name, DataType dtype) : name_(std::move(name)), dtype_(dtype) {}
  std::string DebugString() const override {
    return StrCat("Var ", name_, " (", DataTypeString(dtype_), ")");
  }

  std::mutex* mu() { return &mu_; }
  // REQUIRES: mu() held.
  Tensor* tensor() { return &tensor_; }
  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }

 private:
  std::mutex mu_;
  Tensor tensor_;  // uninitialized until assigned
  std::string name_;
  DataType dtype_;
};

// The container a variable op names (default "localhost") and its shared name (default: the
// node's name), as TensorFlow's ContainerInfo resolves them.
void VariableName(const OpKernelConstruction* ctx, std::string* container, std::string* name);

// The variable a DT_RESOURCE handle input names; NOT_FOUND when none was created yet.
StatusOr<std::shared_ptr<Var>> LookupVar(OpKernelContext* ctx, int input);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_VARIABLE_H_
