#!/usr/bin/env bash
# Builds the minimal OpenSSL that windowctl's static binary links, from Debian's own source
# package, and caches it. Prints the install prefix (include/, lib/libssl.a, lib/libcrypto.a,
# share/doc/openssl/copyright, BUILD-INFO) on stdout; everything else goes to stderr.
#
#   bash scripts/openssl.sh                      # the build machine's architecture
#   bash scripts/openssl.sh --arch arm64         # cross-compiled with Debian's cross toolchain
#   bash scripts/openssl.sh --cache DIR          # default $WINDOWCTL_OPENSSL_CACHE, else
#                                                # ${XDG_CACHE_HOME:-~/.cache}/windowctl/openssl
#   bash scripts/openssl.sh --copy-to DIR        # also copy the prefix to DIR (the Dockerfile)
#
# CMake runs it for the static release build (WINDOWCTL_OPENSSL=minimal, the default there);
# scripts/cross-arm64.sh and the Dockerfile do too. docs/tls.md says why.
#
# Source: the newest version of the source package "openssl" in this machine's own apt sources
# (the deb lines of /etc/apt/sources.list{,.d/*}, read as deb-src into a private apt state under
# the cache: the system's apt configuration is not touched). apt verifies what it downloads: the
# suite's Release file against Debian's archive keys (the sources' Signed-By), the .dsc and
# tarballs against the checksums in that Release's signed Sources index; dpkg-source checks the
# tarballs against the .dsc again and applies Debian's patches. A version whose files the mirror
# does not have is skipped with a warning, for the next newest ($WINDOWCTL_OPENSSL_VERSION pins
# one). The source indexes are refreshed when older than a day.
#
# Cache: one prefix per key, the key being a hash of the Debian source version, the target
# architecture, the C compiler's version line and the recipe (OPTIONS, C_ONLY_MODULES,
# CFLAGS_EXTRA, PREFIX, OPENSSLDIR and RECIPE below; a comment edit rebuilds nothing). A build
# that finds its key costs nothing: no compiler, and no network while the indexes are less than
# a day old. A lock keeps two builds of one cache from racing.
#
# Needs: apt, dpkg-dev (dpkg-source, dpkg-architecture), perl, make, and gcc (amd64 on amd64)
# or Debian's cross compiler (crossbuild-essential-arm64 for arm64 on amd64).
set -euo pipefail

die() { echo "openssl.sh: FAIL: $*" >&2; exit 1; }
note() { echo "openssl.sh: $*" >&2; }

