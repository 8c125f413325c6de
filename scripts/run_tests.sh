#!/usr/bin/env bash
# Runs the whole test suite of an already built tree (scripts/setup.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j "$jobs"
