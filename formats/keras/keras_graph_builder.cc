#include "formats/keras/keras_graph_builder.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace {

using Json = nlohmann::json;
using ::tensorflow::NodeDef;
using Shape = std::vector<int64_t>;  // with the batch dimension; -1 where unknown

constexpr DataType kFloat = ::tensorflow::DT_FLOAT;
constexpr DataType kInt32 = ::tensorflow::DT_INT32;

// A tensor of the graph being built, with what Keras knows of its shape.
struct Value {
  Value() = default;
  Value(std::string t, Shape s, DataType d = kFloat)
      : tensor(std::move(t)), shape(std::move(s)), dtype(d) {}
  std::string tensor;
  Shape shape;
  DataType dtype = kFloat;
  // Keras's mask, a bool [batch, time] tensor, from Embedding(mask_zero=True) or Masking; empty
  // when there is none.
  std::string mask;
  int rank() const { return static_cast<int>(shape.size()); }
};

std::string ShapeString(const Shape& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(d < 0 ? "?" : std::to_string(d));
  return "[" + StrJoin(dims, ",") + "]";
}

Shape TensorDims(const Tensor& t) {
  Shape s;
  for (int i = 0; i < t.dims(); ++i) s.push_back(t.dim_size(i));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Reading the config. Keras writes JSON; a missing key takes Keras's default.
//
// The config is untrusted. The readers below return plain values and throw on what they cannot
// use (nlohmann::json's type_error for a wrong type, ConfigError for a number out of range or a
// tuple of the wrong length); CallLayer and BuildKerasGraph turn both into a Status naming the
// layer. Const operator[] on a missing key is undefined behaviour in nlohmann::json, so keys are
// looked up with Member (a Status) or find(), never const operator[].

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest JSON nesting BuildKerasGraph accepts: the builder recurses into nested models and
// wrappers, and real configs nest a few dozen levels at most.
constexpr int kMaxConfigDepth = 256;

// An integer of type T. nlohmann converts a float to an integer with a plain cast, undefined
// when it does not fit: a non-finite or out-of-range number is an error here.
template <typename T = int64_t>
T JsonInt(const Json& v) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(kMax)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i >= static_cast<int64_t>(kMin) && i <= static_cast<int64_t>(kMax)) {
      return static_cast<T>(i);
    }
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d > static_cast<double>(kMin) - 1 &&
        d < static_cast<double>(kMax) + 1) {
      return static_cast<T>(d);
    }
  } else {
    return v.get<T>();  // throws type_error naming the JSON type
  }
  throw ConfigError(StrCat("the number ", v.dump(), " is out of range"));
}

template <typename T>
T Get(const Json& config, const char* key, T fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return JsonInt<T>(*it);
  } else {
    return it->get<T>();
  }
}

// An int or a tuple of ints ("kernel_size": 3 or [3, 3]), as `n` ints (n == 0: any number).
std::vector<int64_t> GetInts(const Json& config, const char* key, int n, int64_t fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::vector<int64_t>(n, fallback);
  if (it->is_number()) return std::vector<int64_t>(n, JsonInt(*it));
  if (!it->is_array()) throw ConfigError(StrCat("'", key, "' is not a number or a list"));
  std::vector<int64_t> out;
  for (const Json& v : *it) out.push_back(v.is_null() ? -1 : JsonInt(v));
  if (n > 0 && out.size() != static_cast<size_t>(n)) {
    throw ConfigError(StrCat("'", key, "' holds ", out.size(), " numbers, not ", n));
  }
  return out;
}

// Window sizes, strides, dilations and repeat factors: each from 1 to 2^20, so that shape
// arithmetic neither divides by zero nor overflows.
std::vector<int64_t> GetWindow(const Json& config, const char* key, int n, int64_t fallback) {
  constexpr int64_t kMaxWindow = int64_t{1} << 20;
  std::vector<int64_t> values = GetInts(config, key, n, fallback);
  for (int64_t v : values) {
    if (v < 1 || v > kMaxWindow) {
      throw ConfigError(StrCat("'", key, "' holds ", v, ": each must be from 1 to ", kMaxWindow));
    }
  }
  return values;
}

// A key of a JSON object, or an error naming the layer and the key.
StatusOr<const Json*> Member(const Json& object, const char* key, const std::string& layer) {
  if (!object.is_object()) {
    return InvalidArgument("layer '", layer, "': expected a JSON object with '", key, "', got ",
                           object.type_name());
  }
  auto it = object.find(key);
  if (it == object.end()) return InvalidArgument("layer '", layer, "': no '", key, "' in its JSON");
  return &*it;
}

// How deeply `root` nests, counted without recursion (a hostile config may nest millions deep).
int JsonDepth(const Json& root) {
  int depth = 0;
  std::vector<std::pair<const Json*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    auto [v, d] = stack.back();
    stack.pop_back();
    depth = std::max(depth, d);
    if (d > kMaxConfigDepth) break;
    if (v->is_structured()) {
      for (const Json& child : *v) stack.emplace_back(&child, d + 1);
    }
  }
  return depth;
}

// Keras's activation spelling: a name, or (newer files) {"class_name": ..., "config": ...}.
std::string ActivationName(const Json& config, const char* key, const std::string& fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("config") && (*it)["config"].contains("name")) {
    return (*it)["config"]["name"].get<std::string>();
  }
  return it->dump();
}

// ---------------------------------------------------------------------------------------------
// Weights of one layer, taken in the order Keras's layer.weights lists them.

class WeightCursor {
 public:
  WeightCursor(std::string layer, std::string file, std::vector<const KerasWeight*> weights)
      : layer_(std::move(layer)), file_(std::move(file)), weights_(std::move(weights)) {}

  // The next weight, checked against `expected` (-1 matches any size).
  StatusOr<Tensor> Next(const std::string& role, const Shape& expected) {
    if (next_ >= weights_.size()) {
      return InvalidArgument("layer '", layer_, "': the architecture needs a weight '", role, "' ",
                             ShapeString(expected), " but ", file_, " holds only ", weights_.size(),
                             " weights for it");
    }
    const KerasWeight* w = weights_[next_++];
    Shape actual = TensorDims(w->value);
    bool fits = actual.size() == expected.size();
    for (size_t i = 0; fits && i < actual.size(); ++i) {
      fits = expected[i] < 0 || expected[i] == actual[i];
    }
    if (!fits) {
      return InvalidArgument("layer '", layer_, "': weight '", w->name, "' has shape ",
                             ShapeString(actual), " but the architecture needs ", role, " ",
                             ShapeString(expected));
    }
    return w->value;
  }
  std::string NextName() const {
    return next_ < weights_.size() ? weights_[next_]->name : layer_ + "/weight";
  }
  std::vector<const KerasWeight*> TakeAll() {
    std::vector<const KerasWeight*> rest(weights_.begin() + next_, weights_.end());
    next_ = weights_.size();
    return rest;
  }

  Status Finish() const {
    if (next_ == weights_.size()) return Status::OK();
    std::vector<std::string> extra;
    for (size_t i = next_; i < weights_.size(); ++i) extra.push_back(weights_[i]->name);
    return InvalidArgument("layer '", layer_, "': ", file_, " holds weights the architecture ",
                           "does not use: ", StrJoin(extra, ", "));
  }

 private:
  std::string layer_;
  std::string file_;
  std::vector<const KerasWeight*> weights_;
  size_t next_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Emitting NodeDefs.

class Emitter {
 public:
  Emitter(::tensorflow::GraphDef* graph, bool variables, std::vector<KerasVariable>* vars)
      : graph_(graph), variables_(variables), vars_(vars) {}

  std::string Unique(const std::string& base) {
    std::string name = base;
    for (int i = 1; used_.count(name) != 0; ++i) name = StrCat(base, "_", i);
    used_.insert(name);
    return name;
  }
  void Reserve(const std::string& name) { used_.insert(name); }
  bool Used(const std::string& name) const { return used_.count(name) != 0; }

  NodeDef* Add(const std::string& op, const std::string& name,
               const std::vector<std::string>& inputs) {
    return AddReserved(op, Unique(name), inputs);
  }
  // A node under a name already taken with Unique() (one that others refer to before it exists).
  NodeDef* AddReserved(const std::string& op, const std::string& name,
                       const std::vector<std::string>& inputs) {
    NodeDef* n = graph_->add_node();
    n->set_op(op);
    n->set_name(name);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }
  // Nodes with no data inputs made while building a loop body carry a control edge from the
  // body, so they live in the loop's frame.
  void set_pivot(const std::string& pivot) { pivot_ = pivot; }

  std::string Const(const std::string& name, const Tensor& value) {
    NodeDef* n = Add("Const", name, {});
    SetNodeAttr(n, "dtype", value.dtype());
    SetNodeAttr(n, "value", value);
    if (!pivot_.empty()) n->add_input("^" + pivot_);
    return n->name();
  }
  std::string Ints(const std::string& name, const std::vector<int32_t>& v) {
    return Const(name, Tensor::Vector<int32_t>(v));
  }
  std::string Int(const std::string& name, int32_t v) {
    return Const(name, Tensor::Scalar<int32_t>(v));
  }
  std::string Float(const std::string& name, float v) {
    return Const(name, Tensor::Scalar<float>(v));
  }

  // A weight: a Const, or (for export) a VariableV2 whose value the caller writes to a
  // checkpoint.
  std::string Weight(const std::string& name, const Tensor& value) {
    if (!variables_) return Const(name, value);
    NodeDef* var = Add("VariableV2", name, {});
    SetNodeAttr(var, "dtype", value.dtype());
    SetNodeAttr(var, "shape", PartialTensorShape(value.shape().dim_sizes()));
    SetNodeAttr(var, "container", "");
    SetNodeAttr(var, "shared_name", "");
    NodeDef* read = Add("Identity", var->name() + "/read", {var->name()});
    SetNodeAttr(read, "T", value.dtype());
    vars_->push_back(KerasVariable{var->name(), value});
    return read->name();
  }

  // A variable for recurrent state, whatever the weights are: zeroed by the reset op
  // (KerasGraph::reset_states_op), and in an export a checkpoint entry of zeros.
  std::string StateVariable(const std::string& name, const Tensor& zeros) {
    NodeDef* var = Add("VariableV2", name, {});
    SetNodeAttr(var, "dtype", zeros.dtype());
    SetNodeAttr(var, "shape", PartialTensorShape(zeros.shape().dim_sizes()));
    SetNodeAttr(var, "container", "");
    SetNodeAttr(var, "shared_name", "");
    NodeDef* reset =
        Add("Assign", var->name() + "/reset", {var->name(), Const(var->name() + "/zeros", zeros)});
    SetNodeAttr(reset, "T", zeros.dtype());
    SetNodeAttr(reset, "validate_shape", true);
    SetNodeAttr(reset, "use_locking", true);
    resets_.push_back(reset->name());
    if (variables_) vars_->push_back(KerasVariable{var->name(), zeros});
    return var->name();
  }
  const std::vector<std::string>& resets() const { return resets_; }

  std::string Unary(const std::string& op, const std::string& name, const std::string& x,
                    DataType t = kFloat) {
    NodeDef* n = Add(op, name, {x});
    SetNodeAttr(n, "T", t);
    return n->name();
  }
  std::string Binary(const std::string& op, const std::string& name, const std::string& a,
                     const std::string& b, DataType t = kFloat) {
    NodeDef* n = Add(op, name, {a, b});
    SetNodeAttr(n, "T", t);
    return n->name();
  }
  std::string MatMul(const std::string& name, const std::string& a, const std::string& b) {
    NodeDef* n = Add("MatMul", name, {a, b});
    SetNodeAttr(n, "T", kFloat);
    SetNodeAttr(n, "transpose_a", false);
    SetNodeAttr(n, "transpose_b", false);
    return n->name();
  }
  std::string BiasAdd(const std::string& name, const std::string& x, const std::string& b) {
    NodeDef* n = Add("BiasAdd", name, {x, b});
    SetNodeAttr(n, "T", kFloat);
    SetNodeAttr(n, "data_format", "NHWC");
    return n->name();
  }
  std::string Reshape(const std::string& name, const std::string& x, const std::string& shape,
                      DataType t = kFloat) {
    NodeDef* n = Add("Reshape", name, {x, shape});
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "Tshape", kInt32);
    return n->name();
  }
  std::string Transpose(const std::string& name, const std::string& x,
                        const std::vector<int32_t>& perm, DataType t = kFloat) {
    NodeDef* n = Add("Transpose", name, {x, Ints(name + "/perm", perm)});
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "Tperm", kInt32);
    return n->name();
  }
  std::string ExpandDims(const std::string& name, const std::string& x, int axis) {
    NodeDef* n = Add("ExpandDims", name, {x, Int(name + "/dim", axis)});
    SetNodeAttr(n, "T", kFloat);
    SetNodeAttr(n, "Tdim", kInt32);
    return n->name();
  }
  std::string Squeeze(const std::string& name, const std::string& x, std::vector<int64_t> dims,
                      DataType t = kFloat) {
    NodeDef* n = Add("Squeeze", name, {x});
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "squeeze_dims", dims);
    return n->name();
  }
  std::string Reduce(const std::string& op, const std::string& name, const std::string& x,
                     const std::vector<int32_t>& axes, bool keep_dims) {
    NodeDef* n = Add(op, name, {x, Ints(name + "/reduction_indices", axes)});
    SetNodeAttr(n, "T", kFloat);
    SetNodeAttr(n, "Tidx", kInt32);
    SetNodeAttr(n, "keep_dims", keep_dims);
    return n->name();
  }
  std::string Concat(const std::string& name, const std::vector<std::string>& xs, int axis,
                     DataType t = kFloat) {
    std::vector<std::string> inputs = xs;
    inputs.push_back(Int(name + "/axis", axis));
    NodeDef* n = Add("ConcatV2", name, inputs);
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "Tidx", kInt32);
    SetNodeAttr(n, "N", static_cast<int64_t>(xs.size()));
    return n->name();
  }
  // Element i of an int32 vector, as a scalar.
  std::string Element(const std::string& name, const std::string& vec, int i) {
    NodeDef* n = Add("StridedSlice", name,
                     {vec, Ints(name + "/begin", {i}), Ints(name + "/end", {i + 1}),
                      Ints(name + "/strides", {1})});
    SetNodeAttr(n, "T", kInt32);
    SetNodeAttr(n, "Index", kInt32);
    SetNodeAttr(n, "begin_mask", 0);
    SetNodeAttr(n, "end_mask", 0);
    SetNodeAttr(n, "ellipsis_mask", 0);
    SetNodeAttr(n, "new_axis_mask", 0);
    SetNodeAttr(n, "shrink_axis_mask", 1);
    return n->name();
  }
  std::string ShapeOf(const std::string& name, const std::string& x, DataType t = kFloat) {
    NodeDef* n = Add("Shape", name, {x});
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "out_type", kInt32);
    return n->name();
  }
  std::string Pack(const std::string& name, const std::vector<std::string>& xs, DataType t) {
    NodeDef* n = Add("Pack", name, xs);
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "N", static_cast<int64_t>(xs.size()));
    SetNodeAttr(n, "axis", 0);
    return n->name();
  }
  std::string Identity(const std::string& name, const std::string& x, DataType t = kFloat) {
    return Unary("Identity", name, x, t);
  }

 private:
  ::tensorflow::GraphDef* graph_;
  bool variables_;
  std::vector<KerasVariable>* vars_;
  std::unordered_set<std::string> used_;
  std::vector<std::string> resets_;
  std::string pivot_;
};

