#include "formats/saved_model.h"

#include <dirent.h>

#include <algorithm>
#include <set>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "runtime/core/str_util.h"

namespace graphrt {

bool MaybeSavedModelDirectory(const std::string& dir) {
  return FileExists(dir + "/" + kSavedModelFilenamePb) ||
         FileExists(dir + "/" + kSavedModelFilenamePbTxt);
}

Status ReadSavedModel(const std::string& export_dir, ::tensorflow::SavedModel* saved_model) {
  std::string pb = export_dir + "/" + kSavedModelFilenamePb;
  if (FileExists(pb)) return ReadBinaryOrTextProto(pb, "SavedModel", saved_model);
  std::string txt = export_dir + "/" + kSavedModelFilenamePbTxt;
  if (FileExists(txt)) return ReadBinaryOrTextProto(txt, "SavedModel", saved_model);
  return NotFound("SavedModel not found in export directory: ", export_dir,
                  " (no saved_model.pb or saved_model.pbtxt)");
}

StatusOr<const ::tensorflow::MetaGraphDef*> FindMetaGraphDef(
    const ::tensorflow::SavedModel& saved_model, const std::unordered_set<std::string>& tags,
    const std::string& export_dir) {
  std::vector<std::string> present;
  for (const auto& mg : saved_model.meta_graphs()) {
    std::unordered_set<std::string> have(mg.meta_info_def().tags().begin(),
                                         mg.meta_info_def().tags().end());
    if (have == tags) return &mg;
    std::vector<std::string> sorted(mg.meta_info_def().tags().begin(),
                                    mg.meta_info_def().tags().end());
    std::sort(sorted.begin(), sorted.end());
    present.push_back(StrCat("{ ", StrJoin(sorted, " "), " }"));
  }
  std::vector<std::string> wanted(tags.begin(), tags.end());
  std::sort(wanted.begin(), wanted.end());
  return NotFound("Could not find meta graph def matching supplied tags: { ", StrJoin(wanted, " "),
                  " } in ", export_dir, ". The tag sets present are: ",
                  present.empty() ? "(none)" : StrJoin(present, ", "));
}

StatusOr<std::string> ResolveSavedModelDir(const std::string& path) {
  if (MaybeSavedModelDirectory(path)) return path;
  if (!IsDirectory(path)) return NotFound("no such SavedModel directory: ", path);
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return NotFound("cannot list ", path);
  long long best = -1;
  std::string best_name;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    long long version;
    if (!ParseInt64(name, &version) || version < 0) continue;
    if (version > best && MaybeSavedModelDirectory(path + "/" + name)) {
      best = version;
      best_name = name;
    }
  }
  closedir(dir);
  if (best < 0) {
    return NotFound("SavedModel not found in ", path,
                    ": no saved_model.pb(txt) and no numbered version folder holding one");
  }
  return path + "/" + best_name;
}

}  // namespace graphrt
