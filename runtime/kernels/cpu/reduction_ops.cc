// Reductions: Sum, Mean, Prod, Max, Min, All, Any, EuclideanNorm over the axes of
// reduction_indices (keep_dims keeps them as size 1), and ArgMax / ArgMin over one dimension.
//
// The input is viewed with its size-1 dims dropped and runs of kept or reduced dims merged, which
// leaves one of these layouts (K = kept, R = reduced):
//
//   [K, R]     each output element reduces one contiguous run (a full reduction is [1, R]);
//   [K, R, K'] output rows are accumulated into (an outer reduction is [1, R, K']);
//   [R, K, R'] a mix: the inner runs reduced and then combined over the outer dim;
//   otherwise  the input is first transposed to [K, R].
//
// Each reducer accumulates in Acc: float for half and bfloat16 (more accurate than TensorFlow,
// whose Eigen reductions add in half precision), 64 bits for integer Mean (TensorFlow's int64
// for narrower types), and a same-width unsigned type for integer Sum and Prod, whose wrap-around
// then matches TensorFlow's without signed overflow. Empty reductions give the identity: Sum 0,
// Prod 1, Max the lowest value (-inf), Min the highest (+inf), All true, Any false, and Mean NaN
// (0 for integers).

#include "runtime/kernels/cpu/eigen_config.h"  // first: configures Eigen

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/kernels/cpu/cwise_util.h"
#include "runtime/kernels/cpu/strided_copy.h"
#include "runtime/kernels/cpu/tap_sum.h"