// ---------------------------------------------------------------------------------------------
// The builder.

struct LayerCall {
  std::string class_name;
  std::string name;   // the layer's name
  std::string scope;  // prefix of its nodes
  const Json* config = nullptr;
  std::vector<Value> inputs;
  const Json* kwargs = nullptr;  // call arguments from the inbound node (may be null)
  WeightCursor* weights = nullptr;
};

class Builder;
using LayerFn = Status (Builder::*)(LayerCall&, std::vector<Value>*);

// Weights of the layers of one model, by layer name.
using WeightMap = std::map<std::string, std::vector<const KerasWeight*>>;

struct RnnCellSpec {
  std::string kind;  // SimpleRNN, LSTM, GRU
  int64_t units = 0;
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  bool reset_after = false;
  bool go_backwards = false;
  bool return_sequences = false;
  bool return_state = false;
  bool stateful = false;
  bool zero_output_for_mask = false;  // masked steps output zeros, not the previous output
  Tensor kernel, recurrent_kernel, bias;
  int num_states() const { return kind == "LSTM" ? 2 : 1; }
};

class Builder {
 public:
  Builder(const KerasH5File& file, const KerasGraphOptions& options, KerasGraph* out)
      : file_(file), out_(out), emit_(&out->graph, options.weights_as_variables, &out->variables) {}

  Status Build(const Json& model);

  // Every layer class (nested models and wrappers included) without a builder.
  void FindUnsupported(const Json& layer, std::vector<std::string>* bad) const;

 private:
  static const std::map<std::string, LayerFn>& Table();

  Status BuildModel(const Json& model, const std::string& scope, const std::vector<Value>* bound,
                    const WeightMap& weights, std::vector<Value>* outputs);
  Status CallLayer(const Json& layer, const std::string& scope, std::vector<Value> inputs,
                   const Json* kwargs, WeightCursor* weights, std::vector<Value>* outputs);

  // Layers.
  Status Input(LayerCall& c, std::vector<Value>* out);
  Status Dense(LayerCall& c, std::vector<Value>* out);
  Status ActivationLayer(LayerCall& c, std::vector<Value>* out);
  Status IdentityLayer(LayerCall& c, std::vector<Value>* out);
  Status Flatten(LayerCall& c, std::vector<Value>* out);
  Status ReshapeLayer(LayerCall& c, std::vector<Value>* out);
  Status Permute(LayerCall& c, std::vector<Value>* out);
  Status RepeatVector(LayerCall& c, std::vector<Value>* out);
  Status Conv(LayerCall& c, std::vector<Value>* out);
  Status Pooling(LayerCall& c, std::vector<Value>* out);
  StatusOr<std::string> ConvTranspose(LayerCall& c, const Value& x, int64_t* out_ch,
                                      Shape* out_shape);
  Status GlobalPooling(LayerCall& c, std::vector<Value>* out);
  Status ZeroPadding(LayerCall& c, std::vector<Value>* out);
  Status Cropping(LayerCall& c, std::vector<Value>* out);
  Status UpSampling(LayerCall& c, std::vector<Value>* out);
  Status BatchNorm(LayerCall& c, std::vector<Value>* out);
  Status LayerNorm(LayerCall& c, std::vector<Value>* out);
  Status Embedding(LayerCall& c, std::vector<Value>* out);
  Status MaskingLayer(LayerCall& c, std::vector<Value>* out);
  Status ReLULayer(LayerCall& c, std::vector<Value>* out);
  Status LeakyReLULayer(LayerCall& c, std::vector<Value>* out);
  Status PReLULayer(LayerCall& c, std::vector<Value>* out);
  Status ELULayer(LayerCall& c, std::vector<Value>* out);
  Status ThresholdedReLULayer(LayerCall& c, std::vector<Value>* out);
  Status SoftmaxLayer(LayerCall& c, std::vector<Value>* out);
  Status Merge(LayerCall& c, std::vector<Value>* out);
  Status ConcatenateLayer(LayerCall& c, std::vector<Value>* out);
  Status DotLayer(LayerCall& c, std::vector<Value>* out);
  Status Recurrent(LayerCall& c, std::vector<Value>* out);
  Status BidirectionalLayer(LayerCall& c, std::vector<Value>* out);
  Status TimeDistributed(LayerCall& c, std::vector<Value>* out);
  Status NestedModel(LayerCall& c, std::vector<Value>* out);

  // Pieces.
  StatusOr<std::string> Activate(const std::string& scope, const std::string& name,
                                 const std::string& x, const std::string& layer);
  StatusOr<Value> ActivateValue(const std::string& scope, const std::string& name, const Value& x,
                                const std::string& layer) {
    GRT_ASSIGN_OR_RETURN(std::string t, Activate(scope, name, x.tensor, layer));
    return Value{t, x.shape, x.dtype};
  }
  std::string Softmax(const std::string& name, const std::string& x, int axis, int rank);
  std::string ToFloat(const std::string& scope, const Value& v);
  StatusOr<RnnCellSpec> ReadCell(const std::string& class_name, const Json& config,
                                 int64_t input_dim, WeightCursor* weights,
                                 const std::string& layer);
  Status EmitRnn(const std::string& scope, const RnnCellSpec& cell, const Value& x,
                 std::vector<std::string> initial_states, std::vector<Value>* outputs);
  std::string CellStep(const std::string& scope, const RnnCellSpec& cell, const std::string& x,
                       const std::vector<std::string>& states, const std::string& kernel,
                       const std::string& recurrent, const std::string& bias,
                       std::vector<std::string>* new_states);

  const KerasH5File& file_;
  KerasGraph* out_;
  Emitter emit_;
  WeightMap top_weights_;
};

// A Keras axis (negative counts from the end) as an index into a rank-`rank` shape.
StatusOr<int> NormAxis(int64_t axis, int rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) return InvalidArgument("axis ", axis, " is out of range for rank ", rank);
  return static_cast<int>(a);
}

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
      {"Bidirectional", {3, 3}},
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
  };
  return *ranks;
}

const std::map<std::string, LayerFn>& Builder::Table() {
  static const auto* table = new std::map<std::string, LayerFn>{
      {"InputLayer", &Builder::Input},
      {"Dense", &Builder::Dense},
      {"Activation", &Builder::ActivationLayer},
      {"Dropout", &Builder::IdentityLayer},
      {"SpatialDropout1D", &Builder::IdentityLayer},
      {"SpatialDropout2D", &Builder::IdentityLayer},
      {"SpatialDropout3D", &Builder::IdentityLayer},
      {"GaussianNoise", &Builder::IdentityLayer},
      {"GaussianDropout", &Builder::IdentityLayer},
      {"AlphaDropout", &Builder::IdentityLayer},
      {"ActivityRegularization", &Builder::IdentityLayer},
      {"Flatten", &Builder::Flatten},
      {"Reshape", &Builder::ReshapeLayer},
      {"Permute", &Builder::Permute},
      {"RepeatVector", &Builder::RepeatVector},
      {"Conv1D", &Builder::Conv},
      {"Conv2D", &Builder::Conv},
      {"Convolution1D", &Builder::Conv},
      {"Convolution2D", &Builder::Conv},
      {"DepthwiseConv2D", &Builder::Conv},
      {"SeparableConv1D", &Builder::Conv},
      {"SeparableConv2D", &Builder::Conv},
      {"SeparableConvolution1D", &Builder::Conv},
      {"SeparableConvolution2D", &Builder::Conv},
      {"Conv2DTranspose", &Builder::Conv},
      {"Convolution2DTranspose", &Builder::Conv},
      {"MaxPooling1D", &Builder::Pooling},
      {"MaxPooling2D", &Builder::Pooling},
      {"AveragePooling1D", &Builder::Pooling},
      {"AveragePooling2D", &Builder::Pooling},
      {"MaxPool1D", &Builder::Pooling},
      {"MaxPool2D", &Builder::Pooling},
      {"AvgPool1D", &Builder::Pooling},
      {"AvgPool2D", &Builder::Pooling},
      {"GlobalMaxPooling1D", &Builder::GlobalPooling},
      {"GlobalMaxPooling2D", &Builder::GlobalPooling},
      {"GlobalAveragePooling1D", &Builder::GlobalPooling},
      {"GlobalAveragePooling2D", &Builder::GlobalPooling},
      {"GlobalMaxPool1D", &Builder::GlobalPooling},
      {"GlobalMaxPool2D", &Builder::GlobalPooling},
      {"GlobalAvgPool1D", &Builder::GlobalPooling},
      {"GlobalAvgPool2D", &Builder::GlobalPooling},
      {"ZeroPadding1D", &Builder::ZeroPadding},
      {"ZeroPadding2D", &Builder::ZeroPadding},
      {"Cropping1D", &Builder::Cropping},
      {"Cropping2D", &Builder::Cropping},
      {"UpSampling1D", &Builder::UpSampling},
      {"UpSampling2D", &Builder::UpSampling},
      {"BatchNormalization", &Builder::BatchNorm},
      {"LayerNormalization", &Builder::LayerNorm},
      {"Embedding", &Builder::Embedding},
      {"Masking", &Builder::MaskingLayer},
      {"ReLU", &Builder::ReLULayer},
      {"LeakyReLU", &Builder::LeakyReLULayer},
      {"PReLU", &Builder::PReLULayer},
      {"ELU", &Builder::ELULayer},
      {"ThresholdedReLU", &Builder::ThresholdedReLULayer},
      {"Softmax", &Builder::SoftmaxLayer},
      {"Add", &Builder::Merge},
      {"Subtract", &Builder::Merge},
      {"Multiply", &Builder::Merge},
      {"Average", &Builder::Merge},
      {"Maximum", &Builder::Merge},
      {"Minimum", &Builder::Merge},
      {"Concatenate", &Builder::ConcatenateLayer},
      {"Dot", &Builder::DotLayer},
      {"SimpleRNN", &Builder::Recurrent},
      {"LSTM", &Builder::Recurrent},
      {"GRU", &Builder::Recurrent},
      {"CuDNNLSTM", &Builder::Recurrent},
      {"CuDNNGRU", &Builder::Recurrent},
      {"Bidirectional", &Builder::BidirectionalLayer},
      {"TimeDistributed", &Builder::TimeDistributed},
      {"Sequential", &Builder::NestedModel},
      {"Model", &Builder::NestedModel},
      {"Functional", &Builder::NestedModel},
  };
  return *table;
}

