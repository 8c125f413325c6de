#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterShapeKernels(KernelRegistry* r) {}

}  // namespace graphrt
