#include "runtime/kernels/cpu/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/common/array_util.h"

namespace graphrt {

namespace {

// A box with size-1 dims dropped and contiguous dims merged; rank 0 means one element.
struct Plan {
  std::vector<int64_t> sizes, src_strides, dst_strides;
  bool empty = false;
};

Plan Simplify(const StridedBox& box) {
  Plan p;
  for (size_t i = 0; i < box.sizes.size(); ++i) {
    int64_t size = box.sizes[i];
    if (size == 0) {
      p.empty = true;
      return p;
    }
    if (size == 1) continue;
    int64_t ss = box.src_strides[i], ds = box.dst_strides[i];
    if (!p.sizes.empty() && p.src_strides.back() == ss * size &&
        p.dst_strides.back() == ds * size) {
      // The outer dim steps exactly over this one in both layouts: one longer dim.
      p.sizes.back() *= size;
      p.src_strides.back() = ss;
      p.dst_strides.back() = ds;
      continue;
    }
    p.sizes.push_back(size);
    p.src_strides.push_back(ss);
    p.dst_strides.push_back(ds);
  }
  return p;
}

template <typename T>
void CopyRow(const T* src, int64_t ss, T* dst, int64_t ds, int64_t n) {
  if (ss == 1 && ds == 1) {
    CopyRun(src, dst, n);
  } else if (ss == 0 && ds == 1) {
    std::fill(dst, dst + n, *src);
  } else if (ss == -1 && ds == 1) {
    std::reverse_copy(src - (n - 1), src + 1, dst);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
  }
}

// Copies rows [row_begin, row_end) of the plan: a row is one run of the innermost dim.
template <typename T>
void CopyRows(const Plan& p, const T* src, T* dst, int64_t row_begin, int64_t row_end) {
  const int outer = static_cast<int>(p.sizes.size()) - 1;
  const int64_t n = p.sizes[outer], ss = p.src_strides[outer], ds = p.dst_strides[outer];
  if (outer == 1) {  // the common 2-D case, without the index bookkeeping
    const int64_t row_ss = p.src_strides[0], row_ds = p.dst_strides[0];
    for (int64_t row = row_begin; row < row_end; ++row) {
      CopyRow(src + row * row_ss, ss, dst + row * row_ds, ds, n);
    }
    return;
  }
  std::vector<int64_t> index(static_cast<size_t>(outer));
  int64_t src_off = 0, dst_off = 0, rest = row_begin;
  for (int i = outer - 1; i >= 0; --i) {
    index[i] = rest % p.sizes[i];
    rest /= p.sizes[i];
    src_off += index[i] * p.src_strides[i];
    dst_off += index[i] * p.dst_strides[i];
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    CopyRow(src + src_off, ss, dst + dst_off, ds, n);
    for (int i = outer - 1; i >= 0; --i) {
      src_off += p.src_strides[i];
      dst_off += p.dst_strides[i];
      if (++index[i] < p.sizes[i]) break;
      src_off -= p.src_strides[i] * p.sizes[i];
      dst_off -= p.dst_strides[i] * p.sizes[i];
      index[i] = 0;
    }
  }
}

template <typename T>
void CopyPlan(const Plan& p, const T* src, T* dst, const Device* device) {
  if (p.sizes.empty()) {
    *dst = *src;
    return;
  }
  const int outer = static_cast<int>(p.sizes.size()) - 1;
  const int64_t n = p.sizes[outer];
  int64_t rows = 1;
  for (int i = 0; i < outer; ++i) rows *= p.sizes[i];
  // Rough cycles per element: copies run near memory speed, strided ones slower.
  const bool contiguous = p.src_strides[outer] == 1 && p.dst_strides[outer] == 1;
  const int64_t elem_cost =
      std::max<int64_t>(1, static_cast<int64_t>(sizeof(T)) / 2) * (contiguous ? 1 : 3) +
      (std::is_trivially_copyable_v<T> ? 0 : 20);
  if (device == nullptr || rows * n * elem_cost < 100000) {
    CopyRows(p, src, dst, 0, rows);
  } else if (rows == 1) {
    const int64_t ss = p.src_strides[0], ds = p.dst_strides[0];
    device->ParallelFor(n, elem_cost, [&](int64_t begin, int64_t end) {
      CopyRow(src + begin * ss, ss, dst + begin * ds, ds, end - begin);
    });
  } else {
    device->ParallelFor(rows, n * elem_cost + 10,
                        [&](int64_t begin, int64_t end) { CopyRows(p, src, dst, begin, end); });
  }
}

}  // namespace

void CopyStrided(DataType dtype, const StridedBox& box, const void* src, void* dst,
                 const Device* device) {
  Plan plan = Simplify(box);
  if (plan.empty) return;
  VisitElementKind(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    CopyPlan(plan, static_cast<const T*>(src), static_cast<T*>(dst), device);
  }).IgnoreError();
}

void FillElements(DataType dtype, const void* value, void* dst, int64_t n, const Device* device) {
  StridedBox box{{n}, {0}, {1}};
  CopyStrided(dtype, box, value, dst, device);
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  return strides;
}

}  // namespace graphrt
