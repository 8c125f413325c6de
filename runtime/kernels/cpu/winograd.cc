#include "runtime/kernels/cpu/winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "runtime/kernels/cpu/nn_util.h"
#include "runtime/kernels/op_kernel.h"

namespace graphrt {

namespace {

// Below this many input or output channels the transforms cost more than the products save
// (measured on Zen 4, 56x56 images: 16 -> 16 channels 1.4x faster than im2col, 12 -> 12 even,
// 8 -> 8 10 % slower).
constexpr int64_t kMinDepth = 16;
// A band's transformed tiles (V and M) take about this many floats per channel of the wider
// side, so that they stay in L2 between the transforms and the products.
constexpr int64_t kBandTileFloats = 16384;

void InputTransform(CpuIsa isa, const float* const* tile, int64_t depth, float* v,
                    int64_t v_stride) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::WinogradInput(tile, depth, v, v_stride);
  } else {
    isa::avx2::WinogradInput(tile, depth, v, v_stride);
  }
}

void OutputTransform(CpuIsa isa, const float* m, int64_t m_stride, int64_t depth,
                     float* const* out) {
  if (isa == CpuIsa::kAvx512) {
    isa::avx512::WinogradOutput(m, m_stride, depth, out);
  } else {
    isa::avx2::WinogradOutput(m, m_stride, depth, out);
  }
}

// Row i of U = G g G^T (points 4i to 4i + 3) for the 3x3 kernels of one input channel, all
// output channels at once: taps[t] points at tap t's row of out_depth weights, u[j] at point
// 4i + j's row. In double, rounded once; through local chunks, which the compiler vectorizes
// (the rows could alias). G's rows are (1, 0, 0), (1/2, 1/2, 1/2), (1/2, -1/2, 1/2), (0, 0, 1).
void TransformKernels(const float* const* taps, int64_t out_depth, int i, float* const* u) {
  constexpr int64_t kChunk = 64;
  for (int64_t c0 = 0; c0 < out_depth; c0 += kChunk) {
    const int64_t n = std::min(kChunk, out_depth - c0);
    double t[3][kChunk];  // row i of G g
    for (int j = 0; j < 3; ++j) {
      const float* g0 = taps[j] + c0;
      const float* g1 = taps[3 + j] + c0;
      const float* g2 = taps[6 + j] + c0;
      for (int64_t c = 0; c < n; ++c) {
        const double a = g0[c], b = g1[c], d = g2[c];
        t[j][c] = i == 0 ? a : i == 1 ? (a + b + d) / 2 : i == 2 ? (a - b + d) / 2 : d;
      }
    }
    float rows[4][kChunk];
    for (int64_t c = 0; c < n; ++c) {
      const double a = t[0][c], b = t[1][c], d = t[2][c];
      rows[0][c] = static_cast<float>(a);
      rows[1][c] = static_cast<float>((a + b + d) / 2);
      rows[2][c] = static_cast<float>((a - b + d) / 2);
      rows[3][c] = static_cast<float>(d);
    }
    for (int j = 0; j < 4; ++j) std::memcpy(u[j] + c0, rows[j], n * sizeof(float));
  }
}

bool DisabledByEnvironment() {
  const char* value = std::getenv("GRAPHRT_WINOGRAD");
  return value != nullptr && std::strcmp(value, "0") == 0;
}

}  // namespace

