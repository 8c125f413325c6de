#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterActivationKernels(KernelRegistry* r) {}

}  // namespace graphrt
