// Convolutions: Conv1D/2D/3D, DepthwiseConv1D/2D, SeparableConv1D/2D and the transposed ones
// (Conv1D/2D/3DTranspose). 1-D layers run as 2-D ones over a height of 1. channels_first layers
// run as channels_last ones between transposes (ChannelsLastCall): TensorFlow's CPU kernels, and
// some of graphrt's, take channels-last only.
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>

#include "runtime/core/attr_util.h"

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

std::vector<int64_t> WindowAttr(const std::vector<int64_t>& v) {
  std::vector<int64_t> r = {1};
  r.insert(r.end(), v.begin(), v.end());
  r.push_back(1);
  return r;
}

Status CheckDataFormat(const LayerCall& c) {
  auto it = c.config->find("data_format");
  if (it == c.config->end() || it->is_null()) return Status::OK();
  std::string format = it->is_string() ? it->get<std::string>() : it->dump();
  if (format == "channels_last") return Status::OK();
  if (format != "channels_first") {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): unknown data_format '",
                           format, "' (Keras has channels_last and channels_first)");
  }
  // The builders that honour channels_first (SpatialDropout's is IdentityLayer; ConvLSTM layers
  // transpose themselves, keras_rnn.cc); others refuse it here.
  auto builder = LayerBuilders().find(c.class_name);
  LayerFn fn = builder == LayerBuilders().end() ? nullptr : builder->second;
  bool honoured = fn == &Conv || fn == &Pooling || fn == &GlobalPooling || fn == &ZeroPadding ||
                  fn == &Cropping || fn == &UpSampling || fn == &Flatten || fn == &IdentityLayer ||
                  c.class_name.rfind("ConvLSTM", 0) == 0;
  if (!honoured) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): data_format ", format,
                         " (graphrt runs channels_last only for this layer)");
  }
  return Status::OK();
}

bool ChannelsFirst(const LayerCall& c) {
  return Get<std::string>(*c.config, "data_format", "channels_last") == "channels_first";
}

Value ToChannelsLast(Emitter& emit, const std::string& name, const Value& x) {
  std::vector<int32_t> perm = {0};
  Shape shape = {x.shape[0]};
  for (int i = 2; i < x.rank(); ++i) {
    perm.push_back(i);
    shape.push_back(x.shape[i]);
  }
  perm.push_back(1);
  shape.push_back(x.shape[1]);
  return Value{emit.Transpose(name, x.tensor, perm, x.dtype), shape, x.dtype};
}

Status ChannelsLastCall(LayerCall& c, LayerFn fn, std::vector<Value>* out) {
  if (!ChannelsFirst(c) || c.inputs[0].rank() < 3) return fn(c, out);
  LayerCall inner = c;
  inner.inputs[0] = ToChannelsLast(*c.emit, c.scope + "/to_channels_last", c.inputs[0]);
  std::vector<Value> outs;
  GRT_RETURN_IF_ERROR(fn(inner, &outs));
  for (const Value& y : outs) {
    std::vector<int32_t> perm = {0, y.rank() - 1};
    Shape shape = {y.shape[0], y.shape.back()};
    for (int i = 1; i + 1 < y.rank(); ++i) {
      perm.push_back(i);
      shape.push_back(y.shape[i]);
    }
    out->push_back(Value{c.emit->Transpose(c.scope + "/to_channels_first", y.tensor, perm, y.dtype),
                         shape, y.dtype});
  }
  return Status::OK();
}

namespace {

int SpatialRank(const std::string& cls) {
  if (cls.find("1D") != std::string::npos) return 1;
  if (cls.find("3D") != std::string::npos) return 3;
  return 2;
}

// Conv2D (2 spatial dimensions) or Conv3D (3), channels-last.
std::string ConvNode(Emitter& emit, const std::string& name, const std::string& x,
                     const std::string& filter, const std::vector<int64_t>& strides,
                     const std::vector<int64_t>& dilations, const std::string& pad) {
  bool three = strides.size() == 3;
  NodeDef* node = emit.Add(three ? "Conv3D" : "Conv2D", name, {x, filter});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "strides", WindowAttr(strides));
  SetNodeAttr(node, "dilations", WindowAttr(dilations));
  SetNodeAttr(node, "padding", pad);
  SetNodeAttr(node, "data_format", three ? "NDHWC" : "NHWC");
  if (!three) {
    SetNodeAttr(node, "use_cudnn_on_gpu", true);
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
  }
  return node->name();
}

