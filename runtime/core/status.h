// Internal spelling of include/graphrt/status.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_CORE_STATUS_H_
#define GRAPHRT_RUNTIME_CORE_STATUS_H_

#include <graphrt/status.h>

#include "runtime/core/str_util.h"

#endif  // GRAPHRT_RUNTIME_CORE_STATUS_H_
