// Pooling layers, local and global. 1-D layers run as 2-D ones over a height of 1.
#include "formats/keras/keras_builder_internal.h"

#include "runtime/core/attr_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

Status Pooling(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
  if (one_d) input = emit.ExpandDims(c.scope + "/ExpandDims", input, 1);
  NodeDef* node =
      emit.Add(max ? "MaxPool" : "AvgPool", c.scope + (max ? "/MaxPool" : "/AvgPool"), {input});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "ksize",
              std::vector<int64_t>{1, one_d ? 1 : pool[0], one_d ? pool[0] : pool[1], 1});
  SetNodeAttr(node, "strides",
              std::vector<int64_t>{1, one_d ? 1 : st[0], one_d ? st[0] : st[1], 1});
  SetNodeAttr(node, "padding", padding == "same" ? "SAME" : "VALID");
  SetNodeAttr(node, "data_format", "NHWC");
  if (max) SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
  std::string y = node->name();
  if (one_d) y = emit.Squeeze(c.scope + "/Squeeze", y, {1});
  Shape shape = x.shape;
  for (int i = 0; i < n; ++i) shape[1 + i] = ConvOut(x.shape[1 + i], pool[i], st[i], 1, padding);
  out->push_back(Value{y, shape});
  return Status::OK();
}

Status GlobalPooling(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
  if (!max && !x.mask.empty()) {
    // Keras: the mean over the unmasked steps, sum(x * mask) / sum(mask).
    std::string m = MaskAsFloat(emit, c.scope + "/mask", x.mask, 1);
    std::string sum = emit.Reduce(
        "Sum", c.scope + "/Sum", emit.Binary("Mul", c.scope + "/mul", x.tensor, m), axes, keepdims);
    std::string count = emit.Reduce("Sum", c.scope + "/count", m, axes, keepdims);
    out->push_back(Value{emit.Binary("RealDiv", c.scope + "/truediv", sum, count), shape});
    return Status::OK();
  }
  out->push_back(Value{emit.Reduce(max ? "Max" : "Mean", c.scope + (max ? "/Max" : "/Mean"),
                                   x.tensor, axes, keepdims),
                       shape});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
