// Binary arithmetic with numpy broadcasting: Add, AddV2, Sub, Mul, the divisions and moduli (Mod
// is TruncateMod's old name), Pow, Maximum, Minimum, SquaredDifference, DivNoNan, MulNoNan, Atan2,
// and the bitwise ops and shifts.
//
// Each op is a functor whose Apply builds an Eigen array expression of two runs (see
// cwise_util.h) for the floating types, and whose Scalar computes one element for the integer
// types. Integer division and Pow also check their divisors / exponents first, as TensorFlow
// fails those ops instead of computing garbage.
#include "runtime/kernels/cpu/eigen_config.h"  // first: configures Eigen

#include <cmath>
#include <complex>
#include <type_traits>

#include "runtime/kernels/cpu/cwise_util.h"

namespace graphrt {

namespace {

using Eigen::internal::scalar_max_op;
using Eigen::internal::scalar_min_op;

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T>;

// Integer arithmetic wraps, as in TensorFlow; it is done in an unsigned type (at least 32 bits,
// so that narrow products do not promote to int and overflow) to keep it defined.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// Functors without preconditions on their inputs.
struct NoCheck {
  static Status Check(const Tensor&) { return Status::OK(); }
};

template <typename T>
T WrappingNegate(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

// x / y rounded toward zero. y == -1 is split off: INT_MIN / -1 traps on x86.
template <typename T>
T TruncatingDivide(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == -1) return WrappingNegate(x);
  }
  return static_cast<T>(x / y);
}

template <typename T>
T TruncatingRemainder(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == -1) return 0;
  }
  return static_cast<T>(x % y);
}

template <typename T>
struct IntFloorDivScalar {
  T operator()(const T& x, const T& y) const {
    const T q = TruncatingDivide(x, y);
    if constexpr (std::is_signed_v<T>) {
      if ((x < 0) != (y < 0) && TruncatingRemainder(x, y) != 0) return static_cast<T>(q - 1);
    }
    return q;
  }
};

template <typename T>
struct IntFloorModScalar {
  T operator()(const T& x, const T& y) const {
    const T r = TruncatingRemainder(x, y);
    if constexpr (std::is_signed_v<T>) {
      if (r != 0 && (r < 0) != (y < 0)) return static_cast<T>(r + y);
    }
    return r;
  }
};

template <typename T>
struct IntTruncDivScalar {
  T operator()(const T& x, const T& y) const { return TruncatingDivide(x, y); }
};

template <typename T>
struct IntTruncModScalar {
  T operator()(const T& x, const T& y) const { return TruncatingRemainder(x, y); }
};

// Floating-point modulus with the sign of the divisor (Python's %), computed in float for
// half and bfloat16.
template <typename T>
struct FloatFloorModScalar {
  T operator()(const T& x, const T& y) const {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const F fx = static_cast<F>(x), fy = static_cast<F>(y);
    F r = std::fmod(fx, fy);
    if (r != 0 && (r < 0) != (fy < 0)) r += fy;
    return static_cast<T>(r);
  }
};

// fmod, for float and double (TensorFlow's TruncateMod has no other floating kernels).
template <typename T>
struct FloatTruncModScalar {
  T operator()(const T& x, const T& y) const { return std::fmod(x, y); }
};

template <typename T>
struct TruncScalar {
  T operator()(const T& x) const { return static_cast<T>(std::trunc(static_cast<double>(x))); }
};

// x^y by squaring, wrapping on overflow as TensorFlow does. REQUIRES: y >= 0.
template <typename T>
struct IntPowScalar {
  T operator()(const T& x, const T& y) const {
    WrapType<T> result = 1, base = static_cast<WrapType<T>>(x);
    for (T e = y; e > 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
};

template <typename T>
struct DivNoNanScalar {
  T operator()(const T& x, const T& y) const { return y == T(0) ? T(0) : T(x / y); }
};

template <typename T>
struct MulNoNanScalar {
  T operator()(const T& x, const T& y) const { return y == T(0) ? T(0) : T(x * y); }
};

// Fails with `message` when any element of y is zero (every element of y is used when the
// output is not empty).
template <typename T>
Status CheckNoZero(const Tensor& y, Code code, const char* message) {
  const T* p = y.data<T>();
  for (int64_t i = 0; i < y.NumElements(); ++i) {
    if (p[i] == T(0)) return Status(code, message);
  }
  return Status::OK();
}

// ---- The ops. Each has Apply(a, b) (floating types) and/or Scalar(a, b) (integers), kCompute
// (cycles per element) and Check(y).

template <typename T>
struct AddFn : NoCheck {
  static T Scalar(T a, T b) { return static_cast<T>(WrapType<T>(a) + WrapType<T>(b)); }
  static constexpr int kCompute = 1;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a + b;
  }
};

template <typename T>
struct SubFn : NoCheck {
  static T Scalar(T a, T b) { return static_cast<T>(WrapType<T>(a) - WrapType<T>(b)); }
  static constexpr int kCompute = 1;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a - b;
  }
};

