#include "runtime/devices/device_name.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

TEST(DeviceNameTest, ParsesFullShortLegacyAndWildcard) {
  StatusOr<ParsedDeviceName> full = ParseDeviceName("/job:localhost/replica:0/task:0/device:CPU:0");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->job, "localhost");
  EXPECT_EQ(full->type, "CPU");
  EXPECT_TRUE(full->has_id);
  StatusOr<ParsedDeviceName> legacy = ParseDeviceName("/gpu:1");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->type, "GPU");
  EXPECT_EQ(legacy->id, 1);
  StatusOr<ParsedDeviceName> wildcard = ParseDeviceName("/device:GPU:*");
  ASSERT_TRUE(wildcard.ok());
  EXPECT_FALSE(wildcard->has_id);
  EXPECT_TRUE(DeviceMatchesSpec(*full, *ParseDeviceName("/device:CPU:*")));
  EXPECT_FALSE(DeviceMatchesSpec(*full, *wildcard));
  EXPECT_TRUE(DeviceMatchesSpec(*full, *ParseDeviceName("/job:localhost/task:0")));
  EXPECT_TRUE(ParseDeviceName("/device:TPU_REPLICATED_CORE:0").ok());
}

TEST(DeviceNameTest, MalformedSpecsAreErrors) {
  for (const char* bad : {"cpu:0", "/device:", "/job:", "/replica:x", "/device:GPU:-1", "//"}) {
    EXPECT_EQ(ParseDeviceName(bad).status().code(), Code::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace graphrt
