// TFOpLambda and SlicingOpLambda: a tf function called on Keras tensors in a functional model.
// tf-keras records the function's name, its first argument and its other arguments by keyword
// (tensors as references to inbound nodes, the rest as JSON); the walker resolves the references
// (LayerCall::kwargs) and the call is replayed here as the TensorFlow ops the function runs.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "formats/keras/keras_builder_internal.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

// The recorded call of one TFOpLambda.
class OpCall {
 public:
  OpCall(LayerCall& c, const Json& call)
      : c_(c), emit(*c.emit), p(c.scope), first(call.at("args").at(0)), kwargs(call.at("kwargs")) {}

  // Keyword argument `names` (alternative spellings separated by '|': compat.v1 functions take
  // older names too), or null when absent or None.
  const Json* Kw(const std::string& names) const {
    for (const std::string& n : StrSplit(names, '|')) {
      auto it = kwargs.find(n);
      if (it != kwargs.end() && !it->is_null()) return &*it;
    }
    return nullptr;
  }
  template <typename T>
  T KwOr(const std::string& names, T fallback) const {
    const Json* v = Kw(names);
    if (v == nullptr) return fallback;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return JsonInt<T>(*v);
    } else {
      return v->get<T>();
    }
  }

  static bool IsTensor(const Json& j) { return j.is_object() && j.contains(kInputRef); }

  // The inbound tensor `j` refers to.
  StatusOr<Value> Input(const Json& j, const char* what) const {
    if (!IsTensor(j)) return InvalidArgument(what, " is not a Keras tensor: ", j.dump());
    size_t i = j.at(kInputRef).get<size_t>();
    if (i >= c_.inputs.size()) return InvalidArgument("tensor reference ", i, " out of range");
    return c_.inputs[i];
  }

  // `j` as a tensor: an inbound tensor, or a constant of `dtype` (Python numbers take the dtype
  // of the tensor they meet, as tf.convert_to_tensor with a dtype hint).
  StatusOr<Value> AsTensor(const Json& j, DataType dtype, const std::string& what);

  // The dtype of the first inbound tensor among `args`.
  StatusOr<DataType> DTypeOf(const std::vector<const Json*>& args) const {
    for (const Json* a : args) {
      if (a != nullptr && IsTensor(*a)) {
        GRT_ASSIGN_OR_RETURN(Value v, Input(*a, "argument"));
        return v.dtype;
      }
    }
    return InvalidArgument("no Keras tensor among the arguments");
  }

  LayerCall& c_;
  Emitter& emit;
  const std::string p;
  const Json& first;
  const Json& kwargs;
};

bool IsIntegral(DataType t) {
  return t == ::tensorflow::DT_INT32 || t == ::tensorflow::DT_INT64 ||
         t == ::tensorflow::DT_INT16 || t == ::tensorflow::DT_INT8 || t == ::tensorflow::DT_UINT8;
}

Status FlattenNumbers(const Json& j, const Shape& shape, size_t depth, std::vector<double>* out,
                      bool* integral) {
  if (depth == shape.size()) {
    if (j.is_boolean()) {
      out->push_back(j.get<bool>() ? 1 : 0);
    } else if (j.is_number()) {
      if (j.is_number_float()) *integral = false;
      out->push_back(j.get<double>());
    } else {
      return InvalidArgument("constant ", j.dump(), " is not a number");
    }
    return Status::OK();
  }
  if (!j.is_array() || static_cast<int64_t>(j.size()) != shape[depth]) {
    return InvalidArgument("constant is not a rectangular list of numbers");
  }
  for (const Json& e : j) GRT_RETURN_IF_ERROR(FlattenNumbers(e, shape, depth + 1, out, integral));
  return Status::OK();
}

template <typename T>
void Fill(Tensor* t, const std::vector<double>& v) {
  T* d = t->data<T>();
  for (size_t i = 0; i < v.size(); ++i) d[i] = static_cast<T>(v[i]);
}

StatusOr<Tensor> ConstTensor(const Json& j, DataType dtype) {
  Shape shape;
  for (const Json* cur = &j; cur->is_array(); cur = &(*cur)[0]) {
    shape.push_back(static_cast<int64_t>(cur->size()));
    if (cur->empty()) break;
  }
  std::vector<double> flat;
  bool integral = true;
  GRT_RETURN_IF_ERROR(FlattenNumbers(j, shape, 0, &flat, &integral));
  if (!integral && (IsIntegral(dtype) || dtype == ::tensorflow::DT_BOOL)) {
    return InvalidArgument("constant ", j.dump(), " cannot be a ", DataTypeString(dtype));
  }
  Tensor t(dtype, TensorShape(shape));
  switch (dtype) {
    case ::tensorflow::DT_FLOAT:
      Fill<float>(&t, flat);
      break;
    case ::tensorflow::DT_DOUBLE:
      Fill<double>(&t, flat);
      break;
    case ::tensorflow::DT_INT32:
      Fill<int32_t>(&t, flat);
      break;
    case ::tensorflow::DT_INT64:
      Fill<int64_t>(&t, flat);
      break;
    case ::tensorflow::DT_INT16:
      Fill<int16_t>(&t, flat);
      break;
    case ::tensorflow::DT_INT8:
      Fill<int8_t>(&t, flat);
      break;
    case ::tensorflow::DT_UINT8:
      Fill<uint8_t>(&t, flat);
      break;
    case ::tensorflow::DT_BOOL:
      Fill<bool>(&t, flat);
      break;
    default:
      return Unimplemented("a constant of dtype ", DataTypeString(dtype));
  }
  return t;
}

StatusOr<Value> OpCall::AsTensor(const Json& j, DataType dtype, const std::string& what) {
  if (IsTensor(j)) return Input(j, what.c_str());
  GRT_ASSIGN_OR_RETURN(Tensor t, ConstTensor(j, dtype));
  return Value{emit.Const(p + "/" + what, t), TensorDims(t), dtype};
}

// NumPy broadcasting of Keras shapes (-1: unknown).
StatusOr<Shape> Broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t& o = out[out.size() - 1 - i];
    if (x == 1) {
      o = y;
    } else if (y == 1 || x == y) {
      o = x;
    } else if (x < 0 || y < 0) {
      o = std::max(x, y);
    } else {
      return InvalidArgument("shapes ", ShapeString(a), " and ", ShapeString(b),
                             " do not broadcast");
    }
  }
  return out;
}

using OpFn = std::function<Status(OpCall&, std::vector<Value>*)>;