# --- what is built ---------------------------------------------------------------------------
# Configure options: a TLS 1.2 + 1.3 client of kube-apiserver, nothing else (docs/tls.md).
# What stays: TLS 1.2 and 1.3; ECDHE with X25519, P-256, P-384 (and the other curves that the
# EC module holds anyway); RSA (PKCS#1 v1.5 and PSS), ECDSA, Ed25519 signatures; AES-GCM,
# ChaCha20-Poly1305 (and AES-CBC suites, part of the AES module); SHA-1/2/3, HMAC, HKDF; X.509
# path validation; PEM / DER keys: PKCS#1, SEC1, PKCS#8; error strings (windowctl prints them).
OPTIONS=(
  # A static library, nothing loaded at run time: no shared libraries or provider modules, no
  # engines, no DSO loader, no config file read at start-up, no legacy provider.
  no-shared no-pic no-module no-dso no-engine no-legacy no-autoload-config
  # Only the OpenSSL 3.0 API (windowctl uses nothing deprecated).
  no-deprecated
  # Protocols and TLS features a client of kube-apiserver never uses.
  no-ssl3 no-tls1 no-tls1_1 no-dtls no-dgram no-srtp no-nextprotoneg no-psk no-srp no-ct
  no-ocsp no-comp no-ssl-trace no-async no-multiblock no-ktls
  # The method tables of the protocols disabled above (no-dtls and no-tls1 leave DTLS_method(),
  # the DTLS record layer and the old versions' entries in the negotiation tables compiled in).
  no-tls1-method no-tls1_1-method no-dtls1-method no-dtls1_2-method
  # OpenSSL's secure heap: only in use after CRYPTO_secure_malloc_init(), which windowctl never
  # calls.
  no-secure-memory
  # Message formats and services.
  no-cms no-ts no-cmp no-rfc3779 no-ui-console
  # Ciphers, digests, MACs and key types no Kubernetes API server offers.
  no-idea no-rc2 no-rc4 no-rc5 no-des no-seed no-cast no-bf no-camellia no-aria no-sm2 no-sm3
  no-sm4 no-whirlpool no-md4 no-mdc2 no-rmd160 no-siphash no-blake2 no-scrypt no-siv no-ocb
  no-cmac no-dsa no-dh no-ec2m no-gost
  # Smaller objects: no source file names in error records (windowctl never prints them), and
  # neither the test programs nor the openssl command are built.
  no-filenames no-tests
)
# Modules whose assembler is left out (crypto/<module>/build.info: the C implementation is used).
# The EC module's assembler is mostly ecp_nistz256's precomputed table (~170 KB on amd64 and
# arm64); without it P-256 uses the same generic constant-time code as P-384. ChaCha20 and
# Poly1305 have constant-time C implementations. AES, GHASH (modes), SHA and BN keep theirs.
C_ONLY_MODULES=(ec:ECASM chacha:CHACHAASM poly1305:POLY1305ASM)
# -Os with one section per function and object (windowctl links with --gc-sections), no unwind
# tables (C code: no exception passes through it). No LTO: OpenSSL's maintainers advise against
# it for the constant-time code.
CFLAGS_EXTRA=(-Os -fno-pie -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables)
# Where the binary thinks it is installed: fixed, so the result does not depend on the cache's
# path. With no-autoload-config and no modules nothing is ever read from there.
PREFIX=/opt/windowctl-openssl
OPENSSLDIR=/usr/lib/ssl
# Part of the cache key with the variables above: bump it when the build steps below change in a
# way these do not show.
RECIPE=1

# --- arguments -------------------------------------------------------------------------------
build_arch=$(dpkg --print-architecture)
arch=$build_arch
cache=${WINDOWCTL_OPENSSL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/windowctl/openssl}
copy_to=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) [ $# -ge 2 ] || die "--arch needs a value"; arch=$2; shift 2 ;;
    --arch=*) arch=${1#*=}; shift ;;
    --cache) [ $# -ge 2 ] || die "--cache needs a value"; cache=$2; shift 2 ;;
    --cache=*) cache=${1#*=}; shift ;;
    --copy-to) [ $# -ge 2 ] || die "--copy-to needs a value"; copy_to=$2; shift 2 ;;
    --copy-to=*) copy_to=${1#*=}; shift ;;
    -h | --help) sed -n '2,31p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
case "$arch" in
  amd64 | arm64) ;;
  *) die "unsupported architecture $arch (amd64 or arm64)" ;;
esac

# The compiler: native, or Debian's cross compiler for another architecture.
cross=""
if [ "$arch" != "$build_arch" ]; then
  command -v dpkg-architecture >/dev/null || die "dpkg-architecture not found: apt-get install dpkg-dev"
  cross="$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)-"
fi
cc="${cross}gcc"
for tool in "$cc" make perl dpkg-source apt-get; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install gcc make perl dpkg-dev; for arm64 crossbuild-essential-arm64)"
done
cc_version=$("$cc" --version | head -1)

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
exec 9>"$cache/.lock"
flock 9

