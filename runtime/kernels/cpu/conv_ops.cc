// Conv2D and DepthwiseConv2dNative.
//
// Conv2D is im2col + GEMM: blocks of output pixels have their receptive fields copied into rows
// of a patch matrix ([pixels, filter_rows * filter_cols * in_depth], in the filter's HWIO order)
// that one GEMM multiplies by the filter seen as a [filter_rows * filter_cols * in_depth,
// out_depth] matrix. A 1x1 convolution with unit strides and no padding skips the copy: the input
// already is that matrix. Grouped convolutions (in_depth a multiple of the filter's depth) run
// one GEMM per group. Depthwise convolution sums, per output row, one elementwise product of
// input and weights per filter tap (see DepthwiseConvNhwc). For float on AVX2 and AVX-512 CPUs
// the GEMMs and that inner loop run the kernels built for those instruction sets (cpu_isa.h),
// and two shapes take other kernels there: 3x3 and 5x5 windows of unit stride and dilation with
// 16 or more channels each side run Winograd's F(2x2, 3x3) (winograd.h), and inputs of up to four
// channels (a first layer) are read straight from the padded input (small_depth_conv.h).
//
// Both compute in NHWC; NCHW inputs are transposed in and out (TensorFlow's CPU kernels reject
// NCHW; graphs exported from GPUs use it). half and bfloat16 are computed in float.

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsics
// headers when Eigen's half/bfloat16 packet code inlines them; the pragmas must precede Eigen.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/kernels/cpu/cwise_util.h"
#include "runtime/kernels/cpu/fused_epilogue.h"
#include "runtime/kernels/cpu/gemm.h"
#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/cpu/packed_weights.h"
#include "runtime/kernels/cpu/small_depth_conv.h"
#include "runtime/kernels/cpu/tap_sum.h"
#include "runtime/kernels/cpu/winograd.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

constexpr int kInputImage = 0;
constexpr int kInputFilter = 1;
constexpr int kOutput = 0;

// Target size of one block of the patch matrix: large enough to keep the GEMM efficient, small
// enough to stay in L2 while it is multiplied.
constexpr int64_t kPatchBlockBytes = 512 * 1024;

// The attrs both convolutions share, checked once at construction.
struct ConvAttrs {
  DataFormat format = DataFormat::kNHWC;
  Padding padding = Padding::kValid;
  std::vector<int64_t> strides, dilations, explicit_paddings;
  // Dims of H, W and C in the node's format.
  int h = 1, w = 2, c = 3;

  Status Parse(const OpKernelConstruction& ctx) {
    std::string format_name, padding_name;
    GRT_RETURN_IF_ERROR(ctx.GetAttr("data_format", &format_name));
    GRT_RETURN_IF_ERROR(ParseDataFormat(format_name, &format));
    if (format == DataFormat::kNCHW) {
      c = 1;
      h = 2;
      w = 3;
    }
    GRT_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding_name));
    GRT_RETURN_IF_ERROR(ParsePadding(padding_name, &padding));
    GRT_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
    dilations = {1, 1, 1, 1};
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx.def(), "dilations", &dilations));
    GRT_RETURN_IF_ERROR(GetNodeAttrOr(ctx.def(), "explicit_paddings", &explicit_paddings));
    if (strides.size() != 4) {
      return InvalidArgument("Sliding window strides field must specify 4 dimensions");
    }
    if (dilations.size() != 4) {
      return InvalidArgument("Sliding window dilations field must specify 4 dimensions");
    }
    if (strides[0] != 1 || strides[c] != 1) {
      return Unimplemented(
          "Current implementation does not yet support strides in the batch and depth "
          "dimensions.");
    }
    if (strides[h] <= 0 || strides[w] <= 0) {
      return InvalidArgument("Row and column strides should be larger than 0.");
    }
    if (dilations[0] != 1 || dilations[c] != 1) {
      return Unimplemented(
          "Current implementation does not yet support dilations in the batch and depth "
          "dimensions.");
    }
    if (dilations[h] <= 0 || dilations[w] <= 0) {
      return InvalidArgument("Dilated rates should be larger than 0.");
    }
    if (padding == Padding::kExplicit) {
      if (explicit_paddings.size() != 8) {
        return InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                               explicit_paddings.size());
      }
      for (int64_t p : explicit_paddings) {
        if (p < 0) return InvalidArgument("All elements of explicit_paddings must be nonnegative");
      }
      if (explicit_paddings[0] != 0 || explicit_paddings[1] != 0 || explicit_paddings[2 * c] != 0 ||
          explicit_paddings[2 * c + 1] != 0) {
        return InvalidArgument(
            "Nonzero explicit padding in the batch or depth dimensions is not supported");
      }
    } else if (!explicit_paddings.empty()) {
      return InvalidArgument(
          "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    }
    return Status::OK();
  }

  // The window geometry for an input of `shape` (in the node's format) and a filter of
  // filter_rows x filter_cols.
  Status Geometry(const TensorShape& shape, int64_t filter_rows, int64_t filter_cols,
                  Window2D* g) const {
    g->batch = shape.dim_size(0);
    g->in_rows = shape.dim_size(h);
    g->in_cols = shape.dim_size(w);
    g->depth = shape.dim_size(c);
    g->window_rows = filter_rows;
    g->window_cols = filter_cols;
    g->stride_rows = strides[h];
    g->stride_cols = strides[w];
    g->dilation_rows = dilations[h];
    g->dilation_cols = dilations[w];
    const bool is_explicit = padding == Padding::kExplicit;
    WindowDim rows, cols;
    GRT_RETURN_IF_ERROR(ComputeWindowDim(g->in_rows, filter_rows, g->dilation_rows, g->stride_rows,
                                         padding, is_explicit ? explicit_paddings[2 * h] : 0,
                                         is_explicit ? explicit_paddings[2 * h + 1] : 0, &rows));
    GRT_RETURN_IF_ERROR(ComputeWindowDim(g->in_cols, filter_cols, g->dilation_cols, g->stride_cols,
                                         padding, is_explicit ? explicit_paddings[2 * w] : 0,
                                         is_explicit ? explicit_paddings[2 * w + 1] : 0, &cols));
    g->out_rows = rows.output;
    g->out_cols = cols.output;
    g->pad_top = rows.pad_before;
    g->pad_left = cols.pad_before;
    return Status::OK();
  }

  // The output shape in the node's format.
  TensorShape OutputShape(const Window2D& g, int64_t out_depth) const {
    if (format == DataFormat::kNCHW) {
      return TensorShape({g.batch, out_depth, g.out_rows, g.out_cols});
    }
    return TensorShape({g.batch, g.out_rows, g.out_cols, out_depth});
  }
};

// Runs `compute` (which works in NHWC on ComputeType<T> buffers) for an input in either format,
// converting types and layouts on the way in and out. `out` has the node's format.
template <typename T, typename ComputeFn>
Status RunInNhwc(OpKernelContext* ctx, const ConvAttrs& attrs, const Window2D& g, int64_t out_depth,
                 const Tensor& input, const Tensor& filter, Tensor* out, ComputeFn compute) {
  using C = ComputeType<T>;
  GRT_ASSIGN_OR_RETURN(Tensor in_c, ToComputeType<T>(ctx, input));
  GRT_ASSIGN_OR_RETURN(Tensor filter_c, ToComputeType<T>(ctx, filter));
  const bool nchw = attrs.format == DataFormat::kNCHW;
  const TensorShape nhwc_out({g.batch, g.out_rows, g.out_cols, out_depth});
  if (nchw) {
    GRT_ASSIGN_OR_RETURN(Tensor in_nhwc,
                         Tensor::Allocate(DataTypeToEnum<C>::value,
                                          TensorShape({g.batch, g.in_rows, g.in_cols, g.depth})));
    TransposeInnerMatrices<C>(ctx, in_c.data<C>(), g.batch, g.depth, g.in_rows * g.in_cols,
                              in_nhwc.data<C>());
    in_c = in_nhwc;
  }
  // Where the NHWC result goes: straight into `out` when nothing is left to convert.
  Tensor result = *out;
  if (nchw || !std::is_same<T, C>::value) {
    GRT_ASSIGN_OR_RETURN(result, Tensor::Allocate(DataTypeToEnum<C>::value, nhwc_out));
  }
  compute(in_c.data<C>(), filter_c.data<C>(), result.data<C>());
  if (nchw) {
    if constexpr (std::is_same<T, C>::value) {
      TransposeInnerMatrices<C>(ctx, result.data<C>(), g.batch, g.out_rows * g.out_cols, out_depth,
                                out->data<T>());
    } else {
      GRT_ASSIGN_OR_RETURN(Tensor nchw_c, Tensor::Allocate(DataTypeToEnum<C>::value, out->shape()));
      TransposeInnerMatrices<C>(ctx, result.data<C>(), g.batch, g.out_rows * g.out_cols, out_depth,
                                nchw_c.data<C>());
      ConvertElements<C, T>(ctx, nchw_c.data<C>(), nchw_c.NumElements(), out->data<T>());
    }
  } else if (!std::is_same<T, C>::value) {
    ConvertElements<C, T>(ctx, result.data<C>(), result.NumElements(), out->data<T>());
  }
  return Status::OK();
}

