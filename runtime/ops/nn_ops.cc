// Neural-network ops: matrix products (MatMul and BatchMatMul, math ops in TensorFlow, kept here
// with the convolutions that share their GEMM), convolutions, pooling, batch normalization,
// softmax, bias addition and image resizing. Declarations match TensorFlow's OpDefs: input,
// output and attr order, types and defaults. MatMul's grad_a/grad_b and BatchMatMul's
// grad_x/grad_y are the attrs newer TensorFlow (2.16+) adds, defaulted so older graphs still match.
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/ops/window_geometry.h"
#include "runtime/ops/op_registry.h"

namespace graphrt {

namespace {

constexpr int64_t kUnknownDim = -1;

// The value of a 4-element int list attr in NHWC order (attrs come in the node's data_format).
struct SpatialAttrs {
  bool nchw = false;
  int h = 1, w = 2, c = 3;
};

SpatialAttrs SpatialLayout(const ::tensorflow::NodeDef& node) {
  std::string format = "NHWC";
  GetNodeAttrOr(node, "data_format", &format).IgnoreError();
  SpatialAttrs s;
  if (format == "NCHW") {
    s.nchw = true;
    s.c = 1;
    s.h = 2;
    s.w = 3;
  }
  return s;
}

// Output size of one windowed dim, unknown when the input is, or when the attrs do not check out
// (the kernel reports those errors).
int64_t WindowedSize(int64_t input, int64_t window, int64_t dilation, int64_t stride,
                     Padding padding, int64_t before, int64_t after) {
  if (input < 0 || window < 0) return kUnknownDim;
  WindowDim dim;
  if (!ComputeWindowDim(input, window, dilation, stride, padding, before, after, &dim).ok()) {
    return kUnknownDim;
  }
  return dim.output;
}

Status MatMulShape(InferenceContext* c) {
  const PartialTensorShape& a = c->input(0);
  const PartialTensorShape& b = c->input(1);
  bool ta = false, tb = false;
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "transpose_a", &ta));
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "transpose_b", &tb));
  if ((!a.unknown_rank() && a.dims() != 2) || (!b.unknown_rank() && b.dims() != 2)) {
    return InvalidArgument("MatMul ", c->node().name(), " needs rank-2 inputs, got ",
                           a.DebugString(), " and ", b.DebugString());
  }
  const int64_t m = a.unknown_rank() ? kUnknownDim : a.dim_size(ta ? 1 : 0);
  const int64_t n = b.unknown_rank() ? kUnknownDim : b.dim_size(tb ? 0 : 1);
  c->set_output(0, PartialTensorShape(std::vector<int64_t>{m, n}));
  return Status::OK();
}

