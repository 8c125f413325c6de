// OpenCL array kernels: Transpose, StridedSlice (strided gathers), Pad / PadV2 and ConcatV2.
// float32 only; shapes, permutations, paddings and slice specs are host-memory int tensors.
#include <algorithm>

#include "runtime/kernels/common/array_util.h"
#include "runtime/kernels/common/strided_slice_spec.h"
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {

namespace {

std::vector<int64_t> RowMajor(const TensorShape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.dims()));
  int64_t stride = 1;
  for (int d = shape.dims() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape.dim_size(d);
  }
  return strides;
}

class TransposeOp : public OpenClOpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, gather_.Load(cl(), ArrayProgram(), "strided_gather"));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> values;
    GRT_RETURN_IF_ERROR(ReadIntegers(ctx->input(1), "perm", &values));
    const int rank = input.dims();
    if (static_cast<int>(values.size()) != rank) {
      return InvalidArgument("transpose expects a vector of size ", rank,
                             ". But input(1) is a vector of size ", values.size());
    }
    std::vector<int> perm(values.begin(), values.end());
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int p : perm) {
      if (p < 0 || p >= rank || seen[p]) {
        return InvalidArgument(p, " is out of range or repeated in the permutation");
      }
      seen[p] = true;
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(Transpose(gather_, input, perm, &out));
    ctx->set_output(0, out);
    return Status::OK();
  }

 private:
  ClKernel gather_;
};

class StridedSliceOp : public OpenClOpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    for (auto [name, mask] : {std::pair<const char*, int64_t*>{"begin_mask", &begin_mask_},
                              {"end_mask", &end_mask_},
                              {"ellipsis_mask", &ellipsis_mask_},
                              {"new_axis_mask", &new_axis_mask_},
                              {"shrink_axis_mask", &shrink_axis_mask_}}) {
      int32_t value = 0;
      GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), name, &value));
      *mask = static_cast<int64_t>(static_cast<uint32_t>(value));
    }
    GRT_CONSTRUCT_OK(ctx, gather_.Load(cl(), ArrayProgram(), "strided_gather"));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& input = ctx->input(0);
    StridedSliceSpec spec;
    GRT_RETURN_IF_ERROR(ValidateStridedSlice(input.shape(), ctx->input(1), ctx->input(2),
                                             ctx->input(3), begin_mask_, end_mask_, ellipsis_mask_,
                                             new_axis_mask_, shrink_axis_mask_, &spec));
    if (spec.is_identity) {
      ctx->set_output(0, input.Reshaped(spec.final_shape));
      return Status::OK();
    }
    const int rank = input.dims();
    if (rank > kMaxOpenClRank) {
      return Unimplemented("OpenCL StridedSlice of more than ", kMaxOpenClRank, " dims");
    }
    std::vector<int64_t> in_strides = RowMajor(input.shape()), strides(rank);
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) {
      base += spec.begin[d] * in_strides[d];
      strides[d] = spec.strides[d] * in_strides[d];
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, spec.final_shape, &out));
    GRT_RETURN_IF_ERROR(CheckOpenClSize(input.NumElements(), "the input"));
    cl_int n = static_cast<cl_int>(out.NumElements());
    return Launch(gather_, n, Mem(input), Mem(out), n, static_cast<cl_int>(rank),
                  IntVector(spec.processing_dims), IntVector(strides), static_cast<cl_int>(base));
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0,
          shrink_axis_mask_ = 0;
  ClKernel gather_;
};

class PadOp : public OpenClOpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), ArrayProgram(), "pad_gather"));
  }
  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 0));
    const Tensor& input = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    const int rank = input.dims();
    if (paddings.dims() != 2 || paddings.dim_size(0) != rank || paddings.dim_size(1) != 2) {
      return InvalidArgument("paddings must be a matrix with 2 columns and ", rank,
                             " rows: ", paddings.shape().DebugString());
    }
    if (rank > kMaxOpenClRank) {
      return Unimplemented("OpenCL Pad of more than ", kMaxOpenClRank, " dims");
    }
    std::vector<int64_t> pads;
    GRT_RETURN_IF_ERROR(ReadIntegers(paddings, "paddings", &pads));
    std::vector<int64_t> out_dims(rank), before(rank);
    for (int d = 0; d < rank; ++d) {
      if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) {
        return InvalidArgument("Paddings must be non-negative: ", pads[2 * d], " ",
                               pads[2 * d + 1]);
      }
      before[d] = pads[2 * d];
      out_dims[d] = input.dim_size(d) + pads[2 * d] + pads[2 * d + 1];
    }
    float value = 0.0f;
    if (ctx->num_inputs() > 2) {
      // PadV2's constant: a float scalar in device memory.
      GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, 2));
      if (ctx->input(2).NumElements() != 1) {
        return InvalidArgument("constant_values must be a scalar");
      }
      GRT_ASSIGN_OR_RETURN(Tensor host, device()->CopyDeviceToHost(ctx->input(2)));
      value = host.data<float>()[0];
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, TensorShape(out_dims), &out));
    GRT_RETURN_IF_ERROR(CheckOpenClSize(out.NumElements(), "the output"));
    cl_int n = static_cast<cl_int>(out.NumElements());
    std::vector<int64_t> in_dims = input.shape().dim_sizes();
    return Launch(kernel_, n, Mem(input), Mem(out), n, static_cast<cl_int>(rank),
                  IntVector(out_dims), IntVector(in_dims), IntVector(before), value);
  }

 private:
  ClKernel kernel_;
};