namespace graphrt {

namespace {

using Eigen::internal::scalar_max_op;
using Eigen::internal::scalar_min_op;

template <typename T>
constexpr bool kIsHalfLike = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <typename T>
constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsHalfLike<T>;

template <typename T>
constexpr bool kIsComplexType = false;
template <typename T>
constexpr bool kIsComplexType<std::complex<T>> = true;

// float for half and bfloat16, else T.
template <typename T>
using Widened = std::conditional_t<kIsHalfLike<T>, float, T>;

// Where integers wrap, they wrap unsigned (defined behaviour, same bits).
template <typename T, bool = std::is_integral_v<T>>
struct WrappingAccOf {
  using type = Widened<T>;
};
template <typename T>
struct WrappingAccOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using WrappingAcc = typename WrappingAccOf<T>::type;

// A scratch array (not std::vector, whose bool specialization packs bits that threads would
// share).
template <typename T>
std::unique_ptr<T[]> Scratch(int64_t n) {
  return std::unique_ptr<T[]>(new T[static_cast<size_t>(std::max<int64_t>(n, 1))]);
}

// ---- Reducers. Each names Acc and provides:
//   Identity()                 the value of an empty reduction, as Acc
//   Load(x)                    one element as Acc
//   Combine(a, b)              two partial results combined
//   ReduceRun(p, n)            a contiguous run reduced (n >= 1), vectorized
//   AccumulateRow(acc, row, n) acc[i] = Combine(acc[i], Load(row[i])), vectorized
//   Finish(acc, count)         the output value for `count` reduced elements
//   kSingleIsIdentity          whether reducing one element gives it back unchanged
// Half and bfloat16 runs are widened to float in chunks (vectorized) and reduced by the float
// reducer (FloatReducer).

constexpr int64_t kWidenChunk = 1024;

template <typename FloatReducer, typename T>
float WidenedRun(const T* p, int64_t n) {
  float chunk[kWidenChunk];
  float acc = FloatReducer::Identity();
  for (int64_t i = 0; i < n; i += kWidenChunk) {
    const int64_t m = std::min(kWidenChunk, n - i);
    VectorCast(p + i, chunk, m);
    acc = FloatReducer::Combine(acc, FloatReducer::ReduceRun(chunk, m));
  }
  return acc;
}

template <typename FloatReducer, typename T>
void WidenedAccumulateRow(float* acc, const T* row, int64_t n) {
  float chunk[kWidenChunk];
  for (int64_t i = 0; i < n; i += kWidenChunk) {
    const int64_t m = std::min(kWidenChunk, n - i);
    VectorCast(row + i, chunk, m);
    FloatReducer::AccumulateRow(acc + i, chunk, m);
  }
}

// A run of T viewed as its same-width accumulator type (T itself, or the unsigned twin of a
// signed integer: same bits, wrap-around defined).
template <typename Acc, typename T>
ConstArrayMap<Acc> AsAcc(const T* p, int64_t n) {
  static_assert(sizeof(Acc) == sizeof(T));
  return ConstArrayMap<Acc>(reinterpret_cast<const Acc*>(p), n);
}

template <typename T>
struct SumReducer {
  using Acc = WrappingAcc<T>;
  static constexpr bool kSingleIsIdentity = true;
  static Acc Identity() { return Acc(0); }
  static Acc Load(T x) { return static_cast<Acc>(static_cast<Widened<T>>(x)); }
  static Acc Combine(Acc a, Acc b) { return static_cast<Acc>(a + b); }
  static Acc ReduceRun(const T* p, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      return WidenedRun<SumReducer<float>>(p, n);
    } else {
      return AsAcc<Acc>(p, n).sum();
    }
  }
  static void AccumulateRow(Acc* acc, const T* row, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      WidenedAccumulateRow<SumReducer<float>>(acc, row, n);
    } else {
      ArrayMap<Acc>(acc, n) += AsAcc<Acc>(row, n);
    }
  }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <typename T>
struct MeanReducer {
  // TensorFlow sums narrow integers in 64 bits before dividing; wrap-around is unsigned here.
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, Widened<T>>;
  static constexpr bool kSingleIsIdentity = true;
  static Acc Identity() { return Acc(0); }
  static Acc Load(T x) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<Acc>(
          static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(x));
    } else {
      return static_cast<Acc>(x);
    }
  }
  static Acc Combine(Acc a, Acc b) { return a + b; }
  static Acc ReduceRun(const T* p, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      Acc sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += Load(p[i]);
      return sum;
    } else {
      return SumReducer<T>::ReduceRun(p, n);
    }
  }
  static void AccumulateRow(Acc* acc, const T* row, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) acc[i] += Load(row[i]);
    } else {
      SumReducer<T>::AccumulateRow(acc, row, n);
    }
  }
  static T Finish(Acc a, int64_t count) {
    if constexpr (std::is_integral_v<T>) {
      if (count == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        return static_cast<T>(static_cast<int64_t>(a) / count);  // truncates toward zero
      } else {
        return static_cast<T>(a / static_cast<uint64_t>(count));
      }
    } else if constexpr (kIsComplexType<T>) {
      // TensorFlow's complex Mean of nothing is 0, not NaN (its complex division of 0 by 0).
      return count == 0 ? T(0) : a / static_cast<Acc>(count);
    } else {
      return static_cast<T>(a / static_cast<Acc>(count));  // 0/0: NaN
    }
  }
};

template <typename T>
struct ProdReducer {
  using Acc = WrappingAcc<T>;
  // Narrow unsigned products would promote to (overflowing) int: multiply in 32 bits.
  using Wide = std::conditional_t<std::is_integral_v<T> && (sizeof(T) < 4), uint32_t, Acc>;
  static constexpr bool kSingleIsIdentity = true;
  static Acc Identity() { return Acc(1); }
  static Acc Load(T x) { return static_cast<Acc>(static_cast<Widened<T>>(x)); }
  static Acc Combine(Acc a, Acc b) { return static_cast<Acc>(Wide(a) * Wide(b)); }
  static Acc ReduceRun(const T* p, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      return WidenedRun<ProdReducer<float>>(p, n);
    } else if constexpr (std::is_integral_v<T> && (sizeof(T) < 4)) {
      Acc prod = 1;
      for (int64_t i = 0; i < n; ++i) prod = Combine(prod, Load(p[i]));
      return prod;
    } else {
      return AsAcc<Acc>(p, n).prod();
    }
  }
  static void AccumulateRow(Acc* acc, const T* row, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      WidenedAccumulateRow<ProdReducer<float>>(acc, row, n);
    } else if constexpr (std::is_integral_v<T> && (sizeof(T) < 4)) {
      for (int64_t i = 0; i < n; ++i) acc[i] = Combine(acc[i], Load(row[i]));
    } else {
      ArrayMap<Acc>(acc, n) *= AsAcc<Acc>(row, n);
    }
  }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

