#include "runtime/kernels/cpu/int8_tap_sum.h"

namespace graphrt {

namespace {

// The int16 lanes of `isa`'s Int8TapSum vectors.
int64_t LanesOf(QGemmIsa isa) {
  switch (isa) {
    case QGemmIsa::kAvx512:
    case QGemmIsa::kAvx512Vnni:
      return 32;
    case QGemmIsa::kAvx2:
      return 16;
    case QGemmIsa::kBaseline:
      break;
  }
  return 8;
}

}  // namespace

Int8TapWeights::Int8TapWeights(QGemmIsa isa, const int8_t* filter, int64_t taps, int64_t channels)
    : taps_(taps),
      channels_(channels),
      lanes_(LanesOf(isa)),
      plain_(filter, filter + taps * channels) {
  while (lanes_ > channels) lanes_ = lanes_ > 8 ? lanes_ / 2 : 0;
  if (lanes_ == 0) return;
  const int64_t l = lanes_;
  const int64_t blocks = (channels + l - 1) / l, pairs = (taps + 1) / 2;
  packed_.resize(static_cast<size_t>(blocks * pairs * 2 * l));
  int16_t* out = packed_.data();
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t block = b * l < channels - l ? b * l : channels - l;
    for (int64_t i = 0; i < pairs; ++i) {
      const int64_t t = 2 * i;
      for (int64_t half = 0; half < 2; ++half) {  // lo, then hi
        for (int64_t j = 0; j < l / 2; ++j) {
          const int64_t ch = block + 8 * (j / 4) + j % 4 + 4 * half;
          *out++ = filter[t * channels + ch];
          *out++ = t + 1 < taps ? filter[(t + 1) * channels + ch] : 0;
        }
      }
    }
  }
}

}  // namespace graphrt
