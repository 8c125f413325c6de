#!/usr/bin/env bash
# ASan+UBSan build of the test suite and the libFuzzer targets (clang), then:
#   1. the whole test suite (ctest) under ASan+UBSan with leak checking,
#   2. the fuzz replay: every committed corpus file, regression and ../shared/reliability input once,
#   3. each fuzz target for FUZZ_SECONDS (default 60; 0 skips this part).
# Prints each part's wall time. Usage: scripts/check_sanitizers.sh [BUILD_DIR]
# Env: FUZZ_SECONDS, JOBS (default 2), CTEST_ARGS (extra ctest arguments, e.g. "-R Npy").
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build-asan}
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}

launcher=()
if command -v ccache >/dev/null; then
  # Paths relative to the checkout, and no working directory in the hash (-g1 would put it
  # there): a clone in another folder, such as CI's, reuses these objects.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Sanitizer runtime options. halt_on_error: the first report fails the run. LSan suppressions
# cover third-party leaks only (tests/fuzz/lsan.supp lists each with its reason).
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1"
export LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp:print_suppressions=0"

status=0
declare -a summary
part() {  # part NAME COMMAND...: runs and times one part, remembering failures.
  local name=$1 start end rc
  shift
  echo "=== $name"
  start=$(date +%s)
  "$@"
  rc=$?
  end=$(date +%s)
  summary+=("$(printf '%-28s %5ds  %s' "$name" $((end - start)) "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")")")
  [ $rc = 0 ] || status=1
  return $rc
}

configure() {
  # A custom build type keeps the project's Release flags (-O2) out: -O1 compiles fast and keeps
  # ASan's reports precise; -g1 (from GRAPHRT_SANITIZE) is enough for symbolized stacks.
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_C_FLAGS_SANITIZE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -DNDEBUG" \
    -DGRAPHRT_SANITIZE="address;undefined" -DGRAPHRT_FUZZ=ON -DGRAPHRT_NATIVE=OFF \
    -DGRAPHRT_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
}
build() {
  cmake --build "$BUILD" -j"$JOBS" --target graphrt_tests graphrt_command graphrt_fuzz_targets \
    graphrt_capi_tests
}
# The OpenCL tests run PoCL, whose threads are still at work when a test process exits; now and
# then LeakSanitizer's stop-the-world tracer dies ("Tracer caught signal 11", "LeakSanitizer
# has encountered a fatal error") after the test has passed. Seen on OpenClFaultsTest
# .ProgramThatFailsToBuildNamesTheNode (a program's build broken on purpose), OpenClCacheTest
# .SecondProcessDoesNotRecompile (programs rebuilt over a corrupted cache) and OpenClKernelsTest
# .MatMulAndBatchMatMul, each after a clean pass elsewhere. They run on their own, under ASan and
# UBSan with leak checking off.
lsan_racy='^OpenCl'
run_suite() {
  (cd "$BUILD" && ctest --output-on-failure -j"$JOBS" --timeout 600 -E "$lsan_racy" \
    ${CTEST_ARGS:-} &&
    ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
      ctest --output-on-failure -j"$JOBS" --timeout 600 -R "$lsan_racy")
}

part configure configure || { printf '%s\n' "${summary[@]}"; exit 1; }
part build build || { printf '%s\n' "${summary[@]}"; exit 1; }
part "test suite (ASan+UBSan)" run_suite
part "fuzz replay" scripts/fuzz.sh --build "$BUILD" --replay
if [ "$FUZZ_SECONDS" != 0 ]; then
  part "fuzz ${FUZZ_SECONDS}s per target" scripts/fuzz.sh --build "$BUILD" "$FUZZ_SECONDS"
fi

echo "=== wall time per part"
printf '%s\n' "${summary[@]}"
exit $status
