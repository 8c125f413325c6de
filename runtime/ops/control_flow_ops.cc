// TensorFlow 1.x control flow: Switch/Merge for conditionals, Enter/Exit/NextIteration/LoopCond
// for while loops. The executor gives these their meaning (dead tensors, frames, iterations).
#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterControlFlowOps(OpRegistry* r) {
  r->Register(OpDefBuilder("Switch")
                  .Input("data: T")
                  .Input("pred: bool")
                  .Output("output_false: T")
                  .Output("output_true: T")
                  .Attr("T: type"));
  r->Register(OpDefBuilder("RefSwitch")
                  .Input("data: Ref(T)")
                  .Input("pred: bool")
                  .Output("output_false: Ref(T)")
                  .Output("output_true: Ref(T)")
                  .Attr("T: type")
                  .SetAllowsUninitializedInput());
  r->Register(OpDefBuilder("Merge")
                  .Input("inputs: N * T")
                  .Output("output: T")
                  .Output("value_index: int32")
                  .Attr("T: type")
                  .Attr("N: int >= 1"));
  r->Register(OpDefBuilder("RefMerge")
                  .Input("inputs: Ref(N * T)")
                  .Output("output: Ref(T)")
                  .Output("value_index: int32")
                  .Attr("T: type")
                  .Attr("N: int >= 1"));
  r->Register(OpDefBuilder("Enter")
                  .Input("data: T")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("frame_name: string")
                  .Attr("is_constant: bool = false")
                  .Attr("parallel_iterations: int = 10"));
  r->Register(OpDefBuilder("RefEnter")
                  .Input("data: Ref(T)")
                  .Output("output: Ref(T)")
                  .Attr("T: type")
                  .Attr("frame_name: string")
                  .Attr("is_constant: bool = false")
                  .Attr("parallel_iterations: int = 10"));
  r->Register(OpDefBuilder("Exit").Input("data: T").Output("output: T").Attr("T: type"));
  r->Register(
      OpDefBuilder("RefExit").Input("data: Ref(T)").Output("output: Ref(T)").Attr("T: type"));
  r->Register(OpDefBuilder("NextIteration").Input("data: T").Output("output: T").Attr("T: type"));
  r->Register(OpDefBuilder("RefNextIteration")
                  .Input("data: Ref(T)")
                  .Output("output: Ref(T)")
                  .Attr("T: type"));
  r->Register(OpDefBuilder("LoopCond").Input("input: bool").Output("output: bool"));
  r->Register(OpDefBuilder("ControlTrigger"));
}

}  // namespace graphrt
