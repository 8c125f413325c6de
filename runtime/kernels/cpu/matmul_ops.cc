// MatMul and BatchMatMul (V1: equal batch dims; V2, V3: broadcast batch dims; V3 also mixes
// input and output types). Products run through gemm.h; half and bfloat16 are widened to float
// and rounded back once, and 8-bit inputs of BatchMatMulV3 are widened to the int32 result type.

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsics
// headers when Eigen's half/bfloat16 packet code inlines them; the pragmas must precede Eigen.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <complex>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/kernels/cpu/fused_epilogue.h"
#include "runtime/kernels/cpu/gemm.h"
#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/cpu/packed_weights.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

constexpr int kInputX = 0;
constexpr int kInputY = 1;
constexpr int kOutput = 0;

// How the batch dimensions of the two operands pair up.
enum class BatchRule { kNone, kEqual, kBroadcast };

// The shape checks and batch pairing of one (batch) matrix product.
struct ProductPlan {
  int64_t m = 0, n = 0, k = 0;
  TensorShape out_shape;
  // For each output matrix, the matrices of x and y it multiplies.
  std::vector<int64_t> x_index, y_index;
};

Status PlanProduct(const TensorShape& x, const TensorShape& y, bool adj_x, bool adj_y,
                   BatchRule rule, ProductPlan* plan) {
  const int rx = x.dims(), ry = y.dims();
  if (rule == BatchRule::kNone) {
    if (rx != ry) {
      return InvalidArgument("In[0] and In[1] has different ndims: ", x.DebugString(), " vs. ",
                             y.DebugString());
    }
    if (rx != 2) return InvalidArgument("In[0] and In[1] ndims must be == 2: ", rx);
  } else if (rule == BatchRule::kEqual) {
    if (rx != ry) {
      return InvalidArgument("In[0] and In[1] has different ndims: ", x.DebugString(), " vs. ",
                             y.DebugString());
    }
    if (rx < 2) return InvalidArgument("In[0] and In[1] ndims must be >= 2: ", rx);
    for (int i = 0; i < rx - 2; ++i) {
      if (x.dim_size(i) != y.dim_size(i)) {
        return InvalidArgument("In[0].dim(", i, ") and In[1].dim(", i,
                               ") must be the same: ", x.DebugString(), " vs ", y.DebugString());
      }
    }
  } else {
    if (rx < 2) return InvalidArgument("In[0] ndims must be >= 2: ", rx);
    if (ry < 2) return InvalidArgument("In[1] ndims must be >= 2: ", ry);
  }
  const int64_t x_rows = x.dim_size(rx - 2), x_cols = x.dim_size(rx - 1);
  const int64_t y_rows = y.dim_size(ry - 2), y_cols = y.dim_size(ry - 1);
  plan->m = adj_x ? x_cols : x_rows;
  plan->k = adj_x ? x_rows : x_cols;
  plan->n = adj_y ? y_rows : y_cols;
  const int64_t y_k = adj_y ? y_cols : y_rows;

  // Broadcast the batch dims (for kEqual and kNone they agree already).
  const int batch_rank = std::max(rx, ry) - 2;
  std::vector<int64_t> out_batch(batch_rank);
  for (int i = 0; i < batch_rank; ++i) {
    const int ix = i - (batch_rank - (rx - 2)), iy = i - (batch_rank - (ry - 2));
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1, dy = iy >= 0 ? y.dim_size(iy) : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      return InvalidArgument("In[0] and In[1] must have compatible batch dimensions: ",
                             x.DebugString(), " vs. ", y.DebugString());
    }
    out_batch[i] = dx == 1 ? dy : dx;
  }
  if (plan->k != y_k) {
    return InvalidArgument("Matrix size-incompatible: In[0]: ", x.DebugString(),
                           ", In[1]: ", y.DebugString());
  }
  std::vector<int64_t> out_dims = out_batch;
  out_dims.push_back(plan->m);
  out_dims.push_back(plan->n);
  GRT_ASSIGN_OR_RETURN(plan->out_shape, TensorShape::FromDims(out_dims));

  // An empty result needs no pairing (and its batch dims may multiply to anything).
  if (plan->out_shape.num_elements() == 0) return Status::OK();
  int64_t batches = 1;
  for (int64_t d : out_batch) batches *= d;
  plan->x_index.assign(batches, 0);
  plan->y_index.assign(batches, 0);
  // Walk the output batch index in row-major order, tracking each operand's flat index; a
  // broadcast dim (size 1) contributes stride 0.
  int64_t x_stride = 1, y_stride = 1, out_stride = 1;
  for (int i = batch_rank - 1; i >= 0; --i) {
    const int ix = i - (batch_rank - (rx - 2)), iy = i - (batch_rank - (ry - 2));
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1, dy = iy >= 0 ? y.dim_size(iy) : 1;
    if (out_batch[i] > 1) {
      for (int64_t b = 0; b < batches; ++b) {
        const int64_t coord = (b / out_stride) % out_batch[i];
        if (dx > 1) plan->x_index[b] += coord * x_stride;
        if (dy > 1) plan->y_index[b] += coord * y_stride;
      }
    }
    x_stride *= dx;
    y_stride *= dy;
    out_stride *= out_batch[i];
  }
  return Status::OK();
}

