// OpenCL kernels for pooling, softmax, inference batch norm and the Mean/Sum/Max reductions.
// float32 only; NCHW pooling is transposed to NHWC and back.
#include <algorithm>

#include "runtime/kernels/common/array_util.h"
#include "runtime/kernels/common/window.h"
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {

namespace {

class PoolOp : public OpenClOpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    is_max_ = type_string() == "MaxPool";
    std::string text;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("padding", &text));
    GRT_CONSTRUCT_OK(ctx, ParsePadding(text, &padding_));
    if (padding_ == Padding::kExplicit) {
      ctx->SetStatus(Unimplemented("EXPLICIT padding has no OpenCL pooling kernel yet"));
      return;
    }
    text = "NHWC";
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "data_format", &text));
    GRT_CONSTRUCT_OK(ctx, ParseDataFormat(text, &format_));
    std::vector<int64_t> ksize, strides;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("ksize", &ksize));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("strides", &strides));
    if (ksize.size() != 4 || strides.size() != 4) {
      ctx->SetStatus(InvalidArgument("ksize and strides must have 4 entries"));
      return;
    }
    int h = format_ == DataFormat::kNHWC ? 1 : 2;
    int other = format_ == DataFormat::kNHWC ? 3 : 1;
    if (ksize[0] != 1 || ksize[other] != 1 || strides[0] != 1 || strides[other] != 1) {
      ctx->SetStatus(Unimplemented("pooling across the batch or depth dimension"));
      return;
    }
    kh_ = ksize[h];
    kw_ = ksize[h + 1];
    sh_ = strides[h];
    sw_ = strides[h + 1];
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), NnProgram(), "pool_nhwc"));
    GRT_CONSTRUCT_OK(ctx, gather_.Load(cl(), ArrayProgram(), "strided_gather"));
  }

  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& input = ctx->input(0);
    if (input.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional: ", input.shape().DebugString());
    }
    if (format_ == DataFormat::kNHWC) {
      Tensor out;
      GRT_RETURN_IF_ERROR(ComputeNhwc(input, &out));
      ctx->set_output(0, out);
      return Status::OK();
    }
    Tensor nhwc, out_nhwc, out;
    GRT_RETURN_IF_ERROR(Transpose(gather_, input, {0, 2, 3, 1}, &nhwc));
    GRT_RETURN_IF_ERROR(ComputeNhwc(nhwc, &out_nhwc));
    GRT_RETURN_IF_ERROR(Transpose(gather_, out_nhwc, {0, 3, 1, 2}, &out));
    ctx->set_output(0, out);
    return Status::OK();
  }

 private:
  Status ComputeNhwc(const Tensor& input, Tensor* out) {
    WindowDim rows, cols;
    GRT_RETURN_IF_ERROR(ComputeWindowDim(input.dim_size(1), kh_, 1, sh_, padding_, 0, 0, &rows));
    GRT_RETURN_IF_ERROR(ComputeWindowDim(input.dim_size(2), kw_, 1, sw_, padding_, 0, 0, &cols));
    GRT_ASSIGN_OR_RETURN(*out, device()->AllocateTensor(
                                   input.dtype(), TensorShape({input.dim_size(0), rows.output,
                                                               cols.output, input.dim_size(3)})));
    GRT_RETURN_IF_ERROR(CheckOpenClSize(out->NumElements(), "the output"));
    cl_int n = static_cast<cl_int>(out->NumElements());
    auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
    return Launch(kernel_, n, Mem(input), Mem(*out), n, i32(input.dim_size(1)),
                  i32(input.dim_size(2)), i32(input.dim_size(3)), i32(rows.output),
                  i32(cols.output), i32(kh_), i32(kw_), i32(sh_), i32(sw_), i32(rows.pad_before),
                  i32(cols.pad_before), cl_int{is_max_ ? 1 : 0});
  }

  bool is_max_ = true;
  Padding padding_ = Padding::kValid;
  DataFormat format_ = DataFormat::kNHWC;
  int64_t kh_ = 1, kw_ = 1, sh_ = 1, sw_ = 1;
  ClKernel kernel_, gather_;
};