// Max (kMax) or Min; NaN wins, as in TensorFlow.
template <typename T, bool kMax>
struct ExtremumReducer {
  using Acc = Widened<T>;
  static constexpr int kNaN = kIsFloating<T> ? Eigen::PropagateNaN : Eigen::PropagateFast;
  using Op = std::conditional_t<kMax, scalar_max_op<Acc, Acc, kNaN>, scalar_min_op<Acc, Acc, kNaN>>;
  static constexpr bool kSingleIsIdentity = true;
  static Acc Identity() {
    if constexpr (kIsFloating<T>) {
      return kMax ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::infinity();
    } else {
      return kMax ? std::numeric_limits<Acc>::lowest() : std::numeric_limits<Acc>::max();
    }
  }
  static Acc Load(T x) { return static_cast<Acc>(x); }
  static Acc Combine(Acc a, Acc b) { return Op()(a, b); }
  static Acc ReduceRun(const T* p, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      return WidenedRun<ExtremumReducer<float, kMax>>(p, n);
    } else if constexpr (kMax) {
      return ConstArrayMap<T>(p, n).template maxCoeff<kNaN>();
    } else {
      return ConstArrayMap<T>(p, n).template minCoeff<kNaN>();
    }
  }
  static void AccumulateRow(Acc* acc, const T* row, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      WidenedAccumulateRow<ExtremumReducer<float, kMax>>(acc, row, n);
    } else {
      ArrayMap<Acc> a(acc, n);
      a = a.binaryExpr(ConstArrayMap<T>(row, n), Op());
    }
  }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <bool kAll>
struct LogicalReducer {
  using Acc = bool;
  static constexpr bool kSingleIsIdentity = true;
  static Acc Identity() { return kAll; }
  static Acc Load(bool x) { return x; }
  static Acc Combine(Acc a, Acc b) { return kAll ? (a && b) : (a || b); }
  static Acc ReduceRun(const bool* p, int64_t n) {
    // Scanning stops at the first element that decides the result.
    const bool* end = p + n;
    return kAll ? std::find(p, end, false) == end : std::find(p, end, true) != end;
  }
  static void AccumulateRow(Acc* acc, const bool* row, int64_t n) {
    for (int64_t i = 0; i < n; ++i) acc[i] = Combine(acc[i], row[i]);
  }
  static bool Finish(Acc a, int64_t) { return a; }
};

template <typename T>
struct EuclideanNormReducer {
  using Acc = Widened<T>;
  static constexpr bool kSingleIsIdentity = false;  // |x|, not x
  static Acc Identity() { return Acc(0); }
  // TensorFlow's complex form sums z conj(z) = |z|^2.
  static Acc Load(T x) {
    if constexpr (kIsComplexType<T>) {
      return Acc(std::norm(x));
    } else {
      return static_cast<Acc>(x) * static_cast<Acc>(x);
    }
  }
  static Acc Combine(Acc a, Acc b) { return a + b; }
  static Acc ReduceRun(const T* p, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      return WidenedRun<EuclideanNormReducer<float>>(p, n);
    } else if constexpr (kIsComplexType<T>) {
      return Acc(ConstArrayMap<T>(p, n).abs2().sum());
    } else {
      return ConstArrayMap<T>(p, n).square().sum();
    }
  }
  static void AccumulateRow(Acc* acc, const T* row, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      WidenedAccumulateRow<EuclideanNormReducer<float>>(acc, row, n);
    } else if constexpr (kIsComplexType<T>) {
      ArrayMap<Acc>(acc, n) += ConstArrayMap<T>(row, n).abs2().template cast<Acc>();
    } else {
      ArrayMap<Acc>(acc, n) += ConstArrayMap<T>(row, n).square();
    }
  }
  static T Finish(Acc a, int64_t) { return static_cast<T>(std::sqrt(a)); }
};

// Runs and rows shorter than this are reduced with plain loops: Eigen's per-call setup would
// cost more than the work.
constexpr int64_t kShortRun = 16;

