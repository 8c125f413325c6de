// Shape functions: what an op's output shapes are, given its input shapes, the values of
// constant inputs and its attrs. Shapes may be partly unknown.
#ifndef GRAPHRT_RUNTIME_OPS_SHAPE_INFERENCE_H_
#define GRAPHRT_RUNTIME_OPS_SHAPE_INFERENCE_H_

#include <functional>
#include <vector>

#include "node_def.pb.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/tensor_shape.h"

namespace graphrt {

class InferenceContext {
 public:
  // `input_tensors[i]` is the value of input i when it is known (a Const), else null.
  InferenceContext(const ::tensorflow::NodeDef& node, std::vector<PartialTensorShape> inputs,
                   std::vector<const Tensor*> input_tensors, int num_outputs);

  const ::tensorflow::NodeDef& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const PartialTensorShape& input(int i) const { return inputs_[i]; }
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, PartialTensorShape shape) { outputs_[i] = std::move(shape); }
  const PartialTensorShape& output(int i) const { return outputs_[i]; }

 private:
  const ::tensorflow::NodeDef& node_;
  std::vector<PartialTensorShape> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialTensorShape> outputs_;
};

using ShapeFn = std::function<Status(InferenceContext*)>;

// Common shape functions.
Status UnchangedShape(InferenceContext* c);        // output 0 = input 0
Status ScalarShape(InferenceContext* c);           // output 0 = []
Status BroadcastBinaryShape(InferenceContext* c);  // numpy broadcasting of inputs 0 and 1
Status UnknownShape(InferenceContext* c);          // every output unknown

// Numpy-style broadcast of two concrete shapes; INVALID_ARGUMENT when incompatible.
StatusOr<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_OPS_SHAPE_INFERENCE_H_
