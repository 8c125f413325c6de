// Attention layers (tf-keras 2.15 semantics, inference: dropout is the identity):
// MultiHeadAttention, its EinsumDense projections, EinsumDense as a layer, Attention (dot or
// concat scores) and AdditiveAttention. Keras masks reach them from their inputs (Value::mask).
//
// MultiHeadAttention weights, in Keras's order: query kernel [q_dim, heads, key_dim] and bias
// [heads, key_dim], key (same with the key's last dim), value (value_dim), attention_output
// kernel [heads, value_dim, output_shape...] and bias [output_shape...]; no biases without
// use_bias.
#include <algorithm>
#include <cmath>

#include "formats/keras/keras_builder_internal.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

constexpr DataType kBool = ::tensorflow::DT_BOOL;
constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz";

std::string Einsum(Emitter& emit, const std::string& name, const std::string& equation,
                   const std::string& a, const std::string& b) {
  NodeDef* n = emit.Add("Einsum", name, {a, b});
  SetNodeAttr(n, "equation", equation);
  SetNodeAttr(n, "N", static_cast<int64_t>(2));
  SetNodeAttr(n, "T", kFloat);
  return n->name();
}

std::string BatchMatMul(Emitter& emit, const std::string& name, const std::string& a,
                        const std::string& b, bool adj_y) {
  NodeDef* n = emit.Add("BatchMatMulV2", name, {a, b});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "adj_x", false);
  SetNodeAttr(n, "adj_y", adj_y);
  return n->name();
}

std::string CastTo(Emitter& emit, const std::string& name, const std::string& x, DataType from,
                   DataType to) {
  NodeDef* n = emit.Add("Cast", name, {x});
  SetNodeAttr(n, "SrcT", from);
  SetNodeAttr(n, "DstT", to);
  SetNodeAttr(n, "Truncate", false);
  return n->name();
}

// A bool [Tq, Tv] mask, true where query step i may see value step j (j <= i), as Keras's
// cumsum-of-ones comparison gives it.
std::string CausalMask(Emitter& emit, const std::string& p, const std::string& query,
                       const std::string& value) {
  auto range = [&](const std::string& name, const std::string& x) {
    std::string len = emit.Element(name + "/len", emit.ShapeOf(name + "/shape", x), 1);
    NodeDef* r =
        emit.Add("Range", name, {emit.Int(name + "/start", 0), len, emit.Int(name + "/delta", 1)});
    SetNodeAttr(r, "Tidx", kInt32);
    return r->name();
  };
  std::string rows = range(p + "/rows", query);
  NodeDef* col =
      emit.Add("ExpandDims", p + "/rows/ExpandDims", {rows, emit.Int(p + "/rows/dim", -1)});
  SetNodeAttr(col, "T", kInt32);
  SetNodeAttr(col, "Tdim", kInt32);
  NodeDef* ge = emit.Add("GreaterEqual", p, {col->name(), range(p + "/cols", value)});
  SetNodeAttr(ge, "T", kInt32);
  return ge->name();
}

// Two float 0/1 masks and-ed (a product); an empty one is no mask.
std::string AndMask(Emitter& emit, const std::string& name, const std::string& a,
                    const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return emit.Binary("Mul", name, a, b);
}

// Keras's _build_proj_equation: `free` axes kept, `bound` axes contracted with the kernel,
// `output` axes made by it (and the bias over them).
std::string ProjectionEquation(int free, int bound, int output) {
  std::string in, kernel, out;
  int next = 0;
  for (int i = 0; i < free; ++i, ++next) {
    in += kLetters[next];
    out += kLetters[next];
  }
  for (int i = 0; i < bound; ++i, ++next) {
    in += kLetters[next];
    kernel += kLetters[next];
  }
  for (int i = 0; i < output; ++i, ++next) {
    kernel += kLetters[next];
    out += kLetters[next];
  }
  return in + "," + kernel + "->" + out;
}

// One EinsumDense projection of MultiHeadAttention, named as Keras names its sublayer.
StatusOr<std::string> Project(LayerCall& c, const std::string& role, const std::string& x,
                              const std::string& equation, const Shape& kernel_shape,
                              const Shape& bias_shape, bool use_bias) {
  Emitter& emit = *c.emit;
  std::string p = c.scope + "/" + role;
  GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next(role + "/kernel", kernel_shape));
  std::string y =
      Einsum(emit, p + "/einsum/Einsum", equation, x, emit.Weight(p + "/kernel", kernel));
  if (use_bias) {
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next(role + "/bias", bias_shape));
    y = emit.Binary("AddV2", p + "/add", y, emit.Weight(p + "/bias", bias));
  }
  return y;
}