template <typename Reducer, typename T>
typename Reducer::Acc ReduceShortRun(const T* p, int64_t n) {
  typename Reducer::Acc acc = Reducer::Load(p[0]);
  for (int64_t i = 1; i < n; ++i) acc = Reducer::Combine(acc, Reducer::Load(p[i]));
  return acc;
}

template <typename Reducer, typename T>
typename Reducer::Acc ReduceAnyRun(const T* p, int64_t n) {
  return n < kShortRun ? ReduceShortRun<Reducer>(p, n) : Reducer::ReduceRun(p, n);
}

// ---- Axes.

// The values of an int32 or int64 tensor of any shape.
Status ReadIndexTensor(const Tensor& t, const char* what, std::vector<int64_t>* values) {
  values->clear();
  if (t.dtype() == ::tensorflow::DT_INT32) {
    values->assign(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
  } else if (t.dtype() == ::tensorflow::DT_INT64) {
    values->assign(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
  } else if (t.dtype() == ::tensorflow::DT_INT16) {
    values->assign(t.data<int16_t>(), t.data<int16_t>() + t.NumElements());
  } else {
    return InvalidArgument(what, " must be int32 or int64, got ", DataTypeString(t.dtype()));
  }
  return Status::OK();
}

// How a reduction of `in_shape` runs: the output shape and the collapsed layout.
struct ReductionPlan {
  TensorShape out_shape;
  // Collapsed dims, alternating between kept and reduced, starting with a kept one when
  // first_reduced is false. Empty when the input has no dim larger than 1.
  std::vector<int64_t> dims;
  bool first_reduced = false;
  int64_t reduced_count = 1;  // elements reduced into each output element
  // The input viewed as [kept dims..., reduced dims...]: sizes and input strides, for the
  // transposing fallback.
  std::vector<int64_t> transposed_sizes, transposed_strides;
};

Status MakeReductionPlan(const TensorShape& in_shape, const Tensor& axes_tensor, bool keep_dims,
                         ReductionPlan* plan) {
  std::vector<int64_t> axes;
  GRT_RETURN_IF_ERROR(ReadIndexTensor(axes_tensor, "reduction_indices", &axes));
  const int rank = in_shape.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return InvalidArgument("Invalid reduction dimension (", axis, " for input with ", rank,
                             " dimension(s)");
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (reduced[a]) {
      return InvalidArgument("Invalid reduction arguments: Axes contains duplicate dimension: ", a);
    }
    reduced[a] = true;
  }
  std::vector<int64_t> out_dims;
  std::vector<int64_t> kept_sizes, kept_strides, reduced_sizes, reduced_strides;
  const std::vector<int64_t> strides = RowMajorStrides(in_shape.dim_sizes());
  for (int i = 0; i < rank; ++i) {
    const int64_t size = in_shape.dim_size(i);
    if (reduced[i]) {
      if (keep_dims) out_dims.push_back(1);
      plan->reduced_count *= size;
    } else {
      out_dims.push_back(size);
    }
    if (size == 1) continue;
    (reduced[i] ? reduced_sizes : kept_sizes).push_back(size);
    (reduced[i] ? reduced_strides : kept_strides).push_back(strides[i]);
  }
  plan->out_shape = TensorShape(out_dims);
  // Merge runs of kept / reduced dims.
  bool last_reduced = false;
  for (int i = 0; i < rank; ++i) {
    const int64_t size = in_shape.dim_size(i);
    if (size == 1) continue;
    if (!plan->dims.empty() && reduced[i] == last_reduced) {
      plan->dims.back() *= size;
    } else {
      if (plan->dims.empty()) plan->first_reduced = reduced[i];
      plan->dims.push_back(size);
      last_reduced = reduced[i];
    }
  }
  plan->transposed_sizes = kept_sizes;
  plan->transposed_sizes.insert(plan->transposed_sizes.end(), reduced_sizes.begin(),
                                reduced_sizes.end());
  plan->transposed_strides = kept_strides;
  plan->transposed_strides.insert(plan->transposed_strides.end(), reduced_strides.begin(),
                                  reduced_strides.end());
  return Status::OK();
}

// ---- The layouts.

constexpr int64_t kRunChunk = 16384;    // elements of one inner run a task reduces
constexpr int64_t kColumnBlock = 1024;  // output columns one task of an outer reduction holds

// [K, R]: out[k] = reduce(in[k, :]). Long runs are split into chunks reduced in parallel.
template <typename Reducer, typename T>
void ReduceInner(OpKernelContext* ctx, const T* in, T* out, int64_t k, int64_t r) {
  using Acc = typename Reducer::Acc;
  const int64_t chunks = std::max<int64_t>(1, r / kRunChunk);
  const int64_t chunk = (r + chunks - 1) / chunks;
  if (chunks == 1) {
    ctx->ParallelFor(k, ElementCost(r * sizeof(T), r), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        out[i] = Reducer::Finish(ReduceAnyRun<Reducer>(in + i * r, r), r);
      }
    });
    return;
  }
  std::unique_ptr<Acc[]> partial = Scratch<Acc>(k * chunks);
  ctx->ParallelFor(k * chunks, ElementCost(chunk * sizeof(T), chunk),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t u = begin; u < end; ++u) {
                       const int64_t row = u / chunks, c = u % chunks;
                       const int64_t start = c * chunk;
                       const int64_t n = std::min(chunk, r - start);
                       partial[u] = ReduceAnyRun<Reducer>(in + row * r + start, n);
                     }
                   });
  for (int64_t i = 0; i < k; ++i) {
    Acc acc = partial[i * chunks];
    for (int64_t c = 1; c < chunks; ++c) acc = Reducer::Combine(acc, partial[i * chunks + c]);
    out[i] = Reducer::Finish(acc, r);
  }
}

