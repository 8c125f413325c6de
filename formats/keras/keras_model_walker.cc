// Walks a Sequential or Functional model: makes its inputs, calls each layer once its inputs
// exist (shared layers once per call, nested models inside their own scope), and names its
// outputs.
#include "formats/keras/keras_builder_internal.h"

#include <limits>
#include <map>
#include <set>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

// The input ranks each layer class accepts (all inputs); classes not listed take any.
const std::map<std::string, std::pair<int, int>>& InputRanks() {
  static const auto* ranks = new std::map<std::string, std::pair<int, int>>{
      {"Dense", {2, 8}},
      {"RepeatVector", {2, 2}},
      {"Permute", {2, 8}},
      {"Flatten", {1, 8}},
      {"Reshape", {1, 8}},
      {"BatchNormalization", {2, 8}},
      {"LayerNormalization", {2, 8}},
      {"PReLU", {2, 8}},
      {"Softmax", {1, 8}},
      {"Concatenate", {1, 8}},
      {"Dot", {2, 3}},
      {"SimpleRNN", {3, 3}},
      {"LSTM", {3, 3}},
      {"GRU", {3, 3}},
      {"Bidirectional", {3, 6}},
      {"TimeDistributed", {3, 8}},
      {"ZeroPadding1D", {3, 3}},
      {"ZeroPadding2D", {4, 4}},
      {"Cropping1D", {3, 3}},
      {"Cropping2D", {4, 4}},
      {"UpSampling1D", {3, 3}},
      {"UpSampling2D", {4, 4}},
      {"GlobalMaxPooling1D", {3, 3}},
      {"GlobalMaxPool1D", {3, 3}},
      {"GlobalAveragePooling1D", {3, 3}},
      {"GlobalAvgPool1D", {3, 3}},
      {"GlobalMaxPooling2D", {4, 4}},
      {"GlobalMaxPool2D", {4, 4}},
      {"GlobalAveragePooling2D", {4, 4}},
      {"GlobalAvgPool2D", {4, 4}},
      {"ZeroPadding3D", {5, 5}},
      {"Cropping3D", {5, 5}},
      {"UpSampling3D", {5, 5}},
      {"GlobalMaxPooling3D", {5, 5}},
      {"GlobalMaxPool3D", {5, 5}},
      {"GlobalAveragePooling3D", {5, 5}},
      {"GlobalAvgPool3D", {5, 5}},
  };
  return *ranks;
}

// A nested model built with its own Input layer has a node of its own (node 0), which its
// config leaves out: references to its calls count from 1 (Keras's _should_skip_first_node).
int FirstNodeIndex(const Json& layer) {
  std::string cls = Get<std::string>(layer, "class_name", "");
  if (cls == "Functional" || cls == "Model") return 1;
  if (cls != "Sequential") return 0;
  auto config = layer.find("config");
  if (config == layer.end()) return 0;
  const Json& layers = config->is_array() ? *config : config->value("layers", Json::array());
  return !layers.empty() && Get<std::string>(layers[0], "class_name", "") == "InputLayer" ? 1 : 0;
}

// (layer, node index, tensor index) of an inbound node entry, Keras 2 spelling
// [name, node_index, tensor_index, kwargs].
struct InboundRef {
  std::string layer;
  int node = 0;
  int tensor = 0;
};

Status ParseInbound(const Json& entry, const std::string& layer, InboundRef* ref) {
  constexpr int64_t kMaxIndex = 1 << 20;
  if (!entry.is_array() || entry.size() < 3 || !entry[0].is_string() ||
      !entry[1].is_number_integer() || !entry[2].is_number_integer() ||
      entry[1].get<int64_t>() < 0 || entry[1].get<int64_t>() > kMaxIndex ||
      entry[2].get<int64_t>() < 0 || entry[2].get<int64_t>() > kMaxIndex) {
    return InvalidArgument("layer '", layer, "': malformed inbound node entry ", entry.dump());
  }
  ref->layer = entry[0].get<std::string>();
  ref->node = static_cast<int>(entry[1].get<int64_t>());
  ref->tensor = static_cast<int>(entry[2].get<int64_t>());
  return Status::OK();
}

// Whether `e` is Keras's reference to a tensor: [layer, node, tensor] or [layer, node, tensor,
// kwargs] (tf-keras's convert_inner_node_data reads any such list so).
bool IsTensorRef(const Json& e) {
  return e.is_array() && (e.size() == 3 || e.size() == 4) && e[0].is_string();
}

