#!/usr/bin/env bash
# The CPU-only configuration: graphrt without its optional components (no OpenCL, no HDF5), as on
# a server without an OpenCL loader. Configures build-cpu with GRAPHRT_WITH_OPENCL=OFF and
# GRAPHRT_WITH_HDF5=OFF, builds everything (the layer link checks included), runs every test
# that build has, and then installs it and builds the consumer against it (check_install.sh).
#
#   bash scripts/check_cpu_only.sh        # JOBS=N to change the build's parallelism
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
launcher=()
if command -v ccache >/dev/null 2>&1; then
  # Objects that do not depend on the components are the same as build/'s: cache hits.
  export CCACHE_BASEDIR=$PWD
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

start=$(date +%s)
cmake -S . -B build-cpu -DCMAKE_BUILD_TYPE=Release -DGRAPHRT_WITH_OPENCL=OFF \
  -DGRAPHRT_WITH_HDF5=OFF -DGRAPHRT_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-cpu -j "$jobs"
built=$(date +%s)
if grep -qiE 'OpenCL|hdf5' <(ldd build-cpu/runtime/libgraphrt.so); then
  echo "check_cpu_only: libgraphrt.so still links OpenCL or HDF5:" >&2
  ldd build-cpu/runtime/libgraphrt.so >&2
  exit 1
fi
ctest --test-dir build-cpu --output-on-failure -j "$jobs" | tee build-cpu/ctest.log
tested=$(date +%s)
bash scripts/check_install.sh build-cpu
echo "check_cpu_only: build $((built - start)) s, tests $((tested - built)) s," \
     "install and consumer $(($(date +%s) - tested)) s"