// One register tile of a convolution read straight from the input: c[kRows, kPackets * lanes] =
// sum over taps t and channels q of rows[r][tap_offsets[t] + q] * b[(t * depth + q) * ldb + j].
// rows[r] is where output pixel r's window starts in the input; the sum runs in the order of
// the im2col GEMM's inner dimension (filter row, filter column, channel), so the results are
// the same.
template <typename T, int kRows, int kPackets>
inline void ConvTile(const T* const* rows, const int64_t* tap_offsets, int64_t taps, int64_t depth,
                     const T* b, int64_t ldb, T* c, int64_t ldc) {
  using P = gemm_internal::Packet<T>;
  constexpr int64_t kL = gemm_internal::kLanes<T>;
  P acc[kRows][kPackets];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < kPackets; ++j) acc[r][j] = Eigen::internal::pset1<P>(T(0));
  }
  for (int64_t t = 0; t < taps; ++t) {
    const T* a[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) a[r] = rows[r] + tap_offsets[t];
    const T* bt = b + t * depth * ldb;
    for (int64_t q = 0; q < depth; ++q) {
      P bv[kPackets];
#pragma GCC unroll 8
      for (int j = 0; j < kPackets; ++j) bv[j] = Eigen::internal::ploadu<P>(bt + q * ldb + j * kL);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const P av = Eigen::internal::pset1<P>(a[r][q]);
#pragma GCC unroll 8
        for (int j = 0; j < kPackets; ++j) acc[r][j] = Eigen::internal::pmadd(av, bv[j], acc[r][j]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < kPackets; ++j) Eigen::internal::pstoreu(c + r * ldc + j * kL, acc[r][j]);
  }
}

// ConvTile over `count` output pixels (window starts in `rows`) for one panel of kPackets
// packets of output channels.
template <typename T, int kPackets>
void ConvPanelRows(const T* const* rows, int64_t count, const int64_t* tap_offsets, int64_t taps,
                   int64_t depth, const T* b, int64_t ldb, T* c, int64_t ldc) {
  gemm_internal::ForEachRowTile(count, [&](auto tile_rows, int64_t r) {
    ConvTile<T, decltype(tile_rows)::value, kPackets>(rows + r, tap_offsets, taps, depth, b, ldb,
                                                      c + r * ldc, ldc);
  });
}

// Whether ConvNhwc can skip the patch matrix: float or double, one group and output channels
// in whole packets, and no packed SGEMM (sgemm.h) for float, which is faster than these tiles
// even with the copy.
template <typename C>
bool DirectConvApplies(const Window2D& g, int64_t patch_depth, int64_t out_depth) {
  if constexpr (!gemm_internal::kPanelType<C>) {
    return false;
  } else {
    if (std::is_same<C, float>::value && HasPackedSgemm(ActiveCpuIsa())) return false;
    return patch_depth == g.depth && out_depth % gemm_internal::kLanes<C> == 0;
  }
}

// The input extent that the windows of `g` span along one dim, padding included.
inline int64_t SpannedExtent(int64_t out, int64_t stride, int64_t window, int64_t dilation) {
  return (out - 1) * stride + (window - 1) * dilation + 1;
}

// ConvNhwc without im2col (REQUIRES: DirectConvApplies): the GEMM's register tiles read each
// pixel's window from the input, one filter tap (a run of `depth` contiguous channels) at a
// time.
template <typename C>
void DirectConvNhwc(const OpKernelContext* ctx, const Window2D& g, int64_t out_depth, const C* in,
                    const C* filter, C* out) {
  constexpr int64_t kL = gemm_internal::kLanes<C>;
  const int64_t taps = g.window_rows * g.window_cols;
  std::vector<int64_t> tap_offsets(static_cast<size_t>(taps));
  for (int64_t kh = 0; kh < g.window_rows; ++kh) {
    for (int64_t kw = 0; kw < g.window_cols; ++kw) {
      tap_offsets[kh * g.window_cols + kw] =
          (kh * g.dilation_rows * g.in_cols + kw * g.dilation_cols) * g.depth;
    }
  }
  const int64_t pixels = g.batch * g.out_rows * g.out_cols;
  const int64_t pixels_per_image = g.out_rows * g.out_cols;
  // Chunks of whole register tiles, enough of them to share out over the threads.
  // (Smaller chunks when there are few pixels, so that every thread gets one.)
  constexpr int64_t kChunk = 16 * gemm_internal::kTileRows;
  constexpr int64_t kTile = gemm_internal::kTileRows;
  const int64_t threads = std::max(1, ctx->device()->intra_op_threads());
  const int64_t per_thread = (pixels + threads - 1) / threads;
  const int64_t chunk_size =
      std::min(kChunk, std::max(kTile, (per_thread + kTile - 1) / kTile * kTile));
  const int64_t chunks = (pixels + chunk_size - 1) / chunk_size;
  const int64_t cost = chunk_size * taps * g.depth * out_depth;
  ctx->ParallelFor(chunks, cost, [&](int64_t first, int64_t last) {
    const C* rows[kChunk];
    for (int64_t chunk = first; chunk < last; ++chunk) {
      const int64_t p0 = chunk * chunk_size;
      const int64_t count = std::min(chunk_size, pixels - p0);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t p = p0 + i;
        const int64_t n = p / pixels_per_image;
        const int64_t oh = (p % pixels_per_image) / g.out_cols;
        const int64_t ow = p % g.out_cols;
        rows[i] =
            in + ((n * g.in_rows + oh * g.stride_rows) * g.in_cols + ow * g.stride_cols) * g.depth;
      }
      C* c = out + p0 * out_depth;
      int64_t j = 0;
      for (; j + gemm_internal::kWidePackets * kL <= out_depth;
           j += gemm_internal::kWidePackets * kL) {
        ConvPanelRows<C, gemm_internal::kWidePackets>(rows, count, tap_offsets.data(), taps,
                                                      g.depth, filter + j, out_depth, c + j,
                                                      out_depth);
      }
      if constexpr (gemm_internal::kWidePackets > 2) {
        for (; j + 2 * kL <= out_depth; j += 2 * kL) {
          ConvPanelRows<C, 2>(rows, count, tap_offsets.data(), taps, g.depth, filter + j, out_depth,
                              c + j, out_depth);
        }
      }
      for (; j < out_depth; j += kL) {
        ConvPanelRows<C, 1>(rows, count, tap_offsets.data(), taps, g.depth, filter + j, out_depth,
                            c + j, out_depth);
      }
    }
  });
}

// A fused convolution's epilogue (bias, residual, activation) over output rows [first, first +
// count) of [pixels, out_depth], `rows` pointing at the first.
using RowsEpilogue = std::function<void(int64_t first, int64_t count, float* rows)>;

// A fused convolution's epilogue as RowsEpilogue and, where the packed SGEMM applies its
// activation in registers, as that SGEMM applies it to each tile as it stores it (`tiles`: the
// bias of all output channels, the addend laid out as the whole output). Empty (rows unset) for
// a plain convolution.
struct ConvEpilogue {
  RowsEpilogue rows;
  bool has_tiles = false;
  SgemmEpilogue tiles;

  // `tiles` for a product whose output starts at row `first` and channel `channel`.
  SgemmEpilogue TilesFrom(int64_t first, int64_t channel, int64_t out_depth) const {
    SgemmEpilogue e = tiles;
    e.bias += channel;
    if (e.addend != nullptr) e.addend += first * out_depth + channel;
    return e;
  }
};

// `epilogue` over all `pixels` rows of `out`, shared out over the threads.
inline void EpilogueOverRows(const OpKernelContext* ctx, const RowsEpilogue& epilogue,
                             int64_t pixels, int64_t out_depth, float* out) {
  FusedEpilogue::ForEachRowBlock(ctx, pixels, out_depth, [&](int64_t first, int64_t count) {
    epilogue(first, count, out + first * out_depth);
  });
}

// The input for kernels that read windows straight from it: a zero-padded copy (the size of
// the input, where a patch matrix is the size of the input times the filter's taps) when g's
// windows reach into the padding, else null (read `in` itself). *padded is g with the padding
// moved into the input's extent.
template <typename C>
std::unique_ptr<ScratchBuffer<C>> PadInput(const OpKernelContext* ctx, const Window2D& g,
                                           const C* in, Window2D* padded) {
  const int64_t rows = SpannedExtent(g.out_rows, g.stride_rows, g.window_rows, g.dilation_rows);
  const int64_t cols = SpannedExtent(g.out_cols, g.stride_cols, g.window_cols, g.dilation_cols);
  *padded = g;
  if (g.pad_top == 0 && g.pad_left == 0 && rows <= g.in_rows && cols <= g.in_cols) return nullptr;
  padded->in_rows = rows;
  padded->in_cols = cols;
  padded->pad_top = 0;
  padded->pad_left = 0;
  auto copy = std::make_unique<ScratchBuffer<C>>(g.batch * rows * cols * g.depth);
  ctx->ParallelFor(g.batch * rows, cols * g.depth, [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const int64_t n = r / rows;
      const int64_t ih = r % rows - g.pad_top;
      C* dst = copy->get() + r * cols * g.depth;
      std::fill(dst, dst + cols * g.depth, C(0));
      if (ih < 0 || ih >= g.in_rows) continue;
      const int64_t iw0 = std::max<int64_t>(0, -g.pad_left);
      const int64_t iw1 = std::min(g.in_cols, cols - g.pad_left);
      if (iw1 <= iw0) continue;
      const C* src = in + ((n * g.in_rows + ih) * g.in_cols + iw0) * g.depth;
      std::copy(src, src + (iw1 - iw0) * g.depth, dst + (iw0 + g.pad_left) * g.depth);
    }
  });
  return copy;
}