constexpr char kConstantValue[] = "_CONSTANT_VALUE";

// Replaces each tensor reference in `j` (a call's keyword arguments) by {"__input__": i}, i
// indexing `refs`.
Status ReplaceTensorRefs(Json* j, const std::string& layer, std::vector<InboundRef>* refs) {
  if (IsTensorRef(*j)) {
    InboundRef r;
    GRT_RETURN_IF_ERROR(ParseInbound(*j, layer, &r));
    *j = Json{{kInputRef, refs->size()}};
    refs->push_back(r);
    return Status::OK();
  }
  if (j->is_array() || j->is_object()) {
    for (Json& v : *j) GRT_RETURN_IF_ERROR(ReplaceTensorRefs(&v, layer, refs));
  }
  return Status::OK();
}

// The first argument of a TFOpLambda call as recorded (a tensor entry, a _CONSTANT_VALUE entry or
// a nested list of them, each entry carrying the keyword arguments), with tensor entries replaced
// by {"__input__": i}; `kwargs` gets the first entry's keyword arguments.
Status ResolveFirstArg(const Json& data, const std::string& layer, Json* arg, Json* kwargs,
                       std::vector<InboundRef>* refs) {
  if (IsTensorRef(data)) {
    if (data.size() == 4 && kwargs->is_null()) *kwargs = data[3];
    if (data[0] == kConstantValue) {
      *arg = data[2];
      return Status::OK();
    }
    InboundRef r;
    GRT_RETURN_IF_ERROR(ParseInbound(data, layer, &r));
    *arg = Json{{kInputRef, refs->size()}};
    refs->push_back(r);
    return Status::OK();
  }
  if (!data.is_array()) {
    return InvalidArgument("layer '", layer, "': malformed inbound node ", data.dump());
  }
  *arg = Json::array();
  for (const Json& e : data) {
    Json item;
    GRT_RETURN_IF_ERROR(ResolveFirstArg(e, layer, &item, kwargs, refs));
    arg->push_back(std::move(item));
  }
  return Status::OK();
}

// A TFOpLambda's call {"args": [first], "kwargs": {...}} and the tensors it refers to, in order.
Status ResolveOpCall(const Json& node, const std::string& layer, Json* call,
                     std::vector<InboundRef>* refs) {
  Json first, kwargs;
  GRT_RETURN_IF_ERROR(ResolveFirstArg(node, layer, &first, &kwargs, refs));
  if (kwargs.is_null()) kwargs = Json::object();
  if (!kwargs.is_object()) {
    return InvalidArgument("layer '", layer, "': call arguments are not a JSON object");
  }
  GRT_RETURN_IF_ERROR(ReplaceTensorRefs(&kwargs, layer, refs));
  *call = Json{{"args", Json::array({std::move(first)})}, {"kwargs", std::move(kwargs)}};
  return Status::OK();
}

bool IsOpLambda(const std::string& cls) { return cls == "TFOpLambda" || cls == "SlicingOpLambda"; }

}  // namespace

void ModelWalker::FindUnsupported(const Json& layer, std::vector<std::string>* bad) const {
  std::string cls = Get<std::string>(layer, "class_name", "");
  const Json& config = layer.contains("config") ? layer["config"] : Json::object();
  std::string name = config.is_object() ? Get<std::string>(config, "name", "") : "";
  if (name.empty()) name = Get<std::string>(layer, "name", "?");
  if (LayerBuilders().count(cls) == 0) {
    bad->push_back(StrCat(name, " (", cls, ")"));
    return;
  }
  if (IsOpLambda(cls)) {
    std::string function = config.is_object() ? Get<std::string>(config, "function", "") : "";
    std::string why = OpLambdaUnsupported(function);
    if (!why.empty()) bad->push_back(StrCat(name, " (", cls, " ", function, ": ", why, ")"));
    return;
  }
  if (cls == "Sequential" || cls == "Model" || cls == "Functional") {
    const Json& layers = config.is_array() ? config : config.value("layers", Json::array());
    if (!layers.is_array()) return;  // BuildModel names it
    for (const Json& l : layers) FindUnsupported(l, bad);
  } else if (cls == "Bidirectional" || cls == "TimeDistributed") {
    if (config.contains("layer")) FindUnsupported(config["layer"], bad);
    if (config.contains("backward_layer")) FindUnsupported(config["backward_layer"], bad);
  }
}

