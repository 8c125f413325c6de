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

}  // namespace
}  // namespace graphrt
