// Internal spelling of include/graphrt/npy.h: the definitions live in the public header.
#ifndef GRAPHRT_FORMATS_NPY_H_
#define GRAPHRT_FORMATS_NPY_H_

#include <graphrt/npy.h>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

#endif  // GRAPHRT_FORMATS_NPY_H_
