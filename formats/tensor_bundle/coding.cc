#include "formats/tensor_bundle/coding.h"

namespace graphrt {
namespace bundle {

void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, sizeof(buf));
}

void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, sizeof(buf));
}

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

int VarintLength(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

bool GetVarint64(std::string_view* input, uint64_t* value) {
  uint64_t result = 0;
  for (int i = 0; i < kMaxVarint64Bytes; ++i) {
    if (static_cast<size_t>(i) >= input->size()) return false;
    const uint64_t byte = static_cast<uint8_t>((*input)[i]);
    // The tenth byte holds bit 63 only.
    if (i == kMaxVarint64Bytes - 1 && byte > 1) return false;
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      input->remove_prefix(i + 1);
      *value = result;
      return true;
    }
  }
  return false;
}

bool GetVarint32(std::string_view* input, uint32_t* value) {
  std::string_view rest = *input;
  uint64_t v;
  if (!GetVarint64(&rest, &v)) return false;
  if (v > UINT32_MAX || input->size() - rest.size() > static_cast<size_t>(kMaxVarint32Bytes)) {
    return false;
  }
  *input = rest;
  *value = static_cast<uint32_t>(v);
  return true;
}

}  // namespace bundle
}  // namespace graphrt
