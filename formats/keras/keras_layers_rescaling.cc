// Rescaling and Normalization: the preprocessing layers Keras applications put at their input.
#include <cmath>

#include "formats/keras/keras_builder_internal.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

namespace {

// A config value that is a number or a list of numbers, as a float tensor (rank 0 or 1).
Tensor Floats(const Json& v, const char* key) {
  if (v.is_number()) return Tensor::Scalar<float>(v.get<float>());
  if (!v.is_array() || v.empty()) throw ConfigError(StrCat(key, " is not a number or a list"));
  std::vector<float> values;
  for (const Json& e : v) values.push_back(e.get<float>());
  return Tensor::Vector<float>(values);
}

}  // namespace

Status Rescaling(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  // Keras: cast(inputs) * scale + offset, a list broadcasting over the last axis.
  Tensor scale = Floats(c.config->value("scale", Json(1.0)), "scale");
  Tensor offset = Floats(c.config->value("offset", Json(0.0)), "offset");
  for (const Tensor* t : {&scale, &offset}) {
    if (t->dims() == 1 && x.rank() > 0 && x.shape.back() >= 0 && t->NumElements() != 1 &&
        t->NumElements() != x.shape.back()) {
      return InvalidArgument("layer '", c.name, "': ", t->NumElements(), " scales or offsets for ",
                             x.shape.back(), " channels");
    }
  }
  std::string y = ToFloat(emit, c.scope, x);
  y = emit.Binary("Mul", c.scope + "/mul", y, emit.Const(c.scope + "/scale", scale));
  y = emit.Binary("AddV2", c.scope + "/add", y, emit.Const(c.scope + "/offset", offset));
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

Status Normalization(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  // The axes that keep their own statistics; the rest share them.
  std::vector<int> keep;
  auto axis_it = cfg.find("axis");
  Json axis = axis_it == cfg.end() ? Json(-1) : *axis_it;
  if (!axis.is_null()) {
    if (!axis.is_array()) axis = Json::array({axis});
    for (const Json& a : axis) {
      GRT_ASSIGN_OR_RETURN(int n, NormAxis(JsonInt(a), x.rank()));
      if (n == 0) return InvalidArgument("layer '", c.name, "': normalization over the batch axis");
      keep.push_back(n);
    }
  }
  Shape stat_shape, broadcast(x.rank(), 1);
  int64_t count = 1;
  for (int a : keep) {
    if (x.shape[a] < 0) {
      return InvalidArgument("layer '", c.name, "': axis ", a, " of input ", ShapeString(x.shape),
                             " has no size");
    }
    stat_shape.push_back(x.shape[a]);
    broadcast[a] = x.shape[a];
    count *= x.shape[a];
  }
  Tensor mean, variance;
  auto mean_it = cfg.find("mean");
  if (mean_it == cfg.end() || mean_it->is_null()) {
    // Adapted: the statistics are weights (mean, variance, count).
    GRT_ASSIGN_OR_RETURN(mean, c.weights->Next("mean", stat_shape));
    GRT_ASSIGN_OR_RETURN(variance, c.weights->Next("variance", stat_shape));
    GRT_ASSIGN_OR_RETURN(Tensor n, c.weights->Next("count", {}));
    (void)n;
    if (mean.dtype() != kFloat || variance.dtype() != kFloat) {
      return InvalidArgument("layer '", c.name, "': mean and variance are not float32");
    }
  } else {
    // Given in the config: numbers broadcast (NumPy's rules) to the statistics' shape.
    auto fill = [&](const Json& v, const char* key) -> StatusOr<Tensor> {
      Tensor t(kFloat, TensorShape(stat_shape));
      float* d = t.data<float>();
      std::vector<float> values;
      if (v.is_number()) {
        values.push_back(v.get<float>());
      } else if (v.is_array()) {
        for (const Json& e : v) values.push_back(e.get<float>());
      } else {
        return InvalidArgument("layer '", c.name, "': ", key, " is ", v.dump());
      }
      int64_t last = stat_shape.empty() ? 1 : stat_shape.back();
      if (values.size() != 1 && static_cast<int64_t>(values.size()) != last) {
        return InvalidArgument("layer '", c.name, "': ", key, " has ", values.size(),
                               " values for statistics of shape ", ShapeString(stat_shape));
      }
      for (int64_t i = 0; i < count; ++i) d[i] = values.size() == 1 ? values[0] : values[i % last];
      return t;
    };
    GRT_ASSIGN_OR_RETURN(mean, fill(*mean_it, "mean"));
    auto var_it = cfg.find("variance");
    if (var_it == cfg.end() || var_it->is_null()) {
      return InvalidArgument("layer '", c.name, "': a mean without a variance");
    }
    GRT_ASSIGN_OR_RETURN(variance, fill(*var_it, "variance"));
  }
  // Keras: (x - mean) / maximum(sqrt(variance), epsilon); inverted: mean + x * maximum(...).
  std::string p = c.scope;
  std::string m = emit.Weight(p + "/mean", mean.Reshaped(TensorShape(broadcast)));
  std::string v = emit.Weight(p + "/variance", variance.Reshaped(TensorShape(broadcast)));
  std::string sd = emit.Binary("Maximum", p + "/Maximum", emit.Unary("Sqrt", p + "/Sqrt", v),
                               emit.Float(p + "/epsilon", 1e-7f));
  std::string xf = ToFloat(emit, p, x);
  std::string y;
  if (Get<bool>(cfg, "invert", false)) {
    y = emit.Binary("AddV2", p + "/add", m, emit.Binary("Mul", p + "/mul", xf, sd));
  } else {
    y = emit.Binary("RealDiv", p + "/truediv", emit.Binary("Sub", p + "/sub", xf, m), sd);
  }
  out->push_back(Value{y, x.shape});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
