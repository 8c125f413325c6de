// Winograd's minimal filtering F(4x4, 3x3), F(2x2, 5x5) and F(2x2, 3x3) for float convolutions of
// unit stride and dilation with a 3x3 or 5x5 window (NHWC input, HWIO filter), on the paths with
// packed SGEMM kernels (AVX2, AVX-512).
//
// F(m x m, r x r) computes each m x m block of outputs (a tile) from the (m + r - 1) x (m + r - 1)
// block of input under it as A^T [(G g G^T) . (B^T d B)] A: per channel pair, 36 products for 16
// outputs (F(4x4, 3x3)), 36 for 4 (F(2x2, 5x5)) or 16 for 4 (F(2x2, 3x3)), where the direct
// convolution takes 144, 100 or 36. Over a band of tiles, the input transform gives one matrix
// V[x] (tiles x depth) per point x of the tile, the filter transform (once per constant filter)
// one U[x] (depth x out_depth), and the GEMMs M[x] = V[x] U[x] do the work; the output transform
// folds M back into m x m outputs.
// 3x3 windows take F(4x4, 3x3) and 5x5 ones F(2x2, 5x5). Both use the points 0, +-1, +-2 and so
// the same B; F(2x2, 5x5)'s small tiles waste less past the output's edge (the fixture CNN's
// 10x10 outputs: none, where 4x4 tiles cover 12x12). A 3x3 window whose output holds fewer than
// kWinogradMinF4Tiles 4x4 tiles over the batch takes F(2x2, 3x3): its GEMMs would have that few
// rows, and would stream a U 2.25x larger for them (ResNet50's 512-channel layers at batch 1: 4
// tiles of 7x7 and 38 MB of U, against F(2x2, 3x3)'s 16 tiles and 17 MB; as fast in the model,
// 8-10 % slower alone).
// GRAPHRT_WINOGRAD=2 takes F(2x2, 3x3) everywhere, for a 5x5 window too: the 6x6 window it fits in,
// zero-padded, cut into four 3x3 blocks that read the input shifted by 0 or 3 rows and columns, and
// stand side by side as four times the input channels of one 3x3 convolution. F(2x2, 3x3)'s
// coefficients are 0, +-1 and +-1/2; F(4x4, 3x3)'s reach 8 in A and 5 in B and hold 1/6 and 1/24 in
// G, so its rounding error is some fifteen times larger: 2e-6 of the sum of the products'
// magnitudes in ConvOpsTest.WinogradMatchesReference, and on InceptionV3 a max abs difference from
// TensorFlow of 2.9e-4 (logits over a range of 3.3) where F(2x2, 3x3) gives 9.4e-5. F(2x2, 5x5)
// shares B with F(4x4, 3x3), but its A only reaches 2.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_WINOGRAD_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_WINOGRAD_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/kernels/common/window.h"
#include "runtime/kernels/cpu/cpu_isa.h"
#include "runtime/kernels/cpu/sgemm.h"

namespace graphrt {

class OpKernelContext;

inline constexpr int kWinogradMaxPoints = 36;  // a 6x6 input tile
inline constexpr int64_t kWinogradMinF4Tiles = 12;

// F(tile x tile, taps x taps).
struct WinogradForm {
  int tile = 4, taps = 3;
  bool operator==(const WinogradForm& other) const {
    return tile == other.tile && taps == other.taps;
  }
};

// The form for a convolution WinogradApplies to: the rules above, and GRAPHRT_WINOGRAD.
WinogradForm ChooseWinogradForm(const Window2D& g);

// A 3x3 or 5x5 filter (HWIO, [window, window, in_depth, out_depth]) transformed to its 36 (or
// 16) matrices U[x], each packed for the SGEMM kernels of one path.
class WinogradFilter {
 public:
  // Null when memory runs out, `isa` has no packed SGEMM, the window is neither 3 nor 5 or the
  // form is none of the three.
  static std::unique_ptr<WinogradFilter> Make(CpuIsa isa, const float* filter, int64_t window,
                                              int64_t in_depth, int64_t out_depth,
                                              WinogradForm form);

  CpuIsa isa() const { return isa_; }
  int64_t window() const { return window_; }
  int64_t in_depth() const { return in_depth_; }
  int64_t out_depth() const { return out_depth_; }
  int tile() const { return tile_; }
  int taps() const { return taps_; }              // r of F(m x m, r x r): 3 or 5
  int span() const { return tile_ + taps_ - 1; }  // input pixels per side of a tile
  int points() const { return span() * span(); }
  WinogradForm form() const { return {tile_, taps_}; }
  // Blocks of taps x taps along each axis (2 for a 5x5 window by F(2x2, 3x3), else 1), and the
  // GEMMs' depth: blocks^2 * in_depth.
  int64_t blocks() const { return window_ > taps_ ? 2 : 1; }
  int64_t depth() const { return blocks() * blocks() * in_depth_; }
  const SgemmPackedB& point(int x) const { return *points_[x]; }

