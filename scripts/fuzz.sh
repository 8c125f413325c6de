#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (built by scripts/check_sanitizers.sh into build-asan).
#
#   scripts/fuzz.sh [--build DIR] [--merge] [SECONDS] [TARGET...]
#       fuzzes each TARGET (default: all) for SECONDS (default 60), starting from its committed
#       corpus (tests/fuzz/corpus/TARGET) and the seeds make_seeds.sh derives from the fixtures
#       and ../shared/testdata/real; new inputs go to a scratch copy (DIR/fuzz-scratch/TARGET);
#       --merge adds those that reach new coverage to the committed corpus (-merge=1).
#   scripts/fuzz.sh [--build DIR] --replay [TARGET...]
#       runs every committed corpus file, every seed, every reproducer in
#       tests/fuzz/regressions/TARGET and the target's ../shared/reliability inputs once, without
#       mutation; fails on any crash, leak, timeout or oversized allocation.
# Crashes are written to DIR/fuzz-artifacts/TARGET/. Prints each part's cost in seconds.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build-asan
MODE=fuzz
MERGE=0
SECONDS_PER_TARGET=60
TARGETS=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --replay) MODE=replay; shift ;;
    --merge) MERGE=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    [0-9]*) SECONDS_PER_TARGET=$1; shift ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
if [ ${#TARGETS[@]} = 0 ]; then
  for f in tests/fuzz/*_fuzzer.cc; do TARGETS+=("$(basename "$f" _fuzzer.cc)"); done
fi

# The limits the acceptance criteria name: no input may take over 10 s or allocate over 2 GB.
LIMITS=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10)
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/tests/fuzz/lsan.supp:print_suppressions=0}

# ../shared/reliability inputs per target (the rest, .h5 files, need libhdf5: README.md).
reliability_inputs() {
  local r=../shared/reliability
  case $1 in
    graphdef) echo "$r/bigdtype.pbtxt $r/ph.pbtxt" ;;
    npy) echo "$r/emptyshape.npy $r/huge.npy $r/overflow.npy" ;;
  esac
}

SEEDS=$BUILD/fuzz-seeds
if [ ! -d "$SEEDS" ] || [ tests/fuzz/make_seeds.sh -nt "$SEEDS" ]; then
  tests/fuzz/make_seeds.sh "$BUILD" "$SEEDS" >/dev/null || exit 1
fi

# The committed corpus stays small: of the old corpus and the new inputs, the smallest up to
# CORPUS_BYTES (512 KiB) per target, then only those that add coverage (-merge=1 takes them
# smallest first).
CORPUS_BYTES=${CORPUS_BYTES:-524288}
merge_small() {  # merge_small BIN CORPUS NEW LOG
  local bin=$1 corpus=$2 new=$3 log=$4 pool total=0 f size
  pool=$(mktemp -d) || return 1
  cp "$corpus"/* "$new"/ 2>/dev/null
  while read -r size f; do
    [ $((total + size)) -gt "$CORPUS_BYTES" ] && break
    total=$((total + size))
    cp "$f" "$pool"/
  done < <(find "$new" -type f -printf '%s %p\n' | sort -n)
  rm -rf "$corpus" && mkdir -p "$corpus"
  "$bin" "${LIMITS[@]}" -merge=1 "$corpus" "$pool" >>"$log" 2>&1
  local rc=$?
  rm -rf "$pool"
  return $rc
}

status=0
declare -a report
for t in "${TARGETS[@]}"; do
  bin=$BUILD/tests/fuzz/${t}_fuzzer
  if [ ! -x "$bin" ]; then
    echo "fuzz.sh: $bin is not built (scripts/check_sanitizers.sh builds it)" >&2
    status=1
    continue
  fi
  corpus=tests/fuzz/corpus/$t
  artifacts=$BUILD/fuzz-artifacts/$t
  log=$BUILD/fuzz-logs/$t.$MODE.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  start=$(date +%s)
  if [ $MODE = replay ]; then
    mapfile -t files < <(find "$corpus" "$SEEDS/$t" tests/fuzz/regressions/"$t" -type f \
                           2>/dev/null | sort; for f in $(reliability_inputs "$t"); do
                           [ -f "$f" ] && echo "$f"; done)
    "$bin" "${LIMITS[@]}" -artifact_prefix="$artifacts/" "${files[@]}" >"$log" 2>&1
    rc=$?
    what="${#files[@]} inputs"
  else
    scratch=$BUILD/fuzz-scratch/$t
    rm -rf "$scratch" && mkdir -p "$scratch"
    cp "$corpus"/* "$scratch"/ 2>/dev/null
    "$bin" "${LIMITS[@]}" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$scratch" "$SEEDS/$t" >"$log" 2>&1
    rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -oE '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
    what="${execs:-?} execs, ${cov:-no coverage line}"
    if [ $MERGE = 1 ] && [ $rc = 0 ]; then
      merge_small "$bin" "$corpus" "$scratch" "$log" || rc=$?
      what="$what, corpus now $(ls "$corpus" | wc -l) files, $(cat "$corpus"/* | wc -c) bytes"
    fi
  fi
  end=$(date +%s)
  if [ $rc != 0 ]; then
    status=1
    echo "--- $t: FAILED ($rc); last lines of $log:"
    grep -E '^(==[0-9]+==|SUMMARY|    #[0-9] |Running: |artifact_prefix|Test unit written)' "$log" | tail -25
  fi
  report+=("$(printf '%-16s %-7s %5ds  %s%s' "$t" "$MODE" $((end - start)) "$what" \
              "$([ $rc = 0 ] || echo "  FAILED, see $log")")")
done
printf '%s\n' "${report[@]}"
exit $status