Status ModelWalker::Build(const Json& model) {
  std::vector<std::string> bad;
  FindUnsupported(model, &bad);
  // The model itself is a Sequential/Functional; its own class is fine.
  if (!bad.empty()) {
    return Unimplemented("unsupported Keras layers in ", file_.path, ": ", StrJoin(bad, ", "),
                         " (graphrt cannot run Lambda layers or custom classes; rebuild the ",
                         "model from standard layers)");
  }
  out_->model_class = Get<std::string>(model, "class_name", "");
  for (const KerasLayerWeights& layer : file_.layers) {
    for (const KerasWeight& w : layer.weights) top_weights_[layer.layer].push_back(&w);
  }
  std::vector<Value> outputs;
  GRT_RETURN_IF_ERROR(BuildModel(model, "", nullptr, top_weights_, &outputs));
  if (!emit_.resets().empty()) {
    std::vector<std::string> inputs;
    for (const std::string& r : emit_.resets()) inputs.push_back("^" + r);
    out_->reset_states_op = emit_.Add("NoOp", "reset_states", inputs)->name();
  }
  // Weights for layers the model does not have.
  for (const auto& [layer, weights] : top_weights_) {
    bool known = false;
    for (const KerasLayerInfo& info : out_->layers) known = known || info.name == layer;
    if (!known && !weights.empty()) {
      return InvalidArgument("weights for layer '", layer, "' in ", file_.path,
                             " but the model has no such layer");
    }
  }
  return Status::OK();
}

