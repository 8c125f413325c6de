#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterCastKernels(KernelRegistry* r) {}

}  // namespace graphrt