// out[N*OH*OW, out_depth] = conv(in NHWC, filter HWIO) in compute type C. `weights`, when
// given, keeps a constant float filter packed from one Run to the next. `epilogue`, when given
// (float only), runs inside the GEMMs' tiles where it can (ConvEpilogue), or else over each
// block of output rows as soon as it is computed, while it is still in cache.
template <typename C>
void ConvNhwc(const OpKernelContext* ctx, const Window2D& g, int64_t patch_depth, int64_t out_depth,
              const C* in, const C* filter, C* out, PackedWeights* weights,
              WinogradWeights* winograd, const ConvEpilogue* epilogue) {
  [[maybe_unused]] const CpuIsa isa = ActiveCpuIsa();  // the float kernels' path
  if constexpr (std::is_same<C, float>::value) {
    if (WinogradApplies(isa, g, patch_depth, out_depth)) {
      std::unique_ptr<WinogradFilter> own;  // a filter that changes from Run to Run
      const WinogradFilter* transformed =
          winograd != nullptr ? winograd->Get(isa, filter, g, out_depth) : nullptr;
      if (transformed == nullptr) {
        own = WinogradFilter::Make(isa, filter, g.window_rows, g.depth, out_depth,
                                   ChooseWinogradForm(g));
        transformed = own.get();
      }
      if (transformed != nullptr) {
        WinogradConvNhwc(ctx, g, *transformed, in, out, [&](int64_t first, int64_t count) {
          if (epilogue != nullptr) epilogue->rows(first, count, out + first * out_depth);
        });
        return;
      }
    }
  }
  const bool in_tiles = epilogue != nullptr && epilogue->has_tiles;
  // The epilogue for a GEMM whose output starts at row `first` and channel `channel`, where it
  // runs inside the tiles (in *storage).
  auto tiles_from = [&](int64_t first, int64_t channel,
                        SgemmEpilogue* storage) -> const SgemmEpilogue* {
    if (!in_tiles) return nullptr;
    *storage = epilogue->TilesFrom(first, channel, out_depth);
    return storage;
  };
  // The epilogue over rows [first, first + count), where there is one and the GEMMs did not run
  // it.
  auto finish = [&](int64_t first, int64_t count) {
    if constexpr (std::is_same<C, float>::value) {
      if (epilogue != nullptr && !in_tiles) epilogue->rows(first, count, out + first * out_depth);
    }
  };
  // The epilogue over all rows, after kernels that do not run it (`gemm`: after the GEMMs).
  auto finish_all = [&](bool gemm) {
    if constexpr (std::is_same<C, float>::value) {
      if (epilogue != nullptr && !(gemm && in_tiles)) {
        EpilogueOverRows(ctx, epilogue->rows, g.batch * g.out_rows * g.out_cols, out_depth, out);
      }
    }
  };
  const int64_t groups = g.depth / patch_depth;
  const int64_t group_out = out_depth / groups;
  const int64_t pixels = g.batch * g.out_rows * g.out_cols;
  const int64_t patch_len = g.window_rows * g.window_cols * patch_depth;
  // The filter as the GEMMs' b, [patch_len, out_depth], packed once (one group only).
  PrepackedB prepacked;
  if constexpr (std::is_same<C, float>::value) {
    if (weights != nullptr && groups == 1) {
      prepacked.packed = weights->Get(isa, filter, out_depth, 1, patch_len, out_depth);
    }
  }

  const bool pointwise = g.window_rows == 1 && g.window_cols == 1 && g.stride_rows == 1 &&
                         g.stride_cols == 1 && g.pad_top == 0 && g.pad_left == 0 &&
                         g.out_rows == g.in_rows && g.out_cols == g.in_cols;
  const int threads = ctx->device()->intra_op_threads();
  if (pointwise) {
    // With an epilogue: blocks of about kPointwiseRows rows, each multiplied and finished on one
    // thread, as many blocks as a multiple of the threads (ResNet50's 392-row 1x1 layers at
    // batch 8 made 2 blocks of 240 and 152 rows, and two threads ran them at 1.2-1.6x one).
    constexpr int64_t kPointwiseRows = 240;
    constexpr int64_t kRowQuantum = 12;  // whole register tiles on every path (12, 6, 4 rows)
    int64_t chunks = (pixels + kPointwiseRows - 1) / kPointwiseRows;
    chunks = (chunks + threads - 1) / threads * threads;
    const int64_t chunk_rows =
        ((pixels + chunks - 1) / chunks + kRowQuantum - 1) / kRowQuantum * kRowQuantum;
    chunks = (pixels + chunk_rows - 1) / chunk_rows;
    if (epilogue != nullptr && groups == 1 && chunks >= 2 && chunks >= threads) {
      ctx->ParallelFor(
          chunks, chunk_rows * patch_depth * out_depth, [&](int64_t first, int64_t last) {
            for (int64_t c = first; c < last; ++c) {
              const int64_t r0 = c * chunk_rows;
              const int64_t count = std::min(chunk_rows, pixels - r0);
              SgemmEpilogue storage;
              GemmOnThisThread<C>({in + r0 * g.depth, count, patch_depth, g.depth}, false,
                                  {filter, patch_depth, out_depth, out_depth}, false,
                                  {out + r0 * out_depth, count, out_depth, out_depth}, prepacked,
                                  tiles_from(r0, 0, &storage));
              finish(r0, count);
            }
          });
      return;
    }
    for (int64_t grp = 0; grp < groups; ++grp) {
      SgemmEpilogue storage;
      Gemm<C>(ctx, {in + grp * patch_depth, pixels, patch_depth, g.depth}, false,
              {filter + grp * group_out, patch_depth, group_out, out_depth}, false,
              {out + grp * group_out, pixels, group_out, out_depth}, prepacked,
              tiles_from(0, grp * group_out, &storage));
    }
    finish_all(true);
    return;
  }
  if constexpr (std::is_same<C, float>::value) {
    if (groups == 1 && g.depth <= kSmallDepthMax && HasSmallDepthConv(isa, out_depth)) {
      Window2D p;
      const std::unique_ptr<ScratchBuffer<C>> copy = PadInput(ctx, g, in, &p);
      const float* src = copy != nullptr ? copy->get() : in;
      // What every output row shares; each row sets its own input and output.
      SmallDepthConvArgs shared;
      shared.row_step = g.dilation_rows * p.in_cols * g.depth;
      shared.tap_step = g.dilation_cols * g.depth;
      shared.pixel_step = g.stride_cols * g.depth;
      shared.window_rows = g.window_rows;
      shared.window_cols = g.window_cols;
      shared.depth = g.depth;
      shared.filter = filter;
      shared.out_depth = out_depth;
      shared.pixels = g.out_cols;
      ctx->ParallelFor(g.batch * g.out_rows, g.out_cols * patch_len * out_depth * 2,
                       [&](int64_t first, int64_t last) {
                         SmallDepthConvArgs args = shared;
                         for (int64_t r = first; r < last; ++r) {
                           const int64_t n = r / g.out_rows, oh = r % g.out_rows;
                           args.in =
                               src + (n * p.in_rows + oh * g.stride_rows) * p.in_cols * g.depth;
                           args.out = out + r * g.out_cols * out_depth;
                           SmallDepthConvRow(isa, args);
                           if (epilogue != nullptr)
                             epilogue->rows(r * g.out_cols, g.out_cols, args.out);
                         }
                       });
      return;
    }
  }
  if (DirectConvApplies<C>(g, patch_depth, out_depth)) {
    Window2D padded;
    const std::unique_ptr<ScratchBuffer<C>> copy = PadInput(ctx, g, in, &padded);
    DirectConvNhwc<C>(ctx, padded, out_depth, copy != nullptr ? copy->get() : in, filter, out);
    finish_all(false);
    return;
  }

  int64_t block = std::max<int64_t>(8, kPatchBlockBytes / (patch_len * sizeof(C)));
  // Whole register tiles of the packed SGEMMs (12 rows on AVX-512, 6 on AVX2) where there are
  // several: a block's last tile otherwise runs short.
  if (block >= 24) block -= block % 12;
  block = std::min(block, pixels);
  const int64_t blocks = (pixels + block - 1) / block;
  auto run_block = [&](int64_t b, C* patches, bool parallel_gemm) {
    const int64_t first = b * block;
    const int64_t count = std::min(block, pixels - first);
    for (int64_t grp = 0; grp < groups; ++grp) {
      Im2Col<C>(in, g, grp * patch_depth, patch_depth, first, count, C(0), patches);
      MatrixRef<const C> a{patches, count, patch_len, patch_len};
      MatrixRef<const C> f{filter + grp * group_out, patch_len, group_out, out_depth};
      MatrixRef<C> o{out + first * out_depth + grp * group_out, count, group_out, out_depth};
      SgemmEpilogue storage;
      const SgemmEpilogue* tiles = tiles_from(first, grp * group_out, &storage);
      if (parallel_gemm) {
        Gemm<C>(ctx, a, false, f, false, o, prepacked, tiles);
      } else {
        GemmOnThisThread<C>(a, false, f, false, o, prepacked, tiles);
      }
    }
    finish(first, count);
  };
  if (blocks < 2 * threads) {
    // Too few blocks to share out: let each GEMM use the threads instead.
    ScratchBuffer<C> patches(block * patch_len);
    for (int64_t b = 0; b < blocks; ++b) run_block(b, patches.get(), true);
    return;
  }
  ctx->ParallelFor(blocks, block * patch_len * group_out * groups,
                   [&](int64_t first, int64_t last) {
                     ScratchBuffer<C> patches(block * patch_len);
                     for (int64_t b = first; b < last; ++b) run_block(b, patches.get(), false);
                   });
}