bool KwargBool(const LayerCall& c, const char* key) {
  return c.kwargs != nullptr && Get<bool>(*c.kwargs, key, false);
}

// Keras's Softmax layer over `axes` (the last ones of a rank-`rank` tensor) with an optional
// float 0/1 mask already broadcastable to the scores: masked scores get -1e9 added; several axes
// go through exp(x - logsumexp(x)) as Keras computes them.
std::string MaskedSoftmax(Emitter& emit, const std::string& p, const std::string& scores,
                          const std::string& mask, const std::vector<int32_t>& axes) {
  std::string x = scores;
  if (!mask.empty()) {
    std::string adder = emit.Binary(
        "Mul", p + "/mul", emit.Binary("Sub", p + "/sub", emit.Float(p + "/one", 1.0f), mask),
        emit.Float(p + "/large_negative", -1e9f));
    x = emit.Binary("AddV2", p + "/add", x, adder);
  }
  if (axes.size() == 1) return emit.Unary("Softmax", p + "/Softmax", x);
  std::string max = emit.Reduce("Max", p + "/logsumexp/Max", x, axes, true);
  std::string sum = emit.Reduce(
      "Sum", p + "/logsumexp/Sum",
      emit.Unary("Exp", p + "/logsumexp/Exp", emit.Binary("Sub", p + "/logsumexp/sub", x, max)),
      axes, true);
  std::string lse =
      emit.Binary("AddV2", p + "/logsumexp", emit.Unary("Log", p + "/logsumexp/Log", sum), max);
  return emit.Unary("Exp", p + "/Exp", emit.Binary("Sub", p + "/sub_1", x, lse));
}

// output_shape of MultiHeadAttention or EinsumDense: an int, a list (null: unknown), or null.
Shape ShapeFromConfig(const Json& cfg, const char* key, const Shape& fallback) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null()) return fallback;
  if (!it->is_array()) return {JsonInt(*it)};
  Shape s;
  for (const Json& d : *it) s.push_back(d.is_null() ? -1 : JsonInt(d));
  return s;
}

}  // namespace

std::string MaskAsFloat(Emitter& emit, const std::string& name, const std::string& mask,
                        int trailing) {
  std::string m = CastTo(emit, name + "/Cast", mask, kBool, kFloat);
  for (int i = 0; i < trailing; ++i) m = emit.ExpandDims(name + StrCat("/ExpandDims", i), m, -1);
  return m;
}

