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
# Source: the newest version of the source package "openssl" in this machine's own apt sources,
# fetched and verified by apt in a private apt state under the cache, unpacked and patched by
# dpkg-source (scripts/debian-source.sh, shared with scripts/yaml-cpp.sh, says how);
# $WINDOWCTL_OPENSSL_VERSION pins a version.
#
# Cache: one prefix per key, the key being a hash of the Debian source version, the target
# architecture, the C compiler's version line and the recipe (OPTIONS, C_ONLY_MODULES,
# CFLAGS_EXTRA, PREFIX, OPENSSLDIR and RECIPE below; a comment edit rebuilds nothing). A build
# that finds its key costs nothing: no compiler, and no network while the indexes are less than
# a day old. A lock keeps two builds of one cache from racing; builds of other keys go once
# unused for 7 days.
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
# -Oz (GCC 12: -Os that also trades speed for size where -Os still does not; 24 KB smaller on
# amd64, and windowctl's few kilobytes of TLS traffic never feel the difference; the constant-time
# code relies on value barriers, not on an optimisation level) with one section per function and
# object (windowctl links with --gc-sections), no unwind
# tables (C code: no exception passes through it), position-dependent (-fno-pie: the static
# binary is loaded at a fixed address, so PIC only costs bytes; CMake links the programs that
# link it -no-pie). No LTO: OpenSSL's maintainers advise against it for the constant-time code.
CFLAGS_EXTRA=(-Oz -fno-pie -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables)
# Where the binary thinks it is installed: fixed, so the result does not depend on the cache's
# path. With no-autoload-config and no modules nothing is ever read from there.
PREFIX=/opt/windowctl-openssl
OPENSSLDIR=/usr/lib/ssl
# Part of the cache key with the variables above: bump it when the build steps below change in a
# way these do not show.
RECIPE=1

# --- arguments, cache, source ---------------------------------------------------------------
debsrc_name=openssl.sh
debsrc_help_lines=28
# shellcheck source=scripts/debian-source.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian-source.sh"
debsrc_args "${WINDOWCTL_OPENSSL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/windowctl/openssl}" "$@"
cc="${cross}gcc"
for tool in "$cc" make perl dpkg-source apt-get; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install gcc make perl dpkg-dev; for arm64 crossbuild-essential-arm64)"
done
cc_version=$("$cc" --version | head -1)
debsrc_lock
debsrc_apt
debsrc_fetch openssl "${WINDOWCTL_OPENSSL_VERSION:-}"

# --- the key, and the cached build ----------------------------------------------------------
key=$(printf '%s\n' "$version" "$arch" "$cc_version" "$RECIPE" "${OPTIONS[*]}" "${C_ONLY_MODULES[*]}" \
  "${CFLAGS_EXTRA[*]}" "$PREFIX" "$OPENSSLDIR" | sha256sum | cut -c1-16)
prefix="$cache/$arch-$version-$key"
if [ ! -f "$prefix/BUILD-INFO" ]; then
  debsrc_unpack openssl OpenSSL "$cc_version"
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
  note "built OpenSSL $version for $arch in $((SECONDS - start)) s: $prefix"
fi
debsrc_prune "$prefix"
for f in include/openssl/ssl.h lib/libssl.a lib/libcrypto.a share/doc/openssl/copyright; do
  [ -f "$prefix/$f" ] || die "$prefix/$f is missing"
done
debsrc_copy_to "$prefix"
echo "$prefix"
