// Internal spelling of include/graphrt/graph_io.h: the definitions live in the public header.
#ifndef GRAPHRT_FORMATS_GRAPH_DEF_H_
#define GRAPHRT_FORMATS_GRAPH_DEF_H_

#include <graphrt/graph_io.h>

#include "runtime/core/status.h"

#endif  // GRAPHRT_FORMATS_GRAPH_DEF_H_
