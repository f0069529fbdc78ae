# windowctl's container image: the static binary alone in an empty (scratch) image.
#
#   docker build -t windowctl .                                  # the build machine's arch
#   docker buildx build --platform linux/arm64 -t windowctl .    # arm64, cross-compiled
#   bash scripts/image.sh                                        # buildah, no registry needed
#
# The builder always runs on the build machine's own platform ($BUILDPLATFORM) and cross-compiles
# when the target differs (linux/amd64 -> linux/arm64 only), so no emulation is needed.
#
# Build arguments (besides BuildKit's own TARGETARCH / BUILDPLATFORM):
#   BASE      builder's base image (scripts/image.sh passes localhost/debian:bookworm, made
#             with debootstrap)
#   VERSION   the version `windowctl version` prints and org.opencontainers.image.version:
#             scripts/image.sh passes scripts/version.sh's (the file VERSION with git's
#             description); the build context has no .git, so CMake takes it from here
#             (-DWINDOWCTL_VERSION). Not given: the binary prints the file VERSION, and the label
#             is empty (pass --build-arg VERSION=$(sh scripts/version.sh) to a plain build).
#   REVISION  the commit `windowctl version` prints and org.opencontainers.image.revision
#             (scripts/image.sh: 12 hex digits of HEAD; -DWINDOWCTL_COMMIT); default unknown.
ARG BASE=debian:bookworm
ARG VERSION=
ARG REVISION=unknown

# The build tools and libraries, the minimal OpenSSL and yaml-cpp included: a stage of its own so
# that scripts/image.sh can tag it and keep it (with its layer cache) between runs.
FROM --platform=$BUILDPLATFORM ${BASE} AS deps
# Set by BuildKit (buildah 1.28 needs --build-arg); empty under the legacy docker builder,
# which means "native".
ARG TARGETARCH

