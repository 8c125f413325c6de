// Keras activations (by name, inside other layers) and the activation layers.
#include "formats/keras/keras_builder_internal.h"

#include <map>
#include <utility>

#include "runtime/core/attr_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

StatusOr<std::string> Activate(Emitter& emit, const std::string& scope, const std::string& name,
                               const std::string& x, const std::string& layer) {
  const std::string p = scope + "/" + (name.empty() ? "activation" : name);
  static const std::map<std::string, std::string> kUnary = {
      {"relu", "Relu"},         {"sigmoid", "Sigmoid"},   {"tanh", "Tanh"},
      {"softplus", "Softplus"}, {"softsign", "Softsign"}, {"elu", "Elu"},
      {"selu", "Selu"},         {"exponential", "Exp"},   {"relu6", "Relu6"}};
  if (name.empty() || name == "linear") return x;
  auto it = kUnary.find(name);
  if (it != kUnary.end()) return emit.Unary(it->second, p, x);
  if (name == "softmax") return Softmax(emit, p, x, -1, -1);
  if (name == "log_softmax") return emit.Unary("LogSoftmax", p, x);
  if (name == "hard_sigmoid") {
    // Keras: clip(0.2 * x + 0.5, 0, 1).
    std::string y = emit.Binary("Mul", p + "/mul", x, emit.Float(p + "/slope", 0.2f));
    y = emit.Binary("AddV2", p + "/add", y, emit.Float(p + "/shift", 0.5f));
    y = emit.Binary("Minimum", p + "/min", y, emit.Float(p + "/one", 1.0f));
    return emit.Binary("Maximum", p, y, emit.Float(p + "/zero", 0.0f));
  }
  if (name == "keras3_hard_sigmoid" || name == "hard_silu" || name == "hard_swish") {
    // Keras 3 (keras3_config.cc renames its hard_sigmoid): relu6(x + 3) / 6; hard_silu is x
    // times that.
    std::string y = emit.Binary("AddV2", p + "/add", x, emit.Float(p + "/three", 3.0f));
    y = emit.Unary("Relu6", p + "/relu6", y);
    if (name == "keras3_hard_sigmoid") {
      return emit.Binary("RealDiv", p, y, emit.Float(p + "/six", 6.0f));
    }
    y = emit.Binary("RealDiv", p + "/hard_sigmoid", y, emit.Float(p + "/six", 6.0f));
    return emit.Binary("Mul", p, x, y);
  }
  if (name == "swish" || name == "silu") {
    return emit.Binary("Mul", p, x, emit.Unary("Sigmoid", p + "/sigmoid", x));
  }
  if (name == "gelu") {
    // Keras's default (approximate=False): 0.5 * x * (1 + erf(x / sqrt(2))).
    std::string y =
        emit.Binary("RealDiv", p + "/div", x, emit.Float(p + "/sqrt2", 1.4142135623730951f));
    y = emit.Unary("Erf", p + "/erf", y);
    y = emit.Binary("AddV2", p + "/add", emit.Float(p + "/one", 1.0f), y);
    y = emit.Binary("Mul", p + "/mul", x, y);
    return emit.Binary("Mul", p, emit.Float(p + "/half", 0.5f), y);
  }
  if (name.rfind(kActivationLayerPrefix, 0) == 0) {
    // The activation layer's own builder on `x`, whose shape is not known here.
    Json spec = Json::parse(name.substr(sizeof(kActivationLayerPrefix) - 1));
    LayerCall c;
    c.class_name = spec["class_name"].get<std::string>();
    c.config = &spec["config"];
    c.name = layer;
    c.scope = scope + "/activation";
    c.inputs = {Value{x, Shape{}}};
    c.emit = &emit;
    if (c.class_name == "Softmax") {
      Json axis = c.config->value("axis", Json(-1));
      if (axis.is_array() && axis.size() == 1) axis = axis[0];
      if (axis != Json(-1)) {
        return Unimplemented("layer '", layer, "': activation Softmax(axis=", axis.dump(), ")");
      }
      return Softmax(emit, c.scope, x, -1, -1);
    }
    std::vector<Value> out;
    GRT_RETURN_IF_ERROR(LayerBuilders().at(c.class_name)(c, &out));
    return out.at(0).tensor;
  }
  if (name == "mish") {
    std::string y = emit.Unary("Tanh", p + "/tanh", emit.Unary("Softplus", p + "/softplus", x));
    return emit.Binary("Mul", p, x, y);
  }
  return Unimplemented("layer '", layer, "': activation '", name, "'");
}

