// Helpers for the math kernels' unit tests (binary, unary, activation, cast, select/compare,
// reduction): building tensors from value lists and comparing results.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_MATH_TEST_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_MATH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/ops/op_registry.h"
#include "tests/kernel_test_util.h"

namespace graphrt {
namespace testing {

// A tensor of `shape` holding `values` (converted to T; e.g. floats to half).
// REQUIRES: values.size() == shape.num_elements().
template <typename T, typename V>
Tensor MakeTensor(const TensorShape& shape, const std::vector<V>& values) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), shape.num_elements());
  for (int64_t i = 0; i < shape.num_elements() && i < static_cast<int64_t>(values.size()); ++i) {
    t.data<T>()[i] = static_cast<T>(values[i]);
  }
  return t;
}

template <typename T>
Tensor MakeScalar(T value) {
  return Tensor::Scalar<T>(value);
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

// The elements as doubles (for half, bfloat16 and the integer types).
template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out.push_back(static_cast<double>(static_cast<float>(t.data<T>()[i])));
  }
  return out;
}

// |actual - expected| <= atol + rtol * |expected| elementwise; NaN matches NaN and infinities
// match exactly.
inline void ExpectAllClose(const std::vector<double>& actual, const std::vector<double>& expected,
                           double rtol, double atol = 0) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i << ": " << a << " vs NaN";
    } else if (std::isinf(e)) {
      EXPECT_EQ(a, e) << "element " << i;
    } else {
      EXPECT_LE(std::abs(a - e), atol + rtol * std::abs(e))
          << "element " << i << ": " << a << " vs " << e;
    }
  }
}

// Runs `op` on `inputs` with `attrs` and, when the op has an attr T that `attrs` does not set,
// T = the dtype of the first input. Returns the first output.
inline StatusOr<Tensor> RunOp(
    const std::string& op, const std::vector<Tensor>& inputs,
    std::vector<std::pair<std::string, ::tensorflow::AttrValue>> attrs = {}, int threads = 1) {
  bool needs_t = false;
  if (const OpRegistration* reg = OpRegistry::Global()->Find(op)) {
    for (const auto& a : reg->op_def.attr()) needs_t |= a.name() == "T";
  }
  for (const auto& a : attrs) needs_t &= a.first != "T";
  if (needs_t && !inputs.empty()) attrs.push_back({"T", AttrType(inputs[0].dtype())});
  GRT_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                       RunKernel(MakeNode(op, attrs), inputs, threads));
  if (outputs.empty()) return Internal("no outputs");
  return outputs[0];
}

}  // namespace testing
}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_MATH_TEST_UTIL_H_
