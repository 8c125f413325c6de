// Numpy broadcasting of up to three operands, shared by the CPU and OpenCL elementwise kernels.
//
// A BroadcastPlan drops the output's size-1 dims and merges adjacent dims that every operand
// broadcasts the same way, so the common cases collapse to one or two dims: equal shapes and a
// scalar operand become one run over the whole output; a row vector [n] against [m,n] becomes m
// runs of n elements; a column [m,1] against [m,n] becomes m runs against one element each.
#ifndef GRAPHRT_RUNTIME_KERNELS_COMMON_BROADCAST_H_
#define GRAPHRT_RUNTIME_KERNELS_COMMON_BROADCAST_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"

namespace graphrt {

inline constexpr int kMaxBroadcastOperands = 3;

class BroadcastPlan {
 public:
  // Numpy broadcasting of `shapes` (1 to kMaxBroadcastOperands of them). INVALID_ARGUMENT
  // "Incompatible shapes: [2] vs. [3]" when they do not broadcast.
  static StatusOr<BroadcastPlan> Make(const std::vector<TensorShape>& shapes);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t num_elements() const { return num_elements_; }
  int num_operands() const { return num_operands_; }
  // Length of the innermost collapsed dim: every run lies inside one such row.
  int64_t row_size() const { return dims_.back(); }
  // Whether operand i stays on one element along a run (it is broadcast on the innermost dim).
  bool run_is_scalar(int i) const { return inner_stride_[i] == 0; }

  // Calls fn(offsets, out_offset, length) for the runs that cover output elements [begin, end):
  // output elements [out_offset, out_offset + length) read operand i from offsets[i] onwards,
  // stepping one element at a time, or staying put when run_is_scalar(i).
  template <typename Fn>
  void ForEachRun(int64_t begin, int64_t end, Fn&& fn) const;

  // The collapsed output dims (outermost first, at least one) and operand i's stride along
  // dim d (0 where it is broadcast), for backends that index the operands themselves (OpenCL).
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t stride(int d, int i) const { return strides_[d][i]; }

 private:
  BroadcastPlan() = default;

  TensorShape output_shape_;
  int64_t num_elements_ = 0;
  int num_operands_ = 0;
  // Collapsed output dims (at least one) and, per dim, each operand's stride (0 when broadcast).
  std::vector<int64_t> dims_;
  std::vector<std::array<int64_t, kMaxBroadcastOperands>> strides_;
  std::array<int64_t, kMaxBroadcastOperands> inner_stride_{};
};

template <typename Fn>
void BroadcastPlan::ForEachRun(int64_t begin, int64_t end, Fn&& fn) const {
  if (begin >= end) return;
  const int outer_rank = static_cast<int>(dims_.size()) - 1;
  const int64_t row = dims_.back();
  // An odometer over the outer dims, positioned at begin's row.
  std::vector<int64_t> index(static_cast<size_t>(outer_rank), 0);
  std::array<int64_t, kMaxBroadcastOperands> base{};
  int64_t rest = begin / row;
  for (int d = outer_rank - 1; d >= 0; --d) {
    index[d] = rest % dims_[d];
    rest /= dims_[d];
    for (int i = 0; i < num_operands_; ++i) base[i] += index[d] * strides_[d][i];
  }
  int64_t col = begin % row;
  std::array<int64_t, kMaxBroadcastOperands> offsets{};
  for (int64_t pos = begin; pos < end;) {
    const int64_t length = std::min(row - col, end - pos);
    for (int i = 0; i < num_operands_; ++i) offsets[i] = base[i] + col * inner_stride_[i];
    fn(offsets.data(), pos, length);
    pos += length;
    col = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      for (int i = 0; i < num_operands_; ++i) base[i] += strides_[d][i];
      if (++index[d] < dims_[d]) break;
      for (int i = 0; i < num_operands_; ++i) base[i] -= dims_[d] * strides_[d][i];
      index[d] = 0;
    }
  }
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_COMMON_BROADCAST_H_
