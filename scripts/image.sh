#!/usr/bin/env bash
# Builds windowctl's container image from the Dockerfile with buildah, without a registry, and
# checks it: `windowctl version` and a `windowctl schedule` in a named time zone run inside it,
# its config (user, entrypoint, OCI labels; the version label is what `windowctl version`
# prints) is right, its one layer holds /windowctl, /usr/share/zoneinfo and the license and
# notices in /usr/share/doc/windowctl and nothing else, and its compressed size is at most
# 4 MiB. Idempotent; run as root from the repository (a fresh clone will do).
#
#   bash scripts/image.sh                          # the build machine's platform
#   bash scripts/image.sh --platform linux/arm64   # cross-compiled arm64 image (checked with qemu)
#   bash scripts/image.sh --tag TAG                # another local tag (default: see below)
#   bash scripts/image.sh --push registry.example.com/platform/windowctl:0.2.0 \
#     [--cert-dir DIR] [--creds USER[:PASSWORD]] [--authfile FILE]
#   bash scripts/image.sh --prepare                # only the base and the builder's tools ("deps"
#                                                  # stage) of the platform (both with no
#                                                  # --platform): what needs the network, made
#                                                  # ahead (scripts/test.sh, beside the builds)
#
# The version is scripts/version.sh's (the file VERSION with git's description: 0.3.0 on the tag
# v0.3.0, 0.3.0-3-gabc1234 past it, 0.3.0-gabc1234 without the tag, -dirty with uncommitted
# changes); the local tag is
# localhost/windowctl:VERSION (VERSION-arm64 for a foreign platform).
#
# --push REF builds and checks linux/amd64 and linux/arm64 (on an amd64 machine), makes one
# manifest list (an OCI image index) of the two and pushes it with both images to REF, which
# names the registry and a tag. It prints the list's digest and a kustomize `images:` entry that
# pins it by digest, for the image the kustomize bases name: $WINDOWCTL_BASE_IMAGE_NAME (default
# windowctl.invalid/windowctl). TLS is always verified; --cert-dir DIR: the CA certificates
# (DIR/*.crt) of a registry with a private CA. Credentials: --authfile FILE or
# $REGISTRY_AUTH_FILE (as `buildah login` writes it), or --creds (visible in ps).
#
# The builder's base, localhost/debian:bookworm, is made here with debootstrap from the Debian
# mirror in this machine's apt sources, and kept: the debootstrap tarball under
# /var/tmp/windowctl-debootstrap (remade after 30 days), the images in a buildah store of their
# own (vfs driver) under /var/lib/windowctl-buildah. Look at them with:
#   buildah --root /var/lib/windowctl-buildah/storage --runroot /run/windowctl-buildah \
#     --storage-driver vfs images
# ($WINDOWCTL_BUILDAH_ROOT, $WINDOWCTL_BUILDAH_RUNROOT and $WINDOWCTL_DEBOOTSTRAP_CACHE move them.)
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "image: FAIL: $*" >&2; exit 1; }
step() { echo "== image: $*"; }
start=$SECONDS

platform=""
prepare=0
tag=""
push_ref=""
cert_dir=""
creds=""
authfile=""
while [ $# -gt 0 ]; do
  case "$1" in
    --platform | --tag | --push | --cert-dir | --creds | --authfile)
      [ $# -ge 2 ] || die "$1 needs a value"
      opt=${1#--}
      v=$2
      shift 2
      ;;
    --platform=* | --tag=* | --push=* | --cert-dir=* | --creds=* | --authfile=*)
      opt=${1%%=*}
      opt=${opt#--}
      v=${1#*=}
      shift
      ;;
    --prepare) prepare=1; shift; continue ;;
    -h | --help) sed -n '2,37p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
  case "$opt" in
    platform) platform=$v ;;
    tag) tag=$v ;;
    push) push_ref=$v ;;
    cert-dir) cert_dir=$v ;;
    creds) creds=$v ;;
    authfile) authfile=$v ;;
  esac
