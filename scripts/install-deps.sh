#!/usr/bin/env bash
# Installs what building and testing windowctl need, from Debian's packages. Idempotent.
set -euo pipefail

# gcc, make, perl and dpkg-dev: scripts/openssl.sh, which builds the static binary's minimal OpenSSL
# from Debian's source package (libssl-dev is for the sanitizer and fuzz builds, which link it).
packages=(
  g++ cmake ninja-build file gcc make perl dpkg-dev
  libssl-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev libyaml-cpp-dev
  python3 python3-pytest python3-yaml python3-croniter python3-jsonschema openssl tzdata time
  zsh fish  # tests/e2e/test_cli.py runs the completion scripts in each shell
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# kubectl is not a Debian package; the machines this project runs on carry it. The tests that
# prove the fake API server is faithful need it.
command -v kubectl >/dev/null || echo "warning: kubectl not found; the kubectl compatibility tests will fail" >&2