Status BatchMatMulShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  const PartialTensorShape& y = c->input(1);
  if (x.unknown_rank() || y.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (x.dims() < 2 || y.dims() < 2) {
    return InvalidArgument(c->node().op(), " ", c->node().name(),
                           " needs inputs of rank >= 2, got ", x.DebugString(), " and ",
                           y.DebugString());
  }
  bool adj_x = false, adj_y = false;
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "adj_x", &adj_x));
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "adj_y", &adj_y));
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> dims;
  for (int i = 0; i < rank - 2; ++i) {
    const int ix = i - (rank - x.dims()), iy = i - (rank - y.dims());
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1, dy = iy >= 0 ? y.dim_size(iy) : 1;
    if (dx == 1) {
      dims.push_back(dy);
    } else if (dy == 1 || dx == dy) {
      dims.push_back(dx);
    } else if (dx < 0 || dy < 0) {
      dims.push_back(dx < 0 ? dy : dx);
    } else {
      return InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ",
                             x.DebugString(), " vs. ", y.DebugString());
    }
  }
  dims.push_back(x.dim_size(x.dims() - (adj_x ? 1 : 2)));
  dims.push_back(y.dim_size(y.dims() - (adj_y ? 2 : 1)));
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// Conv2D (depthwise = false) and DepthwiseConv2dNative.
Status ConvShape(InferenceContext* c, bool depthwise, int filter_input = 1) {
  const PartialTensorShape& in = c->input(0);
  const PartialTensorShape& filter = c->input(filter_input);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (in.dims() != 4 || (!filter.unknown_rank() && filter.dims() != 4)) {
    return InvalidArgument(c->node().op(), " ", c->node().name(),
                           " needs 4-D input and filter, got ", in.DebugString(), " and ",
                           filter.DebugString());
  }
  const SpatialAttrs s = SpatialLayout(c->node());
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1}, explicit_paddings;
  std::string padding_name;
  GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "strides", &strides));
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "dilations", &dilations));
  GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "padding", &padding_name));
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "explicit_paddings", &explicit_paddings));
  Padding padding = Padding::kValid;
  GRT_RETURN_IF_ERROR(ParsePadding(padding_name, &padding));
  int64_t rows = kUnknownDim, cols = kUnknownDim, depth = kUnknownDim;
  if (strides.size() == 4 && dilations.size() == 4 &&
      (padding != Padding::kExplicit || explicit_paddings.size() == 8) && !filter.unknown_rank()) {
    auto pad = [&](int dim, int side) {
      return padding == Padding::kExplicit ? explicit_paddings[2 * dim + side] : 0;
    };
    rows = WindowedSize(in.dim_size(s.h), filter.dim_size(0), dilations[s.h], strides[s.h], padding,
                        pad(s.h, 0), pad(s.h, 1));
    cols = WindowedSize(in.dim_size(s.w), filter.dim_size(1), dilations[s.w], strides[s.w], padding,
                        pad(s.w, 0), pad(s.w, 1));
  }
  if (!filter.unknown_rank()) {
    depth = depthwise ? (filter.dim_size(2) < 0 || filter.dim_size(3) < 0
                             ? kUnknownDim
                             : filter.dim_size(2) * filter.dim_size(3))
                      : filter.dim_size(3);
  }
  std::vector<int64_t> dims(4);
  dims[0] = in.dim_size(0);
  dims[s.h] = rows;
  dims[s.w] = cols;
  dims[s.c] = depth;
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// _GraphrtFusedChannelScaledConv2D: the broadcast of x and y (rank 4), its channels the
// filter's outputs (the window is 1x1 with unit strides).
Status ChannelScaledConvShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  const PartialTensorShape& y = c->input(1);
  const PartialTensorShape& filter = c->input(2);
  if (x.dims() != 4 || y.dims() != 4) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> dims(4);
  for (int d = 0; d < 3; ++d) {
    const int64_t a = x.dim_size(d), b = y.dim_size(d);
    dims[d] = a == 1 ? b : b == 1 ? a : (a >= 0 ? a : b);
  }
  dims[3] = filter.dims() == 4 ? filter.dim_size(3) : kUnknownDim;
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// MaxPool and AvgPool (ksize and strides attrs); MaxPoolV2 takes them as inputs 1 and 2.
Status PoolShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (in.dims() != 4) {
    return InvalidArgument(c->node().op(), " ", c->node().name(), " needs a 4-D input, got ",
                           in.DebugString());
  }
  std::vector<int64_t> ksize, strides, explicit_paddings;
  bool known = true;
  if (c->num_inputs() == 3) {
    for (int i : {1, 2}) {
      const Tensor* t = c->input_tensor(i);
      std::vector<int64_t>& values = i == 1 ? ksize : strides;
      if (t == nullptr || t->dtype() != ::tensorflow::DT_INT32) {
        known = false;
        continue;
      }
      for (int64_t j = 0; j < t->NumElements(); ++j) values.push_back(t->data<int32_t>()[j]);
    }
  } else {
    GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "ksize", &ksize));
    GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "strides", &strides));
  }
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "explicit_paddings", &explicit_paddings));
  std::string padding_name;
  GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "padding", &padding_name));
  Padding padding = Padding::kValid;
  GRT_RETURN_IF_ERROR(ParsePadding(padding_name, &padding));
  const SpatialAttrs s = SpatialLayout(c->node());
  std::vector<int64_t> dims = in.dim_sizes();
  if (!known || ksize.size() != 4 || strides.size() != 4 ||
      (padding == Padding::kExplicit && explicit_paddings.size() != 8)) {
    dims[s.h] = dims[s.w] = dims[s.c] = kUnknownDim;
  } else {
    auto pad = [&](int dim, int side) {
      return padding == Padding::kExplicit ? explicit_paddings[2 * dim + side] : 0;
    };
    for (int d : {s.h, s.w}) {
      dims[d] =
          WindowedSize(in.dim_size(d), ksize[d], 1, strides[d], padding, pad(d, 0), pad(d, 1));
    }
    if (ksize[s.c] > 1 && dims[s.c] >= 0) dims[s.c] = dims[s.c] / ksize[s.c];
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status FusedBatchNormShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  const PartialTensorShape& x = c->input(0);
  int64_t channels = kUnknownDim;
  if (!x.unknown_rank() && x.dims() >= 2) {
    std::string format = "NHWC";
    GetNodeAttrOr(c->node(), "data_format", &format).IgnoreError();
    const bool channels_first = format == "NCHW" || format == "NCDHW";
    channels = x.dim_size(channels_first ? 1 : x.dims() - 1);
  }
  for (int i = 1; i < std::min(c->num_outputs(), 5); ++i) {
    c->set_output(i, PartialTensorShape(std::vector<int64_t>{channels}));
  }
  if (c->num_outputs() == 6) c->set_output(5, PartialTensorShape(std::vector<int64_t>{0}));
  return Status::OK();
}