// [K0, R, K1]: out[k0, :] = reduce over r of in[k0, r, :]. Tasks take blocks of output columns;
// when there are too few of them, the reduced dim is split as well.
template <typename Reducer, typename T>
void ReduceOuter(OpKernelContext* ctx, const T* in, T* out, int64_t k0, int64_t r, int64_t k1) {
  using Acc = typename Reducer::Acc;
  // float Sum and Mean: tap_sum.h's ColumnSums on the AVX2 / AVX-512 paths.
  constexpr bool kFloatSum =
      std::is_same_v<Reducer, SumReducer<float>> || std::is_same_v<Reducer, MeanReducer<float>>;
  [[maybe_unused]] const CpuIsa isa = ActiveCpuIsa();
  const int64_t blocks = (k1 + kColumnBlock - 1) / kColumnBlock;
  const int64_t threads = ctx->device()->intra_op_threads();
  int64_t chunks = 1;
  if (k0 * blocks < 2 * threads) {
    chunks = std::clamp<int64_t>(r * std::min(k1, kColumnBlock) / kRunChunk, 1, 4 * threads);
  }
  const int64_t chunk = (r + chunks - 1) / chunks;
  std::unique_ptr<Acc[]> partial = Scratch<Acc>(chunks > 1 ? chunks * k0 * k1 : 0);
  const int64_t cost = ElementCost(chunk * std::min(k1, kColumnBlock) * sizeof(T),
                                   chunk * std::min(k1, kColumnBlock));
  ctx->ParallelFor(chunks * k0 * blocks, cost, [&](int64_t begin, int64_t end) {
    std::unique_ptr<Acc[]> acc = Scratch<Acc>(std::min(k1, kColumnBlock));
    std::unique_ptr<Acc[]> wide = Scratch<Acc>(k1 < kShortRun ? kShortRun * k1 : 0);
    for (int64_t u = begin; u < end; ++u) {
      const int64_t c = u / (k0 * blocks);
      const int64_t i0 = (u / blocks) % k0;
      const int64_t col = (u % blocks) * kColumnBlock;
      const int64_t n = std::min(kColumnBlock, k1 - col);
      const int64_t r_begin = c * chunk, r_end = std::min(r, r_begin + chunk);
      const T* base = in + i0 * r * k1 + col;
      if (k1 < kShortRun) {
        // Few columns (so n == k1 and rows are contiguous): kShortRun rows at a time form one
        // long row, accumulated vectorized into `wide`, which is folded into n columns after.
        const int64_t width = kShortRun * n;
        const int64_t groups = (r_end - r_begin) / kShortRun;
        std::fill(wide.get(), wide.get() + width, Reducer::Identity());
        for (int64_t g = 0; g < groups; ++g) {
          Reducer::AccumulateRow(wide.get(), base + (r_begin + g * kShortRun) * k1, width);
        }
        for (int64_t i = 0; i < n; ++i) {
          Acc a = wide[i];
          for (int64_t q = 1; q < kShortRun; ++q) a = Reducer::Combine(a, wide[q * n + i]);
          for (int64_t j = r_begin + groups * kShortRun; j < r_end; ++j) {
            a = Reducer::Combine(a, Reducer::Load(base[j * k1 + i]));
          }
          acc[i] = a;
        }
      } else {
        std::fill(acc.get(), acc.get() + n, Reducer::Identity());
        bool summed = false;
        if constexpr (kFloatSum) {
          if (HasTapSum(isa)) {
            // The same additions in the same order, the sums held in registers.
            ColumnSums(isa, base + r_begin * k1, r_end - r_begin, k1, n, acc.get());
            summed = true;
          }
        }
        for (int64_t j = r_begin; !summed && j < r_end; ++j) {
          Reducer::AccumulateRow(acc.get(), base + j * k1, n);
        }
      }
      if (chunks == 1) {
        T* o = out + i0 * k1 + col;
        for (int64_t i = 0; i < n; ++i) o[i] = Reducer::Finish(acc[i], r);
      } else {
        std::copy(acc.get(), acc.get() + n, partial.get() + (c * k0 + i0) * k1 + col);
      }
    }
  });
  if (chunks == 1) return;
  const int64_t size = k0 * k1;
  ctx->ParallelFor(size, ElementCost(chunks * sizeof(Acc), chunks),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i) {
                       Acc a = partial[i];
                       for (int64_t c = 1; c < chunks; ++c) {
                         a = Reducer::Combine(a, partial[c * size + i]);
                       }
                       out[i] = Reducer::Finish(a, r);
                     }
                   });
}

