#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterReductionKernels(KernelRegistry* r) {}

}  // namespace graphrt
