// Convolutions: Conv, DepthwiseConv, SeparableConv, Conv2DTranspose. 1-D layers run as 2-D
// ones over a height of 1.
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

int64_t ConvOut(int64_t in, int64_t k, int64_t stride, int64_t dilation, const std::string& pad) {
  if (in < 0) return -1;
  int64_t dk = (k - 1) * dilation + 1;
  if (pad == "same") return (in + stride - 1) / stride;
  return (in - dk) / stride + 1;
}

namespace {

// Conv2DTranspose as a plain convolution: the input spread out by the strides (zeros between
// pixels), padded by the dilated kernel's size - 1 on each side, convolved (with the dilation)
// with the kernel flipped in space and with its channel axes swapped, then cropped to Keras's
// output size.
StatusOr<std::string> ConvTranspose(LayerCall& c, const Value& x, int64_t* out_ch,
                                    Shape* out_shape) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  std::vector<int64_t> ks = GetWindow(cfg, "kernel_size", 2, 1);
  std::vector<int64_t> st = GetWindow(cfg, "strides", 2, 1);
  std::vector<int64_t> dl = GetWindow(cfg, "dilation_rate", 2, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  bool has_output_padding = cfg.contains("output_padding") && !cfg["output_padding"].is_null();
  std::vector<int64_t> output_padding = GetInts(cfg, "output_padding", 2, 0);
  int64_t h = x.shape[1], w = x.shape[2], in_ch = x.shape[3];
  if (h < 0 || w < 0 || in_ch < 0) return Unimplemented("Conv2DTranspose of unknown input size");
  int64_t filters = Get<int64_t>(cfg, "filters", -1);
  GRT_ASSIGN_OR_RETURN(Tensor k, c.weights->Next("kernel", {ks[0], ks[1], filters, in_ch}));
  filters = k.dim_size(2);
  // [kh, kw, out, in] -> flipped [kh, kw, in, out].
  Tensor flipped(kFloat, TensorShape({ks[0], ks[1], in_ch, filters}));
  for (int64_t i = 0; i < ks[0]; ++i) {
    for (int64_t j = 0; j < ks[1]; ++j) {
      for (int64_t o = 0; o < filters; ++o) {
        for (int64_t n = 0; n < in_ch; ++n) {
          flipped.data<float>()[((i * ks[1] + j) * in_ch + n) * filters + o] =
              k.data<float>()[(((ks[0] - 1 - i) * ks[1] + (ks[1] - 1 - j)) * filters + o) * in_ch +
                              n];
        }
      }
    }
  }
  const std::string p = c.scope + "/conv2d_transpose";
  std::string y = x.tensor;
  int64_t dh = (h - 1) * st[0] + 1, dw = (w - 1) * st[1] + 1;
  if (st[0] > 1 || st[1] > 1) {
    // [B,H,W,C] -> [B,H,1,W,1,C] -> zeros after -> [B,H*s0,W*s1,C] -> first (H-1)*s0+1 rows.
    y = emit.Reshape(
        p + "/spread", y,
        emit.Ints(p + "/spread_shape", {-1, static_cast<int32_t>(h), 1, static_cast<int32_t>(w), 1,
                                        static_cast<int32_t>(in_ch)}));
    Tensor pads(kInt32, TensorShape({6, 2}));
    std::fill(pads.data<int32_t>(), pads.data<int32_t>() + 12, 0);
    pads.data<int32_t>()[5] = static_cast<int32_t>(st[0] - 1);
    pads.data<int32_t>()[9] = static_cast<int32_t>(st[1] - 1);
    NodeDef* pad = emit.Add("Pad", p + "/zeros", {y, emit.Const(p + "/zeros/paddings", pads)});
    SetNodeAttr(pad, "T", kFloat);
    SetNodeAttr(pad, "Tpaddings", kInt32);
    y = emit.Reshape(p + "/spread_out", pad->name(),
                     emit.Ints(p + "/spread_out_shape",
                               {-1, static_cast<int32_t>(h * st[0]),
                                static_cast<int32_t>(w * st[1]), static_cast<int32_t>(in_ch)}));
    NodeDef* slice = emit.Add("Slice", p + "/spread_crop",
                              {y, emit.Ints(p + "/spread_crop/begin", {0, 0, 0, 0}),
                               emit.Ints(p + "/spread_crop/size", {-1, static_cast<int32_t>(dh),
                                                                   static_cast<int32_t>(dw), -1})});
    SetNodeAttr(slice, "T", kFloat);
    SetNodeAttr(slice, "Index", kInt32);
    y = slice->name();
  }
  // Output size and where it starts in the full (dilated kernel-1 padded) result.
  const int64_t dk[2] = {(ks[0] - 1) * dl[0] + 1, (ks[1] - 1) * dl[1] + 1};
  int64_t full[2] = {dh + dk[0] - 1, dw + dk[1] - 1};
  int64_t size[2], begin[2];
  for (int i = 0; i < 2; ++i) {
    int64_t in = i == 0 ? h : w;
    // Keras's deconv_output_length; TensorFlow then pads as the forward convolution from
    // `size` to `in` would (SAME: half the excess before).
    if (has_output_padding) {
      int64_t pad = padding == "same" ? dk[i] / 2 : 0;
      size[i] = (in - 1) * st[i] + dk[i] - 2 * pad + output_padding[i];
    } else {
      size[i] = padding == "same" ? in * st[i] : in * st[i] + std::max<int64_t>(dk[i] - st[i], 0);
    }
    begin[i] = padding == "same" ? std::max<int64_t>(full[i] - size[i], 0) / 2 : 0;
  }
  Tensor pads(kInt32, TensorShape({4, 2}));
  std::fill(pads.data<int32_t>(), pads.data<int32_t>() + 8, 0);
  for (int i = 0; i < 2; ++i) {
    int64_t extra = std::max<int64_t>(0, begin[i] + size[i] - full[i]);
    pads.data<int32_t>()[2 + 2 * i] = static_cast<int32_t>(dk[i] - 1);
    pads.data<int32_t>()[3 + 2 * i] = static_cast<int32_t>(dk[i] - 1 + extra);
  }
  NodeDef* pad = emit.Add("Pad", p + "/pad", {y, emit.Const(p + "/paddings", pads)});
  SetNodeAttr(pad, "T", kFloat);
  SetNodeAttr(pad, "Tpaddings", kInt32);
  NodeDef* conv = emit.Add("Conv2D", p, {pad->name(), emit.Weight(c.scope + "/kernel", flipped)});
  SetNodeAttr(conv, "T", kFloat);
  SetNodeAttr(conv, "strides", std::vector<int64_t>{1, 1, 1, 1});
  SetNodeAttr(conv, "dilations", std::vector<int64_t>{1, dl[0], dl[1], 1});
  SetNodeAttr(conv, "padding", "VALID");
  SetNodeAttr(conv, "data_format", "NHWC");
  SetNodeAttr(conv, "use_cudnn_on_gpu", true);
  SetNodeAttr(conv, "explicit_paddings", std::vector<int64_t>{});
  NodeDef* crop =
      emit.Add("Slice", p + "/crop",
               {conv->name(),
                emit.Ints(p + "/crop/begin",
                          {0, static_cast<int32_t>(begin[0]), static_cast<int32_t>(begin[1]), 0}),
                emit.Ints(p + "/crop/size",
                          {-1, static_cast<int32_t>(size[0]), static_cast<int32_t>(size[1]), -1})});
  SetNodeAttr(crop, "T", kFloat);
  SetNodeAttr(crop, "Index", kInt32);
  *out_ch = filters;
  *out_shape = {x.shape[0], size[0], size[1], filters};
  return crop->name();
}

}  // namespace

