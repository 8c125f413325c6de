// The clock that deadlines (RunOptions.timeout_in_ms, operation_timeout_in_ms) are measured on.
#ifndef GRAPHRT_RUNTIME_CORE_CLOCK_H_
#define GRAPHRT_RUNTIME_CORE_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace graphrt {

// Microseconds of the steady clock: the base of every *_deadline_micros.
inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_CORE_CLOCK_H_
