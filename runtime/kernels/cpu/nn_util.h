// Helpers shared by the CPU nn kernels (convolution, pooling, batch norm, resize): the NCHW <->
// NHWC transposes, the float working copies that half and bfloat16 are computed through, and
// scratch memory. The
// window geometry they share with the OpenCL kernels is in runtime/kernels/common/window.h.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_NN_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_NN_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/common/window.h"
#include "runtime/kernels/eigen_util.h"
#include "runtime/kernels/op_kernel.h"

namespace graphrt {

// The element type kernels compute in: float for half and bfloat16, the type itself otherwise.
template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<half> {
  using type = float;
};
template <>
struct ComputeTypeOf<bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

// Scratch memory for a kernel's intermediate values (a patch matrix, a padded copy), from the
// buffer cache that tensors come from: a steady-state Run reuses memory that is already mapped
// instead of faulting in fresh pages each time. Throws std::bad_alloc, as new[] does.
template <typename C>
class ScratchBuffer {
 public:
  explicit ScratchBuffer(int64_t n)
      : buffer_(TensorBuffer::Allocate(DataTypeToEnum<C>::value, std::max<int64_t>(n, 1))) {
    if (buffer_ == nullptr) throw std::bad_alloc();
  }
  C* get() const { return static_cast<C*>(buffer_->data()); }

 private:
  std::shared_ptr<TensorBuffer> buffer_;
};

template <typename T>
inline constexpr bool kIsReducedFloat =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

// Converts n elements on the intra-op threads (round to nearest even when narrowing).
template <typename From, typename To>
void ConvertElements(const OpKernelContext* ctx, const From* in, int64_t n, To* out) {
  if (n <= 0) return;
  EigenTensorMap<To, 1> dst(out, n);
  dst.device(ctx->eigen_cpu_device()) = ConstEigenTensorMap<From, 1>(in, n).template cast<To>();
}

// `t` (of type From) as a tensor of To: t itself when the types agree, else a converted copy.
template <typename From, typename To>
StatusOr<Tensor> ConvertTensor(const OpKernelContext* ctx, const Tensor& t) {
  if constexpr (std::is_same<From, To>::value) {
    return t;
  } else {
    GRT_ASSIGN_OR_RETURN(Tensor converted, Tensor::Allocate(DataTypeToEnum<To>::value, t.shape()));
    ConvertElements<From, To>(ctx, t.data<From>(), t.NumElements(), converted.data<To>());
    return converted;
  }
}

// `t` as a tensor of ComputeType<T>: t itself, or a float copy for half and bfloat16.
template <typename T>
StatusOr<Tensor> ToComputeType(const OpKernelContext* ctx, const Tensor& t) {
  return ConvertTensor<T, ComputeType<T>>(ctx, t);
}

// Transposes each of `outer` row-major [rows, cols] matrices into [cols, rows]: NCHW -> NHWC is
// (N, C, H*W), NHWC -> NCHW is (N, H*W, C).
template <typename T>
void TransposeInnerMatrices(const OpKernelContext* ctx, const T* in, int64_t outer, int64_t rows,
                            int64_t cols, T* out) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t plane = rows * cols;
  if (plane == 0 || outer == 0) return;
  // Split over matrices, and within a matrix over bands of its output rows.
  const int64_t band = std::max<int64_t>(1, std::min<int64_t>(cols, (int64_t{1} << 14) / rows));
  const int64_t bands = (cols + band - 1) / band;
  ctx->ParallelFor(outer * bands, band * rows * 2, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t m = i / bands, c0 = (i % bands) * band;
      const int64_t width = std::min(band, cols - c0);
      Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>> src(
          in + m * plane + c0, rows, width, Eigen::OuterStride<>(cols));
      Eigen::Map<Matrix> dst(out + m * plane + c0 * rows, width, rows);
      dst = src.transpose();
    }
  });
}

