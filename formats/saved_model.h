// SavedModel folders: EXPORT_DIR/saved_model.pb (preferred) or saved_model.pbtxt, with
// variables/variables.{index,data-*} and assets/. A TensorFlow Serving base folder holds one
// SavedModel per numbered sub-folder.
#ifndef GRAPHRT_FORMATS_SAVED_MODEL_H_
#define GRAPHRT_FORMATS_SAVED_MODEL_H_

#include <string>
#include <unordered_set>
#include <vector>

#include "meta_graph.pb.h"
#include "runtime/core/status.h"
#include "saved_model.pb.h"

namespace graphrt {

inline constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
inline constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
inline constexpr char kSavedModelVariablesPrefix[] = "variables/variables";
inline constexpr char kSavedModelAssetsDirectory[] = "assets";
inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";
inline constexpr char kSavedModelMainOpKey[] = "saved_model_main_op";
inline constexpr char kSavedModelLegacyInitOpKey[] = "legacy_init_op";
inline constexpr char kSavedModelAssetsKey[] = "saved_model_assets";
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";

bool MaybeSavedModelDirectory(const std::string& dir);

// NOT_FOUND naming the folder when it holds neither file.
Status ReadSavedModel(const std::string& export_dir, ::tensorflow::SavedModel* saved_model);

// The MetaGraphDef whose tag set equals `tags`; NOT_FOUND listing the tag sets present.
StatusOr<const ::tensorflow::MetaGraphDef*> FindMetaGraphDef(
    const ::tensorflow::SavedModel& saved_model, const std::unordered_set<std::string>& tags,
    const std::string& export_dir);

// `path` itself when it is a SavedModel, else the highest-numbered sub-folder that is one
// (TensorFlow Serving's layout); NOT_FOUND otherwise.
StatusOr<std::string> ResolveSavedModelDir(const std::string& path);

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_SAVED_MODEL_H_