template <typename T>
struct MulFn : NoCheck {
  static T Scalar(T a, T b) { return static_cast<T>(WrapType<T>(a) * WrapType<T>(b)); }
  static constexpr int kCompute = 1;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a * b;
  }
};

template <typename T>
struct RealDivFn : NoCheck {
  static constexpr int kCompute = 5;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a / b;
  }
};

template <typename T>
struct IntDivFn {
  static constexpr int kCompute = 20;
  static Status Check(const Tensor& y) {
    return CheckNoZero<T>(y, Code::kInvalidArgument, "Integer division by zero");
  }
  static T Scalar(T a, T b) { return IntTruncDivScalar<T>()(a, b); }
};

template <typename T>
struct FloatFloorDivFn : NoCheck {
  static constexpr int kCompute = 8;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return (a / b).floor();
  }
};

template <typename T>
struct IntFloorDivFn {
  static constexpr int kCompute = 20;
  static Status Check(const Tensor& y) {
    return CheckNoZero<T>(y, Code::kInvalidArgument, "Integer division by zero");
  }
  static T Scalar(T a, T b) { return IntFloorDivScalar<T>()(a, b); }
};

template <typename T>
struct FloatFloorModFn : NoCheck {
  static constexpr int kCompute = 20;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, FloatFloorModScalar<T>());
  }
};

template <typename T>
struct IntFloorModFn {
  static constexpr int kCompute = 20;
  static Status Check(const Tensor& y) {
    return CheckNoZero<T>(y, Code::kInvalidArgument, "Integer division by zero");
  }
  static T Scalar(T a, T b) { return IntFloorModScalar<T>()(a, b); }
};

// TensorFlow's integer TruncateDiv/TruncateMod kernels report a zero divisor with this INTERNAL
// error rather than the INVALID_ARGUMENT of Div and FloorDiv; graphrt keeps the same status.
constexpr char kTruncateByZero[] =
    "Unexpected error in binary operator (only integer div and mod should have errors)";

template <typename T>
struct FloatTruncDivFn : NoCheck {
  static constexpr int kCompute = 8;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return (a / b).unaryExpr(TruncScalar<T>());
  }
};

template <typename T>
struct IntTruncDivFn {
  static constexpr int kCompute = 20;
  static Status Check(const Tensor& y) {
    return CheckNoZero<T>(y, Code::kInternal, kTruncateByZero);
  }
  static T Scalar(T a, T b) { return IntTruncDivScalar<T>()(a, b); }
};

template <typename T>
struct FloatTruncModFn : NoCheck {
  static constexpr int kCompute = 20;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, FloatTruncModScalar<T>());
  }
};

template <typename T>
struct IntTruncModFn {
  static constexpr int kCompute = 20;
  static Status Check(const Tensor& y) {
    return CheckNoZero<T>(y, Code::kInternal, kTruncateByZero);
  }
  static T Scalar(T a, T b) { return IntTruncModScalar<T>()(a, b); }
};

// NaN in either operand gives NaN, as TensorFlow's Maximum and Minimum do.
template <typename T>
struct MaximumFn : NoCheck {
  static T Scalar(T a, T b) { return a < b ? b : a; }
  static constexpr int kCompute = 1;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, scalar_max_op<T, T, Eigen::PropagateNaN>());
  }
};

template <typename T>
struct MinimumFn : NoCheck {
  static T Scalar(T a, T b) { return b < a ? b : a; }
  static constexpr int kCompute = 1;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, scalar_min_op<T, T, Eigen::PropagateNaN>());
  }
};

template <typename T>
struct FloatPowFn : NoCheck {
  static constexpr int kCompute = 40;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, Eigen::internal::scalar_pow_op<T, T>());
  }
};

