// Keras image preprocessing layers at inference (tf-keras 2.15 semantics): Resizing, CenterCrop
// and RandomCrop (which at inference smart-resizes, as tf-keras does). The random augmentation
// layers are the identity at inference and map to IdentityLayer in the table.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/keras/keras_builder_internal.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

// tf.image.resize(method=...) of TensorFlow 2 without antialias: the kernels graphrt has.
StatusOr<std::string> Resize(LayerCall& c, const std::string& x, const std::string& method,
                             int64_t h, int64_t w) {
  Emitter& emit = *c.emit;
  std::string op;
  if (method == "bilinear") {
    op = "ResizeBilinear";
  } else if (method == "nearest") {
    op = "ResizeNearestNeighbor";
  } else if (method == "bicubic") {
    op = "ResizeBicubic";
  } else if (method == "area") {
    op = "ResizeArea";
  } else if (method != "lanczos3" && method != "lanczos5" && method != "gaussian" &&
             method != "mitchellcubic") {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): unknown interpolation '",
                           method, "'");
  } else {
    // Keras's other methods are ScaleAndTranslate, which graphrt lacks.
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): interpolation '", method,
                         "' (graphrt resizes with bilinear, nearest, bicubic and area)");
  }
  if (h < 1 || w < 1 || h > (1 << 20) || w > (1 << 20)) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): size ", h, "x", w,
                           " is outside [1, 2^20]");
  }
  NodeDef* n = emit.Add(
      op, c.scope + "/" + op,
      {x, emit.Ints(c.scope + "/size", {static_cast<int32_t>(h), static_cast<int32_t>(w)})});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "align_corners", false);
  if (op != "ResizeArea") SetNodeAttr(n, "half_pixel_centers", true);
  return n->name();
}

std::string SliceImage(Emitter& emit, const std::string& name, const std::string& x, int64_t top,
                       int64_t left, int64_t h, int64_t w) {
  NodeDef* n = emit.Add(
      "Slice", name,
      {x, emit.Ints(name + "/begin", {0, static_cast<int32_t>(top), static_cast<int32_t>(left), 0}),
       emit.Ints(name + "/size", {-1, static_cast<int32_t>(h), static_cast<int32_t>(w), -1})});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "Index", kInt32);
  return n->name();
}

// Keras's image_utils.smart_resize: the largest centred window of the target's aspect ratio,
// then a resize. The window arithmetic is float32 as Keras's.
StatusOr<std::string> SmartResize(LayerCall& c, const std::string& x, int64_t in_h, int64_t in_w,
                                  int64_t h, int64_t w, const std::string& method) {
  if (h < 1 || w < 1) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): size ", h, "x", w);
  }
  int64_t crop_h = static_cast<int32_t>(static_cast<float>(in_w * h) / static_cast<float>(w));
  int64_t crop_w = static_cast<int32_t>(static_cast<float>(in_h * w) / static_cast<float>(h));
  crop_h = std::min(in_h, crop_h);
  crop_w = std::min(in_w, crop_w);
  int64_t top = static_cast<int32_t>(static_cast<float>(in_h - crop_h) / 2);
  int64_t left = static_cast<int32_t>(static_cast<float>(in_w - crop_w) / 2);
  std::string y = SliceImage(*c.emit, c.scope + "/crop", x, top, left, crop_h, crop_w);
  return Resize(c, y, method, h, w);
}

// [batch, height, width, channels] with known height and width, as float.
StatusOr<Value> ImageInput(LayerCall& c) {
  const Value& x = c.inputs[0];
  if (x.rank() != 4 || x.shape[1] < 0 || x.shape[2] < 0) {
    return Unimplemented("layer '", c.name, "' (", c.class_name,
                         "): an image input of known height and width, got ", ShapeString(x.shape));
  }
  // Keras 3 options tf-keras lacks.
  if (Get<std::string>(*c.config, "data_format", "channels_last") != "channels_last") {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): data_format '",
                         Get<std::string>(*c.config, "data_format", ""), "'");
  }
  if (Get<bool>(*c.config, "pad_to_aspect_ratio", false)) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): pad_to_aspect_ratio");
  }
  return Value{ToFloat(*c.emit, c.scope, x), x.shape, kFloat};
}

StatusOr<std::pair<int64_t, int64_t>> TargetSize(LayerCall& c) {
  int64_t h = Get<int64_t>(*c.config, "height", -1);
  int64_t w = Get<int64_t>(*c.config, "width", -1);
  if (h < 1 || w < 1 || h > (1 << 20) || w > (1 << 20)) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): height ", h, " and width ",
                           w, " must be in [1, 2^20]");
  }
  return std::make_pair(h, w);
}

}  // namespace

Status ResizingLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, ImageInput(c));
  GRT_ASSIGN_OR_RETURN(auto size, TargetSize(c));
  const std::string method = Get<std::string>(*c.config, "interpolation", "bilinear");
  std::string y;
  if (Get<bool>(*c.config, "crop_to_aspect_ratio", false)) {
    GRT_ASSIGN_OR_RETURN(
        y, SmartResize(c, x.tensor, x.shape[1], x.shape[2], size.first, size.second, method));
  } else {
    GRT_ASSIGN_OR_RETURN(y, Resize(c, x.tensor, method, size.first, size.second));
  }
  out->push_back(Value{y, {x.shape[0], size.first, size.second, x.shape[3]}});
  return Status::OK();
}

// CenterCrop crops when the image is at least the target size, else smart-resizes (bilinear);
// RandomCrop at inference always smart-resizes.
Status CropLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(Value x, ImageInput(c));
  GRT_ASSIGN_OR_RETURN(auto size, TargetSize(c));
  const auto [h, w] = size;
  const int64_t dh = x.shape[1] - h, dw = x.shape[2] - w;
  std::string y;
  if (c.class_name == "CenterCrop" && dh >= 0 && dw >= 0) {
    y = SliceImage(*c.emit, c.scope + "/center", x.tensor, dh / 2, dw / 2, h, w);
  } else {
    GRT_ASSIGN_OR_RETURN(y, SmartResize(c, x.tensor, x.shape[1], x.shape[2], h, w, "bilinear"));
  }
  out->push_back(Value{y, {x.shape[0], h, w, x.shape[3]}});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