done
if [ "$prepare" = 1 ] && [ -z "$platform" ]; then
  [ -z "$tag$push_ref" ] || die "--prepare builds no image: no --tag or --push with it"
  for p in linux/amd64 linux/arm64; do
    bash "$0" --prepare --platform "$p" || die "preparing $p failed (above)"
  done
  exit 0
fi
if [ -n "$push_ref" ]; then
  [ -z "$platform" ] || die "--push builds both linux/amd64 and linux/arm64: no --platform with it"
  [ -z "$tag" ] || die "--push tags the images itself: no --tag with it"
else
  [ -z "$cert_dir$creds$authfile" ] || die "--cert-dir, --creds and --authfile go with --push"
fi

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and buildah's chroot isolation need it)"

IMAGE=${WINDOWCTL_IMAGE:-localhost/windowctl}
BASE_IMAGE=localhost/debian:bookworm
CACHE=${WINDOWCTL_DEBOOTSTRAP_CACHE:-/var/tmp/windowctl-debootstrap}
STORE=${WINDOWCTL_BUILDAH_ROOT:-/var/lib/windowctl-buildah}
RUNROOT=${WINDOWCTL_BUILDAH_RUNROOT:-/run/windowctl-buildah}
MAX_COMPRESSED=$((4 * 1024 * 1024))
# A store of our own, always vfs: whatever driver the machine's default store uses, this one
# works in the sandbox and never clashes with it.
B=(buildah --root "$STORE/storage" --runroot "$RUNROOT" --storage-driver vfs)

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

# The version (VERSION and git) and commit, the one way CMake and scripts/cross-arm64.sh get them.
version=$(sh scripts/version.sh) || die "scripts/version.sh failed"
revision=$(sh scripts/version.sh --commit) || die "scripts/version.sh --commit failed"

