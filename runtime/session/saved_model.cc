#include "runtime/session/saved_model.h"

#include "formats/file_util.h"
#include "formats/saved_model.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"

namespace graphrt {

namespace {

std::string NodeName(const std::string& tensor) {
  size_t colon = tensor.rfind(':');
  if (colon != std::string::npos && colon + 1 < tensor.size() &&
      tensor.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    return tensor.substr(0, colon);
  }
  return tensor;
}

Tensor StringScalar(const std::string& s) {
  Tensor t(::tensorflow::DT_STRING, TensorShape());
  t.scalar<std::string>() = s;
  return t;
}

// Every asset's tensor fed with its path under EXPORT_DIR/assets.
Status AssetFeeds(const MetaGraphDef& meta_graph, const std::string& export_dir,
                  std::vector<std::pair<std::string, Tensor>>* feeds) {
  std::vector<::tensorflow::AssetFileDef> assets(meta_graph.asset_file_def().begin(),
                                                 meta_graph.asset_file_def().end());
  auto it = meta_graph.collection_def().find(kSavedModelAssetsKey);
  if (it != meta_graph.collection_def().end()) {
    for (const auto& any : it->second.any_list().value()) {
      ::tensorflow::AssetFileDef asset;
      if (!any.UnpackTo(&asset)) {
        return DataLoss("collection ", kSavedModelAssetsKey, " of ", export_dir,
                        " holds something that is not an AssetFileDef");
      }
      assets.push_back(asset);
    }
  }
  for (const auto& asset : assets) {
    std::string path = StrCat(export_dir, "/", kSavedModelAssetsDirectory, "/", asset.filename());
    feeds->emplace_back(asset.tensor_info().name(), StringScalar(path));
  }
  return Status::OK();
}

StatusOr<std::string> InitOpName(const MetaGraphDef& meta_graph) {
  auto sig = meta_graph.signature_def().find(kSavedModelInitOpSignatureKey);
  if (sig != meta_graph.signature_def().end()) {
    auto out = sig->second.outputs().find(kSavedModelInitOpSignatureKey);
    if (out != sig->second.outputs().end()) return NodeName(out->second.name());
  }
  for (const char* key : {kSavedModelMainOpKey, kSavedModelLegacyInitOpKey}) {
    auto it = meta_graph.collection_def().find(key);
    if (it == meta_graph.collection_def().end()) continue;
    const auto& nodes = it->second.node_list().value();
    if (nodes.size() != 1) {
      return FailedPrecondition("Expected exactly one main op in : ", key, ", found ",
                                nodes.size());
    }
    return NodeName(nodes[0]);
  }
  return std::string();
}

Status RunRestore(Session* session, const MetaGraphDef& meta_graph, const std::string& prefix,
                  const std::vector<std::pair<std::string, Tensor>>& asset_feeds) {
  if (!meta_graph.has_saver_def() || meta_graph.saver_def().restore_op_name().empty()) {
    return Status::OK();
  }
  const auto& saver = meta_graph.saver_def();
  std::vector<std::pair<std::string, Tensor>> feeds = asset_feeds;
  feeds.emplace_back(saver.filename_tensor_name(), StringScalar(prefix));
  std::vector<Tensor> outputs;
  Status s = session->Run(feeds, {}, {NodeName(saver.restore_op_name())}, &outputs);
  if (!s.ok()) return s.Prepend(StrCat("restoring variables from ", prefix));
  return Status::OK();
}

}  // namespace

StatusOr<const SignatureDef*> SavedModelBundle::GetSignature(const std::string& key) const {
  auto it = meta_graph_def.signature_def().find(key);
  if (it != meta_graph_def.signature_def().end()) return &it->second;
  std::vector<std::string> keys;
  for (const auto& [k, v] : meta_graph_def.signature_def()) {
    if (k != kSavedModelInitOpSignatureKey) keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  return NotFound("no signature '", key, "' in ", export_dir,
                  "; the signatures are: ", keys.empty() ? "(none)" : StrJoin(keys, ", "));
}

static Status LoadSavedModelUnguarded(const SessionOptions& session_options,
                                      const RunOptions& run_options, const std::string& export_dir,
                                      const std::unordered_set<std::string>& tags,
                                      SavedModelBundle* bundle);

Status LoadSavedModel(const SessionOptions& session_options, const RunOptions& run_options,
                      const std::string& export_dir, const std::unordered_set<std::string>& tags,
                      SavedModelBundle* bundle) {
  return StatusFromExceptions("LoadSavedModel", [&] {
    return LoadSavedModelUnguarded(session_options, run_options, export_dir, tags, bundle);
  });
}

static Status LoadSavedModelUnguarded(const SessionOptions& session_options,
                                      const RunOptions& run_options, const std::string& export_dir,
                                      const std::unordered_set<std::string>& tags,
                                      SavedModelBundle* bundle) {
  ::tensorflow::SavedModel saved_model;
  GRT_RETURN_IF_ERROR(ReadSavedModel(export_dir, &saved_model));
  GRT_ASSIGN_OR_RETURN(const MetaGraphDef* meta_graph,
                       FindMetaGraphDef(saved_model, tags, export_dir));
  bundle->meta_graph_def = *meta_graph;
  bundle->export_dir = export_dir;
  GRT_RETURN_IF_ERROR(NewSession(session_options, &bundle->session));
  Status s = bundle->session->Create(meta_graph->graph_def());
  if (!s.ok()) return s.Prepend(StrCat("loading the graph of ", export_dir));
  std::vector<std::pair<std::string, Tensor>> asset_feeds;
  GRT_RETURN_IF_ERROR(AssetFeeds(*meta_graph, export_dir, &asset_feeds));
  std::string prefix = StrCat(export_dir, "/", kSavedModelVariablesPrefix);
  if (FileExists(prefix + ".index")) {
    GRT_RETURN_IF_ERROR(RunRestore(bundle->session.get(), *meta_graph, prefix, asset_feeds));
  }
  GRT_ASSIGN_OR_RETURN(std::string init_op, InitOpName(*meta_graph));
  if (!init_op.empty()) {
    std::vector<Tensor> outputs;
    s = bundle->session->Run(run_options, asset_feeds, {}, {init_op}, &outputs, nullptr);
    if (!s.ok()) return s.Prepend(StrCat("running the init op ", init_op, " of ", export_dir));
  }
  return Status::OK();
}

static Status LoadMetaGraphUnguarded(const SessionOptions& session_options,
                                     const MetaGraphDef& meta_graph,
                                     const std::string& checkpoint_prefix,
                                     std::unique_ptr<Session>* session);

Status LoadMetaGraph(const SessionOptions& session_options, const MetaGraphDef& meta_graph,
                     const std::string& checkpoint_prefix, std::unique_ptr<Session>* session) {
  return StatusFromExceptions("LoadMetaGraph", [&] {
    return LoadMetaGraphUnguarded(session_options, meta_graph, checkpoint_prefix, session);
  });
}

static Status LoadMetaGraphUnguarded(const SessionOptions& session_options,
                                     const MetaGraphDef& meta_graph,
                                     const std::string& checkpoint_prefix,
                                     std::unique_ptr<Session>* session) {
  GRT_RETURN_IF_ERROR(NewSession(session_options, session));
  GRT_RETURN_IF_ERROR((*session)->Create(meta_graph.graph_def()));
  if (checkpoint_prefix.empty()) return Status::OK();
  if (!meta_graph.has_saver_def()) {
    return FailedPrecondition("the MetaGraphDef has no SaverDef: its variables cannot be restored");
  }
  return RunRestore(session->get(), meta_graph, checkpoint_prefix, {});
}

}  // namespace graphrt
