#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterSelectCompareKernels(KernelRegistry* r) {}

}  // namespace graphrt
