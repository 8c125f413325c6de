#include "runtime/ops/shape_inference.h"

#include <algorithm>

namespace graphrt {

InferenceContext::InferenceContext(const ::tensorflow::NodeDef& node,
                                   std::vector<PartialTensorShape> inputs,
                                   std::vector<const Tensor*> input_tensors, int num_outputs)
    : node_(node),
      inputs_(std::move(inputs)),
      input_tensors_(std::move(input_tensors)),
      outputs_(static_cast<size_t>(num_outputs)) {
  input_tensors_.resize(inputs_.size(), nullptr);
}

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return Status::OK();
}

Status ScalarShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape(std::vector<int64_t>{}));
  return Status::OK();
}

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape());
  return Status::OK();
}

Status BroadcastBinaryShape(InferenceContext* c) {
  const PartialTensorShape& a = c->input(0);
  const PartialTensorShape& b = c->input(1);
  if (a.unknown_rank() || b.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int ia = a.dims() - rank + i;
    int ib = b.dims() - rank + i;
    int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da < 0 || db < 0) {
      dims[i] = da < 0 ? db : da;
    } else if (da == db) {
      dims[i] = da;
    } else {
      return InvalidArgument("Incompatible shapes: ", a.DebugString(), " vs. ", b.DebugString(),
                             " for node ", c->node().name());
    }
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

StatusOr<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b) {
  int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int ia = a.dims() - rank + i;
    int ib = b.dims() - rank + i;
    int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da == db || db == 1) {
      dims[i] = da;
    } else if (da == 1) {
      dims[i] = db;
    } else {
      return InvalidArgument("Incompatible shapes: ", a.DebugString(), " vs. ", b.DebugString());
    }
  }
  return TensorShape(std::move(dims));
}

}  // namespace graphrt
