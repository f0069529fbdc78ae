#!/usr/bin/env bash
# Cross-compiles windowctl for linux/arm64 into build-arm64/ with Debian's cross toolchain and
# cmake/aarch64-linux-gnu.cmake, checks that the result is a static aarch64 executable, runs the
# unit tests and `windowctl version` (which must print scripts/version.sh's version and commit)
# under qemu-user. Idempotent; run from a fresh clone as root (or with sudo available).
#
# OpenSSL is the minimal one that scripts/openssl.sh builds from Debian's source package with the
# cross compiler (CMake runs it; it is cached like the native one). libyaml-cpp.a is not
# installed but unpacked into build-arm64/arm64-root: libyaml-cpp-dev is not "Multi-Arch: same",
# so installing libyaml-cpp-dev:arm64 would remove the native libyaml-cpp-dev the other builds
# need. The machine itself only gains the arm64 architecture in dpkg and the packages below.
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
  nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev libyaml-cpp-dev
)
# Unpacked into the arm64 root, not installed (see above). Their headers come along.
arm64_debs=(libyaml-cpp-dev)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${native[@]}"; do installed "$p" || missing+=("$p"); done
updated=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  step "adding the arm64 architecture to dpkg"
  $sudo_cmd dpkg --add-architecture arm64
  updated=1
fi
arm64_known() { apt-cache show "libyaml-cpp-dev:arm64" >/dev/null 2>&1; }
if [ "$updated" = 1 ] || [ ${#missing[@]} -gt 0 ] || ! arm64_known; then
  step "apt-get update"
  $sudo_cmd apt-get update -qq || die "apt-get update failed"
fi
if [ ${#missing[@]} -gt 0 ]; then
  step "installing: ${missing[*]}"
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi
arm64_known || die "apt knows no arm64 packages (is arm64 in the apt sources' architectures?)"

# The arm64 root: re-made whenever the candidate versions change.
root="$PWD/build-arm64/arm64-root"
want=()
for p in "${arm64_debs[@]}"; do
  v=$(apt-cache policy "$p:arm64" | awk '/Candidate:/ {print $2}')
  [ -n "$v" ] && [ "$v" != "(none)" ] || die "no candidate version of $p:arm64"
  want+=("$p:arm64=$v")
done
if [ "$(cat "$root/.stamp" 2>/dev/null)" != "${want[*]}" ]; then
  step "unpacking ${want[*]} into build-arm64/arm64-root"
  rm -rf "$root" build-arm64/debs
  mkdir -p "$root" build-arm64/debs
  # Sandbox user root: _apt may not write into this folder, and apt would warn about that.
  (cd build-arm64/debs && apt-get download -qq -o APT::Sandbox::User=root "${want[@]}") \
    || die "apt-get download ${want[*]} failed"
  for deb in build-arm64/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
  echo "${want[*]}" >"$root/.stamp"
fi
[ -f "$root/usr/lib/aarch64-linux-gnu/libyaml-cpp.a" ] || die "libyaml-cpp.a missing from $root"
# The compile reads the native package's yaml-cpp headers (cmake/aarch64-linux-gnu.cmake): they
# must be those of the arm64 library it links.
native_yaml=$(dpkg-query -W -f='${Version}' libyaml-cpp-dev)
for w in "${want[@]}"; do
  case "$w" in
    libyaml-cpp-dev:arm64=*) [ "${w#*=}" = "$native_yaml" ] \
      || die "libyaml-cpp-dev is $native_yaml natively but ${w#*=} for arm64: the headers would not match the library" ;;
  esac
done

step "configure and build (MinSizeRel, static, cmake/aarch64-linux-gnu.cmake)"
cmake -S . -B build-arm64 -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DWINDOWCTL_STATIC=ON \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
  -DWINDOWCTL_CROSS_ROOT="$root" >/dev/null || die "cmake configure failed"
found=$(sed -n "s/^YAML_LIB:FILEPATH=//p" build-arm64/CMakeCache.txt)
case "$found" in
  "$root"/usr/lib/aarch64-linux-gnu/*.a) ;;
  *) die "YAML_LIB is $found, not the arm64 static archive under $root" ;;
esac
openssl=$(sed -n "s/^WINDOWCTL_OPENSSL_PREFIX:INTERNAL=//p" build-arm64/CMakeCache.txt)
grep -qx "arch=arm64" "$openssl/BUILD-INFO" 2>/dev/null \
  || die "OpenSSL is ${openssl:-not the minimal one}, not an arm64 build of scripts/openssl.sh"
echo "openssl: $openssl"
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
