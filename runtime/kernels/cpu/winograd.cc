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
// ... unless the transformed filter U is so large that streaming it for each band costs more:
// ResNet50's last 3x3 layers (512 channels, 7x7 images, U 38 MB) ran at 180 GFLOP/s in bands of
// 14 tiles, 254 in one band of all 32.
constexpr int64_t kUFloatsPerTile = 32768;

// Both 6x6 forms, F(4x4, 3x3) and F(2x2, 5x5), share B (their points are the same).
void InputTransform(CpuIsa isa, int span, const float* const* tile, int64_t depth, float* v,
                    int64_t v_stride) {
  if (isa == CpuIsa::kAvx512) {
    (span == 6 ? isa::avx512::WinogradInputF4 : isa::avx512::WinogradInput)(tile, depth, v,
                                                                            v_stride);
  } else {
    (span == 6 ? isa::avx2::WinogradInputF4 : isa::avx2::WinogradInput)(tile, depth, v, v_stride);
  }
}

void OutputTransform(CpuIsa isa, int tile_size, int span, const float* m, int64_t m_stride,
                     int64_t depth, float* const* out) {
  const bool avx512 = isa == CpuIsa::kAvx512;
  if (tile_size == 4) {
    (avx512 ? isa::avx512::WinogradOutputF4 : isa::avx2::WinogradOutputF4)(m, m_stride, depth, out);
  } else if (span == 6) {
    (avx512 ? isa::avx512::WinogradOutputF25 : isa::avx2::WinogradOutputF25)(m, m_stride, depth,
                                                                             out);
  } else {
    (avx512 ? isa::avx512::WinogradOutput : isa::avx2::WinogradOutput)(m, m_stride, depth, out);
  }
}

// GRAPHRT_WINOGRAD's value, or null.
const char* Setting() { return std::getenv("GRAPHRT_WINOGRAD"); }
bool DisabledByEnvironment() {
  const char* value = Setting();
  return value != nullptr && std::strcmp(value, "0") == 0;
}

}  // namespace

int WinogradTile() {
  const char* value = Setting();
  return value != nullptr && std::strcmp(value, "2") == 0 ? 2 : 4;
}

WinogradForm ChooseWinogradForm(const Window2D& g) {
  if (WinogradTile() == 2) return {2, 3};
  if (g.window_rows == 5) return {2, 5};
  const int64_t f4_tiles = g.batch * ((g.out_rows + 3) / 4) * ((g.out_cols + 3) / 4);
  return f4_tiles < kWinogradMinF4Tiles ? WinogradForm{2, 3} : WinogradForm{4, 3};
}