# Native: g++. Cross: Debian's cross toolchain. The header-only dependencies are the build
# machine's either way, and the two compiled ones are built from source below, so no -dev package
# of the target architecture is needed. gcc, make, perl and dpkg-dev build OpenSSL, cmake and
# ninja yaml-cpp (below).
RUN set -eu; \
    build_arch=$(dpkg --print-architecture); \
    target_arch=${TARGETARCH:-$build_arch}; \
    if [ "$target_arch" = "$build_arch" ]; then \
      toolchain="g++"; \
    elif [ "$target_arch" = arm64 ]; then \
      toolchain="crossbuild-essential-arm64"; \
    else \
      echo "cannot build for $target_arch on $build_arch (only native, or arm64 on another arch)" >&2; \
      exit 1; \
    fi; \
    apt-get update -qq; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $toolchain gcc make perl dpkg-dev cmake ninja-build file tzdata ccache \
      nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev >/dev/null; \
    rm -rf /var/lib/apt/lists/*

# The minimal OpenSSL the static binary links: Debian's source package openssl, fetched from the
# base's own apt mirror, verified and built by scripts/openssl.sh (docs/tls.md), into
# /opt/windowctl-openssl. The script caches by source version, architecture, compiler and
# recipe: scripts/image.sh mounts the build machine's cache at /var/cache/windowctl-openssl
# (buildah bud -v, marked with .build-machine), so an OpenSSL that its native or cross build
# already made is taken from there; a plain docker build makes it here (a few minutes).
# yaml-cpp likewise: Debian's source package yaml-cpp built -Oz by scripts/yaml-cpp.sh into
# /opt/windowctl-yaml-cpp, cached at /var/cache/windowctl-yaml-cpp (about a minute when not).
COPY scripts/debian-source.sh scripts/openssl.sh scripts/yaml-cpp.sh /tmp/debian-source/
RUN set -eu; \
    target_arch=${TARGETARCH:-$(dpkg --print-architecture)}; \
    WINDOWCTL_OPENSSL_CACHE=/var/cache/windowctl-openssl \
      bash /tmp/debian-source/openssl.sh --arch "$target_arch" --copy-to /opt/windowctl-openssl; \
    cat /opt/windowctl-openssl/BUILD-INFO; \
    [ -e /var/cache/windowctl-openssl/.build-machine ] || rm -rf /var/cache/windowctl-openssl; \
    WINDOWCTL_YAML_CPP_CACHE=/var/cache/windowctl-yaml-cpp \
      bash /tmp/debian-source/yaml-cpp.sh --arch "$target_arch" --copy-to /opt/windowctl-yaml-cpp; \
    cat /opt/windowctl-yaml-cpp/BUILD-INFO; \
    [ -e /var/cache/windowctl-yaml-cpp/.build-machine ] || rm -rf /var/cache/windowctl-yaml-cpp; \
    rm -r /tmp/debian-source

FROM deps AS builder
ARG TARGETARCH
WORKDIR /src
COPY . .
ARG VERSION
ARG REVISION
# Cross-compiles with cmake/aarch64-linux-gnu.cmake when the target is not the build machine's.
# scripts/image.sh mounts the build machine's ccache at /var/cache/windowctl-ccache (marked with
# .build-machine): the compile lines are those of its own build/ and build-arm64/ (CMakeLists.txt,
# "ccache"), so what they compiled is taken from there. A plain docker build compiles uncached.
# There is no .git in the build context: the version and commit come from VERSION and REVISION
# (CMake's WINDOWCTL_VERSION / WINDOWCTL_COMMIT), and the native binary must print exactly them.
# The tz database for windows "in ZONE" (src/zone.h) goes into /out too, without the leap-second
# "right/" copy and the localtime link to /etc, which a scratch image has not.
RUN set -eu; \
    VERSION=${VERSION:-$(cat VERSION)}; \
    build_arch=$(dpkg --print-architecture); \
    target_arch=${TARGETARCH:-$build_arch}; \
    case "$target_arch" in \
      amd64) expect="x86-64" ;; \
      arm64) expect="ARM aarch64" ;; \
      *) expect="" ;; \
    esac; \
    toolchain=""; \
    build=build; \
    if [ "$target_arch" != "$build_arch" ]; then \
      toolchain="-DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/aarch64-linux-gnu.cmake"; \
      build=build-$target_arch; \
    fi; \
    if [ -e /var/cache/windowctl-ccache/.build-machine ]; then \
      export CCACHE_DIR=/var/cache/windowctl-ccache; \
    else \
      export CCACHE_DISABLE=1; \
    fi; \
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DWINDOWCTL_STATIC=ON $toolchain \
      -DWINDOWCTL_OPENSSL_ROOT=/opt/windowctl-openssl -DWINDOWCTL_YAML_CPP_ROOT=/opt/windowctl-yaml-cpp \
      -DWINDOWCTL_VERSION="$VERSION" -DWINDOWCTL_COMMIT="$REVISION"; \
    cmake --build "$build"; \
    ln -sfn "$PWD/$build" /build; \
    grep -qF "kVersion = \"$VERSION\";" /build/generated/version.h \
      && grep -qF "kCommit = \"$REVISION\";" /build/generated/version.h \
      || { echo "/build/generated/version.h does not hold version $VERSION and commit $REVISION" >&2; exit 1; }; \
    if [ "$target_arch" = "$build_arch" ]; then \
      (cd /build && ctest --output-on-failure); \
      out=$(/build/windowctl version); \
      echo "$out"; \
      [ "$out" = "windowctl $VERSION (commit $REVISION)" ] \
        || { echo "windowctl version does not print version $VERSION and commit $REVISION" >&2; exit 1; }; \
    else \
      echo "cross-compiled for $target_arch: unit tests not run here (scripts/cross-arm64.sh runs them under qemu)"; \
    fi; \
    info=$(file -b /build/windowctl); \
    echo "windowctl: $info"; \
    case "$info" in *"statically linked"*) ;; *) echo "windowctl is not statically linked" >&2; exit 1 ;; esac; \
    case "$info" in *"$expect"*) ;; *) echo "windowctl is not a $expect executable" >&2; exit 1 ;; esac; \
    install -D -m 0755 /build/windowctl /out/windowctl; \
    mkdir -p /out/usr/share; \
    cp -a /usr/share/zoneinfo /out/usr/share/; \
    rm -rf /out/usr/share/zoneinfo/right /out/usr/share/zoneinfo/localtime; \
    test -f /out/usr/share/zoneinfo/Europe/Zurich
# LICENSE, NOTICE, the Debian copyright files of everything linked in (and of tzdata), and the
# exact packages and versions, for their sources: /usr/share/doc/windowctl (see NOTICE).
# image-notices.sh also fails the build if the binary holds a library NOTICE does not list.
RUN sh scripts/image-notices.sh /build /out/usr/share/doc/windowctl

FROM scratch
ARG VERSION
ARG REVISION
ARG SOURCE=https://github.com/windowctl/windowctl
LABEL org.opencontainers.image.title="windowctl" \
      org.opencontainers.image.description="Reconciliation windows for Flux: suspends and resumes Flux Kustomizations and HelmReleases" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# /windowctl; the tz database, /usr/share/zoneinfo (Debian's tzdata, about 0.2 MiB compressed),
# where windowctl reads the zones of its windows ($ZONEINFO can point elsewhere); and the license
# and notices, /usr/share/doc/windowctl. No CA bundle: windowctl trusts only the
# ServiceAccount's CA (or the kubeconfig's).
COPY --from=builder /out/ /
# 65532: the conventional "nonroot" user of distroless images; no /etc/passwd is needed.
USER 65532:65532
ENTRYPOINT ["/windowctl"]
