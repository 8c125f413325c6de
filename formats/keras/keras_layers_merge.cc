// Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot.
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>
#include <map>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

Shape BroadcastShape(const Shape& a, const Shape& b) {
  Shape out = a.size() >= b.size() ? a : b;
  const Shape& other = a.size() >= b.size() ? b : a;
  size_t off = out.size() - other.size();
  for (size_t i = 0; i < other.size(); ++i) {
    if (out[off + i] == 1 || out[off + i] < 0) out[off + i] = other[i];
  }
  return out;
}

}  // namespace

Status Merge(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const std::string& cls = c.class_name;
  if (cls == "Subtract" && c.inputs.size() != 2) {
    return InvalidArgument("Subtract takes exactly 2 inputs, got ", c.inputs.size());
  }
  static const std::map<std::string, std::string> kOps = {
      {"Add", "AddV2"},     {"Subtract", "Sub"},    {"Multiply", "Mul"},
      {"Average", "AddV2"}, {"Maximum", "Maximum"}, {"Minimum", "Minimum"}};
  // Keras's _Merge.call: inputs of lower rank gain axes of size 1 after the batch axis.
  int max_rank = 0;
  for (const Value& v : c.inputs) max_rank = std::max(max_rank, v.rank());
  std::vector<Value> xs = c.inputs;
  for (size_t i = 0; i < xs.size(); ++i) {
    while (xs[i].rank() < max_rank && xs[i].rank() > 0) {
      xs[i].tensor = emit.ExpandDims(c.scope + StrCat("/ExpandDims_", i), xs[i].tensor, 1);
      xs[i].shape.insert(xs[i].shape.begin() + 1, 1);
    }
  }
  std::string y = xs[0].tensor;
  Shape shape = xs[0].shape;
  for (size_t i = 1; i < xs.size(); ++i) {
    y = emit.Binary(kOps.at(cls), c.scope + "/" + kOps.at(cls), y, xs[i].tensor);
    shape = BroadcastShape(shape, xs[i].shape);
  }
  if (cls == "Average") {
    y = emit.Binary("RealDiv", c.scope + "/truediv", y,
                    emit.Float(c.scope + "/count", static_cast<float>(c.inputs.size())));
  }
  Value result{y, shape};
  // Keras's Merge.compute_mask: the masks the inputs have, and-ed.
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string& m = c.inputs[i].mask;
    if (m.empty()) continue;
    result.mask = result.mask.empty()
                      ? m
                      : emit.Add("LogicalAnd", c.scope + "/mask/and", {result.mask, m})->name();
  }
  out->push_back(result);
  return Status::OK();
}

Status ConcatenateLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
  Value y{emit.Concat(c.scope + "/concat", xs, axis), shape};
  bool masked = false;
  for (const Value& v : c.inputs) masked = masked || !v.mask.empty();
  if (masked) {
    // Keras's Concatenate.compute_mask: each input's mask with a trailing axis (all true for an
    // input without one, shaped as the input), concatenated along the layer's axis, then all()
    // over the last axis.
    constexpr DataType kBool = ::tensorflow::DT_BOOL;
    std::vector<std::string> masks;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const Value& v = c.inputs[i];
      std::string p = c.scope + StrCat("/mask_", i);
      if (v.mask.empty()) {
        NodeDef* t = emit.Add("Const", p + "/true", {});
        SetNodeAttr(t, "dtype", kBool);
        SetNodeAttr(t, "value", Tensor::Scalar<bool>(true));
        NodeDef* fill = emit.Add("Fill", p, {emit.ShapeOf(p + "/shape", v.tensor), t->name()});
        SetNodeAttr(fill, "T", kBool);
        SetNodeAttr(fill, "index_type", kInt32);
        masks.push_back(fill->name());
      } else if (rank == 3) {
        NodeDef* e = emit.Add("ExpandDims", p, {v.mask, emit.Int(p + "/dim", -1)});
        SetNodeAttr(e, "T", kBool);
        SetNodeAttr(e, "Tdim", kInt32);
        masks.push_back(e->name());
      } else {
        masks.push_back(v.mask);
      }
    }
    std::string all = emit.Concat(c.scope + "/mask/concat", masks, axis, kBool);
    NodeDef* n = emit.Add("All", c.scope + "/mask", {all, emit.Ints(c.scope + "/mask/axis", {-1})});
    SetNodeAttr(n, "Tidx", kInt32);
    SetNodeAttr(n, "keep_dims", false);
    y.mask = n->name();
  }
  out->push_back(y);
  return Status::OK();
}

