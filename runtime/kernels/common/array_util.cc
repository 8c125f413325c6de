#include "runtime/kernels/common/array_util.h"

#include <limits>

namespace graphrt {

namespace {

template <typename T>
void Widen(const Tensor& t, std::vector<int64_t>* values) {
  const T* data = t.data<T>();
  values->resize(static_cast<size_t>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) (*values)[i] = static_cast<int64_t>(data[i]);
}

}  // namespace

Status ReadIntegers(const Tensor& t, const char* what, std::vector<int64_t>* values) {
  switch (t.dtype()) {
    case ::tensorflow::DT_INT8:
      Widen<int8_t>(t, values);
      break;
    case ::tensorflow::DT_INT16:
      Widen<int16_t>(t, values);
      break;
    case ::tensorflow::DT_INT32:
      Widen<int32_t>(t, values);
      break;
    case ::tensorflow::DT_INT64:
      Widen<int64_t>(t, values);
      break;
    case ::tensorflow::DT_UINT8:
      Widen<uint8_t>(t, values);
      break;
    case ::tensorflow::DT_UINT16:
      Widen<uint16_t>(t, values);
      break;
    case ::tensorflow::DT_UINT32:
      Widen<uint32_t>(t, values);
      break;
    case ::tensorflow::DT_UINT64:
      Widen<uint64_t>(t, values);
      break;
    default:
      return InvalidArgument(what, " must be an integer tensor, got ", DataTypeString(t.dtype()));
  }
  return Status::OK();
}

Status ReadIntegerScalar(const Tensor& t, const char* what, int64_t* value) {
  if (t.NumElements() != 1 || t.dims() > 1) {
    return InvalidArgument(what, " must be a scalar, but got shape ", t.shape().DebugString());
  }
  std::vector<int64_t> values;
  GRT_RETURN_IF_ERROR(ReadIntegers(t, what, &values));
  *value = values[0];
  return Status::OK();
}

Status ShapeFromSizes(const std::vector<int64_t>& sizes, TensorShape* shape) {
  int64_t total = 1;
  for (int64_t size : sizes) {
    if (size < 0) return InvalidArgument("Dimension ", size, " must be >= 0");
    if (size > 0 && total > std::numeric_limits<int64_t>::max() / size) {
      return InvalidArgument("Shape ", StrJoin(sizes, ","),
                             " has too many elements: the count overflows int64");
    }
    total *= size;
  }
  *shape = TensorShape(sizes);
  return Status::OK();
}

Status ShapeFromTensor(const Tensor& t, const char* what, TensorShape* shape) {
  if (t.dims() > 1 ||
      (t.dtype() != ::tensorflow::DT_INT32 && t.dtype() != ::tensorflow::DT_INT64)) {
    return InvalidArgument(what, " must be a vector of {int32,int64}, got shape ",
                           t.shape().DebugString());
  }
  std::vector<int64_t> sizes;
  GRT_RETURN_IF_ERROR(ReadIntegers(t, what, &sizes));
  return ShapeFromSizes(sizes, shape);
}

std::string FlatIndexString(const TensorShape& shape, int64_t flat) {
  if (shape.dims() == 0) return "";
  std::vector<int64_t> index(static_cast<size_t>(shape.dims()));
  for (int i = shape.dims() - 1; i >= 0; --i) {
    int64_t d = shape.dim_size(i);
    index[i] = d > 0 ? flat % d : 0;
    flat = d > 0 ? flat / d : 0;
  }
  return StrCat("[", StrJoin(index, ","), "]");
}

}  // namespace graphrt