void Builder::FindUnsupported(const Json& layer, std::vector<std::string>* bad) const {
  std::string cls = Get<std::string>(layer, "class_name", "");
  const Json& config = layer.contains("config") ? layer["config"] : Json::object();
  std::string name = config.is_object() ? Get<std::string>(config, "name", "") : "";
  if (name.empty()) name = Get<std::string>(layer, "name", "?");
  if (Table().count(cls) == 0) {
    bad->push_back(StrCat(name, " (", cls, ")"));
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

// ---------------------------------------------------------------------------------------------
// Models.

// The weights of a nested model's group, split per inner layer by the first component of their
// names ("dense_3/kernel:0" belongs to dense_3).
WeightMap SplitNestedWeights(const std::vector<const KerasWeight*>& weights) {
  WeightMap map;
  for (const KerasWeight* w : weights) {
    size_t slash = w->name.find('/');
    map[slash == std::string::npos ? w->name : w->name.substr(0, slash)].push_back(w);
  }
  return map;
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

Status Builder::Build(const Json& model) {
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

Status Builder::BuildModel(const Json& model, const std::string& scope,
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
      // Keras 2: a list of [layer, node, tensor, kwargs] entries.
      std::vector<InboundRef> refs;
      const Json* kwargs = nullptr;
      bool ready = true;
      for (const Json& e : node) {
        InboundRef r;
        GRT_RETURN_IF_ERROR(ParseInbound(e, it->name, &r));
        if (e.size() > 3 && e[3].is_object() && !e[3].empty()) kwargs = &e[3];
        refs.push_back(r);
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
      if (!ready) {
        ++it;
        continue;
      }
      std::string call_scope = scope + it->name;
      if (it->node > 0) call_scope += StrCat("_call", it->node);
      // A shared layer uses the same weights at each call.
      WeightCursor cursor = cursor_for(it->name);
      std::vector<Value> outs;
      GRT_RETURN_IF_ERROR(CallLayer(*it->layer, scope, inputs, kwargs, &cursor, &outs));
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

Status Builder::CallLayer(const Json& layer, const std::string& scope, std::vector<Value> inputs,
                          const Json* kwargs, WeightCursor* weights, std::vector<Value>* outputs) {
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
  c.weights = weights;
  auto it = Table().find(c.class_name);
  if (it == Table().end()) {
    return Unimplemented("layer '", c.name, "' of unsupported class ", c.class_name);
  }
  if (c.inputs.empty()) return InvalidArgument("layer '", c.name, "' is called with no inputs");
  std::string format = Get<std::string>(*c.config, "data_format", "channels_last");
  if (format != "channels_last") {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): data_format ", format,
                         " (graphrt runs channels_last only)");
  }
  auto ranks = InputRanks().find(c.class_name);
  if (ranks != InputRanks().end()) {
    // Recurrent layers' further inputs are initial states, of rank 2.
    bool first_only = ranks->second.first == 3 && ranks->second.second == 3 &&
                      (c.class_name == "SimpleRNN" || c.class_name == "LSTM" ||
                       c.class_name == "GRU" || c.class_name == "Bidirectional");
    for (size_t i = 0; i < (first_only ? 1 : c.inputs.size()); ++i) {
      const Value& v = c.inputs[i];
      if (v.rank() < ranks->second.first || v.rank() > ranks->second.second) {
        return InvalidArgument("layer '", c.name, "' (", c.class_name, ") takes inputs of rank ",
                               ranks->second.first, "..", ranks->second.second, ", got ",
                               ShapeString(v.shape));
      }
    }
  }
  // Masks: only layers that pass them on unchanged, and the recurrent layers that use them.
  static const std::set<std::string> kPassMask = {"Dense",
                                                  "Activation",
                                                  "Dropout",
                                                  "SpatialDropout1D",
                                                  "GaussianNoise",
                                                  "GaussianDropout",
                                                  "AlphaDropout",
                                                  "ActivityRegularization",
                                                  "BatchNormalization",
                                                  "LayerNormalization"};
  static const std::set<std::string> kUseMask = {"SimpleRNN", "LSTM", "GRU", "Bidirectional"};
  std::string mask;
  for (const Value& v : c.inputs) {
    if (!v.mask.empty()) mask = v.mask;
  }
  if (!mask.empty() && kPassMask.count(c.class_name) == 0 && kUseMask.count(c.class_name) == 0) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, ") receives a Keras mask ",
                         "(Embedding mask_zero=True or Masking); graphrt carries masks only into ",
                         "recurrent layers");
  }
  Status s;
  try {
    s = (this->*(it->second))(c, outputs);
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

// ---------------------------------------------------------------------------------------------
// Activations.

StatusOr<std::string> Builder::Activate(const std::string& scope, const std::string& name,
                                        const std::string& x, const std::string& layer) {
  const std::string p = scope + "/" + (name.empty() ? "activation" : name);
  static const std::map<std::string, std::string> kUnary = {
      {"relu", "Relu"},         {"sigmoid", "Sigmoid"},   {"tanh", "Tanh"},
      {"softplus", "Softplus"}, {"softsign", "Softsign"}, {"elu", "Elu"},
      {"selu", "Selu"},         {"exponential", "Exp"},   {"relu6", "Relu6"}};
  if (name.empty() || name == "linear") return x;
  auto it = kUnary.find(name);
  if (it != kUnary.end()) return emit_.Unary(it->second, p, x);
  if (name == "softmax") return Softmax(p, x, -1, -1);
  if (name == "log_softmax") return emit_.Unary("LogSoftmax", p, x);
  if (name == "hard_sigmoid") {
    // Keras: clip(0.2 * x + 0.5, 0, 1).
    std::string y = emit_.Binary("Mul", p + "/mul", x, emit_.Float(p + "/slope", 0.2f));
    y = emit_.Binary("AddV2", p + "/add", y, emit_.Float(p + "/shift", 0.5f));
    y = emit_.Binary("Minimum", p + "/min", y, emit_.Float(p + "/one", 1.0f));
    return emit_.Binary("Maximum", p, y, emit_.Float(p + "/zero", 0.0f));
  }
  if (name == "swish" || name == "silu") {
    return emit_.Binary("Mul", p, x, emit_.Unary("Sigmoid", p + "/sigmoid", x));
  }
  if (name == "gelu") {
    // Keras's default (approximate=False): 0.5 * x * (1 + erf(x / sqrt(2))).
    std::string y =
        emit_.Binary("RealDiv", p + "/div", x, emit_.Float(p + "/sqrt2", 1.4142135623730951f));
    y = emit_.Unary("Erf", p + "/erf", y);
    y = emit_.Binary("AddV2", p + "/add", emit_.Float(p + "/one", 1.0f), y);
    y = emit_.Binary("Mul", p + "/mul", x, y);
    return emit_.Binary("Mul", p, emit_.Float(p + "/half", 0.5f), y);
  }
  if (name == "mish") {
    std::string y = emit_.Unary("Tanh", p + "/tanh", emit_.Unary("Softplus", p + "/softplus", x));
    return emit_.Binary("Mul", p, x, y);
  }
  return Unimplemented("layer '", layer, "': activation '", name, "'");
}

// Softmax over `axis` (TensorFlow's op works on the last axis; other axes are transposed there).
std::string Builder::Softmax(const std::string& name, const std::string& x, int axis, int rank) {
  if (axis < 0 || axis == rank - 1) return emit_.Unary("Softmax", name, x);
  std::vector<int32_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[axis], perm[rank - 1]);
  std::string t = emit_.Transpose(name + "/to_last", x, perm);
  t = emit_.Unary("Softmax", name + "/softmax", t);
  return emit_.Transpose(name, t, perm);
}

std::string Builder::ToFloat(const std::string& scope, const Value& v) {
  if (v.dtype == kFloat) return v.tensor;
  NodeDef* n = emit_.Add("Cast", scope + "/Cast", {v.tensor});
  SetNodeAttr(n, "SrcT", v.dtype);
  SetNodeAttr(n, "DstT", kFloat);
  SetNodeAttr(n, "Truncate", false);
  return n->name();
}

// ---------------------------------------------------------------------------------------------
// Core layers.

Status Builder::Input(LayerCall& c, std::vector<Value>* out) {
  out->push_back(c.inputs[0]);
  return Status::OK();
}

Status Builder::IdentityLayer(LayerCall& c, std::vector<Value>* out) {
  out->push_back(c.inputs[0]);
  return Status::OK();
}

Status Builder::Dense(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  int64_t units = Get<int64_t>(*c.config, "units", Get<int64_t>(*c.config, "output_dim", -1));
  bool use_bias = Get<bool>(*c.config, "use_bias", true);
  int64_t in = x.shape.empty() ? -1 : x.shape.back();
  GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next("kernel", {in, units}));
  units = kernel.dim_size(1);
  in = kernel.dim_size(0);
  std::string k = emit_.Weight(c.scope + "/kernel", kernel);
  std::string y;
  std::string input = ToFloat(c.scope, x);
  if (x.rank() == 2) {
    y = emit_.MatMul(c.scope + "/MatMul", input, k);
  } else {
    // Keras applies the kernel to the last axis (tensordot): flatten, multiply, restore.
    std::string flat =
        emit_.Reshape(c.scope + "/flatten", input,
                      emit_.Ints(c.scope + "/flat_shape", {-1, static_cast<int32_t>(in)}));
    y = emit_.MatMul(c.scope + "/MatMul", flat, k);
    std::string shape = emit_.ShapeOf(c.scope + "/in_shape", input);
    std::vector<std::string> dims;
    for (int i = 0; i + 1 < x.rank(); ++i) {
      dims.push_back(emit_.Element(c.scope + StrCat("/dim", i), shape, i));
    }
    dims.push_back(emit_.Int(c.scope + "/units", static_cast<int32_t>(units)));
    y = emit_.Reshape(c.scope + "/restore", y, emit_.Pack(c.scope + "/out_shape", dims, kInt32));
  }
  if (use_bias) {
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", {units}));
    y = emit_.BiasAdd(c.scope + "/BiasAdd", y, emit_.Weight(c.scope + "/bias", bias));
  }
  Shape shape = x.shape;
  shape.back() = units;
  GRT_ASSIGN_OR_RETURN(
      y, Activate(c.scope, ActivationName(*c.config, "activation", "linear"), y, c.name));
  out->push_back(Value{y, shape, kFloat});
  return Status::OK();
}

Status Builder::ActivationLayer(LayerCall& c, std::vector<Value>* out) {
  std::string name = ActivationName(*c.config, "activation", "linear");
  if (name == "softmax") {
    const Value& x = c.inputs[0];
    out->push_back(Value{Softmax(c.scope + "/softmax", x.tensor, -1, x.rank()), x.shape});
    return Status::OK();
  }
  GRT_ASSIGN_OR_RETURN(Value y, ActivateValue(c.scope, name, c.inputs[0], c.name));
  out->push_back(y);
  return Status::OK();
}

Status Builder::Flatten(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  int64_t prod = 1;
  for (int i = 1; i < x.rank(); ++i) prod = (prod < 0 || x.shape[i] < 0) ? -1 : prod * x.shape[i];
  std::string shape;
  if (prod >= 0) {
    shape = emit_.Ints(c.scope + "/shape", {-1, static_cast<int32_t>(prod)});
  } else {
    std::string batch =
        emit_.Element(c.scope + "/batch", emit_.ShapeOf(c.scope + "/Shape", x.tensor, x.dtype), 0);
    shape = emit_.Pack(c.scope + "/shape", {batch, emit_.Int(c.scope + "/rest", -1)}, kInt32);
  }
  std::string y = emit_.Reshape(c.scope + "/Reshape", x.tensor, shape, x.dtype);
  out->push_back(Value{y, {x.shape.empty() ? -1 : x.shape[0], prod}, x.dtype});
  return Status::OK();
}

Status Builder::ReshapeLayer(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  std::vector<int64_t> target = GetInts(*c.config, "target_shape", 0, -1);
  std::vector<int32_t> dims = {-1};
  Shape shape = {x.shape.empty() ? -1 : x.shape[0]};
  int64_t known = 1, total = 1;
  for (int i = 1; i < x.rank(); ++i)
    total = (total < 0 || x.shape[i] < 0) ? -1 : total * x.shape[i];
  for (int64_t d : target) {
    if (d >= 0) known *= d;
  }
  for (int64_t d : target) {
    dims.push_back(static_cast<int32_t>(d));
    shape.push_back(d >= 0 ? d : (total >= 0 && known > 0 ? total / known : -1));
  }
  // With the batch as -1 a second -1 is not allowed: fill it from the known total.
  if (std::count(target.begin(), target.end(), -1) > 0) {
    for (size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] < 0) {
        if (shape[i] < 0) {
          return Unimplemented("Reshape with an unknown dimension on an input of unknown size");
        }
        dims[i] = static_cast<int32_t>(shape[i]);
      }
    }
  }
  std::string y =
      emit_.Reshape(c.scope + "/Reshape", x.tensor, emit_.Ints(c.scope + "/shape", dims), x.dtype);
  out->push_back(Value{y, shape, x.dtype});
  return Status::OK();
}

Status Builder::Permute(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  std::vector<int64_t> dims = GetInts(*c.config, "dims", 0, 0);
  if (static_cast<int>(dims.size()) != x.rank() - 1) {
    return InvalidArgument("Permute dims ", dims.size(), " for an input of rank ", x.rank());
  }
  std::vector<int32_t> perm = {0};
  Shape shape = {x.shape[0]};
  for (int64_t d : dims) {
    if (d < 1 || d >= x.rank()) return InvalidArgument("Permute dims out of range");
    perm.push_back(static_cast<int32_t>(d));
    shape.push_back(x.shape[d]);
  }
  out->push_back(
      Value{emit_.Transpose(c.scope + "/transpose", x.tensor, perm, x.dtype), shape, x.dtype});
  return Status::OK();
}

