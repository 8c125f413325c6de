#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterRandomKernels(KernelRegistry* r) {}

}  // namespace graphrt
