// The arithmetic that maps eight-, sixteen- and 32-bit quantized values to floats and back, as
// TensorFlow's CPU kernels do it (tensorflow/core/kernels/quantization_utils.h), shared by the
// quantized_*.cc kernels. Results must match TensorFlow bit for bit, so every expression keeps
// TensorFlow's operand types and order: some steps are in double, some in float, and the
// vectorized (Eigen) variants differ from the scalar ones in the last bit, so both are here.
//
// A quantized element is stored as its integer: quint8 as uint8_t, qint8 as int8_t, qint16 as
// int16_t, quint16 as uint16_t, qint32 as int32_t; T below is that storage type.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_QUANTIZATION_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_QUANTIZATION_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {

// x86's float -> int32 conversion (cvttss2si): truncates, and anything out of range (NaN too)
// becomes INT32_MIN. TensorFlow's casts of out-of-range floats land there on the machines it
// ships for; C++ leaves them undefined, so they are spelled out.
inline int32_t TruncateFloatToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

// Eigen's cast<T>(float) for the quantized storage types: through int32, then narrowed.
// TensorFlow runs its kernels with denormals flushed to zero (FTZ/DAZ); where a denormal can
// arise from normal inputs, this does the same.
inline float FlushDenormal(float v) {
  return std::fabs(v) < std::numeric_limits<float>::min() ? 0.0f * v : v;
}

template <typename T>
T CastFloatTo(float v) {
  return static_cast<T>(TruncateFloatToInt32(v));
}

// A qint32 read as a number: TensorFlow's qint32 (Eigen's QInt32) converts to anything only
// through float, so its integers and doubles lose the low bits of values above 2^24. The narrower
// types convert exactly.
template <typename T>
int64_t QuantizedAsInteger(T v) {
  if constexpr (std::is_same<T, int32_t>::value) {
    return static_cast<int64_t>(static_cast<float>(v));
  } else {
    return v;
  }
}

template <typename T>
constexpr int64_t QuantizedLowest() {
  return static_cast<int64_t>(std::numeric_limits<T>::lowest());
}
template <typename T>
constexpr int64_t QuantizedHighest() {
  return static_cast<int64_t>(std::numeric_limits<T>::max());
}

// TensorFlow's FloatToQuantizedUnclamped: in double, rounding half away from zero.
template <typename T>
int64_t FloatToQuantizedUnclamped(float input, float range_min, float range_max) {
  const int64_t lowest = QuantizedLowest<T>();
  if (range_min == range_max) return lowest;
  const int64_t steps = int64_t{1} << (sizeof(T) * 8);
  const double range_adjust = steps / (steps - 1.0);
  const double range = (range_max - range_min) * range_adjust;
  const double range_scale = steps / range;
  int64_t quantized =
      static_cast<int64_t>(std::round(input * range_scale) - std::round(range_min * range_scale));
  return quantized + lowest;
}

template <typename T>
T FloatToQuantized(float input, float range_min, float range_max) {
  int64_t q = FloatToQuantizedUnclamped<T>(input, range_min, range_max);
  q = std::min(std::max(q, QuantizedLowest<T>()), QuantizedHighest<T>());
  return static_cast<T>(q);
}

template <typename T>
float QuantizedToFloat(T input, float range_min, float range_max) {
  if (range_min == range_max) return range_min;
  const int64_t steps = int64_t{1} << (sizeof(T) * 8);
  const double range_adjust = steps / (steps - 1.0);
  const double range = (range_max - range_min) * range_adjust;
  const double range_scale = range / steps;
  const double offset_input = static_cast<double>(QuantizedAsInteger(input)) - QuantizedLowest<T>();
  // range_scale goes through float here, as TensorFlow does to agree with DequantizeEigen.
  const double range_min_rounded =
      std::round(range_min / static_cast<float>(range_scale)) * static_cast<float>(range_scale);
  return static_cast<float>(range_min_rounded + offset_input * range_scale);
}

template <typename T>
float FloatForOneQuantizedLevel(float range_min, float range_max) {
  return (range_max - range_min) / (QuantizedHighest<T>() - QuantizedLowest<T>());
}

