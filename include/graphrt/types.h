// Element types. graphrt uses TensorFlow's DataType enum (proto/types.proto) directly, so the
// numbers in GraphDefs and checkpoints need no translation.
#ifndef GRAPHRT_TYPES_H_
#define GRAPHRT_TYPES_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <graphrt/export.h>
#include <graphrt/status.h>

#include "types.pb.h"

namespace graphrt {

using DataType = ::tensorflow::DataType;
using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

class ResourceHandle;
class Variant;

// "float", "int32", "bfloat16": TensorFlow's names (DataTypeString).
GRAPHRT_EXPORT std::string DataTypeString(DataType dtype);
// Inverse of DataTypeString; also accepts "float32", "float64", "half" and "bool".
GRAPHRT_EXPORT bool DataTypeFromString(const std::string& name, DataType* dtype);
// Bytes per element; 0 for types without a fixed size (string, resource, variant).
GRAPHRT_EXPORT int DataTypeSize(DataType dtype);
GRAPHRT_EXPORT bool IsRefType(DataType dtype);
GRAPHRT_EXPORT DataType BaseType(DataType dtype);
GRAPHRT_EXPORT DataType MakeRefType(DataType dtype);
GRAPHRT_EXPORT bool IsFloatingType(DataType dtype);  // half, bfloat16, float, double
GRAPHRT_EXPORT bool IsIntegerType(DataType dtype);   // signed and unsigned
// Whether the element is a plain value that memcpy may move.
GRAPHRT_EXPORT bool IsPodType(DataType dtype);

template <typename T>
struct DataTypeToEnum;
#define GRT_MATCH_TYPE_AND_ENUM_(TYPE, ENUM)              \
  template <>                                             \
  struct DataTypeToEnum<TYPE> {                           \
    static constexpr DataType value = ::tensorflow::ENUM; \
  }
GRT_MATCH_TYPE_AND_ENUM_(float, DT_FLOAT);
GRT_MATCH_TYPE_AND_ENUM_(double, DT_DOUBLE);
GRT_MATCH_TYPE_AND_ENUM_(int32_t, DT_INT32);
GRT_MATCH_TYPE_AND_ENUM_(uint32_t, DT_UINT32);
GRT_MATCH_TYPE_AND_ENUM_(uint16_t, DT_UINT16);
GRT_MATCH_TYPE_AND_ENUM_(uint8_t, DT_UINT8);
GRT_MATCH_TYPE_AND_ENUM_(int16_t, DT_INT16);
GRT_MATCH_TYPE_AND_ENUM_(int8_t, DT_INT8);
GRT_MATCH_TYPE_AND_ENUM_(std::string, DT_STRING);
GRT_MATCH_TYPE_AND_ENUM_(int64_t, DT_INT64);
GRT_MATCH_TYPE_AND_ENUM_(uint64_t, DT_UINT64);
GRT_MATCH_TYPE_AND_ENUM_(bool, DT_BOOL);
GRT_MATCH_TYPE_AND_ENUM_(half, DT_HALF);
GRT_MATCH_TYPE_AND_ENUM_(bfloat16, DT_BFLOAT16);
GRT_MATCH_TYPE_AND_ENUM_(ResourceHandle, DT_RESOURCE);
GRT_MATCH_TYPE_AND_ENUM_(Variant, DT_VARIANT);
#undef GRT_MATCH_TYPE_AND_ENUM_

// Calls fn(T{}) -- through a TypeTag<T> -- for the C++ type of `dtype`, for the numeric and
// bool types. Returns UNIMPLEMENTED for other types.
template <typename T>
struct TypeTag {
  using type = T;
};

template <typename Fn>
Status VisitNumericType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case ::tensorflow::DT_FLOAT:
      fn(TypeTag<float>());
      return Status::OK();
    case ::tensorflow::DT_DOUBLE:
      fn(TypeTag<double>());
      return Status::OK();
    case ::tensorflow::DT_HALF:
      fn(TypeTag<half>());
      return Status::OK();
    case ::tensorflow::DT_BFLOAT16:
      fn(TypeTag<bfloat16>());
      return Status::OK();
    case ::tensorflow::DT_INT8:
      fn(TypeTag<int8_t>());
      return Status::OK();
    case ::tensorflow::DT_INT16:
      fn(TypeTag<int16_t>());
      return Status::OK();
    case ::tensorflow::DT_INT32:
      fn(TypeTag<int32_t>());
      return Status::OK();
    case ::tensorflow::DT_INT64:
      fn(TypeTag<int64_t>());
      return Status::OK();
    case ::tensorflow::DT_UINT8:
      fn(TypeTag<uint8_t>());
      return Status::OK();
    case ::tensorflow::DT_UINT16:
      fn(TypeTag<uint16_t>());
      return Status::OK();
    case ::tensorflow::DT_UINT32:
      fn(TypeTag<uint32_t>());
      return Status::OK();
    case ::tensorflow::DT_UINT64:
      fn(TypeTag<uint64_t>());
      return Status::OK();
    case ::tensorflow::DT_BOOL:
      fn(TypeTag<bool>());
      return Status::OK();
    default:
      return Unimplemented("dtype ", DataTypeString(dtype), " is not a numeric type");
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_TYPES_H_
