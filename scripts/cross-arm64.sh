#!/usr/bin/env bash
# Cross-compiles windowctl for linux/arm64 into build-arm64/ with Debian's cross toolchain and
# cmake/aarch64-linux-gnu.cmake, checks that the result is a static aarch64 executable, runs the
# unit tests and `windowctl version` (which must print scripts/version.sh's version and commit)
# under qemu-user. Idempotent; run from a fresh clone as root (or with sudo available).
#
# OpenSSL and yaml-cpp are built from Debian's source packages with the cross compiler by
# scripts/openssl.sh and scripts/yaml-cpp.sh (CMake runs them; they are cached like the native
# ones), so no arm64 package is installed: the machine only gains the packages below.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "cross-arm64: FAIL: $*" >&2; exit 1; }
step() { echo "== cross-arm64: $*"; }
start=$SECONDS

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive

# Build tools and the header-only libraries, from the build machine's own architecture.
native=(
  cmake ninja-build file dpkg-dev make perl tzdata
  crossbuild-essential-arm64 qemu-user-static
  nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev
)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${native[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get update"
  $sudo_cmd apt-get update -qq || die "apt-get update failed"
  step "installing: ${missing[*]}"
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi

step "configure and build (MinSizeRel, static, cmake/aarch64-linux-gnu.cmake)"
cmake -S . -B build-arm64 -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DWINDOWCTL_STATIC=ON \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" >/dev/null || die "cmake configure failed"
openssl=$(sed -n "s/^WINDOWCTL_OPENSSL_PREFIX:INTERNAL=//p" build-arm64/CMakeCache.txt)
grep -qx "arch=arm64" "$openssl/BUILD-INFO" 2>/dev/null \
  || die "OpenSSL is ${openssl:-not the minimal one}, not an arm64 build of scripts/openssl.sh"
echo "openssl: $openssl"
yaml=$(sed -n "s/^WINDOWCTL_YAML_CPP_PREFIX:INTERNAL=//p" build-arm64/CMakeCache.txt)
grep -qx "arch=arm64" "$yaml/BUILD-INFO" 2>/dev/null \
  || die "yaml-cpp is ${yaml:-the system library}, not an arm64 build of scripts/yaml-cpp.sh"
echo "yaml-cpp: $yaml"
cmake --build build-arm64 || die "build failed"

bin=build-arm64/windowctl
info=$(file -b "$bin")
echo "file: $info"
case "$info" in *"ARM aarch64"*) ;; *) die "$bin is not an ARM aarch64 executable" ;; esac
case "$info" in *"statically linked"*) ;; *) die "$bin is not statically linked" ;; esac

# The unit tests, run directly rather than through ctest so that one case can be left out:
# posix_spawn reports a command that cannot be executed through memory it shares with the
# vfork()ed child, which qemu-user emulates with a plain fork(), so under qemu an absent exec
# plugin shows as "exit 127" instead of "cannot be started". Not a fault of the arm64 binary.
# (doctest splits filters at commas: hence the wildcard.)
qemu_only_skip="running a plugin: token out*"
step "unit tests under qemu-aarch64-static (skipping \"$qemu_only_skip\": qemu-user cannot report a failed exec through posix_spawn)"
qemu-aarch64-static -L /usr/aarch64-linux-gnu build-arm64/windowctl_tests \
  --test-case-exclude="$qemu_only_skip" || die "unit tests failed under qemu"

step "windowctl version under qemu-aarch64-static"
out=$(qemu-aarch64-static "$bin" version) || die "qemu-aarch64-static $bin version exited $?"
echo "$out"
# The version CMake compiled in is scripts/version.sh's (VERSION and git), as for the image.
version=$(sh scripts/version.sh) || die "scripts/version.sh failed"
commit=$(sh scripts/version.sh --commit) || die "scripts/version.sh --commit failed"
want="windowctl $version (commit $commit)"
[ "$out" = "$want" ] || die "windowctl version printed \"$out\", not \"$want\" (scripts/version.sh)"

size=$(stat -c %s "$bin")
echo "cross-arm64: OK: $bin ($size bytes, $(awk -v s="$size" 'BEGIN{printf "%.1f MiB", s/1048576}')), $((SECONDS - start)) s"
