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
// A weights-only file has layer_names on the root group and no model_config. String attributes
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

struct KerasH5File {
  std::string path;
  std::string keras_version;
  std::string backend;
  std::string model_config;     // JSON; empty for a weights-only file
  std::string training_config;  // JSON; may be empty
  bool has_optimizer_weights = false;
  std::vector<KerasLayerWeights> layers;  // in layer_names order
  // Files under assets/ of a .keras archive (lookup layers' vocabularies), by their path below
  // assets/ ("layers/string_lookup/vocabulary.txt"); empty for an .h5 file.
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
