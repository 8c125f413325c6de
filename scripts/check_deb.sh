#!/usr/bin/env bash
# The .deb on a clean Debian 12: packs BUILD_DIR with `cpack -G DEB`, copies the package into a
# fresh bookworm chroot (debootstrap, minbase), installs it with `apt-get install ./graphrt_*.deb`
# (so every dependency it declares is pulled from Debian and none it forgot is there by chance),
# then installs only a consumer's tools (cmake g++ make pkg-config) and builds and runs
# tests/consumer there, with CMake and with pkg-config. Needs root (chroot, mounts) and the
# network (the Debian mirror); no container engine.
#
#   sudo scripts/check_deb.sh [BUILD_DIR]
#
# BUILD_DIR (default build-deb/build) must be configured with -DGRAPHRT_NATIVE=OFF: a package
# runs on other machines. It is built first (all targets). The pristine chroot is cached in
# $GRAPHRT_DEB_CACHE/chroot (default build-deb/chroot; delete it to bootstrap again) along with
# the downloaded packages ($GRAPHRT_DEB_CACHE/apt-archives); each run works in a copy that is
# removed at the end. Env: JOBS (default 2), DEBIAN_MIRROR (default http://deb.debian.org/debian),
# KEEP_CHROOT=1 keeps the run's copy (mounts are always undone).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build-deb/build}
JOBS=${JOBS:-2}
CACHE=${GRAPHRT_DEB_CACHE:-$ROOT/build-deb}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE=$CACHE/chroot
RUN=$CACHE/run.$$

