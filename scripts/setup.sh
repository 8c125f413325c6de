#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds graphrt in ./build.
# Safe to run again: it only installs missing packages and rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config
  libprotobuf-dev protobuf-compiler   # TensorFlow's protos: GraphDef, SavedModel, checkpoints
  libeigen3-dev                       # CPU kernels
  libhdf5-dev                         # Keras .h5 files
  zlib1g-dev                          # Keras .keras files: zip archives, inflated with zlib
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev  # OpenCL GPUs; PoCL in CI
  libboost-program-options-dev        # the graphrt command's flags
  libgtest-dev libgmock-dev libbenchmark-dev  # tests and benchmarks
  nlohmann-json3-dev                  # fixture manifests, --json output, Keras model_config
  libsnappy-dev                       # snappy-compressed checkpoint blocks
  libre2-dev                          # regex string ops: TensorFlow's regexes are RE2 syntax
  libicu-dev                          # Unicode text ops: TensorFlow's are ICU's converters/tables
  libjpeg62-turbo-dev libpng-dev libgif-dev  # image codec ops: the libraries TensorFlow decodes with
  clang libclang-rt-14-dev llvm       # sanitizer and libFuzzer builds (scripts/check_*.sh)
  ccache                              # rebuilds after a pull, and the CPU-only build, from cache
  debootstrap                         # scripts/check_deb.sh: the .deb in a clean Debian 12 chroot
  python3 python3-numpy               # tests/capi/ctypes_run.py: a ctypes binding reads .npy files
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tests run the python3 first on PATH, which may not be Debian's (pyenv, a venv): give it
# numpy too.
if ! python3 -c 'import numpy' >/dev/null 2>&1; then
  echo "setup: installing numpy for $(command -v python3)" >&2
  python3 -m pip install --quiet numpy
fi

jobs=$(nproc 2>/dev/null || echo 2)
launcher=()  # ccache, where installed, makes rebuilds after a pull cheap; nothing needs it
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=$PWD  # paths relative to the checkout: build-cpu/ shares build/'s objects
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build -j "$jobs"
