// CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final xor ~0), the
// checksum of LevelDB tables and of TensorFlow checkpoint data. Value("123456789") = 0xE3069283.
//
// Stored checksums are "masked" (rotated right by 15 bits, plus a constant), because a CRC over
// bytes that themselves contain CRCs is weak: Mask(c) = ((c >> 15) | (c << 17)) + 0xa282ead8.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_CRC32C_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace graphrt {
namespace crc32c {

// The CRC of data[0, n) appended to bytes whose CRC is `init_crc`.
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

// Whether Extend uses the SSE4.2 crc32 instruction on this CPU.
bool UsesHardware();

// The portable (table-driven) implementation, exposed so tests can compare both paths.
uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n);

}  // namespace crc32c
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_CRC32C_H_
