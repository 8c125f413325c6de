// Shared machinery of the CPU elementwise kernels (binary math, comparisons, Select): a sharded
// loop that hands a kernel the contiguous runs of a BroadcastPlan (runtime/kernels/common/
// broadcast.h). Kernels write each run with Eigen array expressions or TransformRun loops (both
// vectorized), and the runs are split across the device's intra-op threads.
//
// Kernel files include runtime/kernels/cpu/eigen_config.h before this header (and any other).
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_CWISE_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_CWISE_UTIL_H_

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/common/broadcast.h"
#include "runtime/kernels/eigen_util.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

// Cost, in cycles per element, that the intra-op scheduler weighs against its start-up cost:
// bytes moved at L2 speed plus the arithmetic. Small tensors therefore stay on one thread.
inline int64_t ElementCost(int64_t bytes, int64_t compute_cycles) {
  return std::max<int64_t>(1, (bytes * 11 + 63) / 64 + compute_cycles);
}

// Eigen views of a contiguous run.
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// dst[i] = fn(src[i]) for i in [0, n). The loop runs in blocks of a constant length (counted
// from 0) because GCC's default (-O2) vectorizer only takes loops whose trip count it knows, and
// the pointers are
// __restrict so that byte-sized stores need no aliasing checks. (dst may be src itself: each
// element is read before it is written.)
template <typename Dst, typename Src, typename Fn>
inline void TransformRun(const Src* __restrict src, Dst* __restrict dst, int64_t n, Fn fn) {
  constexpr int64_t kBlock = 32;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) dst[i + j] = fn(src[i + j]);
  }
  for (; i < n; ++i) dst[i] = fn(src[i]);
}

// dst[i] = fn(a[i], b[i]) for i in [0, n), vectorizable as TransformRun.
template <typename Dst, typename A, typename B, typename Fn>
inline void TransformRun2(const A* __restrict a, const B* __restrict b, Dst* __restrict dst,
                          int64_t n, Fn fn) {
  constexpr int64_t kBlock = 32;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) dst[i + j] = fn(a[i + j], b[i + j]);
  }
  for (; i < n; ++i) dst[i] = fn(a[i], b[i]);
}

// dst[0..n) = src[0..n) converted with Eigen's vectorized conversion (Eigen 3.4's Array cast is
// scalar; its Tensor cast uses packet conversions where the pair has them, e.g. half <-> float).
template <typename Dst, typename Src>
void VectorCast(const Src* src, Dst* dst, int64_t n) {
  EigenTensorMap<Dst, 1>(dst, n).device(Eigen::DefaultDevice()) =
      ConstEigenTensorMap<Src, 1>(src, n).template cast<Dst>();
}

// Writes out[0..n) = Fn::Apply(a, b) where a and b are Eigen array expressions of length n: the
// runs at x and y, or their first element repeated when x_scalar / y_scalar.
// Fn::Apply is a static template returning an Eigen array expression.
template <typename Fn, typename T, typename Out>
inline void BinaryRun(const T* x, bool x_scalar, const T* y, bool y_scalar, Out* out, int64_t n) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  ArrayMap<Out> o(out, n);
  // Both scalar cannot happen: some operand walks every dim a plan keeps.
  if (x_scalar) {
    o = Fn::Apply(Array::Constant(n, *x), ConstArrayMap<T>(y, n));
  } else if (y_scalar) {
    o = Fn::Apply(ConstArrayMap<T>(x, n), Array::Constant(n, *y));
  } else {
    o = Fn::Apply(ConstArrayMap<T>(x, n), ConstArrayMap<T>(y, n));
  }
}

// out = Fn::Apply(x, y) with broadcasting, split across the intra-op threads.
// REQUIRES: plan made from x's and y's shapes; out holds plan.num_elements() elements.
template <typename Fn, typename T, typename Out>
void BinaryBroadcast(OpKernelContext* ctx, const BroadcastPlan& plan, const T* x, const T* y,
                     Out* out, int64_t cost_per_element) {
  const bool x_scalar = plan.run_is_scalar(0);
  const bool y_scalar = plan.run_is_scalar(1);
  ctx->ParallelFor(plan.num_elements(), cost_per_element, [&](int64_t begin, int64_t end) {
    plan.ForEachRun(begin, end, [&](const int64_t* in, int64_t pos, int64_t n) {
      BinaryRun<Fn>(x + in[0], x_scalar, y + in[1], y_scalar, out + pos, n);
    });
  });
}

