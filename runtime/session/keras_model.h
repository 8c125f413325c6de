// Internal spelling of include/graphrt/keras.h, with the steps LoadKerasModel takes, for the
// graphrt command.
#ifndef GRAPHRT_RUNTIME_SESSION_KERAS_MODEL_H_
#define GRAPHRT_RUNTIME_SESSION_KERAS_MODEL_H_

#include <string>

#include <graphrt/keras.h>

#include "formats/keras/keras_graph_builder.h"
#include "formats/keras/keras_h5_file.h"
#include "runtime/core/status.h"
#include "runtime/session/session.h"
#include "runtime/session/session_options.h"

namespace graphrt {

// Reads the file: a .keras zip archive (keras::ReadKerasArchive, told by its content) or an .h5
// (keras::ReadKerasH5File or, with options.read_hdf5_in_subprocess,
// keras::ReadKerasH5FileIsolated) as the options say.
StatusOr<keras::KerasH5File> ReadKerasFile(const std::string& path,
                                           const KerasModelOptions& options);

// Reads the file and its architecture and builds the graph; no Session.
StatusOr<keras::KerasGraph> BuildKerasModelGraph(const std::string& path,
                                                 const KerasModelOptions& options,
                                                 keras::KerasH5File* file = nullptr);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_SESSION_KERAS_MODEL_H_
