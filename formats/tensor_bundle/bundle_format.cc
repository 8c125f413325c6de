#include "formats/tensor_bundle/bundle_format.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "formats/tensor_bundle/coding.h"
#include "formats/tensor_bundle/crc32c.h"

namespace graphrt {
namespace bundle {

std::string IndexFilename(const std::string& prefix) { return prefix + ".index"; }

std::string DataFilename(const std::string& prefix, int shard, int num_shards) {
  char suffix[64];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard, num_shards);
  return prefix + suffix;
}

bool IsRawStoredType(DataType dtype) { return !IsRefType(dtype) && IsPodType(dtype); }

int ByteSwapUnit(DataType dtype) {
  switch (dtype) {
    case ::tensorflow::DT_COMPLEX64:
      return 4;
    case ::tensorflow::DT_COMPLEX128:
      return 8;
    default:
      return DataTypeSize(dtype);
  }
}

void ByteSwap(char* data, size_t bytes, int unit) {
  if (unit <= 1) return;
  for (size_t i = 0; i + unit <= bytes; i += unit) std::reverse(data + i, data + i + unit);
}

namespace {

// A string length as the checksums take it: fixed32, or fixed64 past 32 bits, in the data's
// byte order.
void ExtendWithLength(uint32_t* crc, uint64_t length, bool big_endian) {
  char buf[8];
  const int size = length <= UINT32_MAX ? 4 : 8;
  for (int i = 0; i < size; ++i) {
    const int shift = 8 * (big_endian ? size - 1 - i : i);
    buf[i] = static_cast<char>(length >> shift);
  }
  *crc = crc32c::Extend(*crc, buf, size);
}

}  // namespace

uint32_t EncodeStringTensor(const std::string* strings, int64_t n, std::string* out) {
  const bool big_endian = !HostIsLittleEndian();
  uint32_t crc = 0;
  for (int64_t i = 0; i < n; ++i) {
    PutVarint64(out, strings[i].size());
    ExtendWithLength(&crc, strings[i].size(), big_endian);
  }
  char checksum[4];
  const uint32_t masked = crc32c::Mask(crc);
  for (int i = 0; i < 4; ++i) {
    checksum[i] = static_cast<char>(masked >> (8 * (big_endian ? 3 - i : i)));
  }
  out->append(checksum, 4);
  crc = crc32c::Extend(crc, checksum, 4);
  for (int64_t i = 0; i < n; ++i) {
    out->append(strings[i]);
    crc = crc32c::Extend(crc, strings[i].data(), strings[i].size());
  }
  return crc;
}

Status DecodeStringTensor(std::string_view data, int64_t n, bool swap, std::string* strings,
                          uint32_t* crc) {
  *crc = 0;
  // TensorFlow reads an empty entry as an empty tensor with checksum 0.
  if (data.empty() && n == 0) return Status::OK();
  const bool big_endian = HostIsLittleEndian() == swap;
  std::string_view rest = data;
  std::vector<uint64_t> lengths;
  lengths.reserve(static_cast<size_t>(std::min<int64_t>(n, data.size())));
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t length;
    if (!GetVarint64(&rest, &length)) {
      return DataLoss("string lengths are cut off or malformed at element ", i, " of ", n);
    }
    if (length > data.size() || total + length > data.size()) {
      return DataLoss("string element ", i, " claims ", length, " bytes, more than the entry's ",
                      data.size());
    }
    total += length;
    lengths.push_back(length);
    ExtendWithLength(crc, length, big_endian);
  }
  if (rest.size() < 4) return DataLoss("the string length checksum is cut off");
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) {
    stored |= static_cast<uint32_t>(static_cast<uint8_t>(rest[i]))
              << (8 * (big_endian ? 3 - i : i));
  }
  if (crc32c::Unmask(stored) != *crc) {
    return DataLoss("string length checksum mismatch: stored ", crc32c::Unmask(stored),
                    ", computed ", *crc);
  }
  *crc = crc32c::Extend(*crc, rest.data(), 4);
  rest.remove_prefix(4);
  if (total != rest.size()) {
    return DataLoss("string lengths add up to ", total, " bytes but the entry has ", rest.size(),
                    " after them");
  }
  *crc = crc32c::Extend(*crc, rest.data(), rest.size());
  if (strings != nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      strings[i].assign(rest.data(), lengths[i]);
      rest.remove_prefix(lengths[i]);
    }
  }
  return Status::OK();
}

}  // namespace bundle
}  // namespace graphrt
