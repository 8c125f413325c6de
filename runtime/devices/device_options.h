// What the devices of a session are made from: the device-level part of a session's
// configuration (runtime/session/session_devices.h derives it from a SessionConfig), so that
// devices depend on nothing above them.
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_OPTIONS_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_OPTIONS_H_

#include <string>

namespace graphrt {

struct DeviceOptions {
  int num_cpus = 1;
  // Intra-op threads of each CPU device; 0: one per core.
  int intra_op_threads = 0;
  // The most GPUs to create; negative: every one there is.
  int max_gpus = -1;
  // Which OpenCL devices become GPUs: "" (type GPU or ACCELERATOR), "all" (CPU-type ones such as
  // PoCL's too) or "none" (no OpenCL discovery at all). Empty: GRAPHRT_OPENCL_DEVICES decides.
  std::string opencl_devices;
  // Comma-separated ids of the GPUs to use, in the order they become GPU:0, 1, ...; "": all.
  std::string visible_gpus;
  bool gpu_allow_growth = false;
  // The share of each GPU's memory to use; 0: the backend's default.
  double gpu_memory_fraction = 0;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_OPTIONS_H_
