#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterArrayOps(OpRegistry* r) {}

}  // namespace graphrt