# --- --push: both platforms, one manifest list, to a registry --------------------------------
if [ -n "$push_ref" ]; then
  # REF: registry host, repository, tag; no digest (the registry computes that).
  case "$push_ref" in
    *@*) die "--push $push_ref: give a tag, not a digest (e.g. registry.example.com/platform/windowctl:0.2.0)" ;;
    docker://*) push_ref=${push_ref#docker://} ;;
  esac
  ref_name=${push_ref%:*}
  ref_tag=${push_ref##*:}
  if [ "$ref_name" = "$push_ref" ] || [[ $ref_tag == */* ]]; then
    die "--push $push_ref has no tag (e.g. registry.example.com/platform/windowctl:$version)"
  fi
  [[ $ref_tag =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] || die "--push: \"$ref_tag\" is not a valid tag"
  registry=${ref_name%%/*}
  if [ "$registry" = "$ref_name" ] || ! [[ $registry == *.* || $registry == *:* || $registry == localhost ]]; then
    die "--push $push_ref: name the registry first, e.g. registry.example.com/platform/windowctl:$version"
  fi
  [ -z "$cert_dir" ] || [ -d "$cert_dir" ] || die "--cert-dir $cert_dir is not a folder"
  [ -z "$authfile" ] || [ -f "$authfile" ] || die "--authfile $authfile does not exist"
  [ "$build_arch" = amd64 ] \
    || die "--push builds linux/amd64 and linux/arm64: run it on an amd64 machine (the Dockerfile cross-compiles only amd64 -> arm64)"
  case "$version" in *-dirty) echo "image: warning: the work tree has uncommitted changes: pushing version $version" >&2 ;; esac

  platforms=(linux/amd64 linux/arm64)
  list="$IMAGE-list:$version"
  # A list made by an earlier run goes first: it would hold the earlier images.
  "${B[@]}" manifest rm "$list" >/dev/null 2>&1 || "${B[@]}" rmi -f "$list" >/dev/null 2>&1 || true
  tags=()
  for p in "${platforms[@]}"; do
    t="$IMAGE:$version-${p#linux/}"
    step "$p: bash scripts/image.sh --platform $p --tag $t"
    bash "$0" --platform "$p" --tag "$t" || die "the $p image failed (above)"
    tags+=("$t")
  done
  # Both images must be of one version and commit: a commit or edit meanwhile would mix them.
  [ "$(sh scripts/version.sh)" = "$version" ] && [ "$(sh scripts/version.sh --commit)" = "$revision" ] \
    || die "the work tree moved during the builds (was $version, commit $revision): run again"

  work=$(mktemp -d /var/tmp/windowctl-push.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  step "manifest list $list: ${platforms[*]}"
  "${B[@]}" manifest create "$list" >/dev/null || die "buildah manifest create $list failed"
  for t in "${tags[@]}"; do
    "${B[@]}" manifest add "$list" "containers-storage:$t" >/dev/null || die "buildah manifest add $list $t failed"
  done
  # Exactly the two platforms (no jq on a bare machine: buildah's JSON, one key a line).
  got=$("${B[@]}" manifest inspect "$list" | awk -F'"' '
    $2 == "architecture" { a = $4 } $2 == "os" { print $4 "/" a }' | sort | tr '\n' ' ')
  [ "$got" = "linux/amd64 linux/arm64 " ] || die "manifest list $list holds ${got:-nothing}, not linux/amd64 linux/arm64"

  push_args=(--all --format oci --tls-verify=true --digestfile "$work/digest")
  [ -z "$cert_dir" ] || push_args+=(--cert-dir "$cert_dir")
  [ -z "$creds" ] || push_args+=(--creds "$creds")
  [ -z "$authfile" ] || push_args+=(--authfile "$authfile")
  step "buildah manifest push --all $list docker://$push_ref"
  "${B[@]}" manifest push "${push_args[@]}" "$list" "docker://$push_ref" \
    || die "pushing to $push_ref failed (TLS: --cert-dir with the registry's CA; login: --authfile or --creds)"
  digest=$(cat "$work/digest")
  [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]] || die "buildah wrote no digest for the pushed list: \"$digest\""
  "${B[@]}" rmi --prune >/dev/null 2>&1 || true

  base_name=${WINDOWCTL_BASE_IMAGE_NAME:-windowctl.invalid/windowctl}
  echo
  echo "image: pushed $push_ref: windowctl $version (commit $revision), linux/amd64 + linux/arm64"
  echo "manifest list digest: $digest"
  echo "pull by digest:       $ref_name@$digest"
  echo
  echo "kustomize (in a kustomization.yaml that uses the bases):"
  echo "images:"
  echo "  - name: $base_name"
  echo "    newName: $ref_name"
  echo "    digest: $digest"
  echo
  echo "image: OK: pushed $push_ref@$digest, $((SECONDS - start)) s"
  exit 0
fi

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
if [ -z "$tag" ]; then
  tag="$IMAGE:$version"
  [ "$target_arch" = "$build_arch" ] || tag="$IMAGE:$version-$target_arch"
fi

deps_tag="localhost/windowctl-deps:bookworm-$target_arch"
builder_tag="localhost/windowctl-builder:$target_arch"
# The minimal OpenSSL's cache (scripts/openssl.sh), shared with this machine's own builds: the
# deps stage finds there what build/ or build-arm64/ already made (same Debian source version,
# compiler and recipe) and adds what it makes itself, so each is built once per machine.
openssl_cache=${WINDOWCTL_OPENSSL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/windowctl/openssl}
mkdir -p "$openssl_cache"
touch "$openssl_cache/.build-machine"
# yaml-cpp's (scripts/yaml-cpp.sh), the same way.
yaml_cpp_cache=${WINDOWCTL_YAML_CPP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/windowctl/yaml-cpp}
mkdir -p "$yaml_cpp_cache"
touch "$yaml_cpp_cache/.build-machine"
# The machine's ccache, where it has one: the builder stage's compiles are those of this machine's
# build/ and build-arm64/ (same flags, paths relative to the sources), so it takes their objects.
ccache_args=()
if command -v ccache >/dev/null && ccache_dir=$(ccache -k cache_dir 2>/dev/null) && [ -n "$ccache_dir" ]; then
  mkdir -p "$ccache_dir"
  touch "$ccache_dir/.build-machine"
  ccache_args=(-v "$ccache_dir:/var/cache/windowctl-ccache:rw")
fi
bud() {
  # buildah 1.28 (bookworm) sets neither BUILDPLATFORM nor TARGETARCH: pass both.
  "${B[@]}" bud --isolation chroot --layers --pull=false "${platform_args[@]}" \
    -v "$openssl_cache:/var/cache/windowctl-openssl:rw" \
    -v "$yaml_cpp_cache:/var/cache/windowctl-yaml-cpp:rw" "${ccache_args[@]}" \
    --build-arg BUILDPLATFORM="linux/$build_arch" --build-arg TARGETARCH="$target_arch" \
    --build-arg BASE="$BASE_IMAGE" --build-arg VERSION="$version" --build-arg REVISION="$revision" \
    -f Dockerfile "$@" .
}
# The builder's tools and libraries (stage "deps", the minimal OpenSSL included), tagged so that
# pruning keeps it and its layer cache: reruns skip apt-get. Remade after 7 days, for the security
# updates of what is linked in statically (OpenSSL above all: scripts/openssl.sh then takes the
# newest Debian source version).
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
if [ "$prepare" = 1 ]; then
  echo "image: OK: $deps_tag is ready, $((SECONDS - start)) s"
  exit 0
fi
# (The builder stage is not built on its own: a second bud of it compiled everything again.)
step "buildah bud $tag (${platform:-linux/$build_arch}, version $version, revision $revision)"
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
label() { inspect "{{index .OCIv1.Config.Labels \"org.opencontainers.image.$1\"}}"; }
[ "$(label version)" = "$version" ] || die "label version is $(label version), not $version"
[ "$(label revision)" = "$revision" ] || die "label revision is $(label revision), not $revision"
[ "$(label licenses)" = Apache-2.0 ] || die "label licenses is $(label licenses), not Apache-2.0"

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
# Exactly the version label's version (checked above) and the revision label's commit.
[ "$out" = "windowctl $version (commit $revision)" ] \
  || die "windowctl version printed \"$out\", not \"windowctl $version (commit $revision)\" (the labels)"

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
# The layer holds exactly these, besides /usr/share/zoneinfo and the folders on the way.
. scripts/image-layout.sh  # doc, doc_files, allowed
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
  # Exactly the binary, the tz database and the notices: no shell, no stray files.
  tar -tf "$blob" | sed 's|^\./||; s|/$||' | grep -v '^$' >"$work/contents"
  stray=$(grep -v -x "${allowed[@]}" "$work/contents" | head -5 | tr '\n' ' ' || true)
  [ -z "$stray" ] || die "layer $id holds more than /windowctl, /usr/share/zoneinfo and /$doc: $stray..."
  files=$((files + $(wc -l <"$work/contents")))
  if grep -qx windowctl "$work/contents"; then has_bin=1; fi
  if grep -qx usr/share/zoneinfo/Europe/Zurich "$work/contents"; then has_tz=1; fi
  last_layer=$blob
done
[ "$layers" -eq 1 ] || die "expected one layer, found $layers"
[ "$has_bin" = 1 ] || die "no /windowctl in the image's layer"
[ "$has_tz" = 1 ] || die "no /usr/share/zoneinfo/Europe/Zurich in the image's layer"
for f in "${doc_files[@]}"; do
  grep -qx "$doc/$f" "$work/contents" || die "no /$doc/$f in the image's layer"
done
# The notices are the repository's, and every copyright file has text.
mkdir "$work/layer"
tar -xf "$last_layer" -C "$work/layer" || die "could not unpack the layer"
for f in LICENSE NOTICE; do
  cmp -s "$f" "$work/layer/$doc/$f" || die "/$doc/$f in the image is not the repository's $f"
done
for f in "${doc_files[@]}"; do
  [ -s "$work/layer/$doc/$f" ] || die "/$doc/$f in the image is empty"
done
echo "  one layer, $files entries: /windowctl, /usr/share/zoneinfo, /$doc (${#doc_files[@]} files)"
echo "  /$doc/packages.txt:"
grep -v '^#' "$work/layer/$doc/packages.txt" | sed 's/^/    /'

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
