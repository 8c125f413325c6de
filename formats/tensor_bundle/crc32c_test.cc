#include "formats/tensor_bundle/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace graphrt {
namespace crc32c {
namespace {

TEST(Crc32cTest, StandardCheckValue) {
  EXPECT_EQ(Value("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Value("", 0), 0u);
}

// Test vectors from RFC 3720 (iSCSI), appendix B.4.
TEST(Crc32cTest, Rfc3720Vectors) {
  char buf[32];
  std::fill(buf, buf + 32, 0);
  EXPECT_EQ(Value(buf, 32), 0x8a9136aau);
  std::fill(buf, buf + 32, static_cast<char>(0xff));
  EXPECT_EQ(Value(buf, 32), 0x62a8ab43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(Value(buf, 32), 0x46dd794eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Value(buf, 32), 0x113fdb5cu);
  const unsigned char iscsi_read[48] = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                        0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                        0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                        0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Value(reinterpret_cast<const char*>(iscsi_read), 48), 0xd9963a56u);
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  const std::string a = "hello ", b = "world";
  EXPECT_EQ(Extend(Value(a.data(), a.size()), b.data(), b.size()),
            Value((a + b).data(), a.size() + b.size()));
}

TEST(Crc32cTest, HardwareAndPortableAgreeOnEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string data(40000 + 64, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t n : {0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096, 3 * 4096 - 1, 3 * 4096,
                     3 * 4096 + 9, 7 * 4096 + 5, 40000}) {
      EXPECT_EQ(Extend(0x1234u, data.data() + offset, n),
                ExtendPortable(0x1234u, data.data() + offset, n))
          << "offset " << offset << " n " << n;
    }
  }
  SUCCEED() << (UsesHardware() ? "SSE4.2 crc32 in use" : "portable tables in use");
}

TEST(Crc32cTest, MaskRoundTripsAndDiffers) {
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(Mask(crc), crc);
  EXPECT_NE(Mask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Unmask(Mask(Mask(crc)))), crc);
  // From the worked example in the reference: crc32c of float32 {1, 2}.
  const unsigned char w[8] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40};
  EXPECT_EQ(Value(reinterpret_cast<const char*>(w), 8), 0x28c0c9b1u);
  EXPECT_EQ(Mask(0x28c0c9b1u), 0x35e53c59u);
}

}  // namespace
}  // namespace crc32c
}  // namespace graphrt
