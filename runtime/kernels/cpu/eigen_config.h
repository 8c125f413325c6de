// Settings for Eigen that must precede every Eigen header of a translation unit, so kernel files
// include this first (runtime/core/types.h already pulls in Eigen/Core). They belong in the
// build's compile flags; until they are there, this header carries them.
//
//  * Eigen 3.4 enables its F16C half <-> float conversions only for clang: its test reads
//    EIGEN_COMP_CLANG, which GCC builds define as 0 rather than leave undefined. Without them every
//    half conversion runs in software and half arithmetic is ~30x slower.
//  * GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512
//    intrinsics headers when Eigen's packet code inlines them.
#ifndef GRAPHRT_RUNTIME_KERNELS_CPU_EIGEN_CONFIG_H_
#define GRAPHRT_RUNTIME_KERNELS_CPU_EIGEN_CONFIG_H_

#if defined(__F16C__) && !defined(EIGEN_HAS_FP16_C)
#define EIGEN_HAS_FP16_C
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#endif  // GRAPHRT_RUNTIME_KERNELS_CPU_EIGEN_CONFIG_H_
