#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterBinaryKernels(KernelRegistry* r) {}

}  // namespace graphrt