class ConcatV2Op : public OpenClOpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpenClOpKernel(ctx) {
    if (!ctx->status().ok()) return;
    GRT_CONSTRUCT_OK(ctx, kernel_.Load(cl(), ArrayProgram(), "copy_block"));
  }
  Status Compute(OpKernelContext* ctx) override {
    const int n_values = ctx->num_inputs() - 1;
    int64_t axis = 0;
    GRT_RETURN_IF_ERROR(ReadIntegerScalar(ctx->input(n_values), "axis", &axis));
    const Tensor& first = ctx->input(0);
    const int rank = first.dims();
    if (axis < -rank || axis >= rank) {
      return InvalidArgument("ConcatOp : Expected concatenating dimensions in the range [", -rank,
                             ", ", rank, "), but got ", axis);
    }
    if (axis < 0) axis += rank;
    std::vector<int64_t> out_dims = first.shape().dim_sizes();
    out_dims[axis] = 0;
    for (int i = 0; i < n_values; ++i) {
      GRT_RETURN_IF_ERROR(CheckDeviceInput(ctx, i));
      const Tensor& t = ctx->input(i);
      if (t.dims() != rank) {
        return InvalidArgument("ConcatOp : Ranks of all input tensors should match: shape[0] = ",
                               first.shape().DebugString(), " vs. shape[", i,
                               "] = ", t.shape().DebugString());
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && t.dim_size(d) != first.dim_size(d)) {
          return InvalidArgument(
              "ConcatOp : Dimension ", d,
              " in both shapes must be equal: shape[0] = ", first.shape().DebugString(),
              " vs. shape[", i, "] = ", t.shape().DebugString());
        }
      }
      out_dims[axis] += t.dim_size(axis);
    }
    Tensor out;
    GRT_RETURN_IF_ERROR(AllocateOutput(ctx, 0, TensorShape(out_dims), &out));
    GRT_RETURN_IF_ERROR(CheckOpenClSize(out.NumElements(), "the output"));
    int64_t inner = 1;
    for (int d = axis + 1; d < rank; ++d) inner *= out_dims[d];
    const int64_t out_ld = out_dims[axis] * inner;
    int64_t column = 0;
    for (int i = 0; i < n_values; ++i) {
      const Tensor& t = ctx->input(i);
      const int64_t cols = t.dim_size(axis) * inner;
      cl_int n = static_cast<cl_int>(t.NumElements());
      if (n > 0) {
        GRT_RETURN_IF_ERROR(Launch(kernel_, n, Mem(t), Mem(out), n, static_cast<cl_int>(cols),
                                   static_cast<cl_int>(out_ld), static_cast<cl_int>(column)));
      }
      column += cols;
    }
    return Status::OK();
  }

 private:
  ClKernel kernel_;
};

}  // namespace

void RegisterOpenClArrayKernels(KernelRegistry* r) {
  const std::vector<DataType> int_types = {::tensorflow::DT_INT32, ::tensorflow::DT_INT64};
  r->Register(KernelDefBuilder("Transpose")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("T")
                  .TypeConstraint("Tperm", int_types)
                  .HostMemory("perm"),
              MakeFactory<TransposeOp>());
  r->Register(KernelDefBuilder("StridedSlice")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("T")
                  .TypeConstraint("Index", int_types)
                  .HostMemory("begin")
                  .HostMemory("end")
                  .HostMemory("strides"),
              MakeFactory<StridedSliceOp>());
  for (const char* op : {"Pad", "PadV2"}) {
    r->Register(KernelDefBuilder(op)
                    .Device(kDeviceGpu)
                    .TypeConstraint<float>("T")
                    .TypeConstraint("Tpaddings", int_types)
                    .HostMemory("paddings"),
                MakeFactory<PadOp>());
  }
  r->Register(KernelDefBuilder("ConcatV2")
                  .Device(kDeviceGpu)
                  .TypeConstraint<float>("T")
                  .TypeConstraint("Tidx", int_types)
                  .HostMemory("axis"),
              MakeFactory<ConcatV2Op>());
}

}  // namespace graphrt