// A kernel [k..., rest...] spread out to [(k-1)*d+1 ..., rest...] with zeros between its taps.
// TensorFlow's CPU kernels take no dilations for Conv3D, DepthwiseConv2dNative and the input
// gradients; the spread kernel computes the same sums.
StatusOr<Tensor> SpreadTaps(const Tensor& k, const std::vector<int64_t>& ks,
                            const std::vector<int64_t>& dl) {
  // A hostile dilation_rate must not ask for more memory than a real model's kernel takes.
  constexpr int64_t kMaxElements = int64_t{1} << 26;
  const int m = static_cast<int>(ks.size());
  Shape shape = TensorDims(k);
  int64_t taps = 1, inner = 1;
  for (size_t i = m; i < shape.size(); ++i) inner *= shape[i];
  int64_t elements = std::max<int64_t>(inner, 1);
  for (int i = 0; i < m; ++i) {
    taps *= ks[i];
    shape[i] = (ks[i] - 1) * dl[i] + 1;
    if (shape[i] > kMaxElements / elements) {
      return InvalidArgument("kernel_size ", ks[i], " with dilation_rate ", dl[i],
                             " makes a dilated kernel of more than ", kMaxElements, " values");
    }
    elements *= shape[i];
  }
  Tensor r(kFloat, TensorShape(shape));
  std::fill(r.data<float>(), r.data<float>() + r.NumElements(), 0.0f);
  for (int64_t tap = 0; tap < taps; ++tap) {
    // The tap's position, last dimension fastest, and where it goes.
    int64_t rest = tap, target = 0, scale = 1;
    for (int i = m - 1; i >= 0; --i) {
      target += rest % ks[i] * dl[i] * scale;
      rest /= ks[i];
      scale *= shape[i];
    }
    std::copy(k.data<float>() + tap * inner, k.data<float>() + (tap + 1) * inner,
              r.data<float>() + target * inner);
  }
  return r;
}

bool Dilated(const std::vector<int64_t>& dl) {
  return std::any_of(dl.begin(), dl.end(), [](int64_t d) { return d > 1; });
}

