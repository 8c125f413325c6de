#include "runtime/devices/opencl/opencl_device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "runtime/core/str_util.h"
#include "runtime/devices/opencl/opencl_stats.h"

namespace graphrt {

bool IsDeviceMemoryType(const std::string& device_type, DataType dtype) {
  return device_type == kDeviceGpu && BaseType(dtype) == ::tensorflow::DT_FLOAT;
}

namespace {

constexpr double kDefaultMemoryFraction = 0.9;

int64_t MemoryLimit(const OpenClDeviceInfo& info, const DeviceOptions& options) {
  double fraction =
      options.gpu_memory_fraction > 0 ? options.gpu_memory_fraction : kDefaultMemoryFraction;
  return static_cast<int64_t>(static_cast<double>(info.global_mem_bytes) * fraction);
}

DeviceAttributes Attributes(int index, const OpenClContext& ctx, const DeviceOptions& options) {
  const OpenClDeviceInfo& info = ctx.info();
  DeviceAttributes a;
  a.name = StrCat("/job:localhost/replica:0/task:0/device:GPU:", index);
  a.device_type = kDeviceGpu;
  a.memory_limit = MemoryLimit(info, options);
  a.incarnation = 0x51ed270b27a9c5a1ULL + static_cast<uint64_t>(index);
  a.physical_device_desc =
      StrCat("device: ", index, ", name: ", info.name, ", vendor: ", info.vendor,
             ", platform: ", info.platform_name, ", driver version: ", info.driver_version,
             ", version: ", info.device_version);
  return a;
}

}  // namespace

OpenClDevice::OpenClDevice(int index, OpenClContext* context, const DeviceOptions& options)
    : Device(Attributes(index, *context, options)),
      context_(context),
      allocator_(std::make_unique<OpenClAllocator>(context, attributes().name,
                                                   MemoryLimit(context->info(), options),
                                                   options.gpu_allow_growth)) {}

StatusOr<Tensor> OpenClDevice::AllocateTensor(DataType dtype, const TensorShape& shape) {
  size_t bytes = static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype);
  StatusOr<std::shared_ptr<DeviceBuffer>> buffer = allocator_->Allocate(bytes);
  if (!buffer.ok()) {
    return Status(buffer.status().code(),
                  StrCat("cannot allocate a ", DataTypeString(dtype), " tensor of shape ",
                         shape.DebugString(), " (", bytes, " bytes): ", buffer.status().message()));
  }
  return Tensor::InDeviceMemory(dtype, shape, std::move(buffer).value());
}

StatusOr<std::shared_ptr<DeviceBuffer>> OpenClDevice::AllocateScratch(size_t bytes) {
  return allocator_->Allocate(bytes);
}

