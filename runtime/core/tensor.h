// Internal spelling of include/graphrt/tensor.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_CORE_TENSOR_H_
#define GRAPHRT_RUNTIME_CORE_TENSOR_H_

#include <graphrt/tensor.h>

#include "runtime/core/resource_handle.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"
#include "runtime/core/types.h"

namespace graphrt {

// Bytes of one element object in a buffer (sizeof(std::string) for strings).
size_t ElementObjectSize(DataType dtype);

// Formats a float so that it reads back to the same value, in the shortest form ("2.5", "1e-07").
std::string FormatShortest(double value, bool is_float32);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_CORE_TENSOR_H_