# --- the source indexes: this machine's deb sources as deb-src, in a private apt state ----------
sources_text() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # One-line format: each "deb" line once more as "deb-src".
    awk '$1 == "deb" { $1 = "deb-src"; print }' "$f"
  done
}
sources_deb822() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: each enabled stanza whose Types hold "deb", with Types: deb-src.
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
      {
        n = split($0, lines, "\n"); out = ""; types = 0; off = 0
        for (i = 1; i <= n; i++) {
          line = lines[i]
          if (line ~ /^[Tt]ypes:/) { if (line ~ /[ \t]deb([ \t]|$)/) types = 1; line = "Types: deb-src" }
          if (line ~ /^[Ee]nabled:[ \t]*[Nn]o/) off = 1
          out = out line "\n"
        }
        if (types && !off) print out
      }' "$f"
  done
}
list_text=$(sources_text)
deb822_text=$(sources_deb822)
[ -n "$list_text$deb822_text" ] || die "no deb entries in /etc/apt/sources.list{,.d/*}"
apt_id=$(printf '%s\n--\n%s\n' "$list_text" "$deb822_text" | sha256sum | cut -c1-12)
apt_dir="$cache/apt-$apt_id"
mkdir -p "$apt_dir/etc/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
printf '%s\n' "$list_text" >"$apt_dir/etc/sources.list"
printf '%s\n' "$deb822_text" >"$apt_dir/etc/sources.list.d/deb-src.sources"
APT_OPTS=(
  -o Dir::Etc::SourceList="$apt_dir/etc/sources.list"
  -o Dir::Etc::SourceParts="$apt_dir/etc/sources.list.d"
  -o Dir::State::Lists="$apt_dir/lists"
  -o Dir::Cache="$apt_dir/cache"
  # The cache belongs to whoever runs this (root in CI and in image builds): no _apt sandbox.
  -o APT::Sandbox::User="$(id -un)"
  -o Acquire::Languages=none
)
stamp="$apt_dir/updated"
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
  note "apt-get update (deb-src of this machine's sources, private state in $apt_dir)"
  if ! apt-get "${APT_OPTS[@]}" -qq update >"$apt_dir/update.log" 2>&1; then
    # A source without deb-src (a third-party repository) fails its part only.
    grep -E '^(E|W):' "$apt_dir/update.log" | sed 's/^/openssl.sh: apt: /' >&2 || true
  fi
  rm -f "$apt_dir/resolved"
  touch "$stamp"
fi

# --- the version ---------------------------------------------------------------------------------
src_dir="$cache/src"
fetch() {  # VERSION: download (or re-check) the source package into $src_dir/VERSION
  local v=$1 d="$src_dir/$1"
  mkdir -p "$d"
  (cd "$d" && apt-get "${APT_OPTS[@]}" -qq source --download-only "openssl=$v") >"$d.log" 2>&1
}
resolved=$(cat "$apt_dir/resolved" 2>/dev/null || true)
if [ -n "${WINDOWCTL_OPENSSL_VERSION:-}" ]; then
  version=$WINDOWCTL_OPENSSL_VERSION
  [ "$resolved" = "$version" ] || { fetch "$version" || { sed 's/^/  /' "$src_dir/$version.log" >&2; die "cannot download openssl $version (WINDOWCTL_OPENSSL_VERSION)"; }; }
elif [ -n "$resolved" ] && [ -f "$src_dir/$resolved/.fetched" ]; then
  version=$resolved
