// OpenCL matrix products and convolutions: MatMul and BatchMatMul through CLBlast's GEMM and
// batched GEMM; Conv2D as im2col (graphrt's kernel) + CLBlast GEMM, a 1x1 stride-1 convolution
// going straight to GEMM; DepthwiseConv2dNative as a direct kernel. NCHW is transposed to NHWC
// and back around the NHWC computation. float32 only.
#include <clblast.h>

#include "runtime/kernels/common/window.h"
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {

namespace {

Status ClBlastError(clblast::StatusCode code, const char* routine) {
  cl_int err = static_cast<cl_int>(code);
  if (err < 0 && err > -100) return OpenClError(err, StrCat("CLBlast ", routine));
  return Internal("CLBlast ", routine, " failed with status ", err);
}

clblast::Transpose Trans(bool t) { return t ? clblast::Transpose::kYes : clblast::Transpose::kNo; }

// Row-major C[m,n] = op(A) op(B), with op(A) [m,k] and op(B) [k,n].
class GemmRunner {
 public:
  static Status Run(OpenClDevice* device, bool trans_a, bool trans_b, size_t m, size_t n, size_t k,
                    cl_mem a, size_t a_offset, cl_mem b, size_t b_offset, cl_mem c) {
    if (m == 0 || n == 0) return Status::OK();
    OpenClContext* cl = device->cl();
    if (k == 0) return Zero(cl, c, m * n);
    size_t lda = trans_a ? m : k, ldb = trans_b ? k : n;
    size_t temp_bytes = 0;
    cl_command_queue* queue = cl->mutable_queue();
    clblast::StatusCode code;
    {
      // GemmTempBufferSize builds CLBlast's tuning database as Gemm does, which races when two
      // threads do it at once (ThreadSanitizer, tests/concurrency_test.cc): one lock for both.
      std::lock_guard<std::mutex> lock(cl->launch_mu());
      code = clblast::GemmTempBufferSize<float>(clblast::Layout::kRowMajor, Trans(trans_a),
                                                Trans(trans_b), m, n, k, a_offset, lda, b_offset,
                                                ldb, 0, n, queue, temp_bytes);
    }
    if (code != clblast::StatusCode::kSuccess) return ClBlastError(code, "GemmTempBufferSize");
    std::shared_ptr<DeviceBuffer> temp;
    if (temp_bytes > 0) {
      GRT_ASSIGN_OR_RETURN(temp, device->AllocateScratch(temp_bytes));
    }
    cl_int injected = InjectedLaunchError("clblast_gemm");
    if (injected != CL_SUCCESS) return OpenClError(injected, "CLBlast Gemm");
    std::lock_guard<std::mutex> lock(cl->launch_mu());
    code = clblast::Gemm<float>(clblast::Layout::kRowMajor, Trans(trans_a), Trans(trans_b), m, n, k,
                                1.0f, a, a_offset, lda, b, b_offset, ldb, 0.0f, c, 0, n, queue,
                                nullptr,
                                temp != nullptr ? static_cast<cl_mem>(temp->handle()) : nullptr);
    if (code != clblast::StatusCode::kSuccess) return ClBlastError(code, "Gemm");
    return Status::OK();
  }

  static Status Zero(OpenClContext* cl, cl_mem c, size_t elements) {
    float zero = 0.0f;
    std::lock_guard<std::mutex> lock(cl->launch_mu());
    cl_int err = clEnqueueFillBuffer(cl->queue(), c, &zero, sizeof(zero), 0,
                                     elements * sizeof(float), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return OpenClError(err, "clEnqueueFillBuffer");
    return Status::OK();
  }
};

class MatMulOp : public OpenClOpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "transpose_a", &transpose_a_));
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "transpose_b", &transpose_b_));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 1));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if (a.dims() != 2 || b.dims() != 2) {
      return InvalidArgument("In[0] and In[1] must be matrices: ", a.shape().DebugString(), ", ",
                             b.shape().DebugString());
    }
    int64_t m = a.dim_size(transpose_a_ ? 1 : 0), k = a.dim_size(transpose_a_ ? 0 : 1);
    int64_t k2 = b.dim_size(transpose_b_ ? 1 : 0), n = b.dim_size(transpose_b_ ? 0 : 1);
    if (k != k2) {
      return InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                             ", In[1]: ", b.shape().DebugString());
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, TensorShape({m, n}), &out));
    return GemmRunner::Run(device(), transpose_a_, transpose_b_, m, n, k, Mem(a), 0, Mem(b), 0,
                           Mem(out));
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