std::string Node(OpCall& o, const std::string& op, const std::vector<std::string>& inputs,
                 DataType t) {
  NodeDef* n = o.emit.Add(op, o.p + "/" + op, inputs);
  SetNodeAttr(n, "T", t);
  if (op == "Equal" || op == "NotEqual") SetNodeAttr(n, "incompatible_shape_error", true);
  return n->name();
}

std::string CastTo(OpCall& o, const Value& v, DataType to) {
  if (v.dtype == to) return v.tensor;
  NodeDef* n = o.emit.Add("Cast", o.p + "/Cast", {v.tensor});
  SetNodeAttr(n, "SrcT", v.dtype);
  SetNodeAttr(n, "DstT", to);
  SetNodeAttr(n, "Truncate", false);
  return n->name();
}

// x OP y; `swap` for the reflected operators (radd: y + x). `out_bool` for comparisons.
OpFn BinaryOp(const std::string& op, bool out_bool = false, bool swap = false) {
  return [=](OpCall& o, std::vector<Value>* out) -> Status {
    const Json* y = o.Kw("y");
    if (y == nullptr) return InvalidArgument("missing argument y");
    GRT_ASSIGN_OR_RETURN(DataType t, o.DTypeOf({&o.first, y}));
    GRT_ASSIGN_OR_RETURN(Value a, o.AsTensor(o.first, t, "x"));
    GRT_ASSIGN_OR_RETURN(Value b, o.AsTensor(*y, t, "y"));
    if (swap) std::swap(a, b);
    if (a.dtype != b.dtype) {
      return InvalidArgument("operands of dtypes ", DataTypeString(a.dtype), " and ",
                             DataTypeString(b.dtype));
    }
    GRT_ASSIGN_OR_RETURN(Shape shape, Broadcast(a.shape, b.shape));
    std::string ta = a.tensor, tb = b.tensor;
    DataType dt = a.dtype;
    std::string tf_op = op;
    if (op == "TrueDiv") {
      // Python 3 division: integers become floats (tf.math.truediv's table).
      if (IsIntegral(dt)) {
        DataType f =
            dt == kInt32 || dt == ::tensorflow::DT_INT64 ? ::tensorflow::DT_DOUBLE : kFloat;
        ta = CastTo(o, a, f);
        tb = CastTo(o, b, f);
        dt = f;
      }
      tf_op = "RealDiv";
    } else if (op == "Div" && !IsIntegral(dt)) {
      tf_op = "RealDiv";
    }
    if (op == "LogicalXor") {
      // tf.math.logical_xor: (x | y) & !(x & y).
      std::string any = o.emit.Add("LogicalOr", o.p + "/LogicalOr", {ta, tb})->name();
      std::string both = o.emit.Add("LogicalAnd", o.p + "/LogicalAnd", {ta, tb})->name();
      std::string nb = o.emit.Add("LogicalNot", o.p + "/LogicalNot", {both})->name();
      out->push_back(Value{o.emit.Add("LogicalAnd", o.p + "/xor", {any, nb})->name(), shape, dt});
      return Status::OK();
    }
    if (StartsWith(op, "Logical")) {
      if (dt != ::tensorflow::DT_BOOL) return InvalidArgument(op, " of ", DataTypeString(dt));
      out->push_back(Value{o.emit.Add(op, o.p + "/" + op, {ta, tb})->name(), shape, dt});
      return Status::OK();
    }
    out->push_back(
        Value{Node(o, tf_op, {ta, tb}, dt), shape, out_bool ? ::tensorflow::DT_BOOL : dt});
    return Status::OK();
  };
}

OpFn UnaryOp(const std::string& op) {
  return [=](OpCall& o, std::vector<Value>* out) -> Status {
    GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "x"));
    if (op == "LogicalNot") {
      if (x.dtype != ::tensorflow::DT_BOOL) return InvalidArgument("logical_not of non-bool");
      out->push_back(Value{o.emit.Add(op, o.p + "/" + op, {x.tensor})->name(), x.shape, x.dtype});
      return Status::OK();
    }
    out->push_back(Value{Node(o, op, {x.tensor}, x.dtype), x.shape, x.dtype});
    return Status::OK();
  };
}

// A float constant of x's dtype.
std::string Scalar(OpCall& o, const std::string& name, double v, DataType t) {
  if (t == ::tensorflow::DT_DOUBLE)
    return o.emit.Const(o.p + "/" + name, Tensor::Scalar<double>(v));
  return o.emit.Const(o.p + "/" + name, Tensor::Scalar<float>(static_cast<float>(v)));
}

StatusOr<Value> FloatInput(OpCall& o) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "x"));
  if (x.dtype != kFloat && x.dtype != ::tensorflow::DT_DOUBLE) {
    return Unimplemented("input of dtype ", DataTypeString(x.dtype), " (float32/64 only)");
  }
  return x;
}

Status Silu(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, FloatInput(o));
  double beta = o.KwOr<double>("beta", 1.0);
  std::string s = x.tensor;
  if (beta != 1.0) s = Node(o, "Mul", {x.tensor, Scalar(o, "beta", beta, x.dtype)}, x.dtype);
  s = Node(o, "Sigmoid", {s}, x.dtype);
  out->push_back(Value{Node(o, "Mul", {x.tensor, s}, x.dtype), x.shape, x.dtype});
  return Status::OK();
}

Status Gelu(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, FloatInput(o));
  DataType t = x.dtype;
  std::string y;
  if (o.KwOr<bool>("approximate", false)) {
    // tf.nn.gelu: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    std::string cube = Node(o, "Pow", {x.tensor, Scalar(o, "three", 3.0, t)}, t);
    y = Node(o, "Mul", {Scalar(o, "coeff", 0.044715, t), cube}, t);
    y = Node(o, "AddV2", {x.tensor, y}, t);
    y = Node(o, "Mul", {Scalar(o, "sqrt_2_over_pi", 0.7978845608028654, t), y}, t);
    y = Node(o, "Tanh", {y}, t);
  } else {
    // 0.5 x (1 + erf(x / sqrt(2))).
    y = Node(o, "RealDiv", {x.tensor, Scalar(o, "sqrt2", 1.4142135623730951, t)}, t);
    y = Node(o, "Erf", {y}, t);
  }
  y = Node(o, "AddV2", {Scalar(o, "one", 1.0, t), y}, t);
  y = Node(o, "Mul", {x.tensor, y}, t);
  out->push_back(Value{Node(o, "Mul", {Scalar(o, "half", 0.5, t), y}, t), x.shape, t});
  return Status::OK();
}

