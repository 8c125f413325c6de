#include "runtime/core/types.h"

namespace graphrt {

namespace {
struct TypeInfo {
  DataType dtype;
  const char* name;
  int size;
};
constexpr TypeInfo kTypes[] = {
    {::tensorflow::DT_FLOAT, "float", 4},     {::tensorflow::DT_DOUBLE, "double", 8},
    {::tensorflow::DT_INT32, "int32", 4},     {::tensorflow::DT_UINT8, "uint8", 1},
    {::tensorflow::DT_INT16, "int16", 2},     {::tensorflow::DT_INT8, "int8", 1},
    {::tensorflow::DT_STRING, "string", 0},   {::tensorflow::DT_COMPLEX64, "complex64", 8},
    {::tensorflow::DT_INT64, "int64", 8},     {::tensorflow::DT_BOOL, "bool", 1},
    {::tensorflow::DT_QINT8, "qint8", 1},     {::tensorflow::DT_QUINT8, "quint8", 1},
    {::tensorflow::DT_QINT32, "qint32", 4},   {::tensorflow::DT_BFLOAT16, "bfloat16", 2},
    {::tensorflow::DT_QINT16, "qint16", 2},   {::tensorflow::DT_QUINT16, "quint16", 2},
    {::tensorflow::DT_UINT16, "uint16", 2},   {::tensorflow::DT_COMPLEX128, "complex128", 16},
    {::tensorflow::DT_HALF, "half", 2},       {::tensorflow::DT_RESOURCE, "resource", 0},
    {::tensorflow::DT_VARIANT, "variant", 0}, {::tensorflow::DT_UINT32, "uint32", 4},
    {::tensorflow::DT_UINT64, "uint64", 8},
};

const TypeInfo* Find(DataType dtype) {
  for (const TypeInfo& info : kTypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}
}  // namespace

// Reference types are the base types plus 100 (DT_FLOAT_REF = 101 ...). A value past that range
// (a hostile 2000000000 in a NodeDef) is an unknown type, not a reference to one.
constexpr int kRefOffset = 100;

bool IsRefType(DataType dtype) {
  const int value = static_cast<int>(dtype);
  return value > kRefOffset && value < 2 * kRefOffset;
}

DataType BaseType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(static_cast<int>(dtype) - kRefOffset) : dtype;
}

DataType MakeRefType(DataType dtype) {
  const int value = static_cast<int>(dtype);
  if (value <= 0 || value >= kRefOffset) return dtype;  // already a reference, or no base type
  return static_cast<DataType>(static_cast<int>(dtype) + kRefOffset);
}

std::string DataTypeString(DataType dtype) {
  const TypeInfo* info = Find(BaseType(dtype));
  if (info == nullptr) return StrCat("unknown dtype enum (", static_cast<int>(dtype), ")");
  return IsRefType(dtype) ? StrCat(info->name, "_ref") : std::string(info->name);
}

bool DataTypeFromString(const std::string& name, DataType* dtype) {
  std::string base = name;
  bool ref = EndsWith(base, "_ref");
  if (ref) base.resize(base.size() - 4);
  if (base == "float32") base = "float";
  if (base == "float64") base = "double";
  if (base == "float16") base = "half";
  for (const TypeInfo& info : kTypes) {
    if (base == info.name) {
      *dtype = ref ? MakeRefType(info.dtype) : info.dtype;
      return true;
    }
  }
  return false;
}

int DataTypeSize(DataType dtype) {
  const TypeInfo* info = Find(BaseType(dtype));
  return info == nullptr ? 0 : info->size;
}

bool IsFloatingType(DataType dtype) {
  switch (BaseType(dtype)) {
    case ::tensorflow::DT_FLOAT:
    case ::tensorflow::DT_DOUBLE:
    case ::tensorflow::DT_HALF:
    case ::tensorflow::DT_BFLOAT16:
      return true;
    default:
      return false;
  }
}

bool IsIntegerType(DataType dtype) {
  switch (BaseType(dtype)) {
    case ::tensorflow::DT_INT8:
    case ::tensorflow::DT_INT16:
    case ::tensorflow::DT_INT32:
    case ::tensorflow::DT_INT64:
    case ::tensorflow::DT_UINT8:
    case ::tensorflow::DT_UINT16:
    case ::tensorflow::DT_UINT32:
    case ::tensorflow::DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool IsPodType(DataType dtype) {
  DataType base = BaseType(dtype);
  return base != ::tensorflow::DT_STRING && base != ::tensorflow::DT_RESOURCE &&
         base != ::tensorflow::DT_VARIANT && DataTypeSize(base) > 0;
}

}  // namespace graphrt
