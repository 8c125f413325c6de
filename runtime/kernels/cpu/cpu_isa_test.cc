#include "runtime/kernels/cpu/cpu_isa.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace graphrt {
namespace {

TEST(CpuIsaTest, NamesParseBack) {
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    CpuIsa parsed;
    ASSERT_TRUE(ParseCpuIsa(CpuIsaName(isa), &parsed));
    EXPECT_EQ(parsed, isa);
  }
  CpuIsa parsed;
  EXPECT_FALSE(ParseCpuIsa("sse4", &parsed));
  EXPECT_FALSE(ParseCpuIsa("", &parsed));
}

TEST(CpuIsaTest, ActivePathIsNoWiderThanTheCpu) {
  EXPECT_LE(static_cast<int>(ActiveCpuIsa()), static_cast<int>(DetectedCpuIsa()));
  std::printf("cpu isa: detected %s, active %s\n", CpuIsaName(DetectedCpuIsa()),
              CpuIsaName(ActiveCpuIsa()));
}

}  // namespace
}  // namespace graphrt
