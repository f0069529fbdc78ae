#!/usr/bin/env bash
# Installs what is needed, builds windowctl and runs one window cycle (status, close, status,
# open --wait, status) against the bundled fake Kubernetes API server seeded with the Flux
# Kustomizations infra, apps-rt and apps-rw, then an operator's freeze (close --for) that the
# scheduled open job (open --scheduled, as the shipped CronJob runs it) respects. windowctl runs
# in in-cluster mode, as in its CronJob.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
bash scripts/build.sh >/dev/null

dir=$(mktemp -d)
/usr/bin/python3 tests/fakeapi/fakeapi.py --dir "$dir" --seed default --reconcile-delay 1 >"$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
[ -s "$dir/port" ] || { echo "fake API server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }

export KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$(cat "$dir/port")"
export WINDOWCTL_SERVICE_ACCOUNT_DIR="$dir/sa"
step() {
  printf '\n$ %s\n' "$*"
  "$@"
}
step build/windowctl status
step build/windowctl close --kustomizations apps-rw --reason "demo: window closed"
step build/windowctl status
step build/windowctl open --kustomizations apps-rw --reason "demo: window open" --wait --timeout 1m
step build/windowctl status
step build/windowctl close --kustomizations apps-rw --for 12h --reason "demo: freeze"
step build/windowctl open --kustomizations apps-rw --reason "scheduled window" --scheduled --fail-on-held
step build/windowctl status
