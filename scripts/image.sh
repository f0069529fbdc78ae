#!/usr/bin/env bash
# Builds windowctl's container image from the Dockerfile with buildah, without a registry, and
# checks it: `windowctl version` and a `windowctl schedule` in a named time zone run inside it,
# its config (user, entrypoint, OCI labels) is right, its one layer holds /windowctl and
# /usr/share/zoneinfo and nothing else, and its compressed size is at most 4 MiB. Idempotent;
# run as root from the repository (a fresh clone will do).
#
#   bash scripts/image.sh                          # the build machine's platform
#   bash scripts/image.sh --platform linux/arm64   # cross-compiled arm64 image (checked with qemu)
#
# The builder's base, localhost/debian:bookworm, is made here with debootstrap from the Debian
# mirror in this machine's apt sources, and kept: the debootstrap tarball under
# /var/tmp/windowctl-debootstrap (remade after 30 days), the images in a buildah store of their
# own (vfs driver) under /var/lib/windowctl-buildah. Look at them with:
#   buildah --root /var/lib/windowctl-buildah/storage --runroot /run/windowctl-buildah \
#     --storage-driver vfs images
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "image: FAIL: $*" >&2; exit 1; }
step() { echo "== image: $*"; }
start=$SECONDS

platform=""
while [ $# -gt 0 ]; do
  case "$1" in
    --platform) [ $# -ge 2 ] || die "--platform needs a value"; platform=$2; shift 2 ;;
    --platform=*) platform=${1#--platform=}; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and buildah's chroot isolation need it)"

IMAGE=${WINDOWCTL_IMAGE:-localhost/windowctl}
BASE_IMAGE=localhost/debian:bookworm
CACHE=${WINDOWCTL_DEBOOTSTRAP_CACHE:-/var/tmp/windowctl-debootstrap}
STORE=${WINDOWCTL_BUILDAH_ROOT:-/var/lib/windowctl-buildah}
MAX_COMPRESSED=$((4 * 1024 * 1024))
# A store of our own, always vfs: whatever driver the machine's default store uses, this one
# works in the sandbox and never clashes with it.
B=(buildah --root "$STORE/storage" --runroot /run/windowctl-buildah --storage-driver vfs)

build_arch=$(dpkg --print-architecture)
target_arch=$build_arch
if [ -n "$platform" ]; then
  case "$platform" in
    linux/amd64 | linux/arm64) target_arch=${platform#linux/} ;;
    *) die "unsupported platform $platform (linux/amd64 or linux/arm64)" ;;
  esac
fi
platform_args=()
[ -z "$platform" ] || platform_args=(--platform "$platform")

# --- tools -----------------------------------------------------------------------------------
tools=(buildah debootstrap gzip tar file)
[ "$target_arch" = "$build_arch" ] || tools+=(qemu-user-static)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi

# --- the Debian mirror, from this machine's apt sources ----------------------------------------
# Prints the URI of the first "deb" entry for suite $1 in one-line (.list) or deb822 (.sources)
# apt sources.
apt_uri() {
  local suite=$1 f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '
      $1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
        if ($(i + 1) == s) { print $i; found = 1; exit }
      }
      END { exit !found }' "$f" && return 0
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '
      BEGIN { RS = "" }
      {
        types = ""; uris = ""; suites = ""
        n = split($0, lines, "\n")
        for (j = 1; j <= n; j++) {
          line = lines[j]
          if (line ~ /^#/) continue
          k = index(line, ":"); if (k == 0) continue
          key = tolower(substr(line, 1, k - 1)); val = substr(line, k + 1)
          if (key == "types") types = " " val " "
          else if (key == "uris") uris = val
          else if (key == "suites") suites = " " val " "
          else if (key == "enabled" && val ~ /no/) types = ""
        }
        gsub(/[ \t]+/, " ", types); gsub(/[ \t]+/, " ", suites)
        if (types ~ / deb / && suites ~ (" " s " ")) {
          split(uris, u, " "); for (m in u) if (u[m] != "") { print u[m]; found = 1; exit }
        }
      }
      END { exit !found }' "$f" && return 0
  done
  return 1
}

