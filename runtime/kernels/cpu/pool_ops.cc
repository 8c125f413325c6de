#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

void RegisterPoolKernels(KernelRegistry* r) {}

}  // namespace graphrt