// A transposed convolution over `m` spatial dimensions (kernel [k..., filters, in]) as Keras runs
// it: the input gradient of the forward convolution (Conv2DBackpropInput, Conv3DBackpropInputV2)
// for an output of Keras's deconv_output_length, here in*stride + a constant per dimension, so
// that inputs of unknown size work too. Dilations are spread into the kernel (SpreadTaps).
StatusOr<std::string> ConvTranspose(LayerCall& c, const std::string& x, const Shape& xs,
                                    const Tensor& kernel, const std::vector<int64_t>& ks,
                                    const std::vector<int64_t>& st, const std::vector<int64_t>& dl,
                                    const std::vector<int64_t>& output_padding,
                                    bool has_output_padding, const std::string& padding,
                                    Shape* out_shape) {
  Emitter& emit = *c.emit;
  const int m = static_cast<int>(ks.size());
  const int64_t filters = kernel.dim_size(m);
  const std::string p = c.scope + "/conv_transpose";
  // Sizes are int32 in the graph; a hostile shape or stride must not overflow them.
  constexpr int64_t kMaxSize = int64_t{1} << 30;
  std::vector<int32_t> scale = {1}, offset = {0};
  *out_shape = {xs[0]};
  int64_t volume = std::max<int64_t>(filters, 1);
  for (int i = 0; i < m; ++i) {
    int64_t keff = (ks[i] - 1) * dl[i] + 1, b;
    if (has_output_padding && (output_padding[i] < 0 || output_padding[i] >= st[i])) {
      return InvalidArgument("output_padding ", output_padding[i], " is not below the stride ",
                             st[i]);
    }
    if (has_output_padding) {
      int64_t pad = padding == "same" ? keff / 2 : 0;
      b = keff - st[i] - 2 * pad + output_padding[i];  // (in - 1) * s + keff - 2 pad + op
    } else {
      b = padding == "same" ? 0 : std::max<int64_t>(keff - st[i], 0);
    }
    int64_t in = xs[1 + i];
    if (keff > kMaxSize || (in >= 0 && in > (kMaxSize - b) / st[i])) {
      return InvalidArgument("transposed convolution of size ", in, " by stride ", st[i],
                             " and kernel extent ", keff, " is too large");
    }
    int64_t size = in < 0 ? -1 : in * st[i] + b;
    if (in >= 0 && size <= 0) return InvalidArgument("transposed convolution to an empty output");
    if (size > 0 && size > kMaxSize / volume) {
      return InvalidArgument("transposed convolution output too large (more than ", kMaxSize,
                             " values)");
    }
    if (size > 0) volume *= size;
    out_shape->push_back(size);
    scale.push_back(static_cast<int32_t>(st[i]));
    offset.push_back(static_cast<int32_t>(b));
  }
  out_shape->push_back(filters);
  scale.push_back(0);
  offset.push_back(static_cast<int32_t>(filters));
  std::string sizes = emit.Binary("Add", p + "/output_size",
                                  emit.Binary("Mul", p + "/scaled", emit.ShapeOf(p + "/Shape", x),
                                              emit.Ints(p + "/scale", scale), kInt32),
                                  emit.Ints(p + "/offset", offset), kInt32);
  Tensor k = kernel;
  if (Dilated(dl)) {
    GRT_ASSIGN_OR_RETURN(k, SpreadTaps(kernel, ks, dl));
  }
  const bool three = m == 3;
  NodeDef* node = emit.Add(three ? "Conv3DBackpropInputV2" : "Conv2DBackpropInput", p,
                           {sizes, emit.Weight(c.scope + "/kernel", k), x});
  SetNodeAttr(node, "T", kFloat);
  SetNodeAttr(node, "strides", WindowAttr(st));
  SetNodeAttr(node, "dilations", std::vector<int64_t>(m + 2, 1));
  SetNodeAttr(node, "padding", padding == "same" ? "SAME" : "VALID");
  SetNodeAttr(node, "data_format", three ? "NDHWC" : "NHWC");
  if (three) {
    SetNodeAttr(node, "Tshape", kInt32);
  } else {
    SetNodeAttr(node, "use_cudnn_on_gpu", true);
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
  }
  return node->name();
}