// x: Tx, y: Ty, output: Tout; the product accumulates in ComputeType<Tout>.
template <typename T>
inline constexpr bool kIsComplex = false;
template <typename T>
inline constexpr bool kIsComplex<std::complex<T>> = true;

template <typename Tx, typename Ty, typename Tout>
class MatMulOp : public OpKernel {
 public:
  using C = ComputeType<Tout>;

  MatMulOp(OpKernelConstruction* ctx, BatchRule rule) : OpKernel(ctx), rule_(rule) {
    if (rule == BatchRule::kNone) {
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("transpose_a", &adj_x_));
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("transpose_b", &adj_y_));
    } else {
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
      GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
    }
    if (std::is_same<C, float>::value && rule == BatchRule::kNone &&
        ctx->input_is_constant(kInputY)) {
      weights_ = std::make_unique<PackedWeights>();
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(kInputX);
    const Tensor& y = ctx->input(kInputY);
    ProductPlan plan;
    GRT_RETURN_IF_ERROR(PlanProduct(x.shape(), y.shape(), adj_x_, adj_y_, rule_, &plan));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, plan.out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();

    GRT_ASSIGN_OR_RETURN(Tensor cx, (ConvertTensor<Tx, C>(ctx, x)));
    GRT_ASSIGN_OR_RETURN(Tensor cy, (ConvertTensor<Ty, C>(ctx, y)));
    Tensor cout = *out;
    if constexpr (!std::is_same<Tout, C>::value) {
      GRT_ASSIGN_OR_RETURN(cout, Tensor::Allocate(DataTypeToEnum<C>::value, plan.out_shape));
    }
    Multiply(ctx, plan, cx.data<C>(), cy.data<C>(), cout.data<C>());
    if constexpr (!std::is_same<Tout, C>::value) {
      ConvertElements<C, Tout>(ctx, cout.data<C>(), cout.NumElements(), out->data<Tout>());
    }
    return Status::OK();
  }

 private:
  void Multiply(const OpKernelContext* ctx, const ProductPlan& plan, const C* x, const C* y,
                C* out) const {
    const int64_t m = plan.m, n = plan.n, k = plan.k;
    const int64_t x_size = m * k, y_size = k * n, out_size = m * n;
    const int64_t batches = static_cast<int64_t>(plan.x_index.size());
    if constexpr (kIsComplex<C>) {
      // gemm.h is real-only. BatchMatMul's adj_x / adj_y conjugate; MatMul's transposes do not.
      using Matrix = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      using Map = Eigen::Map<const Matrix>;
      const bool conj = rule_ != BatchRule::kNone;
      ctx->ParallelFor(batches, m * n * std::max<int64_t>(k, 1) * 4,
                       [&](int64_t first, int64_t last) {
                         for (int64_t b = first; b < last; ++b) {
                           Map xm(x + plan.x_index[b] * x_size, adj_x_ ? k : m, adj_x_ ? m : k);
                           Map ym(y + plan.y_index[b] * y_size, adj_y_ ? n : k, adj_y_ ? k : n);
                           Matrix a = adj_x_ ? Matrix(xm.transpose()) : Matrix(xm);
                           Matrix c = adj_y_ ? Matrix(ym.transpose()) : Matrix(ym);
                           if (conj && adj_x_) a = a.conjugate().eval();
                           if (conj && adj_y_) c = c.conjugate().eval();
                           Eigen::Map<Matrix>(out + b * out_size, m, n).noalias() = a * c;
                         }
                       });
      return;
    } else {
      MultiplyReal(ctx, plan, x, y, out, m, n, k, x_size, y_size, out_size, batches);
    }
  }

  void MultiplyReal(const OpKernelContext* ctx, const ProductPlan& plan, const C* x, const C* y,
                    C* out, int64_t m, int64_t n, int64_t k, int64_t x_size, int64_t y_size,
                    int64_t out_size, int64_t batches) const {
    auto matrix = [&](int64_t b) {
      return std::make_pair(MatrixRef<const C>{x + plan.x_index[b] * x_size, adj_x_ ? k : m,
                                               adj_x_ ? m : k, adj_x_ ? m : k},
                            MatrixRef<const C>{y + plan.y_index[b] * y_size, adj_y_ ? n : k,
                                               adj_y_ ? k : n, adj_y_ ? k : n});
    };
    const int64_t work = m * n * std::max<int64_t>(k, 1);
    const int threads = ctx->device()->intra_op_threads();
    if (batches > 1 && (batches >= threads || work < gemm_internal::kMinParallelWork)) {
      // Whole products per thread: no splitting of small GEMMs, no waiting between them.
      ctx->ParallelFor(batches, work, [&](int64_t first, int64_t last) {
        for (int64_t b = first; b < last; ++b) {
          auto [a_ref, b_ref] = matrix(b);
          GemmOnThisThread<C>(a_ref, adj_x_, b_ref, adj_y_, {out + b * out_size, m, n, n});
        }
      });
      return;
    }
    // A constant y (a dense layer's weights) is packed once for every Run.
    PrepackedB prepacked;
    if constexpr (std::is_same<C, float>::value) {
      if (weights_ != nullptr && batches == 1) {
        prepacked.packed = weights_->Get(ActiveCpuIsa(), y, adj_y_ ? 1 : n, adj_y_ ? k : 1, k, n);
      }
    }
    for (int64_t b = 0; b < batches; ++b) {
      auto [a_ref, b_ref] = matrix(b);
      Gemm<C>(ctx, a_ref, adj_x_, b_ref, adj_y_, {out + b * out_size, m, n, n}, prepacked);
    }
  }

  BatchRule rule_;
  bool adj_x_ = false;
  bool adj_y_ = false;
  std::unique_ptr<PackedWeights> weights_;  // a constant float y's packing
};

