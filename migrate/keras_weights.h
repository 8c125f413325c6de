// Keras .h5 weights (Keras 2 .h5, Keras 3 .weights.h5 or .keras) into an existing graph's
// variables (`graphrt load-weights`): every weight
// of the file is matched to a variable of a SavedModel's or a .meta graph's by name
// ("dense_1/kernel:0" -> variable "dense_1/kernel"), through a name map where names differ;
// unmatched names on both sides are reported; all shapes are checked before anything is
// written.
#ifndef GRAPHRT_MIGRATE_KERAS_WEIGHTS_H_
#define GRAPHRT_MIGRATE_KERAS_WEIGHTS_H_

#include <map>
#include <string>
#include <vector>

#include "formats/keras/keras_h5_file.h"
#include "runtime/core/status.h"

namespace graphrt {

struct LoadWeightsOptions {
  // Keras weight name (with or without ":0") or prefix ending in '/' -> variable name or
  // prefix. Entries are tried longest first.
  std::map<std::string, std::string> name_map;
  // For a .meta graph: a checkpoint holding the values of variables the .h5 does not cover.
  std::string checkpoint;
  // The architecture (model.to_json(), or a .keras archive's config.json) of a Keras 3
  // .weights.h5, whose weights have no names of their own: graphrt builds the model and names
  // each weight after its variable ("dense_1/kernel"). A .keras archive holds its own.
  std::string keras_config;
  // How the .h5 is read: see KerasModelOptions::read_hdf5_in_subprocess (keras_model.h).
  bool read_hdf5_in_subprocess = false;
  keras::KerasH5ReadOptions h5;
};

struct LoadWeightsReport {
  std::vector<std::pair<std::string, std::string>> assigned;  // Keras weight -> variable
  std::vector<std::string> unmatched_keras;      // weights of the .h5 no variable takes
  std::vector<std::string> unmatched_variables;  // variables no weight fills (kept as they were)
};

// MODEL: a SavedModel folder (OUT becomes a copy of it with new variables) or a .meta graph
// (OUT is a checkpoint prefix). Variables the .h5 does not fill keep their values from the
// SavedModel's variables or from options.checkpoint; without such values they are an error.
Status LoadKerasWeightsIntoGraph(const std::string& model, const std::string& weights_h5,
                                 const std::string& out, const LoadWeightsOptions& options,
                                 LoadWeightsReport* report);

}  // namespace graphrt

#endif  // GRAPHRT_MIGRATE_KERAS_WEIGHTS_H_