StatusOr<std::vector<int32_t>> Axes(const Json* axis, int rank) {
  std::vector<int32_t> axes;
  if (axis == nullptr) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  std::vector<int64_t> raw;
  if (axis->is_array()) {
    for (const Json& a : *axis) raw.push_back(JsonInt(a));
  } else {
    raw.push_back(JsonInt(*axis));
  }
  for (int64_t a : raw) {
    GRT_ASSIGN_OR_RETURN(int n, NormAxis(a, rank));
    if (std::find(axes.begin(), axes.end(), n) != axes.end()) {
      return InvalidArgument("axis ", a, " given twice");
    }
    axes.push_back(n);
  }
  return axes;
}

OpFn ReduceOp(const std::string& op) {
  return [=](OpCall& o, std::vector<Value>* out) -> Status {
    GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input_tensor"));
    GRT_ASSIGN_OR_RETURN(std::vector<int32_t> axes, Axes(o.Kw("axis|reduction_indices"), x.rank()));
    bool keep = o.KwOr<bool>("keepdims|keep_dims", false);
    bool logical = op == "All" || op == "Any";
    if (logical != (x.dtype == ::tensorflow::DT_BOOL)) {
      return InvalidArgument(op, " of ", DataTypeString(x.dtype));
    }
    NodeDef* n =
        o.emit.Add(op, o.p + "/" + op, {x.tensor, o.emit.Ints(o.p + "/reduction_indices", axes)});
    if (!logical) SetNodeAttr(n, "T", x.dtype);
    SetNodeAttr(n, "Tidx", kInt32);
    SetNodeAttr(n, "keep_dims", keep);
    Shape shape;
    for (int i = 0; i < x.rank(); ++i) {
      bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
      if (!reduced) {
        shape.push_back(x.shape[i]);
      } else if (keep) {
        shape.push_back(1);
      }
    }
    out->push_back(Value{n->name(), shape, x.dtype});
    return Status::OK();
  };
}

Status Softmaxes(OpCall& o, std::vector<Value>* out, bool log) {
  GRT_ASSIGN_OR_RETURN(Value x, FloatInput(o));
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(o.KwOr<int64_t>("axis|dim", -1), x.rank()));
  if (!log) {
    out->push_back(Value{Softmax(o.emit, o.p + "/Softmax", x.tensor, axis, x.rank()), x.shape});
    return Status::OK();
  }
  std::vector<int32_t> perm;
  for (int i = 0; i < x.rank(); ++i) perm.push_back(i);
  std::swap(perm[axis], perm[x.rank() - 1]);
  std::string t = x.tensor;
  if (axis != x.rank() - 1) t = o.emit.Transpose(o.p + "/to_last", t, perm);
  t = Node(o, "LogSoftmax", {t}, x.dtype);
  if (axis != x.rank() - 1) t = o.emit.Transpose(o.p + "/from_last", t, perm);
  out->push_back(Value{t, x.shape, x.dtype});
  return Status::OK();
}

Status LeakyRelu(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, FloatInput(o));
  NodeDef* n = o.emit.Add("LeakyRelu", o.p + "/LeakyRelu", {x.tensor});
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "alpha", o.KwOr<float>("alpha", 0.2f));
  out->push_back(Value{n->name(), x.shape, x.dtype});
  return Status::OK();
}

Status LogSigmoid(OpCall& o, std::vector<Value>* out) {
  // tf.math.log_sigmoid: -softplus(-x).
  GRT_ASSIGN_OR_RETURN(Value x, FloatInput(o));
  std::string y = Node(o, "Softplus", {Node(o, "Neg", {x.tensor}, x.dtype)}, x.dtype);
  out->push_back(Value{Node(o, "Neg", {y}, x.dtype), x.shape, x.dtype});
  return Status::OK();
}

Status L2Normalize(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, FloatInput(o));
  GRT_ASSIGN_OR_RETURN(std::vector<int32_t> axes, Axes(o.Kw("axis|dim"), x.rank()));
  double eps = o.KwOr<double>("epsilon", 1e-12);
  // x * rsqrt(max(sum(x^2, axis, keepdims), epsilon)).
  std::string sq = Node(o, "Square", {x.tensor}, x.dtype);
  NodeDef* sum = o.emit.Add("Sum", o.p + "/Sum", {sq, o.emit.Ints(o.p + "/axes", axes)});
  SetNodeAttr(sum, "T", x.dtype);
  SetNodeAttr(sum, "Tidx", kInt32);
  SetNodeAttr(sum, "keep_dims", true);
  std::string inv = Node(
      o, "Rsqrt", {Node(o, "Maximum", {sum->name(), Scalar(o, "epsilon", eps, x.dtype)}, x.dtype)},
      x.dtype);
  out->push_back(Value{Node(o, "Mul", {x.tensor, inv}, x.dtype), x.shape, x.dtype});
  return Status::OK();
}

// The tensors of a list argument (concat, stack, add_n), constants taking the first tensor's
// dtype.
StatusOr<std::vector<Value>> TensorList(OpCall& o, const Json& list) {
  if (!list.is_array() || list.empty()) return InvalidArgument("expects a list of tensors");
  std::vector<const Json*> items;
  for (const Json& e : list) items.push_back(&e);
  GRT_ASSIGN_OR_RETURN(DataType t, o.DTypeOf(items));
  std::vector<Value> vs;
  for (size_t i = 0; i < list.size(); ++i) {
    GRT_ASSIGN_OR_RETURN(Value v, o.AsTensor(list[i], t, StrCat("values_", i)));
    if (v.dtype != t) return InvalidArgument("tensors of different dtypes");
    vs.push_back(v);
  }
  return vs;
}

Status Concat(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(std::vector<Value> vs, TensorList(o, o.first));
  const Json* a = o.Kw("axis|concat_dim");
  if (a == nullptr) return InvalidArgument("missing argument axis");
  int rank = vs[0].rank();
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(*a), rank));
  Shape shape = vs[0].shape;
  std::vector<std::string> names;
  for (size_t i = 0; i < vs.size(); ++i) {
    if (vs[i].rank() != rank) return InvalidArgument("concat of tensors of different ranks");
    if (i > 0) {
      shape[axis] = shape[axis] < 0 || vs[i].shape[axis] < 0 ? -1 : shape[axis] + vs[i].shape[axis];
    }
    names.push_back(vs[i].tensor);
  }
  out->push_back(
      Value{o.emit.Concat(o.p + "/concat", names, axis, vs[0].dtype), shape, vs[0].dtype});
  return Status::OK();
}

