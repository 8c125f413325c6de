// Devices: where kernels run. Every device has a full TensorFlow name
// ("/job:localhost/replica:0/task:0/device:CPU:0") and a type ("CPU", "GPU").
#ifndef GRAPHRT_RUNTIME_DEVICES_DEVICE_H_
#define GRAPHRT_RUNTIME_DEVICES_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <graphrt/device_attributes.h>

namespace Eigen {
struct ThreadPoolDevice;
class ThreadPoolInterface;
}  // namespace Eigen

namespace graphrt {

inline constexpr char kDeviceCpu[] = "CPU";
inline constexpr char kDeviceGpu[] = "GPU";

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

 protected:
  explicit Device(DeviceAttributes attributes) : attributes_(std::move(attributes)) {}

 private:
  DeviceAttributes attributes_;
};

// The CPU device: Eigen with an intra-op thread pool of `num_threads` (0: one per core).
std::unique_ptr<Device> NewCpuDevice(int index, int num_threads);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_DEVICE_H_
