// Internal spelling of include/graphrt/config.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_SESSION_SESSION_OPTIONS_H_
#define GRAPHRT_RUNTIME_SESSION_SESSION_OPTIONS_H_

#include <graphrt/config.h>

#include "runtime/core/status.h"

#endif  // GRAPHRT_RUNTIME_SESSION_SESSION_OPTIONS_H_