// BatchMatMul (equal batch dims) and V2/V3 (broadcast batch dims), through GemmBatched with
// per-matrix offsets.
class BatchMatMulOp : public OpenClOpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "adj_x", &adj_x_));
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "adj_y", &adj_y_));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 1));
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (x.dims() < 2 || y.dims() < 2) {
      return InvalidArgument("In[0] and In[1] must have rank >= 2: ", x.shape().DebugString(), ", ",
                             y.shape().DebugString());
    }
    int64_t m = x.dim_size(x.dims() - (adj_x_ ? 1 : 2));
    int64_t k = x.dim_size(x.dims() - (adj_x_ ? 2 : 1));
    int64_t k2 = y.dim_size(y.dims() - (adj_y_ ? 1 : 2));
    int64_t n = y.dim_size(y.dims() - (adj_y_ ? 2 : 1));
    if (k != k2) {
      return InvalidArgument("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                             ", In[1]: ", y.shape().DebugString());
    }
    // Broadcast the batch dims.
    const int xb = x.dims() - 2, yb = y.dims() - 2, rank = std::max(xb, yb);
    std::vector<int64_t> dx(rank, 1), dy(rank, 1), dout(rank);
    for (int i = 0; i < xb; ++i) dx[rank - xb + i] = x.dim_size(i);
    for (int i = 0; i < yb; ++i) dy[rank - yb + i] = y.dim_size(i);
    for (int i = 0; i < rank; ++i) {
      if (dx[i] != dy[i] && dx[i] != 1 && dy[i] != 1) {
        return InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ",
                               x.shape().DebugString(), " vs. ", y.shape().DebugString());
      }
      dout[i] = dx[i] == 1 ? dy[i] : dx[i];
    }
    std::vector<int64_t> out_dims = dout;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, TensorShape(out_dims), &out));
    int64_t batch = 1;
    for (int64_t d : dout) batch *= d;
    if (batch == 0 || m == 0 || n == 0) return Status::OK();
    if (k == 0) return GemmRunner::Zero(cl(), Mem(out), static_cast<size_t>(out.NumElements()));
    std::vector<size_t> x_offsets(batch), y_offsets(batch), out_offsets(batch);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t r = b, xi = 0, yi = 0, xs = 1, ys = 1;
      for (int i = rank - 1; i >= 0; --i) {
        int64_t c = r % dout[i];
        r /= dout[i];
        if (dx[i] != 1) xi += c * xs;
        if (dy[i] != 1) yi += c * ys;
        xs *= dx[i];
        ys *= dy[i];
      }
      x_offsets[b] = static_cast<size_t>(xi * m * k);
      y_offsets[b] = static_cast<size_t>(yi * k * n);
      out_offsets[b] = static_cast<size_t>(b * m * n);
    }
    std::vector<float> alphas(batch, 1.0f), betas(batch, 0.0f);
    size_t ldx = adj_x_ ? m : k, ldy = adj_y_ ? k : n;
    cl_int injected = InjectedLaunchError("clblast_gemm");
    if (injected != CL_SUCCESS) return OpenClError(injected, "CLBlast GemmBatched");
    std::lock_guard<std::mutex> lock(cl()->launch_mu());
    clblast::StatusCode code = clblast::GemmBatched<float>(
        clblast::Layout::kRowMajor, Trans(adj_x_), Trans(adj_y_), m, n, k, alphas.data(), Mem(x),
        x_offsets.data(), ldx, Mem(y), y_offsets.data(), ldy, betas.data(), Mem(out),
        out_offsets.data(), n, static_cast<size_t>(batch), cl()->mutable_queue(), nullptr);
    if (code != clblast::StatusCode::kSuccess) return ClBlastError(code, "GemmBatched");
    return Status::OK();
  }

 private:
  bool adj_x_ = false, adj_y_ = false;
};

// Attrs of Conv2D and DepthwiseConv2dNative.
struct ConvAttrs {
  Padding padding = Padding::kValid;
  DataFormat format = DataFormat::kNHWC;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;

