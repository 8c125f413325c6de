// Internal spelling of include/graphrt/resource_handle.h: the definitions live in the public
// header.
#ifndef GRAPHRT_RUNTIME_CORE_RESOURCE_HANDLE_H_
#define GRAPHRT_RUNTIME_CORE_RESOURCE_HANDLE_H_

#include <graphrt/resource_handle.h>

#endif  // GRAPHRT_RUNTIME_CORE_RESOURCE_HANDLE_H_
