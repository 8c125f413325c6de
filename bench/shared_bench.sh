#!/usr/bin/env bash
# Builds ../shared/bench (graphrt, TensorFlow's C API and ONNX Runtime's C API benches) against
# this tree: that script compiles graphrt_bench.cc with -I<source> only, while graphrt's headers
# now include the public API as <graphrt/...> (include/ and the build's generated include/). A
# compiler wrapper adds those two folders; everything else is ../shared/bench/build.sh's own.
#
#   GRAPHRT_BUILD=build-native PERF_VENV=... PERF_OUT=perf-bin bench/shared_bench.sh
#
# Measure a -DGRAPHRT_NATIVE=ON build (build.sh compiles its benches with -march=native too).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export GRAPHRT_SRC=${GRAPHRT_SRC:-$root}
export GRAPHRT_BUILD=$(cd "${GRAPHRT_BUILD:-$root/build}" && pwd)
shared=${GRAPHRT_SHARED_DIR:-$root/../shared}
wrapper=$(mktemp "${TMPDIR:-/tmp}/graphrt-cxx.XXXXXX")
trap 'rm -f "$wrapper"' EXIT
cat >"$wrapper" <<WRAP
#!/bin/sh
exec ${CXX:-c++} -I"$GRAPHRT_SRC/include" -I"$GRAPHRT_BUILD/include" "\$@"
WRAP
chmod +x "$wrapper"
CXX=$wrapper bash "$shared/bench/build.sh"