else
  mapfile -t versions < <(apt-cache "${APT_OPTS[@]}" showsrc openssl 2>/dev/null \
    | awk '/^Package: / { p = $2 } /^Version: / && p == "openssl" { print $2 }' | sort -u)
  [ ${#versions[@]} -gt 0 ] || die "apt knows no source package openssl (log: $apt_dir/update.log)"
  # Newest first (Debian version order).
  sorted=()
  for v in "${versions[@]}"; do
    i=0
    while [ $i -lt ${#sorted[@]} ] && dpkg --compare-versions "${sorted[$i]}" gt "$v"; do i=$((i + 1)); done
    sorted=("${sorted[@]:0:$i}" "$v" "${sorted[@]:$i}")
  done
  version=""
  for v in "${sorted[@]}"; do
    if fetch "$v"; then
      version=$v
      break
    fi
    note "warning: openssl $v is in the source index but its files could not be downloaded:"
    grep -E '^(E|W):' "$src_dir/$v.log" | head -3 | sed 's/^/  /' >&2 || true
    note "warning: trying the next newest version"
  done
  [ -n "$version" ] || die "no version of the openssl source package could be downloaded"
  [ "$version" = "${sorted[0]}" ] \
    || note "warning: building openssl $version, not the newest in the index (${sorted[0]}): its source is not on the mirror"
fi
touch "$src_dir/$version/.fetched"
echo "$version" >"$apt_dir/resolved"
# Older downloads go.
for d in "$src_dir"/*/; do
  [ "$d" = "$src_dir/$version/" ] || rm -rf "${d%/}" "${d%/}.log"
done

# --- the key, and the cached build ----------------------------------------------------------
key=$(printf '%s\n' "$version" "$arch" "$cc_version" "$RECIPE" "${OPTIONS[*]}" "${C_ONLY_MODULES[*]}" \
  "${CFLAGS_EXTRA[*]}" "$PREFIX" "$OPENSSLDIR" | sha256sum | cut -c1-16)
prefix="$cache/$arch-$version-$key"
if [ ! -f "$prefix/BUILD-INFO" ]; then
  dsc=$(ls "$src_dir/$version"/openssl_*.dsc 2>/dev/null | head -1)
  [ -n "$dsc" ] || die "no .dsc in $src_dir/$version"
  work="$cache/work-$arch"
  rm -rf "$work" "$prefix.tmp"
  mkdir -p "$work"
  log="$cache/build-$arch.log"
  : >"$log"
  start=$SECONDS
  note "building OpenSSL $version for $arch ($cc_version); log: $log"
  # dpkg-source checks the tarballs against the .dsc's checksums and applies Debian's patches.
  # (The .dsc's own signature is the uploader's; what vouches for it is apt's signed index.)
  dpkg-source -x "$dsc" "$work/src" >>"$log" 2>&1 || { tail -20 "$log" >&2; die "dpkg-source -x $dsc failed"; }
  cd "$work/src"
  for m in "${C_ONLY_MODULES[@]}"; do
    f="crypto/${m%%:*}/build.info"
    pattern="IF\\[\\\$${m#*:}_{- \\\$target{asm_arch} -}\\]"
    [ "$(grep -c "^ *$pattern *\$" "$f")" = 1 ] || die "$f: the line IF[\$${m#*:}_{- \$target{asm_arch} -}] is not there once (new upstream layout?)"
    sed -i "s/^\\( *\\)$pattern *\$/\\1IF[0]/" "$f"
  done
  configure=(./Configure "debian-$arch" "${OPTIONS[@]}" --prefix="$PREFIX" --openssldir="$OPENSSLDIR"
    --libdir=lib "${CFLAGS_EXTRA[@]}")
  [ -z "$cross" ] || configure+=(--cross-compile-prefix="$cross")
  echo "+ ${configure[*]}" >>"$log"
  "${configure[@]}" >>"$log" 2>&1 || { tail -30 "$log" >&2; die "Configure failed"; }
  # The options that matter most for size and safety must have taken.
  for feature in legacy deprecated engine module shared tls1 tls1_1; do
    perl configdata.pm -o | grep -Eq "^ +$feature +\\[" || die "Configure left $feature enabled"
  done
  jobs=$(nproc 2>/dev/null || echo 2)
  make -j"$jobs" build_libs >>"$log" 2>&1 || { tail -30 "$log" >&2; die "make build_libs failed"; }
  make install_dev DESTDIR="$work/dest" >>"$log" 2>&1 || { tail -30 "$log" >&2; die "make install_dev failed"; }
  mv "$work/dest$PREFIX" "$prefix.tmp"
  rm -rf "$prefix.tmp/lib/pkgconfig"
  mkdir -p "$prefix.tmp/share/doc/openssl"
  cp debian/copyright "$prefix.tmp/share/doc/openssl/copyright"
  cd "$cache"
  {
    echo "source=openssl"
    echo "version=$version"
    echo "arch=$arch"
    echo "cc=$cc_version"
    echo "configure=${configure[*]:1}"
    echo "c-only-asm=${C_ONLY_MODULES[*]}"
    echo "recipe=$RECIPE"
    echo "key=$key"
  } >"$prefix.tmp/BUILD-INFO"
  mv "$prefix.tmp" "$prefix"
  rm -rf "$work"
  # Builds of other keys for this architecture are stale.
  for d in "$cache/$arch"-*/; do
    [ "$d" = "$prefix/" ] || rm -rf "${d%/}"
  done
  note "built OpenSSL $version for $arch in $((SECONDS - start)) s: $prefix"
fi
for f in include/openssl/ssl.h lib/libssl.a lib/libcrypto.a share/doc/openssl/copyright; do
  [ -f "$prefix/$f" ] || die "$prefix/$f is missing"
done
if [ -n "$copy_to" ]; then
  rm -rf "$copy_to"
  mkdir -p "$(dirname "$copy_to")"
  cp -a "$prefix" "$copy_to"
fi
echo "$prefix"