Status ModelWalker::BuildModel(const Json& model, const std::string& scope,
                               const std::vector<Value>* bound, const WeightMap& weights,
                               std::vector<Value>* outputs) {
  const bool top = bound == nullptr;
  std::string cls = Get<std::string>(model, "class_name", "");
  GRT_ASSIGN_OR_RETURN(const Json* config_json,
                       Member(model, "config", scope.empty() ? "(model)" : scope));
  const Json& config = *config_json;
  const Json& layers = config.is_array() ? config : config.value("layers", Json::array());
  if (!layers.is_array()) {
    return InvalidArgument("the layers of model '", scope, "' in ", file_.path, " are not a list");
  }
  auto layer_name = [](const Json& l) {
    std::string n = l.contains("config") && l["config"].is_object()
                        ? Get<std::string>(l["config"], "name", "")
                        : "";
    return n.empty() ? Get<std::string>(l, "name", "") : n;
  };
  // For errors: a layer without a name by its class.
  auto label = [&](const Json& l) {
    std::string n = layer_name(l);
    return n.empty() ? Get<std::string>(l, "class_name", "?") : n;
  };
  auto cursor_for = [&](const std::string& name) {
    auto it = weights.find(name);
    std::vector<const KerasWeight*> w;
    if (it != weights.end()) w = it->second;
    return WeightCursor(name, file_.path, std::move(w));
  };
  auto record = [&](const Json& l, const std::string& name, const std::vector<Value>& outs) {
    if (!top) return;
    KerasLayerInfo info;
    info.name = name;
    info.class_name = Get<std::string>(l, "class_name", "");
    for (const Value& v : outs) info.output_shapes.push_back(v.shape);
    auto it = weights.find(name);
    if (it != weights.end()) {
      for (const KerasWeight* w : it->second) {
        info.weights.emplace_back(w->name, TensorDims(w->value));
      }
    }
    out_->layers.push_back(info);
  };
  auto make_input = [&](const std::string& name, Shape batch_shape,
                        const std::string& dtype_name) -> StatusOr<Value> {
    for (int64_t d : batch_shape) {
      if (d < -1 || d > std::numeric_limits<int32_t>::max()) {
        return InvalidArgument("input layer '", name, "' has a dimension of ", d);
      }
    }
    DataType dtype = kFloat;
    if (!DataTypeFromString(dtype_name, &dtype)) {
      return Unimplemented("input layer '", name, "' has dtype ", dtype_name);
    }
    NodeDef* n = emit_.Add("Placeholder", scope + name, {});
    SetNodeAttr(n, "dtype", dtype);
    SetNodeAttr(n, "shape", PartialTensorShape(batch_shape));
    Value v{n->name(), batch_shape, dtype};
    out_->inputs.push_back(KerasTensorInfo{name, n->name() + ":0", dtype, batch_shape});
    return v;
  };

  if (cls == "Sequential") {
    if (layers.empty()) return InvalidArgument("Sequential model with no layers in ", file_.path);
    if (!top && bound->empty()) {
      return InvalidArgument("nested Sequential model '", scope, "' in ", file_.path,
                             " is called with no inputs");
    }
    Value current;
    size_t first = 0;
    if (Get<std::string>(layers[0], "class_name", "") == "InputLayer") {
      std::string name = layer_name(layers[0]);
      GRT_ASSIGN_OR_RETURN(const Json* config0, Member(layers[0], "config", label(layers[0])));
      const Json& c = *config0;
      if (top) {
        GRT_ASSIGN_OR_RETURN(current, make_input(name, GetInts(c, "batch_input_shape", 0, -1),
                                                 Get<std::string>(c, "dtype", "float32")));
        record(layers[0], name, {current});
      } else {
        current = (*bound)[0];
      }
      first = 1;
    } else if (top) {
      GRT_ASSIGN_OR_RETURN(const Json* config0, Member(layers[0], "config", label(layers[0])));
      const Json& c = *config0;
      Shape shape = GetInts(c, "batch_input_shape", 0, -1);
      if (shape.empty()) {
        return InvalidArgument("the first layer of Sequential model in ", file_.path,
                               " gives no batch_input_shape");
      }
      GRT_ASSIGN_OR_RETURN(current, make_input(layer_name(layers[0]) + "_input", shape,
                                               Get<std::string>(c, "dtype", "float32")));
    } else {
      current = (*bound)[0];
    }
    for (size_t i = first; i < layers.size(); ++i) {
      std::string name = layer_name(layers[i]);
      WeightCursor cursor = cursor_for(name);
      std::vector<Value> outs;
      GRT_RETURN_IF_ERROR(CallLayer(layers[i], scope, {current}, nullptr, &cursor, &outs));
      GRT_RETURN_IF_ERROR(cursor.Finish());
      if (outs.empty()) {
        return InvalidArgument("layer '", name, "' in ", file_.path, " gives no output");
      }
      record(layers[i], name, outs);
      current = outs[0];
    }
    std::string last = layer_name(layers.back());
    outputs->push_back(current);
    if (top) {
      NodeDef* n = emit_.Add("Identity", scope + last, {current.tensor});
      SetNodeAttr(n, "T", current.dtype);
      out_->outputs.push_back(
          KerasTensorInfo{last, n->name() + ":0", current.dtype, current.shape});
    }
    return Status::OK();
  }

  // Functional: run each (layer, node) once its inbound tensors exist.
  std::map<std::string, const Json*> by_name;
  for (const Json& l : layers) by_name[layer_name(l)] = &l;
  // (layer, node) -> outputs
  std::map<std::pair<std::string, int>, std::vector<Value>> produced;
  const Json& input_layers = config.value("input_layers", Json::array());
  std::vector<InboundRef> input_refs, output_refs;
  for (const Json& e : input_layers) {
    InboundRef r;
    GRT_RETURN_IF_ERROR(ParseInbound(e, "input_layers", &r));
    input_refs.push_back(r);
  }
  for (const Json& e : config.value("output_layers", Json::array())) {
    InboundRef r;
    GRT_RETURN_IF_ERROR(ParseInbound(e, "output_layers", &r));
    output_refs.push_back(r);
  }
  if (!top && bound->size() != input_refs.size()) {
    return InvalidArgument("nested model '", scope, "' takes ", input_refs.size(),
                           " inputs but is called with ", bound->size());
  }
  for (size_t i = 0; i < input_refs.size(); ++i) {
    auto it = by_name.find(input_refs[i].layer);
    if (it == by_name.end()) {
      return InvalidArgument("model input '", input_refs[i].layer, "' is not a layer of ",
                             file_.path);
    }
    if (top) {
      GRT_ASSIGN_OR_RETURN(const Json* input_config,
                           Member(*it->second, "config", input_refs[i].layer));
      const Json& c = *input_config;
      GRT_ASSIGN_OR_RETURN(Value v,
                           make_input(input_refs[i].layer, GetInts(c, "batch_input_shape", 0, -1),
                                      Get<std::string>(c, "dtype", "float32")));
      produced[{input_refs[i].layer, 0}] = {v};
    } else {
      produced[{input_refs[i].layer, 0}] = {(*bound)[i]};
    }
  }
  // Pending calls in config order; loop until nothing more can run.
  struct Pending {
    const Json* layer;
    std::string name;
    int node;    // index into inbound_nodes
    int offset;  // what other layers call node 0 (see FirstNodeIndex)
  };
  std::vector<Pending> pending;
  for (const Json& l : layers) {
    std::string name = layer_name(l);
    if (Get<std::string>(l, "class_name", "") == "InputLayer") {
      if (produced.count({name, 0}) == 0) {
        return InvalidArgument("input layer '", name, "' is not among the model's inputs");
      }
      record(l, name, produced[{name, 0}]);
      continue;
    }
    const Json& nodes = l.value("inbound_nodes", Json::array());
    if (!nodes.is_array())
      return InvalidArgument("layer '", name, "': inbound_nodes is not a list");
    for (size_t k = 0; k < nodes.size(); ++k) {
      pending.push_back({&l, name, static_cast<int>(k), FirstNodeIndex(l)});
    }
  }
  std::set<std::string> recorded;
  while (!pending.empty()) {
    bool progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const Json& node = (*it->layer)["inbound_nodes"][it->node];
      std::vector<InboundRef> refs;
      const Json* kwargs = nullptr;
      bool ready = true;
      Json op_call;
      if (IsOpLambda(Get<std::string>(*it->layer, "class_name", ""))) {
        GRT_RETURN_IF_ERROR(ResolveOpCall(node, it->name, &op_call, &refs));
        kwargs = &op_call;
      } else {
        // Keras 2: a list of [layer, node, tensor, kwargs] entries.
        for (const Json& e : node) {
          InboundRef r;
          GRT_RETURN_IF_ERROR(ParseInbound(e, it->name, &r));
          if (e.size() > 3 && e[3].is_object() && !e[3].empty()) kwargs = &e[3];
          refs.push_back(r);
        }
      }
      std::vector<Value> inputs;
      for (const InboundRef& r : refs) {
        auto p = produced.find({r.layer, r.node});
        if (p == produced.end()) {
          ready = false;
          break;
        }
        if (r.tensor >= static_cast<int>(p->second.size())) {
          return InvalidArgument("layer '", it->name, "' takes output ", r.tensor, " of '", r.layer,
                                 "', which has ", p->second.size());
        }
        inputs.push_back(p->second[r.tensor]);
      }
      // initial_state passed as a keyword: more inputs.
      if (ready && kwargs != nullptr && kwargs->contains("initial_state")) {
        Json states = (*kwargs)["initial_state"];
        if (states.is_array() && !states.empty() && states[0].is_string()) {
          states = Json::array({states});
        }
        for (const Json& s : states) {
          InboundRef r;
          GRT_RETURN_IF_ERROR(ParseInbound(s, it->name, &r));
          auto p = produced.find({r.layer, r.node});
          if (p == produced.end()) {
            ready = false;
            break;
          }
          if (r.tensor >= static_cast<int>(p->second.size())) {
            return InvalidArgument("layer '", it->name, "' takes initial state ", r.tensor, " of '",
                                   r.layer, "', which has ", p->second.size());
          }
          inputs.push_back(p->second[r.tensor]);
        }
      }
      // Tensors passed by keyword (MultiHeadAttention's value, key and attention_mask).
      std::map<std::string, Value> tensor_kwargs;
      if (ready && kwargs != nullptr) {
        for (const char* key : {"query", "value", "key", "attention_mask"}) {
          auto arg = kwargs->find(key);
          if (arg == kwargs->end() || arg->is_null()) continue;
          InboundRef r;
          GRT_RETURN_IF_ERROR(ParseInbound(*arg, it->name, &r));
          auto p = produced.find({r.layer, r.node});
          if (p == produced.end()) {
            ready = false;
            break;
          }
          if (r.tensor >= static_cast<int>(p->second.size())) {
            return InvalidArgument("layer '", it->name, "' takes ", key, " from output ", r.tensor,
                                   " of '", r.layer, "', which has ", p->second.size());
          }
          tensor_kwargs[key] = p->second[r.tensor];
        }
      }
      if (!ready) {
        ++it;
        continue;
      }
      std::string call_scope = scope + it->name;
      if (it->node > 0) call_scope += StrCat("_call", it->node);
      // A shared layer uses the same weights at each call.
      WeightCursor cursor = cursor_for(it->name);
      std::vector<Value> outs;
      GRT_RETURN_IF_ERROR(
          CallLayer(*it->layer, scope, inputs, kwargs, &cursor, &outs, std::move(tensor_kwargs)));
      GRT_RETURN_IF_ERROR(cursor.Finish());
      if (recorded.insert(it->name).second) record(*it->layer, it->name, outs);
      produced[{it->name, it->node + it->offset}] = outs;
      it = pending.erase(it);
      progress = true;
    }
    if (!progress) {
      std::vector<std::string> stuck;
      for (const Pending& p : pending) stuck.push_back(p.name);
      return InvalidArgument("layers whose inputs never become available in ", file_.path, ": ",
                             StrJoin(stuck, ", "));
    }
  }
  // Layers defined but never called still need their weights checked.
  for (const Json& l : layers) {
    std::string name = layer_name(l);
    if (top && recorded.count(name) == 0 && Get<std::string>(l, "class_name", "") != "InputLayer") {
      record(l, name, {});
    }
  }
  // Outputs; an output layer with several outputs becomes one IdentityN.
  std::map<std::string, std::vector<size_t>> per_layer;
  for (size_t i = 0; i < output_refs.size(); ++i) {
    auto p = produced.find({output_refs[i].layer, output_refs[i].node});
    if (p == produced.end() || output_refs[i].tensor >= static_cast<int>(p->second.size())) {
      return InvalidArgument("model output '", output_refs[i].layer, "' is never computed");
    }
    outputs->push_back(p->second[output_refs[i].tensor]);
    per_layer[output_refs[i].layer].push_back(i);
  }
  if (!top) return Status::OK();
  std::map<std::string, std::string> output_node;
  std::map<std::pair<std::string, int>, int> slot;  // (layer, tensor) -> IdentityN slot
  for (const auto& [layer, indices] : per_layer) {
    std::vector<std::string> tensors;
    std::vector<DataType> types;
    for (size_t i : indices) {
      auto key = std::make_pair(layer, output_refs[i].tensor);
      if (slot.count(key) != 0) continue;
      slot[key] = static_cast<int>(tensors.size());
      tensors.push_back((*outputs)[i].tensor);
      types.push_back((*outputs)[i].dtype);
    }
    NodeDef* n;
    if (tensors.size() == 1) {
      n = emit_.Add("Identity", scope + layer, tensors);
      SetNodeAttr(n, "T", types[0]);
    } else {
      n = emit_.Add("IdentityN", scope + layer, tensors);
      SetNodeAttr(n, "T", types);
    }
    output_node[layer] = n->name();
  }
  for (size_t i = 0; i < output_refs.size(); ++i) {
    int s = slot[{output_refs[i].layer, output_refs[i].tensor}];
    const Value& v = (*outputs)[i];
    out_->outputs.push_back(KerasTensorInfo{
        output_refs[i].layer, StrCat(output_node[output_refs[i].layer], ":", s), v.dtype, v.shape});
  }
  return Status::OK();
}

