#include "runtime/session/keras_model.h"

#include <filesystem>
#include <system_error>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/keras/keras_archive.h"
#include "formats/keras/zip_archive.h"
#include "formats/tensor_bundle/bundle_writer.h"
#include "meta_graph.pb.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"
#include "saved_model.pb.h"

namespace graphrt {

using ::tensorflow::NodeDef;

StatusOr<keras::KerasH5File> ReadKerasFile(const std::string& path,
                                           const KerasModelOptions& options) {
  // A .keras archive is told by its content (a zip), whatever its name.
  if (keras::LooksLikeZip(path)) {
    return keras::ReadKerasArchive(path, options.h5, options.read_hdf5_in_subprocess);
  }
  return options.read_hdf5_in_subprocess ? keras::ReadKerasH5FileIsolated(path, options.h5)
                                         : keras::ReadKerasH5File(path, options.h5);
}

StatusOr<keras::KerasGraph> BuildKerasModelGraph(const std::string& path,
                                                 const KerasModelOptions& options,
                                                 keras::KerasH5File* file_out) {
  return StatusFromExceptions("BuildKerasModelGraph", [&]() -> StatusOr<keras::KerasGraph> {
    GRT_ASSIGN_OR_RETURN(keras::KerasH5File file, ReadKerasFile(path, options));
    std::string config = file.model_config;
    if (!options.config_path.empty()) {
      GRT_ASSIGN_OR_RETURN(config, ReadFileToString(options.config_path));
    }
    if (config.empty()) {
      return InvalidArgument("weights-only Keras file (no model_config): ", path,
                             "; give the architecture with --keras-config FILE.json",
                             file.layout == keras::KerasWeightsLayout::kKeras3Raw
                                 ? " (a Keras 3 .weights.h5: model.to_json() or the config.json "
                                   "of its .keras archive)"
                                 : "");
    }
    GRT_ASSIGN_OR_RETURN(keras::KerasGraph graph,
                         keras::BuildKerasGraph(config, file, options.graph));
    if (file_out != nullptr) *file_out = std::move(file);
    return graph;
  });
}

StatusOr<KerasModel> LoadKerasModel(const std::string& path, const KerasModelOptions& options) {
  keras::KerasH5File file;
  GRT_ASSIGN_OR_RETURN(keras::KerasGraph graph, BuildKerasModelGraph(path, options, &file));
  KerasModel model;
  model.keras_version = file.keras_version;
  model.backend = file.backend;
  GRT_RETURN_IF_ERROR(NewSession(options.session, &model.session));
  Status s = model.session->Create(graph.graph);
  if (!s.ok()) return s.Prepend(StrCat("the graph built from ", path));
  model.graph = std::move(graph);
  GRT_RETURN_IF_ERROR(ResetKerasStates(&model));
  return model;
}

Status ResetKerasStates(KerasModel* model) {
  if (model->graph.reset_states_op.empty()) return Status::OK();
  std::vector<Tensor> unused;
  return model->session->Run({}, {}, {model->graph.reset_states_op}, &unused);
}

namespace {

NodeDef* AddNode(::tensorflow::GraphDef* g, const std::string& op, const std::string& name,
                 const std::vector<std::string>& inputs) {
  NodeDef* n = g->add_node();
  n->set_op(op);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

NodeDef* AddStringConst(::tensorflow::GraphDef* g, const std::string& name,
                        const std::vector<std::string>& values, bool scalar) {
  NodeDef* n = AddNode(g, "Const", name, {});
  SetNodeAttr(n, "dtype", ::tensorflow::DT_STRING);
  Tensor t(::tensorflow::DT_STRING,
           scalar ? TensorShape() : TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  SetNodeAttr(n, "value", t);
  return n;
}

// The nodes tf.compat.v1.train.Saver adds (its names, so TensorFlow's loader finds them): a
// filename Const fed with the checkpoint prefix, SaveV2 and RestoreV2 over every variable.
void AddSaver(const keras::KerasGraph& model, ::tensorflow::GraphDef* g,
              ::tensorflow::SaverDef* saver) {
  std::vector<std::string> names, slices;
  for (const keras::KerasVariable& v : model.variables) {
    names.push_back(v.name);
    slices.push_back("");
  }
  AddStringConst(g, "save/filename", {"model"}, true);
  NodeDef* filename = AddNode(g, "PlaceholderWithDefault", "save/Const", {"save/filename"});
  SetNodeAttr(filename, "dtype", ::tensorflow::DT_STRING);
  SetNodeAttr(filename, "shape", PartialTensorShape(std::vector<int64_t>{}));
  AddStringConst(g, "save/SaveV2/tensor_names", names, false);
  AddStringConst(g, "save/SaveV2/shape_and_slices", slices, false);
  std::vector<std::string> save_inputs = {"save/Const", "save/SaveV2/tensor_names",
                                          "save/SaveV2/shape_and_slices"};
  for (const std::string& n : names) save_inputs.push_back(n);
  NodeDef* save = AddNode(g, "SaveV2", "save/SaveV2", save_inputs);
  const std::vector<DataType> dtypes(names.size(), ::tensorflow::DT_FLOAT);
  SetNodeAttr(save, "dtypes", dtypes);
  NodeDef* dep = AddNode(g, "Identity", "save/control_dependency", {"save/Const", "^save/SaveV2"});
  SetNodeAttr(dep, "T", ::tensorflow::DT_STRING);
  AddStringConst(g, "save/RestoreV2/tensor_names", names, false);
  AddStringConst(g, "save/RestoreV2/shape_and_slices", slices, false);
  NodeDef* restore =
      AddNode(g, "RestoreV2", "save/RestoreV2",
              {"save/Const", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"});
  SetNodeAttr(restore, "dtypes", dtypes);
  std::vector<std::string> assigns;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string name = StrCat("save/Assign", i == 0 ? "" : StrCat("_", i));
    NodeDef* a = AddNode(g, "Assign", name, {names[i], StrCat("save/RestoreV2:", i)});
    SetNodeAttr(a, "T", ::tensorflow::DT_FLOAT);
    SetNodeAttr(a, "validate_shape", true);
    SetNodeAttr(a, "use_locking", true);
    assigns.push_back("^" + name);
  }
  AddNode(g, "NoOp", "save/restore_all", assigns);
  saver->set_filename_tensor_name("save/Const:0");
  saver->set_save_tensor_name("save/control_dependency:0");
  saver->set_restore_op_name("save/restore_all");
  saver->set_max_to_keep(5);
  saver->set_sharded(false);
  saver->set_keep_checkpoint_every_n_hours(10000.0f);
  saver->set_version(::tensorflow::SaverDef::V2);
}

void SetTensorInfo(const keras::KerasTensorInfo& info, ::tensorflow::TensorInfo* out) {
  out->set_name(info.tensor);
  out->set_dtype(info.dtype);
  for (int64_t d : info.shape) out->mutable_tensor_shape()->add_dim()->set_size(d);
}

}  // namespace

Status ExportKerasSavedModel(const std::string& path, const KerasModelOptions& options,
                             const std::string& export_dir) {
  return StatusFromExceptions("ExportKerasSavedModel", [&]() -> Status {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(export_dir, ec)) {
      return AlreadyExists("the SavedModel folder already exists: ", export_dir);
    }
    KerasModelOptions export_options = options;
    export_options.graph.weights_as_variables = true;
    GRT_ASSIGN_OR_RETURN(keras::KerasGraph model, BuildKerasModelGraph(path, export_options));

    ::tensorflow::SavedModel saved_model;
    saved_model.set_saved_model_schema_version(1);
    ::tensorflow::MetaGraphDef* meta = saved_model.add_meta_graphs();
    meta->mutable_meta_info_def()->add_tags("serve");
    // tensorflow_version stays empty: TensorFlow's importer parses it as a version number.
    *meta->mutable_graph_def() = model.graph;
    // A model without weights has no variables, so no Saver (SaveV2 needs at least one tensor).
    if (!model.variables.empty()) {
      AddSaver(model, meta->mutable_graph_def(), meta->mutable_saver_def());
    }
    ::tensorflow::SignatureDef& sig = (*meta->mutable_signature_def())["serving_default"];
    sig.set_method_name("tensorflow/serving/predict");
    for (const keras::KerasTensorInfo& in : model.inputs) {
      SetTensorInfo(in, &(*sig.mutable_inputs())[in.name]);
    }
    for (size_t i = 0; i < model.outputs.size(); ++i) {
      std::string key = model.outputs[i].name;
      if (sig.outputs().count(key) != 0) key = StrCat(key, "_", i);
      SetTensorInfo(model.outputs[i], &(*sig.mutable_outputs())[key]);
    }

    // Write beside the destination, then rename, so a failure leaves nothing half-written.
    std::string tmp = export_dir + ".tmp-graphrt";
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp + "/variables", ec)) {
      return Internal("cannot create ", tmp, "/variables: ", ec.message());
    }
    auto fail = [&](Status s) {
      fs::remove_all(tmp, ec);
      return s;
    };
    if (!model.variables.empty()) {
      BundleWriter writer(tmp + "/variables/variables");
      for (const keras::KerasVariable& v : model.variables) {
        Status s = writer.Add(v.name, v.value);
        if (!s.ok()) return fail(s);
      }
      Status s = writer.Finish();
      if (!s.ok()) return fail(s);
    }
    Status s = WriteBinaryOrTextProto(tmp + "/saved_model.pb", saved_model);
    if (!s.ok()) return fail(s);
    fs::rename(tmp, export_dir, ec);
    if (ec) return fail(Internal("cannot rename ", tmp, " to ", export_dir, ": ", ec.message()));
    return Status::OK();
  });
}

}  // namespace graphrt
