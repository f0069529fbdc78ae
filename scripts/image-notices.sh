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
# fails the image build here. The minimal OpenSSL (scripts/openssl.sh, the prefix in
# BUILD/CMakeCache.txt) is Debian's source package built here, not a Debian binary package: its
# files are component openssl, with the source version and Debian copyright file it carries.
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
openssl_prefix=$(sed -n 's/^WINDOWCTL_OPENSSL_PREFIX:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
openssl_version=""
if [ -n "$openssl_prefix" ]; then
  openssl_prefix=$(realpath "$openssl_prefix")
  info="$openssl_prefix/BUILD-INFO"
  [ -f "$info" ] || die "$openssl_prefix has no BUILD-INFO: not a prefix that scripts/openssl.sh made"
  openssl_version=$(sed -n 's/^version=//p' "$info")
  [ -n "$openssl_version" ] && grep -qx 'source=openssl' "$info" || die "$info names no openssl source version"
  [ -s "$openssl_prefix/share/doc/openssl/copyright" ] || die "no Debian copyright file in $openssl_prefix"
  grep -q "^$openssl_prefix/lib/libssl.a\$" "$work/files" || die "the map does not show $openssl_prefix/lib/libssl.a linked in"
  grep -v "^$openssl_prefix/" "$work/files" >"$work/files.debian" || true
  mv "$work/files.debian" "$work/files"
fi
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
[ -z "$openssl_version" ] || echo "openssl windowctl-openssl" >>"$work/packages"
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
  [ -z "$openssl_version" ] || echo "# windowctl-openssl: Debian's source package openssl, built by scripts/openssl.sh (NOTICE)."
  printf '%-14s %-32s %-26s %-22s %-26s %s\n' "# component" package version source source-version built-using
  while read -r c pkg; do
    if [ "$pkg" = windowctl-openssl ]; then
      fields=$(printf '%s\topenssl\t%s\t' "$openssl_version" "$openssl_version")
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
  [ "$pkg" != windowctl-openssl ] || f=$openssl_prefix/share/doc/openssl/copyright
  [ -s "$f" ] || die "no $f"
  cp -L "$f" "$out/copyright/$c"
done <"$work/packages"
chmod -R a+rX,go-w "$out"
echo "image-notices: $(awk '!/^#/ {print $1}' "$out/packages.txt" | sort -u | tr '\n' ' ')into $out"
