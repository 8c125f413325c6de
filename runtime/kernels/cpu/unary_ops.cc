#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterUnaryKernels(KernelRegistry* r) {}

}  // namespace graphrt