// The output range of a product of a T1 and a T2 accumulated in a T3.
template <typename T1, typename T2, typename T3>
void QuantizationRangeForMultiplication(float min_a, float max_a, float min_b, float max_b,
                                        float* min_c, float* max_c) {
  const float a_level = FloatForOneQuantizedLevel<T1>(min_a, max_a);
  const float b_level = FloatForOneQuantizedLevel<T2>(min_b, max_b);
  const float c_level = a_level * b_level;
  *min_c = c_level * static_cast<float>(QuantizedLowest<T3>());
  *max_c = c_level * static_cast<float>(QuantizedHighest<T3>());
}

template <typename T1, typename T2>
T2 RequantizeInNewRange(T1 input, float min_input, float max_input, float min_new, float max_new) {
  return FloatToQuantized<T2>(QuantizedToFloat<T1>(input, min_input, max_input), min_new, max_new);
}

// TensorFlow's vectorized dequantization (QuantizedToFloatStruct + DEQUANTIZE_WITH_EIGEN): all
// in float, so it can differ from QuantizedToFloat in the last bit.
template <typename T>
class DequantizeEigen {
 public:
  DequantizeEigen(float range_min, float range_max)
      : range_scale_(
            static_cast<float>((range_max - range_min) / ((int64_t{1} << (sizeof(T) * 8)) - 1.0))),
        offset_(Offset(range_min, range_max, range_scale_)) {}
  float operator()(T q) const { return offset_ + static_cast<float>(q) * range_scale_; }

 private:
  static float Offset(float range_min, float range_max, float scale) {
    const float rounded = range_max == range_min
                              ? range_min
                              : static_cast<float>(std::round(range_min / scale) * scale);
    return rounded - static_cast<float>(QuantizedLowest<T>()) * scale;
  }
  float range_scale_;
  float offset_;
};

// TensorFlow's vectorized quantization (FloatToQuantizedStruct + QUANTIZE_WITH_EIGEN).
template <typename T>
class QuantizeEigen {
 public:
  QuantizeEigen(float range_min, float range_max)
      : range_scale_(range_max == range_min
                         ? 0.0f
                         : static_cast<float>(((int64_t{1} << (sizeof(T) * 8)) - 1.0) /
                                              (range_max - range_min))),
        range_min_scaled_(std::round(range_min * range_scale_)) {}
  T operator()(float v) const {
    const float lowest = static_cast<float>(QuantizedLowest<T>());
    const float lower = std::max(lowest, -2.147483648e+09f);
    const float upper = std::min(static_cast<float>(QuantizedHighest<T>()), +2.147483520e+09f);
    float q = std::round(v * range_scale_) - (range_min_scaled_ - lowest);
    // NaN: what x86's float -> int32 conversion gives TensorFlow (INT32_MIN, so 0 in 8 and 16
    // bits), without the undefined conversion of NaN itself.
    if (std::isnan(q)) return static_cast<T>(std::numeric_limits<int32_t>::min());
    q = std::min(std::max(q, lower), upper);
    return static_cast<T>(static_cast<int32_t>(q));
  }

 private:
  float range_scale_;
  float range_min_scaled_;
};

// RequantizeManyInNewRangeUsingEigen: n values from one range into another.
template <typename T1, typename T2>
void RequantizeMany(const T1* in, int64_t n, float min_input, float max_input, float min_output,
                    float max_output, T2* out) {
  const DequantizeEigen<T1> to_float(min_input, max_input);
  const QuantizeEigen<T2> to_quantized(min_output, max_output);
  for (int64_t i = 0; i < n; ++i) out[i] = to_quantized(to_float(in[i]));
}

// TensorFlow's fixed-point special case of the above for qint32 -> quint8 (16 fraction bits).
void RequantizeInt32ToUint8(const int32_t* in, int64_t n, float min_input, float max_input,
                            float min_output, float max_output, uint8_t* out);

// The range a sum of two quantized tensors is accumulated in by QuantizedBiasAdd: symmetric, the
// larger input range times 2^17, so that 32-bit sums keep 15 bits of headroom.
void QuantizedAddRange(float input_min, float input_max, float smaller_min, float smaller_max,
                       float* output_min, float* output_max);

// The scalar float of a min/max input of a quantized op, checked: a scalar (or, where TensorFlow
// allows it, a one-element tensor) of float. `what` names the input in the message.
Status ScalarRangeInput(const Tensor& t, const char* what, bool allow_one_element, float* out);

// Checks min <= max (TensorFlow's quantized ops produce garbage otherwise).
Status CheckRangeOrder(float min, float max, const char* what);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_QUANTIZATION_UTIL_H_
