// The devices a DeviceOptions asks for: CPU:0..n-1 with their intra-op threads, then the devices
// of each accelerator backend linked in. A backend (runtime/kernels/opencl) registers itself when
// it is loaded, so that the runtime never calls into an optional component.
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/devices/device.h"
#include "runtime/devices/device_options.h"

namespace graphrt {

std::vector<std::unique_ptr<Device>> CreateDevices(const DeviceOptions& options);

// A backend's devices, appended after the CPUs in the order the backends registered.
using DeviceBackendFactory =
    std::function<std::vector<std::unique_ptr<Device>>(const DeviceOptions&)>;
void RegisterDeviceBackend(const std::string& name, DeviceBackendFactory factory);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_
