// Reading attrs of a NodeDef with type checks. Errors name the node and the attr.
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

// "{i: 3}", "[1, 2]", "float": for messages and `inspect`.
std::string AttrValueSummary(const ::tensorflow::AttrValue& value);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_CORE_ATTR_UTIL_H_
