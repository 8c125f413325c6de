// The instruction set the CPU kernels run with, chosen at run time.
//
// The library is compiled for baseline x86-64 (SSE2). Kernels that need wider vectors are built
// a second and third time for AVX2+FMA and AVX-512 (`isa/*_avx2.cc`, `isa/*_avx512.cc`, in
// namespaces graphrt::isa::avx2 and graphrt::isa::avx512), and ActiveCpuIsa() says which of them
// run: the widest this CPU has (cpuid, and the OS saving the registers), or the path that the
// environment variable GRAPHRT_ISA=baseline|avx2|avx512 asks for, if the CPU has it.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_CPU_ISA_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_CPU_ISA_H_

#include <string>

namespace graphrt {

// Ordered: each path needs everything the ones before it need.
enum class CpuIsa {
  kBaseline = 0,  // SSE2, every x86-64
  kAvx2 = 1,      // AVX2 and FMA3
  kAvx512 = 2,    // AVX-512 F, BW, DQ and VL
};

const char* CpuIsaName(CpuIsa isa);

// The widest path this CPU runs.
CpuIsa DetectedCpuIsa();

// The path the kernels take: DetectedCpuIsa(), or GRAPHRT_ISA where that is not wider. Read once
// per process. A GRAPHRT_ISA that names a path this CPU lacks, or no path at all, prints one
// warning line on stderr and is ignored.
CpuIsa ActiveCpuIsa();

// Parses "baseline", "avx2" or "avx512". Returns false for anything else.
bool ParseCpuIsa(const std::string& name, CpuIsa* isa);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_CPU_ISA_H_
