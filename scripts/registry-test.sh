#!/usr/bin/env bash
# Pushes windowctl's multi-arch image to a real registry on loopback and checks what the
# registry serves. Starts Debian's docker-registry (distribution 2.8) on 127.0.0.1, on a free
# port, with TLS from a throwaway CA and a temporary storage folder (not the docker-registry
# service: nothing of the machine's), runs
#
#   scripts/image.sh --push 127.0.0.1:PORT/windowctl:VERSION --cert-dir CA-FOLDER
#
# and then, with skopeo verifying TLS against the same CA:
#   - the tag is a manifest list / OCI index of exactly linux/amd64 and linux/arm64, and its
#     digest is the one image.sh printed;
#   - each platform's config: user 65532:65532, entrypoint ["/windowctl"], no Cmd, the OCI
#     labels (version = scripts/version.sh's, revision = HEAD, licenses Apache-2.0, source,
#     title);
#   - each platform's image, copied out (skopeo copy to an OCI layout): one gzip layer holding
#     /windowctl, /usr/share/zoneinfo and the license and notices in /usr/share/doc/windowctl,
#     nothing else; its windowctl prints the labels' version and commit (arm64: under qemu);
#   - without the CA, the registry's certificate is refused;
# and prints the list's digest and each platform's compressed (registry) and uncompressed size.
# Fails with one "registry-test: FAIL: ..." line. Idempotent; run as root from the repository (a
# fresh clone will do). The registry is stopped at exit, whatever happens.
#
#   bash scripts/registry-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "registry-test: FAIL: $*" >&2; exit 1; }
step() { echo "== registry-test: $*"; }
start=$SECONDS

[ "$(id -u)" -eq 0 ] || die "run as root (scripts/image.sh needs it)"

# --- tools -----------------------------------------------------------------------------------
tools=(docker-registry skopeo openssl jq gzip tar qemu-user-static)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  apt-get update -qq || die "apt-get update failed"
  # The package's own service is not used; policy-rc.d (if the machine has one) keeps it down.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi

