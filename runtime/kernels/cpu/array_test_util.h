// Small helpers for the shape and array kernel tests: iota inputs and value checks.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_ARRAY_TEST_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_ARRAY_TEST_UTIL_H_

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/core/tensor.h"
#include "tests/kernel_test_util.h"

namespace graphrt {
namespace testing {

// A tensor of `dims` holding offset, offset + 1, ... in row-major order.
template <typename T = float>
Tensor Iota(const std::vector<int64_t>& dims, int offset = 0) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(i + offset);
  return t;
}

// An int32 matrix from its rows.
inline Tensor Int32Matrix(const std::vector<std::vector<int32_t>>& rows) {
  const int64_t cols = rows.empty() ? 0 : static_cast<int64_t>(rows[0].size());
  Tensor t(::tensorflow::DT_INT32, TensorShape({static_cast<int64_t>(rows.size()), cols}));
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t c = 0; c < cols; ++c) t.data<int32_t>()[r * cols + c] = rows[r][c];
  }
  return t;
}

// The elements of a numeric tensor as doubles.
inline std::vector<double> Values(const Tensor& t) {
  std::vector<double> values;
  VisitNumericType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      values.push_back(static_cast<double>(t.data<T>()[i]));
    }
  }).IgnoreError();
  return values;
}

// Checks shape and values (exactly).
inline void ExpectTensor(const Tensor& t, const TensorShape& shape,
                         const std::vector<double>& values) {
  EXPECT_EQ(t.shape(), shape) << t.DebugString();
  EXPECT_EQ(Values(t), values) << t.DebugString(100);
}

// Runs the kernel; the first output on success, else an uninitialized tensor and a failure.
inline Tensor RunOne(const ::tensorflow::NodeDef& node, const std::vector<Tensor>& inputs,
                     int threads = 1) {
  StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs, threads);
  EXPECT_TRUE(out.ok()) << node.op() << ": " << out.status();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

// The error message of a run that must fail with INVALID_ARGUMENT.
inline std::string RunError(const ::tensorflow::NodeDef& node, const std::vector<Tensor>& inputs) {
  StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  EXPECT_FALSE(out.ok()) << node.op() << " should have failed";
  if (out.ok()) return "";
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
  return out.status().message();
}

}  // namespace testing
}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_ARRAY_TEST_UTIL_H_