Status Builder::RepeatVector(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  int32_t n = Get<int32_t>(*c.config, "n", 1);
  std::string y = emit_.ExpandDims(c.scope + "/ExpandDims", x.tensor, 1);
  NodeDef* tile =
      emit_.Add("Tile", c.scope + "/Tile", {y, emit_.Ints(c.scope + "/multiples", {1, n, 1})});
  SetNodeAttr(tile, "T", kFloat);
  SetNodeAttr(tile, "Tmultiples", kInt32);
  out->push_back(Value{tile->name(), {x.shape[0], n, x.shape[1]}});
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Convolutions and pooling. 1-D layers run as 2-D ones over a height of 1.

int64_t ConvOut(int64_t in, int64_t k, int64_t stride, int64_t dilation, const std::string& pad) {
  if (in < 0) return -1;
  int64_t dk = (k - 1) * dilation + 1;
  if (pad == "same") return (in + stride - 1) / stride;
  return (in - dk) / stride + 1;
}

Status Builder::Conv(LayerCall& c, std::vector<Value>* out) {
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  std::string cls = c.class_name;
  bool one_d = cls.find("1D") != std::string::npos;
  bool depthwise = cls == "DepthwiseConv2D";
  bool separable = cls.find("Separable") != std::string::npos;
  bool transpose = cls.find("Transpose") != std::string::npos;
  int n = one_d ? 1 : 2;
  if (x.rank() != n + 2) {
    return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  }
  std::vector<int64_t> ks = GetWindow(cfg, "kernel_size", n, 1);
  std::vector<int64_t> st = GetWindow(cfg, "strides", n, 1);
  std::vector<int64_t> dl = GetWindow(cfg, "dilation_rate", n, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  int64_t groups = Get<int64_t>(cfg, "groups", 1);
  if (groups != 1) return Unimplemented("grouped convolution (groups=", groups, ")");
  int64_t in_ch = x.shape.back();
  std::string input = x.tensor;
  if (padding == "causal") {
    // Left padding of (k-1)*d, then a valid convolution.
    int32_t left = static_cast<int32_t>((ks[0] - 1) * dl[0]);
    Tensor paddings(kInt32, TensorShape({3, 2}));
    std::fill(paddings.data<int32_t>(), paddings.data<int32_t>() + 6, 0);
    paddings.data<int32_t>()[2] = left;
    NodeDef* pad = emit_.Add("Pad", c.scope + "/causal_pad",
                             {input, emit_.Const(c.scope + "/causal_paddings", paddings)});
    SetNodeAttr(pad, "T", kFloat);
    SetNodeAttr(pad, "Tpaddings", kInt32);
    input = pad->name();
    padding = "valid";
  }
  std::string tf_pad = padding == "same" ? "SAME" : "VALID";
  if (one_d) input = emit_.ExpandDims(c.scope + "/ExpandDims", input, 1);
  std::vector<int64_t> kh_kw = one_d ? std::vector<int64_t>{1, ks[0]} : ks;
  std::vector<int64_t> strides = {1, one_d ? 1 : st[0], one_d ? st[0] : st[1], 1};
  std::vector<int64_t> dilations = {1, one_d ? 1 : dl[0], one_d ? dl[0] : dl[1], 1};
  auto conv_kernel = [&](const Tensor& k) {
    // A 1-D kernel [k, in, out] is a 2-D one [1, k, in, out].
    if (!one_d) return k;
    Shape s = TensorDims(k);
    s.insert(s.begin(), 1);
    return k.Reshaped(TensorShape(s));
  };
  int64_t out_ch = -1;
  std::string y;
  auto conv2d = [&](const std::string& name, const std::string& in, const std::string& filter,
                    const std::vector<int64_t>& s, const std::vector<int64_t>& d,
                    const std::string& pad) {
    NodeDef* node = emit_.Add("Conv2D", name, {in, filter});
    SetNodeAttr(node, "T", kFloat);
    SetNodeAttr(node, "strides", s);
    SetNodeAttr(node, "dilations", d);
    SetNodeAttr(node, "padding", pad);
    SetNodeAttr(node, "data_format", "NHWC");
    SetNodeAttr(node, "use_cudnn_on_gpu", true);
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
    return node->name();
  };
  auto depthwise_conv = [&](const std::string& name, const std::string& in,
                            const std::string& filter) {
    NodeDef* node = emit_.Add("DepthwiseConv2dNative", name, {in, filter});
    SetNodeAttr(node, "T", kFloat);
    SetNodeAttr(node, "strides", strides);
    SetNodeAttr(node, "dilations", dilations);
    SetNodeAttr(node, "padding", tf_pad);
    SetNodeAttr(node, "data_format", "NHWC");
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
    return node->name();
  };
  Shape out_shape = x.shape;
  for (int i = 0; i < n; ++i) {
    out_shape[1 + i] = ConvOut(x.shape[1 + i], ks[i], st[i], dl[i], padding);
  }
  if (transpose) {
    GRT_ASSIGN_OR_RETURN(y, ConvTranspose(c, x, &out_ch, &out_shape));
  } else if (depthwise) {
    int64_t mult = Get<int64_t>(cfg, "depth_multiplier", 1);
    GRT_ASSIGN_OR_RETURN(Tensor k,
                         c.weights->Next("depthwise_kernel", {ks[0], ks[1], in_ch, mult}));
    y = depthwise_conv(c.scope + "/depthwise", input,
                       emit_.Weight(c.scope + "/depthwise_kernel", k));
    out_ch = k.dim_size(2) * k.dim_size(3);
  } else if (separable) {
    int64_t mult = Get<int64_t>(cfg, "depth_multiplier", 1);
    int64_t filters = Get<int64_t>(cfg, "filters", -1);
    Shape dshape = one_d ? Shape{ks[0], in_ch, mult} : Shape{ks[0], ks[1], in_ch, mult};
    GRT_ASSIGN_OR_RETURN(Tensor dk, c.weights->Next("depthwise_kernel", dshape));
    Shape pshape = one_d ? Shape{1, in_ch * mult, filters} : Shape{1, 1, in_ch * mult, filters};
    GRT_ASSIGN_OR_RETURN(Tensor pk, c.weights->Next("pointwise_kernel", pshape));
    y = depthwise_conv(c.scope + "/separable_conv2d/depthwise", input,
                       emit_.Weight(c.scope + "/depthwise_kernel", conv_kernel(dk)));
    y = conv2d(c.scope + "/separable_conv2d", y,
               emit_.Weight(c.scope + "/pointwise_kernel", conv_kernel(pk)), {1, 1, 1, 1},
               {1, 1, 1, 1}, "VALID");
    out_ch = pk.dim_size(pk.dims() - 1);
  } else {
    int64_t filters = Get<int64_t>(cfg, "filters", Get<int64_t>(cfg, "nb_filter", -1));
    Shape kshape = one_d ? Shape{ks[0], in_ch, filters} : Shape{ks[0], ks[1], in_ch, filters};
    GRT_ASSIGN_OR_RETURN(Tensor k, c.weights->Next("kernel", kshape));
    y = conv2d(c.scope + "/Conv2D", input, emit_.Weight(c.scope + "/kernel", conv_kernel(k)),
               strides, dilations, tf_pad);
    out_ch = k.dim_size(k.dims() - 1);
  }
  if (Get<bool>(cfg, "use_bias", true)) {
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", {out_ch}));
    y = emit_.BiasAdd(c.scope + "/BiasAdd", y, emit_.Weight(c.scope + "/bias", bias));
  }
  if (one_d) y = emit_.Squeeze(c.scope + "/Squeeze", y, {1});
  out_shape.back() = out_ch;
  GRT_ASSIGN_OR_RETURN(y,
                       Activate(c.scope, ActivationName(cfg, "activation", "linear"), y, c.name));
  out->push_back(Value{y, out_shape});
  return Status::OK();
}

// Conv2DTranspose as a plain convolution: the input spread out by the strides (zeros between
// pixels), padded by kernel-1 on each side, convolved with the kernel flipped in space and with
// its channel axes swapped, then cropped to Keras's output size.
StatusOr<std::string> Builder::ConvTranspose(LayerCall& c, const Value& x, int64_t* out_ch,
                                             Shape* out_shape) {
  const Json& cfg = *c.config;
  std::vector<int64_t> ks = GetWindow(cfg, "kernel_size", 2, 1);
  std::vector<int64_t> st = GetWindow(cfg, "strides", 2, 1);
  std::vector<int64_t> dl = GetWindow(cfg, "dilation_rate", 2, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  if (dl[0] != 1 || dl[1] != 1) return Unimplemented("Conv2DTranspose with dilation");
  bool has_output_padding = cfg.contains("output_padding") && !cfg["output_padding"].is_null();
  std::vector<int64_t> output_padding = GetInts(cfg, "output_padding", 2, 0);
  int64_t h = x.shape[1], w = x.shape[2], in_ch = x.shape[3];
  if (h < 0 || w < 0 || in_ch < 0) return Unimplemented("Conv2DTranspose of unknown input size");
  int64_t filters = Get<int64_t>(cfg, "filters", -1);
  GRT_ASSIGN_OR_RETURN(Tensor k, c.weights->Next("kernel", {ks[0], ks[1], filters, in_ch}));
  filters = k.dim_size(2);
  // [kh, kw, out, in] -> flipped [kh, kw, in, out].
  Tensor flipped(kFloat, TensorShape({ks[0], ks[1], in_ch, filters}));
  for (int64_t i = 0; i < ks[0]; ++i) {
    for (int64_t j = 0; j < ks[1]; ++j) {
      for (int64_t o = 0; o < filters; ++o) {
        for (int64_t n = 0; n < in_ch; ++n) {
          flipped.data<float>()[((i * ks[1] + j) * in_ch + n) * filters + o] =
              k.data<float>()[(((ks[0] - 1 - i) * ks[1] + (ks[1] - 1 - j)) * filters + o) * in_ch +
                              n];
        }
      }
    }
  }
  const std::string p = c.scope + "/conv2d_transpose";
  std::string y = x.tensor;
  int64_t dh = (h - 1) * st[0] + 1, dw = (w - 1) * st[1] + 1;
  if (st[0] > 1 || st[1] > 1) {
    // [B,H,W,C] -> [B,H,1,W,1,C] -> zeros after -> [B,H*s0,W*s1,C] -> first (H-1)*s0+1 rows.
    y = emit_.Reshape(
        p + "/spread", y,
        emit_.Ints(p + "/spread_shape", {-1, static_cast<int32_t>(h), 1, static_cast<int32_t>(w), 1,
                                         static_cast<int32_t>(in_ch)}));
    Tensor pads(kInt32, TensorShape({6, 2}));
    std::fill(pads.data<int32_t>(), pads.data<int32_t>() + 12, 0);
    pads.data<int32_t>()[5] = static_cast<int32_t>(st[0] - 1);
    pads.data<int32_t>()[9] = static_cast<int32_t>(st[1] - 1);
    NodeDef* pad = emit_.Add("Pad", p + "/zeros", {y, emit_.Const(p + "/zeros/paddings", pads)});
    SetNodeAttr(pad, "T", kFloat);
    SetNodeAttr(pad, "Tpaddings", kInt32);
    y = emit_.Reshape(p + "/spread_out", pad->name(),
                      emit_.Ints(p + "/spread_out_shape",
                                 {-1, static_cast<int32_t>(h * st[0]),
                                  static_cast<int32_t>(w * st[1]), static_cast<int32_t>(in_ch)}));
    NodeDef* slice =
        emit_.Add("Slice", p + "/spread_crop",
                  {y, emit_.Ints(p + "/spread_crop/begin", {0, 0, 0, 0}),
                   emit_.Ints(p + "/spread_crop/size",
                              {-1, static_cast<int32_t>(dh), static_cast<int32_t>(dw), -1})});
    SetNodeAttr(slice, "T", kFloat);
    SetNodeAttr(slice, "Index", kInt32);
    y = slice->name();
  }
  // Output size and where it starts in the full (kernel-1 padded) result.
  int64_t full[2] = {dh + ks[0] - 1, dw + ks[1] - 1};
  int64_t size[2], begin[2];
  for (int i = 0; i < 2; ++i) {
    int64_t in = i == 0 ? h : w;
    // Keras's deconv_output_length; TensorFlow then pads as the forward convolution from
    // `size` to `in` would (SAME: half the excess before).
    if (has_output_padding) {
      int64_t pad = padding == "same" ? ks[i] / 2 : 0;
      size[i] = (in - 1) * st[i] + ks[i] - 2 * pad + output_padding[i];
    } else {
      size[i] = padding == "same" ? in * st[i] : full[i];
    }
    begin[i] = padding == "same" ? std::max<int64_t>(full[i] - size[i], 0) / 2 : 0;
  }
  Tensor pads(kInt32, TensorShape({4, 2}));
  std::fill(pads.data<int32_t>(), pads.data<int32_t>() + 8, 0);
  for (int i = 0; i < 2; ++i) {
    int64_t extra = std::max<int64_t>(0, begin[i] + size[i] - full[i]);
    pads.data<int32_t>()[2 + 2 * i] = static_cast<int32_t>(ks[i] - 1);
    pads.data<int32_t>()[3 + 2 * i] = static_cast<int32_t>(ks[i] - 1 + extra);
  }
  NodeDef* pad = emit_.Add("Pad", p + "/pad", {y, emit_.Const(p + "/paddings", pads)});
  SetNodeAttr(pad, "T", kFloat);
  SetNodeAttr(pad, "Tpaddings", kInt32);
  NodeDef* conv = emit_.Add("Conv2D", p, {pad->name(), emit_.Weight(c.scope + "/kernel", flipped)});
  SetNodeAttr(conv, "T", kFloat);
  SetNodeAttr(conv, "strides", std::vector<int64_t>{1, 1, 1, 1});
  SetNodeAttr(conv, "dilations", std::vector<int64_t>{1, 1, 1, 1});
  SetNodeAttr(conv, "padding", "VALID");
  SetNodeAttr(conv, "data_format", "NHWC");
  SetNodeAttr(conv, "use_cudnn_on_gpu", true);
  SetNodeAttr(conv, "explicit_paddings", std::vector<int64_t>{});
  NodeDef* crop = emit_.Add("Slice", p + "/crop",
                            {conv->name(),
                             emit_.Ints(p + "/crop/begin", {0, static_cast<int32_t>(begin[0]),
                                                            static_cast<int32_t>(begin[1]), 0}),
                             emit_.Ints(p + "/crop/size", {-1, static_cast<int32_t>(size[0]),
                                                           static_cast<int32_t>(size[1]), -1})});
  SetNodeAttr(crop, "T", kFloat);
  SetNodeAttr(crop, "Index", kInt32);
  *out_ch = filters;
  *out_shape = {x.shape[0], size[0], size[1], filters};
  return crop->name();
}

Status Builder::Pooling(LayerCall& c, std::vector<Value>* out) {
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  bool one_d = c.class_name.find("1D") != std::string::npos;
  bool max = c.class_name.find("Max") != std::string::npos;
  int n = one_d ? 1 : 2;
  if (x.rank() != n + 2) return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  std::vector<int64_t> pool =
      one_d ? GetWindow(cfg, "pool_size", 1, 2) : GetWindow(cfg, "pool_size", 2, 2);
  auto strides = cfg.find("strides");  // None: the pool size
  std::vector<int64_t> st =
      strides == cfg.end() || strides->is_null() ? pool : GetWindow(cfg, "strides", n, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  std::string input = x.tensor;
  if (one_d) input = emit_.ExpandDims(c.scope + "/ExpandDims", input, 1);
  NodeDef* node =
      emit_.Add(max ? "MaxPool" : "AvgPool", c.scope + (max ? "/MaxPool" : "/AvgPool"), {input});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "ksize",
              std::vector<int64_t>{1, one_d ? 1 : pool[0], one_d ? pool[0] : pool[1], 1});
  SetNodeAttr(node, "strides",
              std::vector<int64_t>{1, one_d ? 1 : st[0], one_d ? st[0] : st[1], 1});
  SetNodeAttr(node, "padding", padding == "same" ? "SAME" : "VALID");
  SetNodeAttr(node, "data_format", "NHWC");
  if (max) SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
  std::string y = node->name();
  if (one_d) y = emit_.Squeeze(c.scope + "/Squeeze", y, {1});
  Shape shape = x.shape;
  for (int i = 0; i < n; ++i) shape[1 + i] = ConvOut(x.shape[1 + i], pool[i], st[i], 1, padding);
  out->push_back(Value{y, shape});
  return Status::OK();
}

Status Builder::GlobalPooling(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  bool max = c.class_name.find("Max") != std::string::npos;
  bool keepdims = Get<bool>(*c.config, "keepdims", false);
  std::vector<int32_t> axes;
  Shape shape = {x.shape[0]};
  for (int i = 1; i + 1 < x.rank(); ++i) {
    axes.push_back(i);
    if (keepdims) shape.push_back(1);
  }
  shape.push_back(x.shape.back());
  out->push_back(Value{emit_.Reduce(max ? "Max" : "Mean", c.scope + (max ? "/Max" : "/Mean"),
                                    x.tensor, axes, keepdims),
                       shape});
  return Status::OK();
}

// [[top, bottom], [left, right]] (or [left, right] for 1-D) from Keras's padding/cropping
// spellings.
std::vector<std::pair<int64_t, int64_t>> PairsFromConfig(const Json& v, int n, const char* key) {
  auto pair = [key](const Json& p) {
    if (p.is_number()) return std::make_pair(JsonInt(p), JsonInt(p));
    if (!p.is_array() || p.size() != 2) {
      throw ConfigError(StrCat("'", key, "' holds ", p.dump(), ", not a pair of numbers"));
    }
    return std::make_pair(JsonInt(p[0]), JsonInt(p[1]));
  };
  std::vector<std::pair<int64_t, int64_t>> out;
  if (v.is_number() || n == 1) {
    out.assign(n, pair(v));
    return out;
  }
  if (!v.is_array() || v.size() != static_cast<size_t>(n)) {
    throw ConfigError(StrCat("'", key, "' holds ", v.dump(), ", not ", n, " pairs"));
  }
  for (const Json& e : v) out.push_back(pair(e));
  return out;
}

Status Builder::ZeroPadding(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  int n = c.class_name.find("1D") != std::string::npos ? 1 : 2;
  GRT_ASSIGN_OR_RETURN(const Json* padding, Member(*c.config, "padding", c.name));
  auto pairs = PairsFromConfig(*padding, n, "padding");
  Tensor paddings(kInt32, TensorShape({x.rank(), 2}));
  int32_t* p = paddings.data<int32_t>();
  std::fill(p, p + 2 * x.rank(), 0);
  Shape shape = x.shape;
  for (int i = 0; i < n; ++i) {
    p[2 * (i + 1)] = static_cast<int32_t>(pairs[i].first);
    p[2 * (i + 1) + 1] = static_cast<int32_t>(pairs[i].second);
    if (shape[1 + i] >= 0) shape[1 + i] += pairs[i].first + pairs[i].second;
  }
  NodeDef* pad =
      emit_.Add("Pad", c.scope + "/Pad", {x.tensor, emit_.Const(c.scope + "/paddings", paddings)});
  SetNodeAttr(pad, "T", kFloat);
  SetNodeAttr(pad, "Tpaddings", kInt32);
  out->push_back(Value{pad->name(), shape});
  return Status::OK();
}

Status Builder::Cropping(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  int n = c.class_name.find("1D") != std::string::npos ? 1 : 2;
  GRT_ASSIGN_OR_RETURN(const Json* cropping, Member(*c.config, "cropping", c.name));
  auto pairs = PairsFromConfig(*cropping, n, "cropping");
  std::vector<int32_t> begin(x.rank(), 0), end(x.rank(), 0), strides(x.rank(), 1);
  int64_t end_mask = 0;
  Shape shape = x.shape;
  for (int i = 0; i < x.rank(); ++i) {
    bool cropped = i >= 1 && i <= n;
    if (!cropped || pairs[i - 1].second == 0) end_mask |= int64_t{1} << i;
    if (cropped) {
      begin[i] = static_cast<int32_t>(pairs[i - 1].first);
      end[i] = static_cast<int32_t>(-pairs[i - 1].second);
      if (shape[i] >= 0) shape[i] -= pairs[i - 1].first + pairs[i - 1].second;
    }
  }
  NodeDef* node =
      emit_.Add("StridedSlice", c.scope + "/StridedSlice",
                {x.tensor, emit_.Ints(c.scope + "/begin", begin), emit_.Ints(c.scope + "/end", end),
                 emit_.Ints(c.scope + "/strides", strides)});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "Index", kInt32);
  SetNodeAttr(node, "begin_mask", 0);
  SetNodeAttr(node, "end_mask", end_mask);
  SetNodeAttr(node, "ellipsis_mask", 0);
  SetNodeAttr(node, "new_axis_mask", 0);
  SetNodeAttr(node, "shrink_axis_mask", 0);
  out->push_back(Value{node->name(), shape});
  return Status::OK();
}

Status Builder::UpSampling(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  if (c.class_name == "UpSampling1D") {
    // Each step repeated `size` times: [B, T, C] -> [B, T, 1, C] -> tile -> [B, T*size, C].
    int32_t size = Get<int32_t>(*c.config, "size", 2);
    if (x.shape[1] < 0 || x.shape[2] < 0) return Unimplemented("UpSampling1D of unknown length");
    std::string y = emit_.ExpandDims(c.scope + "/ExpandDims", x.tensor, 2);
    NodeDef* tile = emit_.Add("Tile", c.scope + "/Tile",
                              {y, emit_.Ints(c.scope + "/multiples", {1, 1, size, 1})});
    SetNodeAttr(tile, "T", kFloat);
    SetNodeAttr(tile, "Tmultiples", kInt32);
    int32_t len = static_cast<int32_t>(x.shape[1] * size);
    y = emit_.Reshape(c.scope + "/Reshape", tile->name(),
                      emit_.Ints(c.scope + "/shape", {-1, len, static_cast<int32_t>(x.shape[2])}));
    out->push_back(Value{y, {x.shape[0], len, x.shape[2]}});
    return Status::OK();
  }
  std::vector<int64_t> size = GetWindow(*c.config, "size", 2, 2);
  std::string interpolation = Get<std::string>(*c.config, "interpolation", "nearest");
  if (x.shape[1] < 0 || x.shape[2] < 0) return Unimplemented("UpSampling2D of unknown size");
  int32_t h = static_cast<int32_t>(x.shape[1] * size[0]);
  int32_t w = static_cast<int32_t>(x.shape[2] * size[1]);
  std::string op;
  if (interpolation == "nearest") {
    op = "ResizeNearestNeighbor";
  } else if (interpolation == "bilinear") {
    op = "ResizeBilinear";
  } else {
    return Unimplemented("UpSampling2D interpolation '", interpolation, "'");
  }
  NodeDef* node =
      emit_.Add(op, c.scope + "/" + op, {x.tensor, emit_.Ints(c.scope + "/size", {h, w})});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "align_corners", false);
  SetNodeAttr(node, "half_pixel_centers", true);
  out->push_back(Value{node->name(), {x.shape[0], h, w, x.shape[3]}});
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Normalization.

// A per-channel vector broadcast along `axis` of a rank-`rank` input.
Tensor Broadcastable(const Tensor& v, int axis, int rank) {
  Shape s(rank, 1);
  s[axis] = v.NumElements();
  return v.Reshaped(TensorShape(s));
}

Status Builder::BatchNorm(LayerCall& c, std::vector<Value>* out) {
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  Json axis_json = cfg.value("axis", Json(-1));
  if (axis_json.is_array()) {
    if (axis_json.size() != 1) return Unimplemented("BatchNormalization over several axes");
    axis_json = axis_json[0];
  }
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(axis_json), x.rank()));
  int64_t ch = x.shape[axis];
  bool center = Get<bool>(cfg, "center", true);
  bool scale = Get<bool>(cfg, "scale", true);
  float eps = Get<float>(cfg, "epsilon", 1e-3f);
  Tensor gamma, beta;
  if (scale) {
    GRT_ASSIGN_OR_RETURN(gamma, c.weights->Next("gamma", {ch}));
  }
  if (center) {
    GRT_ASSIGN_OR_RETURN(beta, c.weights->Next("beta", {ch}));
  }
  GRT_ASSIGN_OR_RETURN(Tensor mean, c.weights->Next("moving_mean", {ch}));
  GRT_ASSIGN_OR_RETURN(Tensor var, c.weights->Next("moving_variance", {ch}));
  // As tf.nn.batch_normalization: inv = rsqrt(var + eps) * gamma; x * inv + (beta - mean * inv).
  // The weights stay separate nodes so that an exported graph keeps them as variables.
  int rank = x.rank();
  std::string p = c.scope + "/batchnorm";
  auto w = [&](const char* name, const Tensor& t) {
    return emit_.Weight(c.scope + "/" + name, Broadcastable(t, axis, rank));
  };
  std::string inv = emit_.Unary("Rsqrt", p + "/Rsqrt",
                                emit_.Binary("AddV2", p + "/add", w("moving_variance", var),
                                             emit_.Float(p + "/epsilon", eps)));
  if (scale) inv = emit_.Binary("Mul", p + "/mul", inv, w("gamma", gamma));
  std::string shift = emit_.Binary("Mul", p + "/mul_2", w("moving_mean", mean), inv);
  shift = center ? emit_.Binary("Sub", p + "/sub", w("beta", beta), shift)
                 : emit_.Unary("Neg", p + "/neg", shift);
  std::string y = emit_.Binary("Mul", p + "/mul_1", x.tensor, inv);
  y = emit_.Binary("AddV2", p + "/add_1", y, shift);
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status Builder::LayerNorm(LayerCall& c, std::vector<Value>* out) {
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  Json axis_json = cfg.value("axis", Json(-1));
  std::vector<int32_t> axes;
  if (axis_json.is_array()) {
    for (const Json& a : axis_json) {
      GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(a), x.rank()));
      axes.push_back(axis);
    }
  } else {
    GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(axis_json), x.rank()));
    axes.push_back(axis);
  }
  std::sort(axes.begin(), axes.end());
  Shape param_shape;
  for (int a : axes) param_shape.push_back(x.shape[a]);
  float eps = Get<float>(cfg, "epsilon", 1e-3f);
  bool center = Get<bool>(cfg, "center", true);
  bool scale = Get<bool>(cfg, "scale", true);
  // Broadcast shape of gamma/beta: the normalized axes keep their size.
  Shape bshape(x.rank(), 1);
  for (int a : axes) bshape[a] = x.shape[a];
  std::string p = c.scope;
  std::string mean = emit_.Reduce("Mean", p + "/moments/mean", x.tensor, axes, true);
  std::string diff =
      emit_.Binary("SquaredDifference", p + "/moments/SquaredDifference", x.tensor, mean);
  std::string var = emit_.Reduce("Mean", p + "/moments/variance", diff, axes, true);
  std::string inv =
      emit_.Unary("Rsqrt", p + "/Rsqrt",
                  emit_.Binary("AddV2", p + "/add", var, emit_.Float(p + "/epsilon", eps)));
  if (scale) {
    GRT_ASSIGN_OR_RETURN(Tensor gamma, c.weights->Next("gamma", param_shape));
    inv = emit_.Binary("Mul", p + "/mul", inv,
                       emit_.Weight(p + "/gamma", gamma.Reshaped(TensorShape(bshape))));
  }
  std::string y = emit_.Binary("Mul", p + "/mul_1", x.tensor, inv);
  std::string shift = emit_.Unary("Neg", p + "/neg", emit_.Binary("Mul", p + "/mul_2", mean, inv));
  if (center) {
    GRT_ASSIGN_OR_RETURN(Tensor beta, c.weights->Next("beta", param_shape));
    shift = emit_.Binary("AddV2", p + "/add_2",
                         emit_.Weight(p + "/beta", beta.Reshaped(TensorShape(bshape))), shift);
  }
  y = emit_.Binary("AddV2", p + "/add_1", y, shift);
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status Builder::Embedding(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  int64_t in_dim = Get<int64_t>(*c.config, "input_dim", -1);
  int64_t out_dim = Get<int64_t>(*c.config, "output_dim", -1);
  GRT_ASSIGN_OR_RETURN(Tensor table, c.weights->Next("embeddings", {in_dim, out_dim}));
  std::string ids = x.tensor;
  if (x.dtype != kInt32 && x.dtype != ::tensorflow::DT_INT64) {
    NodeDef* cast = emit_.Add("Cast", c.scope + "/Cast", {x.tensor});
    SetNodeAttr(cast, "SrcT", x.dtype);
    SetNodeAttr(cast, "DstT", kInt32);
    SetNodeAttr(cast, "Truncate", false);
    ids = cast->name();
  }
  NodeDef* gather = emit_.Add(
      "GatherV2", c.scope + "/embedding_lookup",
      {emit_.Weight(c.scope + "/embeddings", table), ids, emit_.Int(c.scope + "/axis", 0)});
  SetNodeAttr(gather, "Tparams", kFloat);
  SetNodeAttr(gather, "Tindices", x.dtype == ::tensorflow::DT_INT64 ? x.dtype : kInt32);
  SetNodeAttr(gather, "Taxis", kInt32);
  SetNodeAttr(gather, "batch_dims", 0);
  Shape shape = x.shape;
  shape.push_back(table.dim_size(1));
  Value y{gather->name(), shape};
  if (Get<bool>(*c.config, "mask_zero", false)) {
    if (x.rank() != 2) return Unimplemented("mask_zero on ids of rank ", x.rank());
    NodeDef* zero = emit_.Add("Const", c.scope + "/mask/zero", {});
    Tensor z = x.dtype == ::tensorflow::DT_INT64 ? Tensor::Scalar<int64_t>(0)
               : x.dtype == kInt32               ? Tensor::Scalar<int32_t>(0)
                                                 : Tensor::Scalar<float>(0.0f);
    SetNodeAttr(zero, "dtype", z.dtype());
    SetNodeAttr(zero, "value", z);
    NodeDef* ne = emit_.Add("NotEqual", c.scope + "/mask", {x.tensor, zero->name()});
    SetNodeAttr(ne, "T", x.dtype);
    SetNodeAttr(ne, "incompatible_shape_error", true);
    y.mask = ne->name();
  }
  out->push_back(y);
  return Status::OK();
}