Status MultiHeadAttention(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const int64_t heads = Get<int64_t>(cfg, "num_heads", -1);
  const int64_t key_dim = Get<int64_t>(cfg, "key_dim", -1);
  const int64_t value_dim = Get<int64_t>(cfg, "value_dim", key_dim);
  const bool use_bias = Get<bool>(cfg, "use_bias", true);
  constexpr int64_t kMaxDim = 1 << 20;
  if (heads < 1 || key_dim < 1 || value_dim < 1 || heads > kMaxDim || key_dim > kMaxDim ||
      value_dim > kMaxDim) {
    return InvalidArgument("num_heads ", heads, ", key_dim ", key_dim, ", value_dim ", value_dim,
                           ": each must be from 1 to ", kMaxDim);
  }
  const Value& query = c.inputs[0];
  auto tensor_arg = [&](const char* key, size_t position) -> const Value* {
    auto it = c.tensor_kwargs.find(key);
    if (it != c.tensor_kwargs.end()) return &it->second;
    return c.inputs.size() > position ? &c.inputs[position] : nullptr;
  };
  const Value* value = tensor_arg("value", 1);
  if (value == nullptr) return InvalidArgument("MultiHeadAttention called without a value");
  const Value* key_arg = tensor_arg("key", 2);
  const Value& key = key_arg != nullptr ? *key_arg : *value;
  const Value* attention_mask = tensor_arg("attention_mask", 3);
  const bool return_scores = KwargBool(c, "return_attention_scores");
  const bool causal = KwargBool(c, "use_causal_mask");

  const int r = query.rank();  // projected tensors have rank r + 1: [batch, time..., heads, dim]
  if (r < 3 || r > 8 || value->rank() != r || key.rank() != r) {
    return Unimplemented("MultiHeadAttention over query, value and key of shapes ",
                         ShapeString(query.shape), ", ", ShapeString(value->shape), ", ",
                         ShapeString(key.shape));
  }
  const int rank = r + 1;
  std::vector<int> attn_axes;
  auto axes_it = cfg.find("attention_axes");
  if (axes_it == cfg.end() || axes_it->is_null()) {
    for (int i = 1; i < rank - 2; ++i) attn_axes.push_back(i);
  } else {
    Json list = axes_it->is_array() ? *axes_it : Json::array({*axes_it});
    for (const Json& a : list) {
      int64_t axis = JsonInt(a);
      bool repeated = std::find(attn_axes.begin(), attn_axes.end(), axis) != attn_axes.end();
      if (axis < 1 || axis > rank - 3 || repeated) {
        return InvalidArgument("unsupported attention_axes value ", axes_it->dump(),
                               ": each must be a distinct time axis of the query, 1 to ", rank - 3);
      }
      attn_axes.push_back(static_cast<int>(axis));
    }
    if (attn_axes.empty()) return InvalidArgument("unsupported attention_axes value []");
  }
  const Shape out_dims = ShapeFromConfig(cfg, "output_shape", {query.shape.back()});
  if (out_dims.empty() || out_dims.size() > 8) {
    return InvalidArgument("output_shape ", ShapeString(out_dims), ": 1 to 8 dimensions");
  }
  for (int64_t d : out_dims) {
    if (d < 1 || d > kMaxDim) {
      return InvalidArgument("output_shape ", ShapeString(out_dims), ": each must be from 1 to ",
                             kMaxDim);
    }
  }

  const std::string proj = ProjectionEquation(r - 1, 1, 2);
  GRT_ASSIGN_OR_RETURN(std::string q,
                       Project(c, "query", query.tensor, proj, {query.shape.back(), heads, key_dim},
                               {heads, key_dim}, use_bias));
  GRT_ASSIGN_OR_RETURN(std::string k,
                       Project(c, "key", key.tensor, proj, {key.shape.back(), heads, key_dim},
                               {heads, key_dim}, use_bias));
  GRT_ASSIGN_OR_RETURN(std::string v, Project(c, "value", value->tensor, proj,
                                              {value->shape.back(), heads, value_dim},
                                              {heads, value_dim}, use_bias));

  // Keras's _build_attention_equation: scores [batch dims (heads among them), query attention
  // axes, key attention axes] = einsum(key, query); output = einsum(scores, value).
  auto is_attn = [&](int i) {
    return std::find(attn_axes.begin(), attn_axes.end(), i) != attn_axes.end();
  };
  std::string target(kLetters, rank), source;
  std::vector<int> batch_dims;
  int next = rank;
  for (int i = 0; i < rank; ++i) {
    if (!is_attn(i) && i != rank - 1) batch_dims.push_back(i);
    source += is_attn(i) ? kLetters[next++] : target[i];
  }
  std::string product;
  Shape scores_shape;
  auto query_dim = [&](int i) { return i == rank - 2 ? heads : query.shape[i]; };
  for (int i : batch_dims) {
    product += target[i];
    scores_shape.push_back(query_dim(i));
  }
  for (int i : attn_axes) {
    product += target[i];
    scores_shape.push_back(query.shape[i]);
  }
  for (int i : attn_axes) {
    product += source[i];
    scores_shape.push_back(key.shape[i]);
  }
  const int scores_rank = static_cast<int>(product.size());
  std::vector<int32_t> norm_axes;
  for (int i = scores_rank - static_cast<int>(attn_axes.size()); i < scores_rank; ++i) {
    norm_axes.push_back(i);
  }

  const std::string p = c.scope;
  q = emit.Binary("Mul", p + "/Mul", q,
                  emit.Float(p + "/scale", static_cast<float>(1.0 / std::sqrt(double(key_dim)))));
  std::string scores =
      Einsum(emit, p + "/einsum/Einsum", source + "," + target + "->" + product, k, q);

  // Keras's _compute_attention_mask: the query's mask [B, T, 1], the value's (and a separately
  // given key's) [B, 1, S] and the causal mask [T, S] and-ed with attention_mask; here as
  // float 0/1 products.
  std::string mask;
  const bool auto_masks = !query.mask.empty() || !value->mask.empty() ||
                          (key_arg != nullptr && !key.mask.empty()) || causal;
  if (auto_masks && r != 3) {
    return Unimplemented("MultiHeadAttention with Keras masks or use_causal_mask over a query ",
                         "of rank ", r);
  }
  int mask_rank = 3;
  if (!query.mask.empty()) mask = MaskAsFloat(emit, p + "/query_mask", query.mask, 1);
  auto key_side = [&](const std::string& name, const std::string& m) {
    return emit.ExpandDims(name + "/ExpandDims", MaskAsFloat(emit, name, m, 0), 1);
  };
  if (!value->mask.empty()) {
    mask = AndMask(emit, p + "/mask_and", mask, key_side(p + "/value_mask", value->mask));
  }
  if (key_arg != nullptr && !key.mask.empty()) {
    mask = AndMask(emit, p + "/mask_and_1", mask, key_side(p + "/key_mask", key.mask));
  }
  if (causal) {
    std::string cm =
        CastTo(emit, p + "/causal_mask/Cast",
               CausalMask(emit, p + "/causal_mask", query.tensor, value->tensor), kBool, kFloat);
    mask = AndMask(emit, p + "/mask_and_2", mask, cm);
  }
  if (attention_mask != nullptr) {
    std::string given;
    if (attention_mask->dtype == kBool) {
      given = CastTo(emit, p + "/attention_mask/Cast", attention_mask->tensor, kBool, kFloat);
    } else if (mask.empty()) {
      // Without masks of its own Keras's softmax uses the given mask's values as they are.
      given = ToFloat(emit, p + "/attention_mask", *attention_mask);
    } else {
      // Merged with them it goes through a cast to bool first.
      NodeDef* ne = emit.Add("NotEqual", p + "/attention_mask/NotEqual",
                             {ToFloat(emit, p + "/attention_mask", *attention_mask),
                              emit.Float(p + "/attention_mask/zero", 0.0f)});
      SetNodeAttr(ne, "T", kFloat);
      SetNodeAttr(ne, "incompatible_shape_error", true);
      given = CastTo(emit, p + "/attention_mask/Cast", ne->name(), kBool, kFloat);
    }
    mask_rank = mask.empty() ? attention_mask->rank() : 3;
    mask = mask.empty() ? given : emit.Binary("Mul", p + "/mask_and_3", given, mask);
  }
  if (!mask.empty()) {
    if (mask_rank > scores_rank) {
      return InvalidArgument("attention_mask of rank ", mask_rank, " for scores of rank ",
                             scores_rank);
    }
    // Keras inserts the missing axes (the heads') before the query's attention axes.
    const int expand_at = -static_cast<int>(attn_axes.size()) * 2 - 1;
    for (int i = mask_rank; i < scores_rank; ++i) {
      mask = emit.ExpandDims(p + StrCat("/mask_expand", i), mask, expand_at);
    }
  }
  std::string weights = MaskedSoftmax(emit, p + "/softmax", scores, mask, norm_axes);
  std::string combined =
      Einsum(emit, p + "/einsum_1/Einsum", product + "," + source + "->" + target, weights, v);

  const int n_out = static_cast<int>(out_dims.size());
  Shape out_kernel = {heads, value_dim};
  out_kernel.insert(out_kernel.end(), out_dims.begin(), out_dims.end());
  GRT_ASSIGN_OR_RETURN(std::string y,
                       Project(c, "attention_output", combined, ProjectionEquation(r - 1, 2, n_out),
                               out_kernel, out_dims, use_bias));
  Shape y_shape(query.shape.begin(), query.shape.end() - 1);
  y_shape.insert(y_shape.end(), out_dims.begin(), out_dims.end());
  Value result{y, y_shape};
  result.mask = query.mask;
  out->push_back(result);
  if (return_scores) out->push_back(Value{weights, scores_shape});
  return Status::OK();
}

