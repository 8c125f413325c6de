// Variables: reference variables (VariableV2, Assign*) and resource variables (VarHandleOp,
// ReadVariableOp, AssignVariableOp, ...).
#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterStateOps(OpRegistry* r) {
  for (const char* op : {"VariableV2", "Variable"}) {
    r->Register(OpDefBuilder(op)
                    .Output("ref: Ref(dtype)")
                    .Attr("shape: shape")
                    .Attr("dtype: type")
                    .Attr("container: string = ''")
                    .Attr("shared_name: string = ''")
                    .SetIsStateful());
  }
  r->Register(OpDefBuilder("Assign")
                  .Input("ref: Ref(T)")
                  .Input("value: T")
                  .Output("output_ref: Ref(T)")
                  .Attr("T: type")
                  .Attr("validate_shape: bool = true")
                  .Attr("use_locking: bool = true")
                  .SetAllowsUninitializedInput());
  for (const char* op : {"AssignAdd", "AssignSub"}) {
    r->Register(OpDefBuilder(op)
                    .Input("ref: Ref(T)")
                    .Input("value: T")
                    .Output("output_ref: Ref(T)")
                    .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
                          "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
                          "uint32, uint64}")
                    .Attr("use_locking: bool = false"));
  }
  r->Register(OpDefBuilder("IsVariableInitialized")
                  .Input("ref: Ref(dtype)")
                  .Output("is_initialized: bool")
                  .Attr("dtype: type")
                  .SetAllowsUninitializedInput());
  r->Register(OpDefBuilder("VarHandleOp")
                  .Output("resource: resource")
                  .Attr("container: string = ''")
                  .Attr("shared_name: string = ''")
                  .Attr("debug_name: string = ''")
                  .Attr("dtype: type")
                  .Attr("shape: shape")
                  .Attr("allowed_devices: list(string) = []")
                  .SetIsStateful());
  r->Register(OpDefBuilder("ReadVariableOp")
                  .Input("resource: resource")
                  .Output("value: dtype")
                  .Attr("dtype: type")
                  .SetIsStateful());
  r->Register(OpDefBuilder("AssignVariableOp")
                  .Input("resource: resource")
                  .Input("value: dtype")
                  .Attr("dtype: type")
                  .Attr("validate_shape: bool = false")
                  .SetIsStateful());
  for (const char* op : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    r->Register(OpDefBuilder(op)
                    .Input("resource: resource")
                    .Input("value: dtype")
                    .Attr("dtype: type")
                    .SetIsStateful());
  }
  r->Register(OpDefBuilder("VarIsInitializedOp")
                  .Input("resource: resource")
                  .Output("is_initialized: bool")
                  .SetIsStateful());
  r->Register(OpDefBuilder("DestroyResourceOp")
                  .Input("resource: resource")
                  .Attr("ignore_lookup_error: bool = true")
                  .SetIsStateful());
  r->Register(OpDefBuilder("VariableShape")
                  .Input("input: resource")
                  .Output("output: out_type")
                  .Attr("out_type: {int32, int64} = DT_INT32")
                  .SetIsStateful());
}

}  // namespace graphrt
