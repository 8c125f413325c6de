// Reshaping layers: Flatten, Reshape, Permute, RepeatVector, ZeroPadding, Cropping, UpSampling
// (1-D to 3-D; channels_first ones between transposes, see ChannelsLastCall).
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>
#include <map>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

Status Flatten(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  // Keras flattens channels_first inputs in channels_last order.
  const Value x = ChannelsFirst(c) && c.inputs[0].rank() > 2
                      ? ToChannelsLast(emit, c.scope + "/to_channels_last", c.inputs[0])
                      : c.inputs[0];
  int64_t prod = 1;
  for (int i = 1; i < x.rank(); ++i) prod = (prod < 0 || x.shape[i] < 0) ? -1 : prod * x.shape[i];
  std::string shape;
  if (prod >= 0) {
    shape = emit.Ints(c.scope + "/shape", {-1, static_cast<int32_t>(prod)});
  } else {
    std::string batch =
        emit.Element(c.scope + "/batch", emit.ShapeOf(c.scope + "/Shape", x.tensor, x.dtype), 0);
    shape = emit.Pack(c.scope + "/shape", {batch, emit.Int(c.scope + "/rest", -1)}, kInt32);
  }
  std::string y = emit.Reshape(c.scope + "/Reshape", x.tensor, shape, x.dtype);
  out->push_back(Value{y, {x.shape.empty() ? -1 : x.shape[0], prod}, x.dtype});
  return Status::OK();
}

Status ReshapeLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
  // With the batch as -1 a second -1 is not allowed: fill it from the known total, or (an input
  // of unknown size) take the batch from the input's shape.
  bool dynamic = false;
  if (std::count(target.begin(), target.end(), -1) > 0) {
    for (size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] < 0) {
        if (shape[i] < 0) {
          dynamic = true;
        } else {
          dims[i] = static_cast<int32_t>(shape[i]);
        }
      }
    }
  }
  std::string target_shape;
  if (dynamic) {
    std::vector<std::string> parts = {
        emit.Element(c.scope + "/batch", emit.ShapeOf(c.scope + "/Shape", x.tensor, x.dtype), 0)};
    for (size_t i = 1; i < dims.size(); ++i) {
      parts.push_back(emit.Int(c.scope + StrCat("/dim", i), dims[i]));
    }
    target_shape = emit.Pack(c.scope + "/shape", parts, kInt32);
  } else {
    target_shape = emit.Ints(c.scope + "/shape", dims);
  }
  std::string y = emit.Reshape(c.scope + "/Reshape", x.tensor, target_shape, x.dtype);
  out->push_back(Value{y, shape, x.dtype});
  return Status::OK();
}

Status Permute(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
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
      Value{emit.Transpose(c.scope + "/transpose", x.tensor, perm, x.dtype), shape, x.dtype});
  return Status::OK();
}

Status RepeatVector(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  int32_t n = Get<int32_t>(*c.config, "n", 1);
  std::string y = emit.ExpandDims(c.scope + "/ExpandDims", x.tensor, 1);
  NodeDef* tile =
      emit.Add("Tile", c.scope + "/Tile", {y, emit.Ints(c.scope + "/multiples", {1, n, 1})});
  SetNodeAttr(tile, "T", kFloat);
  SetNodeAttr(tile, "Tmultiples", kInt32);
  out->push_back(Value{tile->name(), {x.shape[0], n, x.shape[1]}});
  return Status::OK();
}

