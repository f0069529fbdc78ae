#!/usr/bin/env python3
"""Scale: status --all, close --all and sync over 10,000 and 100,000 Kustomizations.

Each object is a realistic Kustomization as the API server serves it: managedFields, a
last-applied-configuration annotation, status with conditions and an inventory (about 3 KB), so
what a LIST page costs is what a cluster's would. windowctl lists in pages of 500. Printed per
run: wall time, windowctl's own CPU time (the fake API server is Python and dominates the wall
time at 100,000), peak RSS of the windowctl process, requests and writes. Goals (issue 10): peak
RSS <= 8 MiB at 10,000 and <= 16 MiB at 100,000; 10,000 objects listed and decided in <= 1 s.

Run: /usr/bin/python3 bench/scale.py [--sizes 10000,100000] [--bin build/windowctl]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakeapi"))
from fakeapi import FakeApiServer  # noqa: E402

USER = "system:serviceaccount:flux-system:windowctl"
ALWAYS = "* * * * * for 2m"  # a window that is always open: sync opens everything


def kustomization(i):
    name = f"scale-{i:06d}"
    return name, {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": name, "namespace": "flux-system", "labels": {"scale": "yes"},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{" + "x" * 700 + "}"},
                     "managedFields": [{"manager": "kustomize-controller", "operation": "Update",
                                        "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {}}}}]},
        "spec": {"interval": "10m", "path": f"./apps/{name}", "prune": True,
                 "sourceRef": {"kind": "GitRepository", "name": "flux-system"}},
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded",
                                   "message": "Applied revision: main@sha1:0123456789abcdef",
                                   "lastTransitionTime": "2026-11-01T00:00:00Z"}],
                   "lastAppliedRevision": "main@sha1:0123456789abcdef",
                   "inventory": {"entries": [{"id": f"default_{name}-{k}_apps_Deployment", "v": "v1"} for k in range(8)]}},
    }


def measured(argv, env, rss_file):
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", rss_file, *argv], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[1:3])} failed ({proc.returncode}): {proc.stderr[-800:]}")
    rss, user, sys_ = open(rss_file).read().split()[-3:]
    return wall, float(user) + float(sys_), int(rss) / 1024, proc.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--bin", default=str(REPO / "build" / "windowctl"))
    ap.add_argument("--close-limit", type=int, default=10000,
                    help="first close --all (one PATCH and Event each) only up to this size: the Python fake "
                         "takes minutes per 10,000 writes; above it close --all is measured on closed objects")
    args = ap.parse_args()
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        work = pathlib.Path(tempfile.mkdtemp(prefix="windowctl-scale-"))
        srv = FakeApiServer(str(work / "api"), reconcile_delay=3600)
        srv.start()
        try:
            srv.add_user(USER, cluster_admin=True)
            kubeconfig = srv.write_kubeconfig(str(work / "kubeconfig"), USER)
            t0 = time.perf_counter()
            for i in range(n):
                name, obj = kustomization(i)
                srv.put("kustomizations", "flux-system", name, obj)
            print(f"seeded {n} objects in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), "KUBECONFIG": kubeconfig}
            rss_file = str(work / "rss")
            runs = [("status --all", [args.bin, "status", "-l", "scale=yes"])]
            if n <= args.close_limit:
                runs.append(("close --all (every object written)", [args.bin, "close", "--all", "--reason", "bench"]))
            else:
                for i in range(n):
                    name, obj = kustomization(i)
                    obj["spec"]["suspend"] = True
                    obj["metadata"]["annotations"].update({"windowctl.io/suspended-by": "windowctl",
                                                           "windowctl.io/suspended-at": "2026-11-24T00:00:00Z"})
                    srv.put("kustomizations", "flux-system", name, obj)
            runs.append(("close --all (all closed already)", [args.bin, "close", "--all"]))
            runs.append(("sync, window closed (no writes)", [args.bin, "sync", "--all", "--window", "0 0 1 1 * for 1m"]))
            runs.append(("status --all -o json", [args.bin, "status", "--all", "-o", "json"]))
            for label, argv in runs:
                before = srv.stats()
                wall, cpu, rss, out = measured(argv, env, rss_file)
                after = srv.stats()
                lines = out.count("\n")
                rows.append((n, label, wall, cpu, rss, after.get("requests", 0) - before.get("requests", 0),
                             after.get("writes", 0) - before.get("writes", 0), lines))
                print(f"{n} {label}: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.1f} MiB", file=sys.stderr)
        finally:
            srv.stop()
    print("| objects | run | wall | windowctl CPU | peak RSS | requests | writes | output lines |")
    print("|--:|---|--:|--:|--:|--:|--:|--:|")
    for n, label, wall, cpu, rss, req, wr, lines in rows:
        print(f"| {n:,} | {label} | {wall:.2f} s | {cpu:.2f} s | {rss:.1f} MiB | {req:,} | {wr:,} | {lines:,} |")


if __name__ == "__main__":
    main()
