#include "migrate/keras_weights.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/keras/keras_graph_builder.h"
#include "formats/keras/keras_h5_file.h"
#include "formats/saved_model.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/bundle_writer.h"
#include "meta_graph.pb.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"
#include "runtime/core/tensor_shape.h"
#include "runtime/session/keras_model.h"
#include "saved_model.pb.h"

namespace graphrt {
namespace {

struct GraphVariable {
  std::string name;
  DataType dtype = ::tensorflow::DT_INVALID;
  PartialTensorShape shape;
};

std::vector<GraphVariable> VariablesOf(const ::tensorflow::GraphDef& graph) {
  std::vector<GraphVariable> vars;
  for (const auto& node : graph.node()) {
    if (node.op() != "VariableV2" && node.op() != "Variable" && node.op() != "VarHandleOp") {
      continue;
    }
    GraphVariable v;
    v.name = node.name();
    GetNodeAttrOr(node, "dtype", &v.dtype).IgnoreError();
    GetNodeAttrOr(node, "shape", &v.shape).IgnoreError();
    vars.push_back(v);
  }
  return vars;
}

// The variable a Keras weight name maps to.
std::string MapName(const std::string& keras_name, const std::map<std::string, std::string>& map) {
  std::string bare =
      EndsWith(keras_name, ":0") ? keras_name.substr(0, keras_name.size() - 2) : keras_name;
  for (const std::string& key : {keras_name, bare}) {
    auto it = map.find(key);
    if (it != map.end())
      return EndsWith(it->second, ":0") ? it->second.substr(0, it->second.size() - 2) : it->second;
  }
  // Longest matching prefix.
  std::string best_from, best_to;
  for (const auto& [from, to] : map) {
    if (EndsWith(from, "/") && bare.rfind(from, 0) == 0 && from.size() > best_from.size()) {
      best_from = from;
      best_to = to;
    }
  }
  if (!best_from.empty()) return best_to + bare.substr(best_from.size());
  return bare;
}

}  // namespace

Status LoadKerasWeightsIntoGraph(const std::string& model, const std::string& weights_h5,
                                 const std::string& out, const LoadWeightsOptions& options,
                                 LoadWeightsReport* report) {
  return StatusFromExceptions("LoadKerasWeightsIntoGraph", [&]() -> Status {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(out, ec) || fs::exists(out + ".index", ec)) {
      return AlreadyExists("the output already exists: ", out);
    }
    const bool saved_model = IsDirectory(model);
    ::tensorflow::MetaGraphDef meta;
    std::string existing;  // checkpoint prefix holding the current values
    std::string model_dir;
    if (saved_model) {
      GRT_ASSIGN_OR_RETURN(model_dir, ResolveSavedModelDir(model));
      ::tensorflow::SavedModel sm;
      GRT_RETURN_IF_ERROR(ReadSavedModel(model_dir, &sm));
      GRT_ASSIGN_OR_RETURN(const ::tensorflow::MetaGraphDef* m,
                           FindMetaGraphDef(sm, {"serve"}, model_dir));
      meta = *m;
      existing = model_dir + "/variables/variables";
    } else {
      GRT_RETURN_IF_ERROR(ReadBinaryOrTextProto(model, "MetaGraphDef", &meta));
      existing = options.checkpoint;
    }
    std::vector<GraphVariable> vars = VariablesOf(meta.graph_def());
    KerasModelOptions read_options;
    read_options.read_hdf5_in_subprocess = options.read_hdf5_in_subprocess;
    read_options.h5 = options.h5;
    GRT_ASSIGN_OR_RETURN(keras::KerasH5File file, ReadKerasFile(weights_h5, read_options));
    if (file.layout != keras::KerasWeightsLayout::kLegacyH5) {
      // Keras 3 weights carry no variable names: the architecture names them, as graphrt's own
      // conversion does ("dense_1/kernel"), one weight per variable.
      std::string config = file.model_config;
      if (!options.keras_config.empty()) {
        GRT_ASSIGN_OR_RETURN(config, ReadFileToString(options.keras_config));
      }
      if (config.empty()) {
        return InvalidArgument(weights_h5, " is a Keras 3 .weights.h5, whose weights have no ",
                               "names: give its architecture with --keras-config FILE.json");
      }
      keras::KerasGraphOptions graph_options;
      graph_options.weights_as_variables = true;
      GRT_ASSIGN_OR_RETURN(keras::KerasGraph graph,
                           keras::BuildKerasGraph(config, file, graph_options));
      file.layers.clear();
      for (const keras::KerasVariable& v : graph.variables) {
        keras::KerasLayerWeights& entry = file.layers.emplace_back();
        entry.layer = v.name.substr(0, v.name.find('/'));
        entry.weights.push_back(keras::KerasWeight{v.name, v.value});
      }
    }

    std::map<std::string, const Tensor*> values;  // variable -> new value
    std::vector<std::string> problems;
    for (const keras::KerasLayerWeights& layer : file.layers) {
      for (const keras::KerasWeight& w : layer.weights) {
        std::string target = MapName(w.name, options.name_map);
        auto var = std::find_if(vars.begin(), vars.end(),
                                [&](const GraphVariable& v) { return v.name == target; });
        if (var == vars.end()) {
          report->unmatched_keras.push_back(w.name);
          continue;
        }
        if (!var->shape.IsCompatibleWith(w.value.shape())) {
          problems.push_back(StrCat("layer '", layer.layer, "' weight '", w.name, "' has shape ",
                                    w.value.shape().DebugString(), " but variable '", var->name,
                                    "' has shape ", var->shape.DebugString()));
          continue;
        }
        if (var->dtype != ::tensorflow::DT_FLOAT && var->dtype != ::tensorflow::DT_INVALID) {
          problems.push_back(StrCat("variable '", var->name, "' is ", DataTypeString(var->dtype),
                                    "; Keras weight '", w.name, "' is float32"));
          continue;
        }
        if (values.count(var->name) != 0) {
          problems.push_back(StrCat("two Keras weights map to variable '", var->name, "'"));
          continue;
        }
        values[var->name] = &w.value;
        report->assigned.emplace_back(w.name, var->name);
      }
    }
    std::unique_ptr<BundleReader> reader;
    if (!existing.empty() && FileExists(existing + ".index")) {
      GRT_ASSIGN_OR_RETURN(reader, BundleReader::Open(existing));
    }
    for (const GraphVariable& v : vars) {
      if (values.count(v.name) != 0) continue;
      report->unmatched_variables.push_back(v.name);
      if (reader == nullptr || !reader->Contains(v.name)) {
        problems.push_back(
            StrCat("variable '", v.name, "' gets no Keras weight and has no value in ",
                   existing.empty() ? "any checkpoint (give --checkpoint)" : existing));
      }
    }
    if (!problems.empty()) {
      return InvalidArgument("cannot load ", weights_h5, " into ", model, ": ",
                             StrJoin(problems, "; "));
    }
    // Write to a temporary name, rename at the end.
    std::string tmp = out + ".tmp-graphrt";
    fs::remove_all(tmp, ec);
    std::string prefix = saved_model ? tmp + "/variables/variables" : tmp + "/ckpt";
    fs::create_directories(fs::path(prefix).parent_path(), ec);
    if (ec) return Internal("cannot create ", tmp, ": ", ec.message());
    auto fail = [&](Status s) {
      fs::remove_all(tmp, ec);
      return s;
    };
    {
      BundleWriter writer(prefix);
      for (const GraphVariable& v : vars) {
        Status s;
        if (values.count(v.name) != 0) {
          s = writer.Add(v.name, *values[v.name]);
        } else {
          StatusOr<Tensor> t = reader->Read(v.name);
          s = t.ok() ? writer.Add(v.name, *t) : t.status();
        }
        if (!s.ok()) return fail(s);
      }
      Status s = writer.Finish();
      if (!s.ok()) return fail(s);
    }
    if (saved_model) {
      for (const auto& entry : fs::directory_iterator(model_dir)) {
        if (entry.path().filename() == "variables") continue;
        fs::copy(entry.path(), fs::path(tmp) / entry.path().filename(), fs::copy_options::recursive,
                 ec);
        if (ec) return fail(Internal("cannot copy ", entry.path().string(), ": ", ec.message()));
      }
      fs::rename(tmp, out, ec);
    } else {
      for (const auto& entry : fs::directory_iterator(tmp)) {
        std::string name = entry.path().filename().string();  // ckpt.index, ckpt.data-...
        fs::rename(entry.path(), out + name.substr(4), ec);
        if (ec) break;
      }
      fs::remove_all(tmp);
    }
    if (ec) return fail(Internal("cannot move the output into place at ", out, ": ", ec.message()));
    return Status::OK();
  });
}

}  // namespace graphrt
