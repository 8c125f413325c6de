// Internal spelling of include/graphrt/session.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_SESSION_SESSION_H_
#define GRAPHRT_RUNTIME_SESSION_SESSION_H_

#include <graphrt/session.h>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/devices/device.h"
#include "runtime/placement/placer.h"
#include "runtime/session/session_options.h"

#endif  // GRAPHRT_RUNTIME_SESSION_SESSION_H_