# --- a registry left behind by a run that was killed outright (no exit trap) ------------------
state=/run/windowctl-registry-test
mkdir -p "$state"
if [ -f "$state/registry.pid" ]; then
  old=$(cat "$state/registry.pid")
  # Only if that pid is still our registry (its config is in one of our temporary folders).
  if [[ $old =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$old/cmdline" 2>/dev/null | grep -q 'docker-registry serve .*/windowctl-registry-test\.'; then
    step "stopping the registry (pid $old) an earlier run left"
    kill "$old" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$old" 2>/dev/null || true
  fi
  rm -f "$state/registry.pid"
fi

work=$(mktemp -d /var/tmp/windowctl-registry-test.XXXXXX)
registry_pid=""
cleanup() {
  if [ -n "$registry_pid" ]; then
    kill "$registry_pid" 2>/dev/null || true
    # It drains for a moment; then it goes for good.
    for _ in $(seq 50); do kill -0 "$registry_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$registry_pid" 2>/dev/null || true
    wait "$registry_pid" 2>/dev/null || true
    rm -f "$state/registry.pid"
  fi
  rmdir "$state" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- a throwaway CA and the registry's certificate for 127.0.0.1 and localhost -----------------
step "CA and server certificate (openssl, EC P-256, valid for a day)"
mkdir -p "$work/certs" "$work/tls" "$work/storage"
(
  cd "$work/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
    -subj "/CN=windowctl registry-test CA" -keyout ca.key -out ca.crt \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=127.0.0.1" -keyout server.key -out server.csr
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >server.ext
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
    -extfile server.ext -out server.crt
  openssl verify -CAfile ca.crt server.crt
) >"$work/openssl.log" 2>&1 || { cat "$work/openssl.log" >&2; die "openssl could not make the certificates"; }
# buildah's and skopeo's --cert-dir: the CA certificates are its *.crt files.
cp "$work/tls/ca.crt" "$work/certs/ca.crt"

# --- the registry: 127.0.0.1, a port the kernel picks, TLS, storage in $work -------------------
cat >"$work/config.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $work/storage
  delete:
    enabled: true
http:
  addr: 127.0.0.1:0
  secret: $(openssl rand -hex 16)
  tls:
    certificate: $work/tls/server.crt
    key: $work/tls/server.key
EOF
step "docker-registry serve (127.0.0.1, TLS, storage $work/storage)"
/usr/bin/docker-registry serve "$work/config.yml" >"$work/registry.log" 2>&1 &
registry_pid=$!
echo "$registry_pid" >"$state/registry.pid"
port=""
for _ in $(seq 100); do
  kill -0 "$registry_pid" 2>/dev/null || { tail -5 "$work/registry.log" >&2; die "docker-registry exited at start"; }
  port=$(sed -n 's/.*msg="listening on 127\.0\.0\.1:\([0-9][0-9]*\), tls".*/\1/p' "$work/registry.log" | head -1)
  [ -z "$port" ] || break
  sleep 0.1
done
[ -n "$port" ] || { tail -5 "$work/registry.log" >&2; die "docker-registry did not say where it listens within 10 s"; }
echo "  registry: https://127.0.0.1:$port (pid $registry_pid)"

version=$(sh scripts/version.sh) || die "scripts/version.sh failed"
revision=$(sh scripts/version.sh --commit) || die "scripts/version.sh --commit failed"
repo="127.0.0.1:$port/windowctl"
ref="$repo:$version"
sk=(skopeo --command-timeout 120s)
tls=(--cert-dir "$work/certs")

# --- push ------------------------------------------------------------------------------------
step "bash scripts/image.sh --push $ref --cert-dir $work/certs"
push_start=$SECONDS
bash scripts/image.sh --push "$ref" --cert-dir "$work/certs" 2>&1 | tee "$work/push.log" \
  || die "scripts/image.sh --push $ref failed (above)"
push_seconds=$((SECONDS - push_start))
pushed=$(sed -n 's/^manifest list digest: \(sha256:[0-9a-f]\{64\}\)$/\1/p' "$work/push.log")
[ -n "$pushed" ] || die "image.sh printed no \"manifest list digest: sha256:...\" line"
# The kustomize entry pins this repository at this digest.
grep -qx "    newName: $repo" "$work/push.log" || die "image.sh's kustomize entry has no \"newName: $repo\""
grep -qx "    digest: $pushed" "$work/push.log" || die "image.sh's kustomize entry has no \"digest: $pushed\""

# --- the manifest list -------------------------------------------------------------------------
step "skopeo inspect --raw docker://$ref"
"${sk[@]}" inspect --raw "${tls[@]}" "docker://$ref" >"$work/list.json" \
  || die "skopeo inspect --raw docker://$ref failed"
jq . "$work/list.json"
served=sha256:$(sha256sum <"$work/list.json" | cut -d' ' -f1)
[ "$served" = "$pushed" ] || die "the registry's list is $served, image.sh pushed $pushed"
media=$(jq -r '.mediaType // empty' "$work/list.json")
case "$media" in
  application/vnd.oci.image.index.v1+json | application/vnd.docker.distribution.manifest.list.v2+json) ;;
  *) die "docker://$ref is ${media:-of no mediaType}, not a manifest list or OCI index" ;;
esac
platforms=$(jq -r '[.manifests[] | .platform.os + "/" + .platform.architecture] | sort | join(" ")' "$work/list.json")
[ "$platforms" = "linux/amd64 linux/arm64" ] || die "the list's platforms are \"$platforms\", not exactly linux/amd64 linux/arm64"

# --- each platform -----------------------------------------------------------------------------
. scripts/image-layout.sh  # doc, doc_files, allowed

figures=()
for arch in amd64 arm64; do
  p="linux/$arch"
  skp=("${sk[@]}" --override-os linux --override-arch "$arch")
  listed=$(jq -r --arg a "$arch" '.manifests[] | select(.platform.os == "linux" and .platform.architecture == $a) | .digest' "$work/list.json")

  step "$p: skopeo inspect --config"
  "${skp[@]}" inspect --config "${tls[@]}" "docker://$ref" >"$work/config-$arch.json" \
    || die "$p: skopeo inspect --config failed"
  jq '{architecture, os, config}' "$work/config-$arch.json"
  cfg() { jq -c "$1" "$work/config-$arch.json"; }
  [ "$(cfg .architecture)" = "\"$arch\"" ] || die "$p: the config's architecture is $(cfg .architecture)"
  [ "$(cfg .os)" = '"linux"' ] || die "$p: the config's os is $(cfg .os)"
  [ "$(cfg .config.User)" = '"65532:65532"' ] || die "$p: User is $(cfg .config.User), not \"65532:65532\""
  [ "$(cfg .config.Entrypoint)" = '["/windowctl"]' ] || die "$p: Entrypoint is $(cfg .config.Entrypoint), not [\"/windowctl\"]"
  [ "$(cfg '.config.Cmd // [] | length')" = 0 ] || die "$p: the image has a Cmd: $(cfg .config.Cmd)"
  label() { jq -r --arg k "org.opencontainers.image.$1" '.config.Labels[$k] // ""' "$work/config-$arch.json"; }
  [ "$(label version)" = "$version" ] || die "$p: label version is \"$(label version)\", not $version (scripts/version.sh)"
  [ "$(label revision)" = "$revision" ] || die "$p: label revision is \"$(label revision)\", not $revision (HEAD)"
  [ "$(label licenses)" = Apache-2.0 ] || die "$p: label licenses is \"$(label licenses)\", not Apache-2.0"
  [ "$(label title)" = windowctl ] || die "$p: label title is \"$(label title)\", not windowctl"
  [[ $(label source) == https://* ]] || die "$p: label source is \"$(label source)\", not an https:// address"

  step "$p: skopeo copy docker://$ref oci:$arch"
  "${skp[@]}" copy -q --src-cert-dir "$work/certs" "docker://$ref" "oci:$work/oci-$arch:windowctl" >/dev/null \
    || die "$p: skopeo copy failed"
  blobs="$work/oci-$arch/blobs/sha256"
  mdigest=$(jq -r '.manifests[0].digest' "$work/oci-$arch/index.json")
  [ "$mdigest" = "$listed" ] || die "$p: the copied manifest is $mdigest, the list names $listed"
  manifest="$blobs/${mdigest#sha256:}"
  [ "$(jq '.layers | length' "$manifest")" = 1 ] || die "$p: $(jq '.layers | length' "$manifest") layers, not one"
  ltype=$(jq -r '.layers[0].mediaType' "$manifest")
  case "$ltype" in *tar+gzip | *tar.gzip) ;; *) die "$p: the layer is $ltype, not a gzipped tar" ;; esac
  layer="$blobs/$(jq -r '.layers[0].digest' "$manifest" | sed 's/^sha256://')"
  compressed=$(stat -c %s "$layer")
  [ "$compressed" = "$(jq '.layers[0].size' "$manifest")" ] || die "$p: the layer's size is not the manifest's"
  uncompressed=$(gzip -dc "$layer" | wc -c)
  # What the registry serves for a pull: manifest, config and layer.
  pulled=$((compressed + $(jq '.config.size' "$manifest") + $(stat -c %s "$manifest")))

  tar -tzf "$layer" | sed 's|^\./||; s|/$||' | grep -v '^$' >"$work/contents-$arch"
  stray=$(grep -v -x "${allowed[@]}" "$work/contents-$arch" | head -5 | tr '\n' ' ' || true)
  [ -z "$stray" ] || die "$p: the layer holds more than /windowctl, /usr/share/zoneinfo and /$doc: $stray..."
  for f in windowctl usr/share/zoneinfo/Europe/Zurich usr/share/zoneinfo/UTC "${doc_files[@]/#/$doc/}"; do
    grep -qx "$f" "$work/contents-$arch" || die "$p: no /$f in the layer"
  done
  mkdir "$work/rootfs-$arch"
  tar -xzf "$layer" -C "$work/rootfs-$arch"
  for f in LICENSE NOTICE; do
    cmp -s "$f" "$work/rootfs-$arch/$doc/$f" || die "$p: /$doc/$f is not the repository's $f"
  done
  bin="$work/rootfs-$arch/windowctl"
  if [ "$arch" = "$(dpkg --print-architecture)" ]; then
    out=$("$bin" version) || die "$p: /windowctl version failed"
  else
    out=$(qemu-aarch64-static "$bin" version) || die "$p: /windowctl version failed under qemu"
  fi
  echo "  /windowctl version: $out"
  [ "$out" = "windowctl $version (commit $revision)" ] \
    || die "$p: /windowctl version printed \"$out\", not \"windowctl $version (commit $revision)\" (the labels)"
  echo "  $(wc -l <"$work/contents-$arch") entries; glibc: $(awk '$1 == "glibc" {print $2, $3}' "$work/rootfs-$arch/$doc/packages.txt")"
  figures+=("$p $mdigest $compressed $uncompressed $pulled")
done

# --- TLS is really verified ---------------------------------------------------------------------
step "without the CA, skopeo must refuse the registry's certificate"
if out=$("${sk[@]}" inspect --raw "docker://$ref" 2>&1); then
  die "skopeo read docker://$ref without the CA: TLS is not verified"
fi
case "$out" in
  *"certificate signed by unknown authority"* | *x509*) echo "  refused: x509: certificate signed by unknown authority" ;;
  *) die "skopeo without the CA failed, but not on the certificate: $out" ;;
esac

# --- figures -----------------------------------------------------------------------------------
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
echo
echo "registry-test: $ref"
echo "  manifest list ($media): $pushed"
printf '  %-12s %-73s %-26s %-26s %s\n' platform manifest "compressed (layer)" "uncompressed (layer)" "pulled (manifest+config+layer)"
for row in "${figures[@]}"; do
  read -r p d c u t <<<"$row"
  printf '  %-12s %-73s %-26s %-26s %s\n' "$p" "$d" "$c B ($(mib "$c"))" "$u B ($(mib "$u"))" "$t B"
done
echo
echo "registry-test: OK: $((SECONDS - start)) s (push, with both builds and their checks: $push_seconds s)"
