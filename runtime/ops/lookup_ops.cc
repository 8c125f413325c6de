// Lookup tables as SavedModels use them for vocabularies (tf.lookup / feature columns).
#include "runtime/ops/op_registry.h"

namespace graphrt {

void RegisterLookupOps(OpRegistry* r) {
  r->Register(OpDefBuilder("HashTableV2")
                  .Output("table_handle: resource")
                  .Attr("container: string = ''")
                  .Attr("shared_name: string = ''")
                  .Attr("use_node_name_sharing: bool = false")
                  .Attr("key_dtype: type")
                  .Attr("value_dtype: type")
                  .SetIsStateful());
  r->Register(OpDefBuilder("InitializeTableV2")
                  .Input("table_handle: resource")
                  .Input("keys: Tkey")
                  .Input("values: Tval")
                  .Attr("Tkey: type")
                  .Attr("Tval: type"));
  r->Register(OpDefBuilder("InitializeTableFromTextFileV2")
                  .Input("table_handle: resource")
                  .Input("filename: string")
                  .Attr("key_index: int >= -2")
                  .Attr("value_index: int >= -2")
                  .Attr("vocab_size: int >= -1 = -1")
                  .Attr("delimiter: string = '\t'")
                  .Attr("offset: int = 0"));
  r->Register(OpDefBuilder("LookupTableFindV2")
                  .Input("table_handle: resource")
                  .Input("keys: Tin")
                  .Input("default_value: Tout")
                  .Output("values: Tout")
                  .Attr("Tin: type")
                  .Attr("Tout: type"));
  r->Register(OpDefBuilder("LookupTableImportV2")
                  .Input("table_handle: resource")
                  .Input("keys: Tin")
                  .Input("values: Tout")
                  .Attr("Tin: type")
                  .Attr("Tout: type"));
  r->Register(
      OpDefBuilder("LookupTableSizeV2").Input("table_handle: resource").Output("size: int64"));
}

}  // namespace graphrt
