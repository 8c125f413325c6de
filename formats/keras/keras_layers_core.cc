// Core layers: Input, Dense, Embedding, Masking, and the layers that are the identity at
// inference (Dropout and its kin, noise, ActivityRegularization).
#include "formats/keras/keras_builder_internal.h"

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

std::string ToFloat(Emitter& emit, const std::string& scope, const Value& v) {
  if (v.dtype == kFloat) return v.tensor;
  NodeDef* n = emit.Add("Cast", scope + "/Cast", {v.tensor});
  SetNodeAttr(n, "SrcT", v.dtype);
  SetNodeAttr(n, "DstT", kFloat);
  SetNodeAttr(n, "Truncate", false);
  return n->name();
}

Status Input(LayerCall& c, std::vector<Value>* out) {
  out->push_back(c.inputs[0]);
  return Status::OK();
}

Status IdentityLayer(LayerCall& c, std::vector<Value>* out) {
  out->push_back(c.inputs[0]);
  return Status::OK();
}

Status Dense(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  int64_t units = Get<int64_t>(*c.config, "units", Get<int64_t>(*c.config, "output_dim", -1));
  bool use_bias = Get<bool>(*c.config, "use_bias", true);
  int64_t in = x.shape.empty() ? -1 : x.shape.back();
  GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next("kernel", {in, units}));
  units = kernel.dim_size(1);
  in = kernel.dim_size(0);
  std::string k = emit.Weight(c.scope + "/kernel", kernel);
  std::string y;
  std::string input = ToFloat(emit, c.scope, x);
  if (x.rank() == 2) {
    y = emit.MatMul(c.scope + "/MatMul", input, k);
  } else {
    // Keras applies the kernel to the last axis (tensordot): flatten, multiply, restore.
    std::string flat =
        emit.Reshape(c.scope + "/flatten", input,
                     emit.Ints(c.scope + "/flat_shape", {-1, static_cast<int32_t>(in)}));
    y = emit.MatMul(c.scope + "/MatMul", flat, k);
    std::string shape = emit.ShapeOf(c.scope + "/in_shape", input);
    std::vector<std::string> dims;
    for (int i = 0; i + 1 < x.rank(); ++i) {
      dims.push_back(emit.Element(c.scope + StrCat("/dim", i), shape, i));
    }
    dims.push_back(emit.Int(c.scope + "/units", static_cast<int32_t>(units)));
    y = emit.Reshape(c.scope + "/restore", y, emit.Pack(c.scope + "/out_shape", dims, kInt32));
  }
  if (use_bias) {
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", {units}));
    y = emit.BiasAdd(c.scope + "/BiasAdd", y, emit.Weight(c.scope + "/bias", bias));
  }
  Shape shape = x.shape;
  shape.back() = units;
  GRT_ASSIGN_OR_RETURN(
      y, Activate(emit, c.scope, ActivationName(*c.config, "activation", "linear"), y, c.name));
  out->push_back(Value{y, shape, kFloat});
  return Status::OK();
}

Status Embedding(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  int64_t in_dim = Get<int64_t>(*c.config, "input_dim", -1);
  int64_t out_dim = Get<int64_t>(*c.config, "output_dim", -1);
  GRT_ASSIGN_OR_RETURN(Tensor table, c.weights->Next("embeddings", {in_dim, out_dim}));
  std::string ids = x.tensor;
  if (x.dtype != kInt32 && x.dtype != ::tensorflow::DT_INT64) {
    NodeDef* cast = emit.Add("Cast", c.scope + "/Cast", {x.tensor});
    SetNodeAttr(cast, "SrcT", x.dtype);
    SetNodeAttr(cast, "DstT", kInt32);
    SetNodeAttr(cast, "Truncate", false);
    ids = cast->name();
  }
  NodeDef* gather =
      emit.Add("GatherV2", c.scope + "/embedding_lookup",
               {emit.Weight(c.scope + "/embeddings", table), ids, emit.Int(c.scope + "/axis", 0)});
  SetNodeAttr(gather, "Tparams", kFloat);
  SetNodeAttr(gather, "Tindices", x.dtype == ::tensorflow::DT_INT64 ? x.dtype : kInt32);
  SetNodeAttr(gather, "Taxis", kInt32);
  SetNodeAttr(gather, "batch_dims", 0);
  Shape shape = x.shape;
  shape.push_back(table.dim_size(1));
  Value y{gather->name(), shape};
  if (Get<bool>(*c.config, "mask_zero", false)) {
    if (x.rank() != 2) return Unimplemented("mask_zero on ids of rank ", x.rank());
    NodeDef* zero = emit.Add("Const", c.scope + "/mask/zero", {});
    Tensor z = x.dtype == ::tensorflow::DT_INT64 ? Tensor::Scalar<int64_t>(0)
               : x.dtype == kInt32               ? Tensor::Scalar<int32_t>(0)
                                                 : Tensor::Scalar<float>(0.0f);
    SetNodeAttr(zero, "dtype", z.dtype());
    SetNodeAttr(zero, "value", z);
    NodeDef* ne = emit.Add("NotEqual", c.scope + "/mask", {x.tensor, zero->name()});
    SetNodeAttr(ne, "T", x.dtype);
    SetNodeAttr(ne, "incompatible_shape_error", true);
    y.mask = ne->name();
  }
  out->push_back(y);
  return Status::OK();
}

// Keras: mask = any(x != mask_value, axis=-1); output = x * mask.
Status MaskingLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  if (x.rank() < 2) return InvalidArgument("Masking of an input of rank ", x.rank());
  float value = Get<float>(*c.config, "mask_value", 0.0f);
  NodeDef* ne = emit.Add("NotEqual", c.scope + "/NotEqual",
                         {x.tensor, emit.Float(c.scope + "/mask_value", value)});
  SetNodeAttr(ne, "T", kFloat);
  SetNodeAttr(ne, "incompatible_shape_error", true);
  NodeDef* any =
      emit.Add("Any", c.scope + "/Any", {ne->name(), emit.Ints(c.scope + "/axis", {-1})});
  SetNodeAttr(any, "Tidx", kInt32);
  SetNodeAttr(any, "keep_dims", true);
  NodeDef* cast = emit.Add("Cast", c.scope + "/Cast", {any->name()});
  SetNodeAttr(cast, "SrcT", ::tensorflow::DT_BOOL);
  SetNodeAttr(cast, "DstT", kFloat);
  SetNodeAttr(cast, "Truncate", false);
  Value y{emit.Binary("Mul", c.scope + "/mul", x.tensor, cast->name()), x.shape};
  // The layers that take masks read [batch, time] ones; other ranks' masks are left unset.
  if (x.rank() == 3) {
    y.mask = emit.Squeeze(c.scope + "/mask", any->name(), {2}, ::tensorflow::DT_BOOL);
  }
  out->push_back(y);
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