std::unique_ptr<WinogradFilter> WinogradFilter::Make(CpuIsa isa, const float* filter,
                                                     int64_t window, int64_t in_depth,
                                                     int64_t out_depth) {
  if (!HasPackedSgemm(isa) || (window != 3 && window != 5) || in_depth < 1 || out_depth < 1) {
    return nullptr;
  }
  std::unique_ptr<WinogradFilter> result(new WinogradFilter(isa, window, in_depth, out_depth));
  const int64_t blocks = result->blocks();
  const int64_t size = result->depth() * out_depth;
  // A row of U's points at a time: a quarter of U in memory at once.
  std::vector<float> u;
  const std::vector<float> zeros(static_cast<size_t>(out_depth), 0.f);  // taps past a 5x5 window
  try {
    u.resize(static_cast<size_t>(4 * size));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  for (int i = 0; i < 4; ++i) {
    // Block (br, bc), channel ci: tap (r, c) of its 3x3 is the window's (3 br + r, 3 bc + c),
    // filter[((row * window + col) * in_depth + ci) * out_depth + co]; it goes to
    // u[j * size + ((br * blocks + bc) * in_depth + ci) * out_depth + co].
    for (int64_t block = 0; block < blocks * blocks; ++block) {
      const int64_t row0 = 3 * (block / blocks), col0 = 3 * (block % blocks);
      for (int64_t ci = 0; ci < in_depth; ++ci) {
        const float* taps[9];
        for (int tap = 0; tap < 9; ++tap) {
          const int64_t row = row0 + tap / 3, col = col0 + tap % 3;
          taps[tap] = row < window && col < window
                          ? filter + ((row * window + col) * in_depth + ci) * out_depth
                          : zeros.data();
        }
        float* rows[4];
        for (int j = 0; j < 4; ++j) {
          rows[j] = u.data() + j * size + (block * in_depth + ci) * out_depth;
        }
        TransformKernels(taps, out_depth, i, rows);
      }
    }
    for (int j = 0; j < 4; ++j) {
      std::unique_ptr<SgemmPackedB>& point = result->points_[4 * i + j];
      point =
          SgemmPackedB::Pack(isa, u.data() + j * size, out_depth, 1, result->depth(), out_depth);
      if (point == nullptr) return nullptr;
    }
  }
  return result;
}

const WinogradFilter* WinogradWeights::Get(CpuIsa isa, const float* filter, int64_t window,
                                           int64_t in_depth, int64_t out_depth) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!made_) {
    made_ = true;
    source_ = filter;
    filter_ = WinogradFilter::Make(isa, filter, window, in_depth, out_depth);
  }
  const WinogradFilter* f = filter_.get();
  if (f == nullptr || filter != source_ || f->isa() != isa || f->window() != window ||
      f->in_depth() != in_depth || f->out_depth() != out_depth) {
    return nullptr;
  }
  return f;
}

bool WinogradApplies(CpuIsa isa, const Window2D& g, int64_t patch_depth, int64_t out_depth) {
  return HasPackedSgemm(isa) && (g.window_rows == 3 || g.window_rows == 5) &&
         g.window_cols == g.window_rows && g.stride_rows == 1 && g.stride_cols == 1 &&
         g.dilation_rows == 1 && g.dilation_cols == 1 && patch_depth == g.depth &&
         g.depth >= kMinDepth && out_depth >= kMinDepth && g.out_rows >= 2 && g.out_cols >= 2 &&
         !DisabledByEnvironment();
}

