// Internal spelling of include/graphrt/tensor_shape.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_CORE_TENSOR_SHAPE_H_
#define GRAPHRT_RUNTIME_CORE_TENSOR_SHAPE_H_

#include <graphrt/tensor_shape.h>

#include "runtime/core/status.h"

#endif  // GRAPHRT_RUNTIME_CORE_TENSOR_SHAPE_H_