// Keras: mask = any(x != mask_value, axis=-1); output = x * mask.
Status Builder::MaskingLayer(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  if (x.rank() != 3) return Unimplemented("Masking of an input of rank ", x.rank());
  float value = Get<float>(*c.config, "mask_value", 0.0f);
  NodeDef* ne = emit_.Add("NotEqual", c.scope + "/NotEqual",
                          {x.tensor, emit_.Float(c.scope + "/mask_value", value)});
  SetNodeAttr(ne, "T", kFloat);
  SetNodeAttr(ne, "incompatible_shape_error", true);
  NodeDef* any =
      emit_.Add("Any", c.scope + "/Any", {ne->name(), emit_.Ints(c.scope + "/axis", {-1})});
  SetNodeAttr(any, "Tidx", kInt32);
  SetNodeAttr(any, "keep_dims", true);
  NodeDef* cast = emit_.Add("Cast", c.scope + "/Cast", {any->name()});
  SetNodeAttr(cast, "SrcT", ::tensorflow::DT_BOOL);
  SetNodeAttr(cast, "DstT", kFloat);
  SetNodeAttr(cast, "Truncate", false);
  Value y{emit_.Binary("Mul", c.scope + "/mul", x.tensor, cast->name()), x.shape};
  y.mask = emit_.Squeeze(c.scope + "/mask", any->name(), {2}, ::tensorflow::DT_BOOL);
  out->push_back(y);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Activation layers.

Status Builder::ReLULayer(LayerCall& c, std::vector<Value>* out) {
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
    std::string below = emit_.Binary(
        "Mul", p + "/below",
        emit_.Binary("Sub", p + "/shifted", x.tensor, emit_.Float(p + "/threshold", threshold)),
        emit_.Float(p + "/slope", slope));
    NodeDef* cond = emit_.Add("GreaterEqual", p + "/GreaterEqual",
                              {x.tensor, emit_.Float(p + "/threshold_c", threshold)});
    SetNodeAttr(cond, "T", kFloat);
    NodeDef* sel = emit_.Add("SelectV2", p + "/SelectV2", {cond->name(), x.tensor, below});
    SetNodeAttr(sel, "T", kFloat);
    y = sel->name();
  } else if (slope != 0.0f) {
    NodeDef* n = emit_.Add("LeakyRelu", p + "/LeakyRelu", {x.tensor});
    SetNodeAttr(n, "T", kFloat);
    SetNodeAttr(n, "alpha", slope);
    y = n->name();
  } else if (has_max && max_value == 6.0f) {
    out->push_back(Value{emit_.Unary("Relu6", p + "/Relu6", x.tensor), x.shape});
    return Status::OK();
  } else {
    y = emit_.Unary("Relu", p + "/Relu", x.tensor);
  }
  if (has_max)
    y = emit_.Binary("Minimum", p + "/Minimum", y, emit_.Float(p + "/max_value", max_value));
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status Builder::LeakyReLULayer(LayerCall& c, std::vector<Value>* out) {
  NodeDef* n = emit_.Add("LeakyRelu", c.scope + "/LeakyRelu", {c.inputs[0].tensor});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "alpha",
              Get<float>(*c.config, "alpha", Get<float>(*c.config, "negative_slope", 0.3f)));
  out->push_back(Value{n->name(), c.inputs[0].shape});
  return Status::OK();
}

