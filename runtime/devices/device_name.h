// Device names as TensorFlow writes them: "/job:localhost/replica:0/task:0/device:CPU:0",
// "/device:GPU:1", legacy "/gpu:0", partial ("/job:worker/task:1") and wildcard
// ("/device:GPU:*") specs.
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_NAME_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_NAME_H_

#include <string>

#include "runtime/core/status.h"

namespace graphrt {

struct ParsedDeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;     // upper case: "CPU", "GPU", "TPU", ...
  bool has_id = false;  // false for "*" or absent
  int id = 0;

  // "/job:localhost/replica:0/task:0/device:CPU:0" with the parts that are set.
  std::string ToString() const;
};

// An empty string parses to a spec with nothing set.
StatusOr<ParsedDeviceName> ParseDeviceName(const std::string& name);

// Whether `device` (a full name) satisfies every part `spec` sets.
bool DeviceMatchesSpec(const ParsedDeviceName& device, const ParsedDeviceName& spec);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_NAME_H_
