// The devices a session configuration asks for: CPU:0..n-1 (device_count["CPU"], default 1)
// with the intra-op threads of the config, and the GPUs that exist and are allowed.
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_

#include <memory>
#include <vector>

#include "runtime/devices/device.h"
#include "runtime/session/session_options.h"

namespace graphrt {

std::vector<std::unique_ptr<Device>> CreateDevices(const SessionConfig& config);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_