Status Builder::PReLULayer(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  Shape alpha_shape(x.shape.begin() + 1, x.shape.end());
  for (int64_t a : GetInts(*c.config, "shared_axes", 0, 0)) {
    if (a >= 1 && a < x.rank()) alpha_shape[a - 1] = 1;
  }
  GRT_ASSIGN_OR_RETURN(Tensor alpha, c.weights->Next("alpha", alpha_shape));
  // Keras: relu(x) - alpha * relu(-x).
  std::string p = c.scope;
  std::string pos = emit_.Unary("Relu", p + "/Relu", x.tensor);
  std::string neg = emit_.Unary("Relu", p + "/Relu_1", emit_.Unary("Neg", p + "/Neg", x.tensor));
  std::string a = emit_.Unary("Neg", p + "/Neg_1", emit_.Weight(p + "/alpha", alpha));
  std::string y = emit_.Binary("AddV2", p + "/add", pos, emit_.Binary("Mul", p + "/mul", a, neg));
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status Builder::ELULayer(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  float alpha = Get<float>(*c.config, "alpha", 1.0f);
  std::string y = emit_.Unary("Elu", c.scope + "/Elu", x.tensor);
  if (alpha != 1.0f) {
    NodeDef* cond = emit_.Add("Greater", c.scope + "/Greater",
                              {x.tensor, emit_.Float(c.scope + "/zero", 0.0f)});
    SetNodeAttr(cond, "T", kFloat);
    std::string scaled =
        emit_.Binary("Mul", c.scope + "/mul", emit_.Float(c.scope + "/alpha", alpha), y);
    NodeDef* sel = emit_.Add("SelectV2", c.scope + "/SelectV2", {cond->name(), y, scaled});
    SetNodeAttr(sel, "T", kFloat);
    y = sel->name();
  }
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status Builder::ThresholdedReLULayer(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  float theta = Get<float>(*c.config, "theta", 1.0f);
  NodeDef* cond = emit_.Add("Greater", c.scope + "/Greater",
                            {x.tensor, emit_.Float(c.scope + "/theta", theta)});
  SetNodeAttr(cond, "T", kFloat);
  NodeDef* cast = emit_.Add("Cast", c.scope + "/Cast", {cond->name()});
  SetNodeAttr(cast, "SrcT", ::tensorflow::DT_BOOL);
  SetNodeAttr(cast, "DstT", kFloat);
  SetNodeAttr(cast, "Truncate", false);
  out->push_back(Value{emit_.Binary("Mul", c.scope + "/mul", x.tensor, cast->name()), x.shape});
  return Status::OK();
}

Status Builder::SoftmaxLayer(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  Json axis = c.config->value("axis", Json(-1));
  if (axis.is_array()) {
    if (axis.size() != 1) return Unimplemented("Softmax over several axes");
    axis = axis[0];
  }
  GRT_ASSIGN_OR_RETURN(int axis_index, NormAxis(JsonInt(axis), x.rank()));
  out->push_back(Value{Softmax(c.scope + "/Softmax", x.tensor, axis_index, x.rank()), x.shape});
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Merging layers.

Shape BroadcastShape(const Shape& a, const Shape& b) {
  Shape out = a.size() >= b.size() ? a : b;
  const Shape& other = a.size() >= b.size() ? b : a;
  size_t off = out.size() - other.size();
  for (size_t i = 0; i < other.size(); ++i) {
    if (out[off + i] == 1 || out[off + i] < 0) out[off + i] = other[i];
  }
  return out;
}

Status Builder::Merge(LayerCall& c, std::vector<Value>* out) {
  const std::string& cls = c.class_name;
  if (cls == "Subtract" && c.inputs.size() != 2) {
    return InvalidArgument("Subtract takes exactly 2 inputs, got ", c.inputs.size());
  }
  static const std::map<std::string, std::string> kOps = {
      {"Add", "AddV2"},     {"Subtract", "Sub"},    {"Multiply", "Mul"},
      {"Average", "AddV2"}, {"Maximum", "Maximum"}, {"Minimum", "Minimum"}};
  std::string y = c.inputs[0].tensor;
  Shape shape = c.inputs[0].shape;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    y = emit_.Binary(kOps.at(cls), c.scope + "/" + kOps.at(cls), y, c.inputs[i].tensor);
    shape = BroadcastShape(shape, c.inputs[i].shape);
  }
  if (cls == "Average") {
    y = emit_.Binary("RealDiv", c.scope + "/truediv", y,
                     emit_.Float(c.scope + "/count", static_cast<float>(c.inputs.size())));
  }
  out->push_back(Value{y, shape});
  return Status::OK();
}

Status Builder::ConcatenateLayer(LayerCall& c, std::vector<Value>* out) {
  int rank = c.inputs[0].rank();
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(Get<int64_t>(*c.config, "axis", -1), rank));
  for (const Value& v : c.inputs) {
    if (v.rank() != rank) return InvalidArgument("inputs of different ranks");
  }
  std::vector<std::string> xs;
  Shape shape = c.inputs[0].shape;
  shape[axis] = 0;
  for (const Value& v : c.inputs) {
    xs.push_back(v.tensor);
    shape[axis] = (shape[axis] < 0 || v.shape[axis] < 0) ? -1 : shape[axis] + v.shape[axis];
  }
  out->push_back(Value{emit_.Concat(c.scope + "/concat", xs, axis), shape});
  return Status::OK();
}

Status Builder::DotLayer(LayerCall& c, std::vector<Value>* out) {
  if (c.inputs.size() != 2) return InvalidArgument("Dot takes 2 inputs");
  Value a = c.inputs[0], b = c.inputs[1];
  std::vector<int64_t> axes = GetInts(*c.config, "axes", 2, -1);
  GRT_ASSIGN_OR_RETURN(int ax, NormAxis(axes[0], a.rank()));
  GRT_ASSIGN_OR_RETURN(int bx, NormAxis(axes[1], b.rank()));
  bool normalize = Get<bool>(*c.config, "normalize", false);
  auto l2 = [&](const Value& v, int axis, const std::string& name) {
    // tf.math.l2_normalize: x * rsqrt(max(sum(x^2), 1e-12)).
    std::string sq = emit_.Unary("Square", name + "/Square", v.tensor);
    std::string sum = emit_.Reduce("Sum", name + "/Sum", sq, {axis}, true);
    std::string m =
        emit_.Binary("Maximum", name + "/Maximum", sum, emit_.Float(name + "/epsilon", 1e-12f));
    return Value{emit_.Binary("Mul", name, v.tensor, emit_.Unary("Rsqrt", name + "/Rsqrt", m)),
                 v.shape};
  };
  if (normalize) {
    a = l2(a, ax, c.scope + "/l2_normalize");
    b = l2(b, bx, c.scope + "/l2_normalize_1");
  }
  if (a.rank() == 2 && b.rank() == 2) {
    std::string y =
        emit_.Reduce("Sum", c.scope + "/Sum",
                     emit_.Binary("Mul", c.scope + "/mul", a.tensor, b.tensor), {1}, true);
    out->push_back(Value{y, {a.shape[0], 1}});
    return Status::OK();
  }
  if (a.rank() != 3 || b.rank() != 3) {
    return Unimplemented("Dot of inputs of rank ", a.rank(), " and ", b.rank());
  }
  // [B, M, K] x [B, K, N]: move a's contracted axis last and b's to the middle.
  NodeDef* n = emit_.Add("BatchMatMulV2", c.scope + "/MatMul", {a.tensor, b.tensor});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "adj_x", ax == 1);
  SetNodeAttr(n, "adj_y", bx == 2);
  int64_t m = a.shape[ax == 1 ? 2 : 1], k = b.shape[bx == 2 ? 1 : 2];
  out->push_back(Value{n->name(), {a.shape[0], m, k}});
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Recurrent layers.

StatusOr<RnnCellSpec> Builder::ReadCell(const std::string& class_name, const Json& cfg,
                                        int64_t input_dim, WeightCursor* weights,
                                        const std::string& layer) {
  RnnCellSpec cell;
  cell.kind = class_name == "CuDNNLSTM" ? "LSTM" : class_name == "CuDNNGRU" ? "GRU" : class_name;
  const Json& c = cfg.contains("cell") && cfg["cell"].is_object() && cfg["cell"].contains("config")
                      ? cfg["cell"]["config"]
                      : cfg;
  cell.units = Get<int64_t>(c, "units", Get<int64_t>(cfg, "units", -1));
  cell.activation = ActivationName(c, "activation", "tanh");
  cell.recurrent_activation =
      ActivationName(c, "recurrent_activation", cell.kind == "SimpleRNN" ? "" : "sigmoid");
  cell.use_bias = Get<bool>(c, "use_bias", true);
  cell.reset_after = Get<bool>(c, "reset_after", false);
  cell.go_backwards = Get<bool>(cfg, "go_backwards", false);
  cell.return_sequences = Get<bool>(cfg, "return_sequences", false);
  cell.return_state = Get<bool>(cfg, "return_state", false);
  cell.stateful = Get<bool>(cfg, "stateful", false);
  cell.zero_output_for_mask = Get<bool>(cfg, "zero_output_for_mask", false);
  if (Get<bool>(cfg, "time_major", false)) return Unimplemented("time_major recurrent layers");
  if (class_name.rfind("CuDNN", 0) == 0) {
    return Unimplemented("layer '", layer, "': ", class_name, " weights (CuDNN layout)");
  }
  int gates = cell.kind == "LSTM" ? 4 : cell.kind == "GRU" ? 3 : 1;
  int64_t u = cell.units;
  GRT_ASSIGN_OR_RETURN(cell.kernel, weights->Next("kernel", {input_dim, gates * u}));
  GRT_ASSIGN_OR_RETURN(cell.recurrent_kernel, weights->Next("recurrent_kernel", {u, gates * u}));
  if (cell.use_bias) {
    Shape bshape = cell.kind == "GRU" && cell.reset_after ? Shape{2, 3 * u} : Shape{gates * u};
    GRT_ASSIGN_OR_RETURN(cell.bias, weights->Next("bias", bshape));
  }
  return cell;
}

// One step of the cell. `kernel`, `recurrent` and `bias` are tensors in the loop's frame;
// returns the step's output.
std::string Builder::CellStep(const std::string& p, const RnnCellSpec& cell, const std::string& x,
                              const std::vector<std::string>& states, const std::string& kernel,
                              const std::string& recurrent, const std::string& bias,
                              std::vector<std::string>* new_states) {
  auto act = [&](const std::string& gate, const std::string& fn, const std::string& v) {
    // EmitRnn checked the activation names before it started the loop.
    StatusOr<std::string> y = Activate(p + "/" + gate, fn, v, "");
    return y.ok() ? *y : v;
  };
  auto split = [&](const std::string& name, const std::string& v, int n) {
    NodeDef* s = emit_.Add("Split", name, {emit_.Int(name + "/split_dim", 1), v});
    SetNodeAttr(s, "T", kFloat);
    SetNodeAttr(s, "num_split", n);
    std::vector<std::string> parts;
    for (int i = 0; i < n; ++i) parts.push_back(i == 0 ? s->name() : StrCat(s->name(), ":", i));
    return parts;
  };
  const std::string& h = states[0];
  if (cell.kind == "SimpleRNN") {
    std::string y = emit_.MatMul(p + "/MatMul", x, kernel);
    if (cell.use_bias) y = emit_.BiasAdd(p + "/BiasAdd", y, bias);
    y = emit_.Binary("AddV2", p + "/add", y, emit_.MatMul(p + "/MatMul_1", h, recurrent));
    y = act("activation", cell.activation, y);
    new_states->push_back(y);
    return y;
  }
  if (cell.kind == "LSTM") {
    std::string z = emit_.MatMul(p + "/MatMul", x, kernel);
    z = emit_.Binary("AddV2", p + "/add", z, emit_.MatMul(p + "/MatMul_1", h, recurrent));
    if (cell.use_bias) z = emit_.BiasAdd(p + "/BiasAdd", z, bias);
    std::vector<std::string> g = split(p + "/split", z, 4);
    std::string i = act("i", cell.recurrent_activation, g[0]);
    std::string f = act("f", cell.recurrent_activation, g[1]);
    std::string cc =
        emit_.Binary("AddV2", p + "/c", emit_.Binary("Mul", p + "/mul", f, states[1]),
                     emit_.Binary("Mul", p + "/mul_1", i, act("g", cell.activation, g[2])));
    std::string o = act("o", cell.recurrent_activation, g[3]);
    std::string hh = emit_.Binary("Mul", p + "/h", o, act("c", cell.activation, cc));
    new_states->push_back(hh);
    new_states->push_back(cc);
    return hh;
  }
  // GRU. `bias` is [3u] (reset_after=false) or [2, 3u] split into input and recurrent parts by
  // the caller (bias holds both names joined by '|').
  std::string in_bias, rec_bias;
  if (cell.use_bias) {
    size_t bar = bias.find('|');
    in_bias = bias.substr(0, bar);
    rec_bias = bar == std::string::npos ? "" : bias.substr(bar + 1);
  }
  std::string mx = emit_.MatMul(p + "/MatMul", x, kernel);
  if (cell.use_bias) mx = emit_.BiasAdd(p + "/BiasAdd", mx, in_bias);
  std::vector<std::string> xs = split(p + "/split", mx, 3);
  std::string z, r, hh;
  if (cell.reset_after) {
    std::string mi = emit_.MatMul(p + "/MatMul_1", h, recurrent);
    if (cell.use_bias) mi = emit_.BiasAdd(p + "/BiasAdd_1", mi, rec_bias);
    std::vector<std::string> rs = split(p + "/split_1", mi, 3);
    z = act("z", cell.recurrent_activation, emit_.Binary("AddV2", p + "/add", xs[0], rs[0]));
    r = act("r", cell.recurrent_activation, emit_.Binary("AddV2", p + "/add_1", xs[1], rs[1]));
    hh = emit_.Binary("AddV2", p + "/add_2", xs[2], emit_.Binary("Mul", p + "/mul", r, rs[2]));
  } else {
    // `recurrent` holds the [u, 2u] z|r part and the [u, u] h part, joined by '|'.
    size_t bar = recurrent.find('|');
    std::string rzr = recurrent.substr(0, bar), rh = recurrent.substr(bar + 1);
    std::vector<std::string> rs = split(p + "/split_1", emit_.MatMul(p + "/MatMul_1", h, rzr), 2);
    z = act("z", cell.recurrent_activation, emit_.Binary("AddV2", p + "/add", xs[0], rs[0]));
    r = act("r", cell.recurrent_activation, emit_.Binary("AddV2", p + "/add_1", xs[1], rs[1]));
    std::string rh_in = emit_.MatMul(p + "/MatMul_2", emit_.Binary("Mul", p + "/mul", r, h), rh);
    hh = emit_.Binary("AddV2", p + "/add_2", xs[2], rh_in);
  }
  hh = act("hh", cell.activation, hh);
  // h = z * h_prev + (1 - z) * hh
  std::string one = emit_.Float(p + "/one", 1.0f);
  std::string out =
      emit_.Binary("AddV2", p + "/h", emit_.Binary("Mul", p + "/mul_1", z, h),
                   emit_.Binary("Mul", p + "/mul_2", emit_.Binary("Sub", p + "/sub", one, z), hh));
  new_states->push_back(out);
  return out;
}

// A TensorFlow v1 while loop over the time axis of x [batch, time, features]:
//   outputs: the sequence [batch, time, units] (return_sequences) or the last output, then
//   the final states (return_state).
Status Builder::EmitRnn(const std::string& scope, const RnnCellSpec& cell, const Value& x,
                        std::vector<std::string> initial_states, std::vector<Value>* outputs) {
  if (x.rank() != 3) return InvalidArgument("recurrent input of rank ", x.rank(), ", expected 3");
  // Checked now so that the step builder cannot fail half-way through the loop.
  static const std::set<std::string> kKnown = {
      "tanh",     "sigmoid", "hard_sigmoid", "relu", "linear",      "elu",   "selu", "softplus",
      "softsign", "swish",   "silu",         "gelu", "exponential", "relu6", "mish"};
  for (const std::string& a : {cell.activation, cell.recurrent_activation}) {
    if (!a.empty() && kKnown.count(a) == 0) {
      return Unimplemented("activation '", a, "' in a recurrent cell");
    }
  }
  const std::string p = scope;
  const std::string frame = p + "/while/";
  const int64_t u = cell.units;
  std::string xt = emit_.Transpose(p + "/transpose", ToFloat(p, x), {1, 0, 2});
  if (cell.go_backwards) {
    NodeDef* rev = emit_.Add("ReverseV2", p + "/ReverseV2", {xt, emit_.Ints(p + "/rev_axis", {0})});
    SetNodeAttr(rev, "T", kFloat);
    SetNodeAttr(rev, "Tidx", kInt32);
    xt = rev->name();
  }
  std::string shape = emit_.ShapeOf(p + "/Shape", xt);
  std::string steps = emit_.Element(p + "/time_steps", shape, 0);
  std::string batch = emit_.Element(p + "/batch_size", shape, 1);
  // A stateful layer keeps its final states in variables; a run starts from them (or from the
  // initial states it is given) and leaves its final states there.
  std::vector<std::string> state_vars;
  if (cell.stateful) {
    if (x.shape.empty() || x.shape[0] < 0) {
      return InvalidArgument("stateful recurrent layer without a fixed batch size");
    }
    Tensor zeros(kFloat, TensorShape({x.shape[0], u}));
    std::fill(zeros.data<float>(), zeros.data<float>() + zeros.NumElements(), 0.0f);
    std::vector<std::string> reads;
    for (int i = 0; i < cell.num_states(); ++i) {
      std::string var = emit_.StateVariable(StrCat(p, "/states_", i), zeros);
      state_vars.push_back(var);
      reads.push_back(emit_.Identity(var + "/read", var));
    }
    if (initial_states.empty()) {
      initial_states = reads;
    } else {
      // As Keras: given initial states are used only while the recorded states are all zero.
      std::string any;
      for (size_t i = 0; i < reads.size(); ++i) {
        NodeDef* ne = emit_.Add("NotEqual", StrCat(p, "/states_", i, "/NotEqual"),
                                {reads[i], emit_.Float(StrCat(p, "/states_", i, "/zero"), 0.0f)});
        SetNodeAttr(ne, "T", kFloat);
        SetNodeAttr(ne, "incompatible_shape_error", true);
        NodeDef* a = emit_.Add("Any", StrCat(p, "/states_", i, "/Any"),
                               {ne->name(), emit_.Ints(StrCat(p, "/states_", i, "/axes"), {0, 1})});
        SetNodeAttr(a, "Tidx", kInt32);
        SetNodeAttr(a, "keep_dims", false);
        any = any.empty()
                  ? a->name()
                  : emit_.Add("LogicalOr", StrCat(p, "/states_any"), {any, a->name()})->name();
      }
      for (size_t i = 0; i < initial_states.size() && i < reads.size(); ++i) {
        NodeDef* sel = emit_.Add("SelectV2", StrCat(p, "/initial_state_", i),
                                 {any, reads[i], initial_states[i]});
        SetNodeAttr(sel, "T", kFloat);
        initial_states[i] = sel->name();
      }
    }
  }
  if (initial_states.empty()) {
    std::string dims = emit_.Pack(
        p + "/zeros/shape", {batch, emit_.Int(p + "/units", static_cast<int32_t>(u))}, kInt32);
    NodeDef* fill = emit_.Add("Fill", p + "/zeros", {dims, emit_.Float(p + "/zeros/value", 0.0f)});
    SetNodeAttr(fill, "T", kFloat);
    SetNodeAttr(fill, "index_type", kInt32);
    for (int i = 0; i < cell.num_states(); ++i) initial_states.push_back(fill->name());
  }
  if (static_cast<int>(initial_states.size()) != cell.num_states()) {
    return InvalidArgument("recurrent layer given ", initial_states.size(),
                           " initial states; its cell has ", cell.num_states());
  }
  // Weights, entered into the frame as constants.
  auto enter = [&](const std::string& name, const std::string& v, bool constant,
                   DataType t = kFloat) {
    NodeDef* n = emit_.Add("Enter", p + "/while/" + name, {v});
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "frame_name", frame);
    SetNodeAttr(n, "is_constant", constant);
    SetNodeAttr(n, "parallel_iterations", 32);
    return n->name();
  };
  std::string kernel = enter("kernel", emit_.Weight(p + "/kernel", cell.kernel), true);
  std::string recurrent;
  if (cell.kind == "GRU" && !cell.reset_after) {
    // Split U into its z|r columns and its h columns.
    Tensor zr(kFloat, TensorShape({u, 2 * u})), hpart(kFloat, TensorShape({u, u}));
    const float* src = cell.recurrent_kernel.data<float>();
    for (int64_t i = 0; i < u; ++i) {
      for (int64_t j = 0; j < 2 * u; ++j) zr.data<float>()[i * 2 * u + j] = src[i * 3 * u + j];
      for (int64_t j = 0; j < u; ++j) hpart.data<float>()[i * u + j] = src[i * 3 * u + 2 * u + j];
    }
    recurrent = enter("recurrent_kernel_zr", emit_.Weight(p + "/recurrent_kernel_zr", zr), true) +
                "|" +
                enter("recurrent_kernel_h", emit_.Weight(p + "/recurrent_kernel_h", hpart), true);
  } else {
    recurrent = enter("recurrent_kernel",
                      emit_.Weight(p + "/recurrent_kernel", cell.recurrent_kernel), true);
  }
  std::string bias;
  if (cell.use_bias) {
    if (cell.kind == "GRU" && cell.reset_after) {
      Tensor in(kFloat, TensorShape({3 * u})), rec(kFloat, TensorShape({3 * u}));
      const float* src = cell.bias.data<float>();
      std::copy(src, src + 3 * u, in.data<float>());
      std::copy(src + 3 * u, src + 6 * u, rec.data<float>());
      bias = enter("input_bias", emit_.Weight(p + "/input_bias", in), true) + "|" +
             enter("recurrent_bias", emit_.Weight(p + "/recurrent_bias", rec), true);
    } else {
      bias = enter("bias", emit_.Weight(p + "/bias", cell.bias), true);
    }
  }
  std::string x_in = enter("input", xt, true);
  // A mask [batch, time] goes time-major (and backwards with the input).
  std::string mask_in;
  if (!x.mask.empty()) {
    std::string mt = emit_.Transpose(p + "/mask_transpose", x.mask, {1, 0}, ::tensorflow::DT_BOOL);
    if (cell.go_backwards) {
      NodeDef* rev =
          emit_.Add("ReverseV2", p + "/mask_reverse", {mt, emit_.Ints(p + "/mask_rev_axis", {0})});
      SetNodeAttr(rev, "T", ::tensorflow::DT_BOOL);
      SetNodeAttr(rev, "Tidx", kInt32);
      mt = rev->name();
    }
    mask_in = enter("mask", mt, true, ::tensorflow::DT_BOOL);
  }
  std::string steps_in = enter("time_steps", steps, true, kInt32);
  std::string ta_handle, ta_flow;
  if (cell.return_sequences) {
    NodeDef* ta = emit_.Add("TensorArrayV3", p + "/TensorArray", {steps});
    SetNodeAttr(ta, "dtype", kFloat);
    SetNodeAttr(ta, "element_shape", PartialTensorShape());
    SetNodeAttr(ta, "dynamic_size", false);
    SetNodeAttr(ta, "clear_after_read", true);
    SetNodeAttr(ta, "identical_element_shapes", true);
    SetNodeAttr(ta, "tensor_array_name", "");
    ta_handle = ta->name();
    ta_flow = ta->name() + ":1";
  }
  // Loop variables: time, states..., the TensorArray's flow.
  std::vector<std::string> init = {emit_.Int(p + "/time", 0)};
  std::vector<DataType> types = {kInt32};
  for (const std::string& s : initial_states) {
    init.push_back(s);
    types.push_back(kFloat);
  }
  if (cell.return_sequences) {
    init.push_back(ta_flow);
    types.push_back(kFloat);
  }
  std::vector<std::string> merges, switches, nexts;
  for (size_t i = 0; i < init.size(); ++i) {
    std::string e = enter(StrCat("Enter_", i), init[i], false, types[i]);
    std::string next_name = emit_.Unique(StrCat(frame, "NextIteration_", i));
    nexts.push_back(next_name);
    NodeDef* m = emit_.Add("Merge", StrCat(frame, "Merge_", i), {e, next_name});
    SetNodeAttr(m, "T", types[i]);
    SetNodeAttr(m, "N", 2);
    merges.push_back(m->name());
  }
  NodeDef* less = emit_.Add("Less", frame + "Less", {merges[0], steps_in});
  SetNodeAttr(less, "T", kInt32);
  NodeDef* cond = emit_.Add("LoopCond", frame + "LoopCond", {less->name()});
  std::vector<std::string> body;
  for (size_t i = 0; i < init.size(); ++i) {
    NodeDef* s = emit_.Add("Switch", StrCat(frame, "Switch_", i), {merges[i], cond->name()});
    SetNodeAttr(s, "T", types[i]);
    switches.push_back(s->name());
    body.push_back(emit_.Identity(StrCat(frame, "Identity_", i), s->name() + ":1", types[i]));
  }
  emit_.set_pivot(body[0]);
  NodeDef* gather = emit_.Add("GatherV2", frame + "input_t",
                              {x_in, body[0], emit_.Int(frame + "input_t/axis", 0)});
  SetNodeAttr(gather, "Tparams", kFloat);
  SetNodeAttr(gather, "Tindices", kInt32);
  SetNodeAttr(gather, "Taxis", kInt32);
  SetNodeAttr(gather, "batch_dims", 0);
  std::vector<std::string> states(body.begin() + 1, body.begin() + 1 + cell.num_states());
  std::vector<std::string> new_states;
  std::string y =
      CellStep(frame + "cell", cell, gather->name(), states, kernel, recurrent, bias, &new_states);
  if (!mask_in.empty()) {
    // As Keras's backend.rnn: at a masked step the states stay as they were, and the step's
    // output is the previous output (or zeros, with zero_output_for_mask).
    NodeDef* m = emit_.Add("GatherV2", frame + "mask_t",
                           {mask_in, body[0], emit_.Int(frame + "mask_t/axis", 0)});
    SetNodeAttr(m, "Tparams", ::tensorflow::DT_BOOL);
    SetNodeAttr(m, "Tindices", kInt32);
    SetNodeAttr(m, "Taxis", kInt32);
    SetNodeAttr(m, "batch_dims", 0);
    NodeDef* m2 = emit_.Add("ExpandDims", frame + "mask_t/ExpandDims",
                            {m->name(), emit_.Int(frame + "mask_t/dim", 1)});
    SetNodeAttr(m2, "T", ::tensorflow::DT_BOOL);
    SetNodeAttr(m2, "Tdim", kInt32);
    auto select = [&](const std::string& name, const std::string& a, const std::string& b) {
      NodeDef* sel = emit_.Add("SelectV2", name, {m2->name(), a, b});
      SetNodeAttr(sel, "T", kFloat);
      return sel->name();
    };
    std::string prev = states[0];
    for (size_t i = 0; i < new_states.size(); ++i) {
      new_states[i] = select(StrCat(frame, "masked_state_", i), new_states[i], states[i]);
    }
    y = select(frame + "masked_output", y,
               cell.zero_output_for_mask ? emit_.Unary("ZerosLike", frame + "zeros", y) : prev);
  }
  std::vector<std::string> next_values = {
      emit_.Binary("AddV2", frame + "time_next", body[0], emit_.Int(frame + "one", 1), kInt32)};
  for (const std::string& s : new_states) next_values.push_back(s);
  if (cell.return_sequences) {
    NodeDef* write = emit_.Add("TensorArrayWriteV3", frame + "TensorArrayWrite",
                               {enter("TensorArray", ta_handle, true, ::tensorflow::DT_RESOURCE),
                                body[0], y, body.back()});
    SetNodeAttr(write, "T", kFloat);
    next_values.push_back(write->name());
  }
  emit_.set_pivot("");
  std::vector<std::string> exits;
  for (size_t i = 0; i < init.size(); ++i) {
    NodeDef* n = emit_.AddReserved("NextIteration", nexts[i], {next_values[i]});
    SetNodeAttr(n, "T", types[i]);
    NodeDef* e = emit_.Add("Exit", StrCat(frame, "Exit_", i), {switches[i]});
    SetNodeAttr(e, "T", types[i]);
    exits.push_back(e->name());
  }
  std::vector<std::string> saved;  // control inputs: the stateful layer's final states stored
  for (size_t i = 0; i < state_vars.size(); ++i) {
    NodeDef* assign = emit_.Add("Assign", state_vars[i] + "/store", {state_vars[i], exits[1 + i]});
    SetNodeAttr(assign, "T", kFloat);
    SetNodeAttr(assign, "validate_shape", true);
    SetNodeAttr(assign, "use_locking", true);
    saved.push_back("^" + assign->name());
  }
  auto after_store = [&](const std::string& t) {
    if (saved.empty()) return t;
    NodeDef* n = emit_.Add("Identity", t.substr(0, t.find(':')) + "/stored", {t});
    for (const std::string& c : saved) n->add_input(c);
    SetNodeAttr(n, "T", kFloat);
    return n->name();
  };
  Value main;
  if (cell.return_sequences) {
    NodeDef* range =
        emit_.Add("Range", p + "/range",
                  {emit_.Int(p + "/range/start", 0), steps, emit_.Int(p + "/range/delta", 1)});
    SetNodeAttr(range, "Tidx", kInt32);
    NodeDef* g = emit_.Add("TensorArrayGatherV3", p + "/TensorArrayGather",
                           {ta_handle, range->name(), exits.back()});
    SetNodeAttr(g, "dtype", kFloat);
    SetNodeAttr(g, "element_shape", PartialTensorShape());
    main.tensor = after_store(emit_.Transpose(p + "/transpose_1", g->name(), {1, 0, 2}));
    main.shape = {x.shape[0], x.shape[1], u};
    main.mask = x.mask;
  } else {
    main.tensor = after_store(exits[1]);
    main.shape = {x.shape[0], u};
  }
  outputs->push_back(main);
  if (cell.return_state) {
    for (int i = 0; i < cell.num_states(); ++i) {
      outputs->push_back(Value{after_store(exits[1 + i]), {x.shape[0], u}});
    }
  }
  return Status::OK();
}

