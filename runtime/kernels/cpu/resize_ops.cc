#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterResizeKernels(KernelRegistry* r) {}

}  // namespace graphrt
