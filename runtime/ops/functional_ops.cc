// TF2 functional control flow and function calls: bodies live in the graph's function library.
#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterFunctionalOps(OpRegistry* r) {
  for (const char* op : {"If", "StatelessIf"}) {
    OpDefBuilder b(op);
    b.Input("cond: Tcond")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tcond: type")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("then_branch: func")
        .Attr("else_branch: func")
        .Attr("output_shapes: list(shape) = []");
    if (std::string(op) == "If") b.SetIsStateful();
    r->Register(b);
  }
  for (const char* op : {"While", "StatelessWhile"}) {
    OpDefBuilder b(op);
    b.Input("input: T")
        .Output("output: T")
        .Attr("T: list(type) >= 0")
        .Attr("cond: func")
        .Attr("body: func")
        .Attr("output_shapes: list(shape) = []")
        .Attr("parallel_iterations: int = 10");
    if (std::string(op) == "While") b.SetIsStateful();
    r->Register(b);
  }
  for (const char* op : {"Case", "StatelessCase"}) {
    OpDefBuilder b(op);
    b.Input("branch_index: int32")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("branches: list(func) >= 1")
        .Attr("output_shapes: list(shape) = []");
    if (std::string(op) == "Case") b.SetIsStateful();
    r->Register(b);
  }
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    OpDefBuilder b(op);
    b.Input("args: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("f: func")
        .Attr("config: string = ''")
        .Attr("config_proto: string = ''")
        .Attr("executor_type: string = ''");
    if (std::string(op) == "StatefulPartitionedCall") b.SetIsStateful();
    r->Register(b);
  }
}

}  // namespace graphrt
