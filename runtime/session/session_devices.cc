#include "runtime/session/session_devices.h"

#include "runtime/devices/device_factory.h"

namespace graphrt {

DeviceOptions DeviceOptionsFor(const SessionConfig& config) {
  DeviceOptions options;
  auto cpus = config.device_count.find(kDeviceCpu);
  if (cpus != config.device_count.end()) options.num_cpus = cpus->second;
  auto gpus = config.device_count.find(kDeviceGpu);
  if (gpus != config.device_count.end()) options.max_gpus = gpus->second;
  options.intra_op_threads = config.intra_op_parallelism_threads;
  options.opencl_devices = config.opencl_devices;
  options.visible_gpus = config.gpu_options.visible_device_list;
  options.gpu_allow_growth = config.gpu_options.allow_growth;
  options.gpu_memory_fraction = config.gpu_options.per_process_gpu_memory_fraction;
  return options;
}

std::vector<std::unique_ptr<Device>> CreateDevices(const SessionConfig& config) {
  return CreateDevices(DeviceOptionsFor(config));
}

}  // namespace graphrt
