#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterConvKernels(KernelRegistry* r) {}

}  // namespace graphrt
