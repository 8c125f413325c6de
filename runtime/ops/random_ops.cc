#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterRandomOps(OpRegistry* r) {}

}  // namespace graphrt
