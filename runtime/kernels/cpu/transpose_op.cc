// Transpose and ConjugateTranspose.
//
// The permutation is simplified first: size-1 dims are dropped and dims that stay neighbours in
// the same order are merged, so [B, S, H, D] with perm [0, 2, 1, 3] is a batched transpose of
// D-element blocks and any permutation that keeps the non-trivial dims in order is a reshape
// (no copy). What remains is done by the cheapest of: a strided copy when the innermost dim
// stays innermost (each row is one memcpy), a cache-blocked 2-D (or batched 2-D) transpose, and
// Eigen's shuffle on the intra-op threads for the other permutations of plain values.
#include <algorithm>
#include <complex>
#include <type_traits>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "runtime/kernels/cpu/array_kernels.h"
#include "runtime/kernels/common/array_util.h"
#include "runtime/kernels/cpu/strided_copy.h"
#include "runtime/kernels/eigen_util.h"

namespace graphrt {

namespace {

constexpr int64_t kBlock = 8;

#if defined(__AVX__)
// An 8 x 8 block of 4-byte elements in AVX registers: interleave pairs of rows, then pairs of
// pairs, then swap 128-bit halves.
inline void TransposeBlock8x8(const uint32_t* src, int64_t src_stride, uint32_t* dst,
                              int64_t dst_stride) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * src_stride));
  }
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) {
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + i * dst_stride), t[i]);
  }
}
#endif

// Transposes one kBlock x kBlock block; through a local buffer that the compiler keeps in
// registers, or with AVX shuffles for 4-byte elements.
template <typename T>
void TransposeBlock(const T* src, int64_t src_stride, T* dst, int64_t dst_stride) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, uint32_t>) {
    TransposeBlock8x8(src, src_stride, dst, dst_stride);
    return;
  }
#endif
  T buffer[kBlock][kBlock];
  for (int i = 0; i < kBlock; ++i) {
    for (int j = 0; j < kBlock; ++j) buffer[j][i] = src[i * src_stride + j];
  }
  for (int j = 0; j < kBlock; ++j) {
    for (int i = 0; i < kBlock; ++i) dst[j * dst_stride + i] = buffer[j][i];
  }
}

// out[j][i] = in[i][j] for `batches` consecutive rows x cols matrices, in tiles of 128 input rows
// by 16 input columns, 8 x 8 blocks inside a tile. Sweeping down a tile's rows writes each output
// row in one long run, which keeps power-of-two strides from thrashing the cache.
template <typename T>
void BlockedTranspose(const T* in, T* out, int64_t batches, int64_t rows, int64_t cols,
                      const Device* device) {
  constexpr int64_t kTileRows = 128, kTileCols = 16;
  const int64_t row_tiles = (rows + kTileRows - 1) / kTileRows;
  const int64_t col_tiles = (cols + kTileCols - 1) / kTileCols;
  const int64_t tiles_per_batch = row_tiles * col_tiles;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / tiles_per_batch, rest = t % tiles_per_batch;
      const int64_t r0 = (rest / col_tiles) * kTileRows, c0 = (rest % col_tiles) * kTileCols;
      const int64_t r1 = std::min(rows, r0 + kTileRows), c1 = std::min(cols, c0 + kTileCols);
      const T* src = in + b * rows * cols;
      T* dst = out + b * rows * cols;
      for (int64_t c = c0; c < c1; c += kBlock) {
        for (int64_t r = r0; r < r1; r += kBlock) {
          if (r + kBlock <= r1 && c + kBlock <= c1) {
            TransposeBlock(src + r * cols + c, cols, dst + c * rows + r, rows);
            continue;
          }
          const int64_t re = std::min(r1, r + kBlock), ce = std::min(c1, c + kBlock);
          for (int64_t i = r; i < re; ++i) {
            for (int64_t j = c; j < ce; ++j) dst[j * rows + i] = src[i * cols + j];
          }
        }
      }
    }
  };
  const int64_t tiles = batches * tiles_per_batch;
  const int64_t tile_cost = kTileRows * kTileCols * 2;
  if (device == nullptr || tiles * tile_cost < 100000) {
    work(0, tiles);
  } else {
    device->ParallelFor(tiles, tile_cost, work);
  }
}

template <typename T, int N>
void EigenShuffle(const T* in, T* out, const std::vector<int64_t>& dims,
                  const std::vector<int>& perm, const Eigen::ThreadPoolDevice& device) {
  Eigen::DSizes<Eigen::DenseIndex, N> in_dims, out_dims;
  Eigen::array<int, N> shuffle;
  for (int i = 0; i < N; ++i) {
    in_dims[i] = dims[i];
    out_dims[i] = dims[perm[i]];
    shuffle[i] = perm[i];
  }
  ConstEigenTensorMap<T, N> x(in, in_dims);
  EigenTensorMap<T, N> y(out, out_dims);
  y.device(device) = x.shuffle(shuffle);
}

