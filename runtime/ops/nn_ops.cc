#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterNnOps(OpRegistry* r) {}

}  // namespace graphrt
