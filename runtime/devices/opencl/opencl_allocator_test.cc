#include "runtime/devices/opencl/opencl_allocator.h"

#include <gtest/gtest.h>

#include "runtime/devices/opencl/opencl_stats.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

OpenClContext* AnyContext() {
  std::string note;
  std::vector<OpenClDeviceInfo> devices = DiscoverOpenClDevices(/*include_cpu=*/true, &note);
  if (devices.empty()) return nullptr;
  StatusOr<OpenClContext*> ctx = OpenClContext::ForDevice(devices[0]);
  return ctx.ok() ? *ctx : nullptr;
}

TEST(OpenClAllocatorTest, FreedBuffersAreReusedAndTheLimitHolds) {
  OpenClContext* ctx = AnyContext();
  GRT_REQUIRE_OR_SKIP(ctx == nullptr ? "no OpenCL device (PoCL) on this machine" : "");
  OpenClAllocator allocator(ctx, "/device:GPU:0", /*limit_bytes=*/1 << 20, /*allow_growth=*/false);
  OpenClStats before = GetOpenClStats();
  {
    StatusOr<std::shared_ptr<DeviceBuffer>> a = allocator.Allocate(1000);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ((*a)->size(), 1000u);
    EXPECT_EQ(allocator.live_bytes(), 1024);  // rounded to 256 bytes
  }
  EXPECT_EQ(allocator.live_bytes(), 0);
  EXPECT_EQ(allocator.reserved_bytes(), 1024);  // kept in the pool
  {
    StatusOr<std::shared_ptr<DeviceBuffer>> b = allocator.Allocate(900);
    ASSERT_TRUE(b.ok());
    OpenClStats after = GetOpenClStats();
    EXPECT_EQ(after.driver_allocations - before.driver_allocations, 1);
    EXPECT_EQ(after.pool_reuses - before.pool_reuses, 1);
    // Past the limit: the pool is released first, then RESOURCE_EXHAUSTED with the bytes.
    StatusOr<std::shared_ptr<DeviceBuffer>> big = allocator.Allocate(2 << 20);
    EXPECT_EQ(big.status().code(), Code::kResourceExhausted);
    EXPECT_NE(big.status().message().find("2097152 bytes on /device:GPU:0"), std::string::npos)
        << big.status();
  }
  EXPECT_EQ(allocator.live_bytes(), 0);
}

TEST(OpenClAllocatorTest, AllowGrowthReturnsBuffersPastThePoolCap) {
  OpenClContext* ctx = AnyContext();
  GRT_REQUIRE_OR_SKIP(ctx == nullptr ? "no OpenCL device (PoCL) on this machine" : "");
  const int64_t big = OpenClAllocator::kGrowthPoolBytes;
  for (bool growth : {false, true}) {
    OpenClAllocator allocator(ctx, "/device:GPU:0", int64_t{1} << 30, growth);
    {
      StatusOr<std::shared_ptr<DeviceBuffer>> a = allocator.Allocate(static_cast<size_t>(big));
      StatusOr<std::shared_ptr<DeviceBuffer>> b = allocator.Allocate(1 << 20);
      ASSERT_TRUE(a.ok() && b.ok());
    }
    EXPECT_EQ(allocator.live_bytes(), 0);
    // Without growth every buffer stays reserved; with it, only what fits the pool cap (the
    // 1 MiB buffer, freed first).
    EXPECT_EQ(allocator.reserved_bytes(), growth ? (1 << 20) : big + (1 << 20)) << growth;
  }
}

}  // namespace
}  // namespace graphrt
