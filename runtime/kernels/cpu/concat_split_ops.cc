// Joining and splitting along one axis: Pack, Unpack, ConcatV2, Concat, Split, SplitV.
//
// Each reduces to a 2-D problem: the tensors viewed as [outer, inner] where outer is the product
// of the dims before the axis, so that joining is copying column blocks of one matrix. Outputs
// that are a contiguous block of the input (splits whose outer size is 1) share its buffer.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/cpu/array_kernels.h"
#include "runtime/kernels/common/array_util.h"

namespace graphrt {

namespace {

// Moves column blocks between a matrix [outer, sum of widths] and parts [outer, widths[k]]:
// kJoin copies the parts into the matrix (Concat, Pack), else the matrix into the parts (Split,
// Unpack). One parallel pass over the matrix in order, so each of its cache lines is touched
// once however narrow the blocks are.
template <typename T, bool kJoin>
void MoveColumns(T* matrix, const std::vector<T*>& parts, const std::vector<int64_t>& widths,
                 int64_t outer, const Device* device) {
  std::vector<int64_t> offsets(1, 0);  // offsets[k] is part k's first column
  for (int64_t w : widths) offsets.push_back(offsets.back() + w);
  const int64_t total = offsets.back();
  const int64_t n = outer * total;
  if (n == 0) return;
  auto work = [&](int64_t begin, int64_t end) {
    int64_t row = begin / total, col = begin % total;
    size_t k = std::upper_bound(offsets.begin(), offsets.end(), col) - offsets.begin() - 1;
    for (int64_t pos = begin; pos < end;) {
      while (col >= offsets[k + 1]) ++k;  // past empty parts
      const int64_t take = std::min(end - pos, offsets[k + 1] - col);
      T* part = parts[k] + row * widths[k] + (col - offsets[k]);
      if (kJoin) {
        CopyRun(part, matrix + pos, take);
      } else {
        CopyRun(matrix + pos, part, take);
      }
      pos += take;
      col += take;
      if (col == total) {
        col = 0;
        ++row;
        k = 0;
      }
    }
  };
  const int64_t cost =
      static_cast<int64_t>(sizeof(T)) / 4 + 1 + (std::is_trivially_copyable_v<T> ? 0 : 20);
  if (device == nullptr || n * cost < 100000) {
    work(0, n);
  } else {
    device->ParallelFor(n, cost, work);
  }
}

// Copies each input (viewed [outer, inner_i]) into its column block of out ([outer, sum inner_i]).
void ConcatColumns(const std::vector<const Tensor*>& inputs, int64_t outer, Tensor* out,
                   const Device* device) {
  VisitElementKind(out->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T*> parts;
    std::vector<int64_t> widths;
    for (const Tensor* in : inputs) {
      parts.push_back(const_cast<T*>(in->data<T>()));
      widths.push_back(outer > 0 ? in->NumElements() / outer : 0);
    }
    MoveColumns<T, true>(out->data<T>(), parts, widths, outer, device);
  }).IgnoreError();
}

// Outputs input (viewed [outer, sum widths]) split into column blocks of the given widths, with
// the given shapes. When outer is 1 each block is a contiguous piece and shares the input's
// buffer.
Status SplitColumns(OpKernelContext* ctx, const Tensor& input, int64_t outer,
                    const std::vector<int64_t>& widths, const std::vector<TensorShape>& shapes) {
  if (outer == 1) {
    const int64_t total = input.NumElements();
    int64_t column = 0;
    for (size_t i = 0; i < widths.size(); ++i) {
      Tensor block = total > 0 ? input.Reshaped(TensorShape({total}))
                                     .Slice(column, column + widths[i])
                                     .Reshaped(shapes[i])
                               : Tensor(input.dtype(), shapes[i]);
      ctx->set_output(static_cast<int>(i), block);
      column += widths[i];
    }
    return Status::OK();
  }
  std::vector<Tensor*> outputs(widths.size());
  for (size_t i = 0; i < widths.size(); ++i) {
    GRT_RETURN_IF_ERROR(ctx->allocate_output(static_cast<int>(i), shapes[i], &outputs[i]));
  }
  return VisitElementKind(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T*> parts;
    for (Tensor* out : outputs) parts.push_back(out->data<T>());
    MoveColumns<T, false>(const_cast<T*>(input.data<T>()), parts, widths, outer, ctx->device());
  });
}

int64_t Product(const TensorShape& shape, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= shape.dim_size(i);
  return p;
}