template <typename T>
struct IntPowFn {
  static constexpr int kCompute = 20;
  static Status Check(const Tensor& y) {
    const T* p = y.data<T>();
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      if (p[i] < 0) return InvalidArgument("Integers to negative integer powers are not allowed");
    }
    return Status::OK();
  }
  static T Scalar(T a, T b) { return IntPowScalar<T>()(a, b); }
};

template <typename T>
struct SquaredDifferenceFn : NoCheck {
  static T Scalar(T a, T b) {
    const WrapType<T> d = WrapType<T>(a) - WrapType<T>(b);
    return static_cast<T>(d * d);
  }
  static constexpr int kCompute = 2;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return (a - b).square();
  }
};

// TensorFlow's complex SquaredDifference: (a - b) conj(a - b), real-valued.
template <typename T>
struct ComplexSquaredDifferenceFn : NoCheck {
  static T Scalar(T a, T b) {
    const T d = a - b;
    return d * std::conj(d);
  }
  static constexpr int kCompute = 4;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return (a - b).binaryExpr(a - b, [](const T& d, const T&) { return d * std::conj(d); });
  }
};

template <typename T>
struct DivNoNanFn : NoCheck {
  static constexpr int kCompute = 6;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, DivNoNanScalar<T>());
  }
};

template <typename T>
struct MulNoNanFn : NoCheck {
  static constexpr int kCompute = 2;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, MulNoNanScalar<T>());
  }
};

// atan2(y, x), in float for half and bfloat16 (Eigen's scalar path).
template <typename T>
struct Atan2Fn : NoCheck {
  static constexpr int kCompute = 40;
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a.binaryExpr(b, [](T y, T x) {
      using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
      return static_cast<T>(std::atan2(static_cast<F>(y), static_cast<F>(x)));
    });
  }
};

template <typename T>
struct BitwiseAndFn : NoCheck {
  static constexpr int kCompute = 1;
  static T Scalar(T a, T b) { return static_cast<T>(a & b); }
};

template <typename T>
struct BitwiseOrFn : NoCheck {
  static constexpr int kCompute = 1;
  static T Scalar(T a, T b) { return static_cast<T>(a | b); }
};

template <typename T>
struct BitwiseXorFn : NoCheck {
  static constexpr int kCompute = 1;
  static T Scalar(T a, T b) { return static_cast<T>(a ^ b); }
};

// TensorFlow clamps shift counts to [0, bits - 1] rather than leave them undefined.
template <typename T>
int ClampedShift(T count) {
  constexpr int kMax = static_cast<int>(sizeof(T) * 8 - 1);
  if constexpr (std::is_signed_v<T>) {
    if (count < 0) return 0;
  }
  return count > static_cast<T>(kMax) ? kMax : static_cast<int>(count);
}

// Bits shifted out are dropped (the shift is done unsigned); right shifts of signed values are
// arithmetic.
template <typename T>
struct LeftShiftFn : NoCheck {
  static constexpr int kCompute = 2;
  static T Scalar(T a, T b) {
    return static_cast<T>(static_cast<WrapType<T>>(a) << ClampedShift(b));
  }
};

template <typename T>
struct RightShiftFn : NoCheck {
  static constexpr int kCompute = 2;
  static T Scalar(T a, T b) { return static_cast<T>(a >> ClampedShift(b)); }
};

// out = Fn::Scalar(x, y) with broadcasting, for integers: plain loops that the compiler
// vectorizes (see TransformRun), lighter to compile than Eigen expressions.
template <typename Fn, typename T>
void IntegerBroadcast(OpKernelContext* ctx, const BroadcastPlan& plan, const T* x, const T* y,
                      T* out, int64_t cost_per_element) {
  const bool x_scalar = plan.run_is_scalar(0);
  const bool y_scalar = plan.run_is_scalar(1);
  ctx->ParallelFor(plan.num_elements(), cost_per_element, [&](int64_t begin, int64_t end) {
    plan.ForEachRun(begin, end, [&](const int64_t* in, int64_t pos, int64_t n) {
      const T* xp = x + in[0];
      const T* yp = y + in[1];
      if (x_scalar) {
        const T a = *xp;
        TransformRun(yp, out + pos, n, [a](T b) { return Fn::Scalar(a, b); });
      } else if (y_scalar) {
        const T b = *yp;
        TransformRun(xp, out + pos, n, [b](T a) { return Fn::Scalar(a, b); });
      } else {
        TransformRun2(xp, yp, out + pos, n, [](T a, T b) { return Fn::Scalar(a, b); });
      }
    });
  });
}