// The convolution kernels' base: FusedConvOp hands its epilogue to the convolution through
// BindEpilogue (Conv2D runs it on each block of rows as it is computed).
class ConvOpBase : public OpKernel {
 public:
  using OpKernel::OpKernel;

 protected:
  // A fused convolution's epilogue for an output of `out_shape` (NHWC), checked before anything
  // is computed; left empty by the plain convolutions.
  virtual Status BindEpilogue(const OpKernelContext& /*ctx*/, const TensorShape& /*out_shape*/,
                              int64_t /*out_depth*/, ConvEpilogue* /*epilogue*/) const {
    return Status::OK();
  }
};

template <typename T>
class Conv2DOp : public ConvOpBase {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : ConvOpBase(ctx) {
    GRT_CONSTRUCT_OK(ctx, attrs_.Parse(*ctx));
    if (std::is_same<T, float>::value && ctx->input_is_constant(kInputFilter)) {
      weights_ = std::make_unique<PackedWeights>();
      winograd_ = std::make_unique<WinogradWeights>();
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(kInputImage);
    const Tensor& filter = ctx->input(kInputFilter);
    if (input.dims() != 4) {
      return InvalidArgument("convolution input must be 4-dimensional: ",
                             input.shape().DebugString());
    }
    if (filter.dims() != 4) {
      return InvalidArgument("convolution filter must be 4-dimensional: ",
                             filter.shape().DebugString());
    }
    const int64_t in_depth = input.dim_size(attrs_.c);
    const int64_t patch_depth = filter.dim_size(2);
    const int64_t out_depth = filter.dim_size(3);
    if (patch_depth <= 0) {
      return InvalidArgument("filter depth must be stricly positive, got ", patch_depth);
    }
    if (in_depth % patch_depth != 0) {
      return InvalidArgument("input depth must be evenly divisible by filter depth: ", in_depth,
                             " vs ", patch_depth);
    }
    // An input without channels sums nothing: zeros, as TensorFlow gives.
    const int64_t groups = std::max<int64_t>(1, in_depth / patch_depth);
    if (out_depth % groups != 0) {
      return InvalidArgument(
          "output depth must be evenly divisible by number of groups: ", out_depth, " vs ", groups);
    }
    if (filter.dim_size(0) == 0 || filter.dim_size(1) == 0) {
      return InvalidArgument(
          "filter must not have zero elements (i.e. all dimensions must be non-zero)");
    }
    Window2D g;
    GRT_RETURN_IF_ERROR(attrs_.Geometry(input.shape(), filter.dim_size(0), filter.dim_size(1), &g));
    const TensorShape out_shape = attrs_.OutputShape(g, out_depth);
    ConvEpilogue epilogue;
    GRT_RETURN_IF_ERROR(BindEpilogue(*ctx, out_shape, out_depth, &epilogue));
    const ConvEpilogue* conv_epilogue = epilogue.rows ? &epilogue : nullptr;
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    if (in_depth == 0) {
      std::fill(out->data<T>(), out->data<T>() + out->NumElements(), T(0));
      if constexpr (std::is_same<T, float>::value) {
        if (conv_epilogue != nullptr) {
          EpilogueOverRows(ctx, epilogue.rows, out->NumElements() / out_depth, out_depth,
                           out->data<float>());
        }
      }
      return Status::OK();
    }
    using C = ComputeType<T>;
    return RunInNhwc<T>(ctx, attrs_, g, out_depth, input, filter, out,
                        [&](const C* in, const C* f, C* o) {
                          ConvNhwc<C>(ctx, g, patch_depth, out_depth, in, f, o, weights_.get(),
                                      winograd_.get(), conv_epilogue);
                        });
  }

 private:
  ConvAttrs attrs_;
  std::unique_ptr<PackedWeights> weights_;     // a constant float filter's packing
  std::unique_ptr<WinogradWeights> winograd_;  // ... or its Winograd transform
};

// Output stretches that AccumulateTaps keeps in registers: four packets.
template <typename C>
constexpr int64_t kTapChunk = 4 * Eigen::internal::packet_traits<C>::size;

// out[i] = sum over taps t of srcs[t][i] * weights[t][i % period], for i in [0, len): all taps
// of a stretch of outputs accumulate in registers before one store.
// REQUIRES: period is a multiple of kTapChunk<C>.
template <typename C>
void AccumulateTaps(const C* const* srcs, const C* const* weights, int64_t taps, int64_t len,
                    int64_t period, C* out) {
  using Packet = typename Eigen::internal::packet_traits<C>::type;
  constexpr int64_t kLanes = Eigen::internal::packet_traits<C>::size;
  using Eigen::internal::ploadu;
  using Eigen::internal::pmadd;
  int64_t x = 0;
  for (; x + kTapChunk<C> <= len; x += kTapChunk<C>) {
    const int64_t phase = x % period;
    Packet a0 = Eigen::internal::pset1<Packet>(C(0)), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t t = 0; t < taps; ++t) {
      const C* s = srcs[t] + x;
      const C* w = weights[t] + phase;
      a0 = pmadd(ploadu<Packet>(s), ploadu<Packet>(w), a0);
      a1 = pmadd(ploadu<Packet>(s + kLanes), ploadu<Packet>(w + kLanes), a1);
      a2 = pmadd(ploadu<Packet>(s + 2 * kLanes), ploadu<Packet>(w + 2 * kLanes), a2);
      a3 = pmadd(ploadu<Packet>(s + 3 * kLanes), ploadu<Packet>(w + 3 * kLanes), a3);
    }
    Eigen::internal::pstoreu(out + x, a0);
    Eigen::internal::pstoreu(out + x + kLanes, a1);
    Eigen::internal::pstoreu(out + x + 2 * kLanes, a2);
    Eigen::internal::pstoreu(out + x + 3 * kLanes, a3);
  }
  for (; x < len; ++x) {
    C sum = 0;
    for (int64_t t = 0; t < taps; ++t) sum += srcs[t][x] * weights[t][x % period];
    out[x] = sum;
  }
}

// out[p * depth + c] = sum over taps t of srcs[t][p * step + c] * weights[t][c], for p in [0,
// pixels) and c in [0, depth): the portable form of tap_sum.h's TapSumPixels.
template <typename C>
void AccumulateTapPixels(const C* const* srcs, const C* const* weights, int64_t taps,
                         int64_t pixels, int64_t depth, int64_t step, C* out) {
  using Vector = Eigen::Array<C, Eigen::Dynamic, 1>;
  for (int64_t p = 0; p < pixels; ++p) {
    Eigen::Map<Vector> acc(out + p * depth, depth);
    acc.setZero();
    for (int64_t t = 0; t < taps; ++t) {
      acc += Eigen::Map<const Vector>(srcs[t] + p * step, depth) *
             Eigen::Map<const Vector>(weights[t], depth);
    }
  }
}

// out[p * depth + c] = sum over taps t of srcs[t][p * step + c] * weights[t][c] for p in [0,
// pixels): tap_sum.h's TapSumPixels where `isa` has it (float), else the portable loop.
template <typename C>
void TapPixels(CpuIsa isa, const C* const* srcs, const C* const* weights, int64_t taps,
               int64_t pixels, int64_t depth, int64_t step, C* out) {
  if constexpr (std::is_same<C, float>::value) {
    if (HasTapSum(isa)) {
      TapSumPixels(isa, srcs, weights, taps, pixels, depth, step, out);
      return;
    }
  }
  AccumulateTapPixels<C>(srcs, weights, taps, pixels, depth, step, out);
}