Status ResizeShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::vector<int64_t> dims = {kUnknownDim, kUnknownDim, kUnknownDim, kUnknownDim};
  if (!in.unknown_rank()) {
    if (in.dims() != 4) {
      return InvalidArgument(c->node().op(), " ", c->node().name(), " needs a 4-D input, got ",
                             in.DebugString());
    }
    dims[0] = in.dim_size(0);
    dims[3] = in.dim_size(3);
  }
  const Tensor* size = c->input_tensor(1);
  if (size != nullptr && size->dtype() == ::tensorflow::DT_INT32 && size->NumElements() == 2) {
    dims[1] = size->data<int32_t>()[0];
    dims[2] = size->data<int32_t>()[1];
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// The inputs and attrs graphrt's int8 convolutions share (int8_ops.cc): a float NHWC input, a
// qint8 filter with its Dequantize range per `axis` (or -1), and _FusedConv2D's epilogue.
// The window attrs of graphrt's own NHWC-only convolution ops.
OpDefBuilder& NhwcWindowAttrs(OpDefBuilder&& b) {
  return b.Attr("strides: list(int)")
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
      .Attr("explicit_paddings: list(int) = []")
      .Attr("data_format: {'NHWC'} = 'NHWC'")
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
}

// The inputs and attrs of _GraphrtFusedExpandDepthwise, which _GraphrtFusedInvertedResidual
// starts with: the expansion's filter, bias and epilogue (expand_*), then the depthwise node's.
OpDefBuilder ExpandDepthwiseDef(const char* name) {
  return std::move(NhwcWindowAttrs(OpDefBuilder(name))
                       .Input("input: T")
                       .Input("expand_filter: T")
                       .Input("expand_bias: T")
                       .Input("filter: T")
                       .Input("bias: T")
                       .Attr("T: {float}")
                       .Attr("expand_num_args: int = 1")
                       .Attr("expand_fused_ops: list(string) = []")
                       .Attr("expand_leakyrelu_alpha: float = 0.2")
                       .Attr("num_args: int = 1")
                       .Attr("fused_ops: list(string) = []")
                       .Attr("leakyrelu_alpha: float = 0.2")
                       .Attr("strides: list(int)")
                       .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                       .Attr("explicit_paddings: list(int) = []")
                       .Attr("data_format: {'NHWC'} = 'NHWC'")
                       .Attr("dilations: list(int) = [1, 1, 1, 1]"));
}

OpDefBuilder QuantizedConvDef(const char* name, int64_t channel_axis) {
  return std::move(NhwcWindowAttrs(OpDefBuilder(name))
                       .Input("input: Tinput")
                       .Input("filter: qint8")
                       .Input("filter_min: float")
                       .Input("filter_max: float")
                       .Input("args: num_args * float")
                       .Output("output: Toutput")
                       .Attr("Tinput: {float, quint8} = DT_FLOAT")
                       .Attr("Toutput: {float, quint8} = DT_FLOAT")
                       .Attr("num_args: int >= 0 = 0")
                       .Attr("fused_ops: list(string) = []")
                       .Attr("leakyrelu_alpha: float = 0.2")
                       .Attr(StrCat("axis: int = ", channel_axis)));
}

}  // namespace

