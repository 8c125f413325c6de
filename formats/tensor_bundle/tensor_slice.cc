#include "formats/tensor_bundle/tensor_slice.h"

#include <algorithm>
#include <limits>

#include "runtime/core/str_util.h"

namespace graphrt {

// ---- TensorSlice ----------------------------------------------------------------------------

TensorSlice::TensorSlice(int rank) : starts_(rank, 0), lengths_(rank, kFullExtent) {}

TensorSlice::TensorSlice(std::vector<std::pair<int64_t, int64_t>> extents) {
  for (const auto& [start, length] : extents) {
    starts_.push_back(start);
    lengths_.push_back(length);
  }
}

namespace {

Status CheckExtent(int64_t start, int64_t length) {
  if (start == 0 && length == TensorSlice::kFullExtent) return Status::OK();
  if (start < 0 || length <= 0) {
    return InvalidArgument("slice extent needs start >= 0 and length > 0, got start ", start,
                           ", length ", length);
  }
  if (start > std::numeric_limits<int64_t>::max() - length) {
    return InvalidArgument("slice extent end overflows: start ", start, ", length ", length);
  }
  return Status::OK();
}

}  // namespace

StatusOr<TensorSlice> TensorSlice::FromProto(const ::tensorflow::TensorSliceProto& proto) {
  TensorSlice slice;
  for (const auto& e : proto.extent()) {
    const int64_t length = e.has_length_case() == ::tensorflow::TensorSliceProto::Extent::kLength
                               ? e.length()
                               : kFullExtent;
    GRT_RETURN_IF_ERROR(CheckExtent(e.start(), length));
    slice.starts_.push_back(e.start());
    slice.lengths_.push_back(length);
  }
  return slice;
}

StatusOr<TensorSlice> TensorSlice::Parse(std::string_view spec) {
  TensorSlice slice;
  for (const std::string& item : StrSplit(spec, ':', /*skip_empty=*/true)) {
    if (item == "-") {
      slice.starts_.push_back(0);
      slice.lengths_.push_back(kFullExtent);
      continue;
    }
    std::vector<std::string> parts = StrSplit(item, ',');
    long long start, length;
    if (parts.size() != 2 || !ParseInt64(parts[0], &start) || !ParseInt64(parts[1], &length)) {
      return InvalidArgument("bad slice extent '", item, "' in '", spec,
                             "': expected 'start,length' or '-'");
    }
    if (start == 0 && length == kFullExtent) length = 0;  // "0,-1" is not the text of a whole dim
    GRT_RETURN_IF_ERROR(CheckExtent(start, length));
    slice.starts_.push_back(start);
    slice.lengths_.push_back(length);
  }
  return slice;
}

bool TensorSlice::IsFull() const {
  for (int d = 0; d < dims(); ++d) {
    if (!IsFullAt(d)) return false;
  }
  return true;
}

Status TensorSlice::CheckFits(const TensorShape& shape) const {
  if (dims() != shape.dims()) {
    return InvalidArgument("slice ", DebugString(), " has rank ", dims(), " but the shape ",
                           shape.DebugString(), " has rank ", shape.dims());
  }
  for (int d = 0; d < dims(); ++d) {
    if (IsFullAt(d)) continue;
    if (starts_[d] + lengths_[d] > shape.dim_size(d)) {
      return InvalidArgument("slice ", DebugString(), " does not fit in shape ",
                             shape.DebugString());
    }
  }
  return Status::OK();
}

TensorShape TensorSlice::SliceShape(const TensorShape& shape) const {
  TensorShape result;
  for (int d = 0; d < dims(); ++d) result.AddDim(IsFullAt(d) ? shape.dim_size(d) : lengths_[d]);
  return result;
}

bool TensorSlice::CoversAll(const TensorShape& shape) const {
  for (int d = 0; d < dims(); ++d) {
    if (!IsFullAt(d) && !(starts_[d] == 0 && lengths_[d] == shape.dim_size(d))) return false;
  }
  return true;
}

bool TensorSlice::Overlaps(const TensorSlice& other, const TensorShape& shape) const {
  for (int d = 0; d < dims(); ++d) {
    if (std::max(start(d), other.start(d)) >= std::min(end(d, shape), other.end(d, shape))) {
      return false;
    }
  }
  return true;
}

void TensorSlice::AsProto(::tensorflow::TensorSliceProto* proto) const {
  proto->Clear();
  for (int d = 0; d < dims(); ++d) {
    auto* extent = proto->add_extent();
    if (!IsFullAt(d)) {
      extent->set_start(starts_[d]);
      extent->set_length(lengths_[d]);
    }
  }
}

std::string TensorSlice::DebugString() const {
  std::vector<std::string> items;
  for (int d = 0; d < dims(); ++d) {
    items.push_back(IsFullAt(d) ? std::string("-") : StrCat(starts_[d], ",", lengths_[d]));
  }
  return StrJoin(items, ":");
}

Status ParseShapeAndSlice(std::string_view spec, TensorShape* shape, TensorSlice* slice) {
  std::vector<std::string> tokens = StrSplit(spec, ' ');
  if (tokens.size() < 2) {
    return InvalidArgument("shape_and_slice '", spec, "' needs the dims and then the slice");
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    long long d;
    if (!ParseInt64(tokens[i], &d) || d < 0) {
      return InvalidArgument("bad dimension '", tokens[i], "' in shape_and_slice '", spec, "'");
    }
    dims.push_back(d);
  }
  GRT_ASSIGN_OR_RETURN(*shape, TensorShape::FromDims(dims));
  GRT_ASSIGN_OR_RETURN(*slice, TensorSlice::Parse(tokens.back()));
  return slice->CheckFits(*shape);
}

// ---- OrderedCode ----------------------------------------------------------------------------

namespace ordered_code {
namespace {

constexpr int kMaxSignedLength = 10;
// Header bits of the first two bytes of a signed number encoded in L bytes, indexed by L.
constexpr uint8_t kHeaderBits[kMaxSignedLength + 1][2] = {
    {0x00, 0x00}, {0x80, 0x00}, {0xc0, 0x00}, {0xe0, 0x00}, {0xf0, 0x00}, {0xf8, 0x00},
    {0xfc, 0x00}, {0xfe, 0x00}, {0xff, 0x00}, {0xff, 0x80}, {0xff, 0xc0}};

int SignificantBits(uint64_t x) {
  int bits = 0;
  while (x != 0) {
    ++bits;
    x >>= 1;
  }
  return bits;
}

}  // namespace

void WriteNumIncreasing(std::string* dest, uint64_t value) {
  char bytes[8];
  int n = 0;
  for (uint64_t v = value; v != 0; v >>= 8) bytes[7 - n++] = static_cast<char>(v & 0xff);
  dest->push_back(static_cast<char>(n));
  dest->append(bytes + 8 - n, n);
}

void WriteString(std::string* dest, std::string_view s) {
  for (char c : s) {
    if (c == '\0') {
      dest->append("\x00\xff", 2);
    } else if (c == '\xff') {
      dest->append("\xff\x00", 2);
    } else {
      dest->push_back(c);
    }
  }
  dest->append("\x00\x01", 2);
}

void WriteSignedNumIncreasing(std::string* dest, int64_t value) {
  const uint64_t magnitude = value < 0 ? ~static_cast<uint64_t>(value) : value;
  // Smallest L with magnitude < 2^(7L - 1).
  const int length = (SignificantBits(magnitude) + 7) / 7;
  uint8_t buf[kMaxSignedLength];
  const uint8_t sign = value < 0 ? 0xff : 0x00;
  buf[0] = buf[1] = sign;
  for (int i = 0; i < 8; ++i)
    buf[2 + i] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (56 - 8 * i));
  uint8_t* begin = buf + kMaxSignedLength - length;
  begin[0] ^= kHeaderBits[length][0];
  if (length > 1) begin[1] ^= kHeaderBits[length][1];
  dest->append(reinterpret_cast<const char*>(begin), length);
}

bool ReadNumIncreasing(std::string_view* src, uint64_t* value) {
  if (src->empty()) return false;
  const size_t n = static_cast<uint8_t>((*src)[0]);
  if (n > 8 || src->size() < n + 1) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>((*src)[1 + i]);
  src->remove_prefix(n + 1);
  *value = v;
  return true;
}

bool ReadString(std::string_view* src, std::string* s) {
  s->clear();
  for (size_t i = 0; i < src->size(); ++i) {
    const char c = (*src)[i];
    if (c != '\0' && c != '\xff') {
      s->push_back(c);
      continue;
    }
    if (i + 1 >= src->size()) return false;
    const char next = (*src)[++i];
    if (c == '\0' && next == '\x01') {
      src->remove_prefix(i + 1);
      return true;
    }
    if (c == '\0' && next == '\xff') {
      s->push_back('\0');
    } else if (c == '\xff' && next == '\x00') {
      s->push_back('\xff');
    } else {
      return false;
    }
  }
  return false;
}

bool ReadSignedNumIncreasing(std::string_view* src, int64_t* value) {
  if (src->empty()) return false;
  const bool negative = (static_cast<uint8_t>((*src)[0]) & 0x80) == 0;
  const uint8_t flip = negative ? 0xff : 0x00;
  // The length is the count of leading bits equal to the sign bit's complement pattern: after
  // flipping a negative number's bits, the leading ones of the first two bytes.
  const uint16_t head =
      static_cast<uint16_t>(((static_cast<uint8_t>((*src)[0]) ^ flip) << 8) |
                            (src->size() > 1 ? static_cast<uint8_t>((*src)[1]) ^ flip : 0));
  int length = 0;
  while (length < 16 && (head & (0x8000 >> length)) != 0) ++length;
  if (length == 0 || length > kMaxSignedLength || static_cast<size_t>(length) > src->size()) {
    return false;
  }
  uint8_t buf[kMaxSignedLength];
  std::fill(buf, buf + kMaxSignedLength, negative ? 0xff : 0x00);
  uint8_t* begin = buf + kMaxSignedLength - length;
  for (int i = 0; i < length; ++i) begin[i] = static_cast<uint8_t>((*src)[i]);
  begin[0] ^= kHeaderBits[length][0];
  if (length > 1) begin[1] ^= kHeaderBits[length][1];
  uint64_t v = 0;
  for (int i = 2; i < kMaxSignedLength; ++i) v = (v << 8) | buf[i];
  // Only the canonical encoding of a value is accepted.
  std::string check;
  WriteSignedNumIncreasing(&check, static_cast<int64_t>(v));
  if (check != src->substr(0, length)) return false;
  src->remove_prefix(length);
  *value = static_cast<int64_t>(v);
  return true;
}

}  // namespace ordered_code

