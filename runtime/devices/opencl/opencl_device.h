// graphrt's GPU device: one OpenCL device, "/job:localhost/replica:0/task:0/device:GPU:N".
//
// Memory types: on this device float32 tensors live in device memory (Tensor::in_device_memory);
// every other dtype stays in host memory, as TensorFlow keeps int32 in host memory on GPUs, so
// shapes, axes, indices, strings and resource handles never cross the bus. The session inserts
// the copies wherever an edge joins a device-memory tensor to a host-memory one
// (runtime/devices/device_copies.h).
#ifndef GRAPHRT_RUNTIME_DEVICES_OPENCL_OPENCL_DEVICE_H_
#define GRAPHRT_RUNTIME_DEVICES_OPENCL_OPENCL_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/devices/device.h"
#include "runtime/devices/opencl/opencl_allocator.h"
#include "runtime/devices/opencl/opencl_runtime.h"
#include "runtime/devices/device_options.h"

namespace graphrt {

// Whether a tensor of `dtype` on a device of `device_type` lives in device memory.
bool IsDeviceMemoryType(const std::string& device_type, DataType dtype);

class OpenClDevice : public Device {
 public:
  OpenClDevice(int index, OpenClContext* context, const DeviceOptions& options);

  OpenClContext* cl() const { return context_; }
  OpenClAllocator* allocator() const { return allocator_.get(); }

  // A device-memory tensor. RESOURCE_EXHAUSTED names the shape, the bytes and the device.
  StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape);
  // Scratch memory for a kernel.
  StatusOr<std::shared_ptr<DeviceBuffer>> AllocateScratch(size_t bytes);

  // Blocking copies; `host` must be a host-memory tensor.
  StatusOr<Tensor> CopyHostToDevice(const Tensor& host);
  StatusOr<Tensor> CopyDeviceToHost(const Tensor& device);
  // Waits for every command queued so far.
  Status Synchronize();

  // The device copy of a constant (a Const node's value), uploaded on the first call for `key`
  // and shared by every later one, so the plans of a session upload each weight once. The key
  // must identify the value (ConstOp uses the node's name, shape and a hash of its bytes).
  StatusOr<Tensor> UploadConstant(const std::string& key, const Tensor& host);
  // Drops the shared constants (Session::Close), giving their memory back.
  void ReleaseConstants();

  bool HoldsInDeviceMemory(DataType dtype) const override {
    return IsDeviceMemoryType(device_type(), dtype);
  }
  void ReleaseSessionResources() override { ReleaseConstants(); }
  bool ReadCounters(DeviceCounters* counters) const override;

  // This device's own share of the counters in opencl_stats.h (its session's, since each
  // session has its own OpenClDevice objects): for RunMetadata.
  struct Counts {
    int64_t host_to_device_copies = 0;
    int64_t device_to_host_copies = 0;
    int64_t kernel_launches = 0;
  };
  Counts counts() const { return Counts{h2d_.load(), d2h_.load(), launches_.load()}; }
  // Called by OpenClOpKernel for each kernel it enqueues.
  void CountLaunch() { launches_++; }

 private:
  OpenClContext* context_;
  std::unique_ptr<OpenClAllocator> allocator_;
  // Declared after allocator_, so destroyed before it.
  std::mutex constants_mu_;
  std::map<std::string, Tensor> constants_;
  std::atomic<int64_t> h2d_{0}, d2h_{0}, launches_{0};
};

// The OpenCL devices `options` allows, as GPU:0..n-1: of type GPU or ACCELERATOR, or of every
// type with options.opencl_devices == "all" (or, that field empty, GRAPHRT_OPENCL_DEVICES=all);
// "none" asks no OpenCL loader at all. options.visible_gpus picks and orders them, max_gpus caps
// them. With no OpenCL platform the list is empty and a note goes to
// stderr once per process.
std::vector<std::unique_ptr<Device>> NewOpenClDevices(const DeviceOptions& options);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DEVICES_OPENCL_OPENCL_DEVICE_H_