// A depthwise convolution with multiplier 1, row by row, reading the input in place: for every
// output column whose window lies inside the image, a tap reads the input pixel `stride` pixels
// after the one the previous column's read (TapSumPixels / AccumulateTapPixels, or TapRows for
// unit column stride and dilation and a window 3 or 5 wide, which keeps a window row's weights
// in registers and loads each input vector once); the few columns at the edges, whose windows
// hang over the padding, are done pixel by pixel.
template <typename C>
class DirectDepthwise {
 public:
  DirectDepthwise(const Window2D& g, const C* filter) : g_(g), filter_(filter) {
    isa_ = ActiveCpuIsa();
    window_rows_kernel_ = std::is_same<C, float>::value && HasTapSum(isa_) && g.stride_cols == 1 &&
                          g.dilation_cols == 1 && TapRowsApplies(g.window_cols, g.depth);
    const int64_t reach = (g.window_cols - 1) * g.dilation_cols;
    inner0_ = std::min(g.out_cols, (g.pad_left + g.stride_cols - 1) / g.stride_cols);
    const int64_t last_start = g.in_cols - 1 - reach + g.pad_left;  // padded column
    inner1_ = last_start < 0
                  ? inner0_
                  : std::max(inner0_, std::min(g.out_cols, last_start / g.stride_cols + 1));
  }

  int64_t taps() const { return g_.window_rows * g_.window_cols; }

  // Output row oh of image n into out_row ([out_cols, depth]); input_row(n, ih) points at input
  // row ih of image n ([in_cols, depth]). srcs and weights have room for taps() pointers.
  template <typename InputRow>
  void Row(int64_t n, int64_t oh, const InputRow& input_row, const C** srcs, const C** weights,
           C* out_row) const {
    const Window2D& g = g_;
    const int64_t stride = g.stride_cols;
    int64_t used = 0;
    for (int64_t kh = 0; kh < g.window_rows; ++kh) {
      const int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) continue;
      const C* row = input_row(n, ih);
      for (int64_t kw = 0; kw < g.window_cols; ++kw) {
        const int64_t offset = kw * g.dilation_cols;  // padded column read by output 0
        srcs[used] = row + (inner0_ * stride - g.pad_left + offset) * g.depth;
        weights[used] = filter_ + (kh * g.window_cols + kw) * g.depth;
        ++used;
      }
    }
    if (window_rows_kernel_) {
      // srcs holds each window row's taps in order: its first one, and their weights, stand for
      // the row.
      int64_t rows = 0;
      for (int64_t t = 0; t < used; t += g.window_cols) {
        srcs[rows] = srcs[t];
        weights[rows] = weights[t];
        ++rows;
      }
      if constexpr (std::is_same<C, float>::value) {
        TapRows(isa_, srcs, weights, rows, static_cast<int>(g.window_cols), inner1_ - inner0_,
                g.depth, out_row + inner0_ * g.depth);
      }
    } else {
      TapPixels<C>(isa_, srcs, weights, used, inner1_ - inner0_, g.depth, stride * g.depth,
                   out_row + inner0_ * g.depth);
    }
    // The edge columns: one pixel each, over the taps inside the image.
    for (int64_t ow = 0; ow < g.out_cols; ++ow) {
      if (ow == inner0_) ow = inner1_;
      if (ow >= g.out_cols) break;
      int64_t inside = 0;
      for (int64_t kh = 0; kh < g.window_rows; ++kh) {
        const int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
        if (ih < 0 || ih >= g.in_rows) continue;
        const C* row = input_row(n, ih);
        for (int64_t kw = 0; kw < g.window_cols; ++kw) {
          const int64_t iw = ow * stride - g.pad_left + kw * g.dilation_cols;
          if (iw < 0 || iw >= g.in_cols) continue;
          srcs[inside] = row + iw * g.depth;
          weights[inside] = filter_ + (kh * g.window_cols + kw) * g.depth;
          ++inside;
        }
      }
      TapPixels<C>(isa_, srcs, weights, inside, 1, g.depth, 0, out_row + ow * g.depth);
    }
  }

 private:
  Window2D g_;
  const C* filter_;
  CpuIsa isa_;
  bool window_rows_kernel_ = false;
  int64_t inner0_ = 0, inner1_ = 0;  // output columns whose whole window lies inside the image
};

// out[N, OH, OW, depth * multiplier] in compute type C; output channel c * multiplier + m reads
// input channel c. `epilogue`, when given (float only), runs over each output row as soon as it
// is computed, while it is still in cache.
//
// Each output row is a sum over filter taps of elementwise products of input values and the
// tap's weights. With multiplier 1 the input is read in place (DirectDepthwise). With a
// multiplier, the input is first rearranged so that each channel is repeated `multiplier` times,
// columns padded with zeros and split by phase modulo the column stride ([N, H, stride,
// ceil(padded_cols / stride), out_depth]), and every output row is one contiguous run per tap
// (TapSum / AccumulateTaps, the weights tiled to a period that is a multiple of both out_depth
// and the kernel's chunk).
template <typename C>
void DepthwiseConvNhwc(const OpKernelContext* ctx, const Window2D& g, int64_t multiplier,
                       const C* in, const C* filter, C* out, const RowsEpilogue* epilogue) {
  const int64_t out_depth = g.depth * multiplier;
  const int64_t row_len = g.out_cols * out_depth;
  const int64_t taps = g.window_rows * g.window_cols;
  auto finish_row = [&](int64_t row, C* out_row) {
    if constexpr (std::is_same<C, float>::value) {
      if (epilogue != nullptr) (*epilogue)(row * g.out_cols, g.out_cols, out_row);
    }
  };
  if (multiplier == 1) {
    const DirectDepthwise<C> direct(g, filter);
    auto input_row = [&](int64_t n, int64_t ih) {
      return in + (n * g.in_rows + ih) * g.in_cols * g.depth;
    };
    ctx->ParallelFor(g.batch * g.out_rows, row_len * taps, [&](int64_t first, int64_t last) {
      std::vector<const C*> srcs(taps), weights(taps);
      for (int64_t row = first; row < last; ++row) {
        C* out_row = out + row * row_len;
        direct.Row(row / g.out_rows, row % g.out_rows, input_row, srcs.data(), weights.data(),
                   out_row);
        finish_row(row, out_row);
      }
    });
    return;
  }

  // The rearranged input.
  const int64_t stride = g.stride_cols;
  const int64_t padded_cols =
      std::max(g.pad_left + g.in_cols,
               (g.out_cols - 1) * stride + (g.window_cols - 1) * g.dilation_cols + 1);
  const int64_t phase_len = (padded_cols + stride - 1) / stride * out_depth;
  const int64_t in_row_count = g.batch * g.in_rows;
  ScratchBuffer<C> arranged(in_row_count * stride * phase_len);
  ctx->ParallelFor(in_row_count, stride * phase_len, [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      C* dst = arranged.get() + r * stride * phase_len;
      std::fill(dst, dst + stride * phase_len, C(0));
      const C* src_row = in + r * g.in_cols * g.depth;
      for (int64_t iw = 0; iw < g.in_cols; ++iw) {
        const int64_t col = iw + g.pad_left;
        C* d = dst + (col % stride) * phase_len + (col / stride) * out_depth;
        const C* pixel = src_row + iw * g.depth;
        for (int64_t ch = 0; ch < g.depth; ++ch) {
          std::fill(d + ch * multiplier, d + (ch + 1) * multiplier, pixel[ch]);
        }
      }
    }
  });

  // The AVX2 / AVX-512 loop for float (tap_sum.h), or its portable form.
  const CpuIsa isa = ActiveCpuIsa();
  const bool vector_taps = std::is_same<C, float>::value && HasTapSum(isa);
  // tiled[tap][i] = filter[tap][i % out_depth] for i in [0, period).
  const int64_t period_unit = vector_taps ? kTapSumPeriodUnit : kTapChunk<C>;
  int64_t period = period_unit;
  while (period % out_depth != 0) period += period_unit;
  std::unique_ptr<C[]> tiled(new C[taps * period]);
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t i = 0; i < period; ++i) {
      tiled[t * period + i] = filter[t * out_depth + i % out_depth];
    }
  }

  ctx->ParallelFor(g.batch * g.out_rows, row_len * taps, [&](int64_t first, int64_t last) {
    std::vector<const C*> srcs(taps), weights(taps);
    for (int64_t row = first; row < last; ++row) {
      const int64_t n = row / g.out_rows, oh = row % g.out_rows;
      C* out_row = out + row * row_len;
      int64_t used = 0;
      for (int64_t kh = 0; kh < g.window_rows; ++kh) {
        const int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
        if (ih < 0 || ih >= g.in_rows) continue;
        for (int64_t kw = 0; kw < g.window_cols; ++kw) {
          const int64_t offset = kw * g.dilation_cols;  // padded column read by output 0
          srcs[used] = arranged.get() + (n * g.in_rows + ih) * stride * phase_len +
                       (offset % stride) * phase_len + (offset / stride) * out_depth;
          weights[used] = tiled.get() + (kh * g.window_cols + kw) * period;
          ++used;
        }
      }
      bool done = false;
      if constexpr (std::is_same<C, float>::value) {
        if (vector_taps) {
          TapSum(isa, srcs.data(), weights.data(), used, row_len, period, out_row);
          done = true;
        }
      }
      if (!done) AccumulateTaps<C>(srcs.data(), weights.data(), used, row_len, period, out_row);
      finish_row(row, out_row);
    }
  });
}

