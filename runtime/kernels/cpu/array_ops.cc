#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterArrayKernels(KernelRegistry* r) {}

}  // namespace graphrt
