// The 2-D sliding window of convolution and pooling over an NHWC batch, shared by the CPU and
// OpenCL kernels; its per-dimension rule (runtime/ops/window_geometry.h) is the shape functions'.
#ifndef GRAPHRT_RUNTIME_KERNELS_COMMON_WINDOW_H_
#define GRAPHRT_RUNTIME_KERNELS_COMMON_WINDOW_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/ops/window_geometry.h"

namespace graphrt {

// The geometry of a 2-D sliding window over an NHWC batch.
struct Window2D {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t window_rows = 1, window_cols = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  int64_t out_rows = 0, out_cols = 0;
  int64_t pad_top = 0, pad_left = 0;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_COMMON_WINDOW_H_
