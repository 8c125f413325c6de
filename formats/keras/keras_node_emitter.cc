#include "formats/keras/keras_node_emitter.h"

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

std::string Emitter::Unique(const std::string& base) {
  std::string name = base;
  for (int i = 1; used_.count(name) != 0; ++i) name = StrCat(base, "_", i);
  used_.insert(name);
  return name;
}

NodeDef* Emitter::Add(const std::string& op, const std::string& name,
                      const std::vector<std::string>& inputs) {
  return AddReserved(op, Unique(name), inputs);
}

NodeDef* Emitter::AddReserved(const std::string& op, const std::string& name,
                              const std::vector<std::string>& inputs) {
  NodeDef* n = graph_->add_node();
  n->set_op(op);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

std::string Emitter::Const(const std::string& name, const Tensor& value) {
  NodeDef* n = Add("Const", name, {});
  SetNodeAttr(n, "dtype", value.dtype());
  SetNodeAttr(n, "value", value);
  if (!pivot_.empty()) n->add_input("^" + pivot_);
  return n->name();
}

std::string Emitter::Ints(const std::string& name, const std::vector<int32_t>& v) {
  return Const(name, Tensor::Vector<int32_t>(v));
}

std::string Emitter::Int(const std::string& name, int32_t v) {
  return Const(name, Tensor::Scalar<int32_t>(v));
}

std::string Emitter::Float(const std::string& name, float v) {
  return Const(name, Tensor::Scalar<float>(v));
}

std::string Emitter::Weight(const std::string& name, const Tensor& value) {
  if (!variables_) return Const(name, value);
  NodeDef* var = Add("VariableV2", name, {});
  SetNodeAttr(var, "dtype", value.dtype());
  SetNodeAttr(var, "shape", PartialTensorShape(value.shape().dim_sizes()));
  SetNodeAttr(var, "container", "");
  SetNodeAttr(var, "shared_name", "");
  NodeDef* read = Add("Identity", var->name() + "/read", {var->name()});
  SetNodeAttr(read, "T", value.dtype());
  vars_->push_back(KerasVariable{var->name(), value});
  return read->name();
}

std::string Emitter::StateVariable(const std::string& name, const Tensor& zeros) {
  NodeDef* var = Add("VariableV2", name, {});
  SetNodeAttr(var, "dtype", zeros.dtype());
  SetNodeAttr(var, "shape", PartialTensorShape(zeros.shape().dim_sizes()));
  SetNodeAttr(var, "container", "");
  SetNodeAttr(var, "shared_name", "");
  NodeDef* reset =
      Add("Assign", var->name() + "/reset", {var->name(), Const(var->name() + "/zeros", zeros)});
  SetNodeAttr(reset, "T", zeros.dtype());
  SetNodeAttr(reset, "validate_shape", true);
  SetNodeAttr(reset, "use_locking", true);
  resets_.push_back(reset->name());
  if (variables_) vars_->push_back(KerasVariable{var->name(), zeros});
  return var->name();
}

std::string Emitter::Unary(const std::string& op, const std::string& name, const std::string& x,
                           DataType t) {
  NodeDef* n = Add(op, name, {x});
  SetNodeAttr(n, "T", t);
  return n->name();
}

std::string Emitter::Binary(const std::string& op, const std::string& name, const std::string& a,
                            const std::string& b, DataType t) {
  NodeDef* n = Add(op, name, {a, b});
  SetNodeAttr(n, "T", t);
  return n->name();
}

std::string Emitter::MatMul(const std::string& name, const std::string& a, const std::string& b) {
  NodeDef* n = Add("MatMul", name, {a, b});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "transpose_a", false);
  SetNodeAttr(n, "transpose_b", false);
  return n->name();
}

std::string Emitter::BiasAdd(const std::string& name, const std::string& x, const std::string& b) {
  NodeDef* n = Add("BiasAdd", name, {x, b});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "data_format", "NHWC");
  return n->name();
}

std::string Emitter::Reshape(const std::string& name, const std::string& x,
                             const std::string& shape, DataType t) {
  NodeDef* n = Add("Reshape", name, {x, shape});
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "Tshape", kInt32);
  return n->name();
}

std::string Emitter::Transpose(const std::string& name, const std::string& x,
                               const std::vector<int32_t>& perm, DataType t) {
  NodeDef* n = Add("Transpose", name, {x, Ints(name + "/perm", perm)});
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "Tperm", kInt32);
  return n->name();
}

std::string Emitter::ExpandDims(const std::string& name, const std::string& x, int axis) {
  NodeDef* n = Add("ExpandDims", name, {x, Int(name + "/dim", axis)});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "Tdim", kInt32);
  return n->name();
}

std::string Emitter::Squeeze(const std::string& name, const std::string& x,
                             std::vector<int64_t> dims, DataType t) {
  NodeDef* n = Add("Squeeze", name, {x});
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "squeeze_dims", dims);
  return n->name();
}

std::string Emitter::Reduce(const std::string& op, const std::string& name, const std::string& x,
                            const std::vector<int32_t>& axes, bool keep_dims) {
  NodeDef* n = Add(op, name, {x, Ints(name + "/reduction_indices", axes)});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "Tidx", kInt32);
  SetNodeAttr(n, "keep_dims", keep_dims);
  return n->name();
}

std::string Emitter::Concat(const std::string& name, const std::vector<std::string>& xs, int axis,
                            DataType t) {
  std::vector<std::string> inputs = xs;
  inputs.push_back(Int(name + "/axis", axis));
  NodeDef* n = Add("ConcatV2", name, inputs);
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "Tidx", kInt32);
  SetNodeAttr(n, "N", static_cast<int64_t>(xs.size()));
  return n->name();
}

std::string Emitter::Element(const std::string& name, const std::string& vec, int i) {
  NodeDef* n = Add("StridedSlice", name,
                   {vec, Ints(name + "/begin", {i}), Ints(name + "/end", {i + 1}),
                    Ints(name + "/strides", {1})});
  SetNodeAttr(n, "T", kInt32);
  SetNodeAttr(n, "Index", kInt32);
  SetNodeAttr(n, "begin_mask", 0);
  SetNodeAttr(n, "end_mask", 0);
  SetNodeAttr(n, "ellipsis_mask", 0);
  SetNodeAttr(n, "new_axis_mask", 0);
  SetNodeAttr(n, "shrink_axis_mask", 1);
  return n->name();
}

std::string Emitter::ShapeOf(const std::string& name, const std::string& x, DataType t) {
  NodeDef* n = Add("Shape", name, {x});
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "out_type", kInt32);
  return n->name();
}

std::string Emitter::Pack(const std::string& name, const std::vector<std::string>& xs, DataType t) {
  NodeDef* n = Add("Pack", name, xs);
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "N", static_cast<int64_t>(xs.size()));
  SetNodeAttr(n, "axis", 0);
  return n->name();
}

std::string Emitter::Identity(const std::string& name, const std::string& x, DataType t) {
  return Unary("Identity", name, x, t);
}
}  // namespace internal
}  // namespace keras
}  // namespace graphrt
