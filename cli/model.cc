#include "cli/model.h"

#include "cli/cli_util.h"

#include <algorithm>
#include <fstream>
#include <unordered_set>

#include "formats/file_util.h"
#include "graphrt_build_config.h"
#include "formats/graph_def.h"
#include "formats/saved_model.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#if GRAPHRT_WITH_HDF5
#include "runtime/session/keras_model.h"
#endif
#include "runtime/session/saved_model.h"

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
  // Keras files under other names, told by their signatures: a .keras zip archive, an HDF5 file.
  {
    std::ifstream head(path, std::ios::binary);
    char magic[8];
    if (head.read(magic, 8) && (std::string(magic, 4) == std::string("PK\x03\x04", 4) ||
                                std::string(magic, 8) == std::string("\x89HDF\r\n\x1a\n", 8))) {
      return ModelKind::kKeras;
    }
  }
  // A V1 checkpoint is one LevelDB-format table: its last 8 bytes are the table magic.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  char tail[8];
  if (in && in.tellg() >= 48 && in.seekg(-8, std::ios::end) && in.read(tail, 8) &&
      std::string(tail, 8) == std::string("\x57\xfb\x80\x8b\x24\x75\x47\xdb", 8)) {
    return ModelKind::kCheckpoint;
  }
  return ModelKind::kGraphDef;
}

namespace {

// The signature CLI.md picks: --signature, else serving_default, else the only one.
StatusOr<std::string> ChooseSignature(const MetaGraphDef& meta_graph, const std::string& wanted,
                                      const std::string& path) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : meta_graph.signature_def()) {
    if (k != kSavedModelInitOpSignatureKey) keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  std::string key = wanted.empty() ? kDefaultServingSignatureDefKey : wanted;
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return key;
  if (wanted.empty() && keys.size() == 1) return keys[0];
  return NotFound("no signature '", key, "' in ", path,
                  "; the signatures are: ", keys.empty() ? "(none)" : StrJoin(keys, ", "));
}

Status UseSignature(const MetaGraphDef& meta_graph, const std::string& wanted,
                    const std::string& path, LoadedModel* model) {
  if (meta_graph.signature_def().empty()) return Status::OK();
  GRT_ASSIGN_OR_RETURN(std::string key, ChooseSignature(meta_graph, wanted, path));
  const SignatureDef& sig = meta_graph.signature_def().at(key);
  for (const auto& [name, info] : sig.inputs()) {
    model->inputs.push_back(ModelInput{name, info.name(), info.dtype(),
                                       PartialTensorShape::FromProto(info.tensor_shape())});
  }
  for (const auto& [name, info] : sig.outputs()) {
    model->default_outputs.push_back(name);
    model->output_tensors[name] = info.name();
  }
  std::sort(model->default_outputs.begin(), model->default_outputs.end());
  return Status::OK();
}

}  // namespace

std::string OutputTensor(const LoadedModel& model, const std::string& name) {
  auto it = model.output_tensors.find(name);
  return it != model.output_tensors.end() ? it->second : name;
}