Status DotLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  if (c.inputs.size() != 2) return InvalidArgument("Dot takes 2 inputs");
  Value a = c.inputs[0], b = c.inputs[1];
  std::vector<int64_t> axes = GetInts(*c.config, "axes", 2, -1);
  GRT_ASSIGN_OR_RETURN(int ax, NormAxis(axes[0], a.rank()));
  GRT_ASSIGN_OR_RETURN(int bx, NormAxis(axes[1], b.rank()));
  bool normalize = Get<bool>(*c.config, "normalize", false);
  auto l2 = [&](const Value& v, int axis, const std::string& name) {
    // tf.math.l2_normalize: x * rsqrt(max(sum(x^2), 1e-12)).
    std::string sq = emit.Unary("Square", name + "/Square", v.tensor);
    std::string sum = emit.Reduce("Sum", name + "/Sum", sq, {axis}, true);
    std::string m =
        emit.Binary("Maximum", name + "/Maximum", sum, emit.Float(name + "/epsilon", 1e-12f));
    return Value{emit.Binary("Mul", name, v.tensor, emit.Unary("Rsqrt", name + "/Rsqrt", m)),
                 v.shape};
  };
  if (normalize) {
    a = l2(a, ax, c.scope + "/l2_normalize");
    b = l2(b, bx, c.scope + "/l2_normalize_1");
  }
  if (a.rank() == 2 && b.rank() == 2) {
    std::string y =
        emit.Reduce("Sum", c.scope + "/Sum",
                    emit.Binary("Mul", c.scope + "/mul", a.tensor, b.tensor), {1}, true);
    out->push_back(Value{y, {a.shape[0], 1}});
    return Status::OK();
  }
  // Keras's batch_dot: a rank-2 input gains an axis of size 1 (a as [B, 1, K], b as [B, K, 1])
  // that is squeezed from the result.
  int squeeze = -1;
  if (a.rank() == 2 && b.rank() == 3) {
    a = Value{emit.ExpandDims(c.scope + "/ExpandDims", a.tensor, 1), {a.shape[0], 1, a.shape[1]}};
    ax = 2;
    squeeze = 1;
  } else if (a.rank() == 3 && b.rank() == 2) {
    b = Value{emit.ExpandDims(c.scope + "/ExpandDims", b.tensor, 2), {b.shape[0], b.shape[1], 1}};
    bx = 1;
    squeeze = 2;
  } else if (a.rank() != 3 || b.rank() != 3) {
    return Unimplemented("Dot of inputs of rank ", a.rank(), " and ", b.rank());
  }
  // [B, M, K] x [B, K, N]: move a's contracted axis last and b's to the middle.
  NodeDef* n = emit.Add("BatchMatMulV2", c.scope + "/MatMul", {a.tensor, b.tensor});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "adj_x", ax == 1);
  SetNodeAttr(n, "adj_y", bx == 2);
  int64_t m = a.shape[ax == 1 ? 2 : 1], k = b.shape[bx == 2 ? 1 : 2];
  if (squeeze > 0) {
    Shape shape = {a.shape[0], squeeze == 1 ? k : m};
    out->push_back(Value{emit.Squeeze(c.scope + "/Squeeze", n->name(), {squeeze}), shape});
    return Status::OK();
  }
  out->push_back(Value{n->name(), {a.shape[0], m, k}});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