// ---------------------------------------------------------------------------------------------

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  Status Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const TensorShape& shape0 = ctx->input(0).shape();
    const int out_rank = shape0.dims() + 1;
    if (axis_ < -out_rank || axis_ >= out_rank) {
      return InvalidArgument("axis = ", axis_, " not in [", -out_rank, ", ", out_rank, ")");
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + out_rank : axis_);
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      if (ctx->input(i).shape() != shape0) {
        return InvalidArgument(
            "Shapes of all inputs must match: values[0].shape = ", shape0.DebugString(),
            " != values[", i, "].shape = ", ctx->input(i).shape().DebugString());
      }
      inputs.push_back(&ctx->input(i));
    }
    TensorShape out_shape = shape0;
    out_shape.InsertDim(axis, n);
    if (n == 1) {
      ctx->set_output(0, ctx->input(0).Reshaped(out_shape));
      return Status::OK();
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    ConcatColumns(inputs, Product(shape0, 0, axis), out, ctx->device());
    return Status::OK();
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    if (axis_ < -rank || axis_ >= rank) {
      return InvalidArgument("axis = ", axis_, " not in [", -rank, ", ", rank, ")");
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int num = ctx->num_outputs();
    if (input.dim_size(axis) != num) {
      return InvalidArgument("Input shape axis ", axis, " must equal ", num, ", got shape ",
                             input.shape().DebugString());
    }
    TensorShape out_shape = input.shape();
    out_shape.RemoveDim(axis);
    const int64_t outer = Product(input.shape(), 0, axis);
    const int64_t inner = Product(input.shape(), axis + 1, rank);
    return SplitColumns(ctx, input, outer, std::vector<int64_t>(num, inner),
                        std::vector<TensorShape>(num, out_shape));
  }

 private:
  int64_t axis_ = 0;
};

// ConcatV2 (values..., axis) and Concat (concat_dim, values...).
class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    axis_first_ = ctx->def().op() == "Concat";
  }

  Status Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const int first = axis_first_ ? 1 : 0;
    const Tensor& axis_t = ctx->input(axis_first_ ? 0 : n);
    const char* axis_name = axis_first_ ? "concat_dim" : "axis";
    if (axis_t.dims() > 1 || axis_t.NumElements() != 1) {
      return InvalidArgument(axis_name, " tensor should be a scalar integer, but got shape ",
                             axis_t.shape().DebugString());
    }
    int64_t concat_dim = 0;
    GRT_RETURN_IF_ERROR(ReadIntegerScalar(axis_t, axis_name, &concat_dim));
    const TensorShape& shape0 = ctx->input(first).shape();
    const int rank = shape0.dims();
    const int64_t axis = concat_dim < 0 ? concat_dim + rank : concat_dim;
    // Scalars concatenate into a vector (TensorFlow's legacy rule) when concat_dim is 0.
    if (!((0 <= axis && axis < rank) || (rank == 0 && concat_dim == 0))) {
      return InvalidArgument("ConcatOp : Expected concatenating dimensions in the range [", -rank,
                             ", ", rank, "), but got ", concat_dim);
    }
    const int64_t outer = Product(shape0, 0, static_cast<int>(axis));
    int64_t concat_size = 0;
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(first + i);
      if (in.dims() != rank) {
        return InvalidArgument(
            "ConcatOp : Ranks of all input tensors should match: shape[0] = ", shape0.DebugString(),
            " vs. shape[", i, "] = ", in.shape().DebugString());
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && in.dim_size(d) != shape0.dim_size(d)) {
          return InvalidArgument("ConcatOp : Dimension ", d,
                                 " in both shapes must be equal: shape[0] = ", shape0.DebugString(),
                                 " vs. shape[", i, "] = ", in.shape().DebugString());
        }
      }
      concat_size += rank > 0 ? in.dim_size(static_cast<int>(axis)) : 1;
      inputs.push_back(&in);
    }
    TensorShape out_shape = shape0;
    if (rank == 0) {
      out_shape.AddDim(concat_size);
    } else {
      out_shape.set_dim(static_cast<int>(axis), concat_size);
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    ConcatColumns(inputs, outer, out, ctx->device());
    return Status::OK();
  }

 private:
  bool axis_first_ = false;
};

