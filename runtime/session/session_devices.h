// A session configuration's devices: the DeviceOptions its fields give, and the devices made
// from them.
#ifndef GRAPHRT_RUNTIME_SESSION_SESSION_DEVICES_H_
#define GRAPHRT_RUNTIME_SESSION_SESSION_DEVICES_H_

#include <memory>
#include <vector>

#include "runtime/devices/device.h"
#include "runtime/devices/device_options.h"
#include "runtime/session/session_options.h"

namespace graphrt {

// device_count["CPU"] (default 1) and ["GPU"] (default all), intra_op_parallelism_threads,
// gpu_options and opencl_devices.
DeviceOptions DeviceOptionsFor(const SessionConfig& config);
std::vector<std::unique_ptr<Device>> CreateDevices(const SessionConfig& config);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_SESSION_SESSION_DEVICES_H_