template <typename T>
class DepthwiseConv2dNativeOp : public ConvOpBase {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* ctx) : ConvOpBase(ctx) {
    GRT_CONSTRUCT_OK(ctx, attrs_.Parse(*ctx));
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(kInputImage);
    const Tensor& filter = ctx->input(kInputFilter);
    if (input.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional", input.shape().DebugString());
    }
    if (filter.dims() != 4) {
      return InvalidArgument("filter must be 4-dimensional: ", filter.shape().DebugString());
    }
    const int64_t in_depth = input.dim_size(attrs_.c);
    if (in_depth != filter.dim_size(2)) {
      return InvalidArgument("input and filter must have the same depth: ", in_depth, " vs ",
                             filter.dim_size(2));
    }
    const int64_t multiplier = filter.dim_size(3);
    Window2D g;
    GRT_RETURN_IF_ERROR(attrs_.Geometry(input.shape(), filter.dim_size(0), filter.dim_size(1), &g));
    const int64_t out_depth = in_depth * multiplier;
    const TensorShape out_shape = attrs_.OutputShape(g, out_depth);
    ConvEpilogue epilogue;
    GRT_RETURN_IF_ERROR(BindEpilogue(*ctx, out_shape, out_depth, &epilogue));
    const ConvEpilogue* conv_epilogue = epilogue.rows ? &epilogue : nullptr;
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(kOutput, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    using C = ComputeType<T>;
    return RunInNhwc<T>(
        ctx, attrs_, g, out_depth, input, filter, out, [&](const C* in, const C* f, C* o) {
          DepthwiseConvNhwc<C>(ctx, g, multiplier, in, f, o,
                               conv_epilogue == nullptr ? nullptr : &conv_epilogue->rows);
        });
  }

 private:
  ConvAttrs attrs_;
};

// _FusedConv2D and _FusedDepthwiseConv2dNative (NHWC): the convolution, then the epilogue over
// its output while it is still in cache.
template <typename Conv>
class FusedConvOp : public Conv {
 public:
  explicit FusedConvOp(OpKernelConstruction* ctx) : Conv(ctx) {
    GRT_CONSTRUCT_OK(ctx, epilogue_.Parse(*ctx));
    std::string format;
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("data_format", &format));
    if (format != "NHWC") {
      ctx->SetStatus(Unimplemented("graphrt's fused convolutions take NHWC, got ", format));
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    GRT_RETURN_IF_ERROR(Conv::Compute(ctx));
    // The convolutions run the epilogue themselves, block by block (BindEpilogue).
    if constexpr (kEpilogueInside) return Status::OK();
    Tensor& out = ctx->outputs()[kOutput].tensor;
    const int64_t channels = out.dims() == 4 ? out.dim_size(3) : 0;
    return epilogue_.Run(ctx, channels == 0 ? 0 : out.NumElements() / channels, channels,
                         "channels", &out);
  }

 protected:
  Status BindEpilogue(const OpKernelContext& ctx, const TensorShape& out_shape, int64_t out_depth,
                      ConvEpilogue* epilogue) const override {
    const float* bias = nullptr;
    const float* addend = nullptr;
    GRT_RETURN_IF_ERROR(epilogue_.Check(ctx, out_shape, out_depth, "channels", &bias, &addend));
    epilogue->rows = [this, bias, addend, out_depth](int64_t first, int64_t count, float* rows) {
      epilogue_.ApplyRows(bias, addend == nullptr ? nullptr : addend + first * out_depth, count,
                          out_depth, rows);
    };
    // In the GEMMs' tiles only where they apply it in registers.
    epilogue->has_tiles = epilogue_.TileEpilogue(bias, addend, &epilogue->tiles) &&
                          SgemmEpilogueInRegisters(epilogue->tiles.activation);
    return Status::OK();
  }

 private:
  static constexpr bool kEpilogueInside = std::is_same<Conv, Conv2DOp<float>>::value ||
                                          std::is_same<Conv, DepthwiseConv2dNativeOp<float>>::value;
  FusedEpilogue epilogue_;
};

// c = a * b (a [rows, k], b [k, n], c [rows, n], each dense and row-major), then `epilogue` with
// `bias` and `addend` (null, or laid out as c): in the packed GEMM's tiles where it applies the
// activation in registers, else over c's rows after. k = 0 gives the epilogue of zeros. On this
// thread, or, with `ctx`, shared out over its threads.
void ProductThenEpilogue(const OpKernelContext* ctx, const FusedEpilogue& epilogue,
                         const float* bias, const float* addend, const float* a, const float* b,
                         PrepackedB packed, int64_t rows, int64_t k, int64_t n, float* c) {
  SgemmEpilogue tiles;
  const bool in_tiles =
      epilogue.TileEpilogue(bias, addend, &tiles) && SgemmEpilogueInRegisters(tiles.activation);
  const MatrixRef<const float> am{a, rows, k, k};
  const MatrixRef<const float> bm{b, k, n, n};
  const MatrixRef<float> cm{c, rows, n, n};
  if (ctx == nullptr) {
    GemmOnThisThread<float>(am, false, bm, false, cm, packed, in_tiles ? &tiles : nullptr);
    if (!in_tiles) epilogue.ApplyRows(bias, addend, rows, n, c);
    return;
  }
  Gemm<float>(ctx, am, false, bm, false, cm, packed, in_tiles ? &tiles : nullptr);
  if (!in_tiles) {
    FusedEpilogue::ForEachRowBlock(ctx, rows, n, [&](int64_t r0, int64_t count) {
      epilogue.ApplyRows(bias, addend == nullptr ? nullptr : addend + r0 * n, count, n, c + r0 * n);
    });
  }
}

// _GraphrtFusedExpandDepthwise and _GraphrtFusedInvertedResidual (the remapper's, float NHWC):
// a 1x1 convolution with its bias and activation ("expansion"), then a depthwise convolution
// with multiplier 1 and its bias and activation, and for the second op a 1x1 convolution
// ("projection") with its bias, optional residual Add and activation: MobileNetV2's and
// EfficientNet's inverted residual blocks.
//
// The expanded tensor, the largest of such a block, is never made whole: each thread computes the
// rows of it that its output rows read, a band at a time, into a buffer that stays in L2, and the
// depthwise convolution reads them there. A band keeps the rows the next one shares with it, so
// every expanded row is computed once per thread. With a projection, the depthwise rows go to a
// small buffer and are projected a few rows at a time, so the depthwise output is never made
// whole either. Every value comes from the same products, in the same order, as the separate
// nodes' (the GEMMs only see fewer rows at a time).
class FusedInvertedResidualOp : public OpKernel {
 public:
  enum Input {
    kImage,
    kExpandFilter,
    kExpandBias,
    kFilter,
    kBias,
    kProjectFilter,
    kProjectBias,
    kProjectAddend
  };