// ---- Slice keys -----------------------------------------------------------------------------

std::string EncodeTensorNameSlice(const std::string& name, const TensorSlice& slice) {
  std::string key;
  ordered_code::WriteNumIncreasing(&key, 0);
  ordered_code::WriteString(&key, name);
  ordered_code::WriteNumIncreasing(&key, slice.dims());
  for (int d = 0; d < slice.dims(); ++d) {
    ordered_code::WriteSignedNumIncreasing(&key, slice.start(d));
    ordered_code::WriteSignedNumIncreasing(&key, slice.length(d));
  }
  return key;
}

bool DecodeTensorNameSlice(std::string_view key, std::string* name, TensorSlice* slice) {
  std::string_view rest = key;
  uint64_t zero, rank;
  if (!ordered_code::ReadNumIncreasing(&rest, &zero) || zero != 0 ||
      !ordered_code::ReadString(&rest, name) || !ordered_code::ReadNumIncreasing(&rest, &rank) ||
      rank == 0 || rank > 1024) {
    return false;
  }
  std::vector<std::pair<int64_t, int64_t>> extents;
  for (uint64_t d = 0; d < rank; ++d) {
    int64_t start, length;
    if (!ordered_code::ReadSignedNumIncreasing(&rest, &start) ||
        !ordered_code::ReadSignedNumIncreasing(&rest, &length)) {
      return false;
    }
    if (!CheckExtent(start, length).ok()) return false;
    extents.emplace_back(start, length);
  }
  if (!rest.empty()) return false;
  *slice = TensorSlice(std::move(extents));
  // Only the canonical encoding of a (name, slice) pair is accepted.
  return EncodeTensorNameSlice(*name, *slice) == key;
}

}  // namespace graphrt