template <typename T, typename Fn>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (kIsInt<T>) {
      if (x.dims() == 0 && y.dims() == 0) {
        // Two scalars (loop counters, indices): no broadcast plan, no ParallelFor.
        GRT_RETURN_IF_ERROR(Fn::Check(y));
        Tensor* out = nullptr;
        GRT_RETURN_IF_ERROR(ElementwiseOutput(ctx, {0, 1}, TensorShape(), &out));
        *out->data<T>() = Fn::Scalar(*x.data<T>(), *y.data<T>());
        return Status::OK();
      }
    }
    GRT_ASSIGN_OR_RETURN(BroadcastPlan plan, BroadcastPlan::Make({x.shape(), y.shape()}));
    if (plan.num_elements() > 0) GRT_RETURN_IF_ERROR(Fn::Check(y));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ElementwiseOutput(ctx, {0, 1}, plan.output_shape(), &out));
    if (plan.num_elements() == 0) return Status::OK();
    const int64_t cost = ElementCost(3 * sizeof(T), Fn::kCompute);
    if constexpr (kIsInt<T>) {
      IntegerBroadcast<Fn>(ctx, plan, x.data<T>(), y.data<T>(), out->data<T>(), cost);
    } else {
      // A short per-channel vector against a whole tensor: long stretches, not one per period.
      const TensorShape& shape = plan.output_shape();
      const bool x_whole = x.shape() == shape, y_whole = y.shape() == shape;
      const int64_t period = x_whole   ? TrailingPeriod(y.shape(), shape)
                             : y_whole ? TrailingPeriod(x.shape(), shape)
                                       : 0;
      if (period > 1 && period < kShortPeriod) {
        BinaryRepeating<Fn>(ctx, x_whole ? x.data<T>() : y.data<T>(),
                            x_whole ? y.data<T>() : x.data<T>(), !x_whole, period, out->data<T>(),
                            plan.num_elements(), cost);
      } else {
        BinaryBroadcast<Fn>(ctx, plan, x.data<T>(), y.data<T>(), out->data<T>(), cost);
      }
    }
    return Status::OK();
  }
};

// Add on strings concatenates.
class StringAddOp : public OpKernel {
 public:
  explicit StringAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    GRT_ASSIGN_OR_RETURN(BroadcastPlan plan, BroadcastPlan::Make({x.shape(), y.shape()}));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, plan.output_shape(), &out));
    const std::string* xs = x.data<std::string>();
    const std::string* ys = y.data<std::string>();
    std::string* os = out->data<std::string>();
    const int64_t x_step = plan.run_is_scalar(0) ? 0 : 1;
    const int64_t y_step = plan.run_is_scalar(1) ? 0 : 1;
    ctx->ParallelFor(plan.num_elements(), 100, [&](int64_t begin, int64_t end) {
      plan.ForEachRun(begin, end, [&](const int64_t* in, int64_t pos, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
          const std::string& a = xs[in[0] + j * x_step];
          const std::string& b = ys[in[1] + j * y_step];
          std::string& o = os[pos + j];
          o.reserve(a.size() + b.size());
          o.assign(a).append(b);
        }
      });
    });
    return Status::OK();
  }
};

template <typename T>
using AddOp = BinaryOp<T, AddFn<T>>;
template <typename T>
using SubOp = BinaryOp<T, SubFn<T>>;
template <typename T>
using MulOp = BinaryOp<T, MulFn<T>>;
template <typename T>
using RealDivOp = BinaryOp<T, RealDivFn<T>>;
template <typename T>
using DivOp = BinaryOp<T, std::conditional_t<kIsInt<T>, IntDivFn<T>, RealDivFn<T>>>;
template <typename T>
using FloorDivOp = BinaryOp<T, std::conditional_t<kIsInt<T>, IntFloorDivFn<T>, FloatFloorDivFn<T>>>;
template <typename T>
using FloorModOp = BinaryOp<T, std::conditional_t<kIsInt<T>, IntFloorModFn<T>, FloatFloorModFn<T>>>;
template <typename T>
using TruncateDivOp =
    BinaryOp<T, std::conditional_t<kIsInt<T>, IntTruncDivFn<T>, FloatTruncDivFn<T>>>;
