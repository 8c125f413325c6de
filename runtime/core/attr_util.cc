#include "runtime/core/attr_util.h"

#include <limits>

namespace graphrt {

namespace {

using ::tensorflow::AttrValue;
using ::tensorflow::NodeDef;

Status Missing(const NodeDef& node, const std::string& name) {
  return NotFound("node '", node.name(), "' (", node.op(), ") has no attr '", name, "'");
}

Status WrongKind(const NodeDef& node, const std::string& name, const char* expected) {
  return InvalidArgument("attr '", name, "' of node '", node.name(), "' (", node.op(), ") is not ",
                         expected);
}

StatusOr<const AttrValue*> Lookup(const NodeDef& node, const std::string& name,
                                  AttrValue::ValueCase kind, const char* expected) {
  const AttrValue* attr = FindAttr(node, name);
  if (attr == nullptr) return Missing(node, name);
  if (attr->value_case() != kind) {
    // An empty list is stored with no value case by some writers.
    if (!(kind == AttrValue::kList && attr->value_case() == AttrValue::VALUE_NOT_SET)) {
      return WrongKind(node, name, expected);
    }
  }
  return attr;
}

// A type attr is an open proto3 enum: the bytes may hold any int32, which no kernel, shape
// function or dtype name expects.
Status CheckDataType(const NodeDef& node, const std::string& name, int value) {
  if (::tensorflow::DataType_IsValid(value)) return Status::OK();
  return InvalidArgument("attr '", name, "' of node '", node.name(), "' (", node.op(), ") holds ",
                         DataTypeString(static_cast<::tensorflow::DataType>(value)));
}

// The attr `name` of `node`, emptied.
AttrValue* ClearedAttr(NodeDef* node, const std::string& name) {
  AttrValue* attr = &(*node->mutable_attr())[name];
  attr->Clear();
  return attr;
}

}  // namespace

const AttrValue* FindAttr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, int64_t* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kI, "an int"));
  *value = attr->i();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, int32_t* value) {
  int64_t v;
  GRT_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("attr '", name, "' of node '", node.name(), "' is out of int32 range");
  }
  *value = static_cast<int32_t>(v);
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, float* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kF, "a float"));
  *value = attr->f();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, bool* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kB, "a bool"));
  *value = attr->b();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::string* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kS, "a string"));
  *value = attr->s();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, ::tensorflow::DataType* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kType, "a type"));
  GRT_RETURN_IF_ERROR(CheckDataType(node, name, attr->type()));
  *value = attr->type();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, PartialTensorShape* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kShape, "a shape"));
  *value = PartialTensorShape::FromProto(attr->shape());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, Tensor* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kTensor, "a tensor"));
  StatusOr<Tensor> t = Tensor::FromProto(attr->tensor());
  if (!t.ok()) {
    Status s = t.status();
    return s.Prepend(StrCat("attr '", name, "' of node '", node.name(), "'"));
  }
  *value = std::move(t).value();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name,
                   ::tensorflow::NameAttrList* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kFunc, "a function"));
  *value = attr->func();
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<int64_t>* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kList, "a list"));
  value->assign(attr->list().i().begin(), attr->list().i().end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<int32_t>* value) {
  std::vector<int64_t> v;
  GRT_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  value->assign(v.begin(), v.end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<float>* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kList, "a list"));
  value->assign(attr->list().f().begin(), attr->list().f().end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<std::string>* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kList, "a list"));
  value->assign(attr->list().s().begin(), attr->list().s().end());
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name,
                   std::vector<::tensorflow::DataType>* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kList, "a list"));
  value->clear();
  for (int t : attr->list().type()) {
    GRT_RETURN_IF_ERROR(CheckDataType(node, name, t));
    value->push_back(static_cast<::tensorflow::DataType>(t));
  }
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name,
                   std::vector<PartialTensorShape>* value) {
  GRT_ASSIGN_OR_RETURN(const AttrValue* attr, Lookup(node, name, AttrValue::kList, "a list"));
  value->clear();
  for (const auto& shape : attr->list().shape()) {
    value->push_back(PartialTensorShape::FromProto(shape));
  }
  return Status::OK();
}

void SetNodeAttr(NodeDef* node, const std::string& name, int64_t value) {
  ClearedAttr(node, name)->set_i(value);
}

void SetNodeAttr(NodeDef* node, const std::string& name, int32_t value) {
  SetNodeAttr(node, name, static_cast<int64_t>(value));
}

void SetNodeAttr(NodeDef* node, const std::string& name, float value) {
  ClearedAttr(node, name)->set_f(value);
}

void SetNodeAttr(NodeDef* node, const std::string& name, bool value) {
  ClearedAttr(node, name)->set_b(value);
}

void SetNodeAttr(NodeDef* node, const std::string& name, const std::string& value) {
  ClearedAttr(node, name)->set_s(value);
}

void SetNodeAttr(NodeDef* node, const std::string& name, const char* value) {
  ClearedAttr(node, name)->set_s(value);
}

void SetNodeAttr(NodeDef* node, const std::string& name, ::tensorflow::DataType value) {
  ClearedAttr(node, name)->set_type(value);
}

void SetNodeAttr(NodeDef* node, const std::string& name, const PartialTensorShape& value) {
  value.AsProto(ClearedAttr(node, name)->mutable_shape());
}

void SetNodeAttr(NodeDef* node, const std::string& name, const Tensor& value) {
  value.AsProtoTensorContent(ClearedAttr(node, name)->mutable_tensor());
}

void SetNodeAttr(NodeDef* node, const std::string& name, const std::vector<int64_t>& value) {
  auto* list = ClearedAttr(node, name)->mutable_list();
  for (int64_t v : value) list->add_i(v);
}

void SetNodeAttr(NodeDef* node, const std::string& name,
                 const std::vector<::tensorflow::DataType>& value) {
  auto* list = ClearedAttr(node, name)->mutable_list();
  for (::tensorflow::DataType t : value) list->add_type(t);
}

std::string AttrValueSummary(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS:
      return StrCat("\"", value.s(), "\"");
    case AttrValue::kI:
      return std::to_string(value.i());
    case AttrValue::kF:
      return FormatShortest(value.f(), true);
    case AttrValue::kB:
      return value.b() ? "true" : "false";
    case AttrValue::kType:
      return DataTypeString(value.type());
    case AttrValue::kShape:
      return PartialTensorShape::FromProto(value.shape()).DebugString();
    case AttrValue::kTensor: {
      StatusOr<Tensor> t = Tensor::FromProto(value.tensor());
      return t.ok() ? t->DebugString(4) : "<bad tensor>";
    }
    case AttrValue::kFunc:
      return StrCat("func ", value.func().name());
    case AttrValue::kPlaceholder:
      return StrCat("$", value.placeholder());
    case AttrValue::kList: {
      std::vector<std::string> items;
      const auto& l = value.list();
      for (const auto& s : l.s()) items.push_back(StrCat("\"", s, "\""));
      for (auto i : l.i()) items.push_back(std::to_string(i));
      for (auto f : l.f()) items.push_back(FormatShortest(f, true));
      for (auto b : l.b()) items.push_back(b ? "true" : "false");
      for (int t : l.type())
        items.push_back(DataTypeString(static_cast<::tensorflow::DataType>(t)));
      for (const auto& s : l.shape())
        items.push_back(PartialTensorShape::FromProto(s).DebugString());
      for (const auto& f : l.func()) items.push_back(f.name());
      return StrCat("[", StrJoin(items, ", "), "]");
    }
    default:
      return "<unset>";
  }
}

}  // namespace graphrt