void RegisterNnOps(OpRegistry* r) {
  r->Register(OpDefBuilder("MatMul")
                  .Input("a: T")
                  .Input("b: T")
                  .Output("product: T")
                  .Attr("transpose_a: bool = false")
                  .Attr("transpose_b: bool = false")
                  .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, "
                        "uint64, complex64, complex128}")
                  .Attr("grad_a: bool = false")
                  .Attr("grad_b: bool = false")
                  .SetShapeFn(MatMulShape));
  r->Register(OpDefBuilder("BatchMatMul")
                  .Input("x: T")
                  .Input("y: T")
                  .Output("output: T")
                  .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
                  .Attr("adj_x: bool = false")
                  .Attr("adj_y: bool = false")
                  .Attr("grad_x: bool = false")
                  .Attr("grad_y: bool = false")
                  .SetShapeFn(BatchMatMulShape));
  r->Register(OpDefBuilder("BatchMatMulV2")
                  .Input("x: T")
                  .Input("y: T")
                  .Output("output: T")
                  .Attr("T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, "
                        "uint32, uint64, complex64, complex128}")
                  .Attr("adj_x: bool = false")
                  .Attr("adj_y: bool = false")
                  .Attr("grad_x: bool = false")
                  .Attr("grad_y: bool = false")
                  .SetShapeFn(BatchMatMulShape));
  r->Register(OpDefBuilder("BatchMatMulV3")
                  .Input("x: Ta")
                  .Input("y: Tb")
                  .Output("output: Tout")
                  .Attr("Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
                        "complex64, complex128}")
                  .Attr("Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
                        "complex64, complex128}")
                  .Attr("Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, "
                        "complex128}")
                  .Attr("adj_x: bool = false")
                  .Attr("adj_y: bool = false")
                  .Attr("grad_x: bool = false")
                  .Attr("grad_y: bool = false")
                  .SetShapeFn(BatchMatMulShape));

  r->Register(OpDefBuilder("Conv2D")
                  .Input("input: T")
                  .Input("filter: T")
                  .Output("output: T")
                  .Attr("T: {half, bfloat16, float, double, int32}")
                  .Attr("strides: list(int)")
                  .Attr("use_cudnn_on_gpu: bool = true")
                  .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .Attr("explicit_paddings: list(int) = []")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("dilations: list(int) = [1, 1, 1, 1]")
                  .SetShapeFn([](InferenceContext* c) { return ConvShape(c, false); }));
  r->Register(OpDefBuilder("DepthwiseConv2dNative")
                  .Input("input: T")
                  .Input("filter: T")
                  .Output("output: T")
                  .Attr("T: {half, bfloat16, float, double}")
                  .Attr("strides: list(int)")
                  .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .Attr("explicit_paddings: list(int) = []")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("dilations: list(int) = [1, 1, 1, 1]")
                  .SetShapeFn([](InferenceContext* c) { return ConvShape(c, true); }));

  // TensorFlow's fused ops (its remapper's output; graphrt's optimizer makes them too): the
  // product, then the `fused_ops` epilogue ("BiasAdd" with args[0], then one activation) on the
  // output.
  r->Register(OpDefBuilder("_FusedConv2D")
                  .Input("input: T")
                  .Input("filter: T")
                  .Input("args: num_args * T")
                  .Output("output: T")
                  .Attr("T: {half, bfloat16, float, double}")
                  .Attr("num_args: int >= 0")
                  .Attr("strides: list(int)")
                  .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .Attr("explicit_paddings: list(int) = []")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("dilations: list(int) = [1, 1, 1, 1]")
                  .Attr("use_cudnn_on_gpu: bool = true")
                  .Attr("fused_ops: list(string) = []")
                  .Attr("epsilon: float = 0.0001")
                  .Attr("leakyrelu_alpha: float = 0.2")
                  .SetShapeFn([](InferenceContext* c) { return ConvShape(c, false); }));
  r->Register(OpDefBuilder("_FusedDepthwiseConv2dNative")
                  .Input("input: T")
                  .Input("filter: T")
                  .Input("args: num_args * T")
                  .Output("output: T")
                  .Attr("T: {half, bfloat16, float, double}")
                  .Attr("num_args: int >= 0")
                  .Attr("strides: list(int)")
                  .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .Attr("explicit_paddings: list(int) = []")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("dilations: list(int) = [1, 1, 1, 1]")
                  .Attr("fused_ops: list(string) = []")
                  .Attr("epsilon: float = 0.0001")
                  .Attr("leakyrelu_alpha: float = 0.2")
                  .SetShapeFn([](InferenceContext* c) { return ConvShape(c, true); }));
  // graphrt's remapper: a 1x1 _FusedConv2D (expand_*: its filter, bias and epilogue) whose only
  // reader is a _FusedDepthwiseConv2dNative with multiplier 1, as one node that never makes the
  // expanded tensor whole (kernels/cpu/conv_ops.cc). Neither epilogue has a residual Add.
  r->Register(ExpandDepthwiseDef("_GraphrtFusedExpandDepthwise")
                  .Output("output: T")
                  .SetShapeFn([](InferenceContext* c) { return ConvShape(c, true, 3); }));
  // The same with the 1x1 convolution that reads the depthwise output (project_*: its filter,
  // then bias and optional residual addend, and epilogue) fused in too: a whole inverted residual
  // block.
  r->Register(ExpandDepthwiseDef("_GraphrtFusedInvertedResidual")
                  .Input("project_filter: T")
                  .Input("project_args: project_num_args * T")
                  .Output("output: T")
                  .Attr("project_num_args: int >= 1")
                  .Attr("project_fused_ops: list(string) = []")
                  .Attr("project_leakyrelu_alpha: float = 0.2")
                  .SetShapeFn([](InferenceContext* c) {
                    GRT_RETURN_IF_ERROR(ConvShape(c, true, 3));
                    const PartialTensorShape& projection = c->input(5);
                    std::vector<int64_t> dims = c->output(0).dim_sizes();
                    if (dims.size() == 4) {
                      dims[3] = projection.dims() == 4 ? projection.dim_size(3) : kUnknownDim;
                      c->set_output(0, PartialTensorShape(std::move(dims)));
                    }
                    return Status::OK();
                  }));
  // graphrt's remapper: a 1x1 _FusedConv2D of the product x * y (numpy broadcasting), the Mul
  // fused in (kernels/cpu/conv_ops.cc: a squeeze-and-excitation block's scaling).
  r->Register(NhwcWindowAttrs(OpDefBuilder("_GraphrtFusedChannelScaledConv2D"))
                  .Input("x: T")
                  .Input("y: T")
                  .Input("filter: T")
                  .Input("args: num_args * T")
                  .Output("output: T")
                  .Attr("T: {float}")
                  .Attr("num_args: int >= 1")
                  .Attr("fused_ops: list(string) = []")
                  .Attr("leakyrelu_alpha: float = 0.2")
                  .SetShapeFn(ChannelScaledConvShape));
  r->Register(OpDefBuilder("_FusedMatMul")
                  .Input("a: T")
                  .Input("b: T")
                  .Input("args: num_args * T")
                  .Output("product: T")
                  .Attr("transpose_a: bool = false")
                  .Attr("transpose_b: bool = false")
                  .Attr("T: {bfloat16, half, float}")
                  .Attr("num_args: int >= 0")
                  .Attr("fused_ops: list(string) = []")
                  .Attr("epsilon: float = 0.0001")
                  .Attr("leakyrelu_alpha: float = 0.2")
                  .SetShapeFn(MatMulShape));
  // graphrt's own (runtime/kernels/cpu/int8_ops.cc): the product with int8 weights that
  // Dequantize(filter, filter_min, filter_max) (SCALED, narrow_range, per `axis`) would give,
  // computed in integers on an activation quantized per Run, then _FusedMatMul's epilogue
  // (fused_ops may be empty). The optimizer makes them (runtime/optimize/int8_weights.cc).
  // With Tinput / Toutput quint8 an input or output holds QuantizeV2's MIN_FIRST codes in the
  // range of attrs input_min / input_max or output_min / output_max: int8 ops chained without a
  // float tensor between them (the optimizer sets these).
  r->Register(OpDefBuilder("_GraphrtQuantizedMatMul")
                  .Input("a: Tinput")
                  .Input("b: qint8")
                  .Input("b_min: float")
                  .Input("b_max: float")
                  .Input("args: num_args * float")
                  .Output("product: Toutput")
                  .Attr("Tinput: {float, quint8} = DT_FLOAT")
                  .Attr("Toutput: {float, quint8} = DT_FLOAT")
                  .Attr("num_args: int >= 0 = 0")
                  .Attr("fused_ops: list(string) = []")
                  .Attr("leakyrelu_alpha: float = 0.2")
                  .Attr("axis: int = 1")
                  .SetShapeFn(MatMulShape));
  r->Register(QuantizedConvDef("_GraphrtQuantizedConv2D", 3).SetShapeFn([](InferenceContext* c) {
    return ConvShape(c, false);
  }));
  // Depthwise with multiplier 1: filter [h, w, channels, 1], one range per channel (axis 2).
  // Like the two above, it takes optional float attrs input_min / input_max: a static range
  // that the input is quantized in as QuantizeV2 MIN_FIRST would (int8_ops.cc).
  r->Register(
      QuantizedConvDef("_GraphrtQuantizedDepthwiseConv2D", 2).SetShapeFn([](InferenceContext* c) {
        return ConvShape(c, true);
      }));

  // quint8 beyond TensorFlow's list: the int8 pass pools codes (optimize/int8_weights.cc).
  r->Register(OpDefBuilder("MaxPool")
                  .Input("input: T")
                  .Output("output: T")
                  .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
                        "uint16, qint8, quint8} = DT_FLOAT")
                  .Attr("ksize: list(int) >= 4")
                  .Attr("strides: list(int) >= 4")
                  .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .Attr("explicit_paddings: list(int) = []")
                  .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
                  .SetShapeFn(PoolShape));
  r->Register(OpDefBuilder("MaxPoolV2")
                  .Input("input: T")
                  .Input("ksize: int32")
                  .Input("strides: int32")
                  .Output("output: T")
                  .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
                        "uint16, qint8, quint8} = DT_FLOAT")
                  .Attr("padding: {'SAME', 'VALID'}")
                  .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
                  .SetShapeFn(PoolShape));
  r->Register(OpDefBuilder("AvgPool")
                  .Input("value: T")
                  .Output("output: T")
                  .Attr("ksize: list(int) >= 4")
                  .Attr("strides: list(int) >= 4")
                  .Attr("padding: {'SAME', 'VALID'}")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("T: {half, bfloat16, float, double}")
                  .SetShapeFn(PoolShape));

  r->Register(OpDefBuilder("FusedBatchNorm")
                  .Input("x: T")
                  .Input("scale: T")
                  .Input("offset: T")
                  .Input("mean: T")
                  .Input("variance: T")
                  .Output("y: T")
                  .Output("batch_mean: T")
                  .Output("batch_variance: T")
                  .Output("reserve_space_1: T")
                  .Output("reserve_space_2: T")
                  .Attr("T: {float}")
                  .Attr("epsilon: float = 0.0001")
                  .Attr("exponential_avg_factor: float = 1.0")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("is_training: bool = true")
                  .SetShapeFn(FusedBatchNormShape));
  r->Register(OpDefBuilder("FusedBatchNormV2")
                  .Input("x: T")
                  .Input("scale: U")
                  .Input("offset: U")
                  .Input("mean: U")
                  .Input("variance: U")
                  .Output("y: T")
                  .Output("batch_mean: U")
                  .Output("batch_variance: U")
                  .Output("reserve_space_1: U")
                  .Output("reserve_space_2: U")
                  .Attr("T: {half, bfloat16, float}")
                  .Attr("U: {float}")
                  .Attr("epsilon: float = 0.0001")
                  .Attr("exponential_avg_factor: float = 1.0")
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .Attr("is_training: bool = true")
                  .SetShapeFn(FusedBatchNormShape));
  r->Register(OpDefBuilder("FusedBatchNormV3")
                  .Input("x: T")
                  .Input("scale: U")
                  .Input("offset: U")
                  .Input("mean: U")
                  .Input("variance: U")
                  .Output("y: T")
                  .Output("batch_mean: U")
                  .Output("batch_variance: U")
                  .Output("reserve_space_1: U")
                  .Output("reserve_space_2: U")
                  .Output("reserve_space_3: U")
                  .Attr("T: {half, bfloat16, float}")
                  .Attr("U: {bfloat16, float}")
                  .Attr("epsilon: float = 0.0001")
                  .Attr("exponential_avg_factor: float = 1.0")
                  .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
                  .Attr("is_training: bool = true")
                  .SetShapeFn(FusedBatchNormShape));

  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const std::string output = op[0] == 'S' ? "softmax: T" : "logsoftmax: T";
    r->Register(OpDefBuilder(op)
                    .Input("logits: T")
                    .Output(output)
                    .Attr("T: {half, bfloat16, float, double}")
                    .SetShapeFn(UnchangedShape));
  }
  const char* kBiasTypes =
      "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
      "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}";
  r->Register(OpDefBuilder("BiasAdd")
                  .Input("value: T")
                  .Input("bias: T")
                  .Output("output: T")
                  .Attr(kBiasTypes)
                  .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .SetShapeFn([](InferenceContext* c) {
                    std::string format = "NHWC";
                    GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "data_format", &format));
                    const PartialTensorShape& in = c->input(0);
                    const int min_rank = format == "NCHW" ? 3 : 2;
                    if (!in.unknown_rank() && in.dims() < min_rank) {
                      return InvalidArgument("Shape must be at least rank ", min_rank,
                                             " but is rank ", in.dims(), " for BiasAdd ",
                                             c->node().name());
                    }
                    return UnchangedShape(c);
                  }));
  r->Register(OpDefBuilder("BiasAddV1")
                  .Input("value: T")
                  .Input("bias: T")
                  .Output("output: T")
                  .Attr(kBiasTypes)
                  .SetShapeFn(UnchangedShape));

  r->Register(OpDefBuilder("ResizeBilinear")
                  .Input("images: T")
                  .Input("size: int32")
                  .Output("resized_images: float")
                  .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, "
                        "double, bfloat16}")
                  .Attr("align_corners: bool = false")
                  .Attr("half_pixel_centers: bool = false")
                  .SetShapeFn(ResizeShape));
  r->Register(OpDefBuilder("ResizeNearestNeighbor")
                  .Input("images: T")
                  .Input("size: int32")
                  .Output("resized_images: T")
                  .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
                        "bfloat16}")
                  .Attr("align_corners: bool = false")
                  .Attr("half_pixel_centers: bool = false")
                  .SetShapeFn(ResizeShape));
}

}  // namespace graphrt
