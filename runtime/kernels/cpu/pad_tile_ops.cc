// Pad, PadV2, MirrorPad, Tile, Reverse, ReverseV2: each a few strided copies.
//
// Pad copies the input into the interior of the output and fills the border one dim at a time
// (for dim d: the cells inside the interior on dims before d, in d's padding, anywhere after d),
// so every output cell is written once. MirrorPad fills the same regions in increasing d from
// already-written cells of the output itself, read backwards. Tile reads the input with stride 0
// along a repeat axis added before each dim; Reverse reads with negative strides.
#include <cstring>
#include <limits>

#include "runtime/kernels/cpu/array_kernels.h"
#include "runtime/kernels/common/array_util.h"
#include "runtime/kernels/cpu/strided_copy.h"

namespace graphrt {

namespace {

char* ElementAt(const void* base, DataType dtype, int64_t index) {
  return static_cast<char*>(const_cast<void*>(base)) +
         index * static_cast<int64_t>(ElementObjectSize(dtype));
}

// Reads an [rank, 2] paddings matrix. `sep` is what TensorFlow puts between the two shapes of the
// rank-mismatch message ("" for Pad, ", " for MirrorPad).
Status ReadPaddings(const Tensor& input, const Tensor& paddings_t, const char* sep,
                    std::vector<int64_t>* before, std::vector<int64_t>* after) {
  if (paddings_t.dims() != 2 || paddings_t.dim_size(1) != 2) {
    return InvalidArgument("paddings must be a matrix with 2 columns: ",
                           paddings_t.shape().DebugString());
  }
  if (paddings_t.dim_size(0) != input.dims()) {
    return InvalidArgument("The first dimension of paddings must be the rank of inputs",
                           paddings_t.shape().DebugString(), sep, " ", input.shape().DebugString());
  }
  std::vector<int64_t> values;
  GRT_RETURN_IF_ERROR(ReadIntegers(paddings_t, "paddings", &values));
  before->clear();
  after->clear();
  for (int d = 0; d < input.dims(); ++d) {
    before->push_back(values[2 * d]);
    after->push_back(values[2 * d + 1]);
  }
  return Status::OK();
}

// Writes `input` into the interior of `out`.
void CopyInterior(const Tensor& input, const std::vector<int64_t>& before, Tensor* out,
                  const Device* device) {
  const std::vector<int64_t> out_strides = RowMajorStrides(out->shape().dim_sizes());
  int64_t offset = 0;
  for (size_t d = 0; d < before.size(); ++d) offset += before[d] * out_strides[d];
  StridedBox box{input.shape().dim_sizes(), RowMajorStrides(input.shape().dim_sizes()),
                 out_strides};
  CopyStrided(input.dtype(), box, input.raw_data(),
              ElementAt(out->raw_data(), out->dtype(), offset), device);
}

// The border region of dim d: dims before d over the interior (or, for MirrorPad, the whole
// output), dim d over [start, start + count), dims after d over the interior.
struct Region {
  std::vector<int64_t> sizes;
  int64_t offset = 0;  // of the region's first cell in the output
};

Region BorderRegion(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& before,
                    const std::vector<int64_t>& out_dims, const std::vector<int64_t>& out_strides,
                    int d, int64_t start, int64_t count, bool whole_before) {
  Region region;
  for (int j = 0; j < static_cast<int>(in_dims.size()); ++j) {
    if (j == d) {
      region.sizes.push_back(count);
      region.offset += start * out_strides[j];
    } else if (j < d && whole_before) {
      region.sizes.push_back(out_dims[j]);
    } else if (j < d) {
      region.sizes.push_back(in_dims[j]);
      region.offset += before[j] * out_strides[j];
    } else {
      region.sizes.push_back(in_dims[j]);
      region.offset += before[j] * out_strides[j];
    }
  }
  return region;
}

class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> before, after;
    GRT_RETURN_IF_ERROR(ReadPaddings(input, ctx->input(1), "", &before, &after));
    Tensor pad_value(input.dtype(), TensorShape());
    if (ctx->num_inputs() == 3) {
      const Tensor& constant = ctx->input(2);
      if (constant.dims() != 0) {
        return InvalidArgument("constant_values must be a scalar. Found: ",
                               constant.shape().DebugString());
      }
      pad_value = constant;
    } else if (IsPodType(input.dtype())) {
      std::memset(pad_value.raw_data(), 0, pad_value.TotalBytes());
    }
    std::vector<int64_t> out_dims;
    for (int d = 0; d < input.dims(); ++d) {
      if (before[d] < 0 || after[d] < 0) {
        return InvalidArgument("Paddings must be non-negative: ", before[d], " ", after[d]);
      }
      out_dims.push_back(before[d] + input.dim_size(d) + after[d]);
    }
    TensorShape out_shape;
    GRT_RETURN_IF_ERROR(ShapeFromSizes(out_dims, &out_shape));
    if (out_shape.num_elements() == input.NumElements()) {
      ctx->set_output(0, input.Reshaped(out_shape));
      return Status::OK();
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const std::vector<int64_t>& in_dims = input.shape().dim_sizes();
    const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
    const std::vector<int64_t> zeros(out_dims.size(), 0);
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t ranges[2][2] = {{0, before[d]}, {before[d] + in_dims[d], after[d]}};
      for (const auto& range : ranges) {
        if (range[1] == 0) continue;
        Region region = BorderRegion(in_dims, before, out_dims, out_strides, d, range[0], range[1],
                                     /*whole_before=*/false);
        // Dims after d cover their whole extent, padding included.
        for (int j = d + 1; j < input.dims(); ++j) {
          region.offset -= before[j] * out_strides[j];
          region.sizes[j] = out_dims[j];
        }
        CopyStrided(input.dtype(), StridedBox{region.sizes, zeros, out_strides},
                    pad_value.raw_data(), ElementAt(out->raw_data(), out->dtype(), region.offset),
                    ctx->device());
      }
    }
    CopyInterior(input, before, out, ctx->device());
    return Status::OK();
  }
};

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("mode", &mode));
    if (mode == "REFLECT") {
      reflect_ = true;
    } else if (mode != "SYMMETRIC") {
      ctx->SetStatus(InvalidArgument("mode must be either REFLECT or SYMMETRIC."));
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> before, after;
    GRT_RETURN_IF_ERROR(ReadPaddings(input, ctx->input(1), ",", &before, &after));
    std::vector<int64_t> out_dims;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t size = input.dim_size(d);
      if (before[d] < 0 || after[d] < 0) {
        return InvalidArgument("paddings must be non-negative: ", before[d], " ", after[d]);
      }
      if (reflect_ && (before[d] >= size || after[d] >= size)) {
        return InvalidArgument("paddings must be less than the dimension size: ", before[d], ", ",
                               after[d], " not less than ", size);
      }
      if (!reflect_ && (before[d] > size || after[d] > size)) {
        return InvalidArgument("paddings must be no greater than the dimension size: ", before[d],
                               ", ", after[d], " greater than ", size);
      }
      out_dims.push_back(before[d] + size + after[d]);
    }
    TensorShape out_shape(out_dims);
    if (out_shape.num_elements() == input.NumElements()) {
      ctx->set_output(0, input.Reshaped(out_shape));
      return Status::OK();
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    CopyInterior(input, before, out, ctx->device());
    const std::vector<int64_t>& in_dims = input.shape().dim_sizes();
    const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
    // REFLECT mirrors around the edge element, SYMMETRIC repeats it.
    const int64_t shift = reflect_ ? 0 : 1;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t size = in_dims[d];
      // Left border cell before - 1 - k mirrors interior cell before + k + 1 - shift, read
      // backwards from the border's first cell.
      const int64_t left_src = 2 * before[d] - shift;
      const int64_t right_start = before[d] + size;
      const int64_t right_src = before[d] + size - 2 + shift;
      const int64_t parts[2][3] = {{0, before[d], left_src}, {right_start, after[d], right_src}};
      for (const auto& part : parts) {
        if (part[1] == 0) continue;
        Region region = BorderRegion(in_dims, before, out_dims, out_strides, d, part[0], part[1],
                                     /*whole_before=*/true);
        std::vector<int64_t> src_strides = out_strides;
        src_strides[d] = -out_strides[d];
        const int64_t src_offset = region.offset + (part[2] - part[0]) * out_strides[d];
        CopyStrided(input.dtype(), StridedBox{region.sizes, src_strides, out_strides},
                    ElementAt(out->raw_data(), out->dtype(), src_offset),
                    ElementAt(out->raw_data(), out->dtype(), region.offset), ctx->device());
      }
    }
    return Status::OK();
  }

 private:
  bool reflect_ = false;
};

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples_t = ctx->input(1);
    if (multiples_t.dims() != 1) {
      return InvalidArgument("Expected multiples to be 1-D, but got shape ",
                             multiples_t.shape().DebugString());
    }
    const int rank = input.dims();
    if (multiples_t.NumElements() != rank) {
      return InvalidArgument("Expected multiples argument to be a vector of length ", rank,
                             " but got length ", multiples_t.dim_size(0));
    }
    if (rank == 0) {
      ctx->set_output(0, input);
      return Status::OK();
    }
    std::vector<int64_t> multiples;
    GRT_RETURN_IF_ERROR(ReadIntegers(multiples_t, "multiples", &multiples));
    std::vector<int64_t> out_dims;
    for (int i = 0; i < rank; ++i) {
      if (multiples[i] < 0) {
        return InvalidArgument("Expected multiples[", i, "] >= 0, but got ", multiples[i]);
      }
      if (multiples[i] > 0 &&
          input.dim_size(i) > std::numeric_limits<int64_t>::max() / multiples[i]) {
        return InvalidArgument("Tile output dim ", i, " overflows int64");
      }
      out_dims.push_back(input.dim_size(i) * multiples[i]);
    }
    TensorShape out_shape;
    GRT_RETURN_IF_ERROR(ShapeFromSizes(out_dims, &out_shape));
    if (out_shape == input.shape()) {
      ctx->set_output(0, input);
      return Status::OK();
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    // Output dim i viewed as [multiples[i], in_dim[i]]: the repeat axis reads with stride 0.
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
    const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
    StridedBox box;
    for (int i = 0; i < rank; ++i) {
      box.sizes.insert(box.sizes.end(), {multiples[i], input.dim_size(i)});
      box.src_strides.insert(box.src_strides.end(), {0, in_strides[i]});
      box.dst_strides.insert(box.dst_strides.end(),
                             {input.dim_size(i) * out_strides[i], out_strides[i]});
    }
    CopyStrided(input.dtype(), box, input.raw_data(), out->raw_data(), ctx->device());
    return Status::OK();
  }
};

