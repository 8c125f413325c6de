// Emits the NodeDefs of the graph a Keras model becomes: unique node names, Consts, weights (Const
// or VariableV2), and the handful of TensorFlow ops the layers are made of, each with the attrs
// TensorFlow's own graphs carry.
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_NODE_EMITTER_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_NODE_EMITTER_H_

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "formats/keras/keras_graph_builder.h"
#include "graph.pb.h"
#include "node_def.pb.h"
#include "runtime/core/tensor.h"
#include "runtime/core/types.h"

namespace graphrt {
namespace keras {
namespace internal {

constexpr DataType kFloat = ::tensorflow::DT_FLOAT;
constexpr DataType kInt32 = ::tensorflow::DT_INT32;

// Each method adds nodes under a name made unique from the one given, and returns the name of the
// node whose output 0 is the result.
class Emitter {
 public:
  // `variables`: weights become VariableV2 nodes, their values appended to `vars`.
  Emitter(::tensorflow::GraphDef* graph, bool variables, std::vector<KerasVariable>* vars)
      : graph_(graph), variables_(variables), vars_(vars) {}

  std::string Unique(const std::string& base);

  ::tensorflow::NodeDef* Add(const std::string& op, const std::string& name,
                             const std::vector<std::string>& inputs);
  // A node under a name already taken with Unique() (one that others refer to before it exists).
  ::tensorflow::NodeDef* AddReserved(const std::string& op, const std::string& name,
                                     const std::vector<std::string>& inputs);
  // Nodes with no data inputs made while building a loop body carry a control edge from the
  // body, so they live in the loop's frame.
  void set_pivot(const std::string& pivot) { pivot_ = pivot; }

  std::string Const(const std::string& name, const Tensor& value);
  std::string Ints(const std::string& name, const std::vector<int32_t>& v);
  std::string Int(const std::string& name, int32_t v);
  std::string Float(const std::string& name, float v);

  // A weight: a Const, or (for export) a VariableV2 whose value the caller writes to a
  // checkpoint.
  std::string Weight(const std::string& name, const Tensor& value);

  // A variable for recurrent state, whatever the weights are: zeroed by the reset op
  // (KerasGraph::reset_states_op), and in an export a checkpoint entry of zeros.
  std::string StateVariable(const std::string& name, const Tensor& zeros);
  // The Assign nodes that zero the state variables.
  const std::vector<std::string>& resets() const { return resets_; }

  std::string Unary(const std::string& op, const std::string& name, const std::string& x,
                    DataType t = kFloat);
  std::string Binary(const std::string& op, const std::string& name, const std::string& a,
                     const std::string& b, DataType t = kFloat);
  std::string MatMul(const std::string& name, const std::string& a, const std::string& b);
  std::string BiasAdd(const std::string& name, const std::string& x, const std::string& b);
  std::string Reshape(const std::string& name, const std::string& x, const std::string& shape,
                      DataType t = kFloat);
  std::string Transpose(const std::string& name, const std::string& x,
                        const std::vector<int32_t>& perm, DataType t = kFloat);
  std::string ExpandDims(const std::string& name, const std::string& x, int axis);
  std::string Squeeze(const std::string& name, const std::string& x, std::vector<int64_t> dims,
                      DataType t = kFloat);
  std::string Reduce(const std::string& op, const std::string& name, const std::string& x,
                     const std::vector<int32_t>& axes, bool keep_dims);
  std::string Concat(const std::string& name, const std::vector<std::string>& xs, int axis,
                     DataType t = kFloat);
  // Element i of an int32 vector, as a scalar.
  std::string Element(const std::string& name, const std::string& vec, int i);
  std::string ShapeOf(const std::string& name, const std::string& x, DataType t = kFloat);
  std::string Pack(const std::string& name, const std::vector<std::string>& xs, DataType t);
  std::string Identity(const std::string& name, const std::string& x, DataType t = kFloat);

 private:
  ::tensorflow::GraphDef* graph_;
  bool variables_;
  std::vector<KerasVariable>* vars_;
  std::unordered_set<std::string> used_;
  std::vector<std::string> resets_;
  std::string pivot_;
};

}  // namespace internal
}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_NODE_EMITTER_H_
