// Turns a Keras model_config (JSON) and the weights of a Keras HDF5 file into a GraphDef of
// ordinary TensorFlow ops: inputs are Placeholders named after the model's input layers
// ("input_1"), outputs are Identity (or IdentityN, for a layer with several outputs) nodes named
// after the output layers ("dense_2"), and weights are Const nodes, or VariableV2 nodes when the
// graph is for export.
//
// Layers map to builders through one table (keras_graph_builder.cc, LayerBuilders); a class
// that is not in it makes the whole build fail before anything runs, with every such layer named.
// Recurrent layers (SimpleRNN, LSTM, GRU, and Bidirectional around them) become TensorFlow v1
// while loops over the time axis, so the time length may vary from run to run.
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_GRAPH_BUILDER_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_GRAPH_BUILDER_H_

#include <string>
#include <vector>

#include "formats/keras/keras_h5_file.h"
#include "graph.pb.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/types.h"

namespace graphrt {
namespace keras {

struct KerasGraphOptions {
  // Weights as VariableV2 nodes (their values in KerasGraph::variables, for a checkpoint)
  // instead of Const nodes.
  bool weights_as_variables = false;
};

// One input or output of the model: the layer it is named after and the graph tensor.
struct KerasTensorInfo {
  std::string name;    // "input_1", "dense_2"
  std::string tensor;  // "input_1:0", "lstm_1:2"
  DataType dtype = ::tensorflow::DT_FLOAT;
  std::vector<int64_t> shape;  // with the batch dimension; -1 where unknown
};

struct KerasLayerInfo {
  std::string name;
  std::string class_name;
  std::vector<std::vector<int64_t>> output_shapes;                    // of the layer's first call
  std::vector<std::pair<std::string, std::vector<int64_t>>> weights;  // name, shape
};

struct KerasVariable {
  std::string name;  // the VariableV2 node, "dense_1/kernel"
  Tensor value;
};

struct KerasGraph {
  ::tensorflow::GraphDef graph;
  std::vector<KerasTensorInfo> inputs;
  std::vector<KerasTensorInfo> outputs;
  std::vector<KerasLayerInfo> layers;  // the top-level layers, in config order
  std::string model_class;             // "Sequential", "Functional", "Model"
  std::vector<KerasVariable> variables;
  // Stateful recurrent layers: the NoOp that zeroes their states (run once before the first
  // run, and whenever Keras's reset_states() would be called). Empty when there are none.
  std::string reset_states_op;
};

// Builds the graph for `model_config` (the JSON of a full model file, or of --keras-config) with
// the weights in `file`. Unsupported layers, weights that do not fit the architecture and
// malformed configs are errors naming the layer (and weight).
StatusOr<KerasGraph> BuildKerasGraph(const std::string& model_config, const KerasH5File& file,
                                     const KerasGraphOptions& options = KerasGraphOptions());

}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_GRAPH_BUILDER_H_
