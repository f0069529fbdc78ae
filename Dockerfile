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
#   VERSION   org.opencontainers.image.version (scripts/image.sh: the project() version)
#   REVISION  org.opencontainers.image.revision, and the commit `windowctl version` prints
#             (the build context has no .git)
ARG BASE=debian:bookworm

# The build tools and libraries, a stage of its own so that scripts/image.sh can tag it and keep
# it (with its layer cache) between runs.
FROM --platform=$BUILDPLATFORM ${BASE} AS deps
# Set by BuildKit (buildah 1.28 needs --build-arg); empty under the legacy docker builder,
# which means "native".
ARG TARGETARCH

# Native: g++ and the native -dev packages. Cross: Debian's cross toolchain and the arm64 -dev
# packages (dpkg multiarch); the header-only dependencies are the build machine's either way.
RUN set -eu; \
    build_arch=$(dpkg --print-architecture); \
    target_arch=${TARGETARCH:-$build_arch}; \
    if [ "$target_arch" = "$build_arch" ]; then \
      toolchain="g++ libssl-dev libyaml-cpp-dev"; \
    elif [ "$target_arch" = arm64 ]; then \
      dpkg --add-architecture arm64; \
      toolchain="crossbuild-essential-arm64 libssl-dev:arm64 libyaml-cpp-dev:arm64"; \
    else \
      echo "cannot build for $target_arch on $build_arch (only native, or arm64 on another arch)" >&2; \
      exit 1; \
    fi; \
    apt-get update -qq; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $toolchain cmake ninja-build file tzdata \
      nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev >/dev/null; \
    rm -rf /var/lib/apt/lists/*

FROM deps AS builder
ARG TARGETARCH
WORKDIR /src
COPY . .
ARG REVISION=
# Cross-compiles with cmake/aarch64-linux-gnu.cmake when the target is not the build machine's.
# There is no .git in the build context, so CMakeLists.txt writes "unknown" as the commit into
# the generated version.h: REVISION goes in its place before the build. The tz database for
# windows "in ZONE" (src/zone.h) goes into /out too, without the leap-second "right/" copy and
# the localtime link to /etc, which a scratch image has not.
RUN set -eu; \
    build_arch=$(dpkg --print-architecture); \
    target_arch=${TARGETARCH:-$build_arch}; \
    case "$target_arch" in \
      amd64) expect="x86-64" ;; \
      arm64) expect="ARM aarch64" ;; \
      *) expect="" ;; \
    esac; \
    toolchain=""; \
    [ "$target_arch" = "$build_arch" ] || toolchain="-DCMAKE_TOOLCHAIN_FILE=/src/cmake/aarch64-linux-gnu.cmake"; \
    cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DWINDOWCTL_STATIC=ON $toolchain; \
    if [ -n "$REVISION" ]; then \
      sed -i "s/kCommit = \"unknown\"/kCommit = \"$REVISION\"/" /build/generated/version.h; \
      grep -q "kCommit = \"$REVISION\"" /build/generated/version.h \
        || { echo "could not set the commit in /build/generated/version.h" >&2; exit 1; }; \
    fi; \
    cmake --build /build; \
    if [ "$target_arch" = "$build_arch" ]; then \
      (cd /build && ctest --output-on-failure); \
      /build/windowctl version; \
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

FROM scratch
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=https://github.com/windowctl/windowctl
# No LICENSE file in the repository yet: SPDX's "not stated". Pass LICENSES once there is one.
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="windowctl" \
      org.opencontainers.image.description="Reconciliation windows for Flux: suspends and resumes Flux Kustomizations and HelmReleases" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# /windowctl and the tz database, /usr/share/zoneinfo (Debian's tzdata, about 0.2 MiB
# compressed), where windowctl reads the zones of its windows ($ZONEINFO can point elsewhere).
# No CA bundle: windowctl trusts only the ServiceAccount's CA (or the kubeconfig's).
COPY --from=builder /out/ /
# 65532: the conventional "nonroot" user of distroless images; no /etc/passwd is needed.
USER 65532:65532
ENTRYPOINT ["/windowctl"]
