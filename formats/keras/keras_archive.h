// Reads a `.keras` archive, the zip file `model.save("m.keras")` writes in Keras 3 and in
// tf-keras 2.12-2.15:
//   metadata.json      {"keras_version": "3.12.0", "date_saved": ...}
//   config.json        the model's architecture (Keras 3 or Keras 2 spelling, keras3_config.h)
//   model.weights.h5   the weights, HDF5 in the Keras 3 layout (keras_h5_file.h)
//   assets/...         files of layers that keep data outside variables (lookup vocabularies)
// into a KerasH5File: model_config from config.json, keras_version from metadata.json, layers
// from model.weights.h5, assets from assets/. The weights are extracted to a temporary file that
// HDF5 reads, in this process or, with `isolated`, in a forked child (ReadKerasH5FileIsolated);
// errors name the archive and the member ("m.keras: member 'model.weights.h5': ...").
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_ARCHIVE_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_ARCHIVE_H_

#include <string>

#include "formats/keras/keras_h5_file.h"
#include "runtime/core/status.h"

namespace graphrt {
namespace keras {

// Members inflate to at most 2 * max_weight_bytes + max_attribute_bytes bytes each (the
// weights file holds up to float64 weights and HDF5's metadata), and deflated ones at most
// max_compression_ratio times their stored size.
StatusOr<KerasH5File> ReadKerasArchive(const std::string& path,
                                       const KerasH5ReadOptions& options = KerasH5ReadOptions(),
                                       bool isolated = false);

}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_ARCHIVE_H_
