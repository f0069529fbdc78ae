#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test: unit tests (doctest, through ctest), the
# fake API server's own tests (kubectl against it), the end-to-end tests of the real binary, the
# kustomize bases and manifests (rendered, checked, run against the fake server), the cron
# differential test against croniter, the container image and the arm64 cross build, and then the
# unit and end-to-end tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3  # Debian's Python, where python3-pytest and python3-yaml install

bash scripts/install-deps.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure)
"$PY" -m pytest -q -p no:cacheprovider tests/fakeapi tests/e2e tests/deploy tests/cron

echo "== container image (buildah, FROM scratch) and the arm64 cross build under qemu"
bash scripts/image.sh
bash scripts/cross-arm64.sh

echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/build.sh --sanitize
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure)
WINDOWCTL_BIN="$PWD/build-asan/windowctl" "$PY" -m pytest -q -p no:cacheprovider tests/e2e