namespace {

int SpatialDims(const std::string& cls) {
  if (cls.find("1D") != std::string::npos) return 1;
  return cls.find("3D") != std::string::npos ? 3 : 2;
}

Status ZeroPaddingChannelsLast(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  int n = SpatialDims(c.class_name);
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
      emit.Add("Pad", c.scope + "/Pad", {x.tensor, emit.Const(c.scope + "/paddings", paddings)});
  SetNodeAttr(pad, "T", kFloat);
  SetNodeAttr(pad, "Tpaddings", kInt32);
  out->push_back(Value{pad->name(), shape});
  return Status::OK();
}

Status CroppingChannelsLast(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  int n = SpatialDims(c.class_name);
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
      emit.Add("StridedSlice", c.scope + "/StridedSlice",
               {x.tensor, emit.Ints(c.scope + "/begin", begin), emit.Ints(c.scope + "/end", end),
                emit.Ints(c.scope + "/strides", strides)});
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

// `x` with each element of `axis` repeated `times` times, as Keras's repeat_elements.
// REQUIRES: every dimension of `x` but the batch known.
Value RepeatAxis(Emitter& emit, const std::string& name, const Value& x, int axis, int32_t times) {
  std::vector<int32_t> multiples(x.rank() + 1, 1);
  multiples[axis + 1] = times;
  std::string y = emit.ExpandDims(name + "/ExpandDims", x.tensor, axis + 1);
  NodeDef* tile = emit.Add("Tile", name + "/Tile", {y, emit.Ints(name + "/multiples", multiples)});
  SetNodeAttr(tile, "T", kFloat);
  SetNodeAttr(tile, "Tmultiples", kInt32);
  Shape shape = x.shape;
  shape[axis] *= times;
  std::vector<int32_t> dims(shape.begin(), shape.end());
  dims[0] = -1;
  return Value{emit.Reshape(name + "/Reshape", tile->name(), emit.Ints(name + "/shape", dims)),
               shape};
}

Status UpSamplingChannelsLast(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  const int n = SpatialDims(c.class_name);
  if (x.rank() != n + 2) return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  if (std::any_of(x.shape.begin() + 1, x.shape.end(), [](int64_t d) { return d < 0; })) {
    return Unimplemented(c.class_name, " of unknown size ", ShapeString(x.shape));
  }
  std::vector<int64_t> size = GetWindow(*c.config, "size", n, 2);
  // Sizes are int32 in the graph, and a hostile size must not ask for absurd memory.
  constexpr int64_t kMaxValues = int64_t{1} << 31;
  int64_t values = std::max<int64_t>(x.shape.back(), 1);
  for (int i = 0; i < n; ++i) {
    if (x.shape[1 + i] > kMaxValues / size[i] / values) {
      return InvalidArgument(c.class_name, " of ", ShapeString(x.shape), " by ", ShapeString(size),
                             " is too large");
    }
    values *= std::max<int64_t>(x.shape[1 + i] * size[i], 1);
  }
  if (n != 2) {
    // UpSampling1D and 3D repeat each step (voxel) along each axis.
    Value y = x;
    for (int i = 0; i < n; ++i) {
      y = RepeatAxis(emit, StrCat(c.scope, "/repeat", i), y, 1 + i, static_cast<int32_t>(size[i]));
    }
    out->push_back(y);
    return Status::OK();
  }
  std::string interpolation = Get<std::string>(*c.config, "interpolation", "nearest");
  int32_t h = static_cast<int32_t>(x.shape[1] * size[0]);
  int32_t w = static_cast<int32_t>(x.shape[2] * size[1]);
  // tf.image.resize's ops for Keras's methods; gaussian, lanczos3/5 and mitchellcubic are
  // ScaleAndTranslate, which graphrt does not have.
  static const auto* kOps =
      new std::map<std::string, std::string>{{"nearest", "ResizeNearestNeighbor"},
                                             {"bilinear", "ResizeBilinear"},
                                             {"bicubic", "ResizeBicubic"},
                                             {"area", "ResizeArea"}};
  auto op = kOps->find(interpolation);
  if (op == kOps->end()) {
    return Unimplemented("UpSampling2D interpolation '", interpolation, "'");
  }
  NodeDef* node = emit.Add(op->second, c.scope + "/" + op->second,
                           {x.tensor, emit.Ints(c.scope + "/size", {h, w})});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "align_corners", false);
  if (interpolation != "area") SetNodeAttr(node, "half_pixel_centers", true);
  out->push_back(Value{node->name(), {x.shape[0], h, w, x.shape[3]}});
  return Status::OK();
}

}  // namespace

Status ZeroPadding(LayerCall& c, std::vector<Value>* out) {
  return ChannelsLastCall(c, &ZeroPaddingChannelsLast, out);
}

Status Cropping(LayerCall& c, std::vector<Value>* out) {
  return ChannelsLastCall(c, &CroppingChannelsLast, out);
}

Status UpSampling(LayerCall& c, std::vector<Value>* out) {
  return ChannelsLastCall(c, &UpSamplingChannelsLast, out);
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
