#!/usr/bin/env python3
"""Fleet: status --all-contexts over 100 kubeconfig contexts, 5 of them unreachable.

The 95 reachable contexts are served by a few fake API servers (each context its own user and
token), every answer 200 ms late; the 5 others point at closed ports, so windowctl retries them
as it would an unreachable cluster. Printed: the wall time of the fleet run with the default
--max-concurrency (8) and with --max-concurrency 100, against the slowest single context run
alone (a reachable one and an unreachable one, each with --context), and the peak RSS of the
windowctl process. Goals (issue 22): wall time <= 1.2x the slowest single context; peak RSS
<= 16 MiB. With a bound of 8, 100 contexts take about 100/8 rounds: the 1.2x goal needs
--max-concurrency >= the number of contexts, and both figures are printed for that reason.

Run: /usr/bin/python3 bench/fleet.py [--contexts 100] [--unreachable 5] [--servers 5] [--bin build/windowctl]
"""
import argparse
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time

import yaml

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakeapi"))
from fakeapi import FakeApiServer  # noqa: E402

RULES = [{"namespace": "*", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"],
          "verbs": ["get", "list"]}]
DELAY = 0.2
WALL_GOAL = 1.2
RSS_GOAL_MIB = 16


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def measured(argv, env, rss_file):
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, *argv], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    rss = int(open(rss_file).read().split()[-1]) / 1024
    return wall, rss, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--contexts", type=int, default=100)
    ap.add_argument("--unreachable", type=int, default=5)
    ap.add_argument("--servers", type=int, default=5)
    ap.add_argument("--bin", default=str(REPO / "build" / "windowctl"))
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="windowctl-fleet-"))
    pki = str(work / "pki")  # one CA for the servers: certificates cost CPU, not what is measured
    servers = []
    for i in range(args.servers):
        srv = FakeApiServer(str(work / f"api-{i}"), reconcile_delay=3600, pki_dir=pki)
        srv.start()
        srv.seed_default()
        srv.add_fault(count=None, delay=DELAY)  # every answer 200 ms late
        servers.append(srv)
    try:
        clusters, users, contexts = [], [], []
        for i, srv in enumerate(servers):
            clusters.append({"name": f"c{i}", "cluster": {"server": srv.url, "certificate-authority": srv.ca_path}})
        for i in range(args.unreachable):
            clusters.append({"name": f"down{i}", "cluster": {"server": f"https://127.0.0.1:{closed_port()}",
                                                             "certificate-authority": servers[0].ca_path}})
        reachable = args.contexts - args.unreachable
        for n in range(args.contexts):
            name = f"edge-{n:03d}"
            if n < reachable:
                srv = servers[n % len(servers)]
                token = srv.add_user(f"user-{n}", rules=RULES)
                cluster = f"c{n % len(servers)}"
            else:
                token, cluster = "nobody", f"down{n - reachable}"
            users.append({"name": name, "user": {"token": token}})
            contexts.append({"name": name, "context": {"cluster": cluster, "user": name}})
        kubeconfig = work / "kubeconfig"
        kubeconfig.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": "edge-000",
                                              "clusters": clusters, "users": users, "contexts": contexts}))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), "KUBECONFIG": str(kubeconfig)}
        rss_file = str(work / "rss")
        rows = []
        # Every context alone: the slowest of them is what the fleet run is measured against
        # (an unreachable one: its retries' backoff is jittered, so each differs).
        alone = {}
        for c in contexts:
            wall, rss, proc = measured([args.bin, "status", "--context", c["name"]], env, rss_file)
            alone[c["name"]] = (wall, rss, proc.returncode, proc.stdout.count("\n"))
        for label, names in (("slowest reachable context alone", [c["name"] for c in contexts[:reachable]]),
                             ("slowest unreachable context alone", [c["name"] for c in contexts[reachable:]])):
            if names:
                worst = max(names, key=lambda n: alone[n][0])
                rows.append((f"{label} ({worst})", *alone[worst]))
        slowest = max(w for w, *_ in alone.values())
        reachable_names = ",".join(c["name"] for c in contexts[:reachable])
        for label, extra in (("--all-contexts (default --max-concurrency 8)", ["--all-contexts"]),
                             (f"--all-contexts --max-concurrency {args.contexts}",
                              ["--all-contexts", "--max-concurrency", str(args.contexts)]),
                             (f"--contexts (the {reachable} reachable) --max-concurrency {args.contexts}",
                              ["--contexts", reachable_names, "--max-concurrency", str(args.contexts)])):
            wall, rss, proc = measured([args.bin, "status", *extra], env, rss_file)
            failed = sum(1 for line in proc.stderr.splitlines() if " failed" in line and "context edge-" in line)
            rows.append((label, wall, rss, proc.returncode, proc.stdout.count("\n")))
            print(f"{label}: {wall:.2f} s, {rss:.1f} MiB, exit {proc.returncode}, {failed} failed contexts",
                  file=sys.stderr)
        print(f"{args.contexts} contexts ({args.unreachable} unreachable), {args.servers} fake servers, "
              f"{int(DELAY * 1000)} ms added to each answer")
        print()
        print("| run | wall | ratio to slowest single | peak RSS | exit | stdout lines |")
        print("|---|--:|--:|--:|--:|--:|")
        for label, wall, rss, code, lines in rows:
            print(f"| {label} | {wall:.2f} s | {wall / slowest:.2f}x | {rss:.1f} MiB | {code} | {lines} |")
        print()
        fleet = [r for r in rows if r[0].startswith("--")]
        best = fleet[1]
        print(f"slowest single context: {slowest:.2f} s; --max-concurrency {args.contexts}: {best[1] / slowest:.2f}x "
              f"(goal <= {WALL_GOAL}x: {'met' if best[1] <= WALL_GOAL * slowest else 'MISSED'}); default bound 8: "
              f"{fleet[0][1] / slowest:.2f}x (about {args.contexts}/8 rounds, so no 1.2x goal there)")
        peak = max(r[2] for r in fleet)
        print(f"peak RSS over the fleet runs: {peak:.1f} MiB (goal <= {RSS_GOAL_MIB} MiB: "
              f"{'met' if peak <= RSS_GOAL_MIB else 'MISSED'})")
    finally:
        for srv in servers:
            srv.stop()


if __name__ == "__main__":
    main()
