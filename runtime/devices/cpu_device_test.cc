#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <new>

#include "runtime/devices/device.h"

namespace graphrt {
namespace {

// A kernel that throws inside a parallel loop (a scratch buffer it cannot allocate) hands the
// exception to the caller's thread, where the executor makes it the Run's Status, instead of
// ending the process from a pool thread; the pool then keeps working.
TEST(CpuDeviceTest, ParallelForThrowsOnTheCallersThread) {
  for (int threads : {1, 2, 4}) {
    std::unique_ptr<Device> device = NewCpuDevice(0, threads);
    std::atomic<int64_t> done{0};
    EXPECT_THROW(device->ParallelFor(1000, 1000000,
                                     [&](int64_t first, int64_t last) {
                                       if (first <= 500 && 500 < last) throw std::bad_alloc();
                                       done += last - first;
                                     }),
                 std::bad_alloc)
        << threads << " threads";
    EXPECT_LT(done.load(), 1000) << threads << " threads";
    std::atomic<int64_t> sum{0};
    device->ParallelFor(1000, 1000000, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) sum += i;
    });
    EXPECT_EQ(sum.load(), 499500) << threads << " threads";
  }
}

}  // namespace
}  // namespace graphrt
