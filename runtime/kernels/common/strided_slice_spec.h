// StridedSlice's begin/end/strides and masks resolved against an input shape (TensorFlow's
// ValidateStridedSliceOp), shared by the CPU and OpenCL kernels.
#ifndef GRAPHRT_RUNTIME_KERNELS_COMMON_STRIDED_SLICE_SPEC_H_
#define GRAPHRT_RUNTIME_KERNELS_COMMON_STRIDED_SLICE_SPEC_H_

#include <cstdint>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {

struct StridedSliceSpec {
  // Per input dim: the first index, the end (exclusive) and the step, all made explicit.
  std::vector<int64_t> begin, end, strides;
  std::vector<int64_t> processing_dims;  // one per input dim
  TensorShape final_shape;               // new axes added, shrunk axes dropped
  bool is_identity = true;
  bool slice_dim0 = true;  // dims after 0 taken whole and dim 0 has stride 1
};

// begin_t, end_t, strides_t: host int32/int64 vectors. Masks as the attrs give them.
Status ValidateStridedSlice(const TensorShape& input_shape, const Tensor& begin_t,
                            const Tensor& end_t, const Tensor& strides_t, int64_t begin_mask_spec,
                            int64_t end_mask_spec, int64_t ellipsis_mask, int64_t new_axis_mask,
                            int64_t shrink_axis_mask, StridedSliceSpec* spec);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_COMMON_STRIDED_SLICE_SPEC_H_