 private:
  WinogradFilter(CpuIsa isa, int64_t window, int64_t in_depth, int64_t out_depth, int tile,
                 int taps)
      : isa_(isa),
        window_(window),
        in_depth_(in_depth),
        out_depth_(out_depth),
        tile_(tile),
        taps_(taps) {}
  CpuIsa isa_;
  int64_t window_, in_depth_, out_depth_;
  int tile_, taps_;
  std::array<std::unique_ptr<SgemmPackedB>, kWinogradMaxPoints> points_;
};

// A kernel's constant filter, transformed on its first use and reused by every later Run (as
// PackedWeights keeps a packed filter); one transform per form its Runs' shapes take.
class WinogradWeights {
 public:
  // The transform of `filter` for `isa` in ChooseWinogradForm(g)'s form, made by the first call
  // that asks for that form; null when that failed or a call passes another filter, path or
  // depths (the caller then transforms it itself).
  const WinogradFilter* Get(CpuIsa isa, const float* filter, const Window2D& g, int64_t out_depth);

 private:
  std::mutex mu_;
  const float* source_ = nullptr;  // the first call's filter
  std::vector<std::unique_ptr<WinogradFilter>> made_;
  std::vector<WinogradForm> failed_;  // forms whose transform ran out of memory
};

// Whether WinogradConvNhwc computes this convolution: a 3x3 or 5x5 window of unit stride and
// dilation, one group, and enough channels for the transforms to cost less than the products
// they save.
// GRAPHRT_WINOGRAD=0 in the environment turns it off (im2col + GEMM then runs); =2 takes
// F(2x2, 3x3) for every window.
bool WinogradApplies(CpuIsa isa, const Window2D& g, int64_t patch_depth, int64_t out_depth);

// GRAPHRT_WINOGRAD's tile: 2 with GRAPHRT_WINOGRAD=2, else 4 (ChooseWinogradForm says what each
// convolution takes).
int WinogradTile();

// out[N*OH*OW, out_depth] = conv(in, filter), with any zero padding `g` gives. `finish(first,
// count)` runs on each band of whole output rows [first, first + count) (pixels) as soon as it is
// written, while it is in cache (a fused layer's bias and activation).
// REQUIRES: WinogradApplies(filter.isa(), g, g.depth, filter.out_depth()), filter.in_depth() ==
// g.depth, filter.window() == g.window_rows, and the CPU runs filter.isa().
void WinogradConvNhwc(const OpKernelContext* ctx, const Window2D& g, const WinogradFilter& filter,
                      const float* in, float* out,
                      const std::function<void(int64_t, int64_t)>& finish);

namespace isa {
// The transforms of one tile, vectorized over channels; one per path (isa/winograd_kernel.inc).
// WinogradInput: v[x * v_stride + c] = (B^T d B)[x] for c < depth, where d[x] = tile[x][c]
// (the tile's 16 input pixels, row-major). WinogradOutput: out[k][c] = (A^T m A)[k] for the
// outputs (0,0), (0,1), (1,0), (1,1) of the tile, where m[x] = m[x * m_stride + c]; a null
// out[k] is outside the output and not written. The F4 ones: the same for F(4x4, 3x3), 36 input
// pixels and 16 outputs, row-major; WinogradInputF4 serves F(2x2, 5x5) too, and
// WinogradOutputF25 folds its 36 products into 4 outputs. WinogradFilterRow: row i of
// U = G g G^T (its span points span * i + j at u[j]) for F(m x m, r x r) with the given span and
// r, from the r x r taps of one input channel (taps[t]: tap t's out_depth weights, row-major).
namespace avx2 {
void WinogradInput(const float* const* tile, int64_t depth, float* v, int64_t v_stride);
void WinogradOutput(const float* m, int64_t m_stride, int64_t depth, float* const* out);
void WinogradInputF4(const float* const* tile, int64_t depth, float* v, int64_t v_stride);
void WinogradOutputF4(const float* m, int64_t m_stride, int64_t depth, float* const* out);
void WinogradOutputF25(const float* m, int64_t m_stride, int64_t depth, float* const* out);
void WinogradFilterRow(const float* const* taps, int64_t out_depth, int span, int r, int i,
                       float* const* u);
}  // namespace avx2
namespace avx512 {
void WinogradInput(const float* const* tile, int64_t depth, float* v, int64_t v_stride);
void WinogradOutput(const float* m, int64_t m_stride, int64_t depth, float* const* out);
void WinogradInputF4(const float* const* tile, int64_t depth, float* v, int64_t v_stride);
void WinogradOutputF4(const float* m, int64_t m_stride, int64_t depth, float* const* out);
void WinogradOutputF25(const float* m, int64_t m_stride, int64_t depth, float* const* out);
void WinogradFilterRow(const float* const* taps, int64_t out_depth, int span, int r, int i,
                       float* const* u);
}  // namespace avx512
}  // namespace isa

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_WINOGRAD_H_
