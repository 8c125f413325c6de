#include "formats/tensor_bundle/crc32c.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define GRAPHRT_CRC32C_X86 1
#endif

namespace graphrt {
namespace crc32c {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // Castagnoli, bit-reversed

// Slicing-by-8 tables: kTables.t[k][b] is the CRC contribution of byte b followed by k zero bytes.
struct Tables {
  uint32_t t[8][256];
  constexpr Tables() : t() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t crc = b;
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
      t[0][b] = crc;
    }
    for (int k = 1; k < 8; ++k) {
      for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    }
  }
};
constexpr Tables kTables;

inline uint32_t LoadLE32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

#ifdef GRAPHRT_CRC32C_X86

// The crc32 instruction has a latency of 3 cycles but a throughput of one per cycle, so large
// inputs are cut into three stripes whose CRCs are computed at once and then combined. A raw
// (uninverted) CRC register is linear: feeding bytes B from state s gives
// Shift(s, |B|) ^ (the result of feeding B from 0), where Shift(s, n) feeds n zero bytes.
constexpr size_t kStripeBytes = 4096;

// Shift(s, kStripeBytes) as four byte-indexed tables: XOR of t[k][(s >> 8k) & 0xff].
struct StripeShift {
  uint32_t t[4][256];
  StripeShift() {
    uint32_t basis[32];
    for (int bit = 0; bit < 32; ++bit) {
      uint32_t crc = 1u << bit;
      for (size_t i = 0; i < kStripeBytes; ++i) crc = (crc >> 8) ^ kTables.t[0][crc & 0xff];
      basis[bit] = crc;
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int j = 0; j < 8; ++j) {
          if (b & (1u << j)) v ^= basis[8 * k + j];
        }
        t[k][b] = v;
      }
    }
  }
  uint32_t Apply(uint32_t s) const {
    return t[0][s & 0xff] ^ t[1][(s >> 8) & 0xff] ^ t[2][(s >> 16) & 0xff] ^ t[3][s >> 24];
  }
};

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t init_crc, const char* data,
                                                       size_t n) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(data);
  uint32_t crc = ~init_crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = _mm_crc32_u8(crc, *p++);
    --n;
  }
#if defined(__x86_64__)
  if (n >= 3 * kStripeBytes) {
    static const StripeShift shift;
    while (n >= 3 * kStripeBytes) {
      uint64_t a = crc, b = 0, c = 0;
      for (size_t i = 0; i < kStripeBytes; i += 8) {
        uint64_t wa, wb, wc;
        std::memcpy(&wa, p + i, 8);
        std::memcpy(&wb, p + kStripeBytes + i, 8);
        std::memcpy(&wc, p + 2 * kStripeBytes + i, 8);
        a = _mm_crc32_u64(a, wa);
        b = _mm_crc32_u64(b, wb);
        c = _mm_crc32_u64(c, wc);
      }
      crc = shift.Apply(shift.Apply(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
            static_cast<uint32_t>(c);
      p += 3 * kStripeBytes;
      n -= 3 * kStripeBytes;
    }
  }
  uint64_t crc64 = crc;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc64 = _mm_crc32_u64(crc64, word);
    p += 8;
    n -= 8;
  }
  crc = static_cast<uint32_t>(crc64);
#endif
  while (n >= 4) {
    uint32_t word;
    std::memcpy(&word, p, 4);
    crc = _mm_crc32_u32(crc, word);
    p += 4;
    n -= 4;
  }
  while (n > 0) {
    crc = _mm_crc32_u8(crc, *p++);
    --n;
  }
  return ~crc;
}

bool CpuHasSse42() {
#if defined(__SSE4_2__)
  return true;
#else
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
#endif
}
#endif  // GRAPHRT_CRC32C_X86

}  // namespace

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  const auto& t = kTables.t;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(data);
  uint32_t crc = ~init_crc;
  while (n >= 8) {
    uint32_t lo = LoadLE32(p) ^ crc;
    uint32_t hi = LoadLE32(p + 4);
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
          t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
    --n;
  }
  return ~crc;
}

bool UsesHardware() {
#ifdef GRAPHRT_CRC32C_X86
  static const bool has = CpuHasSse42();
  return has;
#else
  return false;
#endif
}

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
#ifdef GRAPHRT_CRC32C_X86
  if (UsesHardware()) return ExtendSse42(init_crc, data, n);
#endif
  return ExtendPortable(init_crc, data, n);
}

}  // namespace crc32c
}  // namespace graphrt
