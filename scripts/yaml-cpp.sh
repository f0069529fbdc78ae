#!/usr/bin/env bash
# Builds the yaml-cpp that windowctl's static binary links, from Debian's own source package,
# optimised for size, and caches it. Prints the install prefix (include/yaml-cpp,
# lib/libyaml-cpp.a, share/doc/yaml-cpp/copyright, BUILD-INFO) on stdout; everything else goes
# to stderr.
#
#   bash scripts/yaml-cpp.sh                     # the build machine's architecture
#   bash scripts/yaml-cpp.sh --arch arm64        # cross-compiled with Debian's cross toolchain
#   bash scripts/yaml-cpp.sh --cache DIR         # default $WINDOWCTL_YAML_CPP_CACHE, else
#                                                # ${XDG_CACHE_HOME:-~/.cache}/windowctl/yaml-cpp
#   bash scripts/yaml-cpp.sh --copy-to DIR       # also copy the prefix to DIR (the Dockerfile)
#
# Why: Debian's libyaml-cpp.a is compiled -O2 without a section per function; the same source
# compiled -Oz with one (windowctl links with --gc-sections), as LTO objects, makes the static
# binary about 120 KB smaller (docs/size-and-benchmark.md). CMake runs it for the static release build
# (WINDOWCTL_YAML_CPP=minimal, the default there); scripts/cross-arm64.sh and the Dockerfile do
# too. The other builds (sanitizers, fuzzing, WINDOWCTL_STATIC=OFF) link libyaml-cpp-dev.
#
# Source: the newest version of the source package "yaml-cpp" in this machine's own apt
# sources, fetched and verified by apt in a private apt state under the cache, unpacked and
# patched by dpkg-source (scripts/debian-source.sh says how); $WINDOWCTL_YAML_CPP_VERSION pins
# a version. Built as Debian builds its static library (the same CMake project and patches),
# without the tests and tools, with the flags below.
#
# Cache: one prefix per key, the key being a hash of the Debian source version, the target
# architecture, the C++ compiler's version line and the recipe (CMAKE_ARGS, CXXFLAGS_EXTRA,
# PREFIX, RECIPE). A build that finds its key costs nothing. It takes about a minute on 2 cores.
#
# Needs: apt, dpkg-dev, cmake, ninja-build, and g++ (amd64 on amd64) or Debian's cross compiler
# (crossbuild-essential-arm64 for arm64 on amd64).
set -euo pipefail

die() { echo "yaml-cpp.sh: FAIL: $*" >&2; exit 1; }
note() { echo "yaml-cpp.sh: $*" >&2; }

# --- what is built ---------------------------------------------------------------------------
# A static library only: no tests (they need googletest), no parse tools. Debian's own build
# keeps the contrib sources (YAML_CPP_BUILD_CONTRIB, on by default), and so does this one;
# what windowctl does not call is dropped at the link.
CMAKE_ARGS=(-DYAML_BUILD_SHARED_LIBS=OFF -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF
  -DCMAKE_BUILD_TYPE=None)
# -Oz, as windowctl itself (GCC 12: size before speed; yaml-cpp reads a kubeconfig and a few
# manifests). One section per function and object for --gc-sections. Position-dependent
# (-fno-pie), as the minimal OpenSSL: the static binary is loaded at a fixed address. No
# -DNDEBUG: Debian's build keeps the parser's assert()s (build type None), so does this one.
# LTO objects (GCC's bytecode besides the machine code: -ffat-lto-objects), so that the static
# binary's whole-program link optimises yaml-cpp with windowctl's code (16,704 B smaller than
# without); the test programs, linked without LTO, take the machine code. The bytecode is read
# only by the same GCC version, which the cache key holds.
CXXFLAGS_EXTRA=(-Oz -flto -ffat-lto-objects -fno-pie -ffunction-sections -fdata-sections)
# Where the build thinks it is installed: fixed, so the result does not depend on the cache's path.
PREFIX=/opt/windowctl-yaml-cpp
# Part of the cache key with the variables above: bump it when the build steps below change in a
# way these do not show.
RECIPE=1

