// Pooling layers, local and global, 1-D to 3-D. 1-D layers run as 2-D ones over a height of 1.
#include "formats/keras/keras_builder_internal.h"

#include "runtime/core/attr_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

Status PoolingChannelsLast(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  bool one_d = c.class_name.find("1D") != std::string::npos;
  bool three_d = c.class_name.find("3D") != std::string::npos;
  bool max = c.class_name.find("Max") != std::string::npos;
  int n = one_d ? 1 : (three_d ? 3 : 2);
  if (x.rank() != n + 2) return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  std::vector<int64_t> pool = GetWindow(cfg, "pool_size", n, 2);
  auto strides = cfg.find("strides");  // None: the pool size
  std::vector<int64_t> st =
      strides == cfg.end() || strides->is_null() ? pool : GetWindow(cfg, "strides", n, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  if (padding != "valid" && padding != "same") {
    return InvalidArgument("unsupported padding '", padding, "' (", c.class_name,
                           " takes valid or same)");
  }
  std::string input = x.tensor;
  // 1-D pools as 2-D over a height of 1.
  std::vector<int64_t> pool_m = pool, st_m = st;
  if (one_d) {
    input = emit.ExpandDims(c.scope + "/ExpandDims", input, 1);
    pool_m.insert(pool_m.begin(), 1);
    st_m.insert(st_m.begin(), 1);
  }
  std::string op = std::string(max ? "MaxPool" : "AvgPool") + (three_d ? "3D" : "");
  NodeDef* node = emit.Add(op, c.scope + "/" + op, {input});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "ksize", WindowAttr(pool_m));
  SetNodeAttr(node, "strides", WindowAttr(st_m));
  SetNodeAttr(node, "padding", padding == "same" ? "SAME" : "VALID");
  SetNodeAttr(node, "data_format", three_d ? "NDHWC" : "NHWC");
  if (max && !three_d) SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
  std::string y = node->name();
  if (one_d) y = emit.Squeeze(c.scope + "/Squeeze", y, {1});
  Shape shape = x.shape;
  for (int i = 0; i < n; ++i) {
    if (padding == "valid" && x.shape[1 + i] >= 0 && x.shape[1 + i] < pool[i]) {
      return InvalidArgument("input ", ShapeString(x.shape), " is smaller than pool_size ",
                             pool[i]);
    }
    shape[1 + i] = ConvOut(x.shape[1 + i], pool[i], st[i], 1, padding);
  }
  out->push_back(Value{y, shape});
  return Status::OK();
}

}  // namespace

Status Pooling(LayerCall& c, std::vector<Value>* out) {
  return ChannelsLastCall(c, &PoolingChannelsLast, out);
}

// channels_first needs no transposes: the reduction is over the same axes either way.
Status GlobalPooling(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  bool max = c.class_name.find("Max") != std::string::npos;
  bool keepdims = Get<bool>(*c.config, "keepdims", false);
  bool first = ChannelsFirst(c);
  int channel = first ? 1 : x.rank() - 1;
  std::vector<int32_t> axes;
  Shape shape = {x.shape[0]};
  for (int i = 1; i < x.rank(); ++i) {
    if (i == channel) {
      shape.push_back(x.shape[i]);
    } else {
      axes.push_back(i);
      if (keepdims) shape.push_back(1);
    }
  }
  if (!max && !x.mask.empty()) {
    // Keras: the mean over the unmasked steps, sum(x * mask) / sum(mask), the mask [B, T]
    // broadcast over the channels.
    std::string m = first ? emit.ExpandDims(c.scope + "/mask/channels",
                                            MaskAsFloat(emit, c.scope + "/mask", x.mask, 0), 1)
                          : MaskAsFloat(emit, c.scope + "/mask", x.mask, 1);
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
