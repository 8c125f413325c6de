#!/usr/bin/env bash
# Checks that a built or installed libgraphrt.so runs on any x86-64: objdump finds no AVX-512
# instruction (zmm or opmask registers, EVEX-only mnemonics) and no AVX/AVX2 one (ymm registers)
# outside the functions that run-time ISA dispatch is allowed to hold (ALLOWED, a regex on the
# demangled function name: the kernels of runtime/kernels/cpu/isa/, in namespace graphrt::isa,
# which run only after a cpuid check).
#
#   bash scripts/check_portable.sh PATH/TO/libgraphrt.so
set -euo pipefail
lib=${1:?usage: check_portable.sh LIBRARY}
allowed=${ALLOWED:-'(^| )graphrt::isa::'}  # templates print their return type first
command -v objdump >/dev/null || { echo "check_portable: objdump is missing (binutils)" >&2; exit 1; }
[ -f "$lib" ] || { echo "check_portable: no such library: $lib" >&2; exit 1; }
objdump -d -C --no-show-raw-insn "$lib" | awk -v allowed="$allowed" -v lib="$lib" '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn); next }
  /\t/ {
    wide = ($0 ~ /%zmm[0-9]|%k[0-7]|\{%k[0-7]\}|vpternlog|vpermt2|vpermi2|vpcompress|vpexpand|vcompressp|vexpandp/) ? "avx512" : \
           ($0 ~ /%ymm[0-9]/) ? "avx" : ""
    if (wide == "") next
    if (fn ~ allowed) { allowed_n[wide]++; next }
    n[wide]++
    if (!(fn in seen) && shown < 10) { seen[fn] = 1; shown++; print "  " wide ": " fn > "/dev/stderr" }
  }
  END {
    printf "check_portable: %s: %d AVX-512 and %d AVX/AVX2 instructions outside dispatched kernels (%d/%d inside)\n", \
      lib, n["avx512"], n["avx"], allowed_n["avx512"], allowed_n["avx"]
    exit (n["avx512"] + n["avx"] > 0) ? 1 : 0
  }'