Status Conv(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  std::string cls = c.class_name;
  bool one_d = cls.find("1D") != std::string::npos;
  bool depthwise = cls == "DepthwiseConv2D";
  bool separable = cls.find("Separable") != std::string::npos;
  bool transpose = cls.find("Transpose") != std::string::npos;
  int n = one_d ? 1 : 2;
  if (x.rank() != n + 2) {
    return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  }
  std::vector<int64_t> ks = GetWindow(cfg, "kernel_size", n, 1);
  std::vector<int64_t> st = GetWindow(cfg, "strides", n, 1);
  std::vector<int64_t> dl = GetWindow(cfg, "dilation_rate", n, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  int64_t groups = Get<int64_t>(cfg, "groups", 1);
  int64_t in_ch = x.shape.back();
  if (groups < 1 || (groups > 1 && (in_ch <= 0 || in_ch % groups != 0))) {
    return InvalidArgument("groups ", groups, " for ", in_ch, " input channels");
  }
  std::string input = x.tensor;
  if (padding == "causal") {
    // Left padding of (k-1)*d, then a valid convolution.
    int32_t left = static_cast<int32_t>((ks[0] - 1) * dl[0]);
    Tensor paddings(kInt32, TensorShape({3, 2}));
    std::fill(paddings.data<int32_t>(), paddings.data<int32_t>() + 6, 0);
    paddings.data<int32_t>()[2] = left;
    NodeDef* pad = emit.Add("Pad", c.scope + "/causal_pad",
                            {input, emit.Const(c.scope + "/causal_paddings", paddings)});
    SetNodeAttr(pad, "T", kFloat);
    SetNodeAttr(pad, "Tpaddings", kInt32);
    input = pad->name();
    padding = "valid";
  }
  std::string tf_pad = padding == "same" ? "SAME" : "VALID";
  if (one_d) input = emit.ExpandDims(c.scope + "/ExpandDims", input, 1);
  std::vector<int64_t> kh_kw = one_d ? std::vector<int64_t>{1, ks[0]} : ks;
  std::vector<int64_t> strides = {1, one_d ? 1 : st[0], one_d ? st[0] : st[1], 1};
  std::vector<int64_t> dilations = {1, one_d ? 1 : dl[0], one_d ? dl[0] : dl[1], 1};
  auto conv_kernel = [&](const Tensor& k) {
    // A 1-D kernel [k, in, out] is a 2-D one [1, k, in, out].
    if (!one_d) return k;
    Shape s = TensorDims(k);
    s.insert(s.begin(), 1);
    return k.Reshaped(TensorShape(s));
  };
  int64_t out_ch = -1;
  std::string y;
  auto conv2d = [&](const std::string& name, const std::string& in, const std::string& filter,
                    const std::vector<int64_t>& s, const std::vector<int64_t>& d,
                    const std::string& pad) {
    NodeDef* node = emit.Add("Conv2D", name, {in, filter});
    SetNodeAttr(node, "T", kFloat);
    SetNodeAttr(node, "strides", s);
    SetNodeAttr(node, "dilations", d);
    SetNodeAttr(node, "padding", pad);
    SetNodeAttr(node, "data_format", "NHWC");
    SetNodeAttr(node, "use_cudnn_on_gpu", true);
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
    return node->name();
  };
  auto depthwise_native = [&](const std::string& name, const std::string& in,
                              const std::string& filter, const std::vector<int64_t>& d,
                              const std::string& pad) {
    NodeDef* node = emit.Add("DepthwiseConv2dNative", name, {in, filter});
    SetNodeAttr(node, "T", kFloat);
    SetNodeAttr(node, "strides", strides);
    SetNodeAttr(node, "dilations", d);
    SetNodeAttr(node, "padding", pad);
    SetNodeAttr(node, "data_format", "NHWC");
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
    return node->name();
  };
  const int64_t hw[2] = {one_d ? 1 : x.shape[1], one_d ? x.shape[1] : x.shape[2]};
  auto depthwise_conv = [&](const std::string& name, const std::string& in,
                            const std::string& filter) {
    bool dilated = dilations[1] > 1 || dilations[2] > 1;
    bool strided = strides[1] > 1 || strides[2] > 1;
    if (!dilated || strided || hw[0] < 0 || hw[1] < 0) {
      return depthwise_native(name, in, filter, dilations, tf_pad);
    }
    // TensorFlow's CPU kernel has no dilations; tf.nn.depthwise_conv2d runs them as
    // with_space_to_batch does: padded to a multiple of the rate, SpaceToBatchND, an undilated
    // VALID convolution, BatchToSpaceND cropping the extra padding.
    std::vector<int32_t> block, pads, crops;
    for (int i = 0; i < 2; ++i) {
      int64_t rate = dilations[1 + i], k = kh_kw[i];
      int64_t extra = tf_pad == "SAME" ? (k - 1) * rate : 0;
      int64_t start = extra / 2, end = extra - extra / 2;
      int64_t full = hw[i] + start + end;
      int64_t end_extra = (rate - full % rate) % rate;
      block.push_back(static_cast<int32_t>(rate));
      pads.insert(pads.end(), {static_cast<int32_t>(start), static_cast<int32_t>(end + end_extra)});
      crops.insert(crops.end(), {0, static_cast<int32_t>(end_extra)});
    }
    auto pairs = [&](const std::string& n, const std::vector<int32_t>& v) {
      Tensor t(kInt32, TensorShape({2, 2}));
      std::copy(v.begin(), v.end(), t.data<int32_t>());
      return emit.Const(n, t);
    };
    NodeDef* s2b =
        emit.Add("SpaceToBatchND", name + "/SpaceToBatchND",
                 {in, emit.Ints(name + "/block_shape", block), pairs(name + "/paddings", pads)});
    SetNodeAttr(s2b, "T", kFloat);
    SetNodeAttr(s2b, "Tblock_shape", kInt32);
    SetNodeAttr(s2b, "Tpaddings", kInt32);
    std::string y =
        depthwise_native(name, s2b->name(), filter, std::vector<int64_t>{1, 1, 1, 1}, "VALID");
    NodeDef* b2s =
        emit.Add("BatchToSpaceND", name + "/BatchToSpaceND",
                 {y, emit.Ints(name + "/block_shape_1", block), pairs(name + "/crops", crops)});
    SetNodeAttr(b2s, "T", kFloat);
    SetNodeAttr(b2s, "Tblock_shape", kInt32);
    SetNodeAttr(b2s, "Tcrops", kInt32);
    return b2s->name();
  };
  Shape out_shape = x.shape;
  for (int i = 0; i < n; ++i) {
    out_shape[1 + i] = ConvOut(x.shape[1 + i], ks[i], st[i], dl[i], padding);
  }
  if (transpose) {
    GRT_ASSIGN_OR_RETURN(y, ConvTranspose(c, x, &out_ch, &out_shape));
  } else if (depthwise) {
    int64_t mult = Get<int64_t>(cfg, "depth_multiplier", 1);
    GRT_ASSIGN_OR_RETURN(Tensor k,
                         c.weights->Next("depthwise_kernel", {ks[0], ks[1], in_ch, mult}));
    y = depthwise_conv(c.scope + "/depthwise", input,
                       emit.Weight(c.scope + "/depthwise_kernel", k));
    out_ch = k.dim_size(2) * k.dim_size(3);
  } else if (separable) {
    int64_t mult = Get<int64_t>(cfg, "depth_multiplier", 1);
    int64_t filters = Get<int64_t>(cfg, "filters", -1);
    Shape dshape = one_d ? Shape{ks[0], in_ch, mult} : Shape{ks[0], ks[1], in_ch, mult};
    GRT_ASSIGN_OR_RETURN(Tensor dk, c.weights->Next("depthwise_kernel", dshape));
    Shape pshape = one_d ? Shape{1, in_ch * mult, filters} : Shape{1, 1, in_ch * mult, filters};
    GRT_ASSIGN_OR_RETURN(Tensor pk, c.weights->Next("pointwise_kernel", pshape));
    y = depthwise_conv(c.scope + "/separable_conv2d/depthwise", input,
                       emit.Weight(c.scope + "/depthwise_kernel", conv_kernel(dk)));
    y = conv2d(c.scope + "/separable_conv2d", y,
               emit.Weight(c.scope + "/pointwise_kernel", conv_kernel(pk)), {1, 1, 1, 1},
               {1, 1, 1, 1}, "VALID");
    out_ch = pk.dim_size(pk.dims() - 1);
  } else {
    int64_t filters = Get<int64_t>(cfg, "filters", Get<int64_t>(cfg, "nb_filter", -1));
    int64_t group_in = groups > 1 ? in_ch / groups : in_ch;
    Shape kshape = one_d ? Shape{ks[0], group_in, filters} : Shape{ks[0], ks[1], group_in, filters};
    GRT_ASSIGN_OR_RETURN(Tensor k, c.weights->Next("kernel", kshape));
    out_ch = k.dim_size(k.dims() - 1);
    std::string kernel = emit.Weight(c.scope + "/kernel", conv_kernel(k));
    if (groups == 1) {
      y = conv2d(c.scope + "/Conv2D", input, kernel, strides, dilations, tf_pad);
    } else {
      // TensorFlow's CPU Conv2D has no groups (Keras compiles them with XLA): one convolution
      // per group, on its slice of the input channels and of the filters.
      if (out_ch % groups != 0) {
        return InvalidArgument("groups ", groups, " for ", out_ch, " filters");
      }
      auto split = [&](const std::string& name, const std::string& t) {
        NodeDef* node = emit.Add("Split", name, {emit.Int(name + "/axis", 3), t});
        SetNodeAttr(node, "T", kFloat);
        SetNodeAttr(node, "num_split", groups);
        return node->name();
      };
      std::string xs = split(c.scope + "/split", input);
      std::string ws = split(c.scope + "/split_kernel", kernel);
      std::vector<std::string> parts;
      for (int64_t i = 0; i < groups; ++i) {
        parts.push_back(conv2d(c.scope + StrCat("/Conv2D_", i), StrCat(xs, ":", i),
                               StrCat(ws, ":", i), strides, dilations, tf_pad));
      }
      y = emit.Concat(c.scope + "/concat", parts, 3);
    }
  }
  if (Get<bool>(cfg, "use_bias", true)) {
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", {out_ch}));
    y = emit.BiasAdd(c.scope + "/BiasAdd", y, emit.Weight(c.scope + "/bias", bias));
  }
  if (one_d) y = emit.Squeeze(c.scope + "/Squeeze", y, {1});
  out_shape.back() = out_ch;
  GRT_ASSIGN_OR_RETURN(
      y, Activate(emit, c.scope, ActivationName(cfg, "activation", "linear"), y, c.name));
  out->push_back(Value{y, out_shape});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
