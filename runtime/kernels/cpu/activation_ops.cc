// Activations: Tanh, Sigmoid, Relu, Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign, with
// TensorFlow's formulas (tensorflow/core/kernels/relu_op_functor.h, softplus_op.h): Relu and
// Relu6 propagate NaN; Softplus switches to x or exp(x) where log1p(exp(x)) would lose
// precision.

#include "runtime/kernels/cpu/eigen_config.h"  // first: configures Eigen

#include <type_traits>

#include "runtime/kernels/cpu/cwise_util.h"

namespace graphrt {
namespace activation_internal {

// The select-based activations below have packet versions for float and double; half and
// bfloat16 take the scalar path (computing through float).
template <typename T>
constexpr bool kPacketSelect = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <typename T>
struct EluScalar {
  T operator()(const T& x) const { return x < T(0) ? T(Eigen::numext::exp(x) - T(1)) : x; }
  template <typename P>
  P packetOp(const P& x) const {
    using namespace Eigen::internal;  // NOLINT: packet primitives
    return pselect(pcmp_lt(x, pzero(x)), psub(pexp(x), pset1<P>(T(1))), x);
  }
};

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

template <typename T>
struct SeluScalar {
  T operator()(const T& x) const {
    return x < T(0) ? T(T(kSeluScaleAlpha) * T(Eigen::numext::exp(x) - T(1)))
                    : T(T(kSeluScale) * x);
  }
  template <typename P>
  P packetOp(const P& x) const {
    using namespace Eigen::internal;  // NOLINT: packet primitives
    const P negative = pmul(pset1<P>(T(kSeluScaleAlpha)), psub(pexp(x), pset1<P>(T(1))));
    return pselect(pcmp_lt(x, pzero(x)), negative, pmul(pset1<P>(T(kSeluScale)), x));
  }
};

template <typename T>
struct LeakyReluScalar {
  T alpha;
  T operator()(const T& x) const { return x > T(0) ? x : T(x * alpha); }
  template <typename P>
  P packetOp(const P& x) const {
    using namespace Eigen::internal;  // NOLINT: packet primitives
    return pselect(pcmp_lt(pzero(x), x), x, pmul(x, pset1<P>(alpha)));
  }
};

template <typename T>
struct SoftplusScalar {
  // Below `threshold`, exp(x) is softplus(x) to machine precision; above -threshold, x is.
  T threshold = T(Eigen::numext::log(Eigen::NumTraits<T>::epsilon()) + T(2));

  T operator()(const T& x) const {
    if (x > -threshold) return x;
    const T e = Eigen::numext::exp(x);
    return x < threshold ? e : T(Eigen::numext::log1p(e));
  }
  template <typename P>
  P packetOp(const P& x) const {
    using namespace Eigen::internal;  // NOLINT: packet primitives
    const P t = pset1<P>(threshold);
    const P e = pexp(x);
    const P small_or_mid = pselect(pcmp_lt(x, t), e, plog1p(e));
    return pselect(pcmp_lt(pnegate(t), x), x, small_or_mid);
  }
};

}  // namespace activation_internal
}  // namespace graphrt

namespace Eigen {
namespace internal {
template <typename T>
struct functor_traits<graphrt::activation_internal::EluScalar<T>> {
  enum { Cost = 20, PacketAccess = graphrt::activation_internal::kPacketSelect<T> };
};
template <typename T>
struct functor_traits<graphrt::activation_internal::SeluScalar<T>> {
  enum { Cost = 22, PacketAccess = graphrt::activation_internal::kPacketSelect<T> };
};
template <typename T>
struct functor_traits<graphrt::activation_internal::LeakyReluScalar<T>> {
  enum { Cost = 2, PacketAccess = graphrt::activation_internal::kPacketSelect<T> };
};
template <typename T>
struct functor_traits<graphrt::activation_internal::SoftplusScalar<T>> {
  // Eigen 3.4 has no packet log1p for double.
  enum { Cost = 40, PacketAccess = std::is_same_v<T, float> };
};
}  // namespace internal
}  // namespace Eigen