Status Stack(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(std::vector<Value> vs, TensorList(o, o.first));
  int rank = vs[0].rank();
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(o.KwOr<int64_t>("axis", 0), rank + 1));
  std::vector<std::string> names;
  Shape shape = vs[0].shape;
  for (const Value& v : vs) {
    if (v.rank() != rank) return InvalidArgument("stack of tensors of different ranks");
    names.push_back(v.tensor);
  }
  NodeDef* n = o.emit.Add("Pack", o.p + "/stack", names);
  SetNodeAttr(n, "T", vs[0].dtype);
  SetNodeAttr(n, "N", static_cast<int64_t>(names.size()));
  SetNodeAttr(n, "axis", static_cast<int64_t>(axis));
  shape.insert(shape.begin() + axis, static_cast<int64_t>(vs.size()));
  out->push_back(Value{n->name(), shape, vs[0].dtype});
  return Status::OK();
}

Status AddN(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(std::vector<Value> vs, TensorList(o, o.first));
  std::vector<std::string> names;
  Shape shape = vs[0].shape;
  for (const Value& v : vs) {
    names.push_back(v.tensor);
    GRT_ASSIGN_OR_RETURN(shape, Broadcast(shape, v.shape));
  }
  NodeDef* n = o.emit.Add("AddN", o.p + "/AddN", names);
  SetNodeAttr(n, "T", vs[0].dtype);
  SetNodeAttr(n, "N", static_cast<int64_t>(names.size()));
  out->push_back(Value{n->name(), shape, vs[0].dtype});
  return Status::OK();
}

Status ReshapeOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "tensor"));
  const Json* s = o.Kw("shape");
  if (s == nullptr || !s->is_array()) {
    return Unimplemented("reshape to a shape that is not a list of numbers");
  }
  bool computed = false;
  for (const Json& d : *s) computed = computed || OpCall::IsTensor(d);
  if (computed) {
    // tf.reshape(x, [tf.shape(x)[0], -1]): the shape packed from scalars at run time.
    std::vector<std::string> parts;
    Shape shape;
    for (size_t i = 0; i < s->size(); ++i) {
      const Json& d = (*s)[i];
      if (OpCall::IsTensor(d)) {
        GRT_ASSIGN_OR_RETURN(Value v, o.Input(d, "shape"));
        if (v.rank() != 0 || v.dtype != kInt32) {
          return Unimplemented("reshape to a shape holding a non-scalar or non-int32 tensor");
        }
        parts.push_back(v.tensor);
        shape.push_back(-1);
      } else {
        int32_t v = JsonInt<int32_t>(d);
        if (v < -1) return InvalidArgument("reshape to dimension ", v);
        parts.push_back(o.emit.Int(StrCat(o.p, "/shape_", i), v));
        shape.push_back(v);
      }
    }
    std::string packed = o.emit.Pack(o.p + "/shape", parts, kInt32);
    out->push_back(
        Value{o.emit.Reshape(o.p + "/Reshape", x.tensor, packed, x.dtype), shape, x.dtype});
    return Status::OK();
  }
  std::vector<int32_t> dims;
  int64_t known = 1;
  int unknown = -1;
  for (const Json& d : *s) {
    if (!d.is_number()) return Unimplemented("reshape to a shape that is not a list of numbers");
    int32_t v = JsonInt<int32_t>(d);
    if (v < -1) return InvalidArgument("reshape to dimension ", v);
    if (v == -1) {
      if (unknown >= 0) return InvalidArgument("reshape with two -1 dimensions");
      unknown = static_cast<int>(dims.size());
    } else {
      known *= v;
      if (known > (int64_t{1} << 40)) return InvalidArgument("reshape to ", s->dump());
    }
    dims.push_back(v);
  }
  Shape shape(dims.begin(), dims.end());
  int64_t total = 1;
  for (int64_t d : x.shape) total = d < 0 || total < 0 ? -1 : total * d;
  if (unknown >= 0 && total >= 0 && known > 0) shape[unknown] = total / known;
  out->push_back(
      Value{o.emit.Reshape(o.p + "/Reshape", x.tensor, o.emit.Ints(o.p + "/shape", dims), x.dtype),
            shape, x.dtype});
  return Status::OK();
}

Status TransposeOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "a"));
  std::vector<int32_t> perm;
  const Json* pj = o.Kw("perm");
  if (pj == nullptr) {
    for (int i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
  } else {
    if (!pj->is_array() || static_cast<int>(pj->size()) != x.rank()) {
      return InvalidArgument("perm ", pj->dump(), " for a tensor of rank ", x.rank());
    }
    std::set<int> seen;
    for (const Json& v : *pj) {
      GRT_ASSIGN_OR_RETURN(int a, NormAxis(JsonInt(v), x.rank()));
      if (!seen.insert(a).second) return InvalidArgument("perm ", pj->dump(), " repeats an axis");
      perm.push_back(a);
    }
  }
  Shape shape;
  for (int a : perm) shape.push_back(x.shape[a]);
  out->push_back(
      Value{o.emit.Transpose(o.p + "/transpose", x.tensor, perm, x.dtype), shape, x.dtype});
  return Status::OK();
}

Status ExpandDimsOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input"));
  const Json* a = o.Kw("axis|dim");
  if (a == nullptr) return InvalidArgument("missing argument axis");
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(*a), x.rank() + 1));
  NodeDef* n =
      o.emit.Add("ExpandDims", o.p + "/ExpandDims", {x.tensor, o.emit.Int(o.p + "/dim", axis)});
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "Tdim", kInt32);
  Shape shape = x.shape;
  shape.insert(shape.begin() + axis, 1);
  out->push_back(Value{n->name(), shape, x.dtype});
  return Status::OK();
}

Status SqueezeOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input"));
  const Json* a = o.Kw("axis|squeeze_dims");
  std::vector<int64_t> dims;
  Shape shape;
  if (a != nullptr) {
    GRT_ASSIGN_OR_RETURN(std::vector<int32_t> axes, Axes(a, x.rank()));
    for (int32_t d : axes) {
      if (x.shape[d] > 1) return InvalidArgument("squeeze of axis ", d, " of size ", x.shape[d]);
      dims.push_back(d);
    }
    for (int i = 0; i < x.rank(); ++i) {
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) shape.push_back(x.shape[i]);
    }
  } else {
    for (int i = 0; i < x.rank(); ++i) {
      if (x.shape[i] < 0) return Unimplemented("squeeze without axis of a tensor of unknown shape");
      if (x.shape[i] != 1) shape.push_back(x.shape[i]);
    }
  }
  out->push_back(Value{o.emit.Squeeze(o.p + "/Squeeze", x.tensor, dims, x.dtype), shape, x.dtype});
  return Status::OK();
}