void WinogradConvNhwc(const OpKernelContext* ctx, const Window2D& g, const WinogradFilter& filter,
                      const float* in, float* out,
                      const std::function<void(int64_t, int64_t)>& finish) {
  const CpuIsa isa = filter.isa();
  const int64_t in_depth = g.depth, out_depth = filter.out_depth();
  const int64_t blocks = filter.blocks(), depth = filter.depth();  // the GEMMs' depth
  const int64_t tile_rows = (g.out_rows + 1) / 2, tile_cols = (g.out_cols + 1) / 2;
  const int64_t band_target = std::max<int64_t>(1, kBandTileFloats / std::max(depth, out_depth));
  const int64_t band_rows = std::clamp<int64_t>(band_target / tile_cols, 1, tile_rows);
  const int64_t bands = (tile_rows + band_rows - 1) / band_rows;
  const int64_t max_tiles = band_rows * tile_cols;
  const std::vector<float> zeros(static_cast<size_t>(in_depth), 0.f);  // the padding's pixels

  // Band `index` (image * bands + band): its three steps, each shared out over the threads
  // through `split` when it is given, else run here. v and m hold max_tiles tiles.
  auto run_band = [&](const OpKernelContext* split, int64_t index, float* v, float* m) {
    auto each = [&](int64_t total, int64_t cost, const std::function<void(int64_t, int64_t)>& fn) {
      if (split != nullptr) {
        split->ParallelFor(total, cost, fn);
      } else {
        fn(0, total);
      }
    };
    const int64_t image = index / bands;
    const int64_t ty0 = index % bands * band_rows;
    const int64_t tiles = (std::min(tile_rows, ty0 + band_rows) - ty0) * tile_cols;
    const float* image_in = in + image * g.in_rows * g.in_cols * in_depth;
    float* image_out = out + image * g.out_rows * g.out_cols * out_depth;
    each(tiles, kWinogradPoints * depth * 2, [&](int64_t first, int64_t last) {
      const float* pixels[kWinogradPoints];
      for (int64_t t = first; t < last; ++t) {
        for (int64_t block = 0; block < blocks * blocks; ++block) {
          // A 5x5 window's blocks read the input 0 or 3 rows and columns further on.
          const int64_t row0 = 2 * (ty0 + t / tile_cols) - g.pad_top + 3 * (block / blocks);
          const int64_t col0 = 2 * (t % tile_cols) - g.pad_left + 3 * (block % blocks);
          for (int i = 0; i < 4; ++i) {
            const int64_t r = row0 + i;
            for (int j = 0; j < 4; ++j) {
              const int64_t c = col0 + j;
              const bool inside = r >= 0 && r < g.in_rows && c >= 0 && c < g.in_cols;
              pixels[4 * i + j] = inside ? image_in + (r * g.in_cols + c) * in_depth : zeros.data();
            }
          }
          InputTransform(isa, pixels, in_depth, v + t * depth + block * in_depth, tiles * depth);
        }
      }
    });
    std::atomic<bool> packed_ok{true};
    each(kWinogradPoints, tiles * depth * out_depth * 2, [&](int64_t first, int64_t last) {
      for (int64_t x = first; x < last; ++x) {
        SgemmArgs args;
        args.m = tiles;
        args.n = out_depth;
        args.k = depth;
        args.a = v + x * tiles * depth;
        args.a_row = depth;
        args.a_col = 1;
        args.b_row = out_depth;
        args.b_col = 1;
        args.c = m + x * tiles * out_depth;
        args.ldc = out_depth;
        if (!PackedSgemm(isa, args, filter.point(static_cast<int>(x)), 0)) packed_ok = false;
      }
    });
    if (!packed_ok) throw std::bad_alloc();
    each(tiles, kWinogradPoints * out_depth * 2, [&](int64_t first, int64_t last) {
      for (int64_t t = first; t < last; ++t) {
        const int64_t row = 2 * (ty0 + t / tile_cols), col = 2 * (t % tile_cols);
        float* corner = image_out + (row * g.out_cols + col) * out_depth;
        const bool right = col + 1 < g.out_cols, below = row + 1 < g.out_rows;
        float* outputs[4] = {corner, right ? corner + out_depth : nullptr,
                             below ? corner + g.out_cols * out_depth : nullptr,
                             right && below ? corner + (g.out_cols + 1) * out_depth : nullptr};
        OutputTransform(isa, m + t * out_depth, tiles * out_depth, out_depth, outputs);
      }
    });
    const int64_t row0 = 2 * ty0;
    const int64_t rows = std::min(g.out_rows, 2 * (ty0 + band_rows)) - row0;
    finish((image * g.out_rows + row0) * g.out_cols, rows * g.out_cols);
  };

  const int64_t total = g.batch * bands;
  const int threads = ctx->device()->intra_op_threads();
  if (threads > 1 && total >= 2 * threads) {
    // Enough bands to share out whole: each thread keeps its band in its own cache.
    ctx->ParallelFor(total, max_tiles * kWinogradPoints * depth * out_depth * 2,
                     [&](int64_t first, int64_t last) {
                       ScratchBuffer<float> v(kWinogradPoints * max_tiles * depth);
                       ScratchBuffer<float> m(kWinogradPoints * max_tiles * out_depth);
                       for (int64_t i = first; i < last; ++i)
                         run_band(nullptr, i, v.get(), m.get());
                     });
    return;
  }
  ScratchBuffer<float> v(kWinogradPoints * max_tiles * depth);
  ScratchBuffer<float> m(kWinogradPoints * max_tiles * out_depth);
  for (int64_t i = 0; i < total; ++i) run_band(ctx, i, v.get(), m.get());
}

}  // namespace graphrt
