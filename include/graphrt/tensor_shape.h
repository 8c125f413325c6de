// TensorShape: the concrete dimensions of a tensor (row-major, dim 0 outermost).
// PartialTensorShape: a shape that may have unknown dims (-1) or unknown rank, as graphs declare.
#ifndef GRAPHRT_TENSOR_SHAPE_H_
#define GRAPHRT_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <graphrt/export.h>
#include <graphrt/status.h>

#include "tensor_shape.pb.h"

namespace graphrt {

class GRAPHRT_EXPORT TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Rejects negative dims and element counts that overflow int64.
  static StatusOr<TensorShape> FromDims(const std::vector<int64_t>& dims);
  static StatusOr<TensorShape> FromProto(const ::tensorflow::TensorShapeProto& proto);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void InsertDim(int index, int64_t size) { dims_.insert(dims_.begin() + index, size); }
  void RemoveDim(int index) { dims_.erase(dims_.begin() + index); }
  void set_dim(int index, int64_t size) { dims_[index] = size; }

  void AsProto(::tensorflow::TensorShapeProto* proto) const;
  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;

  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

class GRAPHRT_EXPORT PartialTensorShape {
 public:
  PartialTensorShape() : unknown_rank_(true) {}
  explicit PartialTensorShape(std::vector<int64_t> dims)
      : unknown_rank_(false), dims_(std::move(dims)) {}
  static PartialTensorShape FromProto(const ::tensorflow::TensorShapeProto& proto);

  bool unknown_rank() const { return unknown_rank_; }
  int dims() const { return unknown_rank_ ? -1 : static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  bool IsFullyDefined() const;
  // Whether a concrete shape fits this one (same rank; equal where this dim is known).
  bool IsCompatibleWith(const TensorShape& shape) const;
  void AsProto(::tensorflow::TensorShapeProto* proto) const;
  // "[?,3]", "<unknown>".
  std::string DebugString() const;

 private:
  bool unknown_rank_;
  std::vector<int64_t> dims_;
};

}  // namespace graphrt

#endif  // GRAPHRT_TENSOR_SHAPE_H_