StatusOr<LoadedModel> LoadModel(const std::string& path, const SessionOptions& options,
                                const ModelFlags& flags) {
  GRT_ASSIGN_OR_RETURN(ModelKind kind, ClassifyModelPath(path));
  switch (kind) {
    case ModelKind::kSavedModel: {
      GRT_ASSIGN_OR_RETURN(std::string dir, ResolveSavedModelDir(path));
      SavedModelBundle bundle;
      std::unordered_set<std::string> tags(flags.tags.begin(), flags.tags.end());
      GRT_RETURN_IF_ERROR(LoadSavedModel(options, RunOptions(), dir, tags, &bundle));
      LoadedModel model;
      model.path = dir;
      model.graph = bundle.meta_graph_def.graph_def();
      GRT_RETURN_IF_ERROR(UseSignature(bundle.meta_graph_def, flags.signature, dir, &model));
      model.session = std::move(bundle.session);
      GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> ir, Graph::FromGraphDef(model.graph));
      model.ir = std::move(ir);
      return model;
    }
    case ModelKind::kMetaGraph: {
      MetaGraphDef meta_graph;
      GRT_RETURN_IF_ERROR(ReadBinaryOrTextProto(path, "MetaGraphDef", &meta_graph));
      LoadedModel model;
      model.path = path;
      model.graph = meta_graph.graph_def();
      GRT_RETURN_IF_ERROR(LoadMetaGraph(options, meta_graph, flags.checkpoint, &model.session));
      if (!flags.signature.empty() || !meta_graph.signature_def().empty()) {
        Status s = UseSignature(meta_graph, flags.signature, path, &model);
        if (!s.ok() && !flags.signature.empty()) return s;
      }
      GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> ir, Graph::FromGraphDef(model.graph));
      model.ir = std::move(ir);
      if (model.inputs.empty()) {
        for (const auto& node : model.graph.node()) {
          if (node.op() != "Placeholder") continue;
          ModelInput input{node.name(), node.name() + ":0", ::tensorflow::DT_INVALID, {}};
          GRT_RETURN_IF_ERROR(GetNodeAttrOr(node, "dtype", &input.dtype));
          GRT_RETURN_IF_ERROR(
              PlaceholderShape(node, model.graph.versions().producer(), &input.shape));
          model.inputs.push_back(input);
        }
      }
      return model;
    }
    case ModelKind::kKeras: {
#if GRAPHRT_WITH_HDF5
      KerasModelOptions keras_options;
      keras_options.session = options;
      keras_options.config_path = flags.keras_config;
      keras_options.read_hdf5_in_subprocess = true;
      GRT_ASSIGN_OR_RETURN(KerasModel keras, LoadKerasModel(path, keras_options));
      LoadedModel model;
      model.path = path;
      model.graph = keras.graph.graph;
      model.session = std::move(keras.session);
      for (const keras::KerasTensorInfo& in : keras.graph.inputs) {
        model.inputs.push_back(
            ModelInput{in.name, in.tensor, in.dtype, PartialTensorShape(in.shape)});
      }
      // Outputs by layer name; a layer with several outputs (return_state) gives "lstm",
      // "lstm:1", "lstm:2", its tensors' names.
      for (const keras::KerasTensorInfo& out : keras.graph.outputs) {
        std::string key = EndsWith(out.tensor, ":0") ? out.name : out.tensor;
        model.default_outputs.push_back(key);
        model.output_tensors[key] = out.tensor;
      }
      GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> ir, Graph::FromGraphDef(model.graph));
      model.ir = std::move(ir);
      return model;
#else
      return Unimplemented(KerasUnavailable(path));
#endif
    }
    case ModelKind::kCheckpoint:
      return InvalidArgument("a checkpoint holds no graph to run: ", path);
    case ModelKind::kGraphDef:
      break;
  }
  LoadedModel model;
  model.path = path;
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
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(node, "dtype", &input.dtype));
    GRT_RETURN_IF_ERROR(PlaceholderShape(node, model.graph.versions().producer(), &input.shape));
    model.inputs.push_back(input);
  }
  return model;
}

StatusOr<ModelInput> FindInput(const LoadedModel& model, const std::string& name) {
  std::string bare = EndsWith(name, ":0") ? name.substr(0, name.size() - 2) : name;
  for (const ModelInput& input : model.inputs) {
    if (input.key == name || input.key == bare || input.tensor == name ||
        input.tensor == name + ":0") {
      return input;
    }
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
  return NotFound("no input named '", name,
                  "'; the model's inputs are: ", keys.empty() ? "(none)" : StrJoin(keys, ", "));
}

StatusOr<GraphDef> ReadAnyGraph(const std::string& path, const std::vector<std::string>& tags) {
  GraphDef graph;
  GRT_ASSIGN_OR_RETURN(ModelKind kind, ClassifyModelPath(path));
  if (kind == ModelKind::kGraphDef) {
    GRT_RETURN_IF_ERROR(ReadGraphDef(path, &graph));
    return graph;
  }
  if (kind == ModelKind::kMetaGraph) {
    ::tensorflow::MetaGraphDef meta;
    GRT_RETURN_IF_ERROR(ReadBinaryOrTextProto(path, "MetaGraphDef", &meta));
    graph.Swap(meta.mutable_graph_def());
    return graph;
  }
  if (kind == ModelKind::kSavedModel) {
    GRT_ASSIGN_OR_RETURN(std::string dir, ResolveSavedModelDir(path));
    ::tensorflow::SavedModel saved_model;
    GRT_RETURN_IF_ERROR(ReadSavedModel(dir, &saved_model));
    std::unordered_set<std::string> want;
    for (const std::string& tag : tags.empty() ? std::vector<std::string>{"serve"} : tags) {
      for (const std::string& t : StrSplit(tag, ',', /*skip_empty=*/true)) want.insert(t);
    }
    GRT_ASSIGN_OR_RETURN(const ::tensorflow::MetaGraphDef* meta,
                         FindMetaGraphDef(saved_model, want, dir));
    graph = meta->graph_def();
    return graph;
  }
  return InvalidArgument("not a graph (a GraphDef, a .meta or a SavedModel folder): ", path);
}

}  // namespace cli
}  // namespace graphrt
