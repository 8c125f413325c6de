// Layers that call other layers: TimeDistributed, and a model used as a layer.
#include "formats/keras/keras_builder_internal.h"

#include <set>

#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

namespace {

// The weights of a nested model's group, split per inner layer by the first component of their
// names that names one of `layers` ("dense_3/kernel:0" belongs to dense_3; a Keras 3 weight of a
// model nested twice, "inner/dense_3/vars/0", to inner at the outer level and to dense_3 inside
// it), or else by the first component.
WeightMap SplitNestedWeights(const std::vector<const KerasWeight*>& weights, const Json& config) {
  std::set<std::string> names;
  const Json& layers = config.is_array() ? config : config.value("layers", Json::array());
  if (layers.is_array()) {
    for (const Json& l : layers) {
      if (l.is_object() && l.contains("config") && l["config"].is_object()) {
        names.insert(Get<std::string>(l["config"], "name", ""));
      }
    }
  }
  WeightMap map;
  for (const KerasWeight* w : weights) {
    std::vector<std::string> parts = StrSplit(w->name, '/');
    std::string key = parts.empty() ? w->name : parts[0];
    for (const std::string& part : parts) {
      if (names.count(part) != 0) {
        key = part;
        break;
      }
    }
    map[key].push_back(w);
  }
  return map;
}

}  // namespace

Status TimeDistributed(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  if (x.rank() < 3) return InvalidArgument("TimeDistributed input of rank ", x.rank());
  // [B, T, rest...] -> [B*T, rest...] -> inner layer -> [B, T, out_rest...].
  std::vector<int32_t> flat = {-1};
  for (int i = 2; i < x.rank(); ++i) {
    if (x.shape[i] < 0) return Unimplemented("TimeDistributed over inputs of unknown size");
    flat.push_back(static_cast<int32_t>(x.shape[i]));
  }
  std::string shape = emit.ShapeOf(c.scope + "/Shape", x.tensor);
  std::string batch = emit.Element(c.scope + "/batch", shape, 0);
  std::string steps = emit.Element(c.scope + "/steps", shape, 1);
  Value folded{emit.Reshape(c.scope + "/Reshape", x.tensor, emit.Ints(c.scope + "/flat", flat)),
               Shape{-1}, x.dtype};
  folded.shape.insert(folded.shape.end(), x.shape.begin() + 2, x.shape.end());
  std::vector<Value> inner;
  GRT_ASSIGN_OR_RETURN(const Json* inner_layer, Member(*c.config, "layer", c.name));
  GRT_RETURN_IF_ERROR(
      c.walker->CallLayer(*inner_layer, c.scope + "/", {folded}, nullptr, c.weights, &inner));
  const Value& y = inner[0];
  std::vector<std::string> dims = {batch, steps};
  Shape out_shape = {x.shape[0], x.shape[1]};
  for (int i = 1; i < y.rank(); ++i) {
    if (y.shape[i] < 0) return Unimplemented("TimeDistributed inner output of unknown size");
    dims.push_back(emit.Int(c.scope + StrCat("/out_dim", i), static_cast<int32_t>(y.shape[i])));
    out_shape.push_back(y.shape[i]);
  }
  out->push_back(Value{emit.Reshape(c.scope + "/Reshape_1", y.tensor,
                                    emit.Pack(c.scope + "/out_shape", dims, kInt32), y.dtype),
                       out_shape, y.dtype});
  return Status::OK();
}

Status NestedModel(LayerCall& c, std::vector<Value>* out) {
  // The nested model's group holds the weights of all its layers; they go to the layers by the
  // first component of their names.
  WeightMap weights = SplitNestedWeights(c.weights->TakeAll(), *c.config);
  Json model = {{"class_name", c.class_name}, {"config", *c.config}};
  return c.walker->BuildModel(model, c.scope + "/", &c.inputs, weights, out);
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