die() { echo "check_deb.sh: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || die "needs debootstrap (apt-get install -y debootstrap)"
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || die "no build folder ${1:-build-deb/build}"
[ -f "$BUILD/CMakeCache.txt" ] || die "$BUILD is not configured"
cache_on() {  # cache_on VAR: whether BUILD's cache sets VAR true, or lacks it (always built then).
  grep -Eiq "^$1:[A-Z]+=(ON|TRUE|YES|Y|1)$" "$BUILD/CMakeCache.txt" ||
    ! grep -q "^$1:" "$BUILD/CMakeCache.txt"
}
if cache_on GRAPHRT_NATIVE && [ "${GRAPHRT_DEB_ALLOW_NATIVE:-0}" != 1 ]; then
  die "$BUILD is configured with GRAPHRT_NATIVE=ON; a package needs -DGRAPHRT_NATIVE=OFF"
fi
components=()
cache_on GRAPHRT_WITH_HDF5 && components+=(keras)
cache_on GRAPHRT_WITH_OPENCL && components+=(opencl)
mkdir -p "$CACHE/apt-archives" || die "cannot create $CACHE"

LOG=$CACHE/step.$$.log
status=0
step() {  # step NAME COMMAND...: one line with its time; the log when it fails.
  local name=$1 start rc line
  shift
  start=$(date +%s)
  "$@" >"$LOG" 2>&1
  rc=$?
  line=$(printf '%-60s %4ds  %s' "$name" $(($(date +%s) - start)) \
    "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")")
  echo "$line"
  if [ $rc != 0 ]; then
    sed 's/^/    /' "$LOG" | tail -n 60
    status=1
  fi
  return $rc
}

# Mounts under a chroot, undone in reverse order. A folder with anything still mounted under it
# is never deleted: rm -rf through a bind mount of /dev would delete the host's /dev.
mounted=()
mount_in() {  # mount_in CHROOT: /proc, /sys, /dev, /dev/pts and the shared package cache.
  local r=$1
  mount -t proc proc "$r/proc" && mounted=("$r/proc" "${mounted[@]}") &&
    mount -t sysfs sysfs "$r/sys" && mounted=("$r/sys" "${mounted[@]}") &&
    mount --bind /dev "$r/dev" && mounted=("$r/dev" "${mounted[@]}") &&
    mount --bind /dev/pts "$r/dev/pts" && mounted=("$r/dev/pts" "${mounted[@]}") &&
    mount --bind "$CACHE/apt-archives" "$r/var/cache/apt/archives" &&
    mounted=("$r/var/cache/apt/archives" "${mounted[@]}")
}
unmount_all() {
  local m
  for m in "${mounted[@]}"; do
    umount "$m" 2>/dev/null || umount -l "$m" || echo "check_deb.sh: could not unmount $m" >&2
  done
  mounted=()
}
still_mounted() {  # still_mounted DIR: whether anything is mounted at or under DIR.
  awk -v d="$1" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/mounts
}
remove_tree() {
  [ -d "$1" ] || return 0
  if still_mounted "$1"; then
    echo "check_deb.sh: $1 still has mounts; left in place" >&2
    return 1
  fi
  rm -rf "$1"
}
cleanup() {
  unmount_all
  if [ "${KEEP_CHROOT:-0}" = 1 ]; then echo "kept $RUN"; else remove_tree "$RUN"; fi
  remove_tree "$BASE.new"
  rm -f "$LOG"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# in_chroot DIR COMMAND: a login-free shell in the chroot with none of the host's environment.
in_chroot() {
  local r=$1
  shift
  chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/bash -euo pipefail -c "$*"
}
APT_GET="apt-get -q -y -o Dpkg::Use-Pty=0 --no-install-recommends"

bootstrap() {  # The cached pristine chroot: minbase bookworm with its updates and security suites.
  remove_tree "$BASE.new" || return 1
  debootstrap --variant=minbase bookworm "$BASE.new" "$MIRROR" || return 1
  cat >"$BASE.new/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://security.debian.org/debian-security bookworm-security main
EOF
  # No service a package installs is started in the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$BASE.new/usr/sbin/policy-rc.d"
  chmod +x "$BASE.new/usr/sbin/policy-rc.d"
  mv "$BASE.new" "$BASE"
}

pack() {
  cmake --build "$BUILD" -j"$JOBS" || return 1
  rm -f "$BUILD"/graphrt_*.deb
  (cd "$BUILD" && cpack -G DEB) || return 1
  DEB=$(ls -t "$BUILD"/graphrt_*.deb 2>/dev/null | head -n 1)
  [ -n "$DEB" ] || { echo "cpack wrote no graphrt_*.deb in $BUILD"; return 1; }
}

prepare_run() {
  cp -a "$BASE" "$RUN" && cp /etc/resolv.conf "$RUN/etc/resolv.conf" && mount_in "$RUN" || return 1
  mkdir -p "$RUN/tmp/deb" "$RUN/src/tests/fixtures/saved_models" "$RUN/src/tests/fixtures/keras" &&
    cp "$DEB" "$RUN/tmp/deb/" && cp -a "$ROOT/tests/consumer" "$RUN/src/tests/" &&
    cp -a "$ROOT/tests/fixtures/saved_models/tf2_control_flow" "$RUN/src/tests/fixtures/saved_models/" &&
    cp "$ROOT/tests/fixtures/keras/dense.h5" "$RUN/src/tests/fixtures/keras/" &&
    in_chroot "$RUN" "apt-get -q update"
}

install_deb() {
  in_chroot "$RUN" "$APT_GET install ./tmp/deb/$(basename "$DEB")" || return 1
  in_chroot "$RUN" "graphrt --help >/dev/null && ls /usr/share/man/man1/graphrt.1*"
}

consumers() {
  local components_arg keras_arg=0 model_args="/src/tests/fixtures/saved_models/tf2_control_flow"
  components_arg=$(IFS=';'; echo "${components[*]}")
  for c in "${components[@]}"; do
    [ "$c" = keras ] && keras_arg=1 && model_args+=" /src/tests/fixtures/keras/dense.h5"
  done
  in_chroot "$RUN" "
    cmake -S /src/tests/consumer -B /tmp/consumer -DGRAPHRT_CONSUMER_COMPONENTS='$components_arg'
    cmake --build /tmp/consumer -j$JOBS
    cd /tmp/consumer && ctest --output-on-failure
    mkdir -p /tmp/pc && make -f /src/tests/consumer/pkgconfig/Makefile OUT=/tmp/pc KERAS=$keras_arg
    /tmp/pc/graphrt_consumer $model_args"
}

echo "build: $BUILD; components: ${components[*]:-none (CPU-only)}; chroot cache: $BASE"
step "cmake --build and cpack -G DEB" pack || exit 1
echo "package: $DEB"
dpkg-deb -f "$DEB" Depends | sed 's/^/  Depends: /'
if [ ! -d "$BASE" ]; then
  step "debootstrap --variant=minbase bookworm (cached after)" bootstrap || exit 1
fi
step "fresh chroot: copy, mount, apt-get update" prepare_run || exit 1
step "apt-get install ./$(basename "$DEB") (pulls its Depends)" install_deb || exit 1
step "apt-get install cmake g++ make pkg-config" in_chroot "$RUN" "$APT_GET install cmake g++ make pkg-config" || exit 1
step "consumer in the chroot: CMake and pkg-config, build and run" consumers
[ $status = 0 ] && echo "check_deb: the package installs and the consumer builds on Debian 12" ||
  echo "check_deb: FAILED"
exit $status