Status ModelWalker::CallLayer(const Json& layer, const std::string& scope,
                              std::vector<Value> inputs, const Json* kwargs, WeightCursor* weights,
                              std::vector<Value>* outputs,
                              std::map<std::string, Value> tensor_kwargs) {
  LayerCall c;
  c.class_name = Get<std::string>(layer, "class_name", "");
  std::string fallback_name = Get<std::string>(layer, "name", c.class_name);
  GRT_ASSIGN_OR_RETURN(c.config, Member(layer, "config", fallback_name));
  if (!c.config->is_object()) {
    return InvalidArgument("layer '", fallback_name, "' (", c.class_name,
                           "): its config is not a JSON object");
  }
  c.name = Get<std::string>(*c.config, "name", fallback_name);
  c.scope = scope + c.name;
  c.inputs = std::move(inputs);
  c.kwargs = kwargs;
  c.tensor_kwargs = std::move(tensor_kwargs);
  c.weights = weights;
  c.emit = &emit_;
  c.walker = this;
  auto it = LayerBuilders().find(c.class_name);
  if (it == LayerBuilders().end()) {
    return Unimplemented("layer '", c.name, "' of unsupported class ", c.class_name);
  }
  if (c.inputs.empty()) return InvalidArgument("layer '", c.name, "' is called with no inputs");
  GRT_RETURN_IF_ERROR(CheckDataFormat(c));
  auto ranks = InputRanks().find(c.class_name);
  if (ranks != InputRanks().end()) {
    // Recurrent layers' further inputs are initial states, of rank 2.
    bool first_only = c.class_name == "SimpleRNN" || c.class_name == "LSTM" ||
                      c.class_name == "GRU" || c.class_name == "Bidirectional";
    for (size_t i = 0; i < (first_only ? 1 : c.inputs.size()); ++i) {
      const Value& v = c.inputs[i];
      if (v.rank() < ranks->second.first || v.rank() > ranks->second.second) {
        return InvalidArgument("layer '", c.name, "' (", c.class_name, ") takes inputs of rank ",
                               ranks->second.first, "..", ranks->second.second, ", got ",
                               ShapeString(v.shape));
      }
    }
  }
  // Masks as Keras propagates them: layers that pass the mask on unchanged, layers that use it
  // (and set their outputs' masks themselves), and layers that do not support masking, which
  // Keras lets drop it. Any other layer receiving a mask is refused rather than guessed at.
  static const std::set<std::string> kPassMask = {"Dense",
                                                  "Activation",
                                                  "Dropout",
                                                  "SpatialDropout1D",
                                                  "GaussianNoise",
                                                  "GaussianDropout",
                                                  "AlphaDropout",
                                                  "ActivityRegularization",
                                                  "ReLU",
                                                  "LeakyReLU",
                                                  "PReLU",
                                                  "ELU",
                                                  "ThresholdedReLU",
                                                  "BatchNormalization",
                                                  "SyncBatchNormalization",
                                                  "LayerNormalization",
                                                  "UnitNormalization",
                                                  "TimeDistributed"};
  static const std::set<std::string> kUseMask = {"SimpleRNN",
                                                 "LSTM",
                                                 "GRU",
                                                 "RNN",
                                                 "Bidirectional",
                                                 "GlobalAveragePooling1D",
                                                 "GlobalAvgPool1D",
                                                 "MultiHeadAttention",
                                                 "Attention",
                                                 "AdditiveAttention",
                                                 "Add",
                                                 "Subtract",
                                                 "Multiply",
                                                 "Average",
                                                 "Maximum",
                                                 "Minimum",
                                                 "Concatenate"};
  static const std::set<std::string> kDropMask = {"GlobalMaxPooling1D",
                                                  "GlobalMaxPool1D",
                                                  "Flatten",
                                                  "Reshape",
                                                  "Permute",
                                                  "RepeatVector",
                                                  "Dot",
                                                  "EinsumDense",
                                                  "Conv1D",
                                                  "MaxPooling1D",
                                                  "AveragePooling1D"};
  std::string mask;
  for (const Value& v : c.inputs) {
    if (!v.mask.empty()) mask = v.mask;
  }
  for (const auto& [key, v] : c.tensor_kwargs) {
    if (!v.mask.empty() && key != "attention_mask") mask = v.mask;
  }
  if (!mask.empty() && kPassMask.count(c.class_name) == 0 && kUseMask.count(c.class_name) == 0) {
    if (kDropMask.count(c.class_name) != 0) {
      mask.clear();
      for (Value& v : c.inputs) v.mask.clear();
    } else {
      return Unimplemented("layer '", c.name, "' (", c.class_name, ") receives a Keras mask ",
                           "(Embedding mask_zero=True or Masking), which graphrt does not carry ",
                           "into this layer class");
    }
  }
  Status s;
  try {
    s = it->second(c, outputs);
  } catch (const std::exception& e) {
    // A config value of the wrong JSON type, out of range or of the wrong length (see Get).
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): malformed config: ", e.what());
  }
  if (s.ok() && !mask.empty() && kPassMask.count(c.class_name) != 0 && !outputs->empty()) {
    (*outputs)[0].mask = mask;
  }
  if (!s.ok() && s.message().find("layer '") == std::string::npos) {
    return s.Prepend(StrCat("layer '", c.name, "' (", c.class_name, ")"));
  }
  return s;
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
