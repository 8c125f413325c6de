// BatchNormalization (inference: the moving statistics) and LayerNormalization.
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>

namespace graphrt {
namespace keras {
namespace internal {

namespace {

// A per-channel vector broadcast along `axis` of a rank-`rank` input.
Tensor Broadcastable(const Tensor& v, int axis, int rank) {
  Shape s(rank, 1);
  s[axis] = v.NumElements();
  return v.Reshaped(TensorShape(s));
}

}  // namespace

Status BatchNorm(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
    return emit.Weight(c.scope + "/" + name, Broadcastable(t, axis, rank));
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

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
