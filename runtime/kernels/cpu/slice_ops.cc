// Slice and StridedSlice.
//
// StridedSlice follows TensorFlow's ValidateStridedSliceOp: the sparse spec (one entry per
// element of begin/end/strides, with ellipsis and new-axis entries) is expanded to a dense spec
// (one entry per input dim), masked and negative indices are made explicit and clamped, and the
// result has a "processing" shape (one dim per input dim) and a final shape (new axes added,
// shrunk axes dropped). Both ops then copy a strided box; a slice that takes whole rows of dim 0
// shares the input's buffer, and a slice that takes everything is the input itself.
#include <algorithm>

#include "runtime/kernels/cpu/array_kernels.h"
#include "runtime/kernels/common/array_util.h"
#include "runtime/kernels/cpu/strided_copy.h"
#include "runtime/kernels/common/strided_slice_spec.h"

namespace graphrt {

namespace {

// Copies the box begin[i] + k * strides[i], k < out_dims[i], of `input` into a new output.
Status CopyBox(OpKernelContext* ctx, const Tensor& input, const std::vector<int64_t>& begin,
               const std::vector<int64_t>& strides, const std::vector<int64_t>& out_dims,
               const TensorShape& final_shape) {
  Tensor* out = nullptr;
  GRT_RETURN_IF_ERROR(ctx->allocate_output(0, final_shape, &out));
  if (out->NumElements() == 0) return Status::OK();
  const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
  StridedBox box;
  box.sizes = out_dims;
  box.dst_strides = RowMajorStrides(out_dims);
  int64_t offset = 0;
  for (size_t i = 0; i < out_dims.size(); ++i) {
    offset += begin[i] * in_strides[i];
    box.src_strides.push_back(strides[i] * in_strides[i]);
  }
  const char* src = static_cast<const char*>(input.raw_data()) +
                    offset * static_cast<int64_t>(ElementObjectSize(input.dtype()));
  CopyStrided(input.dtype(), box, src, out->raw_data(), ctx->device());
  return Status::OK();
}

// Rows [begin, end) of dim 0 as a tensor of `shape`, sharing the input's buffer.
Tensor Dim0Rows(const Tensor& input, int64_t begin, int64_t end, const TensorShape& shape) {
  return input.Slice(std::min(begin, end), end).Reshaped(shape);
}

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_tensor = ctx->input(2);
    const int rank = input.dims();
    if (begin_t.dims() != 1 || size_tensor.dims() != 1 || begin_t.NumElements() != rank ||
        size_tensor.NumElements() != rank) {
      return InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ", rank,
                             ", but got shapes ", begin_t.shape().DebugString(), " and ",
                             size_tensor.shape().DebugString(), " instead.");
    }
    std::vector<int64_t> begin, size;
    GRT_RETURN_IF_ERROR(ReadIntegers(begin_t, "begin", &begin));
    GRT_RETURN_IF_ERROR(ReadIntegers(size_tensor, "size", &size));
    bool is_identity = true, slice_dim0 = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = input.dim_size(i), b = begin[i];
      int64_t s = size[i];
      if (s == -1 && b >= 0 && b <= dim) s = dim - b;
      if (dim == 0) {
        if (b != 0 || s != 0) {
          return InvalidArgument("Expected begin[", i, "] == 0 (got ", b, ") and size[", i,
                                 "] == 0 (got ", s, ") when input.dim_size(", i, ") == 0");
        }
      } else {
        if (b < 0 || b > dim) {
          return InvalidArgument("Expected begin[", i, "] in [0, ", dim, "], but got ", b);
        }
        if (s < 0 || s > dim - b) {
          return InvalidArgument("Expected size[", i, "] in [0, ", dim - b, "], but got ", s);
        }
      }
      size[i] = s;
      const bool take_all = b == 0 && s == dim;
      is_identity &= take_all;
      slice_dim0 &= i == 0 || take_all;
    }
    const TensorShape out_shape(size);
    if (is_identity) {
      ctx->set_output(0, input);
      return Status::OK();
    }
    if (slice_dim0) {
      ctx->set_output(0, Dim0Rows(input, begin[0], begin[0] + size[0], out_shape));
      return Status::OK();
    }
    return CopyBox(ctx, input, begin, std::vector<int64_t>(rank, 1), size, out_shape);
  }
};

// ---------------------------------------------------------------------------------------------
// StridedSlice.

}  // namespace

namespace {

// A mask attr as TensorFlow reads it (an int32: -1 sets all 32 bits), widened so that shifts by
// up to 32 stay defined.
Status GetMask(OpKernelConstruction* ctx, const char* name, int64_t* mask) {
  int32_t value = 0;
  GRT_RETURN_IF_ERROR(ctx->GetAttr(name, &value));
  *mask = static_cast<int64_t>(static_cast<uint32_t>(value));
  return Status::OK();
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, GetMask(ctx, "begin_mask", &begin_mask_));
    GRT_CONSTRUCT_OK(ctx, GetMask(ctx, "end_mask", &end_mask_));
    GRT_CONSTRUCT_OK(ctx, GetMask(ctx, "ellipsis_mask", &ellipsis_mask_));
    GRT_CONSTRUCT_OK(ctx, GetMask(ctx, "new_axis_mask", &new_axis_mask_));
    GRT_CONSTRUCT_OK(ctx, GetMask(ctx, "shrink_axis_mask", &shrink_axis_mask_));
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StridedSliceSpec spec;
    GRT_RETURN_IF_ERROR(ValidateStridedSlice(input.shape(), ctx->input(1), ctx->input(2),
                                             ctx->input(3), begin_mask_, end_mask_, ellipsis_mask_,
                                             new_axis_mask_, shrink_axis_mask_, &spec));
    if (spec.is_identity) {
      ctx->set_output(0, input.Reshaped(spec.final_shape));
      return Status::OK();
    }
    if (spec.slice_dim0 && input.dims() >= 1) {
      ctx->set_output(0, Dim0Rows(input, spec.begin[0], spec.end[0], spec.final_shape));
      return Status::OK();
    }
    return CopyBox(ctx, input, spec.begin, spec.strides, spec.processing_dims, spec.final_shape);
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0,
          shrink_axis_mask_ = 0;
};

}  // namespace

void RegisterSliceKernels(KernelRegistry* r) {
  const std::vector<DataType>& types = MovableTypes();
  r->Register(KernelDefBuilder("Slice")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .HostMemory("begin")
                  .HostMemory("size"),
              MakeFactory<SliceOp>());
  r->Register(KernelDefBuilder("StridedSlice")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .HostMemory("begin")
                  .HostMemory("end")
                  .HostMemory("strides"),
              MakeFactory<StridedSliceOp>());
}

}  // namespace graphrt
