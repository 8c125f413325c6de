// Slices of partitioned variables, and the keys under which a checkpoint stores them.
//
// A slice has one extent per dimension: `start,length`, or `-` for the whole dimension
// (start 0, length kFullExtent). Text form: extents joined by ':', e.g. "0,25:-". SaveV2's
// shape_and_slice form puts the full shape first: "100 64 0,25:0,64".
//
// A slice's data is stored under an OrderedCode key that sorts right after the header:
//   NumIncreasing(0) ‖ String(name) ‖ NumIncreasing(rank) ‖
//   for each dimension: SignedNumIncreasing(start) ‖ SignedNumIncreasing(length)
// where NumIncreasing(v) = one byte with the count of v's significant big-endian bytes, then
// those bytes; String(s) = s with 0x00 written 00 ff and 0xff written ff 00, then 00 01; and
// SignedNumIncreasing(v) = the last L bytes of v sign-extended to 10 bytes, L the smallest
// length with |v| (~v for negative v) < 2^(7L-1), the first one or two bytes xor-ed with L's
// header bits (80, c0, e0, f0, f8, fc, fe, ff, ff80, ffc0 for L = 1..10). Example: "w" sliced
// 0,5:0,20 is 00 | 77 00 01 | 01 02 | 80 85 | 80 94.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_TENSOR_SLICE_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_TENSOR_SLICE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"
#include "tensor_slice.pb.h"

namespace graphrt {

class TensorSlice {
 public:
  static constexpr int64_t kFullExtent = -1;

  TensorSlice() = default;
  // The whole of a rank-`rank` tensor.
  explicit TensorSlice(int rank);
  // (start, length) per dimension; length kFullExtent (with start 0) for a whole dimension.
  // REQUIRES: each extent is valid (see FromProto).
  explicit TensorSlice(std::vector<std::pair<int64_t, int64_t>> extents);

  // INVALID_ARGUMENT unless every extent is whole or has start >= 0 and length > 0.
  static StatusOr<TensorSlice> FromProto(const ::tensorflow::TensorSliceProto& proto);
  // "0,2:-:1,3"; "" is a rank-0 slice.
  static StatusOr<TensorSlice> Parse(std::string_view spec);

  int dims() const { return static_cast<int>(starts_.size()); }
  bool IsFullAt(int d) const { return starts_[d] == 0 && lengths_[d] == kFullExtent; }
  bool IsFull() const;
  // Resolved against the full shape: [start, end) of dimension d.
  // REQUIRES: CheckFits(shape) is OK.
  int64_t start(int d) const { return starts_[d]; }
  // kFullExtent for a whole dimension.
  int64_t length(int d) const { return lengths_[d]; }
  int64_t end(int d, const TensorShape& shape) const {
    return IsFullAt(d) ? shape.dim_size(d) : starts_[d] + lengths_[d];
  }

  // Whether the slice has the rank of `shape` and lies inside it.
  Status CheckFits(const TensorShape& shape) const;
  // REQUIRES: CheckFits(shape) is OK.
  TensorShape SliceShape(const TensorShape& shape) const;
  // Whether this slice covers all of `shape` (IsFull, or explicit extents that do).
  // REQUIRES: CheckFits(shape) is OK.
  bool CoversAll(const TensorShape& shape) const;
  // Whether two slices of `shape` share any element. REQUIRES: both fit `shape`.
  bool Overlaps(const TensorSlice& other, const TensorShape& shape) const;

  // One extent per dimension; whole dimensions as empty extents (as TensorFlow writes them).
  void AsProto(::tensorflow::TensorSliceProto* proto) const;
  std::string DebugString() const;

  bool operator==(const TensorSlice& other) const {
    return starts_ == other.starts_ && lengths_ == other.lengths_;
  }
  bool operator!=(const TensorSlice& other) const { return !(*this == other); }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> lengths_;
};

// Parses SaveV2's "d0 d1 ... slice" form. INVALID_ARGUMENT when malformed or when the slice
// does not fit the shape.
Status ParseShapeAndSlice(std::string_view spec, TensorShape* shape, TensorSlice* slice);

// The checkpoint key of `slice` of tensor `name`.
std::string EncodeTensorNameSlice(const std::string& name, const TensorSlice& slice);
// The inverse; false when `key` is not exactly such a key (normal tensor names are not).
bool DecodeTensorNameSlice(std::string_view key, std::string* name, TensorSlice* slice);

namespace ordered_code {
void WriteNumIncreasing(std::string* dest, uint64_t value);
void WriteString(std::string* dest, std::string_view s);
void WriteSignedNumIncreasing(std::string* dest, int64_t value);
// Each reads one item from the front of `*src` and advances; false if there is none.
bool ReadNumIncreasing(std::string_view* src, uint64_t* value);
bool ReadString(std::string_view* src, std::string* s);
bool ReadSignedNumIncreasing(std::string_view* src, int64_t* value);
}  // namespace ordered_code

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_TENSOR_SLICE_H_