Status Builder::Recurrent(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  GRT_ASSIGN_OR_RETURN(RnnCellSpec cell,
                       ReadCell(c.class_name, *c.config, x.shape.back(), c.weights, c.name));
  std::vector<std::string> states;
  for (size_t i = 1; i < c.inputs.size(); ++i) states.push_back(c.inputs[i].tensor);
  return EmitRnn(c.scope, cell, x, states, out);
}

Status Builder::BidirectionalLayer(LayerCall& c, std::vector<Value>* out) {
  const Json& cfg = *c.config;
  GRT_ASSIGN_OR_RETURN(const Json* inner, Member(cfg, "layer", c.name));
  std::string cls = Get<std::string>(*inner, "class_name", "");
  if (cls != "LSTM" && cls != "GRU" && cls != "SimpleRNN") {
    return Unimplemented("Bidirectional around ", cls);
  }
  const Value& x = c.inputs[0];
  GRT_ASSIGN_OR_RETURN(const Json* inner_cfg, Member(*inner, "config", c.name));
  GRT_ASSIGN_OR_RETURN(RnnCellSpec fwd,
                       ReadCell(cls, *inner_cfg, x.shape.back(), c.weights, c.name));
  const Json* back_cfg = inner_cfg;
  if (cfg.contains("backward_layer")) {
    GRT_ASSIGN_OR_RETURN(const Json* backward, Member(cfg, "backward_layer", c.name));
    GRT_ASSIGN_OR_RETURN(back_cfg, Member(*backward, "config", c.name));
  }
  GRT_ASSIGN_OR_RETURN(RnnCellSpec bwd,
                       ReadCell(cls, *back_cfg, x.shape.back(), c.weights, c.name));
  if (!cfg.contains("backward_layer")) bwd.go_backwards = !fwd.go_backwards;
  // Keras's Bidirectional makes both directions output zeros at masked steps of sequences.
  fwd.zero_output_for_mask = fwd.return_sequences;
  bwd.zero_output_for_mask = bwd.return_sequences;
  std::vector<std::string> fstates, bstates;
  size_t n_states = c.inputs.size() - 1;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    (i - 1 < n_states / 2 ? fstates : bstates).push_back(c.inputs[i].tensor);
  }
  std::vector<Value> fo, bo;
  GRT_RETURN_IF_ERROR(EmitRnn(c.scope + "/forward", fwd, x, fstates, &fo));
  GRT_RETURN_IF_ERROR(EmitRnn(c.scope + "/backward", bwd, x, bstates, &bo));
  Value b = bo[0];
  if (fwd.return_sequences) {
    NodeDef* rev = emit_.Add("ReverseV2", c.scope + "/ReverseV2",
                             {b.tensor, emit_.Ints(c.scope + "/rev_axis", {1})});
    SetNodeAttr(rev, "T", kFloat);
    SetNodeAttr(rev, "Tidx", kInt32);
    b.tensor = rev->name();
  }
  std::string mode = Get<std::string>(cfg, "merge_mode", "concat");
  if (cfg.contains("merge_mode") && cfg["merge_mode"].is_null()) mode = "";
  const Value& f = fo[0];
  if (mode == "concat") {
    Shape s = f.shape;
    s.back() = f.shape.back() + b.shape.back();
    out->push_back(Value{emit_.Concat(c.scope + "/concat", {f.tensor, b.tensor}, f.rank() - 1), s});
  } else if (mode == "sum") {
    out->push_back(Value{emit_.Binary("AddV2", c.scope + "/add", f.tensor, b.tensor), f.shape});
  } else if (mode == "mul") {
    out->push_back(Value{emit_.Binary("Mul", c.scope + "/mul", f.tensor, b.tensor), f.shape});
  } else if (mode == "ave") {
    std::string s = emit_.Binary("AddV2", c.scope + "/add", f.tensor, b.tensor);
    out->push_back(Value{
        emit_.Binary("Mul", c.scope + "/mul", s, emit_.Float(c.scope + "/half", 0.5f)), f.shape});
  } else if (mode.empty()) {
    out->push_back(f);
    out->push_back(b);
  } else {
    return Unimplemented("Bidirectional merge_mode '", mode, "'");
  }
  if (fwd.return_sequences) (*out)[0].mask = x.mask;
  for (size_t i = 1; i < fo.size(); ++i) out->push_back(fo[i]);
  for (size_t i = 1; i < bo.size(); ++i) out->push_back(bo[i]);
  return Status::OK();
}