template <typename T>
using TruncateModOp =
    BinaryOp<T, std::conditional_t<kIsInt<T>, IntTruncModFn<T>, FloatTruncModFn<T>>>;
template <typename T>
using MaximumOp = BinaryOp<T, MaximumFn<T>>;
template <typename T>
using MinimumOp = BinaryOp<T, MinimumFn<T>>;
template <typename T>
using PowOp = BinaryOp<T, std::conditional_t<kIsInt<T>, IntPowFn<T>, FloatPowFn<T>>>;
template <typename T>
using SquaredDifferenceOp = BinaryOp<T, SquaredDifferenceFn<T>>;
template <typename T>
using ComplexSquaredDifferenceOp = BinaryOp<T, ComplexSquaredDifferenceFn<T>>;
template <typename T>
using DivNoNanOp = BinaryOp<T, DivNoNanFn<T>>;
template <typename T>
using MulNoNanOp = BinaryOp<T, MulNoNanFn<T>>;

template <template <typename> class Fn>
struct BinaryKernel {
  template <typename T>
  using Op = BinaryOp<T, Fn<T>>;
};

template <template <typename> class K>
void RegisterIntegers(KernelRegistry* r, const char* op) {
  RegisterTyped<K, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>(r, op);
}

}  // namespace

void RegisterBinaryKernels(KernelRegistry* r) {
  RegisterTyped<AddOp, float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t>(
      r, "Add");
  r->Register(KernelDefBuilder("Add").Device(kDeviceCpu).TypeConstraint<std::string>("T"),
              MakeFactory<StringAddOp>());
  RegisterRealNumbers<AddOp>(r, "AddV2");
  RegisterRealNumbers<SubOp>(r, "Sub");
  RegisterRealNumbers<MulOp>(r, "Mul");
  RegisterFloats<RealDivOp>(r, "RealDiv");
  RegisterRealNumbers<DivOp>(r, "Div");
  RegisterRealNumbers<FloorDivOp>(r, "FloorDiv");
  RegisterRealNumbers<FloorModOp>(r, "FloorMod");
  RegisterRealNumbers<TruncateDivOp>(r, "TruncateDiv");
  RegisterTyped<TruncateModOp, float, double, int32_t, int64_t>(r, "TruncateMod");
  RegisterRealNumbers<MaximumOp>(r, "Maximum");
  RegisterRealNumbers<MinimumOp>(r, "Minimum");
  RegisterTyped<PowOp, float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t>(r, "Pow");
  RegisterTyped<SquaredDifferenceOp, float, double, half, bfloat16, int32_t, int64_t>(
      r, "SquaredDifference");
  RegisterFloats<DivNoNanOp>(r, "DivNoNan");
  RegisterFloats<MulNoNanOp>(r, "MulNoNan");
  RegisterComplex<PowOp>(r, "Pow");
  RegisterComplex<ComplexSquaredDifferenceOp>(r, "SquaredDifference");
  RegisterComplex<DivNoNanOp>(r, "DivNoNan");
  RegisterComplex<MulNoNanOp>(r, "MulNoNan");
  RegisterFloats<BinaryKernel<Atan2Fn>::Op>(r, "Atan2");
  RegisterTyped<TruncateModOp, float, double, int32_t, int64_t>(r, "Mod");
  RegisterIntegers<BinaryKernel<BitwiseAndFn>::Op>(r, "BitwiseAnd");
  RegisterIntegers<BinaryKernel<BitwiseOrFn>::Op>(r, "BitwiseOr");
  RegisterIntegers<BinaryKernel<BitwiseXorFn>::Op>(r, "BitwiseXor");
  RegisterIntegers<BinaryKernel<LeftShiftFn>::Op>(r, "LeftShift");
  RegisterIntegers<BinaryKernel<RightShiftFn>::Op>(r, "RightShift");
  // Complex arithmetic: Eigen's std::complex arrays, as TensorFlow's CPU kernels use.
  for (const char* op : {"Add", "AddV2"}) RegisterComplex<AddOp>(r, op);
  RegisterComplex<SubOp>(r, "Sub");
  RegisterComplex<MulOp>(r, "Mul");
  RegisterComplex<RealDivOp>(r, "RealDiv");
  RegisterComplex<RealDivOp>(r, "Div");
}

}  // namespace graphrt
