// TensorArrays (V3, resource handles; tf.TensorArray in TF1 graphs), TensorLists (variants; TF2
// graphs), Assert, and ReverseSequence, which dynamic RNNs use.
#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterDataFlowOps(OpRegistry* r) {
  r->Register(OpDefBuilder("TensorArrayV3")
                  .Input("size: int32")
                  .Output("handle: resource")
                  .Output("flow: float")
                  .Attr("dtype: type")
                  .Attr("element_shape: shape = { unknown_rank: true }")
                  .Attr("dynamic_size: bool = false")
                  .Attr("clear_after_read: bool = true")
                  .Attr("identical_element_shapes: bool = false")
                  .Attr("tensor_array_name: string = ''")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArrayWriteV3")
                  .Input("handle: resource")
                  .Input("index: int32")
                  .Input("value: T")
                  .Input("flow_in: float")
                  .Output("flow_out: float")
                  .Attr("T: type")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArrayReadV3")
                  .Input("handle: resource")
                  .Input("index: int32")
                  .Input("flow_in: float")
                  .Output("value: dtype")
                  .Attr("dtype: type")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArrayGatherV3")
                  .Input("handle: resource")
                  .Input("indices: int32")
                  .Input("flow_in: float")
                  .Output("value: dtype")
                  .Attr("dtype: type")
                  .Attr("element_shape: shape = { unknown_rank: true }")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArrayScatterV3")
                  .Input("handle: resource")
                  .Input("indices: int32")
                  .Input("value: T")
                  .Input("flow_in: float")
                  .Output("flow_out: float")
                  .Attr("T: type")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArrayConcatV3")
                  .Input("handle: resource")
                  .Input("flow_in: float")
                  .Output("value: dtype")
                  .Output("lengths: int64")
                  .Attr("dtype: type")
                  .Attr("element_shape_except0: shape = { unknown_rank: true }")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArraySplitV3")
                  .Input("handle: resource")
                  .Input("value: T")
                  .Input("lengths: int64")
                  .Input("flow_in: float")
                  .Output("flow_out: float")
                  .Attr("T: type")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArraySizeV3")
                  .Input("handle: resource")
                  .Input("flow_in: float")
                  .Output("size: int32")
                  .SetIsStateful());
  r->Register(OpDefBuilder("TensorArrayCloseV3").Input("handle: resource").SetIsStateful());

  r->Register(OpDefBuilder("TensorListReserve")
                  .Input("element_shape: shape_type")
                  .Input("num_elements: int32")
                  .Output("handle: variant")
                  .Attr("element_dtype: type")
                  .Attr("shape_type: {int32, int64}"));
  r->Register(OpDefBuilder("EmptyTensorList")
                  .Input("element_shape: shape_type")
                  .Input("max_num_elements: int32")
                  .Output("handle: variant")
                  .Attr("element_dtype: type")
                  .Attr("shape_type: {int32, int64}"));
  r->Register(OpDefBuilder("TensorListFromTensor")
                  .Input("tensor: element_dtype")
                  .Input("element_shape: shape_type")
                  .Output("output_handle: variant")
                  .Attr("element_dtype: type")
                  .Attr("shape_type: {int32, int64}"));
  r->Register(OpDefBuilder("TensorListSetItem")
                  .Input("input_handle: variant")
                  .Input("index: int32")
                  .Input("item: element_dtype")
                  .Output("output_handle: variant")
                  .Attr("element_dtype: type")
                  .Attr("resize_if_index_out_of_bounds: bool = false"));
  r->Register(OpDefBuilder("TensorListGetItem")
                  .Input("input_handle: variant")
                  .Input("index: int32")
                  .Input("element_shape: int32")
                  .Output("item: element_dtype")
                  .Attr("element_dtype: type"));
  r->Register(OpDefBuilder("TensorListStack")
                  .Input("input_handle: variant")
                  .Input("element_shape: int32")
                  .Output("tensor: element_dtype")
                  .Attr("element_dtype: type")
                  .Attr("num_elements: int = -1"));
  r->Register(OpDefBuilder("TensorListGather")
                  .Input("input_handle: variant")
                  .Input("indices: int32")
                  .Input("element_shape: int32")
                  .Output("values: element_dtype")
                  .Attr("element_dtype: type"));
  r->Register(OpDefBuilder("TensorListPushBack")
                  .Input("input_handle: variant")
                  .Input("tensor: element_dtype")
                  .Output("output_handle: variant")
                  .Attr("element_dtype: type"));
  r->Register(OpDefBuilder("TensorListPopBack")
                  .Input("input_handle: variant")
                  .Input("element_shape: int32")
                  .Output("output_handle: variant")
                  .Output("tensor: element_dtype")
                  .Attr("element_dtype: type"));
  r->Register(OpDefBuilder("TensorListElementShape")
                  .Input("input_handle: variant")
                  .Output("element_shape: shape_type")
                  .Attr("shape_type: {int32, int64}"));
  r->Register(
      OpDefBuilder("TensorListLength").Input("input_handle: variant").Output("length: int32"));

  r->Register(OpDefBuilder("Assert")
                  .Input("condition: bool")
                  .Input("data: T")
                  .Attr("T: list(type) >= 1")
                  .Attr("summarize: int = 3")
                  .SetIsStateful());
  r->Register(OpDefBuilder("ReverseSequence")
                  .Input("input: T")
                  .Input("seq_lengths: Tlen")
                  .Output("output: T")
                  .Attr("seq_dim: int")
                  .Attr("batch_dim: int = 0")
                  .Attr("T: type")
                  .Attr("Tlen: {int32, int64} = DT_INT64")
                  .SetShapeFn(UnchangedShape));
}

}  // namespace graphrt