# --- arguments, cache, source ---------------------------------------------------------------
debsrc_name=yaml-cpp.sh
debsrc_help_lines=30
# shellcheck source=scripts/debian-source.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian-source.sh"
debsrc_args "${WINDOWCTL_YAML_CPP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/windowctl/yaml-cpp}" "$@"
cxx="${cross}g++"
for tool in "$cxx" "${cross}gcc-ar" "${cross}gcc-ranlib" cmake ninja dpkg-source apt-get; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install g++ cmake ninja-build dpkg-dev; for arm64 crossbuild-essential-arm64)"
done
cxx_version=$("$cxx" --version | head -1)
debsrc_lock
debsrc_apt
debsrc_fetch yaml-cpp "${WINDOWCTL_YAML_CPP_VERSION:-}"

# --- the key, and the cached build ----------------------------------------------------------
key=$(printf '%s\n' "$version" "$arch" "$cxx_version" "$RECIPE" "${CMAKE_ARGS[*]}" "${CXXFLAGS_EXTRA[*]}" \
  "$PREFIX" | sha256sum | cut -c1-16)
prefix="$cache/$arch-$version-$key"
if [ ! -f "$prefix/BUILD-INFO" ]; then
  debsrc_unpack yaml-cpp yaml-cpp "$cxx_version"
  configure=(cmake -S "$work/src" -B "$work/build" -G Ninja "${CMAKE_ARGS[@]}"
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="${CXXFLAGS_EXTRA[*]}"
    -DCMAKE_AR="$(command -v "${cross}gcc-ar")" -DCMAKE_RANLIB="$(command -v "${cross}gcc-ranlib")"
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib -Wno-dev)
  [ -z "$cross" ] || configure+=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64)
  echo "+ ${configure[*]}" >>"$log"
  "${configure[@]}" >>"$log" 2>&1 || { tail -30 "$log" >&2; die "cmake configure failed"; }
  jobs=$(nproc 2>/dev/null || echo 2)
  cmake --build "$work/build" -j "$jobs" >>"$log" 2>&1 || { tail -30 "$log" >&2; die "build failed"; }
  DESTDIR="$work/dest" cmake --install "$work/build" >>"$log" 2>&1 || { tail -30 "$log" >&2; die "install failed"; }
  mv "$work/dest$PREFIX" "$prefix.tmp"
  # CMake's and pkg-config's files would name the build's paths; windowctl's CMake needs neither.
  rm -rf "$prefix.tmp/lib/cmake" "$prefix.tmp/lib/pkgconfig" "$prefix.tmp/share/cmake" "$prefix.tmp/share/pkgconfig"
  mkdir -p "$prefix.tmp/share/doc/yaml-cpp"
  cp "$work/src/debian/copyright" "$prefix.tmp/share/doc/yaml-cpp/copyright"
  {
    echo "source=yaml-cpp"
    echo "version=$version"
    echo "arch=$arch"
    echo "cxx=$cxx_version"
    echo "cmake=${CMAKE_ARGS[*]}"
    echo "cxxflags=${CXXFLAGS_EXTRA[*]}"
    echo "recipe=$RECIPE"
    echo "key=$key"
  } >"$prefix.tmp/BUILD-INFO"
  mv "$prefix.tmp" "$prefix"
  rm -rf "$work"
  note "built yaml-cpp $version for $arch in $((SECONDS - start)) s: $prefix"
fi
debsrc_prune "$prefix"
for f in include/yaml-cpp/yaml.h lib/libyaml-cpp.a share/doc/yaml-cpp/copyright; do
  [ -f "$prefix/$f" ] || die "$prefix/$f is missing"
done
debsrc_copy_to "$prefix"
echo "$prefix"
