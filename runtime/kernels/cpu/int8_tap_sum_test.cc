// Int8TapSum (int8_tap_sum.h) on every QGemmIsa path this CPU runs against the plain loop: the
// same integers, for channel counts around each path's vector widths and odd and even tap counts,
// with the extreme values (codes less zero point of +-255, weights of -128 and 127) included.
#include "runtime/kernels/cpu/int8_tap_sum.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace graphrt {
namespace {

TEST(Int8TapSum, EveryPathMatchesTheReference) {
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> src_dist(-255, 255), w_dist(-128, 127);
  for (QGemmIsa isa :
       {QGemmIsa::kBaseline, QGemmIsa::kAvx2, QGemmIsa::kAvx512, QGemmIsa::kAvx512Vnni}) {
    if (!QGemmIsaRuns(isa)) continue;
    for (int64_t channels : {1, 7, 8, 9, 16, 17, 31, 32, 33, 64, 95}) {
      for (int64_t taps : {0, 1, 2, 9, 25}) {
        std::vector<std::vector<int16_t>> src(taps), w(taps);
        std::vector<const int16_t*> srcs, weights;
        for (int64_t t = 0; t < taps; ++t) {
          for (int64_t c = 0; c < channels; ++c) {
            const bool extreme = (c + t) % 5 == 0;
            src[t].push_back(static_cast<int16_t>(extreme ? (t % 2 ? -255 : 255) : src_dist(gen)));
            w[t].push_back(static_cast<int16_t>(extreme ? (c % 2 ? -128 : 127) : w_dist(gen)));
          }
          srcs.push_back(src[t].data());
          weights.push_back(w[t].data());
        }
        // A guard past the end catches a store beyond `channels`.
        std::vector<int32_t> got(static_cast<size_t>(channels) + 64, -7), want(channels);
        Int8TapSum(isa, srcs.data(), weights.data(), taps, channels, got.data());
        Int8TapSumReference(srcs.data(), weights.data(), taps, channels, want.data());
        for (int64_t c = 0; c < channels; ++c) {
          ASSERT_EQ(got[c], want[c]) << QGemmIsaName(isa) << " channels " << channels << " taps "
                                     << taps << " channel " << c;
        }
        for (size_t c = channels; c < got.size(); ++c) {
          ASSERT_EQ(got[c], -7) << QGemmIsaName(isa) << " wrote past the end at " << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace graphrt
