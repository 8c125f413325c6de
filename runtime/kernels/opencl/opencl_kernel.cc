#include "runtime/kernels/opencl/opencl_kernel.h"

#include <algorithm>

#include "runtime/devices/opencl/opencl_stats.h"

namespace graphrt {

cl_int8 IntVector(const std::vector<int64_t>& values) {
  cl_int8 v;
  for (int i = 0; i < kMaxOpenClRank; ++i) {
    v.s[i] = i < static_cast<int>(values.size()) ? static_cast<cl_int>(values[i]) : 0;
  }
  return v;
}

ClKernel::~ClKernel() {
  if (kernel_ != nullptr) clReleaseKernel(kernel_);
}

Status ClKernel::Load(OpenClContext* cl, const OpenClProgramSource& program,
                      const std::string& name) {
  GRT_ASSIGN_OR_RETURN(cl_program built, cl->Program(program.name, program.source));
  cl_int err = CL_SUCCESS;
  kernel_ = clCreateKernel(built, name.c_str(), &err);
  if (err != CL_SUCCESS) {
    kernel_ = nullptr;
    return OpenClError(err, StrCat("clCreateKernel of ", name, " from program ", program.name));
  }
  name_ = name;
  size_t max_size = 1;
  clGetKernelWorkGroupInfo(kernel_, cl->info().id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(max_size),
                           &max_size, nullptr);
  local_size_ = 1;
  while (local_size_ * 2 <= std::min<size_t>(max_size, 64)) local_size_ *= 2;
  return Status::OK();
}

OpenClOpKernel::OpenClOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
  device_ = dynamic_cast<OpenClDevice*>(ctx->device());
  if (device_ == nullptr) ctx->SetStatus(Internal("an OpenCL kernel on a device that is not one"));
}

Status OpenClOpKernel::AllocateOutput(OpKernelContext* ctx, int index, const TensorShape& shape,
                                      Tensor* out) {
  GRT_RETURN_IF_ERROR(CheckOpenClSize(shape.num_elements(), "the output"));
  GRT_ASSIGN_OR_RETURN(*out, device_->AllocateTensor(ctx->output_type(index), shape));
  ctx->set_output(index, *out);
  return Status::OK();
}

Status OpenClOpKernel::CheckDeviceInput(OpKernelContext* ctx, int index) const {
  const Tensor& t = ctx->input(index);
  if (!t.in_device_memory() || t.device_offset() != 0) {
    return Internal("input ", index, " is not a tensor in ", device_->name(), "'s memory");
  }
  return Status::OK();
}

Status CheckOpenClSize(int64_t n, const char* what) {
  if (n > 0x7fffffff) {
    return Unimplemented("the OpenCL kernels index with 32-bit ints; ", what, " has ", n,
                         " elements");
  }
  return Status::OK();
}

Status OpenClOpKernel::Transpose(const ClKernel& gather, const Tensor& in,
                                 const std::vector<int>& perm, Tensor* out) const {
  const int rank = in.dims();
  if (rank > kMaxOpenClRank) {
    return Unimplemented("OpenCL transposes of more than ", kMaxOpenClRank, " dims");
  }
  std::vector<int64_t> in_strides(rank), dims(rank), strides(rank);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_strides[d] = stride;
    stride *= in.dim_size(d);
  }
  for (int d = 0; d < rank; ++d) {
    dims[d] = in.dim_size(perm[d]);
    strides[d] = in_strides[perm[d]];
  }
  GRT_ASSIGN_OR_RETURN(*out, device_->AllocateTensor(in.dtype(), TensorShape(dims)));
  GRT_RETURN_IF_ERROR(CheckOpenClSize(in.NumElements(), "the transposed tensor"));
  cl_int n = static_cast<cl_int>(in.NumElements());
  return Launch(gather, n, Mem(in), Mem(*out), n, static_cast<cl_int>(rank), IntVector(dims),
                IntVector(strides), cl_int{0});
}

Status OpenClOpKernel::Enqueue(const ClKernel& kernel, size_t global) const {
  cl_int err = InjectedLaunchError(kernel.name());
  if (err == CL_SUCCESS) {
    size_t local = kernel.local_size();
    size_t rounded = (global + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(cl()->queue(), kernel.get(), 1, nullptr, &rounded, &local, 0,
                                 nullptr, nullptr);
  }
  if (err != CL_SUCCESS) {
    return OpenClError(
        err, StrCat("clEnqueueNDRangeKernel of ", kernel.name(), " on ", device_->name()));
  }
  opencl_stats::AddKernelLaunch();
  device_->CountLaunch();
  return Status::OK();
}

void RegisterOpenClKernels(KernelRegistry* r) {
  RegisterOpenClPlumbingKernels(r);
  RegisterOpenClDeviceAgnosticKernels(r);
  RegisterOpenClCwiseKernels(r);
  RegisterOpenClMatMulConvKernels(r);
  RegisterOpenClNnKernels(r);
  RegisterOpenClArrayKernels(r);
}

}  // namespace graphrt
