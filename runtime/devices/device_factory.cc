#include "runtime/devices/device_factory.h"

#include <algorithm>

#include "graphrt_build_config.h"
#if GRAPHRT_WITH_OPENCL
#include "runtime/devices/opencl/opencl_device.h"
#endif

namespace graphrt {

std::vector<std::unique_ptr<Device>> CreateDevices(const DeviceOptions& options) {
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < std::max(1, options.num_cpus); ++i) {
    devices.push_back(NewCpuDevice(i, options.intra_op_threads));
  }
#if GRAPHRT_WITH_OPENCL
  for (auto& gpu : NewOpenClDevices(options)) devices.push_back(std::move(gpu));
#endif
  return devices;
}

}  // namespace graphrt
