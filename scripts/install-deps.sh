#!/usr/bin/env bash
# Installs what building and testing windowctl need, from Debian's packages. Idempotent.
#
#   bash scripts/install-deps.sh          # build and run (scripts/build.sh, scripts/demo.sh)
#   bash scripts/install-deps.sh --test   # and everything scripts/test.sh runs, in one apt-get
#
# The scripts that need more (fuzz.sh, image.sh, registry-test.sh, cross-arm64.sh) still check
# and install their own when run alone; --test only saves them their apt-get update.
set -euo pipefail

# gcc, make, perl and dpkg-dev: scripts/openssl.sh, which builds the static binary's minimal OpenSSL
# from Debian's source package; g++, cmake, ninja-build and dpkg-dev likewise scripts/yaml-cpp.sh
# for its yaml-cpp (libssl-dev and libyaml-cpp-dev are for the sanitizer and fuzz builds, which
# link them).
packages=(
  g++ cmake ninja-build ccache file gcc make perl dpkg-dev
  libssl-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev libyaml-cpp-dev
  python3 python3-pytest python3-yaml python3-croniter python3-jsonschema openssl tzdata time
  python3-icalendar  # tests/e2e/test_schedule_export.py parses schedule -o ics
  zsh fish  # tests/e2e/test_cli.py runs the completion scripts in each shell
)
if [ "${1:-}" = "--test" ]; then
  packages+=(
    python3-pytest-xdist                    # the test files run in parallel
    python3-icalendar python3-dateutil unicode-cldr-core  # tests/calendar: the differential test, CLDR's zones
    clang-format-14                         # the format check (.clang-format)
    clang-14 libclang-rt-14-dev             # the checked build: ASan, UBSan, libFuzzer
    crossbuild-essential-arm64 qemu-user-static  # scripts/cross-arm64.sh
    buildah debootstrap gzip tar            # scripts/image.sh
    docker-registry skopeo jq               # scripts/registry-test.sh
  )
elif [ $# -gt 0 ]; then
  echo "install-deps: unknown argument $1 (--test or nothing)" >&2
  exit 2
fi
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# (The arm64 cross build needs no arm64 packages: scripts/openssl.sh and scripts/yaml-cpp.sh build
# its two compiled libraries with the cross compiler.)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# kubectl is not a Debian package; the machines this project runs on carry it. The tests that
# prove the fake API server is faithful need it.
command -v kubectl >/dev/null || echo "warning: kubectl not found; the kubectl compatibility tests will fail" >&2
