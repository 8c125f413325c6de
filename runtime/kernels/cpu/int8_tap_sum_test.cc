// Int8TapSum (int8_tap_sum.h) on every QGemmIsa path this CPU runs against the plain loop: the
// same integers, for channel counts around each path's vector widths (fewer channels than lanes
// fall back to narrower paths), odd and even tap counts, runs of pixels one and two strides apart,
// with the extreme values (codes 0 and 255, weights -128 and 127) included.
#include "runtime/kernels/cpu/int8_tap_sum.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace graphrt {
namespace {

TEST(Int8TapSum, EveryPathMatchesTheReference) {
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> code_dist(0, 255), w_dist(-128, 127);
  for (QGemmIsa isa :
       {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512, QGemmIsa::kAvx512Vnni}) {
    if (!QGemmIsaRuns(isa)) continue;
    for (int64_t channels : {1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 64, 95, 144}) {
      for (int64_t taps : {1, 2, 3, 9, 25}) {
        std::vector<int8_t> w(static_cast<size_t>(taps * channels));
        for (int64_t t = 0; t < taps; ++t) {
          for (int64_t c = 0; c < channels; ++c) {
            const bool extreme = (c + t) % 5 == 0;
            w[t * channels + c] = static_cast<int8_t>(extreme ? (c % 2 ? -128 : 127) : w_dist(gen));
          }
        }
        const Int8TapWeights weights(isa, w.data(), taps, channels);
        for (int64_t pixels : {1, 5}) {
          for (int64_t stride : {1, 2}) {
            const int64_t pixel_stride = stride * channels;
            // Each tap reads its own buffer, exactly as long as the run needs.
            const int64_t span = (pixels - 1) * pixel_stride + channels;
            std::vector<std::vector<uint8_t>> src(taps);
            std::vector<const uint8_t*> srcs;
            for (int64_t t = 0; t < taps; ++t) {
              for (int64_t i = 0; i < span; ++i) {
                const bool extreme = (i + t) % 7 == 0;
                src[t].push_back(
                    static_cast<uint8_t>(extreme ? (t % 2 ? 0 : 255) : code_dist(gen)));
              }
              srcs.push_back(src[t].data());
            }
            // A guard past the end catches a store beyond the last pixel's channels.
            const size_t size = static_cast<size_t>(pixels * channels);
            std::vector<int32_t> got(size + 64, -7), want(size);
            Int8TapSum(weights, srcs.data(), pixel_stride, pixels, got.data());
            Int8TapSumReference(srcs.data(), pixel_stride, pixels, w.data(), taps, channels,
                                want.data());
            for (size_t i = 0; i < size; ++i) {
              ASSERT_EQ(got[i], want[i])
                  << QGemmIsaName(isa) << " channels " << channels << " taps " << taps << " pixels "
                  << pixels << " stride " << stride << " at " << i;
            }
            for (size_t i = size; i < got.size(); ++i) {
              ASSERT_EQ(got[i], -7) << QGemmIsaName(isa) << " wrote past the end at " << i;
            }
          }
        }
      }
    }
  }
}

// Int8TapSumRow (the VNNI path) against its plain loop: windows of one to five rows (one and two
// groups of four), columns past both edges of the input, strides and dilations 1 and 2, and the
// row below where the window has at most three rows.
TEST(Int8TapSum, VnniRowMatchesTheReference) {
  if (!QGemmIsaRuns(QGemmIsa::kAvx512Vnni)) GTEST_SKIP() << "no AVX-512 VNNI";
  std::mt19937 gen(2);
  std::uniform_int_distribution<int> code_dist(0, 255), w_dist(-128, 127);
  struct Window {
    int64_t rows, cols;
  };
  for (int64_t channels : {1, 15, 16, 17, 32, 33, 144}) {
    for (Window window : {Window{3, 3}, Window{1, 1}, Window{2, 3}, Window{5, 5}, Window{4, 2}}) {
      for (int64_t stride : {1, 2}) {
        for (int64_t dilation : {1, 2}) {
          for (int64_t pad_left : {0, 1, 2}) {
            Int8TapRowShape s;
            s.window_rows = window.rows;
            s.window_cols = window.cols;
            s.channels = channels;
            s.in_cols = 7;
            s.pad_left = pad_left;
            s.stride = stride;
            s.dilation = dilation;
            // Enough pixels that the last windows reach past the input's right edge too.
            s.out_cols = (s.in_cols + 2 * pad_left) / stride + 1;
            std::vector<int8_t> w(static_cast<size_t>(window.rows * window.cols * channels));
            for (size_t i = 0; i < w.size(); ++i) {
              w[i] = static_cast<int8_t>(i % 11 == 0 ? (i % 2 ? -128 : 127) : w_dist(gen));
            }
            // One input row more, for the row below where the window allows it.
            const bool below = window.rows <= 3;
            std::vector<std::vector<uint8_t>> input(static_cast<size_t>(window.rows + 1));
            std::vector<const uint8_t*> rows;
            for (auto& r : input) {
              for (int64_t i = 0; i < s.in_cols * channels; ++i) {
                r.push_back(static_cast<uint8_t>(i % 13 == 0 ? 255 : code_dist(gen)));
              }
              rows.push_back(r.data());
            }
            const uint8_t zero_code = static_cast<uint8_t>(code_dist(gen));
            const std::vector<int8_t> quads = PackInt8TapQuads(s, w.data());
            std::vector<uint8_t> scratch(static_cast<size_t>(s.scratch_bytes()));
            const size_t size = static_cast<size_t>(s.out_cols * channels);
            std::vector<int32_t> got(size + 64, -7), want(size);
            const std::vector<int8_t> quads_below =
                below ? PackInt8TapQuads(s, w.data(), 1) : std::vector<int8_t>();
            std::vector<int32_t> got_below(size + 64, -7), want_below(size);
            isa::avx512vnni::Int8TapSumRow(s, rows.data(), zero_code, quads.data(), scratch.data(),
                                           got.data(), below ? quads_below.data() : nullptr,
                                           below ? got_below.data() : nullptr);
            Int8TapSumRowReference(s, rows.data(), zero_code, w.data(), want.data());
            Int8TapSumRowReference(s, rows.data() + 1, zero_code, w.data(), want_below.data());
            for (size_t i = 0; i < size; ++i) {
              ASSERT_EQ(got[i], want[i])
                  << "channels " << channels << " window " << window.rows << "x" << window.cols
                  << " stride " << stride << " dilation " << dilation << " pad_left " << pad_left
                  << " at " << i;
              if (below) {
                ASSERT_EQ(got_below[i], want_below[i])
                    << "row below: channels " << channels << " window " << window.rows << "x"
                    << window.cols << " stride " << stride << " dilation " << dilation
                    << " pad_left " << pad_left << " at " << i;
              }
            }
            for (size_t i = size; i < got.size(); ++i) {
              ASSERT_EQ(got[i], -7) << "wrote past the end at " << i;
              ASSERT_EQ(got_below[i], -7) << "wrote past the end of the row below at " << i;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace graphrt