Status SplitOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "value"));
  const Json* n_or_sizes = o.Kw("num_or_size_splits");
  if (n_or_sizes == nullptr) return InvalidArgument("missing argument num_or_size_splits");
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(o.KwOr<int64_t>("axis", 0), x.rank()));
  int64_t dim = x.shape[axis];
  std::vector<int32_t> sizes;
  NodeDef* n;
  if (n_or_sizes->is_array()) {
    int64_t sum = 0;
    int unknown = -1;
    for (const Json& s : *n_or_sizes) {
      int32_t v = JsonInt<int32_t>(s);
      if (v < -1) return InvalidArgument("split size ", v);
      if (v == -1) {
        if (unknown >= 0) return InvalidArgument("split sizes with two -1");
        unknown = static_cast<int>(sizes.size());
      } else {
        sum += v;
      }
      sizes.push_back(v);
    }
    if (sizes.empty() || sizes.size() > 4096) return InvalidArgument("split into ", sizes.size());
    if (dim >= 0 && (unknown >= 0 ? sum > dim : sum != dim)) {
      return InvalidArgument("split sizes ", n_or_sizes->dump(), " of a dimension of ", dim);
    }
    n = o.emit.Add(
        "SplitV", o.p + "/split",
        {x.tensor, o.emit.Ints(o.p + "/size_splits", sizes), o.emit.Int(o.p + "/split_dim", axis)});
    SetNodeAttr(n, "Tlen", kInt32);
    if (unknown >= 0) sizes[unknown] = dim >= 0 ? static_cast<int32_t>(dim - sum) : -1;
  } else {
    int64_t num = JsonInt(*n_or_sizes);
    if (num < 1 || num > 4096 || (dim >= 0 && dim % num != 0)) {
      return InvalidArgument("split of a dimension of ", dim, " into ", num);
    }
    n = o.emit.Add("Split", o.p + "/split", {o.emit.Int(o.p + "/split_dim", axis), x.tensor});
    sizes.assign(num, dim >= 0 ? static_cast<int32_t>(dim / num) : -1);
  }
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "num_split", static_cast<int64_t>(sizes.size()));
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape shape = x.shape;
    shape[axis] = sizes[i];
    out->push_back(Value{StrCat(n->name(), ":", i), shape, x.dtype});
  }
  return Status::OK();
}

Status CastOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "x"));
  std::string name = o.KwOr<std::string>("dtype", "");
  DataType to;
  if (!DataTypeFromString(name, &to)) return Unimplemented("cast to dtype '", name, "'");
  std::string y =
      x.dtype == to ? o.emit.Identity(o.p + "/Identity", x.tensor, to) : CastTo(o, x, to);
  out->push_back(Value{y, x.shape, to});
  return Status::OK();
}

Status ClipByValue(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "t"));
  const Json* lo = o.Kw("clip_value_min");
  const Json* hi = o.Kw("clip_value_max");
  if (lo == nullptr || hi == nullptr) return InvalidArgument("missing clip_value_min/max");
  GRT_ASSIGN_OR_RETURN(Value l, o.AsTensor(*lo, x.dtype, "clip_value_min"));
  GRT_ASSIGN_OR_RETURN(Value h, o.AsTensor(*hi, x.dtype, "clip_value_max"));
  // tf.clip_by_value: maximum(minimum(t, max), min), shaped as t.
  std::string y = Node(o, "Minimum", {x.tensor, h.tensor}, x.dtype);
  y = Node(o, "Maximum", {y, l.tensor}, x.dtype);
  out->push_back(Value{y, x.shape, x.dtype});
  return Status::OK();
}

Status Where(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value cond, o.Input(o.first, "condition"));
  const Json* xj = o.Kw("x");
  const Json* yj = o.Kw("y");
  if (xj == nullptr || yj == nullptr) return Unimplemented("where without x and y (indices)");
  if (cond.dtype != ::tensorflow::DT_BOOL) return InvalidArgument("where of a non-bool condition");
  GRT_ASSIGN_OR_RETURN(DataType t, o.DTypeOf({xj, yj}));
  GRT_ASSIGN_OR_RETURN(Value x, o.AsTensor(*xj, t, "x"));
  GRT_ASSIGN_OR_RETURN(Value y, o.AsTensor(*yj, t, "y"));
  GRT_ASSIGN_OR_RETURN(Shape shape, Broadcast(x.shape, y.shape));
  GRT_ASSIGN_OR_RETURN(shape, Broadcast(cond.shape, shape));
  out->push_back(Value{Node(o, "SelectV2", {cond.tensor, x.tensor, y.tensor}, t), shape, t});
  return Status::OK();
}

Status BiasAddOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "value"));
  const Json* b = o.Kw("bias");
  if (b == nullptr) return InvalidArgument("missing argument bias");
  if (o.KwOr<std::string>("data_format", "NHWC") != "NHWC") {
    return Unimplemented("bias_add with data_format ", o.KwOr<std::string>("data_format", ""));
  }
  GRT_ASSIGN_OR_RETURN(Value bias, o.AsTensor(*b, x.dtype, "bias"));
  if (bias.rank() != 1) return InvalidArgument("bias of rank ", bias.rank());
  out->push_back(Value{Node(o, "BiasAdd", {x.tensor, bias.tensor}, x.dtype), x.shape, x.dtype});
  return Status::OK();
}

Status TileOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input"));
  const Json* m = o.Kw("multiples");
  if (m == nullptr || !m->is_array() || static_cast<int>(m->size()) != x.rank()) {
    return Unimplemented("tile with multiples that are not a list of ", x.rank(), " numbers");
  }
  std::vector<int32_t> mult;
  Shape shape;
  for (size_t i = 0; i < m->size(); ++i) {
    int32_t v = JsonInt<int32_t>((*m)[i]);
    if (v < 0) return InvalidArgument("tile multiple ", v);
    mult.push_back(v);
    shape.push_back(x.shape[i] < 0 ? -1 : x.shape[i] * v);
  }
  NodeDef* n = o.emit.Add("Tile", o.p + "/Tile", {x.tensor, o.emit.Ints(o.p + "/multiples", mult)});
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "Tmultiples", kInt32);
  out->push_back(Value{n->name(), shape, x.dtype});
  return Status::OK();
}