class SoftmaxOp : public OpenClOpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), NnProgram(), "softmax_rows"));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& logits = ctx->input(0);
    if (logits.dims() < 1) {
      return InvalidArgument("logits must have >= 1 dimension, got ", logits.shape().DebugString());
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, logits.shape(), &out));
    int64_t cols = logits.dim_size(logits.dims() - 1);
    int64_t rows = cols == 0 ? 0 : logits.NumElements() / cols;
    GRT_RETURN_IF_ERROR(CheckOpenClSize(logits.NumElements(), "the logits"));
    return Launch(kernel_, rows, Mem(logits), Mem(out), static_cast<cl_int>(rows),
                  static_cast<cl_int>(cols), cl_int{type_string() == "LogSoftmax" ? 1 : 0});
  }

 private:
  ClKernel kernel_;
};

// FusedBatchNorm, V2 and V3 with is_training=false: y from the given statistics, which are also
// the batch_mean / batch_variance / reserve outputs (reserve_space_3 of V3 is empty).
class FusedBatchNormOp : public OpenClOpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    bool is_training = true;
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "is_training", &is_training));
    if (is_training) {
      ctx->SetStatus(
          Unimplemented("FusedBatchNorm with is_training=true has no OpenCL kernel; "
                        "graphrt runs inference graphs on GPUs"));
      return;
    }
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "epsilon", &epsilon_));
    std::string format = "NHWC";
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "data_format", &format));
    if (format != "NHWC" && format != "NCHW") {
      ctx->SetStatus(InvalidArgument("Invalid data format: ", format));
      return;
    }
    nchw_ = format == "NCHW";
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), NnProgram(), "batch_norm"));
  }
  Status Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 5; ++i) GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, i));
    const Tensor& x = ctx->input(0);
    if (x.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional: ", x.shape().DebugString());
    }
    int64_t channels = x.dim_size(nchw_ ? 1 : 3);
    for (int i = 1; i < 5; ++i) {
      if (ctx->input(i).dims() != 1 || ctx->input(i).dim_size(0) != channels) {
        return InvalidArgument("input ", i, " must be a vector of ", channels, " values, got ",
                               ctx->input(i).shape().DebugString());
      }
    }
    Tensor y;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, x.shape(), &y));
    for (int i = 1; i <= 4; ++i) ctx->set_output(i, ctx->input(i <= 2 ? i + 2 : i));
    if (ctx->num_outputs() > 5) {
      Tensor empty;
      GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 5, TensorShape({0}), &empty));
    }
    GRT_RETURN_IF_ERROR(CheckOpenClSize(x.NumElements(), "the input"));
    cl_int n = static_cast<cl_int>(x.NumElements());
    cl_int inner = static_cast<cl_int>(nchw_ ? x.dim_size(2) * x.dim_size(3) : 1);
    return Launch(kernel_, n, Mem(x), Mem(ctx->input(1)), Mem(ctx->input(2)), Mem(ctx->input(3)),
                  Mem(ctx->input(4)), Mem(y), n, static_cast<cl_int>(channels), inner, epsilon_);
  }

 private:
  float epsilon_ = 1e-4f;
  bool nchw_ = false;
  ClKernel kernel_;
};

