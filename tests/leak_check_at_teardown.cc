// Under LeakSanitizer, each graphrt_tests process checks for leaks when its tests are done, from
// gtest's global tear-down, instead of in LSan's own at-exit hook. At exit, PoCL (the OpenCL
// platform the OpenCL tests run on) stops its worker threads while LSan's stop-the-world tracer
// walks them, and the tracer can die ("Tracer caught signal 11", "LeakSanitizer has encountered
// a fatal error") after every test passed. At tear-down those threads are idle, every test's
// objects are gone, and the check is the same one: leaks still fail the process. LSan runs its
// check once, so the at-exit one is skipped.
#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define GRAPHRT_TESTS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define GRAPHRT_TESTS_LSAN 1
#endif
#endif

#ifdef GRAPHRT_TESTS_LSAN
#include <sanitizer/lsan_interface.h>

namespace {

class LeakCheckAtTearDown : public ::testing::Environment {
 public:
  void TearDown() override { __lsan_do_leak_check(); }
};

// gtest owns and deletes registered environments.
[[maybe_unused]] ::testing::Environment* const kLeakCheck =
    ::testing::AddGlobalTestEnvironment(new LeakCheckAtTearDown);

}  // namespace
#endif