// [R0, K, R1]: out[k] = reduce over r0 of reduce(in[r0, k, :]).
template <typename Reducer, typename T>
void ReduceOuterAndInner(OpKernelContext* ctx, const T* in, T* out, int64_t r0, int64_t k,
                         int64_t r1) {
  using Acc = typename Reducer::Acc;
  ctx->ParallelFor(k, ElementCost(r0 * r1 * sizeof(T), r0 * r1), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      Acc acc = ReduceAnyRun<Reducer>(in + i * r1, r1);
      for (int64_t j = 1; j < r0; ++j) {
        acc = Reducer::Combine(acc, ReduceAnyRun<Reducer>(in + (j * k + i) * r1, r1));
      }
      out[i] = Reducer::Finish(acc, r0 * r1);
    }
  });
}

template <typename Reducer, typename T>
Status Reduce(OpKernelContext* ctx, const ReductionPlan& plan) {
  const Tensor& input = ctx->input(0);
  if (Reducer::kSingleIsIdentity && plan.reduced_count == 1) {
    ctx->set_output(0, input.Reshaped(plan.out_shape));  // nothing to combine
    return Status::OK();
  }
  Tensor* output = nullptr;
  GRT_RETURN_IF_ERROR(ctx->allocate_output(0, plan.out_shape, &output));
  T* out = output->data<T>();
  const int64_t out_size = output->NumElements();
  if (out_size == 0) return Status::OK();
  if (input.NumElements() == 0) {
    std::fill(out, out + out_size, Reducer::Finish(Reducer::Identity(), 0));
    return Status::OK();
  }
  const T* in = input.data<T>();
  const std::vector<int64_t>& d = plan.dims;
  const size_t rank = d.size();
  if (rank == 0 || (rank == 1 && !plan.first_reduced)) {
    ReduceInner<Reducer>(ctx, in, out, out_size, 1);  // only size-1 dims reduced
  } else if (rank == 1) {
    ReduceInner<Reducer>(ctx, in, out, 1, d[0]);
  } else if (rank == 2 && !plan.first_reduced) {
    ReduceInner<Reducer>(ctx, in, out, d[0], d[1]);
  } else if (rank == 2) {
    ReduceOuter<Reducer>(ctx, in, out, 1, d[0], d[1]);
  } else if (rank == 3 && !plan.first_reduced) {
    ReduceOuter<Reducer>(ctx, in, out, d[0], d[1], d[2]);
  } else if (rank == 3) {
    ReduceOuterAndInner<Reducer>(ctx, in, out, d[0], d[1], d[2]);
  } else {
    GRT_ASSIGN_OR_RETURN(Tensor transposed, Tensor::Allocate(input.dtype(), input.shape()));
    StridedBox box{plan.transposed_sizes, plan.transposed_strides,
                   RowMajorStrides(plan.transposed_sizes)};
    CopyStrided(input.dtype(), box, in, transposed.raw_data(), ctx->device());
    ReduceInner<Reducer>(ctx, transposed.data<T>(), out, out_size, plan.reduced_count);
  }
  return Status::OK();
}

