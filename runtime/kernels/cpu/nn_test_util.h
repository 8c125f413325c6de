// Helpers for the nn kernels' unit tests (matmul, conv, pool, batch norm, softmax, resize):
// the deterministic input sequences the TensorFlow-computed expectations were made from, and
// random tensors for comparisons against the plain reference loops in the tests.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_NN_TEST_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_NN_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/cpu/math_test_util.h"

namespace graphrt {
namespace testing {

// ((i * mul) % mod - offset) * scale for i in [0, n): numpy's
// ((np.arange(n) * mul) % mod - offset) * scale, the inputs the TensorFlow expectations used.
inline std::vector<float> Seq(int64_t n, int mul = 7, int mod = 11, int offset = 5,
                              float scale = 0.25f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * mul) % mod - offset) * scale;
  return v;
}

// The filter sequence of the expectations: Seq(n, 5, 7, 3, 0.5).
inline std::vector<float> FilterSeq(int64_t n) { return Seq(n, 5, 7, 3, 0.5f); }

// Uniform values in [-1, 1) from a fixed seed.
inline std::vector<float> RandomValues(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// Whether `status` is an error whose message ends with `text` (errors from a kernel's
// constructor carry a "node n (Op): " prefix).
inline ::testing::AssertionResult ErrorEndsWith(const Status& status, const std::string& text) {
  const std::string& message = status.message();
  if (!status.ok() && message.size() >= text.size() &&
      message.compare(message.size() - text.size(), text.size(), text) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << status << " does not end with \"" << text << "\"";
}

inline std::vector<double> ToDoubles(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

}  // namespace testing
}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_NN_TEST_UTIL_H_
