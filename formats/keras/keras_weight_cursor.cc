#include "formats/keras/keras_builder_internal.h"

#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

std::string ShapeString(const Shape& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(d < 0 ? "?" : std::to_string(d));
  return "[" + StrJoin(dims, ",") + "]";
}

Shape TensorDims(const Tensor& t) {
  Shape s;
  for (int i = 0; i < t.dims(); ++i) s.push_back(t.dim_size(i));
  return s;
}

StatusOr<Tensor> WeightCursor::Next(const std::string& role, const Shape& expected) {
  if (next_ >= weights_.size()) {
    return InvalidArgument("layer '", layer_, "': the architecture needs a weight '", role, "' ",
                           ShapeString(expected), " but ", file_, " holds only ", weights_.size(),
                           " weights for it");
  }
  const KerasWeight* w = weights_[next_++];
  Shape actual = TensorDims(w->value);
  bool fits = actual.size() == expected.size();
  for (size_t i = 0; fits && i < actual.size(); ++i) {
    fits = expected[i] < 0 || expected[i] == actual[i];
  }
  if (!fits) {
    return InvalidArgument("layer '", layer_, "': weight '", w->name, "' has shape ",
                           ShapeString(actual), " but the architecture needs ", role, " ",
                           ShapeString(expected));
  }
  return w->value;
}

std::vector<const KerasWeight*> WeightCursor::TakeAll() {
  std::vector<const KerasWeight*> rest(weights_.begin() + next_, weights_.end());
  next_ = weights_.size();
  return rest;
}

Status WeightCursor::Finish() const {
  if (next_ == weights_.size()) return Status::OK();
  std::vector<std::string> extra;
  for (size_t i = next_; i < weights_.size(); ++i) extra.push_back(weights_[i]->name);
  return InvalidArgument("layer '", layer_, "': ", file_, " holds weights the architecture ",
                         "does not use: ", StrJoin(extra, ", "));
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