Status ImageResize(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "images"));
  if (x.rank() != 4) return Unimplemented("image.resize of a rank-", x.rank(), " tensor");
  const Json* s = o.Kw("size");
  if (s == nullptr || !s->is_array() || s->size() != 2) {
    return Unimplemented("image.resize to a size that is not two numbers");
  }
  int32_t h = JsonInt<int32_t>((*s)[0]), w = JsonInt<int32_t>((*s)[1]);
  if (h <= 0 || w <= 0) return InvalidArgument("image.resize to ", s->dump());
  std::string method = o.KwOr<std::string>("method", "bilinear");
  if (o.KwOr<bool>("antialias", false)) return Unimplemented("image.resize with antialias");
  if (o.KwOr<bool>("preserve_aspect_ratio", false)) {
    return Unimplemented("image.resize with preserve_aspect_ratio");
  }
  // tf.image.resize (v2): half-pixel centres; every method but nearest returns float32.
  static const std::map<std::string, std::string> kOps = {{"bilinear", "ResizeBilinear"},
                                                          {"nearest", "ResizeNearestNeighbor"},
                                                          {"bicubic", "ResizeBicubic"}};
  auto it = kOps.find(method);
  if (it == kOps.end()) return Unimplemented("image.resize method '", method, "'");
  NodeDef* n = o.emit.Add(it->second, o.p + "/" + it->second,
                          {x.tensor, o.emit.Ints(o.p + "/size", {h, w})});
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "align_corners", false);
  SetNodeAttr(n, "half_pixel_centers", true);
  DataType t = method == "nearest" ? x.dtype : kFloat;
  out->push_back(Value{n->name(), Shape{x.shape[0], h, w, x.shape[3]}, t});
  return Status::OK();
}

Status MatMulOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value a, o.Input(o.first, "a"));
  const Json* bj = o.Kw("b");
  if (bj == nullptr) return InvalidArgument("missing argument b");
  GRT_ASSIGN_OR_RETURN(Value b, o.AsTensor(*bj, a.dtype, "b"));
  if (a.rank() < 2 || b.rank() < 2) return InvalidArgument("matmul of tensors of rank < 2");
  if (a.dtype != b.dtype) return InvalidArgument("matmul of different dtypes");
  for (const char* k : {"a_is_sparse", "b_is_sparse"}) {
    if (o.KwOr<bool>(k, false)) return Unimplemented("matmul with ", k);
  }
  if (o.Kw("output_type") != nullptr) return Unimplemented("matmul with output_type");
  bool ta = o.KwOr<bool>("transpose_a", false) || o.KwOr<bool>("adjoint_a", false);
  bool tb = o.KwOr<bool>("transpose_b", false) || o.KwOr<bool>("adjoint_b", false);
  int64_t m = a.shape[a.rank() - (ta ? 1 : 2)];
  int64_t ka = a.shape[a.rank() - (ta ? 2 : 1)];
  int64_t kb = b.shape[b.rank() - (tb ? 1 : 2)];
  int64_t n = b.shape[b.rank() - (tb ? 2 : 1)];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return InvalidArgument("matmul of ", ShapeString(a.shape), " and ", ShapeString(b.shape));
  }
  Shape batch_a(a.shape.begin(), a.shape.end() - 2), batch_b(b.shape.begin(), b.shape.end() - 2);
  GRT_ASSIGN_OR_RETURN(Shape shape, Broadcast(batch_a, batch_b));
  shape.push_back(m);
  shape.push_back(n);
  NodeDef* node;
  if (a.rank() == 2 && b.rank() == 2) {
    node = o.emit.Add("MatMul", o.p + "/MatMul", {a.tensor, b.tensor});
    SetNodeAttr(node, "transpose_a", ta);
    SetNodeAttr(node, "transpose_b", tb);
  } else {
    node = o.emit.Add("BatchMatMulV2", o.p + "/MatMul", {a.tensor, b.tensor});
    SetNodeAttr(node, "adj_x", ta);
    SetNodeAttr(node, "adj_y", tb);
  }
  SetNodeAttr(node, "T", a.dtype);
  out->push_back(Value{node->name(), shape, a.dtype});
  return Status::OK();
}

Status ShapeOp(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input"));
  std::string name = o.KwOr<std::string>("out_type", "int32");
  DataType t;
  if (!DataTypeFromString(name, &t) || (t != kInt32 && t != ::tensorflow::DT_INT64)) {
    return Unimplemented("shape with out_type '", name, "'");
  }
  NodeDef* n = o.emit.Add("Shape", o.p + "/Shape", {x.tensor});
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "out_type", t);
  out->push_back(Value{n->name(), Shape{x.rank()}, t});
  return Status::OK();
}

OpFn LikeOp(const std::string& op) {
  return [=](OpCall& o, std::vector<Value>* out) -> Status {
    GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input"));
    if (o.Kw("dtype") != nullptr) return Unimplemented(op, " with a dtype");
    out->push_back(Value{Node(o, op, {x.tensor}, x.dtype), x.shape, x.dtype});
    return Status::OK();
  };
}

OpFn ArgOp(const std::string& op) {
  return [=](OpCall& o, std::vector<Value>* out) -> Status {
    GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "input"));
    // tf.math.argmax: axis None is 0.
    const Json* a = o.Kw("axis|dimension");
    GRT_ASSIGN_OR_RETURN(int axis, NormAxis(a == nullptr ? 0 : JsonInt(*a), x.rank()));
    std::string name = o.KwOr<std::string>("output_type", "int64");
    DataType t;
    if (!DataTypeFromString(name, &t) || (t != kInt32 && t != ::tensorflow::DT_INT64)) {
      return Unimplemented(op, " with output_type '", name, "'");
    }
    NodeDef* n = o.emit.Add(op, o.p + "/" + op, {x.tensor, o.emit.Int(o.p + "/dimension", axis)});
    SetNodeAttr(n, "T", x.dtype);
    SetNodeAttr(n, "Tidx", kInt32);
    SetNodeAttr(n, "output_type", t);
    Shape shape = x.shape;
    shape.erase(shape.begin() + axis);
    out->push_back(Value{n->name(), shape, t});
    return Status::OK();
  };
}

Status Gather(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "params"));
  const Json* ij = o.Kw("indices");
  if (ij == nullptr) return InvalidArgument("missing argument indices");
  GRT_ASSIGN_OR_RETURN(Value idx, o.AsTensor(*ij, kInt32, "indices"));
  if (idx.dtype != kInt32 && idx.dtype != ::tensorflow::DT_INT64) {
    return InvalidArgument("gather with ", DataTypeString(idx.dtype), " indices");
  }
  int64_t batch_dims = o.KwOr<int64_t>("batch_dims", 0);
  if (batch_dims < 0 || batch_dims > idx.rank() || batch_dims >= x.rank()) {
    return Unimplemented("gather with batch_dims ", batch_dims);
  }
  const Json* a = o.Kw("axis");
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(a == nullptr ? batch_dims : JsonInt(*a), x.rank()));
  if (axis < batch_dims) return InvalidArgument("gather axis ", axis, " < batch_dims");
  NodeDef* n = o.emit.Add("GatherV2", o.p + "/GatherV2",
                          {x.tensor, idx.tensor, o.emit.Int(o.p + "/axis", axis)});
  SetNodeAttr(n, "Tparams", x.dtype);
  SetNodeAttr(n, "Tindices", idx.dtype);
  SetNodeAttr(n, "Taxis", kInt32);
  SetNodeAttr(n, "batch_dims", batch_dims);
  Shape shape(x.shape.begin(), x.shape.begin() + axis);
  shape.insert(shape.end(), idx.shape.begin() + batch_dims, idx.shape.end());
  shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
  out->push_back(Value{n->name(), shape, x.dtype});
  return Status::OK();
}

