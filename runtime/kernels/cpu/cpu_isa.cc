#include "runtime/kernels/cpu/cpu_isa.h"

#include <cstdio>
#include <cstdlib>

namespace graphrt {

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx2:
      return "avx2";
    case CpuIsa::kAvx512:
      return "avx512";
    case CpuIsa::kBaseline:
      break;
  }
  return "baseline";
}

bool ParseCpuIsa(const std::string& name, CpuIsa* isa) {
  for (CpuIsa candidate : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (name == CpuIsaName(candidate)) {
      *isa = candidate;
      return true;
    }
  }
  return false;
}

CpuIsa DetectedCpuIsa() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // __builtin_cpu_supports checks cpuid and that the OS enabled the registers (XGETBV).
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("fma")) {
    return CpuIsa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::kAvx2;
#endif
  return CpuIsa::kBaseline;
}

namespace {

CpuIsa ChooseCpuIsa() {
  const CpuIsa detected = DetectedCpuIsa();
  const char* forced = std::getenv("GRAPHRT_ISA");
  if (forced == nullptr || *forced == '\0') return detected;
  CpuIsa wanted;
  if (!ParseCpuIsa(forced, &wanted)) {
    std::fprintf(stderr,
                 "graphrt: warning: GRAPHRT_ISA='%s' is not one of baseline, avx2, avx512; "
                 "using %s\n",
                 forced, CpuIsaName(detected));
    return detected;
  }
  if (static_cast<int>(wanted) > static_cast<int>(detected)) {
    std::fprintf(stderr, "graphrt: warning: GRAPHRT_ISA=%s, but this CPU has only %s; using %s\n",
                 forced, CpuIsaName(detected), CpuIsaName(detected));
    return detected;
  }
  return wanted;
}

}  // namespace

CpuIsa ActiveCpuIsa() {
  static const CpuIsa active = ChooseCpuIsa();
  return active;
}

}  // namespace graphrt
