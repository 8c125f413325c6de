// StatusFromExceptions: where graphrt's public API meets code that may throw (the standard
// library, protobuf, JSON, a kernel's std::bad_alloc), so that no exception crosses the API.
// Each public entry point (Session's methods, the file readers and writers) and each kernel
// invocation in the executor runs its body through it.
#ifndef GRAPHRT_RUNTIME_CORE_EXCEPTION_BARRIER_H_
#define GRAPHRT_RUNTIME_CORE_EXCEPTION_BARRIER_H_

#include <exception>
#include <new>

#include "runtime/core/status.h"

namespace graphrt {

// Returns fn()'s Status or StatusOr, or the exception it threw as a Status naming `where`:
// RESOURCE_EXHAUSTED for std::bad_alloc, INTERNAL for anything else.
template <typename F>
auto StatusFromExceptions(const char* where, F&& fn) noexcept -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(where, ": out of memory");
  } catch (const std::exception& e) {
    return Internal(where, ": uncaught exception: ", e.what());
  } catch (...) {
    return Internal(where, ": uncaught exception of unknown type");
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_CORE_EXCEPTION_BARRIER_H_