// TensorFlow's Softmax works on the last axis; other axes are transposed there.
std::string Softmax(Emitter& emit, const std::string& name, const std::string& x, int axis,
                    int rank) {
  if (axis < 0 || axis == rank - 1) return emit.Unary("Softmax", name, x);
  std::vector<int32_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[axis], perm[rank - 1]);
  std::string t = emit.Transpose(name + "/to_last", x, perm);
  t = emit.Unary("Softmax", name + "/softmax", t);
  return emit.Transpose(name, t, perm);
}

StatusOr<Value> ActivateValue(Emitter& emit, const std::string& scope, const std::string& name,
                              const Value& x, const std::string& layer) {
  GRT_ASSIGN_OR_RETURN(std::string t, Activate(emit, scope, name, x.tensor, layer));
  return Value{t, x.shape, x.dtype};
}

Status ActivationLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  std::string name = ActivationName(*c.config, "activation", "linear");
  if (name == "softmax") {
    const Value& x = c.inputs[0];
    out->push_back(Value{Softmax(emit, c.scope + "/softmax", x.tensor, -1, x.rank()), x.shape});
    return Status::OK();
  }
  GRT_ASSIGN_OR_RETURN(Value y, ActivateValue(emit, c.scope, name, c.inputs[0], c.name));
  out->push_back(y);
  return Status::OK();
}

Status ReLULayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  const Json& cfg = *c.config;
  float slope = Get<float>(cfg, "negative_slope", 0.0f);
  float threshold = Get<float>(cfg, "threshold", 0.0f);
  bool has_max = cfg.contains("max_value") && !cfg["max_value"].is_null();
  float max_value = has_max ? cfg["max_value"].get<float>() : 0.0f;
  std::string p = c.scope;
  std::string y;
  if (threshold != 0.0f) {
    // Keras's backend.relu: below the threshold, slope * (x - threshold).
    std::string below = emit.Binary(
        "Mul", p + "/below",
        emit.Binary("Sub", p + "/shifted", x.tensor, emit.Float(p + "/threshold", threshold)),
        emit.Float(p + "/slope", slope));
    NodeDef* cond = emit.Add("GreaterEqual", p + "/GreaterEqual",
                             {x.tensor, emit.Float(p + "/threshold_c", threshold)});
    SetNodeAttr(cond, "T", kFloat);
    NodeDef* sel = emit.Add("SelectV2", p + "/SelectV2", {cond->name(), x.tensor, below});
    SetNodeAttr(sel, "T", kFloat);
    y = sel->name();
  } else if (slope != 0.0f) {
    NodeDef* n = emit.Add("LeakyRelu", p + "/LeakyRelu", {x.tensor});
    SetNodeAttr(n, "T", kFloat);
    SetNodeAttr(n, "alpha", slope);
    y = n->name();
  } else if (has_max && max_value == 6.0f) {
    out->push_back(Value{emit.Unary("Relu6", p + "/Relu6", x.tensor), x.shape});
    return Status::OK();
  } else {
    y = emit.Unary("Relu", p + "/Relu", x.tensor);
  }
  if (has_max)
    y = emit.Binary("Minimum", p + "/Minimum", y, emit.Float(p + "/max_value", max_value));
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status LeakyReLULayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  NodeDef* n = emit.Add("LeakyRelu", c.scope + "/LeakyRelu", {c.inputs[0].tensor});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "alpha",
              Get<float>(*c.config, "alpha", Get<float>(*c.config, "negative_slope", 0.3f)));
  out->push_back(Value{n->name(), c.inputs[0].shape});
  return Status::OK();
}