// EinsumDense: einsum(equation, inputs, kernel) + bias over bias_axes, then the activation. The
// kernel's and bias's shapes follow Keras's _analyze_split_string.
Status EinsumDenseLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  std::string equation;
  for (char ch : Get<std::string>(cfg, "equation", "")) {
    if (ch != ' ') equation += ch;
  }
  size_t comma = equation.find(','), arrow = equation.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || arrow < comma) {
    return InvalidArgument("unsupported equation '", equation, "' (expected 'in,kernel->out')");
  }
  std::string in_spec = equation.substr(0, comma);
  std::string kernel_spec = equation.substr(comma + 1, arrow - comma - 1);
  std::string out_spec = equation.substr(arrow + 2);
  const bool left_elided = in_spec.rfind("...", 0) == 0;
  const bool elides = in_spec.find("...") != std::string::npos;
  auto strip = [](std::string s) {
    size_t e = s.find("...");
    return e == std::string::npos ? s : s.erase(e, 3);
  };
  in_spec = strip(in_spec);
  out_spec = strip(out_spec);
  for (const std::string* s : {&in_spec, &kernel_spec, &out_spec}) {
    for (char ch : *s) {
      if (ch < 'a' || ch > 'z') {
        return InvalidArgument("unsupported equation '", equation, "'");
      }
    }
  }
  const int elided = x.rank() - static_cast<int>(in_spec.size());
  if (elided < 0 || (elided > 0 && !elides)) {
    return InvalidArgument("equation '", equation, "' for an input of shape ",
                           ShapeString(x.shape));
  }
  Shape given = ShapeFromConfig(cfg, "output_shape", {});
  Shape full = {x.shape[0]};
  if (left_elided) full.insert(full.end(), x.shape.begin() + 1, x.shape.begin() + elided);
  full.insert(full.end(), given.begin(), given.end());
  if (elided > 0 && !left_elided) full.insert(full.end(), x.shape.end() - elided, x.shape.end());
  const int in_offset = left_elided ? elided : 0;
  const int out_offset = left_elided ? static_cast<int>(full.size() - out_spec.size()) : 0;
  if (out_offset < 0 || out_offset + out_spec.size() > full.size()) {
    return InvalidArgument("output_shape ", ShapeString(given), " does not fit equation '",
                           equation, "'");
  }
  auto dim_of = [&](char ch) -> int64_t {
    size_t i = in_spec.find(ch);
    if (i != std::string::npos) return x.shape[in_offset + i];
    i = out_spec.find(ch);
    return i != std::string::npos ? full[out_offset + i] : -1;
  };
  for (size_t i = 0; i < out_spec.size(); ++i) {
    if (full[out_offset + i] < 0) full[out_offset + i] = dim_of(out_spec[i]);
  }
  Shape kernel_shape;
  for (char ch : kernel_spec) kernel_shape.push_back(dim_of(ch));
  GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next("kernel", kernel_shape));
  std::string y = Einsum(emit, c.scope + "/einsum/Einsum", equation, x.tensor,
                         emit.Weight(c.scope + "/kernel", kernel));
  auto bias_it = cfg.find("bias_axes");
  if (bias_it != cfg.end() && !bias_it->is_null()) {
    std::string bias_axes = bias_it->get<std::string>();
    size_t first = out_spec.size();
    for (char ch : bias_axes) {
      size_t at = out_spec.find(ch);
      if (at == std::string::npos) {
        return InvalidArgument("bias_axes '", bias_axes, "' not in equation '", equation, "'");
      }
      first = std::min(first, at);
    }
    Shape bias_shape;
    for (size_t i = first; i < out_spec.size(); ++i) {
      bias_shape.push_back(bias_axes.find(out_spec[i]) != std::string::npos ? dim_of(out_spec[i])
                                                                            : 1);
    }
    if (!left_elided) bias_shape.insert(bias_shape.end(), elided, 1);
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", bias_shape));
    y = emit.Binary("AddV2", c.scope + "/add", y, emit.Weight(c.scope + "/bias", bias));
  }
  GRT_ASSIGN_OR_RETURN(
      y, Activate(emit, c.scope, ActivationName(cfg, "activation", "linear"), y, c.name));
  out->push_back(Value{y, full});
  return Status::OK();
}