// REQUIRES: dims and perm simplified (no size-1 dims, no mergeable neighbours), rank >= 2.
template <typename T>
void TransposeSimplified(const T* in, T* out, const std::vector<int64_t>& dims,
                         const std::vector<int>& perm, OpKernelContext* ctx, DataType dtype) {
  const int rank = static_cast<int>(dims.size());
  if constexpr (std::is_trivially_copyable_v<T>) {
    if (rank == 2) {
      BlockedTranspose(in, out, 1, dims[0], dims[1], ctx->device());
      return;
    }
    if (rank == 3 && perm[0] == 0 && perm[1] == 2 && perm[2] == 1) {
      BlockedTranspose(in, out, dims[0], dims[1], dims[2], ctx->device());
      return;
    }
  }
  constexpr bool kEigen = std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> ||
                          std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>;
  // A long innermost run that stays innermost is a row-by-row memcpy.
  const bool inner_run = perm[rank - 1] == rank - 1 && dims[rank - 1] >= 8;
  if constexpr (kEigen) {
    if (!inner_run && rank <= 5) {
      const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
      if (rank == 3) return EigenShuffle<T, 3>(in, out, dims, perm, d);
      if (rank == 4) return EigenShuffle<T, 4>(in, out, dims, perm, d);
      return EigenShuffle<T, 5>(in, out, dims, perm, d);
    }
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(dims);
  StridedBox box;
  for (int i = 0; i < rank; ++i) {
    box.sizes.push_back(dims[perm[i]]);
    box.src_strides.push_back(in_strides[perm[i]]);
  }
  box.dst_strides = RowMajorStrides(box.sizes);
  CopyStrided(dtype, box, in, out, ctx->device());
}

// Negates the imaginary parts of complex elements; other dtypes are left alone.
void ConjugateInPlace(Tensor* t) {
  if (t->dtype() == ::tensorflow::DT_COMPLEX64) {
    auto* v = t->data<std::complex<float>>();
    for (int64_t i = 0; i < t->NumElements(); ++i) v[i] = std::conj(v[i]);
  } else if (t->dtype() == ::tensorflow::DT_COMPLEX128) {
    auto* v = t->data<std::complex<double>>();
    for (int64_t i = 0; i < t->NumElements(); ++i) v[i] = std::conj(v[i]);
  }
}

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    conjugate_ = ctx->def().op() == "ConjugateTranspose" &&
                 (ctx->input_types()[0] == ::tensorflow::DT_COMPLEX64 ||
                  ctx->input_types()[0] == ::tensorflow::DT_COMPLEX128);
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    if (perm_t.dims() != 1) {
      return InvalidArgument("perm must be rank 1, got shape ", perm_t.shape().DebugString());
    }
    const int rank = input.dims();
    if (perm_t.NumElements() != rank) {
      return InvalidArgument("transpose expects a vector of size ", rank,
                             ". But input(1) is a vector of size ", perm_t.NumElements());
    }
    std::vector<int64_t> perm;
    GRT_RETURN_IF_ERROR(ReadIntegers(perm_t, "perm", &perm));
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    TensorShape out_shape;
    for (int64_t p : perm) {
      if (p < 0 || p >= rank) return InvalidArgument(p, " is out of range [0 .. ", rank, ")");
      seen[p] = true;
      out_shape.AddDim(input.dim_size(static_cast<int>(p)));
    }
    for (int i = 0; i < rank; ++i) {
      if (!seen[i]) {
        return InvalidArgument(i, " is missing from {", StrJoin(perm, ","), "}.");
      }
    }

    // Drop size-1 dims, then merge input dims that stay neighbours in order.
    std::vector<int> kept(static_cast<size_t>(rank), -1);  // input dim -> index among kept dims
    std::vector<int64_t> kept_dims;
    for (int i = 0; i < rank; ++i) {
      if (input.dim_size(i) != 1) {
        kept[i] = static_cast<int>(kept_dims.size());
        kept_dims.push_back(input.dim_size(i));
      }
    }
    std::vector<int> kept_perm;
    for (int64_t p : perm) {
      if (kept[p] >= 0) kept_perm.push_back(kept[p]);
    }
    // Groups of output positions whose input dims are consecutive.
    std::vector<std::vector<int>> groups;
    for (int p : kept_perm) {
      if (!groups.empty() && groups.back().back() + 1 == p) {
        groups.back().push_back(p);
      } else {
        groups.push_back({p});
      }
    }
    // Order groups by their first input dim to get the merged input dims and the merged perm.
    std::vector<int> order(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) order[g] = static_cast<int>(g);
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return groups[a].front() < groups[b].front(); });
    std::vector<int64_t> dims(groups.size());
    std::vector<int> merged_perm(groups.size());
    for (size_t k = 0; k < order.size(); ++k) {
      int64_t size = 1;
      for (int d : groups[order[k]]) size *= kept_dims[d];
      dims[k] = size;
      merged_perm[order[k]] = static_cast<int>(k);
    }

    if (dims.size() <= 1) {  // the data order does not change
      if (!conjugate_) {
        ctx->set_output(0, input.Reshaped(out_shape));
        return Status::OK();
      }
      Tensor* out = nullptr;
      GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
      CopyStrided(input.dtype(), StridedBox{{input.NumElements()}, {1}, {1}}, input.raw_data(),
                  out->raw_data(), ctx->device());
      ConjugateInPlace(out);
      return Status::OK();
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    GRT_RETURN_IF_ERROR(VisitElementKind(input.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      TransposeSimplified(input.data<T>(), out->data<T>(), dims, merged_perm, ctx, input.dtype());
    }));
    if (conjugate_) ConjugateInPlace(out);
    return Status::OK();
  }

 private:
  bool conjugate_ = false;
};

}  // namespace

void RegisterTransposeKernels(KernelRegistry* r) {
  for (const char* op : {"Transpose", "ConjugateTranspose"}) {
    r->Register(KernelDefBuilder(op)
                    .Device(kDeviceCpu)
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint<int32_t, int64_t>("Tperm")
                    .HostMemory("perm"),
                MakeFactory<TransposeOp>());
  }
}

}  // namespace graphrt
