#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzz.cc: clang, ASan + UBSan, assertions on) and runs
# every one of them, two at a time (this machine kind has two cores), starting from the seed
# corpora in tests/fuzz/corpus/. Prints the executions per target and overall; exits 1 on any
# crash, broken invariant, leak, timeout or out-of-memory, with the reproducers in the
# findings directory it names (replay one: build-fuzz/TARGET FILE).
#
#   bash scripts/fuzz.sh                   # 10 minutes per target (about an hour)
#   bash scripts/fuzz.sh --seconds 20      # what the test command runs
#   bash scripts/fuzz.sh --seconds 600 --targets "zone_fuzz window_fuzz"
#   --findings DIR: where reproducers and logs go (default build-fuzz/findings)
#
# The committed corpora are only read: what a run finds goes to a working corpus (kept in
# build-fuzz/corpus/ for the next long run; a fresh temporary one with --fresh).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
parallel=2
build=build-fuzz
targets=""
fresh=0
findings=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --parallel) parallel="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --targets) targets="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --findings) findings="$2"; shift 2 ;;
    *) echo "fuzz: unknown argument $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done

# Debian's clang 14 and its libFuzzer runtime.
missing=()
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

started=$(date +%s)
CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWINDOWCTL_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz -- -j "$parallel" | grep -v '^\[' || true
[ -n "$targets" ] || targets=$(cd tests/fuzz && ls *_fuzz.cc | sed 's/\.cc$//')
built=$(date +%s)
echo "== fuzz: built in $((built - started))s; ${seconds}s per target, $parallel at a time"

[ -n "$findings" ] || findings="$PWD/$build/findings"
mkdir -p "$findings"
findings=$(cd "$findings" && pwd)
scratch=$(mktemp -d /tmp/windowctl-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ "$fresh" = 1 ]; then work="$scratch/corpus"; else work="$PWD/$build/corpus"; fi

run_one() {
  local t="$1" seeds="tests/fuzz/corpus/${1%_fuzz}" dict="tests/fuzz/${1%_fuzz}.dict"
  mkdir -p "$work/$t"
  local args=(-max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1
              -artifact_prefix="$findings/$t-")
  [ -f "$dict" ] && args+=(-dict="$dict")
  # New inputs go to the first directory only; the committed seeds are read, never written.
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$build/$t" "${args[@]}" "$work/$t" "$seeds" >"$scratch/$t.log" 2>&1; then
    echo ok >"$scratch/$t.status"
  else
    echo "exit $?" >"$scratch/$t.status"
  fi
}
export -f run_one
export build seconds findings scratch work
printf '%s\n' $targets | xargs -P "$parallel" -I{} bash -c 'run_one {}'

total=0
failed=0
printf '%-22s %14s %10s  %s\n' TARGET EXECUTIONS "EXEC/S" RESULT
for t in $targets; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$t.log" | tail -n 1)
  runs=${runs:-0}
  total=$((total + runs))
  status=$(cat "$scratch/$t.status" 2>/dev/null || echo "did not run")
  if [ "$status" != ok ]; then
    failed=1
    cp "$scratch/$t.log" "$findings/$t.log"
    status="FAILED ($status): $findings/$t.log"
  fi
  printf '%-22s %14d %10d  %s\n' "$t" "$runs" "$((runs / (seconds > 0 ? seconds : 1)))" "$status"
done
printf '%-22s %14d\n' total "$total"
echo "== fuzz: $(( $(date +%s) - started ))s in all"
if [ "$failed" = 1 ]; then
  # The report and the input (libFuzzer prints small ones in base64), for runs whose directory
  # does not outlive them (the test command's clone).
  for t in $targets; do
    [ "$(cat "$scratch/$t.status")" = ok ] || { echo "--- $t"; grep -v '^#[0-9]' "$findings/$t.log" | tail -n 40; } >&2
  done
  echo "fuzz: a target failed; reproducers and logs in $findings:" >&2
  ls -1 "$findings" >&2
  exit 1
fi