  explicit FusedInvertedResidualOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), project_(ctx->def().op() == "_GraphrtFusedInvertedResidual") {
    GRT_CONSTRUCT_OK(ctx, attrs_.Parse(*ctx));
    GRT_CONSTRUCT_OK(ctx, expand_epilogue_.Parse(*ctx, "expand_"));
    GRT_CONSTRUCT_OK(ctx, epilogue_.Parse(*ctx));
    if (project_) GRT_CONSTRUCT_OK(ctx, project_epilogue_.Parse(*ctx, "project_"));
    if (attrs_.format != DataFormat::kNHWC || expand_epilogue_.residual() || epilogue_.residual()) {
      ctx->SetStatus(Unimplemented(ctx->def().op(),
                                   " takes NHWC, and a residual Add only after the projection"));
      return;
    }
    if (ctx->input_is_constant(kExpandFilter)) expand_weights_ = std::make_unique<PackedWeights>();
    if (project_ && ctx->input_is_constant(kProjectFilter)) {
      project_weights_ = std::make_unique<PackedWeights>();
    }
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(kImage);
    const Tensor& expand_filter = ctx->input(kExpandFilter);
    const Tensor& expand_bias = ctx->input(kExpandBias);
    const Tensor& filter = ctx->input(kFilter);
    const Tensor& bias = ctx->input(kBias);
    if (input.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional: ", input.shape().DebugString());
    }
    const int64_t in_depth = input.dim_size(3);
    if (expand_filter.dims() != 4 || expand_filter.dim_size(0) != 1 ||
        expand_filter.dim_size(1) != 1 || expand_filter.dim_size(2) != in_depth) {
      return InvalidArgument("the expansion filter must be [1, 1, ", in_depth, ", channels], got ",
                             expand_filter.shape().DebugString());
    }
    const int64_t depth = expand_filter.dim_size(3);
    if (filter.dims() != 4 || filter.dim_size(2) != depth || filter.dim_size(3) != 1) {
      return InvalidArgument("the depthwise filter must be [rows, cols, ", depth, ", 1], got ",
                             filter.shape().DebugString());
    }
    for (const Tensor* b : {&expand_bias, &bias}) {
      if (b->dims() != 1 || b->dim_size(0) != depth) {
        return InvalidArgument("bias must be a vector of the ", depth, " channels, got ",
                               b->shape().DebugString());
      }
    }
    const TensorShape expanded({input.dim_size(0), input.dim_size(1), input.dim_size(2), depth});
    Window2D g;
    GRT_RETURN_IF_ERROR(attrs_.Geometry(expanded, filter.dim_size(0), filter.dim_size(1), &g));
    // The projection's filter [1, 1, depth, out_depth], bias and residual addend.
    int64_t out_depth = depth;
    const float* project_bias = nullptr;
    const float* addend = nullptr;
    if (project_) {
      const Tensor& project_filter = ctx->input(kProjectFilter);
      if (project_filter.dims() != 4 || project_filter.dim_size(0) != 1 ||
          project_filter.dim_size(1) != 1 || project_filter.dim_size(2) != depth) {
        return InvalidArgument("the projection filter must be [1, 1, ", depth, ", channels], got ",
                               project_filter.shape().DebugString());
      }
      out_depth = project_filter.dim_size(3);
      const Tensor& b = ctx->input(kProjectBias);
      if (b.dims() != 1 || b.dim_size(0) != out_depth) {
        return InvalidArgument("the projection's bias must be a vector of its ", out_depth,
                               " channels, got ", b.shape().DebugString());
      }
      project_bias = b.data<float>();
      if (project_epilogue_.residual()) {
        const Tensor& other = ctx->input(kProjectAddend);
        const TensorShape shape = attrs_.OutputShape(g, out_depth);
        if (other.shape() != shape) {
          return InvalidArgument("the residual addend has shape ", other.shape().DebugString(),
                                 ", the output ", shape.DebugString());
        }
        addend = other.data<float>();
      }
    }
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, attrs_.OutputShape(g, out_depth), &out));
    if (out->NumElements() == 0) return Status::OK();

    const CpuIsa isa = ActiveCpuIsa();
    const float* x = input.data<float>();
    const float* w = expand_filter.data<float>();
    const float* eb = expand_bias.data<float>();
    const float* db = bias.data<float>();
    PrepackedB expand_packed, project_packed;
    if (expand_weights_ != nullptr) {
      expand_packed.packed = expand_weights_->Get(isa, w, depth, 1, in_depth, depth);
    }
    const float* pw = project_ ? ctx->input(kProjectFilter).data<float>() : nullptr;
    if (project_weights_ != nullptr) {
      project_packed.packed = project_weights_->Get(isa, pw, out_depth, 1, depth, out_depth);
    }
    const int64_t row_len = g.in_cols * depth;  // one expanded row
    const DirectDepthwise<float> direct(g, filter.data<float>());
    const int64_t taps = direct.taps();
    float* result = out->data<float>();
    const int64_t dw_len = g.out_cols * depth;  // one depthwise output row
    const int64_t rows = g.batch * g.out_rows;
    // Depthwise rows projected at a time: as many as fit in kProjectBytes.
    constexpr int64_t kProjectBytes = 128 << 10;
    const int64_t project_rows =
        std::max<int64_t>(1, kProjectBytes / (dw_len * int64_t{sizeof(float)}));

    // Output rows [first, last) on this thread, where dw_row(row, dst) computes depthwise row
    // `row` (its epilogue applied) into dst: straight into the output, or staged and projected.
    auto emit_rows = [&](int64_t first, int64_t last, const auto& dw_row) {
      if (!project_) {
        for (int64_t row = first; row < last; ++row) dw_row(row, result + row * dw_len);
        return;
      }
      ScratchBuffer<float> staged(std::min(project_rows, last - first) * dw_len);
      for (int64_t r0 = first; r0 < last; r0 += project_rows) {
        const int64_t count = std::min(project_rows, last - r0);
        for (int64_t i = 0; i < count; ++i) dw_row(r0 + i, staged.get() + i * dw_len);
        const int64_t pixel0 = r0 * g.out_cols;
        ProductThenEpilogue(nullptr, project_epilogue_, project_bias,
                            addend == nullptr ? nullptr : addend + pixel0 * out_depth, staged.get(),
                            pw, project_packed, count * g.out_cols, depth, out_depth,
                            result + pixel0 * out_depth);
      }
    };
    const int64_t project_cost = project_ ? g.out_cols * depth * out_depth : 0;

    // An expansion that stays in L2 anyway is made whole, its product shared out over the
    // threads as the 1x1 convolution's would be: bands would only compute rows twice.
    constexpr int64_t kWholeBytes = 1 << 20;
    const int64_t expanded_rows = g.batch * g.in_rows;
    if (expanded_rows * row_len * int64_t{sizeof(float)} <= kWholeBytes) {
      ScratchBuffer<float> whole(expanded_rows * row_len);
      ProductThenEpilogue(ctx, expand_epilogue_, eb, nullptr, x, w, expand_packed,
                          expanded_rows * g.in_cols, in_depth, depth, whole.get());
      auto input_row = [&](int64_t n, int64_t ih) {
        return whole.get() + (n * g.in_rows + ih) * row_len;
      };
      ctx->ParallelFor(rows, dw_len * taps + project_cost, [&](int64_t first, int64_t last) {
        std::vector<const float*> srcs(taps), tap_weights(taps);
        emit_rows(first, last, [&](int64_t row, float* dst) {
          direct.Row(row / g.out_rows, row % g.out_rows, input_row, srcs.data(), tap_weights.data(),
                     dst);
          epilogue_.ApplyRows(db, nullptr, g.out_cols, depth, dst);
        });
      });
      return Status::OK();
    }

    // Rows [first, first + count) of image n's expansion into dst, on this thread.
    auto expand = [&](int64_t n, int64_t first, int64_t count, float* dst) {
      ProductThenEpilogue(nullptr, expand_epilogue_, eb, nullptr,
                          x + (n * g.in_rows + first) * g.in_cols * in_depth, w, expand_packed,
                          count * g.in_cols, in_depth, depth, dst);
    };
    // A band holds as many rows as fit in kBandBytes, and at least one window's span.
    constexpr int64_t kBandBytes = 256 << 10;
    const int64_t span = (g.window_rows - 1) * g.dilation_rows + 1;
    const int64_t band_rows = std::min(
        g.in_rows,
        std::max(span, kBandBytes / std::max<int64_t>(1, row_len * int64_t{sizeof(float)})));
    // Contiguous runs of output rows: one per image where there are at least as many images as
    // threads (the threads then take them as they come free), else one per thread (a run's first
    // band computes the rows it shares with the run before it again).
    const int64_t runs =
        std::min<int64_t>(std::max<int64_t>(ctx->device()->intra_op_threads(), g.batch), rows);
    const int64_t run_cost = rows / runs * (dw_len * (taps + 2 * in_depth) + project_cost);
    ctx->ParallelFor(runs, run_cost, [&](int64_t first_run, int64_t last_run) {
      ScratchBuffer<float> band(band_rows * row_len);
      int64_t band_n = -1, lo = 0, hi = -1;  // the band holds rows [lo, hi] of image band_n
      auto input_row = [&](int64_t, int64_t ih) { return band.get() + (ih - lo) * row_len; };
      std::vector<const float*> srcs(taps), tap_weights(taps);
      emit_rows(first_run * rows / runs, last_run * rows / runs, [&](int64_t row, float* dst) {
        const int64_t n = row / g.out_rows, oh = row % g.out_rows;
        const int64_t top = oh * g.stride_rows - g.pad_top;
        const int64_t r0 = std::max<int64_t>(0, top);
        const int64_t r1 = std::min(g.in_rows - 1, top + span - 1);
        if (r0 <= r1 && (n != band_n || r0 < lo || r1 > hi)) {
          // A new band from r0 on, keeping the rows it shares with the old one.
          const int64_t kept = n == band_n && r0 >= lo && r0 <= hi ? hi - r0 + 1 : 0;
          if (kept > 0 && r0 > lo) {
            std::memmove(band.get(), band.get() + (r0 - lo) * row_len,
                         kept * row_len * sizeof(float));
          }
          const int64_t new_hi = std::min(g.in_rows - 1, r0 + band_rows - 1);
          expand(n, r0 + kept, new_hi - r0 + 1 - kept, band.get() + kept * row_len);
          band_n = n;
          lo = r0;
          hi = new_hi;
        }
        direct.Row(n, oh, input_row, srcs.data(), tap_weights.data(), dst);
        epilogue_.ApplyRows(db, nullptr, g.out_cols, depth, dst);
      });
    });
    return Status::OK();
  }

 private:
  const bool project_;  // _GraphrtFusedInvertedResidual
  ConvAttrs attrs_;
  FusedEpilogue expand_epilogue_, epilogue_, project_epilogue_;
  // Constant filters' packings.
  std::unique_ptr<PackedWeights> expand_weights_, project_weights_;
};

// x * y for BinaryBroadcast.
struct ProductOf {
  template <typename A, typename B>
  static auto Apply(const A& a, const B& b) {
    return a * b;
  }
};