# --- the base image: localhost/debian:bookworm, from debootstrap ------------------------------
base_tar="$CACHE/bookworm-minbase-$build_arch.tar"
if [ -n "$("${B[@]}" images -q "$BASE_IMAGE" 2>/dev/null)" ]; then
  step "base image $BASE_IMAGE: reused"
  # Remade when its tarball is; a tarball older than 30 days is remade below.
  if [ ! -f "$base_tar" ] || [ -n "$(find "$base_tar" -mtime +30 2>/dev/null)" ]; then
    "${B[@]}" rmi -f "$BASE_IMAGE" >/dev/null 2>&1 || true
  fi
fi
if [ -z "$("${B[@]}" images -q "$BASE_IMAGE" 2>/dev/null)" ]; then
  if [ ! -f "$base_tar" ] || [ -n "$(find "$base_tar" -mtime +30 2>/dev/null)" ]; then
    mirror=$(apt_uri bookworm) || die "no Debian bookworm entry in /etc/apt/sources.list{,.d/}"
    step "debootstrap --variant=minbase bookworm from $mirror (about a minute)"
    mkdir -p "$CACHE"
    rootfs="$CACHE/rootfs.tmp"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
      || { tail -20 "$CACHE/debootstrap.log" >&2; die "debootstrap failed (log: $CACHE/debootstrap.log)"; }
    # The same archives the machine uses: bookworm, and bookworm-updates and -security if it has them.
    {
      echo "deb $mirror bookworm main"
      if u=$(apt_uri bookworm-updates); then echo "deb $u bookworm-updates main"; fi
      if u=$(apt_uri bookworm-security); then echo "deb $u bookworm-security main"; fi
    } >"$rootfs/etc/apt/sources.list"
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin
    tar -C "$rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
      -cf "$base_tar.tmp" . || die "could not pack $rootfs"
    mv "$base_tar.tmp" "$base_tar"
    rm -rf "$rootfs"
  fi
  step "making $BASE_IMAGE from $base_tar"
  ctr=$("${B[@]}" from scratch)
  "${B[@]}" add "$ctr" "$base_tar" / >/dev/null || die "buildah add $base_tar failed"
  "${B[@]}" config --os linux --arch "$build_arch" --cmd /bin/bash \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
  "${B[@]}" commit -q --rm "$ctr" "$BASE_IMAGE" >/dev/null || die "buildah commit $BASE_IMAGE failed"
fi