// Sum, Mean, Max: the reduced axes are moved last (a transpose, unless they already are) and
// each contiguous row is reduced by one work item.
class ReductionOp : public OpenClOpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "keep_dims", &keep_dims_));
    kind_ = type_string() == "Sum" ? 0 : type_string() == "Mean" ? 1 : 2;
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), NnProgram(), "reduce_rows"));
    GRT_CONSTRUCT_OK(ctx, gather_.Load(cl(), ArrayProgram(), "strided_gather"));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> axes;
    GRT_RETURN_IF_ERROR(ReadIntegers(ctx->input(1), "reduction_indices", &axes));
    const int rank = input.dims();
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
      if (a < -rank || a >= rank) {
        return InvalidArgument("Invalid reduction dimension (", a, " for input with ", rank,
                               " dimension(s)");
      }
      reduced[a < 0 ? a + rank : a] = true;
    }
    std::vector<int> perm;
    std::vector<int64_t> out_dims;
    int64_t rows = 1, cols = 1;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        perm.push_back(d);
        rows *= input.dim_size(d);
        out_dims.push_back(input.dim_size(d));
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
    }
    for (int d = 0; d < rank; ++d) {
      if (reduced[d]) {
        perm.push_back(d);
        cols *= input.dim_size(d);
      }
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, TensorShape(out_dims), &out));
    GRT_RETURN_IF_ERROR(CheckOpenClSize(input.NumElements(), "the input"));
    Tensor rows_major = input;
    bool in_order = true;
    for (int d = 0; d < rank; ++d) in_order &= perm[d] == d;
    if (!in_order && input.NumElements() > 0) {
      GRT_RETURN_IF_ERROR(Transpose(gather_, input, perm, &rows_major));
    }
    return Launch(kernel_, rows, Mem(rows_major), Mem(out), static_cast<cl_int>(rows),
                  static_cast<cl_int>(cols), cl_int{kind_});
  }

 private:
  bool keep_dims_ = false;
  int kind_ = 0;
  ClKernel kernel_, gather_;
};

// The attrs the pooling kernel refuses, for the placer (PoolOp checks them again).
std::string PoolLimitation(const ::tensorflow::NodeDef& node) {
  const ::tensorflow::AttrValue* padding = FindAttr(node, "padding");
  if (padding != nullptr && padding->s() == "EXPLICIT") return "padding=EXPLICIT";
  const ::tensorflow::AttrValue* format = FindAttr(node, "data_format");
  int depth = format != nullptr && format->s() == "NCHW" ? 1 : 3;
  for (const char* name : {"ksize", "strides"}) {
    const ::tensorflow::AttrValue* attr = FindAttr(node, name);
    if (attr == nullptr || attr->list().i_size() != 4) continue;
    if (attr->list().i(0) != 1 || attr->list().i(depth) != 1) {
      return StrCat(name, " other than 1 in the batch or depth dimension");
    }
  }
  return "";
}

// The OpenCL kernel computes inference only (y from the given mean and variance).
std::string BatchNormLimitation(const ::tensorflow::NodeDef& node) {
  const ::tensorflow::AttrValue* training = FindAttr(node, "is_training");
  // is_training defaults to true in all three ops' definitions.
  if (training == nullptr || training->b()) return "is_training=true (inference only)";
  return "";
}

}  // namespace

void RegisterOpenClNnKernels(KernelRegistry* r) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    r->Register(KernelDefBuilder(op)
                    .Device(kDeviceGpu)
                    .TypeConstraint<float>("T")
                    .AttrCheck(PoolLimitation),
                MakeFactory<PoolOp>());
  }
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceGpu).TypeConstraint<float>("T"),
                MakeFactory<SoftmaxOp>());
  }
  r->Register(KernelDefBuilder("FusedBatchNorm")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("T")
                  .AttrCheck(BatchNormLimitation),
              MakeFactory<FusedBatchNormOp>());
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
    r->Register(KernelDefBuilder(op)
                    .Device(kDeviceGpu)
                    .TypeConstraint<float>("T")
                    .TypeConstraint<float>("U")
                    .AttrCheck(BatchNormLimitation),
                MakeFactory<FusedBatchNormOp>());
  }
  for (const char* op : {"Sum", "Mean", "Max"}) {
    r->Register(KernelDefBuilder(op)
                    .Device(kDeviceGpu)
                    .TypeConstraint<float>("T")
                    .TypeConstraint("Tidx", {::tensorflow::DT_INT32, ::tensorflow::DT_INT64})
                    .HostMemory("reduction_indices"),
                MakeFactory<ReductionOp>());
  }
}

}  // namespace graphrt