std::unique_ptr<WinogradFilter> WinogradFilter::Make(CpuIsa isa, const float* filter,
                                                     int64_t window, int64_t in_depth,
                                                     int64_t out_depth, WinogradForm form) {
  const int tile = form.tile, r = form.taps;
  const bool known = (tile == 4 && r == 3) || (tile == 2 && (r == 3 || r == 5));
  if (!HasPackedSgemm(isa) || (window != 3 && window != 5) || in_depth < 1 || out_depth < 1 ||
      !known || r > window) {
    return nullptr;
  }
  std::unique_ptr<WinogradFilter> result(
      new WinogradFilter(isa, window, in_depth, out_depth, tile, r));
  const int64_t blocks = result->blocks();
  const int64_t size = result->depth() * out_depth;
  const int span = result->span();
  // A row of U's points at a time: a quarter or a sixth of U in memory at once.
  std::vector<float> u;
  const std::vector<float> zeros(static_cast<size_t>(out_depth), 0.f);  // taps past a 5x5 window
  try {
    u.resize(static_cast<size_t>(span * size));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  for (int i = 0; i < span; ++i) {
    // Block (br, bc), channel ci: tap (y, x) of its r x r is the window's (r br + y, r bc + x),
    // filter[((row * window + col) * in_depth + ci) * out_depth + co]; it goes to
    // u[j * size + ((br * blocks + bc) * in_depth + ci) * out_depth + co].
    for (int64_t block = 0; block < blocks * blocks; ++block) {
      const int64_t row0 = r * (block / blocks), col0 = r * (block % blocks);
      for (int64_t ci = 0; ci < in_depth; ++ci) {
        const float* taps[25];
        for (int tap = 0; tap < r * r; ++tap) {
          const int64_t row = row0 + tap / r, col = col0 + tap % r;
          taps[tap] = row < window && col < window
                          ? filter + ((row * window + col) * in_depth + ci) * out_depth
                          : zeros.data();
        }
        float* rows[6];
        for (int j = 0; j < span; ++j) {
          rows[j] = u.data() + j * size + (block * in_depth + ci) * out_depth;
        }
        if (isa == CpuIsa::kAvx512) {
          isa::avx512::WinogradFilterRow(taps, out_depth, span, r, i, rows);
        } else {
          isa::avx2::WinogradFilterRow(taps, out_depth, span, r, i, rows);
        }
      }
    }
    for (int j = 0; j < span; ++j) {
      std::unique_ptr<SgemmPackedB>& point = result->points_[span * i + j];
      point =
          SgemmPackedB::Pack(isa, u.data() + j * size, out_depth, 1, result->depth(), out_depth);
      if (point == nullptr) return nullptr;
    }
  }
  return result;
}

const WinogradFilter* WinogradWeights::Get(CpuIsa isa, const float* filter, const Window2D& g,
                                           int64_t out_depth) {
  const WinogradForm form = ChooseWinogradForm(g);
  std::lock_guard<std::mutex> lock(mu_);
  if (source_ == nullptr) source_ = filter;
  if (filter != source_) return nullptr;
  for (const std::unique_ptr<WinogradFilter>& f : made_) {
    if (f->form() == form) {
      const bool same = f->isa() == isa && f->window() == g.window_rows &&
                        f->in_depth() == g.depth && f->out_depth() == out_depth;
      return same ? f.get() : nullptr;
    }
  }
  if (std::find(failed_.begin(), failed_.end(), form) != failed_.end()) return nullptr;
  std::unique_ptr<WinogradFilter> made =
      WinogradFilter::Make(isa, filter, g.window_rows, g.depth, out_depth, form);
  if (made == nullptr) {
    failed_.push_back(form);
    return nullptr;
  }
  made_.push_back(std::move(made));
  return made_.back().get();
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
  const int tile = filter.tile(), span = filter.span(), points = filter.points();
  const int64_t taps = filter.taps();
  const int64_t tile_rows = (g.out_rows + tile - 1) / tile;
  const int64_t tile_cols = (g.out_cols + tile - 1) / tile;
  // F(4x4, 3x3)'s tiles hold 36 points: fewer of them a band, for the same bytes as F(2x2, 3x3).
  // Each band streams all of U, so a band holds at least one tile per kUFloatsPerTile of it.
  const int64_t band_target =
      std::max<int64_t>({1, kBandTileFloats * 16 / points / std::max(depth, out_depth),
                         points * depth * out_depth / kUFloatsPerTile});
  // Rows of tiles count on from one image to the next, so that a band of small images holds
  // several of them (ResNet50's 7x7 images at 512 channels: one image's 4 tiles a band made
  // the GEMMs 4 rows deep, streaming U's 38 MB for each).
  const int64_t all_tile_rows = g.batch * tile_rows;
  const int64_t band_rows = std::clamp<int64_t>(band_target / tile_cols, 1, all_tile_rows);
  const int64_t bands = (all_tile_rows + band_rows - 1) / band_rows;
  const int64_t max_tiles = band_rows * tile_cols;
  const std::vector<float> zeros(static_cast<size_t>(in_depth), 0.f);  // the padding's pixels
  // Each band's GEMMs read all of U: from memory where it outgrows L2.
  const bool u_from_memory = points * depth * out_depth * int64_t{sizeof(float)} > kSgemmL2Bytes;

  // Band `index` (tile rows [index * band_rows, + band_rows) of all images): its three steps,
  // each shared out over the threads through `split` when it is given, else run here. v and m
  // hold max_tiles tiles.
  auto run_band = [&](const OpKernelContext* split, int64_t index, float* v, float* m) {
    auto each = [&](int64_t total, int64_t cost, const std::function<void(int64_t, int64_t)>& fn) {
      if (split != nullptr) {
        split->ParallelFor(total, cost, fn);
      } else {
        fn(0, total);
      }
    };
    const int64_t gy0 = index * band_rows;  // the band's first tile row, over all images
    const int64_t tiles = (std::min(all_tile_rows, gy0 + band_rows) - gy0) * tile_cols;
    // Tile t: image, tile row and column.
    auto locate = [&](int64_t t, int64_t* image, int64_t* ty, int64_t* tx) {
      const int64_t gy = gy0 + t / tile_cols;
      *image = gy / tile_rows;
      *ty = gy % tile_rows;
      *tx = t % tile_cols;
    };
    each(tiles, points * depth * 2, [&](int64_t first, int64_t last) {
      const float* pixels[kWinogradMaxPoints];
      for (int64_t t = first; t < last; ++t) {
        int64_t image, ty, tx;
        locate(t, &image, &ty, &tx);
        const float* image_in = in + image * g.in_rows * g.in_cols * in_depth;
        for (int64_t block = 0; block < blocks * blocks; ++block) {
          // A 5x5 window's 3x3 blocks read the input 0 or 3 rows and columns further on.
          const int64_t row0 = tile * ty - g.pad_top + taps * (block / blocks);
          const int64_t col0 = tile * tx - g.pad_left + taps * (block % blocks);
          for (int i = 0; i < span; ++i) {
            const int64_t r = row0 + i;
            for (int j = 0; j < span; ++j) {
              const int64_t c = col0 + j;
              const bool inside = r >= 0 && r < g.in_rows && c >= 0 && c < g.in_cols;
              pixels[span * i + j] =
                  inside ? image_in + (r * g.in_cols + c) * in_depth : zeros.data();
            }
          }
          InputTransform(isa, span, pixels, in_depth, v + t * depth + block * in_depth,
                         tiles * depth);
        }
      }
    });
    std::atomic<bool> packed_ok{true};
    each(points, tiles * depth * out_depth * 2, [&](int64_t first, int64_t last) {
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
        args.b_from_memory = u_from_memory;
        if (!PackedSgemm(isa, args, filter.point(static_cast<int>(x)), 0)) packed_ok = false;
      }
    });
    if (!packed_ok) throw std::bad_alloc();
    each(tiles, points * out_depth * 2, [&](int64_t first, int64_t last) {
      for (int64_t t = first; t < last; ++t) {
        int64_t image, ty, tx;
        locate(t, &image, &ty, &tx);
        float* image_out = out + image * g.out_rows * g.out_cols * out_depth;
        const int64_t row = tile * ty, col = tile * tx;
        float* outputs[16];  // tile x tile, row-major; null past the output's edge
        for (int i = 0; i < tile; ++i) {
          for (int j = 0; j < tile; ++j) {
            outputs[tile * i + j] = row + i < g.out_rows && col + j < g.out_cols
                                        ? image_out + ((row + i) * g.out_cols + col + j) * out_depth
                                        : nullptr;
          }
        }
        OutputTransform(isa, tile, span, m + t * out_depth, tiles * out_depth, out_depth, outputs);
      }
    });
    // The band's output rows, over all images (the last tile row of an image may reach past it).
    int64_t image, ty, tx;
    locate(0, &image, &ty, &tx);
    const int64_t first_row = image * g.out_rows + tile * ty;
    locate(tiles - 1, &image, &ty, &tx);
    const int64_t end_row = image * g.out_rows + std::min(g.out_rows, tile * (ty + 1));
    finish(first_row * g.out_cols, (end_row - first_row) * g.out_cols);
  };

  const int threads = ctx->device()->intra_op_threads();
  if (threads > 1 && bands >= 2 * threads) {
    // Enough bands to share out whole: each thread keeps its band in its own cache.
    ctx->ParallelFor(bands, max_tiles * points * depth * out_depth * 2,
                     [&](int64_t first, int64_t last) {
                       ScratchBuffer<float> v(points * max_tiles * depth);
                       ScratchBuffer<float> m(points * max_tiles * out_depth);
                       for (int64_t i = first; i < last; ++i)
                         run_band(nullptr, i, v.get(), m.get());
                     });
    return;
  }
  ScratchBuffer<float> v(points * max_tiles * depth);
  ScratchBuffer<float> m(points * max_tiles * out_depth);
  for (int64_t i = 0; i < bands; ++i) run_band(ctx, i, v.get(), m.get());
}

}  // namespace graphrt