  Status Read(const OpKernelConstruction& ctx) {
    std::string text;
    GRT_RETURN_IF_ERROR(ctx.GetAttr("padding", &text));
    GRT_RETURN_IF_ERROR(ParsePadding(text, &padding));
    if (padding == Padding::kExplicit) {
      return Unimplemented("EXPLICIT padding has no OpenCL kernel yet");
    }
    text = "NHWC";
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx.def(), "data_format", &text));
    GRT_RETURN_IF_ERROR(ParseDataFormat(text, &format));
    std::vector<int64_t> strides, dilations = {1, 1, 1, 1};
    GRT_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx.def(), "dilations", &dilations));
    if (strides.size() != 4 || dilations.size() != 4) {
      return InvalidArgument("strides and dilations must have 4 entries");
    }
    int h = format == DataFormat::kNHWC ? 1 : 2;
    int other = format == DataFormat::kNHWC ? 3 : 1;
    if (strides[0] != 1 || strides[other] != 1) {
      return InvalidArgument("strides in the batch and depth dimensions must be 1");
    }
    stride_h = strides[h];
    stride_w = strides[h + 1];
    dilation_h = dilations[h];
    dilation_w = dilations[h + 1];
    return Status::OK();
  }
};

// Convolutions: the NHWC computation in ComputeNhwc, wrapped in transposes for NCHW.
class ConvBase : public OpenClOpKernel {
 public:
  explicit ConvBase(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, attrs_.Read(*ctx));
    GRT_CONSTRUCT_OK(ctx, gather_.Load(cl(), ArrayProgram(), "strided_gather"));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 1));
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    if (input.dims() != 4 || filter.dims() != 4) {
      return InvalidArgument("input and filter must be 4-dimensional: ",
                             input.shape().DebugString(), ", ", filter.shape().DebugString());
    }
    if (attrs_.format == DataFormat::kNHWC) {
      Tensor out;
      GRT_RETURN_IF_ERROR(ComputeNhwc(input, filter, &out));
      ctx->set_output(0, out);
      return Status::OK();
    }
    Tensor nhwc, out_nhwc, out;
    GRT_RETURN_IF_ERROR(Transpose(gather_, input, {0, 2, 3, 1}, &nhwc));
    GRT_RETURN_IF_ERROR(ComputeNhwc(nhwc, filter, &out_nhwc));
    GRT_RETURN_IF_ERROR(Transpose(gather_, out_nhwc, {0, 3, 1, 2}, &out));
    ctx->set_output(0, out);
    return Status::OK();
  }

 protected:
  virtual Status ComputeNhwc(const Tensor& input, const Tensor& filter, Tensor* out) = 0;

  // Checks the filter's depth against the input's, computes the output windows and allocates
  // the NHWC output with `out_channels` channels.
  Status PrepareOutput(const Tensor& input, const Tensor& filter, int64_t out_channels,
                       WindowDim* rows, WindowDim* cols, Tensor* out) {
    if (filter.dim_size(2) != input.dim_size(3)) {
      return InvalidArgument("input depth must equal filter depth: ", input.dim_size(3), " vs ",
                             filter.dim_size(2));
    }
    GRT_RETURN_IF_ERROR(Windows(input, filter, rows, cols));
    GRT_ASSIGN_OR_RETURN(
        *out, device()->AllocateTensor(input.dtype(), TensorShape({input.dim_size(0), rows->output,
                                                                   cols->output, out_channels})));
    return Status::OK();
  }

  Status Windows(const Tensor& input, const Tensor& filter, WindowDim* rows,
                 WindowDim* cols) const {
    GRT_RETURN_IF_ERROR(ComputeWindowDim(input.dim_size(1), filter.dim_size(0), attrs_.dilation_h,
                                         attrs_.stride_h, attrs_.padding, 0, 0, rows));
    return ComputeWindowDim(input.dim_size(2), filter.dim_size(1), attrs_.dilation_w,
                            attrs_.stride_w, attrs_.padding, 0, 0, cols);
  }

  ConvAttrs attrs_;
  ClKernel gather_;
};

