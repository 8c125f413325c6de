// The OpenCL backend announces itself to the runtime when it is loaded: its GPU devices join
// CreateDevices and its kernels join the registry. The runtime layer holds no reference to it, so
// a build without GRAPHRT_WITH_OPENCL simply leaves these files out.
#include "runtime/devices/device_factory.h"
#include "runtime/devices/opencl/opencl_device.h"
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {
namespace {

const bool kOpenClBackendRegistered = [] {
  RegisterDeviceBackend("OpenCL", NewOpenClDevices);
  RegisterKernelBackend(RegisterOpenClKernels);
  return true;
}();

}  // namespace
}  // namespace graphrt

// Referenced by name (-Wl,-u) when graphrt_static is linked, so that the linker keeps this file,
// whose only job is the registration above.
extern "C" bool graphrt_opencl_backend() { return graphrt::kOpenClBackendRegistered; }