Status Builder::TimeDistributed(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  if (x.rank() < 3) return InvalidArgument("TimeDistributed input of rank ", x.rank());
  // [B, T, rest...] -> [B*T, rest...] -> inner layer -> [B, T, out_rest...].
  std::vector<int32_t> flat = {-1};
  for (int i = 2; i < x.rank(); ++i) {
    if (x.shape[i] < 0) return Unimplemented("TimeDistributed over inputs of unknown size");
    flat.push_back(static_cast<int32_t>(x.shape[i]));
  }
  std::string shape = emit_.ShapeOf(c.scope + "/Shape", x.tensor);
  std::string batch = emit_.Element(c.scope + "/batch", shape, 0);
  std::string steps = emit_.Element(c.scope + "/steps", shape, 1);
  Value folded{emit_.Reshape(c.scope + "/Reshape", x.tensor, emit_.Ints(c.scope + "/flat", flat)),
               Shape{-1}, x.dtype};
  folded.shape.insert(folded.shape.end(), x.shape.begin() + 2, x.shape.end());
  std::vector<Value> inner;
  GRT_ASSIGN_OR_RETURN(const Json* inner_layer, Member(*c.config, "layer", c.name));
  GRT_RETURN_IF_ERROR(CallLayer(*inner_layer, c.scope + "/", {folded}, nullptr, c.weights, &inner));
  const Value& y = inner[0];
  std::vector<std::string> dims = {batch, steps};
  Shape out_shape = {x.shape[0], x.shape[1]};
  for (int i = 1; i < y.rank(); ++i) {
    if (y.shape[i] < 0) return Unimplemented("TimeDistributed inner output of unknown size");
    dims.push_back(emit_.Int(c.scope + StrCat("/out_dim", i), static_cast<int32_t>(y.shape[i])));
    out_shape.push_back(y.shape[i]);
  }
  out->push_back(Value{emit_.Reshape(c.scope + "/Reshape_1", y.tensor,
                                     emit_.Pack(c.scope + "/out_shape", dims, kInt32), y.dtype),
                       out_shape, y.dtype});
  return Status::OK();
}

Status Builder::NestedModel(LayerCall& c, std::vector<Value>* out) {
  // The nested model's group holds the weights of all its layers; they go to the layers by the
  // first component of their names.
  WeightMap weights = SplitNestedWeights(c.weights->TakeAll());
  Json model = {{"class_name", c.class_name}, {"config", *c.config}};
  return BuildModel(model, c.scope + "/", &c.inputs, weights, out);
}

}  // namespace

StatusOr<KerasGraph> BuildKerasGraph(const std::string& model_config, const KerasH5File& file,
                                     const KerasGraphOptions& options) {
  Json model = Json::parse(model_config, nullptr, false);
  if (model.is_discarded() || !model.is_object() || !model.contains("config")) {
    return InvalidArgument("model_config of ", file.path, " is not a Keras model JSON");
  }
  if (JsonDepth(model) > kMaxConfigDepth) {
    return InvalidArgument("model_config of ", file.path, " nests more than ", kMaxConfigDepth,
                           " levels deep");
  }
  KerasGraph graph;
  Builder builder(file, options, &graph);
  try {
    GRT_RETURN_IF_ERROR(builder.Build(model));
  } catch (const std::exception& e) {
    // A value of the wrong JSON type somewhere outside a layer's own config (see Get).
    return InvalidArgument("malformed model_config in ", file.path, ": ", e.what());
  }
  return graph;
}

}  // namespace keras
}  // namespace graphrt