template <typename Tx, typename Ty, typename Tout, BatchRule kRule>
class MatMulKernel : public MatMulOp<Tx, Ty, Tout> {
 public:
  explicit MatMulKernel(OpKernelConstruction* ctx) : MatMulOp<Tx, Ty, Tout>(ctx, kRule) {}
};

// _FusedMatMul: the product, then the epilogue over its rows while they are still in cache.
class FusedMatMulOp : public MatMulOp<float, float, float> {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : MatMulOp(ctx, BatchRule::kNone) {
    GRT_CONSTRUCT_OK(ctx, epilogue_.Parse(*ctx));
  }

  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(MatMulOp::Compute(ctx));
    Tensor& out = ctx->outputs()[kOutput].tensor;
    return epilogue_.Run(ctx, out.dim_size(0), out.dim_size(1), "columns", &out);
  }

 private:
  FusedEpilogue epilogue_;
};

// DataTypeToEnum<T>::value, complex64 and complex128 included.
template <typename T>
DataType DtypeOf() {
  if constexpr (std::is_same<T, std::complex<float>>::value) {
    return ::tensorflow::DT_COMPLEX64;
  } else if constexpr (std::is_same<T, std::complex<double>>::value) {
    return ::tensorflow::DT_COMPLEX128;
  } else {
    return DataTypeToEnum<T>::value;
  }
}

