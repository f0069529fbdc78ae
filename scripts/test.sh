#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test: unit tests (doctest, through ctest),
# every fuzz target for 20 s, the fake API server's own tests (kubectl against it), the
# end-to-end tests of the real binary, the kustomize bases and manifests (rendered, checked,
# every CronJob run against the fake server with exactly its rendered RBAC), the cron
# differential test against croniter, the demo, the multi-arch container image pushed to a
# registry on loopback and inspected, the arm64 cross build under qemu, and then the unit and
# end-to-end tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
#
# Everything runs in a fresh clone of this repository in an empty temporary directory (with the
# work tree's uncommitted changes and new files applied on top), so a file the project reads
# from outside its own clone fails here as it would for a user. WINDOWCTL_TEST_IN_PLACE=1 runs in
# this work tree instead (faster reruns: the builds are kept).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3  # Debian's Python, where python3-pytest and python3-yaml install

if [ "${WINDOWCTL_TEST_IN_PLACE:-}" != 1 ] && [ -z "${WINDOWCTL_TEST_CLONE:-}" ]; then
  command -v git >/dev/null || { echo "test: git is needed to clone the repository" >&2; exit 1; }
  scratch=$(mktemp -d /tmp/windowctl-test.XXXXXX)
  trap 'rm -rf "$scratch"' EXIT
  clone="$scratch/windowctl"
  echo "== fresh clone in $clone (nothing beside it)"
  git clone --quiet --no-local . "$clone"
  # What is not committed yet comes along, so a developer tests what they have.
  git diff HEAD --binary >"$scratch/uncommitted.diff"
  if [ -s "$scratch/uncommitted.diff" ]; then git -C "$clone" apply --binary "$scratch/uncommitted.diff"; fi
  git ls-files -z --others --exclude-standard | (cd . && xargs -0r cp --parents -t "$clone" --)
  rm -f "$scratch/uncommitted.diff"
  [ "$(ls -A "$scratch")" = windowctl ] || { echo "test: $scratch holds more than the clone" >&2; exit 1; }
  WINDOWCTL_TEST_CLONE=1 bash "$clone/scripts/test.sh"
  exit 0
fi

bash scripts/install-deps.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure)
echo "== every fuzz target for 20 s (libFuzzer, ASan + UBSan, assertions on; scripts/fuzz.sh runs them long)"
bash scripts/fuzz.sh --seconds 20 --fresh
"$PY" -m pytest -q -p no:cacheprovider tests/fakeapi tests/e2e tests/deploy tests/cron

echo "== the README's first command: bash scripts/demo.sh"
bash scripts/demo.sh >build/demo.log 2>&1 || { cat build/demo.log; echo "test: the demo failed" >&2; exit 1; }
tail -n 8 build/demo.log

echo "== container image: both platforms built and checked (image.sh --push), pushed to a registry"
echo "   on loopback and inspected with skopeo; then the arm64 binary's unit tests under qemu"
bash scripts/registry-test.sh
bash scripts/cross-arm64.sh

echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/build.sh --sanitize
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure)
WINDOWCTL_BIN="$PWD/build-asan/windowctl" "$PY" -m pytest -q -p no:cacheprovider tests/e2e
