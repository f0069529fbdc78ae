#!/usr/bin/env python3
"""windowctl vs kubectl patch: the same targets, the same local API server.

For N = 1, 10, 100 Kustomizations it closes (suspends) and opens (resumes) them, alternating, and
prints the median wall time, the peak RSS of one process, the requests and TLS handshakes per run,
and the binary size. kubectl runs as a CronJob script would: one `kubectl patch` process per
target. Run: /usr/bin/python3 bench/bench.py [--runs 5]
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakeapi"))
from fakeapi import FakeApiServer  # noqa: E402

USER = "system:serviceaccount:flux-system:windowctl"


def run_measured(argv, env, rss_file):
    """Runs one process; returns (seconds, peak RSS in KiB). GNU time reports the RSS: rusage
    read here would count the forked Python parent the child started as."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, *argv], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr.decode()[:500]}")
    with open(rss_file) as f:
        return elapsed, int(f.read().split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="1,10,100")
    ap.add_argument("--bin", default=str(REPO / "build" / "windowctl"))
    ap.add_argument("--sync-targets", type=int, default=1000)
    args = ap.parse_args()
    kubectl = shutil.which("kubectl")

    work = pathlib.Path(tempfile.mkdtemp(prefix="windowctl-bench-"))
    srv = FakeApiServer(str(work / "api"), reconcile_delay=3600)
    srv.start()
    try:
        srv.add_user(USER, cluster_admin=True)
        kubeconfig = srv.write_kubeconfig(str(work / "kubeconfig"), USER)
        sizes = [int(s) for s in args.sizes.split(",")]
        for i in range(max(sizes)):
            srv.put("kustomizations", "flux-system", f"bench-{i:03d}", {
                "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
                "metadata": {"name": f"bench-{i:03d}", "namespace": "flux-system", "labels": {"bench": "yes"}},
                "spec": {"interval": "10m", "path": "./apps", "prune": True,
                         "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}})
        env = {"PATH": os.environ["PATH"], "HOME": str(work / "home"), "KUBECONFIG": kubeconfig}
        (work / "home").mkdir()
        rss_file = str(work / "rss")

        rows = []
        for n in sizes:
            names = [f"bench-{i:03d}" for i in range(n)]
            for tool in ("windowctl", "kubectl patch"):
                if tool == "kubectl patch" and not kubectl:
                    continue
                times, rss, reqs, shakes = [], [], [], []
                for r in range(args.runs * 2):
                    close = r % 2 == 0
                    srv.reset_stats()
                    if tool == "windowctl":
                        verb = "close" if close else "open"
                        t, m = run_measured([args.bin, verb, "--kustomizations", ",".join(names)], env, rss_file)
                    else:
                        body = '{"spec":{"suspend":true}}' if close else '{"spec":{"suspend":null}}'
                        t, m = 0.0, 0
                        for name in names:
                            dt, dm = run_measured([kubectl, "patch", "kustomization", name, "-n", "flux-system",
                                                   "--type", "merge", "-p", body], env, rss_file)
                            t, m = t + dt, max(m, dm)
                    times.append(t)
                    rss.append(m)
                    reqs.append(len(srv.requests))
                    shakes.append(srv.handshakes)
                rows.append((n, tool, statistics.median(times), max(rss) / 1024, statistics.median(reqs),
                             statistics.median(shakes)))
        size = os.path.getsize(args.bin)
        print(f"windowctl binary: {size} bytes ({size / 1048576:.2f} MiB), {subprocess.run(['file', '-b', args.bin], capture_output=True, text=True).stdout.split(',')[3].strip()}")
        if kubectl:
            print(f"kubectl binary:   {os.path.getsize(kubectl)} bytes ({os.path.getsize(kubectl) / 1048576:.1f} MiB)")
        print()
        print("| N | tool | median wall time | peak RSS (one process) | requests/run | TLS handshakes/run |")
        print("|---|------|-----------------:|-----------------------:|-------------:|-------------------:|")
        for n, tool, t, m, q, h in rows:
            print(f"| {n} | {tool} | {t * 1000:.1f} ms | {m:.1f} MiB | {q:g} | {h:g} |")
        by = {(n, tool): t for n, tool, t, *_ in rows}
        for n in sizes:
            if (n, "kubectl patch") in by:
                print(f"\nN={n}: windowctl is {by[(n, 'kubectl patch')] / by[(n, 'windowctl')]:.1f}x faster than kubectl patch")
        windows_benchmark(args, srv, env, rss_file)
    finally:
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)


def windows_benchmark(args, srv, env, rss_file):
    """schedule --count 1000 on a minutely window; sync over many targets (a converging run that
    closes them all, then a run with nothing to do)."""
    always = "* * * * * for 1h"
    rows = []
    t, m = run_measured([args.bin, "schedule", "--window", "* * * * * for 30s in Europe/Zurich", "--count", "1000",
                         "-o", "json"], env, rss_file)
    rows.append(("schedule --count 1000 (minutely window)", t, m, 0, 0))
    for i in range(args.sync_targets):
        name = f"sync-{i:04d}"
        srv.put("kustomizations", "flux-system", name, {
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": "flux-system", "labels": {"window": "sync"}},
            "spec": {"interval": "10m", "path": "./apps", "prune": True,
                     "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}})
    sync = [args.bin, "sync", "-l", "window=sync", "--window", always, "--deny", always]
    for label in (f"sync {args.sync_targets} targets, all change", f"sync {args.sync_targets} targets, none change"):
        srv.reset_stats()
        t, m = run_measured(sync, env, rss_file)
        rows.append((label, t, m, len(srv.requests), srv.writes))
    print()
    print("| windows benchmark | wall time | peak RSS | requests | writes |")
    print("|---|--:|--:|--:|--:|")
    for label, t, m, q, w in rows:
        print(f"| {label} | {t * 1000:.0f} ms | {m / 1024:.1f} MiB | {q} | {w} |")


if __name__ == "__main__":
    main()