// Python's len(range(*slice(start, stop, step).indices(dim))).
int64_t SliceLength(const Json& start, const Json& stop, int64_t step, int64_t dim) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); };
  int64_t b, e;
  if (step > 0) {
    b = start.is_null() ? 0 : JsonInt(start);
    e = stop.is_null() ? dim : JsonInt(stop);
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    b = clamp(b, 0, dim);
    e = clamp(e, 0, dim);
    return e > b ? (e - b + step - 1) / step : 0;
  }
  b = start.is_null() ? dim - 1 : JsonInt(start);
  e = stop.is_null() ? -1 : JsonInt(stop);
  if (!start.is_null() && b < 0) b += dim;
  if (!stop.is_null() && e < 0) e += dim;
  b = clamp(b, -1, dim - 1);
  e = clamp(e, -1, dim - 1);
  return b > e ? (b - e + (-step) - 1) / (-step) : 0;
}

// tensor[slice_spec] as tf's _slice_helper: one StridedSlice with its masks.
Status GetItem(OpCall& o, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, o.Input(o.first, "tensor"));
  auto spec_it = o.kwargs.find("slice_spec");
  if (spec_it == o.kwargs.end()) return InvalidArgument("missing slice_spec");
  Json spec = spec_it->is_array() ? *spec_it : Json::array({*spec_it});
  enum Kind { kSlice, kEllipsis, kNewAxis, kIndex };
  std::vector<Kind> kinds;
  std::vector<int32_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
  auto unsupported = [&](const Json& e) {
    return Unimplemented("slice spec element ", e.dump(),
                         " (graphrt slices with numbers, None, Ellipsis and start:stop:step)");
  };
  for (size_t i = 0; i < spec.size(); ++i) {
    const Json& e = spec[i];
    if (i >= 32) return Unimplemented("a slice spec of more than 32 elements");
    int64_t bit = int64_t{1} << i;
    if (e.is_null()) {
      kinds.push_back(kNewAxis);
      new_axis_mask |= bit;
      begin.push_back(0);
      end.push_back(0);
      strides.push_back(1);
    } else if (e.is_number_integer()) {
      kinds.push_back(kIndex);
      int32_t v = JsonInt<int32_t>(e);
      if (v == std::numeric_limits<int32_t>::max()) return unsupported(e);
      shrink_mask |= bit;
      begin.push_back(v);
      end.push_back(v + 1);
      strides.push_back(1);
    } else if (e.is_object() && e.value("class_name", Json()) == "__ellipsis__") {
      kinds.push_back(kEllipsis);
      ellipsis_mask |= bit;
      begin.push_back(0);
      end.push_back(0);
      strides.push_back(1);
    } else if (e.is_object() && e.size() == 3 && e.contains("start") && e.contains("stop") &&
               e.contains("step")) {
      for (const char* k : {"start", "stop", "step"}) {
        if (!e[k].is_null() && !e[k].is_number_integer()) return unsupported(e);
      }
      kinds.push_back(kSlice);
      if (e["start"].is_null()) begin_mask |= bit;
      if (e["stop"].is_null()) end_mask |= bit;
      begin.push_back(e["start"].is_null() ? 0 : JsonInt<int32_t>(e["start"]));
      end.push_back(e["stop"].is_null() ? 0 : JsonInt<int32_t>(e["stop"]));
      int32_t step = e["step"].is_null() ? 1 : JsonInt<int32_t>(e["step"]);
      if (step == 0) return InvalidArgument("slice step 0");
      strides.push_back(step);
    } else {
      return unsupported(e);
    }
  }
  if (std::count(kinds.begin(), kinds.end(), kEllipsis) > 1) {
    return InvalidArgument("a slice spec with two Ellipses");
  }
  // The output's Keras shape.
  int consumed = 0;
  for (Kind k : kinds) consumed += k == kSlice || k == kIndex;
  if (consumed > x.rank()) {
    return InvalidArgument("slice spec ", spec_it->dump(), " indexes ", consumed,
                           " dimensions of a tensor of rank ", x.rank());
  }
  Shape shape;
  int dim = 0;
  bool ellipsis = false;
  for (size_t i = 0; i < kinds.size(); ++i) {
    switch (kinds[i]) {
      case kNewAxis:
        shape.push_back(1);
        break;
      case kEllipsis:
        ellipsis = true;
        for (int n = x.rank() - consumed; n > 0; --n) shape.push_back(x.shape[dim++]);
        break;
      case kIndex: {
        int64_t d = x.shape[dim++];
        if (d >= 0 && (begin[i] >= d || begin[i] < -d)) {
          return InvalidArgument("index ", begin[i], " of a dimension of ", d);
        }
        break;
      }
      case kSlice: {
        const Json& e = spec[i];
        int64_t d = x.shape[dim++];
        shape.push_back(d < 0 ? -1 : SliceLength(e["start"], e["stop"], strides[i], d));
        break;
      }
    }
  }
  if (!ellipsis) {
    while (dim < x.rank()) shape.push_back(x.shape[dim++]);
  }
  NodeDef* n = o.emit.Add("StridedSlice", o.p + "/strided_slice",
                          {x.tensor, o.emit.Ints(o.p + "/begin", begin),
                           o.emit.Ints(o.p + "/end", end), o.emit.Ints(o.p + "/strides", strides)});
  SetNodeAttr(n, "T", x.dtype);
  SetNodeAttr(n, "Index", kInt32);
  SetNodeAttr(n, "begin_mask", begin_mask);
  SetNodeAttr(n, "end_mask", end_mask);
  SetNodeAttr(n, "ellipsis_mask", ellipsis_mask);
  SetNodeAttr(n, "new_axis_mask", new_axis_mask);
  SetNodeAttr(n, "shrink_axis_mask", shrink_mask);
  out->push_back(Value{n->name(), shape, x.dtype});
  return Status::OK();
}