# --- build ---------------------------------------------------------------------------------------
version=$(sed -n 's/^project(windowctl VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || die "no project(windowctl VERSION ...) in CMakeLists.txt"
revision=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
tag="$IMAGE:$version"
[ "$target_arch" = "$build_arch" ] || tag="$IMAGE:$version-$target_arch"

deps_tag="localhost/windowctl-deps:bookworm-$target_arch"
builder_tag="localhost/windowctl-builder:$target_arch"
bud() {
  # buildah 1.28 (bookworm) sets neither BUILDPLATFORM nor TARGETARCH: pass both.
  "${B[@]}" bud --isolation chroot --layers --pull=false "${platform_args[@]}" \
    --build-arg BUILDPLATFORM="linux/$build_arch" --build-arg TARGETARCH="$target_arch" \
    --build-arg BASE="$BASE_IMAGE" --build-arg VERSION="$version" --build-arg REVISION="$revision" \
    -f Dockerfile "$@" .
}
# The builder's tools and libraries (stage "deps"), tagged so that pruning keeps it and its layer
# cache: reruns skip apt-get. Remade after 7 days, for the security updates of what is linked
# in statically (OpenSSL above all).
if [ -n "$("${B[@]}" images -q "$deps_tag" 2>/dev/null)" ]; then
  created=$("${B[@]}" inspect --type image --format '{{.OCIv1.Created.Unix}}' "$deps_tag" 2>/dev/null || echo 0)
  if [ $(( $(date +%s) - created )) -gt $((7 * 86400)) ]; then
    step "$deps_tag is older than 7 days: remaking it"
    # The builder image holds the deps layers as its parents: it goes too, or the cache would
    # hand the old ones back.
    "${B[@]}" rmi -f "$builder_tag" "$deps_tag" >/dev/null 2>&1 || true
    "${B[@]}" rmi --prune >/dev/null 2>&1 || true
  fi
fi
bud_start=$SECONDS
step "buildah bud --target deps $deps_tag"
bud --target deps -t "$deps_tag" || die "buildah bud --target deps failed"
# The builder stage too, so that a rerun on the same sources (only tests, docs or scripts
# changed: .dockerignore keeps them out of the context) reuses the compiled layer.
step "buildah bud --target builder $builder_tag"
bud --target builder -t "$builder_tag" || die "buildah bud --target builder failed"
step "buildah bud $tag (${platform:-linux/$build_arch}, revision $revision)"
bud -t "$tag" || die "buildah bud failed"
echo "image: bud took $((SECONDS - bud_start)) s"

work=$(mktemp -d /var/tmp/windowctl-image.XXXXXX)
ctr=""
cleanup() {
  [ -z "$ctr" ] || "${B[@]}" rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- config --------------------------------------------------------------------------------------
step "checking the image config"
inspect() { "${B[@]}" inspect --type image --format "$1" "$tag"; }
[ "$(inspect '{{.OCIv1.Config.User}}')" = "65532:65532" ] \
  || die "User is \"$(inspect '{{.OCIv1.Config.User}}')\", not 65532:65532"
# (buildah's Go templates have no json function: a list prints as [a b].)
[ "$(inspect '{{.OCIv1.Config.Entrypoint}}')" = '[/windowctl]' ] \
  || die "Entrypoint is $(inspect '{{.OCIv1.Config.Entrypoint}}'), not [/windowctl]"
[ -z "$(inspect '{{range .OCIv1.Config.Cmd}}{{.}}{{end}}')" ] || die "the image has a Cmd: $(inspect '{{.OCIv1.Config.Cmd}}')"
[ "$(inspect '{{.OCIv1.Architecture}}')" = "$target_arch" ] \
  || die "architecture is $(inspect '{{.OCIv1.Architecture}}'), not $target_arch"
for l in title description source licenses version revision; do
  v=$(inspect "{{index .OCIv1.Config.Labels \"org.opencontainers.image.$l\"}}")
  [ -n "$v" ] || die "label org.opencontainers.image.$l is missing"
  echo "  org.opencontainers.image.$l=$v"
done
[ "$(inspect '{{index .OCIv1.Config.Labels "org.opencontainers.image.version"}}')" = "$version" ] \
  || die "label version is not $version"
[ "$(inspect '{{index .OCIv1.Config.Labels "org.opencontainers.image.revision"}}')" = "$revision" ] \
  || die "label revision is not $revision"

# --- run -----------------------------------------------------------------------------------------
ctr=$("${B[@]}" from --pull=false "${platform_args[@]}" "$tag")
mnt=""
if [ "$target_arch" = "$build_arch" ]; then
  how="buildah run --isolation chroot (as the image's user)"
  in_image() { "${B[@]}" run --isolation chroot "$ctr" -- /windowctl "$@"; }
else
  # buildah run would need binfmt_misc for a foreign binary: run it with qemu-user, on the
  # image's own files.
  how="qemu-aarch64-static, on the $target_arch image's files"
  mnt=$("${B[@]}" mount "$ctr")
  in_image() { ZONEINFO="$mnt/usr/share/zoneinfo" qemu-aarch64-static "$mnt/windowctl" "$@"; }
fi
step "$how: /windowctl version"
out=$(in_image version) || die "/windowctl version failed inside the image"
echo "  $out"
case "$out" in "windowctl "*) ;; *) die "windowctl version printed \"$out\", not \"windowctl ...\"" ;; esac
case "$out" in *"$revision"*) ;; *) die "windowctl version does not name commit $revision" ;; esac

# The image's tz database: a Zurich window on the Monday after the spring DST change is at +02:00.
window="0 8 * * MON for 81h in Europe/Zurich"
step "$how: /windowctl schedule --window \"$window\" (the image's /usr/share/zoneinfo)"
out=$(in_image schedule --window "$window" --at 2026-03-30T12:00:00Z --count 1) \
  || die "windowctl schedule with a zone failed inside the image: is /usr/share/zoneinfo there?"