// An NHWC copy of the NCHW tensor `nchw`.
template <typename T>
StatusOr<Tensor> NchwToNhwc(const OpKernelContext* ctx, const Tensor& nchw) {
  const int64_t n = nchw.dim_size(0), c = nchw.dim_size(1);
  const int64_t h = nchw.dim_size(2), w = nchw.dim_size(3);
  GRT_ASSIGN_OR_RETURN(Tensor nhwc, Tensor::Allocate(nchw.dtype(), TensorShape({n, h, w, c})));
  TransposeInnerMatrices<T>(ctx, nchw.data<T>(), n, c, h * w, nhwc.data<T>());
  return nhwc;
}

// Writes the NHWC tensor `nhwc` into `nchw`, allocated with the matching NCHW shape.
template <typename T>
void NhwcToNchw(const OpKernelContext* ctx, const Tensor& nhwc, Tensor* nchw) {
  TransposeInnerMatrices<T>(ctx, nhwc.data<T>(), nhwc.dim_size(0),
                            nhwc.dim_size(1) * nhwc.dim_size(2), nhwc.dim_size(3), nchw->data<T>());
}

// dst[0, n) = src[0, n): a call to memcpy for long runs, fixed-size copies (which compile to a
// few moves) for the short runs of a convolution with few channels, where the call would cost
// more than the copy.
template <typename C>
inline void CopyRun(const C* src, int64_t n, C* dst) {
  constexpr int64_t kPiece = 16 / sizeof(C) > 0 ? 16 / sizeof(C) : 1;
  if (n > 8 * kPiece || !std::is_trivially_copyable<C>::value) {
    std::copy(src, src + n, dst);
    return;
  }
  int64_t i = 0;
  for (; i + kPiece <= n; i += kPiece) std::memcpy(dst + i, src + i, kPiece * sizeof(C));
  for (; i < n; ++i) std::memcpy(dst + i, src + i, sizeof(C));
}

// Copies the receptive fields of output pixels [first, first + count) for channels
// [channel0, channel0 + patch_depth) into rows of `patches` (in the filter's HWIO order), `pad`
// where the window hangs over the padding (0, or a quantized tensor's zero point).
template <typename C>
void Im2Col(const C* in, const Window2D& g, int64_t channel0, int64_t patch_depth, int64_t first,
            int64_t count, C pad, C* patches) {
  const int64_t row_len = g.window_cols * patch_depth;
  const bool contiguous_row = g.dilation_cols == 1 && patch_depth == g.depth;
  const int64_t pixels_per_image = g.out_rows * g.out_cols;
  // The first pixel's image, row and column; the others follow by counting.
  int64_t n = first / pixels_per_image;
  int64_t oh = (first % pixels_per_image) / g.out_cols;
  int64_t ow = first % g.out_cols;
  for (int64_t p = first; p < first + count; ++p) {
    const int64_t ih0 = oh * g.stride_rows - g.pad_top;
    const int64_t iw0 = ow * g.stride_cols - g.pad_left;
    C* dst = patches + (p - first) * g.window_rows * row_len;
    for (int64_t kh = 0; kh < g.window_rows; ++kh, dst += row_len) {
      const int64_t ih = ih0 + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) {
        std::fill(dst, dst + row_len, pad);
        continue;
      }
      const C* src_row = in + (n * g.in_rows + ih) * g.in_cols * g.depth + channel0;
      if (contiguous_row && iw0 >= 0 && iw0 + g.window_cols <= g.in_cols) {
        CopyRun(src_row + iw0 * g.depth, row_len, dst);
        continue;
      }
      for (int64_t kw = 0; kw < g.window_cols; ++kw) {
        const int64_t iw = iw0 + kw * g.dilation_cols;
        C* d = dst + kw * patch_depth;
        if (iw < 0 || iw >= g.in_cols) {
          std::fill(d, d + patch_depth, pad);
        } else {
          CopyRun(src_row + iw * g.depth, patch_depth, d);
        }
      }
    }
    if (++ow == g.out_cols) {
      ow = 0;
      if (++oh == g.out_rows) {
        oh = 0;
        ++n;
      }
    }
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_NN_UTIL_H_
