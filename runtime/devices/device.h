// Devices: where kernels run. Every device has a full TensorFlow name
// ("/job:localhost/replica:0/task:0/device:CPU:0") and a type ("CPU", "GPU").
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <graphrt/device_attributes.h>

#include "runtime/core/types.h"

namespace Eigen {
struct ThreadPoolDevice;
class ThreadPoolInterface;
}  // namespace Eigen

namespace graphrt {

inline constexpr char kDeviceCpu[] = "CPU";
inline constexpr char kDeviceGpu[] = "GPU";

// What an accelerator counts for a traced Run's RunMetadata (graphrt_opencl_stats).
struct DeviceCounters {
  // This device's own, which are its session's: each session makes its own devices.
  int64_t host_to_device_copies = 0;
  int64_t device_to_host_copies = 0;
  int64_t kernel_launches = 0;
  // The backend's, process-wide: the same on each of its devices.
  int64_t program_cache_hits = 0;
  int64_t program_cache_misses = 0;
  int64_t live_bytes = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  const DeviceAttributes& attributes() const { return attributes_; }
  const std::string& name() const { return attributes_.name; }
  const std::string& device_type() const { return attributes_.device_type; }

  // The Eigen device that CPU kernels evaluate expressions on (intra-op parallelism).
  virtual const Eigen::ThreadPoolDevice* eigen_cpu_device() const { return nullptr; }
  virtual int intra_op_threads() const { return 1; }
  // Runs fn(begin, end) over [0, total) split into shards, on the intra-op pool.
  // cost_per_unit is a rough cycle count per element, deciding how finely to split.
  virtual void ParallelFor(int64_t total, int64_t cost_per_unit,
                           const std::function<void(int64_t, int64_t)>& fn) const {
    if (total > 0) fn(0, total);
  }

  // Whether a tensor of `dtype` that a kernel of this device produces lives in device memory
  // (then a copy node moves it to the host for a host-memory consumer).
  virtual bool HoldsInDeviceMemory(DataType dtype) const { return false; }
  // Gives back what the device keeps for its session (uploaded constants): Session::Close.
  virtual void ReleaseSessionResources() {}
  // Fills `counters` and returns true on devices that keep them (accelerators).
  virtual bool ReadCounters(DeviceCounters* counters) const { return false; }

 protected:
  explicit Device(DeviceAttributes attributes) : attributes_(std::move(attributes)) {}

 private:
  DeviceAttributes attributes_;
};

// The CPU device: Eigen with an intra-op thread pool of `num_threads` (0: one per core).
std::unique_ptr<Device> NewCpuDevice(int index, int num_threads);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_H_