template <typename T>
void RegisterSameType(KernelRegistry* r, bool v1, bool v2, bool v3) {
  if (v1) {
    r->Register(KernelDefBuilder("MatMul").Device(kDeviceCpu).TypeConstraint("T", {DtypeOf<T>()}),
                MakeFactory<MatMulKernel<T, T, T, BatchRule::kNone>>());
    r->Register(
        KernelDefBuilder("BatchMatMul").Device(kDeviceCpu).TypeConstraint("T", {DtypeOf<T>()}),
        MakeFactory<MatMulKernel<T, T, T, BatchRule::kEqual>>());
  }
  if (v2) {
    r->Register(
        KernelDefBuilder("BatchMatMulV2").Device(kDeviceCpu).TypeConstraint("T", {DtypeOf<T>()}),
        MakeFactory<MatMulKernel<T, T, T, BatchRule::kBroadcast>>());
  }
  if (v3) {
    r->Register(KernelDefBuilder("BatchMatMulV3")
                    .Device(kDeviceCpu)
                    .TypeConstraint("Ta", {DtypeOf<T>()})
                    .TypeConstraint("Tb", {DtypeOf<T>()})
                    .TypeConstraint("Tout", {DtypeOf<T>()}),
                MakeFactory<MatMulKernel<T, T, T, BatchRule::kBroadcast>>());
  }
}

template <typename Ta, typename Tb, typename Tout>
void RegisterMixedProduct(KernelRegistry* r) {
  r->Register(KernelDefBuilder("BatchMatMulV3")
                  .Device(kDeviceCpu)
                  .TypeConstraint("Ta", {DataTypeToEnum<Ta>::value})
                  .TypeConstraint("Tb", {DataTypeToEnum<Tb>::value})
                  .TypeConstraint("Tout", {DataTypeToEnum<Tout>::value}),
              MakeFactory<MatMulKernel<Ta, Tb, Tout, BatchRule::kBroadcast>>());
}

}  // namespace

void RegisterMatMulKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: MatMul and BatchMatMul for float, double, half, bfloat16, int32,
  // int64, complex64, complex128; BatchMatMulV2 adds int16; BatchMatMulV3 the same types (half too
  // here, which TF lacks on CPU), 8-bit inputs with an int32 result, and bfloat16 with an 8-bit
  // operand.
  RegisterSameType<float>(r, true, true, true);
  // The optimizer's fusion (runtime/optimize/remapper.cc), float only.
  r->Register(KernelDefBuilder("_FusedMatMul").Device(kDeviceCpu).TypeConstraint<float>("T"),
              MakeFactory<FusedMatMulOp>());
  RegisterSameType<double>(r, true, true, true);
  RegisterSameType<half>(r, true, true, true);
  RegisterSameType<bfloat16>(r, true, true, true);
  RegisterSameType<int32_t>(r, true, true, true);
  RegisterSameType<int64_t>(r, true, true, true);
  RegisterSameType<int16_t>(r, false, true, true);
  RegisterSameType<std::complex<float>>(r, true, true, true);
  RegisterSameType<std::complex<double>>(r, true, true, true);
  RegisterMixedProduct<int8_t, int8_t, int32_t>(r);
  RegisterMixedProduct<int8_t, uint8_t, int32_t>(r);
  RegisterMixedProduct<uint8_t, int8_t, int32_t>(r);
  RegisterMixedProduct<uint8_t, uint8_t, int32_t>(r);
  RegisterMixedProduct<bfloat16, int8_t, bfloat16>(r);
  RegisterMixedProduct<bfloat16, uint8_t, bfloat16>(r);
  RegisterMixedProduct<int8_t, bfloat16, bfloat16>(r);
  RegisterMixedProduct<uint8_t, bfloat16, bfloat16>(r);
}

}  // namespace graphrt
