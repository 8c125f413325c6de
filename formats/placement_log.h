// Internal spelling of include/graphrt/placement_log.h: the definitions live in the public header.
#ifndef GRAPHRT_FORMATS_PLACEMENT_LOG_H_
#define GRAPHRT_FORMATS_PLACEMENT_LOG_H_

#include <graphrt/placement_log.h>

#include "runtime/core/status.h"

#endif  // GRAPHRT_FORMATS_PLACEMENT_LOG_H_
