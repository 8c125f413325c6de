// Helpers shared by the shape, array and random kernels: reading the small integer tensors that
// carry shapes, axes and paddings, and dispatching on how an element of a dtype is moved.
#ifndef GRAPHRT_RUNTIME_KERNELS_COMMON_ARRAY_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_COMMON_ARRAY_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/core/resource_handle.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/types.h"

namespace graphrt {

// The values of an integer tensor (any signed or unsigned width), widened to int64.
// INVALID_ARGUMENT naming `what` for a non-integer dtype.
Status ReadIntegers(const Tensor& t, const char* what, std::vector<int64_t>* values);

// The value of a one-element integer tensor (a scalar, or a legacy length-1 vector).
Status ReadIntegerScalar(const Tensor& t, const char* what, int64_t* value);

// A shape from a vector of sizes as TensorFlow's MakeShape checks it: every size >= 0 ("Dimension
// -2 must be >= 0") and no overflow of the element count.
Status ShapeFromSizes(const std::vector<int64_t>& sizes, TensorShape* shape);

// Reads a shape tensor: a vector (or, as TensorFlow's legacy rule allows, a scalar) of int32 or
// int64. `what` names the input in messages ("shape", "dims").
Status ShapeFromTensor(const Tensor& t, const char* what, TensorShape* shape);

// TensorFlow's "[1,0]" index notation for element `flat` of a tensor of `shape`.
std::string FlatIndexString(const TensorShape& shape, int64_t flat);

// Copies n consecutive elements: a plain loop for short runs, memcpy for long ones.
template <typename T>
void CopyRun(const T* src, T* dst, int64_t n) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    if (n * static_cast<int64_t>(sizeof(T)) <= 32) {  // cheaper than a call to memcpy
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    } else {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    }
  } else {
    std::copy(src, src + n, dst);
  }
}

// A 16-byte element (complex128) moved as one unit.
struct Bytes16 {
  uint64_t lo, hi;
};

// Calls fn(TypeTag<K>()) with the type K that moves elements of `dtype`: an unsigned integer of
// the same size (or Bytes16) for plain values, else std::string, ResourceHandle or Variant.
// Kernels that only move data are thus compiled once per element size, not once per dtype.
template <typename Fn>
Status VisitElementKind(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case ::tensorflow::DT_STRING:
      fn(TypeTag<std::string>());
      return Status::OK();
    case ::tensorflow::DT_RESOURCE:
      fn(TypeTag<ResourceHandle>());
      return Status::OK();
    case ::tensorflow::DT_VARIANT:
      fn(TypeTag<Variant>());
      return Status::OK();
    default:
      break;
  }
  switch (IsPodType(dtype) ? DataTypeSize(dtype) : 0) {
    case 1:
      fn(TypeTag<uint8_t>());
      return Status::OK();
    case 2:
      fn(TypeTag<uint16_t>());
      return Status::OK();
    case 4:
      fn(TypeTag<uint32_t>());
      return Status::OK();
    case 8:
      fn(TypeTag<uint64_t>());
      return Status::OK();
    case 16:
      fn(TypeTag<Bytes16>());
      return Status::OK();
    default:
      return Unimplemented("cannot move elements of dtype ", DataTypeString(dtype));
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_COMMON_ARRAY_UTIL_H_
