// The devices a DeviceOptions asks for: CPU:0..n-1 with their intra-op threads, then the GPUs of
// each accelerator backend built in (OpenCL when GRAPHRT_WITH_OPENCL) that exist and are allowed.
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_

#include <memory>
#include <vector>

#include "runtime/devices/device.h"
#include "runtime/devices/device_options.h"

namespace graphrt {

std::vector<std::unique_ptr<Device>> CreateDevices(const DeviceOptions& options);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_FACTORY_H_
