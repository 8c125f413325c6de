#include "runtime/core/tensor_shape.h"

#include <limits>

namespace graphrt {

StatusOr<TensorShape> TensorShape::FromDims(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("shape has a negative dimension: ", d);
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgument("shape has too many elements: [", StrJoin(dims, ","), "]");
    }
    n *= d;
  }
  return TensorShape(dims);
}

StatusOr<TensorShape> TensorShape::FromProto(const ::tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return InvalidArgument("shape has unknown rank");
  std::vector<int64_t> dims;
  dims.reserve(proto.dim_size());
  for (const auto& dim : proto.dim()) dims.push_back(dim.size());
  return FromDims(dims);
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

void TensorShape::AsProto(::tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const { return StrCat("[", StrJoin(dims_, ","), "]"); }

PartialTensorShape PartialTensorShape::FromProto(const ::tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return PartialTensorShape();
  std::vector<int64_t> dims;
  for (const auto& dim : proto.dim()) dims.push_back(dim.size() < 0 ? -1 : dim.size());
  return PartialTensorShape(std::move(dims));
}

bool PartialTensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  if (unknown_rank_) return true;
  if (shape.dims() != dims()) return false;
  for (int i = 0; i < dims(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != shape.dim_size(i)) return false;
  }
  return true;
}

void PartialTensorShape::AsProto(::tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  if (unknown_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string PartialTensorShape::DebugString() const {
  if (unknown_rank_) return "<unknown>";
  std::vector<std::string> parts;
  for (int64_t d : dims_) parts.push_back(d < 0 ? "?" : std::to_string(d));
  return StrCat("[", StrJoin(parts, ","), "]");
}

}  // namespace graphrt
