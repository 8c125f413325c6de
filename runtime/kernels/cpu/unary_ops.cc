// Unary math: Neg, Abs, Exp, Log, Sqrt, Rsqrt, Square, Floor, Ceil, Round, Erf, Sign,
// Reciprocal (and its old name Inv), Log1p, Expm1, Sin, Cos, IsNan, IsInf, IsFinite.
//
// Each is an Eigen array expression, so it runs on the same vectorized functions (pexp, plog,
// ...) as TensorFlow's kernels.

#include "runtime/kernels/cpu/eigen_config.h"  // first: configures Eigen

#include <cmath>
#include <type_traits>

#include "runtime/kernels/cpu/cwise_util.h"

namespace graphrt {

namespace {

// sign(x) in {-1, 0, 1}; NaN stays NaN (Eigen's own sign maps NaN to 0).
template <typename T>
struct SignScalar {
  T operator()(const T& x) const {
    if constexpr (!std::is_integral_v<T>) {
      if (Eigen::numext::isnan(x)) return x;
    }
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};

// A functor of UnaryOp: NAME<T>::Apply(a) = EXPR, costing COST cycles per element.
#define GRT_UNARY_FN(NAME, COST, EXPR)    \
  template <typename T>                   \
  struct NAME : StatelessFn {             \
    using StatelessFn::StatelessFn;       \
    static constexpr int kCompute = COST; \
    template <typename A>                 \
    auto Apply(const A& a) const {        \
      return EXPR;                        \
    }                                     \
  }

GRT_UNARY_FN(NegFn, 1, -a);
GRT_UNARY_FN(AbsFn, 1, a.abs());
GRT_UNARY_FN(ExpFn, 20, a.exp());
GRT_UNARY_FN(LogFn, 20, a.log());
GRT_UNARY_FN(SqrtFn, 10, a.sqrt());
GRT_UNARY_FN(RsqrtFn, 10, a.rsqrt());
GRT_UNARY_FN(SquareFn, 1, a.square());
GRT_UNARY_FN(FloorFn, 2, a.floor());
GRT_UNARY_FN(CeilFn, 2, a.ceil());
GRT_UNARY_FN(RoundHalfToEvenFn, 2, a.rint());
GRT_UNARY_FN(CopyFn, 1, a);
GRT_UNARY_FN(ErfFn, 30, a.erf());
GRT_UNARY_FN(SignFn, 2, a.unaryExpr(SignScalar<T>()));
GRT_UNARY_FN(ReciprocalFn, 5, a.inverse());
GRT_UNARY_FN(Log1pFn, 25, a.log1p());
GRT_UNARY_FN(Expm1Fn, 25, a.expm1());
GRT_UNARY_FN(SinFn, 20, a.sin());
GRT_UNARY_FN(CosFn, 20, a.cos());
GRT_UNARY_FN(IsNanFn, 1, a.isNaN());
GRT_UNARY_FN(IsInfFn, 1, a.isInf());
GRT_UNARY_FN(IsFiniteFn, 1, a.isFinite());

#undef GRT_UNARY_FN

template <typename T>
using NegOp = UnaryOp<T, NegFn<T>>;
template <typename T>
using AbsOp = UnaryOp<T, AbsFn<T>>;
template <typename T>
using ExpOp = UnaryOp<T, ExpFn<T>>;
template <typename T>
using LogOp = UnaryOp<T, LogFn<T>>;
template <typename T>
using SqrtOp = UnaryOp<T, SqrtFn<T>>;
template <typename T>
using RsqrtOp = UnaryOp<T, RsqrtFn<T>>;
template <typename T>
using SquareOp = UnaryOp<T, SquareFn<T>>;
template <typename T>
using FloorOp = UnaryOp<T, FloorFn<T>>;
template <typename T>
using CeilOp = UnaryOp<T, CeilFn<T>>;
// Integers are already round.
template <typename T>
using RoundOp =
    UnaryOp<T, std::conditional_t<std::is_integral_v<T>, CopyFn<T>, RoundHalfToEvenFn<T>>>;
template <typename T>
using ErfOp = UnaryOp<T, ErfFn<T>>;
template <typename T>
using SignOp = UnaryOp<T, SignFn<T>>;
template <typename T>
using ReciprocalOp = UnaryOp<T, ReciprocalFn<T>>;
template <typename T>
using Log1pOp = UnaryOp<T, Log1pFn<T>>;
template <typename T>
using Expm1Op = UnaryOp<T, Expm1Fn<T>>;
template <typename T>
using SinOp = UnaryOp<T, SinFn<T>>;
template <typename T>
using CosOp = UnaryOp<T, CosFn<T>>;
template <typename T>
using IsNanOp = UnaryOp<T, IsNanFn<T>, bool>;
template <typename T>
using IsInfOp = UnaryOp<T, IsInfFn<T>, bool>;
template <typename T>
using IsFiniteOp = UnaryOp<T, IsFiniteFn<T>, bool>;

template <template <typename> class K>
void RegisterSigned(KernelRegistry* r, const char* op) {
  RegisterTyped<K, float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t>(r, op);
}

}  // namespace

void RegisterUnaryKernels(KernelRegistry* r) {
  RegisterSigned<NegOp>(r, "Neg");
  RegisterSigned<AbsOp>(r, "Abs");
  RegisterSigned<SignOp>(r, "Sign");
  RegisterFloats<ExpOp>(r, "Exp");
  RegisterFloats<LogOp>(r, "Log");
  RegisterFloats<SqrtOp>(r, "Sqrt");
  RegisterFloats<RsqrtOp>(r, "Rsqrt");
  RegisterTyped<SquareOp, float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                uint16_t, uint32_t, uint64_t>(r, "Square");
  RegisterFloats<FloorOp>(r, "Floor");
  RegisterFloats<CeilOp>(r, "Ceil");
  RegisterTyped<RoundOp, float, double, half, bfloat16, int32_t, int64_t>(r, "Round");
  RegisterFloats<ErfOp>(r, "Erf");
  RegisterFloats<ReciprocalOp>(r, "Reciprocal");
  RegisterFloats<ReciprocalOp>(r, "Inv");
  RegisterFloats<Log1pOp>(r, "Log1p");
  RegisterFloats<Expm1Op>(r, "Expm1");
  RegisterFloats<SinOp>(r, "Sin");
  RegisterFloats<CosOp>(r, "Cos");
  RegisterFloats<IsNanOp>(r, "IsNan");
  RegisterFloats<IsInfOp>(r, "IsInf");
  RegisterFloats<IsFiniteOp>(r, "IsFinite");
}

}  // namespace graphrt