template <typename T, typename Reducer>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, GetNodeAttrOr(ctx->def(), "keep_dims", &keep_dims_));
  }

  Status Compute(OpKernelContext* ctx) override {
    ReductionPlan plan;
    GRT_RETURN_IF_ERROR(MakeReductionPlan(ctx->input(0).shape(), ctx->input(1), keep_dims_, &plan));
    return Reduce<Reducer, T>(ctx, plan);
  }

 private:
  bool keep_dims_ = false;
};

// ---- ArgMax / ArgMin.

// The first index of the largest (kMax) or smallest element. Comparisons start from the lowest
// (highest) value at index 0 and never pick NaN, as TensorFlow's Eigen reducer does.
template <typename T, typename Index, bool kMax>
void ArgReduce(OpKernelContext* ctx, const T* in, Index* out, int64_t outer, int64_t n,
               int64_t inner) {
  using C = Widened<T>;
  const C init = kMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  if constexpr (!kIsHalfLike<T> && !std::is_same_v<T, bool>) {
    if (inner == 1) {
      // Contiguous rows: find the extremum ignoring NaN (vectorized), then its first index.
      // Where no element beats `init` (all NaN, or nothing above lowest), the answer is 0.
      ctx->ParallelFor(outer, ElementCost(n * sizeof(T), 2 * n), [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          const T* row = in + o * n;
          const ConstArrayMap<T> values(row, n);
          const T best = kMax ? values.template maxCoeff<Eigen::PropagateNumbers>()
                              : values.template minCoeff<Eigen::PropagateNumbers>();
          const bool beats_init = kMax ? best > init : best < init;
          out[o] = static_cast<Index>(beats_init ? std::find(row, row + n, best) - row : 0);
        }
      });
      return;
    }
  }
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t width = std::min(inner, kColumnBlock);
  ctx->ParallelFor(outer * blocks, ElementCost(n * width * sizeof(T), 2 * n * width),
                   [&](int64_t begin, int64_t end) {
                     std::vector<C> best(static_cast<size_t>(width));
                     std::vector<int64_t> index(static_cast<size_t>(width));
                     for (int64_t u = begin; u < end; ++u) {
                       const int64_t o = u / blocks;
                       const int64_t col = (u % blocks) * kColumnBlock;
                       const int64_t m = std::min(kColumnBlock, inner - col);
                       std::fill(best.begin(), best.begin() + m, init);
                       std::fill(index.begin(), index.begin() + m, 0);
                       const T* base = in + o * n * inner + col;
                       for (int64_t a = 0; a < n; ++a) {
                         const T* row = base + a * inner;
                         for (int64_t j = 0; j < m; ++j) {
                           const C v = static_cast<C>(row[j]);
                           if (kMax ? v > best[j] : v < best[j]) {
                             best[j] = v;
                             index[j] = a;
                           }
                         }
                       }
                       Index* o_row = out + o * inner + col;
                       for (int64_t j = 0; j < m; ++j) o_row[j] = static_cast<Index>(index[j]);
                     }
                   });
}