// Attention (Luong: dot scores, or concat: sum(tanh(q + k))) and AdditiveAttention (Bahdanau:
// sum(scale * tanh(q + k))), over inputs [query, value] or [query, value, key].
Status DenseAttention(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const bool additive = c.class_name == "AdditiveAttention";
  if (c.inputs.size() != 2 && c.inputs.size() != 3) {
    return InvalidArgument(c.class_name, " takes [query, value] or [query, value, key], got ",
                           c.inputs.size(), " inputs");
  }
  const Value& q = c.inputs[0];
  const Value& v = c.inputs[1];
  const Value& k = c.inputs.size() == 3 ? c.inputs[2] : v;
  if (q.rank() != 3 || v.rank() != 3 || k.rank() != 3) {
    return Unimplemented(c.class_name, " over inputs of shapes ", ShapeString(q.shape), ", ",
                         ShapeString(v.shape));
  }
  const std::string score_mode = additive ? "additive" : Get<std::string>(cfg, "score_mode", "dot");
  if (score_mode != "dot" && score_mode != "concat" && score_mode != "additive") {
    return InvalidArgument("unsupported score_mode '", score_mode, "' (Keras has dot and concat)");
  }
  if (q.shape[2] >= 0 && k.shape[2] >= 0 && q.shape[2] != k.shape[2]) {
    return InvalidArgument(c.class_name, " of a query ", ShapeString(q.shape), " and a key ",
                           ShapeString(k.shape), " of different depths");
  }
  const bool use_scale = Get<bool>(cfg, "use_scale", additive);
  const bool causal = KwargBool(c, "use_causal_mask") || Get<bool>(cfg, "causal", false);
  const bool return_scores = KwargBool(c, "return_attention_scores");
  const std::string p = c.scope;
  std::string scale, concat_weight;
  if (use_scale) {
    GRT_ASSIGN_OR_RETURN(Tensor t,
                         c.weights->Next("scale", additive ? Shape{v.shape.back()} : Shape{}));
    scale = emit.Weight(p + "/scale", t);
  }
  if (score_mode == "concat") {
    GRT_ASSIGN_OR_RETURN(Tensor t, c.weights->Next("concat_score_weight", Shape{}));
    concat_weight = emit.Weight(p + "/concat_score_weight", t);
  }
  std::string scores;
  if (score_mode == "dot") {
    scores = BatchMatMul(emit, p + "/MatMul", q.tensor, k.tensor, true);
    if (use_scale) scores = emit.Binary("Mul", p + "/mul", scores, scale);
  } else {
    // [B, Tq, 1, dim] + [B, 1, Tv, dim].
    std::string sum =
        emit.Binary("AddV2", p + "/add", emit.ExpandDims(p + "/q_expand", q.tensor, -2),
                    emit.ExpandDims(p + "/k_expand", k.tensor, -3));
    if (additive) {
      std::string t = emit.Unary("Tanh", p + "/Tanh", sum);
      if (use_scale) t = emit.Binary("Mul", p + "/mul", scale, t);
      scores = emit.Reduce("Sum", p + "/Sum", t, {-1}, false);
    } else {
      if (use_scale) sum = emit.Binary("Mul", p + "/mul", scale, sum);
      scores = emit.Reduce("Sum", p + "/Sum", emit.Unary("Tanh", p + "/Tanh", sum), {-1}, false);
      scores = emit.Binary("Mul", p + "/mul_1", concat_weight, scores);
    }
  }
  // Keras's _apply_scores: scores - 1e9 where the value's mask or the causal mask hides a step.
  std::string mask;
  if (!v.mask.empty()) {
    mask = emit.ExpandDims(p + "/value_mask/ExpandDims",
                           MaskAsFloat(emit, p + "/value_mask", v.mask, 0), 1);
  }
  if (causal) {
    mask = AndMask(emit, p + "/mask_and", mask,
                   CastTo(emit, p + "/causal_mask/Cast",
                          CausalMask(emit, p + "/causal_mask", q.tensor, v.tensor), kBool, kFloat));
  }
  if (!mask.empty()) {
    std::string padding = emit.Binary("Sub", p + "/padding", emit.Float(p + "/one", 1.0f), mask);
    scores =
        emit.Binary("Sub", p + "/sub", scores,
                    emit.Binary("Mul", p + "/mul_2", emit.Float(p + "/large", 1.0e9f), padding));
  }
  std::string weights = emit.Unary("Softmax", p + "/Softmax", scores);
  std::string y = BatchMatMul(emit, p + "/MatMul_1", weights, v.tensor, false);
  if (!q.mask.empty()) {
    y = emit.Binary("Mul", p + "/mul_3", y, MaskAsFloat(emit, p + "/query_mask", q.mask, 1));
  }
  Value result{y, {q.shape[0], q.shape[1], v.shape[2]}};
  result.mask = q.mask;
  out->push_back(result);
  if (return_scores) out->push_back(Value{weights, {q.shape[0], q.shape[1], v.shape[1]}});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
