// What OpenCL kernels share: the base class (device, program lookup, launches, outputs in
// device memory), the embedded programs (opencl_sources.cc) and shape helpers.
//
// A kernel looks up its cl_kernel objects when it is built, so a program that fails to compile
// fails the plan naming the node. Launches hold the device's launch mutex while setting
// arguments and enqueueing on its in-order queue; nothing waits for the device until a copy to
// the host does.
#ifndef GRAPHRT_RUNTIME_KERNELS_OPENCL_OPENCL_KERNEL_H_
#define GRAPHRT_RUNTIME_KERNELS_OPENCL_OPENCL_KERNEL_H_

#include <array>
#include <string>
#include <vector>

#include "runtime/devices/opencl/opencl_device.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/op_kernel.h"

namespace graphrt {

struct OpenClProgramSource {
  std::string name;
  std::string source;
};
const OpenClProgramSource& ElementwiseProgram();  // unary and binary (broadcasting) math
const OpenClProgramSource& ArrayProgram();        // strided gathers, padding, concat blocks
const OpenClProgramSource& NnProgram();           // im2col, depthwise, pooling, softmax, ...

// The most dims the shape arguments of the kernels carry.
inline constexpr int kMaxOpenClRank = 8;

// An int8 kernel argument from up to eight values (the rest zero).
cl_int8 IntVector(const std::vector<int64_t>& values);

// The buffer of a device-memory tensor.
inline cl_mem Mem(const Tensor& t) { return static_cast<cl_mem>(t.device_buffer()->handle()); }

// A cl_kernel released with its owner.
class ClKernel {
 public:
  ClKernel() = default;
  ~ClKernel();
  ClKernel(const ClKernel&) = delete;
  ClKernel& operator=(const ClKernel&) = delete;
  Status Load(OpenClContext* cl, const OpenClProgramSource& program, const std::string& name);
  cl_kernel get() const { return kernel_; }
  const std::string& name() const { return name_; }
  // The work-group size launches use: one size per kernel, so that drivers that compile per
  // work-group size (PoCL) compile each kernel once whatever the tensor sizes.
  size_t local_size() const { return local_size_; }

 private:
  cl_kernel kernel_ = nullptr;
  std::string name_;
  size_t local_size_ = 1;
};

class OpenClOpKernel : public OpKernel {
 public:
  explicit OpenClOpKernel(OpKernelConstruction* ctx);

 protected:
  OpenClDevice* device() const { return device_; }
  OpenClContext* cl() const { return device_->cl(); }

  // Allocates output `index` in device memory (at most 2^31 - 1 elements: the kernels index
  // with ints).
  Status AllocateOutput(OpKernelContext* ctx, int index, const TensorShape& shape, Tensor* out);
  // Checks that input `index` is a device-memory tensor at offset 0 of its buffer.
  Status CheckDeviceInput(OpKernelContext* ctx, int index) const;

  // out = in with its dims permuted (Transpose's perm), through the array program's
  // strided_gather kernel `gather`.
  Status Transpose(const ClKernel& gather, const Tensor& in, const std::vector<int>& perm,
                   Tensor* out) const;

  // Enqueues `kernel` over `global` work items with the given arguments.
  template <typename... Args>
  Status Launch(const ClKernel& kernel, size_t global, const Args&... args) const {
    if (global == 0) return Status::OK();
    std::lock_guard<std::mutex> lock(cl()->launch_mu());
    cl_uint index = 0;
    cl_int err = CL_SUCCESS;
    ((err = err == CL_SUCCESS ? clSetKernelArg(kernel.get(), index++, sizeof(Args), &args) : err),
     ...);
    if (err != CL_SUCCESS) return OpenClError(err, StrCat("clSetKernelArg of ", kernel.name()));
    return Enqueue(kernel, global);
  }

 private:
  // REQUIRES: launch_mu held.
  Status Enqueue(const ClKernel& kernel, size_t global) const;

  OpenClDevice* device_ = nullptr;
};

// Checks that a work size fits the kernels' int indexing.
Status CheckOpenClSize(int64_t n, const char* what);

// Every OpenCL kernel (opencl_backend.cc hands it to RegisterKernelBackend), and each family.
void RegisterOpenClKernels(KernelRegistry* r);
void RegisterOpenClPlumbingKernels(KernelRegistry* r);
void RegisterOpenClDeviceAgnosticKernels(KernelRegistry* r);
void RegisterOpenClCwiseKernels(KernelRegistry* r);
void RegisterOpenClMatMulConvKernels(KernelRegistry* r);
void RegisterOpenClNnKernels(KernelRegistry* r);
void RegisterOpenClArrayKernels(KernelRegistry* r);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_OPENCL_OPENCL_KERNEL_H_