class Conv2DOp : public ConvBase {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : ConvBase(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, im2col_.Load(cl(), NnProgram(), "im2col_nhwc"));
  }

 private:
  Status ComputeNhwc(const Tensor& input, const Tensor& filter, Tensor* out) override {
    const int64_t batch = input.dim_size(0), h = input.dim_size(1), w = input.dim_size(2),
                  c = input.dim_size(3);
    const int64_t kh = filter.dim_size(0), kw = filter.dim_size(1), oc = filter.dim_size(3);
    WindowDim rows, cols;
    GRT_RETURN_IF_ERROR(PrepareOutput(input, filter, oc, &rows, &cols, out));
    const int64_t m = batch * rows.output * cols.output, k = kh * kw * c;
    const bool direct = kh == 1 && kw == 1 && attrs_.stride_h == 1 && attrs_.stride_w == 1;
    if (direct) {
      return GemmRunner::Run(device(), false, false, m, oc, k, Mem(input), 0, Mem(filter), 0,
                             Mem(*out));
    }
    GRT_RETURN_IF_ERROR(CheckOpenClSize(m * k, "the im2col matrix"));
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> col,
                         device()->AllocateScratch(static_cast<size_t>(m * k) * sizeof(float)));
    cl_mem col_mem = static_cast<cl_mem>(col->handle());
    cl_int n = static_cast<cl_int>(m * k);
    auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
    GRT_RETURN_IF_ERROR(Launch(im2col_, n, Mem(input), col_mem, n, i32(h), i32(w), i32(c),
                               i32(rows.output), i32(cols.output), i32(kh), i32(kw),
                               i32(attrs_.stride_h), i32(attrs_.stride_w), i32(attrs_.dilation_h),
                               i32(attrs_.dilation_w), i32(rows.pad_before), i32(cols.pad_before)));
    return GemmRunner::Run(device(), false, false, m, oc, k, col_mem, 0, Mem(filter), 0, Mem(*out));
  }

  ClKernel im2col_;
};

class DepthwiseConv2dOp : public ConvBase {
 public:
  explicit DepthwiseConv2dOp(OpKernelConstruction* ctx) : ConvBase(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), NnProgram(), "depthwise_nhwc"));
  }

 private:
  Status ComputeNhwc(const Tensor& input, const Tensor& filter, Tensor* out) override {
    const int64_t h = input.dim_size(1), w = input.dim_size(2), c = input.dim_size(3);
    const int64_t kh = filter.dim_size(0), kw = filter.dim_size(1), mult = filter.dim_size(3);
    WindowDim rows, cols;
    GRT_RETURN_IF_ERROR(PrepareOutput(input, filter, c * mult, &rows, &cols, out));
    GRT_RETURN_IF_ERROR(CheckOpenClSize(out->NumElements(), "the output"));
    cl_int n = static_cast<cl_int>(out->NumElements());
    auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
    return Launch(kernel_, n, Mem(input), Mem(filter), Mem(*out), n, i32(h), i32(w), i32(c),
                  i32(mult), i32(rows.output), i32(cols.output), i32(kh), i32(kw),
                  i32(attrs_.stride_h), i32(attrs_.stride_w), i32(attrs_.dilation_h),
                  i32(attrs_.dilation_w), i32(rows.pad_before), i32(cols.pad_before));
  }

  ClKernel kernel_;
};

// For the placer: ConvAttrs::Read refuses the same when a kernel is built.
std::string ConvLimitation(const ::tensorflow::NodeDef& node) {
  const ::tensorflow::AttrValue* padding = FindAttr(node, "padding");
  if (padding != nullptr && padding->s() == "EXPLICIT") return "padding=EXPLICIT";
  return "";
}

}  // namespace

void RegisterOpenClMatMulConvKernels(KernelRegistry* r) {
  r->Register(KernelDefBuilder("MatMul").Device(kDeviceGpu).TypeConstraint<float>("T"),
              MakeFactory<MatMulOp>());
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceGpu).TypeConstraint<float>("T"),
                MakeFactory<BatchMatMulOp>());
  }
  r->Register(KernelDefBuilder("BatchMatMulV3")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("Ta")
                  .TypeConstraint<float>("Tb")
                  .TypeConstraint<float>("Tout"),
              MakeFactory<BatchMatMulOp>());
  r->Register(KernelDefBuilder("Conv2D")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("T")
                  .AttrCheck(ConvLimitation),
              MakeFactory<Conv2DOp>());
  r->Register(KernelDefBuilder("DepthwiseConv2dNative")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("T")
                  .AttrCheck(ConvLimitation),
              MakeFactory<DepthwiseConv2dOp>());
}

}  // namespace graphrt
