#include "formats/tensor_bundle/checkpoint_state.h"

#include <google/protobuf/text_format.h>

#include "formats/file_util.h"
#include "formats/tensor_bundle/bundle_format.h"

namespace graphrt {

namespace {

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool CheckpointExists(const std::string& prefix) {
  return FileExists(bundle::IndexFilename(prefix)) || (FileExists(prefix) && !IsDirectory(prefix));
}

}  // namespace

StatusOr<::tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir,
                                                            const std::string& filename) {
  const std::string path = JoinPath(dir, filename);
  GRT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  ::tensorflow::CheckpointState state;
  if (!google::protobuf::TextFormat::ParseFromString(text, &state)) {
    return DataLoss(path, " is not a text-format CheckpointState");
  }
  return state;
}

Status WriteCheckpointState(const std::string& dir, const ::tensorflow::CheckpointState& state,
                            const std::string& filename) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(state, &text)) {
    return Internal("cannot print CheckpointState");
  }
  return WriteStringToFile(JoinPath(dir, filename), text);
}

StatusOr<std::string> LatestCheckpoint(const std::string& dir, const std::string& filename) {
  GRT_ASSIGN_OR_RETURN(::tensorflow::CheckpointState state, ReadCheckpointState(dir, filename));
  const std::string& path = state.model_checkpoint_path();
  if (path.empty()) {
    return NotFound(JoinPath(dir, filename), " names no model_checkpoint_path");
  }
  const bool absolute = path[0] == '/';
  const std::string prefix = absolute ? path : JoinPath(dir, path);
  if (CheckpointExists(prefix)) return prefix;
  if (absolute) {
    const std::string moved = JoinPath(dir, path.substr(path.find_last_of('/') + 1));
    if (CheckpointExists(moved)) return moved;
  }
  return NotFound(JoinPath(dir, filename), " names checkpoint ", prefix, ", but neither ",
                  bundle::IndexFilename(prefix), " nor ", prefix, " exists");
}

}  // namespace graphrt
