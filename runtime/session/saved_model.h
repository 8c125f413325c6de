// Internal spelling of include/graphrt/saved_model.h: the definitions live in the public header.
#ifndef GRAPHRT_RUNTIME_SESSION_SAVED_MODEL_H_
#define GRAPHRT_RUNTIME_SESSION_SAVED_MODEL_H_

#include <graphrt/saved_model.h>

#include "runtime/session/session.h"

#endif  // GRAPHRT_RUNTIME_SESSION_SAVED_MODEL_H_
