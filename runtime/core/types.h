// Internal spelling of include/graphrt/types.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_CORE_TYPES_H_
#define GRAPHRT_RUNTIME_CORE_TYPES_H_

#include <graphrt/types.h>

#include "runtime/core/status.h"

#endif  // GRAPHRT_RUNTIME_CORE_TYPES_H_