template <typename T, bool kMax>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dimension = ctx->input(1);
    if (dimension.dims() != 0) {
      return InvalidArgument("dim must be a scalar, but received tensor of shape: ",
                             dimension.shape().DebugString());
    }
    std::vector<int64_t> dim_value;
    GRT_RETURN_IF_ERROR(ReadIndexTensor(dimension, "dimension", &dim_value));
    const int rank = input.dims();
    const int64_t dim = dim_value[0];
    if (dim < -rank || dim >= rank) {
      return InvalidArgument("Expected dimension in the range [", -rank, ", ", rank, "), but got ",
                             dim);
    }
    const int axis = static_cast<int>(dim < 0 ? dim + rank : dim);
    if (input.dim_size(axis) == 0) {
      return InvalidArgument("Reduction axis ", dim, " is empty in shape ",
                             input.shape().DebugString());
    }
    TensorShape out_shape = input.shape();
    out_shape.RemoveDim(axis);
    Tensor* output = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return Status::OK();
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= input.dim_size(i);
    for (int i = axis + 1; i < rank; ++i) inner *= input.dim_size(i);
    const int64_t n = input.dim_size(axis);
    const T* in = input.data<T>();
    switch (output->dtype()) {
      case ::tensorflow::DT_INT64:
        ArgReduce<T, int64_t, kMax>(ctx, in, output->data<int64_t>(), outer, n, inner);
        break;
      case ::tensorflow::DT_INT32:
        ArgReduce<T, int32_t, kMax>(ctx, in, output->data<int32_t>(), outer, n, inner);
        break;
      case ::tensorflow::DT_INT16:
        ArgReduce<T, int16_t, kMax>(ctx, in, output->data<int16_t>(), outer, n, inner);
        break;
      case ::tensorflow::DT_UINT16:
        ArgReduce<T, uint16_t, kMax>(ctx, in, output->data<uint16_t>(), outer, n, inner);
        break;
      default:
        return InvalidArgument("output_type must be int16, uint16, int32 or int64, got ",
                               DataTypeString(output->dtype()));
    }
    return Status::OK();
  }
};

// ---- Registration.

template <typename T>
using SumOp = ReductionOp<T, SumReducer<T>>;
template <typename T>
using MeanOp = ReductionOp<T, MeanReducer<T>>;
template <typename T>
using ProdOp = ReductionOp<T, ProdReducer<T>>;
template <typename T>
using MaxOp = ReductionOp<T, ExtremumReducer<T, true>>;
template <typename T>
using MinOp = ReductionOp<T, ExtremumReducer<T, false>>;
template <typename T>
using EuclideanNormOp = ReductionOp<T, EuclideanNormReducer<T>>;
template <typename T>
using ArgMaxOp = ArgOp<T, true>;
template <typename T>
using ArgMinOp = ArgOp<T, false>;

}  // namespace

void RegisterReductionKernels(KernelRegistry* r) {
  RegisterRealNumbers<SumOp>(r, "Sum");
  RegisterRealNumbers<MeanOp>(r, "Mean");
  RegisterRealNumbers<ProdOp>(r, "Prod");
  RegisterComplex<SumOp>(r, "Sum");
  RegisterComplex<MeanOp>(r, "Mean");
  RegisterComplex<ProdOp>(r, "Prod");
  RegisterComplex<EuclideanNormOp>(r, "EuclideanNorm");
  RegisterRealNumbers<MaxOp>(r, "Max");
  RegisterRealNumbers<MinOp>(r, "Min");
  RegisterTyped<EuclideanNormOp, float, double, half, bfloat16>(r, "EuclideanNorm");
  r->Register(KernelDefBuilder("All").Device(kDeviceCpu),
              MakeFactory<ReductionOp<bool, LogicalReducer<true>>>());
  r->Register(KernelDefBuilder("Any").Device(kDeviceCpu),
              MakeFactory<ReductionOp<bool, LogicalReducer<false>>>());
  RegisterRealNumbers<ArgMaxOp>(r, "ArgMax");
  RegisterTyped<ArgMaxOp, bool>(r, "ArgMax");
  RegisterRealNumbers<ArgMinOp>(r, "ArgMin");
  RegisterTyped<ArgMinOp, bool>(r, "ArgMin");
}

}  // namespace graphrt