// The length of the runs `part` repeats in along a tensor of shape `whole` when it is a vector
// over whole's last dims (leading dims of 1, then whole's trailing dims: a per-channel scale or
// offset), else 0.
inline int64_t TrailingPeriod(const TensorShape& part, const TensorShape& whole) {
  int first = 0;
  while (first < part.dims() && part.dim_size(first) == 1) ++first;
  const int kept = part.dims() - first;
  if (kept > whole.dims()) return 0;
  for (int i = 0; i < kept; ++i) {
    if (part.dim_size(first + i) != whole.dim_size(whole.dims() - kept + i)) return 0;
  }
  return part.num_elements();
}

// Runs shorter than this take BinaryRepeating: BroadcastPlan's runs would be the vector's length.
inline constexpr int64_t kShortPeriod = 64;

// out = Fn::Apply(x, y) over n elements where one operand (`vector`, on the left when
// vector_first) repeats with period `period` along the other (`whole`): the vector tiled to a few
// hundred elements, so that Fn runs over long stretches instead of one period at a time.
template <typename Fn, typename T, typename Out>
void BinaryRepeating(OpKernelContext* ctx, const T* whole, const T* vector, bool vector_first,
                     int64_t period, Out* out, int64_t n, int64_t cost_per_element) {
  constexpr int64_t kStretch = 512;
  const int64_t span = (kStretch + period - 1) / period * period;  // whole periods
  std::vector<T> tiled(span + period);
  for (size_t i = 0; i < tiled.size(); ++i) tiled[i] = vector[i % period];
  ctx->ParallelFor(n, cost_per_element, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end;) {
      const int64_t len = std::min(span, end - i);
      const T* v = tiled.data() + i % period;  // v + len stays inside `tiled`
      if (vector_first) {
        BinaryRun<Fn>(v, false, whole + i, false, out + i, len);
      } else {
        BinaryRun<Fn>(whole + i, false, v, false, out + i, len);
      }
      i += len;
    }
  });
}

// The output tensor of an elementwise op: an input's buffer when it has the output's shape and
// dtype and no other owner, else a new one.
inline Status ElementwiseOutput(OpKernelContext* ctx, std::initializer_list<int> candidates,
                                const TensorShape& shape, Tensor** out) {
  for (int i : candidates) {
    if (ctx->input(i).shape() == shape && ctx->input(i).dtype() == ctx->output_type(0) &&
        ctx->InputIsForwardable(i)) {
      return ctx->forward_input_or_allocate_output(i, 0, shape, out);
    }
  }
  return ctx->allocate_output(0, shape, out);
}

// Base of the functors of UnaryOp that read no attrs.
struct StatelessFn {
  explicit StatelessFn(OpKernelConstruction*) {}
};

// y = fn.Apply(x) elementwise, where Apply maps an Eigen array expression of T to one of Out.
// Fn is built from the OpKernelConstruction (for attrs such as LeakyRelu's alpha) and names its
// cost in cycles per element as kCompute.
template <typename T, typename Fn, typename Out = T>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx), fn_(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ElementwiseOutput(ctx, {0}, x.shape(), &out));
    const T* in = x.data<T>();
    Out* o = out->data<Out>();
    ctx->ParallelFor(x.NumElements(), ElementCost(sizeof(T) + sizeof(Out), Fn::kCompute),
                     [&](int64_t begin, int64_t end) {
                       ArrayMap<Out>(o + begin, end - begin) =
                           fn_.Apply(ConstArrayMap<T>(in + begin, end - begin));
                     });
    return Status::OK();
  }

 private:
  const Fn fn_;
};

// Registers Kernel<T> for op under the constraint "T" = T, for each T of Ts.
template <template <typename> class Kernel, typename... Ts>
void RegisterTyped(KernelRegistry* r, const char* op) {
  (r->Register(KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<Ts>("T"),
               MakeFactory<Kernel<Ts>>()),
   ...);
}

// The dtype sets of TensorFlow's CPU kernels (complex types aside).
template <template <typename> class Kernel>
void RegisterFloats(KernelRegistry* r, const char* op) {
  RegisterTyped<Kernel, float, double, half, bfloat16>(r, op);
}
template <template <typename> class Kernel>
void RegisterRealNumbers(KernelRegistry* r, const char* op) {
  RegisterTyped<Kernel, float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                uint16_t, uint32_t, uint64_t>(r, op);
}

// Registers Kernel<std::complex<float>> and Kernel<std::complex<double>> for op under the
// constraint "T" = complex64 / complex128.
template <template <typename> class Kernel>
void RegisterComplex(KernelRegistry* r, const char* op) {
  r->Register(
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint("T", {::tensorflow::DT_COMPLEX64}),
      MakeFactory<Kernel<std::complex<float>>>());
  r->Register(
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint("T", {::tensorflow::DT_COMPLEX128}),
      MakeFactory<Kernel<std::complex<double>>>());
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_CWISE_UTIL_H_
