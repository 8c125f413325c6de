#include "runtime/kernels/common/strided_slice_spec.h"

#include <algorithm>

#include "runtime/kernels/common/array_util.h"

namespace graphrt {

constexpr int kShrinkAxis = -1;
constexpr int kNewAxis = -2;

Status ValidateStridedSlice(const TensorShape& input_shape, const Tensor& begin_t,
                            const Tensor& end_t, const Tensor& strides_t, int64_t begin_mask_spec,
                            int64_t end_mask_spec, int64_t ellipsis_mask, int64_t new_axis_mask,
                            int64_t shrink_axis_mask, StridedSliceSpec* spec) {
  const int64_t n = strides_t.NumElements();
  if (begin_t.dims() != 1 || end_t.dims() != 1 || strides_t.dims() != 1 ||
      begin_t.NumElements() != n || end_t.NumElements() != n || n >= 32) {
    return InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
        begin_t.shape().DebugString(), ", ", end_t.shape().DebugString(), ", and ",
        strides_t.shape().DebugString(), " instead.");
  }
  if (ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return InvalidArgument("Multiple ellipses in slice spec not allowed");
  }
  std::vector<int64_t> sparse_begin, sparse_end, sparse_strides;
  GRT_RETURN_IF_ERROR(ReadIntegers(begin_t, "begin", &sparse_begin));
  GRT_RETURN_IF_ERROR(ReadIntegers(end_t, "end", &sparse_end));
  GRT_RETURN_IF_ERROR(ReadIntegers(strides_t, "strides", &sparse_strides));

  // Step 1: count the new axes after the ellipsis; add an ellipsis at the end if there is none.
  int64_t sparse_dims = n;
  int num_add_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && ((int64_t{1} << i) & new_axis_mask) != 0) ++num_add_axis_after_ellipsis;
    if ((int64_t{1} << i) & ellipsis_mask) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= int64_t{1} << sparse_dims;
    ++sparse_dims;
  }

  // Step 2: the dense spec, one entry per input dim.
  const int dense_dims = input_shape.dims();
  spec->begin.assign(dense_dims, 0);
  spec->end.assign(dense_dims, 0);
  spec->strides.assign(dense_dims, 1);
  int64_t begin_mask = 0, end_mask = 0, shrink_mask = 0;
  std::vector<int> final_gather;  // input dim, kNewAxis or kShrinkAxis, per final entry
  int full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    const int64_t bit = int64_t{1} << i;
    if (bit & ellipsis_mask) {
      const int64_t next = std::min<int64_t>(
          dense_dims - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, dense_dims);
      for (; full < next; ++full) {
        spec->begin[full] = spec->end[full] = 0;
        spec->strides[full] = 1;
        begin_mask |= int64_t{1} << full;
        end_mask |= int64_t{1} << full;
        final_gather.push_back(full);
      }
    } else if (bit & new_axis_mask) {
      final_gather.push_back(kNewAxis);
    } else {
      if (full == dense_dims) {
        return InvalidArgument("Index out of range using input dim ", full, "; input has only ",
                               dense_dims, " dims");
      }
      spec->begin[full] = sparse_begin[i];
      spec->end[full] = sparse_end[i];
      spec->strides[full] = sparse_strides[i];
      if (begin_mask_spec & bit) begin_mask |= int64_t{1} << full;
      if (end_mask_spec & bit) end_mask |= int64_t{1} << full;
      if (shrink_axis_mask & bit) {
        final_gather.push_back(kShrinkAxis);
        shrink_mask |= int64_t{1} << full;
      } else {
        final_gather.push_back(full);
      }
      ++full;
    }
  }

  // Step 3: explicit, clamped ranges and the processing shape.
  for (int i = 0; i < dense_dims; ++i) {
    int64_t& begin = spec->begin[i];
    int64_t& end = spec->end[i];
    const int64_t stride = spec->strides[i];
    const int64_t dim = input_shape.dim_size(i);
    if (stride == 0) return InvalidArgument("strides[", i, "] must be non-zero");
    const bool shrink = (shrink_mask >> i) & 1;
    const bool masked[2] = {((begin_mask >> i) & 1) != 0, ((end_mask >> i) & 1) != 0};
    const int64_t valid[2] = {stride > 0 ? 0 : -1, stride > 0 ? dim : dim - 1};
    auto canonical = [&](int64_t x, int c) {
      if (masked[c]) return stride > 0 ? valid[c] : valid[(c + 1) & 1];
      const int64_t fwd = x < 0 ? dim + x : x;
      return fwd < valid[0] ? valid[0] : (fwd > valid[1] ? valid[1] : fwd);
    };
    if (shrink && stride <= 0) {
      return InvalidArgument("only stride 1 allowed on non-range indexing.");
    }
    if (shrink) {
      const int64_t fwd = begin < 0 ? dim + begin : begin;
      if (fwd < 0 || fwd >= dim) {
        return InvalidArgument("slice index ", fwd, " of dimension ", i, " out of bounds.");
      }
      begin = fwd;
      end = fwd + 1;
    } else {
      begin = canonical(begin, 0);
      end = canonical(end, 1);
    }
    const bool take_all = stride == 1 && begin == 0 && end == dim;
    spec->is_identity &= take_all;
    spec->slice_dim0 &= (i == 0 && stride == 1) || take_all;
    const int64_t interval = end - begin;
    int64_t size = 0;
    if (interval != 0 && (interval < 0) == (stride < 0)) {
      size = interval / stride + (interval % stride != 0 ? 1 : 0);
    }
    spec->processing_dims.push_back(size);
  }

  // Step 4: the final shape.
  std::vector<int64_t> final_dims;
  for (int g : final_gather) {
    if (g >= 0) {
      final_dims.push_back(spec->processing_dims[g]);
    } else if (g == kNewAxis) {
      final_dims.push_back(1);
    }
  }
  spec->final_shape = TensorShape(std::move(final_dims));
  return Status::OK();
}

}  // namespace graphrt
