#include "runtime/kernels/common/broadcast.h"

namespace graphrt {

StatusOr<BroadcastPlan> BroadcastPlan::Make(const std::vector<TensorShape>& shapes) {
  const int n = static_cast<int>(shapes.size());
  if (n < 1 || n > kMaxBroadcastOperands) {
    return Internal("BroadcastPlan takes 1 to ", kMaxBroadcastOperands, " shapes, got ", n);
  }
  int rank = 0;
  for (const TensorShape& s : shapes) rank = std::max(rank, s.dims());

  BroadcastPlan plan;
  plan.num_operands_ = n;
  std::vector<int64_t> out_dims(static_cast<size_t>(rank));
  unsigned last_mask = 0;
  for (int d = 0; d < rank; ++d) {
    int64_t size = 1;
    std::array<int64_t, kMaxBroadcastOperands> sizes{};
    for (int i = 0; i < n; ++i) {
      const int k = d - (rank - shapes[i].dims());
      sizes[i] = k >= 0 ? shapes[i].dim_size(k) : 1;
      if (sizes[i] == 1) continue;
      if (size == 1) {
        size = sizes[i];
      } else if (sizes[i] != size) {
        std::vector<std::string> parts;
        for (const TensorShape& s : shapes) parts.push_back(s.DebugString());
        return InvalidArgument("Incompatible shapes: ", StrJoin(parts, " vs. "));
      }
    }
    out_dims[d] = size;
    if (size == 1) continue;  // a size-1 output dim moves no operand
    unsigned mask = 0;        // bit i: operand i walks this dim
    for (int i = 0; i < n; ++i) mask |= (sizes[i] == size ? 1u : 0u) << i;
    if (!plan.dims_.empty() && mask == last_mask) {
      plan.dims_.back() *= size;
    } else {
      plan.dims_.push_back(size);
      std::array<int64_t, kMaxBroadcastOperands> walks{};
      for (int i = 0; i < n; ++i) walks[i] = (mask >> i) & 1u;
      plan.strides_.push_back(walks);  // 0/1 flags for now; scaled to strides below
    }
    last_mask = mask;
  }
  plan.output_shape_ = TensorShape(out_dims);
  plan.num_elements_ = plan.output_shape_.num_elements();
  if (plan.dims_.empty()) {
    plan.dims_.push_back(1);
    std::array<int64_t, kMaxBroadcastOperands> walks{};
    for (int i = 0; i < n; ++i) walks[i] = 1;
    plan.strides_.push_back(walks);
  }
  for (int i = 0; i < n; ++i) {
    int64_t stride = 1;
    for (int d = static_cast<int>(plan.dims_.size()) - 1; d >= 0; --d) {
      if (plan.strides_[d][i] != 0) {
        plan.strides_[d][i] = stride;
        stride *= plan.dims_[d];
      }
    }
    plan.inner_stride_[i] = plan.strides_.back()[i];
  }
  return plan;
}

}  // namespace graphrt
