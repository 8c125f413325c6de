// Reading attrs of a NodeDef with type checks (errors name the node and the attr), and writing
// them.
#ifndef GRAPHRT_RUNTIME_CORE_ATTR_UTIL_H_
#define GRAPHRT_RUNTIME_CORE_ATTR_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "attr_value.pb.h"
#include "node_def.pb.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/core/tensor_shape.h"

namespace graphrt {

// Null when the attr is absent.
const ::tensorflow::AttrValue* FindAttr(const ::tensorflow::NodeDef& node, const std::string& name);

Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name, int64_t* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name, int32_t* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name, float* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name, bool* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name, std::string* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   ::tensorflow::DataType* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   PartialTensorShape* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name, Tensor* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   ::tensorflow::NameAttrList* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   std::vector<int64_t>* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   std::vector<int32_t>* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   std::vector<float>* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   std::vector<std::string>* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   std::vector<::tensorflow::DataType>* value);
Status GetNodeAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                   std::vector<PartialTensorShape>* value);

// As GetNodeAttr, but leaves *value unchanged and returns OK when the attr is absent.
template <typename T>
Status GetNodeAttrOr(const ::tensorflow::NodeDef& node, const std::string& name, T* value) {
  if (FindAttr(node, name) == nullptr) return Status::OK();
  return GetNodeAttr(node, name, value);
}

// Each setter replaces whatever `name` held. There is no double or size_t overload: such a value
// would convert ambiguously, so the caller says which kind it means.
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, int64_t value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, int32_t value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, float value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, bool value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, const std::string& value);
// A string literal would otherwise convert to bool, not to std::string.
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, const char* value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name,
                 ::tensorflow::DataType value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name,
                 const PartialTensorShape& value);
// Encoded as Tensor::AsProtoTensorContent (tensor_content for POD types).
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name, const Tensor& value);
// An empty vector still writes an (empty) list, as TensorFlow's writers do.
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name,
                 const std::vector<int64_t>& value);
void SetNodeAttr(::tensorflow::NodeDef* node, const std::string& name,
                 const std::vector<::tensorflow::DataType>& value);

// "{i: 3}", "[1, 2]", "float": for messages and `inspect`.
std::string AttrValueSummary(const ::tensorflow::AttrValue& value);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_CORE_ATTR_UTIL_H_