echo "$out" | sed 's/^/  /'
case "$out" in *"2026-03-30T08:00:00+02:00"*) ;; *) die "schedule in Europe/Zurich did not start at 2026-03-30T08:00:00+02:00" ;; esac
[ -z "$mnt" ] || "${B[@]}" umount "$ctr" >/dev/null

# --- size ----------------------------------------------------------------------------------------
# The layers as a registry gets them: pushed to an OCI layout (buildah gzips them there; one that
# came out uncompressed is gzipped here at gzip's default level, as docker push would).
step "measuring the image"
"${B[@]}" push -q "$tag" "oci:$work/oci:latest" >/dev/null || die "buildah push to an OCI layout failed"
blobs="$work/oci/blobs/sha256"
# index.json -> the manifest -> its layers (no jq on a bare machine: the JSON is one short line).
manifest=$(grep -o '"digest":"sha256:[0-9a-f]*"' "$work/oci/index.json" | head -1 | sed 's/.*sha256:\([0-9a-f]*\)"/\1/')
[ -n "$manifest" ] && [ -f "$blobs/$manifest" ] || die "no manifest in the pushed OCI layout"
layer_ids=$(sed -n 's/.*"layers":\[\([^]]*\)\].*/\1/p' "$blobs/$manifest" \
  | grep -o '"digest":"sha256:[0-9a-f]*"' | sed 's/.*sha256:\([0-9a-f]*\)"/\1/')
uncompressed=0
compressed=0
layers=0
files=0
has_bin=0
has_tz=0
for id in $layer_ids; do
  blob="$blobs/$id"
  [ -f "$blob" ] || die "layer $id not found in the pushed OCI layout"
  layers=$((layers + 1))
  if [ "$(head -c2 "$blob" | od -An -tx1 | tr -d ' ')" = "1f8b" ]; then
    compressed=$((compressed + $(stat -c %s "$blob")))
    uncompressed=$((uncompressed + $(gzip -dc "$blob" | wc -c)))
  else
    uncompressed=$((uncompressed + $(stat -c %s "$blob")))
    compressed=$((compressed + $(gzip -c "$blob" | wc -c)))
  fi
  # Exactly the binary and the tz database: no shell, no stray files.
  tar -tf "$blob" | sed 's|^\./||; s|/$||' | grep -v '^$' >"$work/contents"
  stray=$(grep -v -x -e windowctl -e usr -e usr/share -e 'usr/share/zoneinfo\(/.*\)\{0,1\}' "$work/contents" | head -5 | tr '\n' ' ' || true)
  [ -z "$stray" ] || die "layer $id holds more than /windowctl and /usr/share/zoneinfo: $stray..."
  files=$((files + $(wc -l <"$work/contents")))
  if grep -qx windowctl "$work/contents"; then has_bin=1; fi
  if grep -qx usr/share/zoneinfo/Europe/Zurich "$work/contents"; then has_tz=1; fi
done
[ "$layers" -eq 1 ] || die "expected one layer, found $layers"
[ "$has_bin" = 1 ] || die "no /windowctl in the image's layer"
[ "$has_tz" = 1 ] || die "no /usr/share/zoneinfo/Europe/Zurich in the image's layer"
echo "  one layer, $files entries: /windowctl and /usr/share/zoneinfo"

mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
echo
printf '%-34s %-12s %-22s %-22s\n' image platform uncompressed "compressed (gzip)"
printf '%-34s %-12s %-22s %-22s\n' "$tag" "linux/$target_arch" \
  "$uncompressed B ($(mib "$uncompressed"))" "$compressed B ($(mib "$compressed"))"
echo
[ "$compressed" -le "$MAX_COMPRESSED" ] \
  || die "compressed image is $compressed bytes ($(mib "$compressed")), over the 4 MiB limit"

# Keep the store small (vfs copies every layer whole): drop the images no tag points at any more,
# earlier builds and their builder layers; the tagged deps and builder images (the cache) stay.
"${B[@]}" rmi --prune >/dev/null 2>&1 || true
echo "image: OK: $tag, $((SECONDS - start)) s"
