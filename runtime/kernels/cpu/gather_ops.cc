// GatherV2, Gather and OneHot: copies chosen by index tensors.
//
// Gather views params as [batch, outer, gather_dim, inner] and the output as
// [batch, outer, N, inner]; every index is checked before anything is copied, so a bad index is
// an INVALID_ARGUMENT (as on TensorFlow's CPU) naming the first one in row-major order.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/cpu/array_kernels.h"
#include "runtime/kernels/common/array_util.h"
#include "runtime/kernels/cpu/strided_copy.h"

namespace graphrt {

namespace {

struct GatherGeometry {
  int64_t batch = 1, outer = 1, gather_dim = 0, inner = 1;
  int64_t per_batch = 0;  // indices per batch entry
};

template <typename T>
void GatherRows(const T* params, const std::vector<int64_t>& indices, const GatherGeometry& g,
                T* out, const Device* device) {
  const int64_t items = g.batch * g.outer * g.per_batch;
  // Item (bo, j) copies params[bo][indices[b][j]] to out[bo][j], where bo = b * outer + o.
  auto work = [&](int64_t begin, int64_t end) {
    int64_t bo = begin / g.per_batch, j = begin % g.per_batch;
    for (int64_t item = begin; item < end; ++bo, j = 0) {
      const int64_t* index = indices.data() + (bo / g.outer) * g.per_batch;
      const T* base = params + bo * g.gather_dim * g.inner;
      const int64_t stop = std::min(end, item + (g.per_batch - j));
      T* dst = out + item * g.inner;
      if (g.inner == 1) {
        for (; item < stop; ++item, ++j) *dst++ = base[index[j]];
      } else {
        for (; item < stop; ++item, ++j, dst += g.inner) {
          CopyRun(base + index[j] * g.inner, dst, g.inner);
        }
      }
    }
  };
  const int64_t cost = g.inner * static_cast<int64_t>(sizeof(T)) / 4 + 5;
  if (device == nullptr || items * cost < 100000) {
    work(0, items);
  } else {
    device->ParallelFor(items, cost, work);
  }
}

class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("batch_dims")) {
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    if (params.dims() < 1) return InvalidArgument("params must be at least 1 dimensional");
    int64_t axis = 0;
    const bool axis_is_set = ctx->num_inputs() == 3;
    if (axis_is_set) {
      const Tensor& axis_t = ctx->input(2);
      if (axis_t.dims() != 0) return InvalidArgument("axis must be scalar");
      GRT_RETURN_IF_ERROR(ReadIntegerScalar(axis_t, "axis", &axis));
    }
    const int64_t min_params_dim = axis < 0 ? -axis : axis + 1;
    if (params.dims() < min_params_dim) {
      return InvalidArgument("Shape must be at least rank ", min_params_dim, " but is rank ",
                             params.dims());
    }
    if (axis < 0) axis += params.dims();
    int64_t batch_dims = batch_dims_;
    if (batch_dims != 0) {
      const int indices_rank = indices_t.dims();
      if (batch_dims < -indices_rank || batch_dims > indices_rank) {
        return InvalidArgument("Expected batch_dims in the range [", -indices_rank, ", ",
                               indices_rank, "], but got ", batch_dims);
      }
      if (batch_dims < 0) batch_dims += indices_rank;
      if (!axis_is_set) axis = batch_dims;
      if (batch_dims >= params.dims()) {
        return InvalidArgument("batch_dims (", batch_dims, ") must be less than rank(params) (",
                               params.dims(), ").");
      }
      if (axis < batch_dims) {
        return InvalidArgument("batch_dims (", batch_dims, ") must be less than or equal to axis (",
                               axis, ").");
      }
      for (int i = 0; i < batch_dims; ++i) {
        if (params.dim_size(i) != indices_t.dim_size(i)) {
          return InvalidArgument("params.shape[", i, "]: ", params.dim_size(i),
                                 " should be equal to indices.shape[", i,
                                 "]: ", indices_t.dim_size(i));
        }
      }
    }
    const int a = static_cast<int>(axis), bd = static_cast<int>(batch_dims);
    GatherGeometry g;
    g.gather_dim = params.dim_size(a);
    TensorShape out_shape;
    for (int i = 0; i < bd; ++i) {
      out_shape.AddDim(params.dim_size(i));
      g.batch *= params.dim_size(i);
    }
    for (int i = bd; i < a; ++i) {
      out_shape.AddDim(params.dim_size(i));
      g.outer *= params.dim_size(i);
    }
    for (int i = bd; i < indices_t.dims(); ++i) out_shape.AddDim(indices_t.dim_size(i));
    for (int i = a + 1; i < params.dims(); ++i) {
      out_shape.AddDim(params.dim_size(i));
      g.inner *= params.dim_size(i);
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    // As in TensorFlow, indices are only checked when something is gathered.
    if (out->NumElements() == 0) return Status::OK();
    std::vector<int64_t> indices;
    GRT_RETURN_IF_ERROR(ReadIntegers(indices_t, "indices", &indices));
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= g.gather_dim) {
        return InvalidArgument("indices", FlatIndexString(indices_t.shape(), i), " = ", indices[i],
                               " is not in [0, ", g.gather_dim, ")");
      }
    }
    g.per_batch = static_cast<int64_t>(indices.size()) / g.batch;
    return VisitElementKind(params.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      GatherRows(params.data<T>(), indices, g, out->data<T>(), ctx->device());
    });
  }

 private:
  int64_t batch_dims_ = 0;
};

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int out_rank = indices_t.dims() + 1;
    if (axis_ != -1 && (axis_ < 0 || axis_ >= out_rank)) {
      return InvalidArgument("Expected axis to be -1 or between [0, ", out_rank,
                             ").  But received: ", axis_);
    }
    if (depth_t.dims() != 0) {
      return InvalidArgument("depth must be a scalar, but got: ", depth_t.shape().DebugString());
    }
    if (on.dims() != 0) {
      return InvalidArgument("on_value must be a scalar, but got: ", on.shape().DebugString());
    }
    if (off.dims() != 0) {
      return InvalidArgument("off_value must be a scalar, but got: ", off.shape().DebugString());
    }
    const int axis = axis_ == -1 ? indices_t.dims() : static_cast<int>(axis_);
    const int64_t depth = depth_t.scalar<int32_t>();
    if (depth < 0) return InvalidArgument("depth must be non-negative, got: ", depth);
    TensorShape out_shape = indices_t.shape();
    out_shape.InsertDim(axis, depth);
    std::vector<int64_t> dims = out_shape.dim_sizes();
    GRT_RETURN_IF_ERROR(ShapeFromSizes(dims, &out_shape));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    FillElements(off.dtype(), off.raw_data(), out->raw_data(), out->NumElements(), ctx->device());
    std::vector<int64_t> indices;
    GRT_RETURN_IF_ERROR(ReadIntegers(indices_t, "indices", &indices));
    int64_t suffix = 1;
    for (int i = axis; i < indices_t.dims(); ++i) suffix *= indices_t.dim_size(i);
    return VisitElementKind(on.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T& on_value = on.scalar<T>();
      T* data = out->data<T>();
      for (size_t i = 0; i < indices.size(); ++i) {
        const int64_t index = indices[i];
        if (index < 0 || index >= depth) continue;
        const int64_t prefix = static_cast<int64_t>(i) / suffix,
                      s = static_cast<int64_t>(i) % suffix;
        data[(prefix * depth + index) * suffix + s] = on_value;
      }
    });
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

void RegisterGatherKernels(KernelRegistry* r) {
  const std::vector<DataType>& types = MovableTypes();
  r->Register(KernelDefBuilder("GatherV2")
                  .Device(kDeviceCpu)
                  .TypeConstraint("Tparams", types)
                  .TypeConstraint<int16_t, int32_t, int64_t>("Tindices")
                  .HostMemory("axis"),
              MakeFactory<GatherOp>());
  r->Register(KernelDefBuilder("Gather")
                  .Device(kDeviceCpu)
                  .TypeConstraint("Tparams", types)
                  .TypeConstraint<int16_t, int32_t, int64_t>("Tindices"),
              MakeFactory<GatherOp>());
  r->Register(KernelDefBuilder("OneHot")
                  .Device(kDeviceCpu)
                  .TypeConstraint("T", types)
                  .TypeConstraint<uint8_t, int8_t, int32_t, int64_t>("TI")
                  .HostMemory("depth"),
              MakeFactory<OneHotOp>());
}

}  // namespace graphrt
