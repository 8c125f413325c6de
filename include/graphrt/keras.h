// Keras HDF5 models in a Session: LoadKerasModel reads a `.h5` file (a full model, or a
// weights-only file with its architecture as JSON), builds the graph (formats/keras) and creates
// a Session on it. Inputs are fed by the model's input layer names ("input_1:0"), outputs
// fetched by the output layer names ("dense_2:0").
#ifndef GRAPHRT_KERAS_H_
#define GRAPHRT_KERAS_H_

#include <memory>
#include <string>

#include <graphrt/config.h>
#include <graphrt/export.h>
#include <graphrt/keras_graph.h>
#include <graphrt/session.h>
#include <graphrt/status.h>

namespace graphrt {

struct GRAPHRT_EXPORT KerasModelOptions {
  SessionOptions session;
  // The architecture (model.to_json()) for a weights-only file from save_weights; also
  // overrides the model_config of a full model.
  std::string config_path;
  keras::KerasGraphOptions graph;
  // The HDF5 library (Debian's libhdf5 1.10) has memory-safety bugs that a crafted .h5 reaches
  // (heap overflows and SIGSEGV in H5Aread of variable-length strings, H5Aexists and dataset
  // reads; endless loops in H5HG__protect), and graphrt cannot fix them. Every read first checks
  // what it can (sizes, types, chunks and filters against `h5`'s limits), but only isolation
  // stops a crash inside the library. false: the file is read in this process, so a crafted one
  // can crash or hang it; right for files you trust. true: the file is read in a forked child
  // (keras::ReadKerasH5FileIsolated), so a crash, hang or runaway allocation in libhdf5 becomes
  // a DATA_LOSS Status naming the file; costs one fork per load. The graphrt command always
  // sets it.
  bool read_hdf5_in_subprocess = false;
  keras::KerasH5ReadOptions h5;
};

struct KerasModel {
  std::unique_ptr<Session> session;
  keras::KerasGraph graph;  // inputs, outputs, layers
  std::string keras_version;
  std::string backend;
};

GRAPHRT_EXPORT StatusOr<KerasModel> LoadKerasModel(
    const std::string& path, const KerasModelOptions& options = KerasModelOptions());

// Zeroes the states of stateful recurrent layers, as Keras's model.reset_states(). LoadKerasModel
// does it once; each Run then carries the states on to the next.
GRAPHRT_EXPORT Status ResetKerasStates(KerasModel* model);

// Writes a TF1-style SavedModel (tag "serve", signature "serving_default" from the model's
// inputs and outputs, weights as variables restored by a Saver from variables/variables) to
// `export_dir`, which must not exist. Written to a temporary folder and renamed at the end.
GRAPHRT_EXPORT Status ExportKerasSavedModel(const std::string& path,
                                            const KerasModelOptions& options,
                                            const std::string& export_dir);

}  // namespace graphrt

#endif  // GRAPHRT_KERAS_H_