StatusOr<Tensor> OpenClDevice::CopyHostToDevice(const Tensor& host) {
  if (host.in_device_memory()) return Internal("CopyHostToDevice of a device-memory tensor");
  GRT_ASSIGN_OR_RETURN(Tensor out, AllocateTensor(host.dtype(), host.shape()));
  size_t bytes = host.TotalBytes();
  if (bytes > 0) {
    std::lock_guard<std::mutex> lock(context_->launch_mu());
    cl_int err =
        clEnqueueWriteBuffer(context_->queue(), static_cast<cl_mem>(out.device_buffer()->handle()),
                             CL_TRUE, 0, bytes, host.raw_data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return OpenClError(err, "clEnqueueWriteBuffer (host to device)");
  }
  opencl_stats::AddHostToDeviceCopy();
  h2d_++;
  return out;
}

StatusOr<Tensor> OpenClDevice::CopyDeviceToHost(const Tensor& device) {
  if (!device.in_device_memory()) return Internal("CopyDeviceToHost of a host-memory tensor");
  GRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(device.dtype(), device.shape()));
  size_t bytes = out.TotalBytes();
  if (bytes > 0) {
    std::lock_guard<std::mutex> lock(context_->launch_mu());
    cl_int err = clEnqueueReadBuffer(
        context_->queue(), static_cast<cl_mem>(device.device_buffer()->handle()), CL_TRUE,
        device.device_offset(), bytes, out.raw_data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return OpenClError(err, "clEnqueueReadBuffer (device to host)");
  }
  opencl_stats::AddDeviceToHostCopy();
  d2h_++;
  return out;
}

StatusOr<Tensor> OpenClDevice::UploadConstant(const std::string& key, const Tensor& host) {
  std::lock_guard<std::mutex> lock(constants_mu_);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  GRT_ASSIGN_OR_RETURN(Tensor uploaded, CopyHostToDevice(host));
  constants_.emplace(key, uploaded);
  return uploaded;
}

void OpenClDevice::ReleaseConstants() {
  std::lock_guard<std::mutex> lock(constants_mu_);
  constants_.clear();
}

bool OpenClDevice::ReadCounters(DeviceCounters* counters) const {
  const Counts own = counts();
  const OpenClStats process = GetOpenClStats();
  counters->host_to_device_copies = own.host_to_device_copies;
  counters->device_to_host_copies = own.device_to_host_copies;
  counters->kernel_launches = own.kernel_launches;
  counters->program_cache_hits = process.program_cache_hits;
  counters->program_cache_misses = process.program_cache_misses;
  counters->live_bytes = process.live_bytes;
  return true;
}

Status OpenClDevice::Synchronize() {
  cl_int err = clFinish(context_->queue());
  if (err != CL_SUCCESS) return OpenClError(err, "clFinish");
  return Status::OK();
}

std::vector<std::unique_ptr<Device>> NewOpenClDevices(const DeviceOptions& options) {
  std::vector<std::unique_ptr<Device>> devices;
  const int max_gpus = options.max_gpus;
  if (max_gpus == 0) return devices;
  const char* env = std::getenv("GRAPHRT_OPENCL_DEVICES");
  std::string mode =
      options.opencl_devices.empty() && env != nullptr ? env : options.opencl_devices;
  if (mode == "none") return devices;  // not even asking the loader
  bool include_cpu = mode == "all";
  std::string note;
  std::vector<OpenClDeviceInfo> found = DiscoverOpenClDevices(include_cpu, &note);
  if (found.empty()) {
    // A machine without OpenCL (no platform, no ICD, a failing driver) runs on its CPUs; say
    // so once. Only CPU-type devices is an ordinary configuration and needs no note.
    if (!StartsWith(note, "only CPU-type")) {
      static std::once_flag once;
      std::call_once(once, [&note]() {
        std::fprintf(stderr, "graphrt: note: no OpenCL GPU devices: %s\n", note.c_str());
      });
    }
    return devices;
  }
  std::vector<int> order;
  if (!options.visible_gpus.empty()) {
    for (const std::string& part : StrSplit(options.visible_gpus, ',')) {
      int id = std::atoi(part.c_str());
      if (id >= 0 && id < static_cast<int>(found.size()) &&
          std::find(order.begin(), order.end(), id) == order.end()) {
        order.push_back(id);
      }
    }
  } else {
    for (int i = 0; i < static_cast<int>(found.size()); ++i) order.push_back(i);
  }
  for (int id : order) {
    if (max_gpus >= 0 && static_cast<int>(devices.size()) >= max_gpus) break;
    StatusOr<OpenClContext*> ctx = OpenClContext::ForDevice(found[id]);
    if (!ctx.ok()) {
      std::fprintf(stderr, "graphrt: note: OpenCL device %s left out: %s\n", found[id].name.c_str(),
                   ctx.status().ToString().c_str());
      continue;
    }
    devices.push_back(
        std::make_unique<OpenClDevice>(static_cast<int>(devices.size()), *ctx, options));
  }
  return devices;
}

}  // namespace graphrt