// The functions, by name without the module (see Canonical).
const std::map<std::string, OpFn>& Ops() {
  static const auto* ops = [] {
    auto* m = new std::map<std::string, OpFn>;
    for (const auto& [name, op] :
         std::map<std::string, std::string>{{"add", "AddV2"},
                                            {"subtract", "Sub"},
                                            {"sub", "Sub"},
                                            {"multiply", "Mul"},
                                            {"mul", "Mul"},
                                            {"divide", "TrueDiv"},
                                            {"truediv", "TrueDiv"},
                                            {"div", "Div"},
                                            {"floordiv", "FloorDiv"},
                                            {"floor_div", "FloorDiv"},
                                            {"floormod", "FloorMod"},
                                            {"mod", "FloorMod"},
                                            {"pow", "Pow"},
                                            {"maximum", "Maximum"},
                                            {"minimum", "Minimum"},
                                            {"squared_difference", "SquaredDifference"},
                                            {"logical_and", "LogicalAnd"},
                                            {"logical_or", "LogicalOr"},
                                            {"logical_xor", "LogicalXor"}}) {
      (*m)[name] = BinaryOp(op);
    }
    for (const auto& [name, op] : std::map<std::string, std::string>{{"radd", "AddV2"},
                                                                     {"rsub", "Sub"},
                                                                     {"rmul", "Mul"},
                                                                     {"rtruediv", "TrueDiv"},
                                                                     {"rpow", "Pow"}}) {
      (*m)[name] = BinaryOp(op, false, true);
    }
    for (const auto& [name, op] :
         std::map<std::string, std::string>{{"greater", "Greater"},
                                            {"greater_equal", "GreaterEqual"},
                                            {"less", "Less"},
                                            {"less_equal", "LessEqual"},
                                            {"equal", "Equal"},
                                            {"not_equal", "NotEqual"}}) {
      (*m)[name] = BinaryOp(op, true);
    }
    for (const auto& [name, op] : std::map<std::string, std::string>{
             {"abs", "Abs"},           {"exp", "Exp"},
             {"log", "Log"},           {"sqrt", "Sqrt"},
             {"rsqrt", "Rsqrt"},       {"square", "Square"},
             {"negative", "Neg"},      {"neg", "Neg"},
             {"sigmoid", "Sigmoid"},   {"tanh", "Tanh"},
             {"sin", "Sin"},           {"cos", "Cos"},
             {"tan", "Tan"},           {"reciprocal", "Reciprocal"},
             {"floor", "Floor"},       {"ceil", "Ceil"},
             {"round", "Round"},       {"sign", "Sign"},
             {"erf", "Erf"},           {"expm1", "Expm1"},
             {"log1p", "Log1p"},       {"relu", "Relu"},
             {"relu6", "Relu6"},       {"elu", "Elu"},
             {"selu", "Selu"},         {"softplus", "Softplus"},
             {"softsign", "Softsign"}, {"logical_not", "LogicalNot"}}) {
      (*m)[name] = UnaryOp(op);
    }
    for (const auto& [name, op] : std::map<std::string, std::string>{{"reduce_mean", "Mean"},
                                                                     {"reduce_sum", "Sum"},
                                                                     {"reduce_max", "Max"},
                                                                     {"reduce_min", "Min"},
                                                                     {"reduce_prod", "Prod"},
                                                                     {"reduce_any", "Any"},
                                                                     {"reduce_all", "All"}}) {
      (*m)[name] = ReduceOp(op);
    }
    (*m)["silu"] = &Silu;
    (*m)["swish"] = &Silu;
    (*m)["gelu"] = &Gelu;
    (*m)["softmax"] = [](OpCall& o, std::vector<Value>* out) { return Softmaxes(o, out, false); };
    (*m)["log_softmax"] = [](OpCall& o, std::vector<Value>* out) {
      return Softmaxes(o, out, true);
    };
    (*m)["leaky_relu"] = &LeakyRelu;
    (*m)["log_sigmoid"] = &LogSigmoid;
    (*m)["l2_normalize"] = &L2Normalize;
    (*m)["concat"] = &Concat;
    (*m)["stack"] = &Stack;
    (*m)["add_n"] = &AddN;
    (*m)["reshape"] = &ReshapeOp;
    (*m)["transpose"] = &TransposeOp;
    (*m)["expand_dims"] = &ExpandDimsOp;
    (*m)["squeeze"] = &SqueezeOp;
    (*m)["split"] = &SplitOp;
    (*m)["cast"] = &CastOp;
    (*m)["clip_by_value"] = &ClipByValue;
    (*m)["where"] = &Where;
    (*m)["bias_add"] = &BiasAddOp;
    (*m)["tile"] = &TileOp;
    (*m)["resize"] = &ImageResize;
    (*m)["matmul"] = &MatMulOp;
    (*m)["getitem"] = &GetItem;
    (*m)["shape"] = &ShapeOp;
    (*m)["zeros_like"] = LikeOp("ZerosLike");
    (*m)["ones_like"] = LikeOp("OnesLike");
    (*m)["argmax"] = ArgOp("ArgMax");
    (*m)["argmin"] = ArgOp("ArgMin");
    (*m)["gather"] = &Gather;
    return m;
  }();
  return *ops;
}

// The key of Ops() for a recorded function name: tf.compat.v1.X is tf.X where the two agree, and
// the module prefixes tf puts its functions under are dropped (tf.math.add and tf.add record
// alike). v1 functions whose semantics differ from v2's keep a distinct (unknown) key.
std::string Canonical(const std::string& function) {
  std::string f = function;
  if (StartsWith(f, "compat.v1.")) {
    f = f.substr(10);
    if (StartsWith(f, "image.") || f == "where") return "v1." + f;
  }
  for (const char* prefix : {"math.", "nn.", "__operators__.", "linalg.", "dtypes.", "image."}) {
    if (StartsWith(f, prefix)) return f.substr(std::string(prefix).size());
  }
  return f;
}

}  // namespace

std::string OpLambdaUnsupported(const std::string& function) {
  std::string key = Canonical(function);
  if (key == "einsum") {
    // tf-keras records the first argument and keyword arguments only: einsum's operands, its
    // *inputs, are not in the file (tf-keras cannot load such a model back either).
    return "tf-keras does not record einsum's operands";
  }
  if (Ops().count(key) != 0) return "";
  return "function not supported";
}

Status OpLambda(LayerCall& c, std::vector<Value>* out) {
  std::string function = Get<std::string>(*c.config, "function", "");
  std::string why = OpLambdaUnsupported(function);
  if (!why.empty()) return Unimplemented("layer '", c.name, "' calls tf.", function, ": ", why);
  if (c.kwargs == nullptr || !c.kwargs->is_object() || !c.kwargs->contains("args")) {
    return InvalidArgument("layer '", c.name, "': its call is not recorded");
  }
  OpCall o(c, *c.kwargs);
  Status s = Ops().at(Canonical(function))(o, out);
  if (!s.ok()) {
    return s.Prepend(StrCat("layer '", c.name, "' (", c.class_name, " ", function, ")"));
  }
  return s;
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
