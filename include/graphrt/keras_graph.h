// What the Keras loader builds from a Keras HDF5 file: the graph, its inputs and outputs (named
// after the model's input and output layers), the layers and, for export, the weights; and the
// limits the HDF5 reader checks before reading. Loading into a Session: graphrt/keras.h.
#ifndef GRAPHRT_KERAS_GRAPH_H_
#define GRAPHRT_KERAS_GRAPH_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <graphrt/tensor.h>
#include <graphrt/types.h>

#include "graph.pb.h"

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

// Limits checked before HDF5 is asked to read anything, so that a crafted file cannot make the
// reader allocate more than its budget. Real Keras files sit far inside every default.
struct KerasH5ReadOptions {
  // Total float32 bytes of all weights (the memory the weights take once read).
  int64_t max_weight_bytes = int64_t{4} << 30;
  // The uncompressed size of the weights against the file: each chunked, filtered dataset may
  // decode to at most this many times its stored bytes, and all weights together to at most this
  // many times the file's size. h5py's gzip reaches ~10:1 on real weights; deflate cannot pass
  // ~1032:1, so a 100:1 claim is either all zeros or a decompression bomb.
  int64_t max_compression_ratio = 100;
  // One chunk of a chunked dataset, before and after decompression (h5py's automatic chunks are
  // at most 1 MiB).
  int64_t max_chunk_bytes = int64_t{64} << 20;
  // One attribute's strings together (model_config is the largest: a few MB for big models).
  int64_t max_attribute_bytes = int64_t{64} << 20;

  // ReadKerasH5FileIsolated only: the child is killed after this long (a crafted file can make
  // HDF5 loop forever)...
  double timeout_seconds = 120;
  // ... and may map this much address space above max_weight_bytes and what the process had
  // mapped at fork (HDF5's caches and its metadata); 0 leaves the address space unlimited.
  int64_t child_address_space_slack_bytes = int64_t{1} << 30;
};

}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_KERAS_GRAPH_H_
