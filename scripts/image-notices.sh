#!/bin/sh
# Run by the Dockerfile's builder stage, after the build: puts windowctl's license and notices
# into the image, under OUT (/out/usr/share/doc/windowctl):
#
#   LICENSE                  windowctl's license, Apache-2.0
#   NOTICE                   what the binary and the image contain, under which licenses
#   packages.txt             the Debian packages they came from, with versions (for the sources)
#   copyright/<component>    each component's Debian copyright file
#   common-licenses/LGPL-2.1, GPL-3   the full texts those copyright files refer to
#
# and checks, against the linker's map (BUILD/windowctl.map) and the compiler's record of the
# headers windowctl's objects were compiled from (ninja -t deps), that every library in the
# binary belongs to a component NOTICE lists: a library added to the build without a notice
# fails the image build here. The minimal OpenSSL and yaml-cpp (scripts/openssl.sh and
# scripts/yaml-cpp.sh, their prefixes in BUILD/CMakeCache.txt) are Debian's source packages built
# here, not Debian binary packages: their files are components openssl and yaml-cpp, with the
# source version and Debian copyright file each prefix carries (packages.txt: windowctl-openssl,
# windowctl-yaml-cpp).
#
#   sh scripts/image-notices.sh BUILD OUT
set -eu

die() { echo "image-notices: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: image-notices.sh BUILD OUT"
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
out=$2
map=$build/windowctl.map
[ -f "$map" ] || die "no $map (the static link writes it: WINDOWCTL_STATIC=ON)"
for f in LICENSE NOTICE; do [ -f "$src/$f" ] || die "no $f in $src"; done

# The component a Debian binary package belongs to; "-" for the kernel's UAPI headers (constants
# and structure layouts, GPL-2.0 WITH Linux-syscall-note, which keeps them out of the program's
# license); empty for anything NOTICE does not list. The -arm64-cross packages are Debian's
# cross toolchain: the same glibc and GCC sources, built for arm64.
component() {
  case "$1" in
    libc6-dev | libc6-dev-*-cross) echo glibc ;;
    libstdc++-*-dev | libstdc++-*-dev-*-cross | libgcc-*-dev | libgcc-*-dev-*-cross) echo gcc ;;
    libssl-dev) echo openssl ;;
    libyaml-cpp-dev) echo yaml-cpp ;;
    nlohmann-json3-dev) echo nlohmann-json ;;
    libspdlog-dev) echo spdlog ;;
    libfmt-dev) echo fmt ;;
    libcli11-dev) echo cli11 ;;
    tzdata) echo tzdata ;;
    linux-libc-dev | linux-libc-dev-*-cross) echo - ;;
    *) echo "" ;;
  esac
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. What the linker loaded from outside the build tree: archives and start files (LTO's
# temporary objects are windowctl's own code).
sed -n 's/^LOAD \(\/[^ ]*\)$/\1/p' "$map" | grep -v '\.ltrans[0-9]*\.ltrans\.o$' >"$work/linked" || true
[ -s "$work/linked" ] || die "$map lists no system libraries: is it a map of a static link?"
# 2. The headers windowctl's own objects were compiled from (not the tests'): header-only
# libraries are in the binary too.
(cd "$build" && ninja -t deps) | awk '
  /^[^ \t]/ { keep = ($1 ~ /^CMakeFiles\/windowctl(_core)?\.dir\//); next }
  keep && $1 ~ /^\// { print $1 }' >"$work/headers"
grep -q '^/usr/' "$work/headers" || die "ninja -t deps in $build lists no system headers"
# 3. The image's tz database.
echo /usr/share/zoneinfo/Europe/Zurich >"$work/data"

# Their Debian packages: dpkg -S once for all (a few thousand paths take a second). Paths in the
# source or build tree are windowctl's own; those in the minimal OpenSSL's prefix are OpenSSL's.
sort -u "$work/linked" "$work/headers" "$work/data" | xargs -r realpath -- \
  | grep -v -e "^$src/" -e "^$(realpath "$build")/" | sort -u >"$work/files"
# The libraries built from Debian's source packages: component, CMake's prefix variable, the file
# that must be linked from it. Each prefix's files are that component's.
: >"$work/built"
for spec in openssl:WINDOWCTL_OPENSSL_PREFIX:lib/libssl.a yaml-cpp:WINDOWCTL_YAML_CPP_PREFIX:lib/libyaml-cpp.a; do
  c=${spec%%:*}; rest=${spec#*:}; var=${rest%%:*}; lib=${rest#*:}
  prefix=$(sed -n "s/^$var:INTERNAL=//p" "$build/CMakeCache.txt" 2>/dev/null || true)
  [ -n "$prefix" ] || continue
  prefix=$(realpath "$prefix")
  info="$prefix/BUILD-INFO"
  [ -f "$info" ] || die "$prefix has no BUILD-INFO: not a prefix that scripts/$c.sh made"
  version=$(sed -n 's/^version=//p' "$info")
  [ -n "$version" ] && grep -qx "source=$c" "$info" || die "$info names no $c source version"
  [ -s "$prefix/share/doc/$c/copyright" ] || die "no Debian copyright file in $prefix"
  grep -q "^$prefix/$lib\$" "$work/files" || die "the map does not show $prefix/$lib linked in"
  grep -v "^$prefix/" "$work/files" >"$work/files.debian" || true
  mv "$work/files.debian" "$work/files"
  printf '%s\t%s\t%s\n' "$c" "$version" "$prefix" >>"$work/built"
done
xargs -r dpkg-query -S <"$work/files" 2>/dev/null \
  | awk '!/^diversion / { i = index($0, ": "); pkg = substr($0, 1, i - 1); sub(/,.*/, "", pkg)
                          print substr($0, i + 2) "\t" pkg }' | sort -u >"$work/owners"
awk -F'\t' 'NR == FNR { owned[$1] = 1; next } !($1 in owned)' "$work/owners" "$work/files" >"$work/unowned"
[ ! -s "$work/unowned" ] || die "$(head -3 "$work/unowned" | tr '\n' ' ')(in windowctl or its image) belong to no Debian package: list them in NOTICE and scripts/image-notices.sh"
: >"$work/packages"
cut -f2 "$work/owners" | sort -u | while read -r pkg; do
  c=$(component "${pkg%%:*}")
  [ -n "$c" ] || die "windowctl holds code from Debian package ${pkg%%:*} ($(awk -F'\t' -v p="$pkg" '$2 == p {print $1; exit}' "$work/owners")), which NOTICE does not list: add it to NOTICE and to scripts/image-notices.sh"
  [ "$c" = - ] || echo "$c $pkg" >>"$work/packages"
done
while IFS="$(printf '\t')" read -r c version prefix; do echo "$c windowctl-$c" >>"$work/packages"; done <"$work/built"
sort -u "$work/packages" -o "$work/packages"

# Every component NOTICE names must be there: this script checks NOTICE's list, and the list
# has no stale entries.
for c in glibc gcc openssl yaml-cpp nlohmann-json spdlog fmt cli11 tzdata; do
  grep -q "^$c " "$work/packages" || die "NOTICE lists $c, but the build used none of it (update NOTICE and this script)"
done

rm -rf "$out"
mkdir -p "$out/copyright" "$out/common-licenses"
cp "$src/LICENSE" "$src/NOTICE" "$out/"
cp /usr/share/common-licenses/LGPL-2.1 /usr/share/common-licenses/GPL-3 "$out/common-licenses/"
{
  echo "# The Debian 12 packages windowctl's binary and image were built from. Their sources:"
  echo "# apt-get source SOURCE=VERSION, or https://snapshot.debian.org/package/SOURCE/VERSION/"
  echo "# (Built-Using: the sources a cross-toolchain package was built from.)"
  while IFS="$(printf '\t')" read -r c version prefix; do
    echo "# windowctl-$c: Debian's source package $c, built by scripts/$c.sh (NOTICE)."
  done <"$work/built"
  printf '%-14s %-32s %-26s %-22s %-26s %s\n' "# component" package version source source-version built-using
  while read -r c pkg; do
    built=$(awk -F'\t' -v p="$pkg" '"windowctl-" $1 == p' "$work/built")
    if [ -n "$built" ]; then
      version=$(printf '%s\n' "$built" | cut -f2)
      fields=$(printf '%s\t%s\t%s\t' "$version" "$c" "$version")
    else
      fields=$(dpkg-query -W -f='${Version}\t${source:Package}\t${source:Version}\t${Built-Using}' "$pkg") \
        || die "dpkg-query $pkg failed"
    fi
    printf '%s\n' "$fields" | awk -F'\t' -v c="$c" -v p="$pkg" '{
      bu = $4; gsub(/, /, ",", bu); if (bu == "") bu = "-"
      printf "%-14s %-32s %-26s %-22s %-26s %s\n", c, p, $1, $2, $3, bu }'
  done <"$work/packages"
} >"$out/packages.txt"
# One Debian copyright file per component: its first package's (glibc: libc6-dev; gcc: the
# libgcc and libstdc++ packages share gcc's).
while read -r c pkg; do
  [ ! -e "$out/copyright/$c" ] || continue
  f=/usr/share/doc/${pkg%%:*}/copyright
  prefix=$(awk -F'\t' -v p="$pkg" '"windowctl-" $1 == p { print $3 }' "$work/built")
  [ -z "$prefix" ] || f=$prefix/share/doc/$c/copyright
  [ -s "$f" ] || die "no $f"
  cp -L "$f" "$out/copyright/$c"
done <"$work/packages"
chmod -R a+rX,go-w "$out"
echo "image-notices: $(awk '!/^#/ {print $1}' "$out/packages.txt" | sort -u | tr '\n' ' ')into $out"
