// BatchNormalization (inference: the moving statistics), LayerNormalization, GroupNormalization
// and UnitNormalization.
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>

#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

Status BatchNorm(LayerCall& c, std::vector<Value>* out) {
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  int rank = x.rank();
  Json axis_json = cfg.value("axis", Json(-1));
  if (!axis_json.is_array()) axis_json = Json::array({axis_json});
  if (axis_json.empty()) return InvalidArgument("BatchNormalization over no axes");
  // One axis: weights [C]; several: weights of the input's rank, 1 on the other axes.
  Shape bshape(rank, 1);
  int64_t channels = -1;
  for (const Json& a : axis_json) {
    GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(a), rank));
    if (axis == 0) return InvalidArgument("BatchNormalization over the batch axis");
    bshape[axis] = channels = x.shape[axis];
  }
  const Shape param_shape = axis_json.size() == 1 ? Shape{channels} : bshape;
  bool center = Get<bool>(cfg, "center", true);
  bool scale = Get<bool>(cfg, "scale", true);
  float eps = Get<float>(cfg, "epsilon", 1e-3f);
  Tensor gamma, beta;
  if (scale) {
    GRT_ASSIGN_OR_RETURN(gamma, c.weights->Next("gamma", param_shape));
  }
  if (center) {
    GRT_ASSIGN_OR_RETURN(beta, c.weights->Next("beta", param_shape));
  }
  GRT_ASSIGN_OR_RETURN(Tensor mean, c.weights->Next("moving_mean", param_shape));
  GRT_ASSIGN_OR_RETURN(Tensor var, c.weights->Next("moving_variance", param_shape));
  if (Get<bool>(cfg, "renorm", false)) {
    // Batch renormalization's statistics only correct training batches.
    for (const char* role : {"moving_stddev", "renorm_mean", "renorm_stddev"}) {
      GRT_RETURN_IF_ERROR(c.weights->Next(role, param_shape).status());
    }
  }
  Emitter& emit = *c.emit;
  // As tf.nn.batch_normalization: inv = rsqrt(var + eps) * gamma; x * inv + (beta - mean * inv).
  // The weights stay separate nodes so that an exported graph keeps them as variables.
  std::string p = c.scope + "/batchnorm";
  auto w = [&](const char* name, const Tensor& t) {
    return emit.Weight(c.scope + "/" + name, t.Reshaped(TensorShape(bshape)));
  };
  std::string inv = emit.Unary(
      "Rsqrt", p + "/Rsqrt",
      emit.Binary("AddV2", p + "/add", w("moving_variance", var), emit.Float(p + "/epsilon", eps)));
  if (scale) inv = emit.Binary("Mul", p + "/mul", inv, w("gamma", gamma));
  std::string shift = emit.Binary("Mul", p + "/mul_2", w("moving_mean", mean), inv);
  shift = center ? emit.Binary("Sub", p + "/sub", w("beta", beta), shift)
                 : emit.Unary("Neg", p + "/neg", shift);
  std::string y = emit.Binary("Mul", p + "/mul_1", x.tensor, inv);
  y = emit.Binary("AddV2", p + "/add_1", y, shift);
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status LayerNorm(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
  std::string mean = emit.Reduce("Mean", p + "/moments/mean", x.tensor, axes, true);
  std::string diff =
      emit.Binary("SquaredDifference", p + "/moments/SquaredDifference", x.tensor, mean);
  std::string var = emit.Reduce("Mean", p + "/moments/variance", diff, axes, true);
  std::string inv =
      emit.Unary("Rsqrt", p + "/Rsqrt",
                 emit.Binary("AddV2", p + "/add", var, emit.Float(p + "/epsilon", eps)));
  if (scale) {
    GRT_ASSIGN_OR_RETURN(Tensor gamma, c.weights->Next("gamma", param_shape));
    inv = emit.Binary("Mul", p + "/mul", inv,
                      emit.Weight(p + "/gamma", gamma.Reshaped(TensorShape(bshape))));
  }
  std::string y = emit.Binary("Mul", p + "/mul_1", x.tensor, inv);
  std::string shift = emit.Unary("Neg", p + "/neg", emit.Binary("Mul", p + "/mul_2", mean, inv));
  if (center) {
    GRT_ASSIGN_OR_RETURN(Tensor beta, c.weights->Next("beta", param_shape));
    shift = emit.Binary("AddV2", p + "/add_2",
                        emit.Weight(p + "/beta", beta.Reshaped(TensorShape(bshape))), shift);
  }
  y = emit.Binary("AddV2", p + "/add_1", y, shift);
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

// Keras: the channels split into `groups` (a new axis before the channel axis, the channels per
// group after it), each group normalized over every axis but the batch and the group, then
// tf.nn.batch_normalization with gamma and beta shaped the same way.
Status GroupNorm(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  int rank = x.rank();
  if (rank < 2) return InvalidArgument("GroupNormalization of an input of rank ", rank);
  GRT_ASSIGN_OR_RETURN(int axis, NormAxis(Get<int64_t>(cfg, "axis", -1), rank));
  if (axis == 0) return InvalidArgument("GroupNormalization over the batch axis");
  int64_t ch = x.shape[axis];
  int64_t groups = Get<int64_t>(cfg, "groups", 32);
  if (groups == -1) groups = ch;
  if (ch <= 0 || groups <= 0 || ch % groups != 0) {
    return InvalidArgument("GroupNormalization of ", ch, " channels in ", groups, " groups");
  }
  bool center = Get<bool>(cfg, "center", true);
  bool scale = Get<bool>(cfg, "scale", true);
  float eps = Get<float>(cfg, "epsilon", 1e-3f);
  std::string p = c.scope;
  // The grouped shape, from the input's own shape (the batch and other axes may be unknown).
  std::string shape = emit.ShapeOf(p + "/Shape", x.tensor);
  std::vector<std::string> dims;
  for (int i = 0; i < rank; ++i) {
    if (i == axis) {
      dims.push_back(emit.Int(p + "/groups", static_cast<int32_t>(groups)));
      dims.push_back(emit.Int(p + "/group_size", static_cast<int32_t>(ch / groups)));
    } else {
      dims.push_back(emit.Element(p + StrCat("/dim", i), shape, i));
    }
  }
  std::string grouped =
      emit.Reshape(p + "/Reshape", x.tensor, emit.Pack(p + "/group_shape", dims, kInt32));
  std::vector<int32_t> axes;
  for (int i = 1; i <= rank; ++i) {
    if (i != axis) axes.push_back(i);
  }
  std::string mean = emit.Reduce("Mean", p + "/moments/mean", grouped, axes, true);
  std::string var =
      emit.Reduce("Mean", p + "/moments/variance",
                  emit.Binary("SquaredDifference", p + "/moments/SquaredDifference", grouped, mean),
                  axes, true);
  Shape bshape(rank + 1, 1);
  bshape[axis] = groups;
  bshape[axis + 1] = ch / groups;
  std::string inv =
      emit.Unary("Rsqrt", p + "/batchnorm/Rsqrt",
                 emit.Binary("AddV2", p + "/batchnorm/add", var, emit.Float(p + "/epsilon", eps)));
  if (scale) {
    GRT_ASSIGN_OR_RETURN(Tensor gamma, c.weights->Next("gamma", {ch}));
    inv = emit.Binary("Mul", p + "/batchnorm/mul", inv,
                      emit.Weight(p + "/gamma", gamma.Reshaped(TensorShape(bshape))));
  }
  std::string shift = emit.Binary("Mul", p + "/batchnorm/mul_2", mean, inv);
  if (center) {
    GRT_ASSIGN_OR_RETURN(Tensor beta, c.weights->Next("beta", {ch}));
    shift = emit.Binary("Sub", p + "/batchnorm/sub",
                        emit.Weight(p + "/beta", beta.Reshaped(TensorShape(bshape))), shift);
  } else {
    shift = emit.Unary("Neg", p + "/batchnorm/neg", shift);
  }
  std::string y = emit.Binary("AddV2", p + "/batchnorm/add_1",
                              emit.Binary("Mul", p + "/batchnorm/mul_1", grouped, inv), shift);
  out->push_back(Value{emit.Reshape(p + "/Reshape_1", y, shape), x.shape});
  return Status::OK();
}

// Keras: tf.linalg.l2_normalize over the axes, x * rsqrt(max(sum(x^2), 1e-12)).
Status UnitNorm(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  Json axis_json = c.config->value("axis", Json(-1));
  if (!axis_json.is_array()) axis_json = Json::array({axis_json});
  std::vector<int32_t> axes;
  for (const Json& a : axis_json) {
    GRT_ASSIGN_OR_RETURN(int axis, NormAxis(JsonInt(a), x.rank()));
    axes.push_back(axis);
  }
  if (axes.empty()) return InvalidArgument("UnitNormalization over no axes");
  std::string p = c.scope + "/l2_normalize";
  std::string sum =
      emit.Reduce("Sum", p + "/Sum", emit.Unary("Square", p + "/Square", x.tensor), axes, true);
  std::string inv =
      emit.Unary("Rsqrt", p + "/Rsqrt",
                 emit.Binary("Maximum", p + "/Maximum", sum, emit.Float(p + "/epsilon", 1e-12f)));
  out->push_back(Value{emit.Binary("Mul", p, ToFloat(emit, c.scope, x), inv), x.shape});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
