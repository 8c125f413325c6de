// Reading a Keras model_config. Keras writes JSON; a missing key takes Keras's default.
//
// The config is untrusted. The readers below return plain values and throw on what they cannot
// use (nlohmann::json's type_error for a wrong type, ConfigError for a number out of range or a
// tuple of the wrong length); the model walker (CallLayer) and BuildKerasGraph turn both into a
// Status naming the layer. Const operator[] on a missing key is undefined behaviour in
// nlohmann::json, so keys are looked up with Member (a Status) or find(), never const operator[].
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_CONFIG_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_CONFIG_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/status.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using Json = nlohmann::json;

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest JSON nesting BuildKerasGraph accepts: the builder recurses into nested models and
// wrappers, and real configs nest a few dozen levels at most.
constexpr int kMaxConfigDepth = 256;

// An integer of type T. nlohmann converts a float to an integer with a plain cast, undefined
// when it does not fit: a non-finite or out-of-range number is an error here.
template <typename T = int64_t>
T JsonInt(const Json& v) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(kMax)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i >= static_cast<int64_t>(kMin) && i <= static_cast<int64_t>(kMax)) {
      return static_cast<T>(i);
    }
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d > static_cast<double>(kMin) - 1 &&
        d < static_cast<double>(kMax) + 1) {
      return static_cast<T>(d);
    }
  } else {
    return v.get<T>();  // throws type_error naming the JSON type
  }
  throw ConfigError(StrCat("the number ", v.dump(), " is out of range"));
}

// The value of `key`, or `fallback` when it is missing or null.
template <typename T>
T Get(const Json& config, const char* key, T fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return JsonInt<T>(*it);
  } else {
    return it->get<T>();
  }
}

// An int or a tuple of ints ("kernel_size": 3 or [3, 3]), as `n` ints (n == 0: any number).
std::vector<int64_t> GetInts(const Json& config, const char* key, int n, int64_t fallback);

// Window sizes, strides, dilations and repeat factors: each from 1 to 2^20, so that shape
// arithmetic neither divides by zero nor overflows.
std::vector<int64_t> GetWindow(const Json& config, const char* key, int n, int64_t fallback);

// A key of a JSON object, or an error naming the layer and the key.
StatusOr<const Json*> Member(const Json& object, const char* key, const std::string& layer);

// How deeply `root` nests, counted without recursion (a hostile config may nest millions deep).
int JsonDepth(const Json& root);

// Keras's activation spelling: a name, or (newer files) {"class_name": ..., "config": ...}; an
// activation layer object (ReLU, LeakyReLU, ELU, ThresholdedReLU, Softmax, Activation) as
// kActivationLayerPrefix followed by its JSON.
constexpr char kActivationLayerPrefix[] = "layer:";
std::string ActivationName(const Json& config, const char* key, const std::string& fallback);

// [[top, bottom], [left, right]] (or [left, right] for 1-D) from Keras's padding/cropping
// spellings.
std::vector<std::pair<int64_t, int64_t>> PairsFromConfig(const Json& v, int n, const char* key);

// A Keras axis (negative counts from the end) as an index into a rank-`rank` shape.
StatusOr<int> NormAxis(int64_t axis, int rank);

}  // namespace internal
}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_CONFIG_H_
