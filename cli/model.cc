#include "cli/model.h"

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace cli {

StatusOr<ModelKind> ClassifyModelPath(const std::string& path) {
  if (IsDirectory(path)) {
    if (FileExists(path + "/saved_model.pb") || FileExists(path + "/saved_model.pbtxt")) {
      return ModelKind::kSavedModel;
    }
    if (FileExists(path + "/checkpoint")) return ModelKind::kCheckpoint;
    return ModelKind::kSavedModel;  // a serving base folder of numbered versions
  }
  if (EndsWith(path, ".h5") || EndsWith(path, ".hdf5") || EndsWith(path, ".keras")) {
    return ModelKind::kKeras;
  }
  if (EndsWith(path, ".meta")) return ModelKind::kMetaGraph;
  if (!FileExists(path) && FileExists(path + ".index")) return ModelKind::kCheckpoint;
  if (!FileExists(path)) return NotFound("no such file or directory: ", path);
  return ModelKind::kGraphDef;
}

StatusOr<LoadedModel> LoadModel(const std::string& path, const SessionOptions& options) {
  GRT_ASSIGN_OR_RETURN(ModelKind kind, ClassifyModelPath(path));
  switch (kind) {
    case ModelKind::kSavedModel:
      return Unimplemented("SavedModels are not supported by this build yet: ", path);
    case ModelKind::kKeras:
      return Unimplemented("Keras HDF5 models are not supported by this build yet: ", path);
    case ModelKind::kMetaGraph:
      return Unimplemented("MetaGraphDef (.meta) models are not supported by this build yet: ",
                           path);
    case ModelKind::kCheckpoint:
      return InvalidArgument("a checkpoint holds no graph to run: ", path);
    case ModelKind::kGraphDef:
      break;
  }
  LoadedModel model;
  GRT_RETURN_IF_ERROR(ReadGraphDef(path, &model.graph));
  GRT_RETURN_IF_ERROR(NewSession(options, &model.session));
  Status s = model.session->Create(model.graph);
  if (!s.ok()) return s.Prepend(path);
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> ir, Graph::FromGraphDef(model.graph));
  model.ir = std::move(ir);
  for (const auto& node : model.graph.node()) {
    if (node.op() != "Placeholder" && node.op() != "PlaceholderV2" &&
        node.op() != "PlaceholderWithDefault") {
      continue;
    }
    ModelInput input;
    input.key = node.name();
    input.tensor = node.name() + ":0";
    input.dtype = ::tensorflow::DT_INVALID;
    GetNodeAttrOr(node, "dtype", &input.dtype).IgnoreError();
    GetNodeAttrOr(node, "shape", &input.shape).IgnoreError();
    model.inputs.push_back(input);
  }
  return model;
}

StatusOr<ModelInput> FindInput(const LoadedModel& model, const std::string& name) {
  std::string bare = EndsWith(name, ":0") ? name.substr(0, name.size() - 2) : name;
  for (const ModelInput& input : model.inputs) {
    if (input.key == name || input.key == bare || input.tensor == name) return input;
  }
  if (model.ir != nullptr) {
    GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
    const Node* node = model.ir->FindNode(id.node);
    if (node != nullptr && id.index >= 0 && id.index < node->num_outputs() &&
        node->output_type(id.index) != ::tensorflow::DT_INVALID) {
      return ModelInput{name, id.ToString(), BaseType(node->output_type(id.index)),
                        PartialTensorShape()};
    }
  }
  std::vector<std::string> keys;
  for (const ModelInput& input : model.inputs) keys.push_back(input.key);
  return NotFound("no input named '", name, "'; the model's inputs are: ",
                  keys.empty() ? "(none)" : StrJoin(keys, ", "));
}

}  // namespace cli
}  // namespace graphrt
