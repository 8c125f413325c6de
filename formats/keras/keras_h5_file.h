// Reads the HDF5 files Keras 2 writes with `model.save("m.h5")` and `model.save_weights("w.h5")`.
//
// Layout (Keras 2.0 .. tf.keras 2.15, "legacy H5"):
//   /                      attrs keras_version, backend, model_config (JSON), training_config
//   /model_weights         attrs layer_names (string array), keras_version, backend
//   /model_weights/<layer> attr weight_names (string array, the layer's weight order)
//   /model_weights/<layer>/<weight name>  one dataset per weight; the name holds '/' so it is a
//                          path of groups, e.g. "lstm_1/kernel:0" or "bidirectional/forward_lstm/
//                          lstm_cell/kernel:0"
//   /optimizer_weights     (ignored)
// A weights-only file has layer_names on the root group and no model_config.
//
// Layout of Keras 3 (and tf-keras 2.12+ saving_lib) `model.weights.h5` / `.weights.h5`:
//   /layers/<key>/vars/<i>     the layer's own variables, i = 0, 1, ... in creation order
//   /layers/<key>/<attr>/...   variables of sublayers held in attributes: cell/vars/<i> (RNN),
//                              forward_layer/..., backward_layer/... (Bidirectional),
//                              query_dense/... (MultiHeadAttention; "_query_dense" in tf-keras)
//   /layers/<key>/layers/<key>/...  the layers of a nested model
//   /vars, /optimizer/...      the model's own variables (none for Sequential and Functional),
//                              the optimizer's (ignored)
// where <key> is the snake_case class name, numbered per class in the model's layer order
// ("dense", "dense_1", "conv2d"), not the layer's name: only the architecture says which layer
// a group belongs to (MapKeras3Weights, keras3_weights.cc). String attributes
// are fixed-length NULL-padded byte arrays (h5py from numpy 'S' arrays) or variable-length UTF-8
// strings; an attribute too big for the object header is split into name0, name1, ...
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_H5_FILE_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_H5_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <graphrt/keras_graph.h>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {
namespace keras {

struct KerasWeight {
  std::string name;  // as in weight_names: "dense_1/kernel:0"
  Tensor value;      // float32 (HDF5 converts other float widths on read)
};

struct KerasLayerWeights {
  std::string layer;  // the group's name under model_weights (a layer or a nested model)
  std::vector<KerasWeight> weights;
};

enum class KerasWeightsLayout {
  kLegacyH5,  // Keras 2 .h5: entries by layer name, weights by variable name
  // Keras 3 .weights.h5 as read, before the architecture is known: one entry per group under
  // /layers, by its key ("dense_1"); weights by their path below it ("vars/0", "cell/vars/1",
  // "layers/dense/vars/0"), own variables first, then sublayers in Keras's weight order.
  kKeras3Raw,
  // Keras 3 weights renamed after the architecture (MapKeras3Weights): entries by layer name,
  // weights "<layer>/<path>" ("lstm_1/cell/vars/0"; a nested model's "<inner layer>/...").
  kKeras3,
};

struct KerasH5File {
  std::string path;
  KerasWeightsLayout layout = KerasWeightsLayout::kLegacyH5;
  std::string keras_version;
  std::string backend;
  std::string model_config;     // JSON; empty for a weights-only file
  std::string training_config;  // JSON; may be empty
  bool has_optimizer_weights = false;
  std::vector<KerasLayerWeights> layers;  // in layer_names order
  // Files under assets/ of a .keras archive (lookup layers' vocabularies), by their path below
  // assets/ ("layers/string_lookup/vocabulary.txt"); empty for an .h5 file. Keras names the
  // folders after classes ("layers/text_vectorization_1/..."); once BuildKerasGraph has mapped
  // them (MapKeras3Weights), after the layers ("layers/<layer name>/...", a nested model's
  // "layers/<model>/layers/<layer>/..."), which is what the builders see.
  std::map<std::string, std::string> assets;
};

// Reads attributes and every weight in this process. Errors name the file and the attribute,
// group or dataset. The HDF5 library itself has memory-safety bugs a crafted file reaches (see
// ReadKerasH5FileIsolated): use this one on files you trust.
StatusOr<KerasH5File> ReadKerasH5File(const std::string& path,
                                      const KerasH5ReadOptions& options = KerasH5ReadOptions());

// The same read, done by HDF5 in a forked child process that sends the result back through a
// pipe, so that a crash (SIGSEGV in Debian's libhdf5 1.10 on crafted files: H5Aread of
// variable-length strings, H5Aexists, dataset reads), a hang (H5HG__protect) or runaway memory
// in the library cannot take the caller down. The child runs with RLIMIT_AS (what the process
// had mapped + max_weight_bytes + child_address_space_slack_bytes), no core dumps, and is
// killed after timeout_seconds. A crash, a timeout, a non-zero exit or a malformed reply is
// DATA_LOSS naming the file ("<file>: the HDF5 library crashed (signal 11) reading it"); errors
// the reader finds itself come back as ReadKerasH5File gives them. Costs one fork per file.
// Safe to call from a multi-threaded process: the child only reads, writes to the pipe and
// _exits (no locks the parent's threads may hold, no exit handlers).
StatusOr<KerasH5File> ReadKerasH5FileIsolated(
    const std::string& path, const KerasH5ReadOptions& options = KerasH5ReadOptions());

}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_H5_FILE_H_
