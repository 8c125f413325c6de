#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterMathOps(OpRegistry* r) {}

}  // namespace graphrt
