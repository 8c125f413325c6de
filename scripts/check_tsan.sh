#!/usr/bin/env bash
# ThreadSanitizer check of the runtime under concurrent use: configures build-tsan with clang
# (-fsanitize=thread, -O1 -g1, no benchmarks), builds only the graphrt library and the concurrency
# tests (tests/concurrency_test.cc as graphrt_concurrency_tests), and runs them: 8 threads x 1,000
# Runs on one session, callables, different fetch sets sharing the plan cache, and the OpenCL
# device under PoCL. The first race stops the run (halt_on_error); tests/tsan.supp silences only
# races inside PoCL, ocl-icd, CLBlast and libgomp, each with its reason. Prints what the build and
# the run cost.
#
#   bash scripts/check_tsan.sh            # JOBS=N to change the build's parallelism
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "check_tsan: clang++ is missing (Debian: apt-get install clang)" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  # Paths relative to the checkout, and no working directory in the hash (-g1 would put it
  # there): a clone in another folder, such as CI's, reuses these objects.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DGRAPHRT_SANITIZE=thread -DGRAPHRT_BUILD_BENCH=OFF -DGRAPHRT_BUILD_TESTS=ON \
  "${launcher[@]}" >/dev/null
cmake --build build-tsan -j "$jobs" --target graphrt_concurrency_tests
built=$(date +%s)
echo "check_tsan: build took $((built - start)) s"

# PoCL's kernel cache and graphrt's program cache stay inside a build tree, as in ctest: the gcc
# build's when it is there (compiled OpenCL kernels do not depend on the host compiler, and PoCL
# takes about a minute to compile them cold), else this one's.
cache="$root/build-tsan/opencl_cache"
[ -d "$root/build/opencl_cache/pocl" ] && cache="$root/build/opencl_cache"
status=0
POCL_CACHE_DIR="$cache/pocl" GRAPHRT_CACHE_DIR="$cache" \
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp" \
  build-tsan/tests/graphrt_concurrency_tests || status=$?
done_at=$(date +%s)
echo "check_tsan: run took $((done_at - built)) s (exit $status)"
exit "$status"