// Reverse (a bool per dim) and ReverseV2 (a list of axes).
class ReverseOp : public OpKernel {
 public:
  explicit ReverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    by_mask_ = ctx->def().op() == "Reverse";
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes_t = ctx->input(1);
    const int rank = input.dims();
    std::vector<bool> reverse(static_cast<size_t>(rank), false);
    if (by_mask_) {
      if (axes_t.dims() != 1) {
        return InvalidArgument("'dims' must be 1-dimension, not ", axes_t.dims());
      }
      if (axes_t.NumElements() != rank) {
        return InvalidArgument(
            "'dims' must have the same number of values as 'input' has "
            "dimensions. 'input' has ",
            rank, "'dims' has ", axes_t.NumElements(), " values");
      }
      for (int i = 0; i < rank; ++i) reverse[i] = axes_t.data<bool>()[i];
    } else {
      if (axes_t.dims() != 1) {
        return InvalidArgument("'axis' must be 1-dimension, not ", axes_t.dims());
      }
      std::vector<int64_t> axes;
      GRT_RETURN_IF_ERROR(ReadIntegers(axes_t, "axis", &axes));
      for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (axis < 0 || axis >= rank) {
          return InvalidArgument("'axis'[", i, "] = ", axis, " is out of valid range [0, ",
                                 rank - 1);
        }
        if (reverse[axis]) return InvalidArgument("axis ", axis, " specified more than once.");
        reverse[axis] = true;
      }
    }
    bool any = false;
    for (int i = 0; i < rank; ++i) any |= reverse[i] && input.dim_size(i) > 1;
    if (!any) {
      ctx->set_output(0, input);
      return Status::OK();
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, input.shape(), &out));
    const std::vector<int64_t>& dims = input.shape().dim_sizes();
    StridedBox box{dims, RowMajorStrides(dims), RowMajorStrides(dims)};
    int64_t start = 0;
    for (int i = 0; i < rank; ++i) {
      if (!reverse[i]) continue;
      start += (dims[i] - 1) * box.src_strides[i];
      box.src_strides[i] = -box.src_strides[i];
    }
    CopyStrided(input.dtype(), box, ElementAt(input.raw_data(), input.dtype(), start),
                out->raw_data(), ctx->device());
    return Status::OK();
  }

 private:
  bool by_mask_ = false;
};

}  // namespace

void RegisterPadTileKernels(KernelRegistry* r) {
  const std::vector<DataType>& types = MovableTypes();
  r->Register(KernelDefBuilder("Pad")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int32_t, int64_t>("Tpaddings")
                  .HostMemory("paddings"),
              MakeFactory<PadOp>());
  r->Register(KernelDefBuilder("PadV2")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int32_t, int64_t>("Tpaddings")
                  .HostMemory("paddings")
                  .HostMemory("constant_values"),
              MakeFactory<PadOp>());
  r->Register(KernelDefBuilder("MirrorPad")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int32_t, int64_t>("Tpaddings")
                  .HostMemory("paddings"),
              MakeFactory<MirrorPadOp>());
  r->Register(KernelDefBuilder("Tile")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int32_t, int64_t>("Tmultiples")
                  .HostMemory("multiples"),
              MakeFactory<TileOp>());
  r->Register(
      KernelDefBuilder("Reverse").Device(kDeviceCpu).TypeConstraint("T", types).HostMemory("dims"),
      MakeFactory<ReverseOp>());
  r->Register(KernelDefBuilder("ReverseV2")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<int32_t, int64_t>("Tidx")
                  .HostMemory("axis"),
              MakeFactory<ReverseOp>());
}

}  // namespace graphrt
