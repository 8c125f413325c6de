// CopyStrided: the one primitive behind the data-movement kernels (Slice, StridedSlice, Concat,
// Split, Pack, Pad, MirrorPad, Tile, BroadcastTo, Reverse, Fill). It copies an N-d box of
// elements between two strided layouts:
//
//   dst[sum_i k_i * dst_strides[i]] = src[sum_i k_i * src_strides[i]]   for 0 <= k_i < sizes[i]
//
// Strides count elements. A stride of 0 repeats one element (broadcast, fill); a negative stride
// walks backwards (reverse). Dims of size 1 are dropped and dims contiguous in both layouts are
// merged first, so the inner loop is one memcpy wherever the layouts allow. Large copies are
// split across the device's intra-op threads.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_STRIDED_COPY_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_STRIDED_COPY_H_

#include <cstdint>
#include <vector>

#include "runtime/core/types.h"
#include "runtime/devices/device.h"

namespace graphrt {

struct StridedBox {
  std::vector<int64_t> sizes;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
};

// REQUIRES: the three vectors of `box` have one length; every element the box reaches from `src`
// and `dst` lies inside its buffer; the regions read and written do not overlap. `dtype` is any
// dtype VisitElementKind accepts. `device` may be null (one thread).
void CopyStrided(DataType dtype, const StridedBox& box, const void* src, void* dst,
                 const Device* device);

// Writes `n` copies of the element at `value` to dst[0..n).
void FillElements(DataType dtype, const void* value, void* dst, int64_t n, const Device* device);

// Row-major strides (in elements) of a tensor with these dims.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_STRIDED_COPY_H_
