#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test: the unit tests (doctest, through ctest)
# of the release build and of the checked build (clang: AddressSanitizer, UndefinedBehavior-
# Sanitizer, assertions), every fuzz target (libFuzzer, from the checked build), the fake API
# server's own tests (kubectl against it), the end-to-end tests of the real binary (release and
# checked), the kustomize bases and manifests (rendered, checked, every CronJob run against the
# fake server with exactly its rendered RBAC), the cron differential test against croniter, the
# demo, the arm64 cross build under qemu, and the multi-arch container image pushed to a registry
# on loopback and inspected.
#
# Independent phases run side by side (this machine kind has two cores, and much of the work
# waits on the network, the disk or a server), and the test files run in parallel (pytest-xdist).
# Each phase writes its log to build/test-logs/PHASE.log; a failed phase's log is printed. The
# command ends with a table of the phases and their wall times, and the slowest tests.
#
# Everything runs in a fresh clone of this repository in an empty temporary directory (with the
# work tree's uncommitted changes and new files applied on top), so a file the project reads
# from outside its own clone fails here as it would for a user. WINDOWCTL_TEST_IN_PLACE=1 runs in
# this work tree instead (faster reruns: the builds are kept). The host's compiles go through
# ccache, so a second run compiles only what changed.
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

# Whatever the caller's shell points at, no test may reach it (each test also builds the
# environment of what it runs).
unset KUBECONFIG FLUX_SYSTEM_NAMESPACE KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT WINDOWCTL_SERVICE_ACCOUNT_DIR

logs="$PWD/build/test-logs"
rm -rf "$logs"
mkdir -p "$logs"
started=$SECONDS

# phase NAME COMMAND...: runs COMMAND with its output in $logs/NAME.log and records the wall time.
phase() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "   start  $name"
  "$@" >"$logs/$name.log" 2>&1 || rc=$?
  echo "$name $((SECONDS - start)) $rc" >>"$logs/phases"
  if [ "$rc" = 0 ]; then
    echo "   ok     $name ($((SECONDS - start)) s)"
  else
    echo "   FAILED $name (exit $rc, $((SECONDS - start)) s); its log, $logs/$name.log, ends:"
    tail -n 60 "$logs/$name.log" | sed 's/^/   | /'
  fi
  return "$rc"
}
# group: a chain of phases in the background; the chain stops at its first failure.
pids=()
group() {
  ("$@") &
  pids+=($!)
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The checked build: clang with ASan, UBSan and assertions, and libFuzzer's coverage, so that one
# compile serves its unit tests, the end-to-end tests and every fuzz target.
checked_build() {
  CXX=clang++-14 cmake -S . -B build-checked -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWINDOWCTL_FUZZ=ON >/dev/null
  cmake --build build-checked
}
pytest() {
  "$PY" -m pytest -q -p no:cacheprovider -n "${WINDOWCTL_TEST_JOBS:-3}" --durations=12 "$@"
}

# The C++ sources as .clang-format has them (clang-format-14 -i FILE... mends them).
format_check() {
  find src tests/fuzz tests/cron tests/calendar -name '*.cc' -o -name '*.h' | sort | xargs clang-format-14 --dry-run --Werror
}

echo "== phases (logs in $logs)"
phase deps bash scripts/install-deps.sh --test
phase format format_check

group phase build bash scripts/build.sh
group phase build-checked checked_build
# The image's base and builder tools (debootstrap, apt-get in the builder stages, the arm64
# OpenSSL): network and disk more than CPU, so beside the compiles.
group phase image-prepare bash scripts/image.sh --prepare
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" = 1 ]; then
  echo "test: a build failed (above)" >&2
  exit 1
fi

pids=()
# The release binary: its unit tests, the fake API server's own tests, the end-to-end, deploy
# and cron tests, then the README's first command.
group eval 'phase unit bash -c "cd build && ctest --output-on-failure" &&
  phase pytest pytest tests/fakeapi tests/e2e tests/deploy tests/cron tests/calendar &&
  phase demo bash scripts/demo.sh'
# The checked binary: unit and end-to-end tests (a sanitizer report fails the test that ran
# it), and every fuzz target for 20 s (scripts/fuzz.sh runs them long).
group eval 'phase unit-checked bash -c "cd build-checked && ctest --output-on-failure" &&
  phase pytest-checked env WINDOWCTL_BIN="$PWD/build-checked/windowctl" CRON_PROBE="$PWD/build-checked/cron_probe" \
    CALENDAR_PROBE="$PWD/build-checked/calendar_probe" \
    "$PY" -m pytest -q -p no:cacheprovider -n "${WINDOWCTL_TEST_JOBS:-3}" --durations=12 tests/e2e tests/calendar &&
  phase fuzz bash scripts/fuzz.sh --seconds 20 --fresh --build-dir build-checked'
# arm64 (cross build, unit tests under qemu), then the image of both platforms pushed to a
# registry on loopback (its builder stages take build/'s and build-arm64/'s compiles from ccache).
group eval 'phase arm64 bash scripts/cross-arm64.sh && phase image bash scripts/registry-test.sh'
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

echo
echo "== slowest tests"
for f in pytest pytest-checked; do
  [ -f "$logs/$f.log" ] || continue
  echo "-- $f"
  sed -n '/slowest [0-9]* durations/,/^$/p' "$logs/$f.log" | sed '1d'
  grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$logs/$f.log" | tail -n 1 || true
done
echo
echo "== phases (wall time; side by side, so they add up to more than the total)"
printf '   %-16s %8s  %s\n' PHASE SECONDS RESULT
while read -r name secs rc; do
  printf '   %-16s %8s  %s\n' "$name" "$secs" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)")"
done <"$logs/phases"
printf '   %-16s %8s\n' total "$((SECONDS - started))"
if [ "$failed" = 1 ]; then
  echo "test: FAILED (above)" >&2
  exit 1
fi
echo "test: all phases passed"
