// The kernel interface. A kernel is built once per node of a plan (OpKernelConstruction reads
// its attrs) and computes many times (OpKernelContext gives inputs, outputs, device, resources).
// Kernels return a Status; an error names the node (the executor adds it).
#ifndef GRAPHRT_RUNTIME_KERNELS_OP_KERNEL_H_
#define GRAPHRT_RUNTIME_KERNELS_OP_KERNEL_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "function.pb.h"
#include "node_def.pb.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/devices/device.h"

namespace graphrt {

class ResourceMgr;
class OpKernelContext;

// A value travelling along an edge. Reference edges (the output of VariableV2, for instance)
// carry a pointer to the variable's tensor and the mutex that guards it instead of a value.
struct Entry {
  Tensor tensor;
  Tensor* ref = nullptr;
  std::mutex* ref_mu = nullptr;
  std::shared_ptr<void> ref_owner;        // keeps *ref alive while the entry exists
  const std::string* ref_name = nullptr;  // the variable's name, for errors
  bool has_value = false;                 // false: a dead tensor (an untaken branch)

  // The value, reading through a reference under its lock.
  Tensor Value() const;
};

// The arguments and results of one executor run: feeds and fetches of a Session::Run, or the
// arguments and results of a function call. Read by the _Arg and _Retval kernels.
class CallFrame {
 public:
  CallFrame(std::vector<Tensor> args, size_t num_retvals)
      : args_(std::move(args)), retvals_(num_retvals), retval_set_(num_retvals, 0) {}
  size_t num_args() const { return args_.size(); }
  size_t num_retvals() const { return retvals_.size(); }
  Status GetArg(int index, Tensor* value) const;
  Status SetRetval(int index, const Tensor& value);
  bool retval_set(int index) const { return retval_set_[index] != 0; }
  std::vector<Tensor>& retvals() { return retvals_; }

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
  // One byte per result, not std::vector<bool>: _Retval kernels on different threads set
  // different results at once, and vector<bool>'s bits share words (lost updates).
  std::vector<uint8_t> retval_set_;
};

// Runs functions of the graph's library (for PartitionedCall, If, While, ...).
class FunctionRuntime {
 public:
  virtual ~FunctionRuntime() = default;
  virtual Status Call(const ::tensorflow::NameAttrList& function, const std::vector<Tensor>& args,
                      std::vector<Tensor>* results, OpKernelContext* caller) = 0;
};

class OpKernelConstruction {
 public:
  OpKernelConstruction(const ::tensorflow::NodeDef& def, Device* device,
                       std::vector<DataType> input_types, std::vector<DataType> output_types,
                       FunctionRuntime* functions, std::vector<bool> constant_inputs = {},
                       const Tensor* const_value = nullptr)
      : def_(def),
        device_(device),
        input_types_(std::move(input_types)),
        output_types_(std::move(output_types)),
        functions_(functions),
        constant_inputs_(std::move(constant_inputs)),
        const_value_(const_value) {}

  const ::tensorflow::NodeDef& def() const { return def_; }
  Device* device() const { return device_; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  FunctionRuntime* functions() const { return functions_; }
  // Whether input i is a Const node's value (directly or through Identity nodes): the same
  // tensor, same buffer and contents, on every Run. Kernels may keep work derived from it, such
  // as packed weights.
  bool input_is_constant(int i) const {
    return i >= 0 && i < static_cast<int>(constant_inputs_.size()) && constant_inputs_[i];
  }

  // A Const node's value held beside its NodeDef (Node::const_value), or null: then it is in
  // the "value" attr. Sharing it, not copying it, keeps one buffer per weight.
  const Tensor* const_value() const { return const_value_; }

  template <typename T>
  Status GetAttr(const std::string& name, T* value) const {
    return GetNodeAttr(def_, name, value);
  }
  bool HasAttr(const std::string& name) const { return FindAttr(def_, name) != nullptr; }

  // Kernels report constructor errors here (see GRT_CONSTRUCT_OK).
  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  const ::tensorflow::NodeDef& def_;
  Device* device_;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  FunctionRuntime* functions_;
  std::vector<bool> constant_inputs_;
  const Tensor* const_value_;
  Status status_;
};

// In a kernel constructor: stop and record the error when `expr` fails.
#define GRT_CONSTRUCT_OK(ctx, expr) \
  do {                              \
    ::graphrt::Status s_ = (expr);  \
    if (!s_.ok()) {                 \
      (ctx)->SetStatus(s_);         \
      return;                       \
    }                               \
  } while (0)

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual Status Compute(OpKernelContext* ctx) = 0;
  // Cheap kernels run inline on the executor's thread instead of being handed to a pool.
  virtual bool IsExpensive() const { return true; }

  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const ::tensorflow::NodeDef& def() const { return def_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }

 private:
  ::tensorflow::NodeDef def_;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
};

// Per-run state shared by every kernel of one Session::Run.
struct StepState {
  int64_t step_id = 0;
  ResourceMgr* step_resources = nullptr;  // resources that live for this run only
  std::atomic<bool>* cancelled = nullptr;
  // Absolute deadline (runtime/core/clock.h NowMicros); 0 = none. Kernels that loop (While)
  // check it between iterations.
  int64_t deadline_micros = 0;
};

class OpKernelContext {
 public:
  struct Params {
    const OpKernel* kernel = nullptr;
    Device* device = nullptr;
    // The inputs: a vector, or (when `inputs` is null) `num_input_entries` entries from
    // `input_entries` (the executor passes its per-iteration input slots in place).
    std::vector<Entry>* inputs = nullptr;
    Entry* input_entries = nullptr;
    int num_input_entries = 0;
    // When set, the context builds its outputs in this vector's storage (taken over in the
    // constructor; give it back with outputs().swap), sparing an allocation per kernel run.
    std::vector<Entry>* output_storage = nullptr;
    ResourceMgr* resources = nullptr;  // session-wide (variables, tables)
    StepState* step = nullptr;
    FunctionRuntime* functions = nullptr;
    CallFrame* call_frame = nullptr;
    // Frame and iteration of the node being run, for ops that keep per-iteration state.
    const std::string* frame_name = nullptr;
    int64_t frame_id = 0;
    int64_t iteration = 0;
  };
  explicit OpKernelContext(const Params& params);

  const OpKernel& kernel() const { return *params_.kernel; }
  const std::string& node_name() const { return params_.kernel->name(); }
  Device* device() const { return params_.device; }
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const {
    return *params_.device->eigen_cpu_device();
  }
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) const {
    params_.device->ParallelFor(total, cost_per_unit, fn);
  }
  ResourceMgr* resources() const { return params_.resources; }
  StepState* step() const { return params_.step; }
  FunctionRuntime* functions() const { return params_.functions; }
  CallFrame* call_frame() const { return params_.call_frame; }
  int64_t frame_id() const { return params_.frame_id; }
  int64_t iteration() const { return params_.iteration; }

  int num_inputs() const { return num_inputs_; }
  // The value of input i. For a reference input, a snapshot taken when the kernel started.
  const Tensor& input(int i) const { return inputs_[i].tensor; }
  bool input_is_ref(int i) const { return inputs_[i].ref != nullptr; }
  // False for a dead input; only Merge and ControlTrigger ever run with one.
  bool has_input(int i) const { return inputs_[i].has_value; }
  // Passes input `in` to output `out` unchanged (a reference stays a reference).
  void forward_input(int in, int out) { outputs_[out] = inputs_[in]; }
  // For ops that take a reference input (Assign): the variable's tensor and its mutex.
  // REQUIRES: input_is_ref(i).
  Tensor* mutable_input_ref(int i, std::mutex** mu) const;
  // The input's entry moved out, letting a kernel reuse its buffer when it is the last owner.
  Tensor ReleaseInput(int i);
  // Whether input i's buffer may be written as an output (no one else holds it).
  bool InputIsForwardable(int i) const;

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  DataType output_type(int i) const { return params_.kernel->output_type(i); }
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Writes into input `input_index`'s buffer when it can be forwarded, else allocates.
  Status forward_input_or_allocate_output(int input_index, int output_index,
                                          const TensorShape& shape, Tensor** out);
  void set_output(int i, Tensor value);
  void set_output_ref(int i, std::mutex* mu, Tensor* ref, std::shared_ptr<void> owner,
                      const std::string* name = nullptr);
  std::vector<Entry>& outputs() { return outputs_; }

 private:
  Params params_;
  Entry* inputs_;
  int num_inputs_;
  std::vector<Entry> outputs_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_OP_KERNEL_H_