Status PReLULayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  Shape alpha_shape(x.shape.begin() + 1, x.shape.end());
  for (int64_t a : GetInts(*c.config, "shared_axes", 0, 0)) {
    if (a >= 1 && a < x.rank()) alpha_shape[a - 1] = 1;
  }
  GRT_ASSIGN_OR_RETURN(Tensor alpha, c.weights->Next("alpha", alpha_shape));
  // Keras: relu(x) - alpha * relu(-x).
  std::string p = c.scope;
  std::string pos = emit.Unary("Relu", p + "/Relu", x.tensor);
  std::string neg = emit.Unary("Relu", p + "/Relu_1", emit.Unary("Neg", p + "/Neg", x.tensor));
  std::string a = emit.Unary("Neg", p + "/Neg_1", emit.Weight(p + "/alpha", alpha));
  std::string y = emit.Binary("AddV2", p + "/add", pos, emit.Binary("Mul", p + "/mul", a, neg));
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status ELULayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  float alpha = Get<float>(*c.config, "alpha", 1.0f);
  std::string y = emit.Unary("Elu", c.scope + "/Elu", x.tensor);
  if (alpha != 1.0f) {
    NodeDef* cond =
        emit.Add("Greater", c.scope + "/Greater", {x.tensor, emit.Float(c.scope + "/zero", 0.0f)});
    SetNodeAttr(cond, "T", kFloat);
    std::string scaled =
        emit.Binary("Mul", c.scope + "/mul", emit.Float(c.scope + "/alpha", alpha), y);
    NodeDef* sel = emit.Add("SelectV2", c.scope + "/SelectV2", {cond->name(), y, scaled});
    SetNodeAttr(sel, "T", kFloat);
    y = sel->name();
  }
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status ThresholdedReLULayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  float theta = Get<float>(*c.config, "theta", 1.0f);
  NodeDef* cond =
      emit.Add("Greater", c.scope + "/Greater", {x.tensor, emit.Float(c.scope + "/theta", theta)});
  SetNodeAttr(cond, "T", kFloat);
  NodeDef* cast = emit.Add("Cast", c.scope + "/Cast", {cond->name()});
  SetNodeAttr(cast, "SrcT", ::tensorflow::DT_BOOL);
  SetNodeAttr(cast, "DstT", kFloat);
  SetNodeAttr(cast, "Truncate", false);
  out->push_back(Value{emit.Binary("Mul", c.scope + "/mul", x.tensor, cast->name()), x.shape});
  return Status::OK();
}

Status SoftmaxLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  Json axis = c.config->value("axis", Json(-1));
  if (axis.is_array() && axis.size() != 1) {
    // Keras: exp(x - logsumexp(x, axes)), logsumexp shifted by the maximum as TensorFlow's.
    std::vector<int32_t> axes;
    for (const Json& a : axis) {
      GRT_ASSIGN_OR_RETURN(int i, NormAxis(JsonInt(a), x.rank()));
      axes.push_back(i);
    }
    if (axes.empty()) return InvalidArgument("Softmax over no axes");
    const std::string p = c.scope + "/ReduceLogSumExp";
    std::string max = emit.Reduce("Max", p + "/Max", x.tensor, axes, true);
    std::string e = emit.Unary("Exp", p + "/Exp", emit.Binary("Sub", p + "/sub", x.tensor, max));
    std::string lse = emit.Binary(
        "AddV2", p + "/add",
        emit.Unary("Log", p + "/Log", emit.Reduce("Sum", p + "/Sum", e, axes, true)), max);
    out->push_back(Value{
        emit.Unary("Exp", c.scope + "/Exp", emit.Binary("Sub", c.scope + "/sub", x.tensor, lse)),
        x.shape});
    return Status::OK();
  }
  if (axis.is_array()) axis = axis[0];
  GRT_ASSIGN_OR_RETURN(int axis_index, NormAxis(JsonInt(axis), x.rank()));
  out->push_back(
      Value{Softmax(emit, c.scope + "/Softmax", x.tensor, axis_index, x.rank()), x.shape});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
