#include "formats/keras/keras3_config.h"

#include <map>
#include <regex>
#include <set>
#include <utility>
#include <vector>

#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

namespace {

bool IsModelClass(const std::string& cls) {
  return cls == "Sequential" || cls == "Functional" || cls == "Model";
}

std::string LayerName(const Json& layer) {
  if (!layer.is_object()) return "?";
  auto config = layer.find("config");
  if (config != layer.end() && config->is_object()) {
    std::string name = Get<std::string>(*config, "name", "");
    if (!name.empty()) return name;
  }
  std::string name = Get<std::string>(layer, "name", "");
  return name.empty() ? Get<std::string>(layer, "class_name", "?") : name;
}

// A model's layer list, or null.
Json* ModelLayers(Json& model) {
  auto config = model.find("config");
  if (config == model.end()) return nullptr;
  if (config->is_array()) return &*config;
  if (!config->is_object()) return nullptr;
  auto layers = config->find("layers");
  return layers != config->end() && layers->is_array() ? &*layers : nullptr;
}

const Json* ModelLayers(const Json& model) { return ModelLayers(const_cast<Json&>(model)); }

// Layers that wrap a model of another framework: their weights and code are not in the file.
const std::set<std::string>& BackendLayers() {
  static const auto* classes =
      new std::set<std::string>{"TorchModuleWrapper", "JaxLayer", "FlaxLayer", "TFSMLayer"};
  return *classes;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Keras 3 records calls of keras.ops functions on symbolic tensors as nodes of their own.
bool IsOpsNode(const Json& layer) {
  return StartsWith(Get<std::string>(layer, "module", ""), "keras.src.ops");
}

// keras.ops nodes graphrt replays through TFOpLambda, as tf-keras records the same calls.
const std::map<std::string, std::pair<std::string, bool>>& OpsFunctions() {
  // class -> (tf function, commutative)
  static const auto* ops = new std::map<std::string, std::pair<std::string, bool>>{
      {"Add", {"__operators__.add", true}},    {"Multiply", {"math.multiply", true}},
      {"Subtract", {"math.subtract", false}},  {"Divide", {"math.truediv", false}},
      {"TrueDivide", {"math.truediv", false}},
  };
  return *ops;
}

// Every layer (nested models and wrapped layers included) that cannot run: other frameworks'
// wrappers, classes from outside Keras, keras.ops calls graphrt does not replay.
void FindForeign(const Json& layer, std::vector<std::string>* bad) {
  if (!layer.is_object()) return;
  const std::string cls = Get<std::string>(layer, "class_name", "");
  const std::string name = LayerName(layer);
  const std::string module = Get<std::string>(layer, "module", "");
  std::string registered;
  auto reg = layer.find("registered_name");
  if (reg != layer.end() && reg->is_string()) registered = reg->get<std::string>();
  if (BackendLayers().count(cls) != 0) {
    bad->push_back(StrCat(name, " (", cls, ": runs only inside its own framework)"));
    return;
  }
  if (IsOpsNode(layer)) return;  // FindUnreplayedOps, once the config is normalized
  if (!module.empty() && !StartsWith(module, "keras") && !StartsWith(module, "tf_keras")) {
    bad->push_back(StrCat(name, " (", cls, " from module ", module, ": a custom class)"));
    return;
  }
  if (!registered.empty() && registered != cls) {
    bad->push_back(StrCat(name, " (", cls, " registered as ", registered, ": a custom class)"));
    return;
  }
  if (const Json* layers = ModelLayers(layer); layers != nullptr && IsModelClass(cls)) {
    for (const Json& l : *layers) FindForeign(l, bad);
  }
  auto config = layer.find("config");
  if (config != layer.end() && config->is_object()) {
    for (const char* key : {"layer", "backward_layer"}) {
      auto inner = config->find(key);
      if (inner != config->end()) FindForeign(*inner, bad);
    }
  }
}

// keras.ops nodes left after NormalizeModel: calls graphrt does not replay.
void FindUnreplayedOps(const Json& model, std::vector<std::string>* bad) {
  const Json* layers = ModelLayers(model);
  if (layers == nullptr) return;
  for (const Json& layer : *layers) {
    if (!layer.is_object()) continue;
    const std::string cls = Get<std::string>(layer, "class_name", "");
    if (IsOpsNode(layer) && cls != "TFOpLambda") {
      bad->push_back(StrCat(LayerName(layer), " (keras.ops ", cls, " from ",
                            Get<std::string>(layer, "module", ""), ")"));
    }
    if (IsModelClass(cls)) FindUnreplayedOps(layer, bad);
  }
}

bool IsKerasTensor(const Json& v) {
  return v.is_object() && Get<std::string>(v, "class_name", "") == "__keras_tensor__";
}

// {"class_name": "__keras_tensor__", "config": {"keras_history": [layer, node, tensor]}} ->
// [layer, node, tensor], the Keras 2 reference.
Json TensorRef(const Json& v) {
  auto config = v.find("config");
  if (config == v.end() || !config->is_object()) {
    throw ConfigError("a __keras_tensor__ without config");
  }
  auto history = config->find("keras_history");
  if (history == config->end() || !history->is_array() || history->size() != 3) {
    throw ConfigError(StrCat("a __keras_tensor__ with keras_history ",
                             history == config->end() ? "missing" : history->dump()));
  }
  return Json::array({(*history)[0], (*history)[1], (*history)[2]});
}

// `v` with every symbolic tensor in it replaced by its reference.
Json ConvertValue(const Json& v) {
  if (IsKerasTensor(v)) return TensorRef(v);
  if (v.is_array()) {
    Json out = Json::array();
    for (const Json& e : v) out.push_back(ConvertValue(e));
    return out;
  }
  if (v.is_object()) {
    Json out = Json::object();
    for (const auto& [k, e] : v.items()) out[k] = ConvertValue(e);
    return out;
  }
  return v;
}

void FlattenTensors(const Json& v, std::vector<Json>* refs) {
  if (IsKerasTensor(v)) {
    refs->push_back(TensorRef(v));
  } else if (v.is_array()) {
    for (const Json& e : v) FlattenTensors(e, refs);
  } else {
    throw ConfigError(StrCat("a positional call argument ", v.dump(), " is not a tensor"));
  }
}

// Keras 2 records tensors a layer takes after its first argument as keyword arguments.
const std::vector<std::string>& PositionalNames(const std::string& cls) {
  static const auto* names = new std::map<std::string, std::vector<std::string>>{
      {"MultiHeadAttention", {"value", "key"}},
      {"SimpleRNN", {"initial_state"}},
      {"LSTM", {"initial_state"}},
      {"GRU", {"initial_state"}},
      {"Bidirectional", {"initial_state"}},
  };
  static const std::vector<std::string> none;
  auto it = names->find(cls);
  return it == names->end() ? none : it->second;
}

// Adds 1 to the node of every [layer, node, tensor] reference in `v` to a layer of `shifted`.
void ShiftRefs(Json& v, const std::set<std::string>& shifted) {
  if (!v.is_array()) {
    if (v.is_object()) {
      for (auto& [k, e] : v.items()) ShiftRefs(e, shifted);
    }
    return;
  }
  if (v.size() >= 3 && v[0].is_string() && v[1].is_number_integer() &&
      shifted.count(v[0].get<std::string>()) != 0) {
    v[1] = v[1].get<int64_t>() + 1;
    for (size_t i = 3; i < v.size(); ++i) ShiftRefs(v[i], shifted);
    return;
  }
  for (Json& e : v) ShiftRefs(e, shifted);
}

// The layers named by [layer, node, tensor] references anywhere in `v`.
void CollectRefs(const Json& v, std::set<std::string>* used) {
  if (v.is_object()) {
    for (const auto& [k, e] : v.items()) CollectRefs(e, used);
    return;
  }
  if (!v.is_array()) return;
  if (v.size() >= 3 && v[0].is_string() && v[1].is_number_integer()) {
    used->insert(v[0].get<std::string>());
  }
  for (const Json& e : v) CollectRefs(e, used);
}

// One Keras 3 inbound node {"args": [...], "kwargs": {...}} as a Keras 2 node: a list of
// [layer, node, tensor, kwargs] entries, the call's keyword arguments on the first.
Json ConvertNode(const Json& node, const std::string& cls) {
  if (!node.is_object()) return node;  // Keras 2 already
  auto args_it = node.find("args");
  if (args_it == node.end() || !args_it->is_array() || args_it->empty()) {
    throw ConfigError(StrCat("inbound node ", node.dump(), " has no tensor arguments"));
  }
  const Json& args = *args_it;
  std::vector<Json> refs;
  FlattenTensors(args[0], &refs);
  Json kwargs = Json::object();
  auto kw = node.find("kwargs");
  if (kw != node.end() && kw->is_object()) {
    for (const auto& [k, v] : kw->items()) {
      // Inference: `training` is false; null arguments are Keras's defaults. Keras 3 passes
      // masks explicitly (from a keras.ops.not_equal node for Embedding(mask_zero=True)); the
      // walker propagates them itself, as Keras 2 did.
      if (v.is_null() || k == "training" || k == "mask") continue;
      kwargs[k] = ConvertValue(v);
    }
  }
  const std::vector<std::string>& names = PositionalNames(cls);
  for (size_t i = 1; i < args.size(); ++i) {
    if (i - 1 < names.size()) {
      kwargs[names[i - 1]] = ConvertValue(args[i]);
    } else {
      FlattenTensors(args[i], &refs);
    }
  }
  if (refs.empty()) throw ConfigError("an inbound node without tensors");
  Json entries = Json::array();
  for (Json& r : refs) {
    r.push_back(Json::object());
    entries.push_back(std::move(r));
  }
  entries[0][3] = kwargs;
  return entries;
}

// A keras.ops node (x + 3.0) as the TFOpLambda layer tf-keras records for the same call.
void ConvertOpsNode(Json* layer) {
  const std::string cls = Get<std::string>(*layer, "class_name", "");
  const auto& [function, commutative] = OpsFunctions().at(cls);
  Json nodes = Json::array();
  for (const Json& node : layer->value("inbound_nodes", Json::array())) {
    auto args_it = node.find("args");
    if (!node.is_object() || args_it == node.end() || !args_it->is_array() ||
        args_it->size() != 2) {
      throw ConfigError(StrCat("keras.ops.", cls, " node ", node.dump(), " does not take 2 args"));
    }
    Json x = (*args_it)[0], y = (*args_it)[1];
    if (!IsKerasTensor(x) && IsKerasTensor(y) && commutative) std::swap(x, y);
    if (!IsKerasTensor(x)) {
      throw ConfigError(StrCat("keras.ops.", cls, " with a constant first argument"));
    }
    Json entry = TensorRef(x);
    entry.push_back(Json{{"y", ConvertValue(y)}, {"name", nullptr}});
    nodes.push_back(entry);  // tf-keras writes a one-tensor call as the bare entry
  }
  const std::string name = LayerName(*layer);
  (*layer)["class_name"] = "TFOpLambda";
  (*layer)["config"] =
      Json{{"name", name}, {"trainable", true}, {"dtype", "float32"}, {"function", function}};
  (*layer)["inbound_nodes"] = nodes;
}

// Keras 3 per-value rewrites, anywhere in the config: dtype policies to their names, and the
// activations whose definition changed.
void RewriteValues(Json& v) {
  if (v.is_array()) {
    for (Json& e : v) RewriteValues(e);
    return;
  }
  if (!v.is_object()) return;
  for (auto& [k, e] : v.items()) {
    if (k == "dtype" && e.is_object()) {
      const std::string policy = Get<std::string>(e, "class_name", "");
      auto config = e.find("config");
      if (StartsWith(policy, "Quantized")) {
        throw ConfigError(StrCat("the quantized dtype policy ", e.dump(), " (graphrt runs float)"));
      }
      if ((policy == "DTypePolicy" || policy == "FloatDTypePolicy" || policy == "Policy") &&
          config != e.end() && config->is_object()) {
        e = Get<std::string>(*config, "name", "float32");
        continue;
      }
    }
    if ((k == "activation" || k == "recurrent_activation") && e.is_string() &&
        e.get<std::string>() == "hard_sigmoid") {
      e = "keras3_hard_sigmoid";
      continue;
    }
    RewriteValues(e);
  }
}

// A Keras 3 model (and the models and wrapped layers inside it) in the Keras 2 spelling.
void NormalizeModel(Json& model) {
  const std::string cls = Get<std::string>(model, "class_name", "");
  Json* layers = ModelLayers(model);
  if (layers == nullptr) return;
  Json& config = model["config"];
  std::set<std::string> shifted;  // nested Sequentials with an InputLayer (see the header)
  for (Json& layer : *layers) {
    if (!layer.is_object()) continue;
    const std::string layer_cls = Get<std::string>(layer, "class_name", "");
    auto lc = layer.find("config");
    if (layer_cls == "InputLayer" && lc != layer.end() && lc->is_object() &&
        lc->contains("batch_shape") && !lc->contains("batch_input_shape")) {
      (*lc)["batch_input_shape"] = (*lc)["batch_shape"];
    }
    if (IsModelClass(layer_cls)) {
      NormalizeModel(layer);
      const Json* inner = ModelLayers(layer);
      if (layer_cls == "Sequential" && inner != nullptr && !inner->empty() &&
          Get<std::string>((*inner)[0], "class_name", "") == "InputLayer") {
        shifted.insert(LayerName(layer));
      }
    } else if (lc != layer.end() && lc->is_object()) {
      for (const char* key : {"layer", "backward_layer"}) {
        auto inner = lc->find(key);
        if (inner != lc->end() && inner->is_object() &&
            IsModelClass(Get<std::string>(*inner, "class_name", ""))) {
          NormalizeModel(*inner);
        }
      }
    }
  }
  if (cls == "Sequential") {
    // A Sequential built without an InputLayer: its input shape is in build_input_shape.
    if (!layers->empty() && (*layers)[0].is_object() &&
        Get<std::string>((*layers)[0], "class_name", "") != "InputLayer") {
      Json& first = (*layers)[0];
      auto fc = first.find("config");
      if (fc != first.end() && fc->is_object() && !fc->contains("batch_input_shape")) {
        Json shape;
        if (config.is_object() && config.contains("build_input_shape")) {
          shape = config["build_input_shape"];
        } else if (first.contains("build_config") && first["build_config"].is_object()) {
          shape = first["build_config"].value("input_shape", Json());
        }
        if (shape.is_array()) (*fc)["batch_input_shape"] = shape;
      }
    }
    return;
  }
  for (const char* key : {"input_layers", "output_layers"}) {
    auto it = config.find(key);
    // One input or output is written as [name, node, tensor], not a list of them.
    if (it != config.end() && it->is_array() && !it->empty() && (*it)[0].is_string()) {
      *it = Json::array({*it});
    }
  }
  for (Json& layer : *layers) {
    if (!layer.is_object()) continue;
    if (IsOpsNode(layer) && OpsFunctions().count(Get<std::string>(layer, "class_name", "")) != 0) {
      ConvertOpsNode(&layer);
    } else if (!IsOpsNode(layer)) {  // other keras.ops nodes: dropped below, or refused
      auto nodes = layer.find("inbound_nodes");
      if (nodes != layer.end() && nodes->is_array()) {
        const std::string layer_cls = Get<std::string>(layer, "class_name", "");
        for (Json& node : *nodes) node = ConvertNode(node, layer_cls);
      }
    }
    if (!shifted.empty() && layer.contains("inbound_nodes")) {
      ShiftRefs(layer["inbound_nodes"], shifted);
    }
  }
  if (!shifted.empty() && config.contains("output_layers")) {
    ShiftRefs(config["output_layers"], shifted);
  }
  // keras.ops nodes nothing uses any more (the masks dropped above).
  std::set<std::string> used;
  CollectRefs(config.value("output_layers", Json::array()), &used);
  for (const Json& layer : *layers) {
    if (layer.is_object()) CollectRefs(layer.value("inbound_nodes", Json::array()), &used);
  }
  Json kept = Json::array();
  for (Json& layer : *layers) {
    if (!layer.is_object() || !IsOpsNode(layer) || used.count(LayerName(layer)) != 0) {
      kept.push_back(std::move(layer));
    }
  }
  *layers = std::move(kept);
}

bool HasKeras3Markers(const Json& v) {
  if (v.is_array()) {
    for (const Json& e : v) {
      if (HasKeras3Markers(e)) return true;
    }
    return false;
  }
  if (!v.is_object()) return false;
  auto dtype = v.find("dtype");
  if (dtype != v.end() && dtype->is_object()) {
    std::string policy = Get<std::string>(*dtype, "class_name", "");
    if (policy == "DTypePolicy" || policy == "FloatDTypePolicy") return true;
  }
  if (v.contains("batch_shape") && !v.contains("batch_input_shape")) return true;
  auto nodes = v.find("inbound_nodes");
  if (nodes != v.end() && nodes->is_array() && !nodes->empty() && (*nodes)[0].is_object()) {
    return true;
  }
  for (const auto& [k, e] : v.items()) {
    if (HasKeras3Markers(e)) return true;
  }
  return false;
}

}  // namespace

std::string KerasSnakeCase(const std::string& class_name) {
  // Keras's naming.to_snake_case, regex for regex.
  static const std::regex non_word("[^A-Za-z0-9_]+");
  static const std::regex word("(.)([A-Z][a-z]+)");
  static const std::regex lower_upper("([a-z])([A-Z])");
  std::string s = std::regex_replace(class_name, non_word, "");
  s = std::regex_replace(s, word, "$1_$2");
  s = std::regex_replace(s, lower_upper, "$1_$2");
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool IsKeras3Config(const Json& model, const std::string& keras_version) {
  if (StartsWith(keras_version, "3.")) return true;
  if (StartsWith(keras_version, "2.")) return false;
  return HasKeras3Markers(model);
}

Status NormalizeKerasConfig(Json* model, bool keras3, const std::string& path) {
  std::vector<std::string> bad;
  FindForeign(*model, &bad);
  if (!bad.empty()) {
    return Unimplemented("Keras layers in ", path, " that graphrt cannot run: ", StrJoin(bad, ", "),
                         " (only Keras's own layers run outside Python)");
  }
  if (!keras3) return Status::OK();
  try {
    RewriteValues(*model);
    NormalizeModel(*model);
  } catch (const ConfigError& e) {
    return InvalidArgument("Keras 3 model_config of ", path, ": ", e.what());
  }
  FindUnreplayedOps(*model, &bad);
  if (!bad.empty()) {
    return Unimplemented("Keras 3 operations in ", path,
                         " that graphrt cannot run: ", StrJoin(bad, ", "),
                         " (calls of keras.ops functions on symbolic tensors; ",
                         "graphrt replays add, subtract, multiply and divide)");
  }
  return Status::OK();
}

namespace {

// The /layers/<key> groups of a model's layers, in layer order.
std::vector<std::pair<std::string, const Json*>> GroupKeys(const Json& model) {
  std::vector<std::pair<std::string, const Json*>> keys;
  const Json* layers = ModelLayers(model);
  if (layers == nullptr) return keys;
  std::map<std::string, int> used;
  for (const Json& layer : *layers) {
    if (!layer.is_object()) continue;
    // keras.ops nodes are not layers: Keras does not save them (they have no weights).
    if (IsOpsNode(layer)) continue;
    std::string key = KerasSnakeCase(Get<std::string>(layer, "class_name", ""));
    auto it = used.find(key);
    if (it == used.end()) {
      used[key] = 0;
    } else {
      key = StrCat(key, "_", ++it->second);
    }
    keys.emplace_back(key, &layer);
  }
  return keys;
}

// The name of raw weight `path` ("layers/dense/vars/0") inside nested model `model`:
// "<inner layer>/..." down to the innermost layer that is not a model.
StatusOr<std::string> NestedWeightName(const Json& model, const std::string& model_name,
                                       const std::string& path, const std::string& where,
                                       int depth) {
  if (depth > kMaxConfigDepth) return InvalidArgument(where, ": models nest too deeply");
  if (!StartsWith(path, "layers/")) {
    return InvalidArgument(where, ": weight '", path, "' of nested model '", model_name,
                           "' is not under one of its layers");
  }
  size_t slash = path.find('/', 7);
  if (slash == std::string::npos) return InvalidArgument(where, ": malformed weight path ", path);
  const std::string key = path.substr(7, slash - 7);
  const std::string rest = path.substr(slash + 1);
  for (const auto& [k, layer] : GroupKeys(model)) {
    if (k != key) continue;
    const std::string name = LayerName(*layer);
    if (IsModelClass(Get<std::string>(*layer, "class_name", ""))) {
      GRT_ASSIGN_OR_RETURN(std::string inner,
                           NestedWeightName(*layer, name, rest, where, depth + 1));
      return StrCat(name, "/", inner);
    }
    return StrCat(name, "/", rest);
  }
  return InvalidArgument(where, ": weights group 'layers/", key, "' matches no layer of model '",
                         model_name, "'");
}

// An asset's path below assets/ ("layers/text_vectorization_1/vocabulary.txt") with each
// "layers/<key>" renamed to "layers/<layer name>"; the path as it was when a key matches no
// layer.
std::string AssetPath(const Json& model, const std::string& path, int depth) {
  if (depth > kMaxConfigDepth || !StartsWith(path, "layers/")) return path;
  size_t slash = path.find('/', 7);
  if (slash == std::string::npos) return path;
  const std::string key = path.substr(7, slash - 7);
  const std::string rest = path.substr(slash + 1);
  for (const auto& [k, layer] : GroupKeys(model)) {
    if (k != key) continue;
    const bool nested = IsModelClass(Get<std::string>(*layer, "class_name", ""));
    return StrCat("layers/", LayerName(*layer), "/",
                  nested ? AssetPath(*layer, rest, depth + 1) : rest);
  }
  return path;
}

}  // namespace

StatusOr<KerasH5File> MapKeras3Weights(const Json& model, const KerasH5File& raw) {
  KerasH5File out;
  out.path = raw.path;
  out.layout = KerasWeightsLayout::kKeras3;
  out.keras_version = raw.keras_version;
  out.backend = raw.backend;
  out.model_config = raw.model_config;
  out.training_config = raw.training_config;
  out.has_optimizer_weights = raw.has_optimizer_weights;
  for (const auto& [path, data] : raw.assets) out.assets[AssetPath(model, path, 0)] = data;
  std::map<std::string, const KerasLayerWeights*> groups;
  for (const KerasLayerWeights& g : raw.layers) groups[g.layer] = &g;
  std::set<std::string> taken;
  for (const auto& [key, layer] : GroupKeys(model)) {
    auto it = groups.find(key);
    if (it == groups.end()) continue;
    taken.insert(key);
    const std::string name = LayerName(*layer);
    const bool nested = IsModelClass(Get<std::string>(*layer, "class_name", ""));
    KerasLayerWeights& entry = out.layers.emplace_back();
    entry.layer = name;
    for (const KerasWeight& w : it->second->weights) {
      KerasWeight& mapped = entry.weights.emplace_back();
      mapped.value = w.value;
      const std::string where = StrCat(raw.path, ": layers/", key);
      if (nested) {
        GRT_ASSIGN_OR_RETURN(mapped.name, NestedWeightName(*layer, name, w.name, where, 0));
      } else {
        mapped.name = StrCat(name, "/", w.name);
      }
    }
  }
  for (const KerasLayerWeights& g : raw.layers) {
    if (taken.count(g.layer) == 0 && !g.weights.empty()) {
      return InvalidArgument(raw.path, ": weights group 'layers/", g.layer, "' (", g.weights.size(),
                             " weights) matches no layer of the model");
    }
  }
  return out;
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