namespace graphrt {
namespace activation_internal {
namespace {

using Eigen::internal::scalar_max_op;
using Eigen::internal::scalar_min_op;

template <typename T>
constexpr int kNaN = std::is_integral_v<T> ? Eigen::PropagateFast : Eigen::PropagateNaN;

template <typename T>
struct TanhFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 20;
  template <typename A>
  auto Apply(const A& a) const {
    return a.tanh();
  }
};

template <typename T>
struct SigmoidFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 20;
  template <typename A>
  auto Apply(const A& a) const {
    return a.logistic();
  }
};

template <typename T>
struct ReluFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 1;
  template <typename A>
  auto Apply(const A& a) const {
    return a.binaryExpr(A::PlainObject::Constant(a.size(), T(0)), scalar_max_op<T, T, kNaN<T>>());
  }
};

template <typename T>
struct Relu6Fn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 2;
  template <typename A>
  auto Apply(const A& a) const {
    return a.binaryExpr(A::PlainObject::Constant(a.size(), T(0)), scalar_max_op<T, T, kNaN<T>>())
        .binaryExpr(A::PlainObject::Constant(a.size(), T(6)), scalar_min_op<T, T, kNaN<T>>());
  }
};

template <typename T>
struct EluFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 20;
  template <typename A>
  auto Apply(const A& a) const {
    return a.unaryExpr(EluScalar<T>());
  }
};

template <typename T>
struct SeluFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 22;
  template <typename A>
  auto Apply(const A& a) const {
    return a.unaryExpr(SeluScalar<T>());
  }
};

template <typename T>
struct LeakyReluFn {
  explicit LeakyReluFn(OpKernelConstruction* ctx) {
    float alpha = 0.2f;
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "alpha", &alpha));
    scalar.alpha = static_cast<T>(alpha);
  }
  static constexpr int kCompute = 2;
  template <typename A>
  auto Apply(const A& a) const {
    return a.unaryExpr(scalar);
  }
  LeakyReluScalar<T> scalar{T(0.2f)};
};

template <typename T>
struct SoftplusFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 40;
  template <typename A>
  auto Apply(const A& a) const {
    return a.unaryExpr(SoftplusScalar<T>());
  }
};

template <typename T>
struct SoftsignFn : StatelessFn {
  using StatelessFn::StatelessFn;
  static constexpr int kCompute = 6;
  template <typename A>
  auto Apply(const A& a) const {
    return a / (a.abs() + T(1));
  }
};

template <typename T>
using TanhOp = UnaryOp<T, TanhFn<T>>;
template <typename T>
using SigmoidOp = UnaryOp<T, SigmoidFn<T>>;
template <typename T>
using ReluOp = UnaryOp<T, ReluFn<T>>;
template <typename T>
using Relu6Op = UnaryOp<T, Relu6Fn<T>>;
template <typename T>
using EluOp = UnaryOp<T, EluFn<T>>;
template <typename T>
using SeluOp = UnaryOp<T, SeluFn<T>>;
template <typename T>
using LeakyReluOp = UnaryOp<T, LeakyReluFn<T>>;
template <typename T>
using SoftplusOp = UnaryOp<T, SoftplusFn<T>>;
template <typename T>
using SoftsignOp = UnaryOp<T, SoftsignFn<T>>;

}  // namespace
}  // namespace activation_internal

void RegisterActivationKernels(KernelRegistry* r) {
  using namespace activation_internal;  // NOLINT: the kernel templates of this file
  RegisterFloats<TanhOp>(r, "Tanh");
  RegisterFloats<SigmoidOp>(r, "Sigmoid");
  RegisterRealNumbers<ReluOp>(r, "Relu");
  RegisterRealNumbers<Relu6Op>(r, "Relu6");
  RegisterFloats<EluOp>(r, "Elu");
  RegisterFloats<SeluOp>(r, "Selu");
  RegisterFloats<LeakyReluOp>(r, "LeakyRelu");
  RegisterFloats<SoftplusOp>(r, "Softplus");
  RegisterFloats<SoftsignOp>(r, "Softsign");
}

}  // namespace graphrt
