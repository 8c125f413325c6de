// GPU registrations of the CPU kernels that never read tensor data: they hand tensors on
// (Placeholder, Identity, variables), give them a new shape over the same buffer (Reshape,
// Squeeze, ExpandDims) or read only their shapes (Shape, Size, Rank). The same kernel objects
// serve device memory, so a GPU tensor is neither copied to the host to be reshaped nor to be
// measured. Numeric types only: strings have no GPU kernels.
#include "runtime/kernels/opencl/opencl_kernel.h"

namespace graphrt {

namespace {

std::vector<DataType> GpuTypes() {
  std::vector<DataType> types = RealNumberTypes();
  types.push_back(::tensorflow::DT_BOOL);
  return types;
}

// Registers (`builder`, the CPU kernel of the same op) for GPU devices.
void Reuse(KernelRegistry* r, KernelDefBuilder builder) {
  const std::string op = builder.Build().op;
  KernelFactory cpu = r->FactoryOf(op, kDeviceCpu);
  if (cpu == nullptr) return;  // a CPU kernel missing from the table: the GPU goes without it
  r->Register(builder.Device(kDeviceGpu), std::move(cpu));
}

}  // namespace

void RegisterOpenClDeviceAgnosticKernels(KernelRegistry* r) {
  const std::vector<DataType> types = GpuTypes();
  const std::vector<DataType> int_types = {::tensorflow::DT_INT32, ::tensorflow::DT_INT64};
  for (const char* op : {"Placeholder", "PlaceholderV2"}) {
    Reuse(r, KernelDefBuilder(op).TypeConstraint("dtype", types));
  }
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    Reuse(r, KernelDefBuilder(op).TypeConstraint("T", types));
  }
  Reuse(r, KernelDefBuilder("NoOp"));

  Reuse(r, KernelDefBuilder("Reshape")
               .TypeConstraint("T", RealNumberTypes())
               .TypeConstraint("Tshape", int_types)
               .HostMemory("shape"));
  Reuse(r, KernelDefBuilder("Squeeze").TypeConstraint("T", RealNumberTypes()));
  Reuse(r, KernelDefBuilder("ExpandDims")
               .TypeConstraint("T", RealNumberTypes())
               .TypeConstraint("Tdim", int_types)
               .HostMemory("dim"));
  for (const char* op : {"Shape", "ShapeN", "Size"}) {
    Reuse(r, KernelDefBuilder(op).TypeConstraint("out_type", int_types).HostMemory("output"));
  }
  Reuse(r, KernelDefBuilder("Rank").HostMemory("output"));

  // A variable pinned to a GPU keeps its value in device memory. (Assign, which copies the
  // value, has its own OpenCL kernel in plumbing_ops.cc.)
  for (const char* op :
       {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "AssignVariableOp"}) {
    Reuse(r, KernelDefBuilder(op).TypeConstraint("dtype", types));
  }
}

}  // namespace graphrt
