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
      vnni_(isa == QGemmIsa::kAvx512Vnni),
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

std::vector<int8_t> PackInt8TapQuads(const Int8TapRowShape& shape, const int8_t* filter,
                                     int64_t shift) {
  const int64_t padded = shape.padded_channels(), cols = shape.window_cols;
  std::vector<int8_t> quads(static_cast<size_t>(shape.groups() * cols * padded * 4), 0);
  for (int64_t kh = 0; kh < shape.window_rows; ++kh) {
    for (int64_t kw = 0; kw < cols; ++kw) {
      const int8_t* from = filter + (kh * cols + kw) * shape.channels;
      const int64_t at = kh + shift;  // the quad byte of window row kh
      int8_t* to = quads.data() + ((at / 4 * cols + kw) * padded * 4 + at % 4);
      for (int64_t c = 0; c < shape.channels; ++c) to[4 * c] = from[c];
    }
  }
  return quads;
}

}  // namespace graphrt
