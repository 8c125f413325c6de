// Byte encodings shared by the table and bundle code: little-endian fixed-width integers and
// LEB128 varints (7 bits per byte, low group first, high bit set on every byte but the last),
// as LevelDB and protobuf write them.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_CODING_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_CODING_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace graphrt {
namespace bundle {

// The longest varint64: ceil(64 / 7) bytes.
inline constexpr int kMaxVarint64Bytes = 10;
inline constexpr int kMaxVarint32Bytes = 5;

inline void EncodeFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline void EncodeFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
int VarintLength(uint64_t v);

// Decode a varint from the front of `*input` and advance past it. Return false (leaving
// `*input` unspecified) when the bytes run out, the varint is longer than the type allows,
// or its value does not fit the type.
bool GetVarint32(std::string_view* input, uint32_t* value);
bool GetVarint64(std::string_view* input, uint64_t* value);

}  // namespace bundle
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_CODING_H_
