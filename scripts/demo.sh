#!/usr/bin/env bash
# Installs what is needed, builds windowctl and runs one window cycle (status, close, status,
# open --wait, status) against the bundled fake Kubernetes API server seeded with the Flux
# Kustomizations infra, apps-rt and apps-rw, then an operator's freeze (close --for) that the
# scheduled open job (open --scheduled, as the shipped CronJob runs it) respects. windowctl runs
# in in-cluster mode, as in its CronJob. Last, `check`: live on the targets, then over rendered
# manifests (no cluster).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
bash scripts/build.sh >/dev/null

dir=$(mktemp -d)
# Everything the demo runs gets an environment the demo builds, not the caller's: a KUBECONFIG, a
# ~/.kube/config, in-cluster variables or FLUX_SYSTEM_NAMESPACE in the shell would send windowctl
# (or kubectl) to the caller's cluster, KUBECONFIG first of all (windowctl prefers it to in-cluster).
mkdir "$dir/home"
clean=(env -i PATH="$PATH" HOME="$dir/home")
"${clean[@]}" /usr/bin/python3 tests/fakeapi/fakeapi.py --dir "$dir" --seed default --reconcile-delay 1 \
  >"$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
[ -s "$dir/port" ] || { echo "fake API server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }

# In-cluster, as its CronJob runs, with the fake's ServiceAccount token: these three and no more.
in_cluster=("${clean[@]}" KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$(cat "$dir/port")"
            WINDOWCTL_SERVICE_ACCOUNT_DIR="$dir/sa")
step() {
  printf '\n$ %s\n' "$*"
  "${in_cluster[@]}" "$@"
}
step build/windowctl status
step build/windowctl close --kustomizations apps-rw --reason "demo: window closed"
step build/windowctl status
step build/windowctl open --kustomizations apps-rw --reason "demo: window open" --wait --timeout 1m
step build/windowctl status
step build/windowctl close --kustomizations apps-rw --for 12h --reason "demo: freeze"
step build/windowctl open --kustomizations apps-rw --reason "scheduled window" --scheduled --fail-on-held
step build/windowctl status
step build/windowctl check --kustomizations apps-rw,apps-rt,infra  # live: exist, not held, the SA may get/patch them

# check: the manifests the demo's window would apply (rendered by kubectl kustomize), then a set
# with a classic mistake (a target declared with spec.suspend, closed without --relabel: exit 1).
if command -v kubectl >/dev/null; then
  "${clean[@]}" kubectl kustomize kustomize/examples/weekly >"$dir/weekly.yaml"  # local: renders, no cluster
  step build/windowctl check -f "$dir/weekly.yaml"
fi
step build/windowctl check -f tests/testdata/check/WC002-bad || true
