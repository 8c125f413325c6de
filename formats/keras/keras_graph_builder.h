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

#include <graphrt/keras_graph.h>

#include "formats/keras/keras_h5_file.h"
#include "graph.pb.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/types.h"

namespace graphrt {
namespace keras {

// Builds the graph for `model_config` (the JSON of a full model file, or of --keras-config) with
// the weights in `file`. Unsupported layers, weights that do not fit the architecture and
// malformed configs are errors naming the layer (and weight).
StatusOr<KerasGraph> BuildKerasGraph(const std::string& model_config, const KerasH5File& file,
                                     const KerasGraphOptions& options = KerasGraphOptions());

}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_GRAPH_BUILDER_H_