Status ConvChannelsLast(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  const std::string& cls = c.class_name;
  const int n = SpatialRank(cls);
  const bool one_d = n == 1;
  const bool depthwise = cls.rfind("DepthwiseConv", 0) == 0;
  const bool separable = cls.find("Separable") != std::string::npos;
  const bool transpose = cls.find("Transpose") != std::string::npos;
  if (x.rank() != n + 2) {
    return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  }
  std::vector<int64_t> ks = GetWindow(cfg, "kernel_size", n, 1);
  std::vector<int64_t> st = GetWindow(cfg, "strides", n, 1);
  std::vector<int64_t> dl = GetWindow(cfg, "dilation_rate", n, 1);
  // Keras drops Conv3DTranspose's dilation_rate from its config and never applies it.
  if (cls == "Conv3DTranspose" || cls == "Convolution3DTranspose") dl.assign(3, 1);
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  bool causal_ok = one_d && !transpose && !depthwise;
  if (padding != "valid" && padding != "same" && !(padding == "causal" && causal_ok)) {
    return InvalidArgument("unsupported padding '", padding, "' (", cls, " takes ",
                           causal_ok ? "valid, same or causal)" : "valid or same)");
  }
  const int64_t groups = Get<int64_t>(cfg, "groups", 1);
  if (groups < 1 || (groups > 1 && (transpose || depthwise || separable))) {
    return InvalidArgument("groups ", groups, " for ", cls);
  }
  int64_t in_ch = x.shape.back();
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
  // From here on 1-D is 2-D: a height of 1, kernels [1, k, ...].
  Shape xs = x.shape;
  std::vector<int64_t> ks_m = ks, st_m = st, dl_m = dl;
  if (one_d) {
    input = emit.ExpandDims(c.scope + "/ExpandDims", input, 1);
    xs.insert(xs.begin() + 1, 1);
    ks_m.insert(ks_m.begin(), 1);
    st_m.insert(st_m.begin(), 1);
    dl_m.insert(dl_m.begin(), 1);
  }
  auto conv_kernel = [&](const Tensor& k) {
    if (!one_d) return k;
    Shape s = TensorDims(k);
    s.insert(s.begin(), 1);
    return k.Reshaped(TensorShape(s));
  };
  // Depthwise kernels with dilations are spread out (SpreadTaps); Keras's 1-D depthwise
  // convolutions stride the height of 1 as the width (TensorFlow wants them equal).
  auto depthwise_kernel = [&](const Tensor& k) -> StatusOr<Tensor> {
    Tensor k2 = conv_kernel(k);
    if (!Dilated(dl_m)) return k2;
    return SpreadTaps(k2, ks_m, dl_m);
  };
  std::vector<int64_t> depthwise_strides = {1, one_d ? st[0] : st_m[0], st_m[1], 1};
  auto depthwise_conv = [&](const std::string& name, const std::string& in,
                            const std::string& filter) {
    NodeDef* node = emit.Add("DepthwiseConv2dNative", name, {in, filter});
    SetNodeAttr(node, "T", kFloat);
    SetNodeAttr(node, "strides", depthwise_strides);
    SetNodeAttr(node, "dilations", std::vector<int64_t>{1, 1, 1, 1});
    SetNodeAttr(node, "padding", tf_pad);
    SetNodeAttr(node, "data_format", "NHWC");
    SetNodeAttr(node, "explicit_paddings", std::vector<int64_t>{});
    return node->name();
  };
  auto window = [&](std::initializer_list<int64_t> tail) {
    Shape s(ks.begin(), ks.end());
    s.insert(s.end(), tail);
    return s;
  };
  int64_t out_ch = -1;
  std::string y;
  Shape out_shape = xs;
  for (size_t i = 0; i < ks_m.size() && !transpose; ++i) {
    if (padding == "valid" && xs[1 + i] >= 0 && xs[1 + i] < (ks_m[i] - 1) * dl_m[i] + 1) {
      return InvalidArgument("input ", ShapeString(x.shape), " is smaller than kernel_size ",
                             ks_m[i], " with dilation_rate ", dl_m[i]);
    }
    out_shape[1 + i] = ConvOut(xs[1 + i], ks_m[i], st_m[i], dl_m[i], padding);
  }
  if (transpose) {
    int64_t filters = Get<int64_t>(cfg, "filters", -1);
    GRT_ASSIGN_OR_RETURN(Tensor k, c.weights->Next("kernel", window({filters, in_ch})));
    out_ch = k.dim_size(n);
    bool has_output_padding = cfg.contains("output_padding") && !cfg["output_padding"].is_null();
    std::vector<int64_t> op = GetInts(cfg, "output_padding", n, 0);
    if (one_d) op.insert(op.begin(), 0);
    GRT_ASSIGN_OR_RETURN(y, ConvTranspose(c, input, xs, conv_kernel(k), ks_m, st_m, dl_m, op,
                                          has_output_padding, padding, &out_shape));
  } else if (depthwise) {
    int64_t mult = Get<int64_t>(cfg, "depth_multiplier", 1);
    GRT_ASSIGN_OR_RETURN(Tensor k, c.weights->Next("depthwise_kernel", window({in_ch, mult})));
    GRT_ASSIGN_OR_RETURN(Tensor dk, depthwise_kernel(k));
    y = depthwise_conv(c.scope + "/depthwise", input,
                       emit.Weight(c.scope + "/depthwise_kernel", dk));
    out_ch = k.dim_size(n) * k.dim_size(n + 1);
  } else if (separable) {
    int64_t mult = Get<int64_t>(cfg, "depth_multiplier", 1);
    int64_t filters = Get<int64_t>(cfg, "filters", -1);
    GRT_ASSIGN_OR_RETURN(Tensor dk, c.weights->Next("depthwise_kernel", window({in_ch, mult})));
    Shape pshape(n, 1);
    pshape.push_back(in_ch * mult);
    pshape.push_back(filters);
    GRT_ASSIGN_OR_RETURN(Tensor pk, c.weights->Next("pointwise_kernel", pshape));
    GRT_ASSIGN_OR_RETURN(dk, depthwise_kernel(dk));
    y = depthwise_conv(c.scope + "/separable_conv2d/depthwise", input,
                       emit.Weight(c.scope + "/depthwise_kernel", dk));
    y = ConvNode(emit, c.scope + "/separable_conv2d", y,
                 emit.Weight(c.scope + "/pointwise_kernel", conv_kernel(pk)), {1, 1}, {1, 1},
                 "VALID");
    out_ch = pk.dim_size(pk.dims() - 1);
  } else {
    int64_t filters = Get<int64_t>(cfg, "filters", Get<int64_t>(cfg, "nb_filter", -1));
    if (groups > 1 && (in_ch < 0 || in_ch % groups != 0 || filters % groups != 0)) {
      return InvalidArgument("groups ", groups, " do not divide ", in_ch, " input channels and ",
                             filters, " filters");
    }
    GRT_ASSIGN_OR_RETURN(
        Tensor k, c.weights->Next("kernel", window({in_ch < 0 ? -1 : in_ch / groups, filters})));
    // Conv2D takes dilations; Conv3D's are spread into the kernel (SpreadTaps).
    bool spread = n == 3 && Dilated(dl_m);
    Tensor kernel = conv_kernel(k);
    if (spread) {
      GRT_ASSIGN_OR_RETURN(kernel, SpreadTaps(k, ks_m, dl_m));
    }
    out_ch = k.dim_size(k.dims() - 1);
    const std::string conv_name = c.scope + (n == 3 ? "/Conv3D" : "/Conv2D");
    const std::vector<int64_t> dilations = spread ? std::vector<int64_t>(3, 1) : dl_m;
    std::string filter = emit.Weight(c.scope + "/kernel", kernel);
    if (groups == 1) {
      y = ConvNode(emit, conv_name, input, filter, st_m, dilations, tf_pad);
    } else {
      // Group g convolves input channels [g*in/groups, (g+1)*in/groups) with filters
      // [g*filters/groups, (g+1)*filters/groups): TensorFlow's CPU Conv2D/Conv3D take no groups
      // (Keras compiles them with XLA).
      auto split = [&](const std::string& name, const std::string& value) {
        NodeDef* node = emit.Add("Split", name, {emit.Int(name + "/axis", -1), value});
        SetNodeAttr(node, "T", kFloat);
        SetNodeAttr(node, "num_split", groups);
        return node->name();
      };
      const std::string inputs = split(c.scope + "/groups", input);
      const std::string filters_split = split(c.scope + "/kernel_groups", filter);
      std::vector<std::string> parts;
      for (int64_t g = 0; g < groups; ++g) {
        parts.push_back(ConvNode(emit, StrCat(conv_name, "_", g), StrCat(inputs, ":", g),
                                 StrCat(filters_split, ":", g), st_m, dilations, tf_pad));
      }
      y = emit.Concat(conv_name, parts, static_cast<int>(xs.size()) - 1);
    }
  }
  if (Get<bool>(cfg, "use_bias", true)) {
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", {out_ch}));
    y = emit.BiasAdd(c.scope + "/BiasAdd", y, emit.Weight(c.scope + "/bias", bias));
  }
  if (one_d) {
    y = emit.Squeeze(c.scope + "/Squeeze", y, {1});
    out_shape.erase(out_shape.begin() + 1);
  }
  out_shape.back() = out_ch;
  GRT_ASSIGN_OR_RETURN(
      y, Activate(emit, c.scope, ActivationName(cfg, "activation", "linear"), y, c.name));
  out->push_back(Value{y, out_shape});
  return Status::OK();
}

}  // namespace

Status Conv(LayerCall& c, std::vector<Value>* out) {
  return ChannelsLastCall(c, &ConvChannelsLast, out);
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