// The split axis from a scalar int32 tensor, checked against the input's rank.
Status SplitAxis(const Tensor& axis_t, const Tensor& input, int* axis) {
  if (axis_t.dims() != 0) {
    return InvalidArgument("split_dim must be a scalar but has rank ", axis_t.dims());
  }
  int64_t split_dim = 0;
  GRT_RETURN_IF_ERROR(ReadIntegerScalar(axis_t, "split_dim", &split_dim));
  const int rank = input.dims();
  if (split_dim < -rank || split_dim >= rank) {
    return InvalidArgument("-input rank(-", rank, ") <= split_dim < input rank (", rank,
                           "), but got ", split_dim);
  }
  *axis = static_cast<int>(split_dim < 0 ? split_dim + rank : split_dim);
  return Status::OK();
}

// Outputs the pieces of `input` along `axis` with the given sizes.
Status OutputSplits(OpKernelContext* ctx, const Tensor& input, int axis,
                    const std::vector<int64_t>& sizes) {
  if (sizes.size() == 1) {
    ctx->set_output(0, input);
    return Status::OK();
  }
  const int64_t outer = Product(input.shape(), 0, axis);
  const int64_t inner = Product(input.shape(), axis + 1, input.dims());
  std::vector<int64_t> widths;
  std::vector<TensorShape> shapes;
  for (int64_t size : sizes) {
    widths.push_back(size * inner);
    shapes.push_back(input.shape());
    shapes.back().set_dim(axis, size);
  }
  return SplitColumns(ctx, input, outer, widths, shapes);
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(1);
    int axis = 0;
    GRT_RETURN_IF_ERROR(SplitAxis(ctx->input(0), input, &axis));
    const int num = ctx->num_outputs();
    const int64_t dim = input.dim_size(axis);
    if (dim % num != 0) {
      return InvalidArgument(
          "Number of ways to split should evenly divide the split dimension, but got split_dim ",
          axis, " (size = ", dim, ") and num_split ", num);
    }
    return OutputSplits(ctx, input, axis, std::vector<int64_t>(num, dim / num));
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes_t = ctx->input(1);
    const int num = ctx->num_outputs();
    int axis = 0;
    GRT_RETURN_IF_ERROR(SplitAxis(ctx->input(2), input, &axis));
    if (sizes_t.dims() != 1 || sizes_t.NumElements() != num) {
      return InvalidArgument(
          "size of the split_tensor must be 1-D and have the same elements as "
          "outputs got ",
          sizes_t.dims(), " -D and ", sizes_t.NumElements(), " elements");
    }
    std::vector<int64_t> sizes;
    GRT_RETURN_IF_ERROR(ReadIntegers(sizes_t, "size_splits", &sizes));
    const int64_t dim = input.dim_size(axis);
    int unknown = -1;
    int64_t determined = 0;
    for (int i = 0; i < num; ++i) {
      if (sizes[i] == -1) {
        if (unknown != -1) return InvalidArgument("There can only be one -1 in the input.");
        unknown = i;
      } else if (sizes[i] < 0) {
        return InvalidArgument("Split size at index ", i, " must be >= 0. Got: ", sizes[i]);
      } else {
        determined += sizes[i];
      }
    }
    if ((unknown == -1 && determined != dim) || (unknown != -1 && determined > dim)) {
      return InvalidArgument(
          "Determined shape must either match input shape along split_dim exactly if fully "
          "specified, or be less than the size of the input along split_dim if not fully "
          "specified.  Got: ",
          determined);
    }
    if (unknown != -1) sizes[unknown] = dim - determined;
    return OutputSplits(ctx, input, axis, sizes);
  }
};

}  // namespace

void RegisterConcatSplitKernels(KernelRegistry* r) {
  const std::vector<DataType>& types = MovableTypes();
  r->Register(KernelDefBuilder("Pack").Device(kDeviceCpu).TypeConstraint("T", types),
              MakeFactory<PackOp>());
  r->Register(KernelDefBuilder("Unpack").Device(kDeviceCpu).TypeConstraint("T", types),
              MakeFactory<UnpackOp>());
  r->Register(KernelDefBuilder("ConcatV2")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int32_t, int64_t>("Tidx")
                  .HostMemory("axis"),
              MakeFactory<ConcatOp>());
  r->Register(KernelDefBuilder("Concat")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .HostMemory("concat_dim"),
              MakeFactory<ConcatOp>());
  r->Register(KernelDefBuilder("Split")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .HostMemory("split_dim"),
              MakeFactory<SplitOp>());
  r->Register(KernelDefBuilder("SplitV")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int8_t, int32_t, int64_t>("Tlen")
                  .HostMemory("size_splits")
                  .HostMemory("split_dim"),
              MakeFactory<SplitVOp>());
}

}  // namespace graphrt
