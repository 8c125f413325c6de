// The sliding-window geometry of the nn ops (Conv2D, pooling, ...): their padding and data-format
// attrs and TensorFlow's output-size rule, one definition for the shape functions and the kernels.
#ifndef GRAPHRT_RUNTIME_OPS_WINDOW_GEOMETRY_H_
#define GRAPHRT_RUNTIME_OPS_WINDOW_GEOMETRY_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/core/status.h"

namespace graphrt {

enum class Padding { kValid, kSame, kExplicit };

inline Status ParsePadding(const std::string& text, Padding* padding) {
  if (text == "VALID") {
    *padding = Padding::kValid;
  } else if (text == "SAME") {
    *padding = Padding::kSame;
  } else if (text == "EXPLICIT") {
    *padding = Padding::kExplicit;
  } else {
    return InvalidArgument("Unknown padding type: ", text);
  }
  return Status::OK();
}

enum class DataFormat { kNHWC, kNCHW };

inline Status ParseDataFormat(const std::string& text, DataFormat* format) {
  if (text == "NHWC") {
    *format = DataFormat::kNHWC;
  } else if (text == "NCHW") {
    *format = DataFormat::kNCHW;
  } else {
    return InvalidArgument("Invalid data format: ", text);
  }
  return Status::OK();
}

// One spatial dimension of a sliding window: its output size and the padding before and after.
struct WindowDim {
  int64_t output = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// TensorFlow's GetWindowedOutputSize: VALID pads nothing; SAME gives ceil(input / stride) outputs
// with the padding split evenly, any odd element after; EXPLICIT takes the given paddings.
inline Status ComputeWindowDim(int64_t input, int64_t window, int64_t dilation, int64_t stride,
                               Padding padding, int64_t explicit_before, int64_t explicit_after,
                               WindowDim* dim) {
  if (stride <= 0) return InvalidArgument("Stride must be > 0, but got ", stride);
  if (dilation < 1) return InvalidArgument("Dilation rate must be >= 1, but got ", dilation);
  // Bounds that keep every index computation below far from int64 overflow.
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (input >= kLimit || window >= kLimit || dilation >= kLimit || stride >= kLimit ||
      explicit_before >= kLimit || explicit_after >= kLimit) {
    return InvalidArgument("Sliding window too large: input ", input, ", window ", window,
                           ", dilation ", dilation, ", stride ", stride, ", padding ",
                           explicit_before, "/", explicit_after);
  }
  const int64_t effective = (window - 1) * dilation + 1;
  switch (padding) {
    case Padding::kValid:
      dim->output = (input - effective + stride) / stride;
      dim->pad_before = dim->pad_after = 0;
      break;
    case Padding::kSame: {
      dim->output = (input + stride - 1) / stride;
      const int64_t needed = std::max<int64_t>(0, (dim->output - 1) * stride + effective - input);
      dim->pad_before = needed / 2;
      dim->pad_after = needed - dim->pad_before;
      break;
    }
    case Padding::kExplicit:
      dim->output = (input + explicit_before + explicit_after - effective + stride) / stride;
      dim->pad_before = explicit_before;
      dim->pad_after = explicit_after;
      break;
  }
  if (dim->output < 0) {
    return InvalidArgument("Computed output size would be negative: ", dim->output,
                           " [input_size: ", input, ", effective_filter_size: ", effective,
                           ", stride: ", stride, "]");
  }
  return Status::OK();
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_OPS_WINDOW_GEOMETRY_H_