// _GraphrtFusedChannelScaledConv2D (the remapper's, float NHWC): a 1x1 convolution with unit
// strides and no padding, and its epilogue, of the product x * y (numpy broadcasting). Where one
// operand is an NHWC tensor and the other one scale per image (or for all images) and channel
// ([N or 1, 1, 1, C]: a squeeze-and-excitation block's), the product is never made: an image
// with at least as many pixels as output channels has the scales put into a copy of the
// filter's rows (C x out_depth products instead of pixels x C), the others into a copy of the
// image's input, which the constant filter's packing then multiplies as the two nodes would.
// Other operands are multiplied out first, as the Mul would.
class ChannelScaledConvOp : public OpKernel {
 public:
  enum Input { kX, kY, kFilter };

  explicit ChannelScaledConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, attrs_.Parse(*ctx));
    GRT_CONSTRUCT_OK(ctx, epilogue_.Parse(*ctx));
    if (attrs_.format != DataFormat::kNHWC) {
      ctx->SetStatus(Unimplemented("_GraphrtFusedChannelScaledConv2D takes NHWC"));
      return;
    }
    if (ctx->input_is_constant(kFilter)) weights_ = std::make_unique<PackedWeights>();
  }

  Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(kX);
    const Tensor& y = ctx->input(kY);
    const Tensor& filter = ctx->input(kFilter);
    // Whether s is one scale per image of t, or for all of them, and channel.
    auto scales = [](const Tensor& t, const Tensor& s) {
      return t.dims() == 4 && s.dims() == 4 &&
             (s.dim_size(0) == t.dim_size(0) || s.dim_size(0) == 1) && s.dim_size(1) == 1 &&
             s.dim_size(2) == 1 && s.dim_size(3) == t.dim_size(3);
    };
    Tensor image, scale;  // scale unset: none (the product made)
    if (scales(x, y)) {
      image = x;
      scale = y;
    } else if (scales(y, x)) {
      image = y;
      scale = x;
    } else {
      GRT_ASSIGN_OR_RETURN(BroadcastPlan plan, BroadcastPlan::Make({x.shape(), y.shape()}));
      GRT_ASSIGN_OR_RETURN(image, Tensor::Allocate(::tensorflow::DT_FLOAT, plan.output_shape()));
      BinaryBroadcast<ProductOf>(ctx, plan, x.data<float>(), y.data<float>(), image.data<float>(),
                                 1);
    }
    if (image.dims() != 4) {
      return InvalidArgument("convolution input must be 4-dimensional: ",
                             image.shape().DebugString());
    }
    const int64_t batch = image.dim_size(0), depth = image.dim_size(3);
    if (filter.dims() != 4 || filter.dim_size(0) != 1 || filter.dim_size(1) != 1 ||
        filter.dim_size(2) != depth) {
      return InvalidArgument("the filter must be [1, 1, ", depth, ", channels], got ",
                             filter.shape().DebugString());
    }
    const int64_t out_depth = filter.dim_size(3);
    Window2D g;
    GRT_RETURN_IF_ERROR(attrs_.Geometry(image.shape(), 1, 1, &g));
    if (g.out_rows != g.in_rows || g.out_cols != g.in_cols || g.pad_top != 0 || g.pad_left != 0) {
      return Unimplemented("_GraphrtFusedChannelScaledConv2D takes unit strides, no padding");
    }
    const TensorShape out_shape = attrs_.OutputShape(g, out_depth);
    const float* bias = nullptr;
    const float* addend = nullptr;
    GRT_RETURN_IF_ERROR(
        epilogue_.Check(*ctx, out_shape, out_depth, "channels", &bias, &addend, kFilter + 1));
    Tensor* out = nullptr;
    GRT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return Status::OK();

    const CpuIsa isa = ActiveCpuIsa();
    const float* w = filter.data<float>();
    const int64_t pixels = g.in_rows * g.in_cols;
    const bool scale_filter = scale.IsInitialized() && pixels >= out_depth;
    float* result = out->data<float>();
    // The product of `count` rows of A from row `first` on by B into the output's same rows, then
    // the epilogue; on this thread, or shared out.
    auto product = [&](const float* a, const float* b, PrepackedB b_packed, int64_t first,
                       int64_t count, bool this_thread) {
      ProductThenEpilogue(this_thread ? nullptr : ctx, epilogue_, bias,
                          addend == nullptr ? nullptr : addend + first * out_depth, a, b, b_packed,
                          count, depth, out_depth, result + first * out_depth);
    };
    auto scales_of = [&](int64_t n) {
      return scale.data<float>() + (scale.dim_size(0) == 1 ? 0 : n * depth);
    };
    if (scale_filter) {
      // Each image's own filter: the images shared out over the threads when there are enough
      // of them, else each product is.
      auto image_product = [&](int64_t n, float* filter_copy, bool this_thread) {
        const float* sn = scales_of(n);
        for (int64_t c = 0; c < depth; ++c) {
          ArrayMap<float>(filter_copy + c * out_depth, out_depth) =
              ConstArrayMap<float>(w + c * out_depth, out_depth) * sn[c];
        }
        product(image.data<float>() + n * pixels * depth, filter_copy, {}, n * pixels, pixels,
                this_thread);
      };
      if (batch >= ctx->device()->intra_op_threads() && batch > 1) {
        ctx->ParallelFor(batch, pixels * depth * out_depth, [&](int64_t first, int64_t last) {
          ScratchBuffer<float> filter_copy(depth * out_depth);
          for (int64_t n = first; n < last; ++n) image_product(n, filter_copy.get(), true);
        });
      } else {
        ScratchBuffer<float> filter_copy(depth * out_depth);
        for (int64_t n = 0; n < batch; ++n) image_product(n, filter_copy.get(), false);
      }
      return Status::OK();
    }
    // The scaled input (or the product made above) times the constant filter's packing, all
    // images as one product.
    PrepackedB packed;
    if (weights_ != nullptr) packed.packed = weights_->Get(isa, w, out_depth, 1, depth, out_depth);
    const float* a = image.data<float>();
    std::unique_ptr<ScratchBuffer<float>> scaled;
    if (scale.IsInitialized()) {
      scaled = std::make_unique<ScratchBuffer<float>>(batch * pixels * depth);
      ctx->ParallelFor(batch * pixels, depth, [&](int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p) {
          ArrayMap<float>(scaled->get() + p * depth, depth) =
              ConstArrayMap<float>(a + p * depth, depth) *
              ConstArrayMap<float>(scales_of(p / pixels), depth);
        }
      });
      a = scaled->get();
    }
    product(a, w, packed, 0, batch * pixels, false);
    return Status::OK();
  }

 private:
  ConvAttrs attrs_;
  FusedEpilogue epilogue_;
  std::unique_ptr<PackedWeights> weights_;  // a constant filter's packing
};

template <typename T>
void RegisterConv2D(KernelRegistry* r) {
  r->Register(KernelDefBuilder("Conv2D").Device(kDeviceCpu).TypeConstraint<T>("T"),
              MakeFactory<Conv2DOp<T>>());
}

template <typename T>
void RegisterDepthwise(KernelRegistry* r) {
  r->Register(KernelDefBuilder("DepthwiseConv2dNative").Device(kDeviceCpu).TypeConstraint<T>("T"),
              MakeFactory<DepthwiseConv2dNativeOp<T>>());
}

}  // namespace

void RegisterConvKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: Conv2D for half, bfloat16, float, double, int32;
  // DepthwiseConv2dNative for the floating types.
  RegisterConv2D<float>(r);
  RegisterConv2D<double>(r);
  RegisterConv2D<half>(r);
  RegisterConv2D<bfloat16>(r);
  RegisterConv2D<int32_t>(r);
  RegisterDepthwise<float>(r);
  RegisterDepthwise<double>(r);
  RegisterDepthwise<half>(r);
  RegisterDepthwise<bfloat16>(r);
  // The optimizer's fusions (runtime/optimize/remapper.cc), float only.
  r->Register(KernelDefBuilder("_FusedConv2D").Device(kDeviceCpu).TypeConstraint<float>("T"),
              MakeFactory<FusedConvOp<Conv2DOp<float>>>());
  r->Register(
      KernelDefBuilder("_FusedDepthwiseConv2dNative").Device(kDeviceCpu).TypeConstraint<float>("T"),
      MakeFactory<FusedConvOp<DepthwiseConv2dNativeOp<float>>>());
  r->Register(KernelDefBuilder("_GraphrtFusedExpandDepthwise")
                  .Device(kDeviceCpu)
                  .TypeConstraint<float>("T"),
              MakeFactory<FusedInvertedResidualOp>());
  r->Register(KernelDefBuilder("_GraphrtFusedChannelScaledConv2D")
                  .Device(kDeviceCpu)
                  .TypeConstraint<float>("T"),
              MakeFactory<ChannelScaledConvOp>());
  r->Register(KernelDefBuilder("_GraphrtFusedInvertedResidual")
                  .Device(kDeviceCpu)
                  .TypeConstraint<float>("T"),
              MakeFactory<FusedInvertedResidualOp>());
}

}  // namespace graphrt
