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
import http.server
import json
import os
import pathlib
import ssl
import threading
import urllib.parse
import urllib.request
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakeapi"))
from fakeapi import FakeApiServer  # noqa: E402

USER = "system:serviceaccount:flux-system:windowctl"
ALWAYS = "* * * * * for 2m"
RSS_GOAL_MIB = {10000: 8, 100000: 16}  # issue 10  # a window that is always open: sync opens everything


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


class Replay:
    """The fake's answers to discovery and every LIST page, recorded once and served again as bytes
    from memory: windowctl's wall time without the Python fake's cost of building each page."""

    def __init__(self, srv, token, cert, key):
        ctx = ssl.create_default_context(cafile=srv.ca_path)
        self.answers = {}
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}

        def get(path):
            req = urllib.request.Request(srv.url + path, headers=headers)
            with urllib.request.urlopen(req, context=ctx) as r:
                return r.read()

        self.answers[("/apis/kustomize.toolkit.fluxcd.io", "")] = get("/apis/kustomize.toolkit.fluxcd.io")
        base = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations"
        token_ = ""
        while True:
            q = "?limit=500" + ("&continue=" + urllib.parse.quote(token_, safe="") if token_ else "")
            body = get(base + q)
            self.answers[(base, token_)] = body
            token_ = json.loads(body).get("metadata", {}).get("continue", "")
            if not token_:
                break
        answers = self.answers

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                cont = urllib.parse.parse_qs(url.query).get("continue", [""])[0]
                body = answers.get((url.path, cont))
                self.send_response(200 if body is not None else 404)
                body = body if body is not None else b'{"kind":"Status","code":404}'
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        sctx.load_cert_chain(cert, key)
        self.httpd.socket = sctx.wrap_socket(self.httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


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
            token = srv.add_user(USER, cluster_admin=True)
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
            # Read-only runs again against the recorded pages: the time windowctl itself takes to
            # list and decide, with a server that answers as fast as a real one's cache.
            replay = Replay(srv, token, srv.pki.server_cert, srv.pki.server_key)
            try:
                kc = pathlib.Path(kubeconfig).read_text().replace(srv.url, replay.url)
                rkc = work / "kubeconfig-replay"
                rkc.write_text(kc)
                renv = dict(env, KUBECONFIG=str(rkc))
                for label, argv in [("replayed: status --all", [args.bin, "status", "--all"]),
                                    ("replayed: close --all (all closed already)", [args.bin, "close", "--all"]),
                                    ("replayed: sync, window closed", [args.bin, "sync", "--all", "--window", "0 0 1 1 * for 1m"])]:
                    wall, cpu, rss, out = measured(argv, renv, rss_file)
                    rows.append((n, label, wall, cpu, rss, len(replay.answers), 0, out.count("\n")))
                    print(f"{n} {label}: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.1f} MiB", file=sys.stderr)
            finally:
                replay.stop()
        finally:
            srv.stop()
    print("| objects | run | wall | windowctl CPU | peak RSS | requests | writes | output lines |")
    print("|--:|---|--:|--:|--:|--:|--:|--:|")
    for n, label, wall, cpu, rss, req, wr, lines in rows:
        print(f"| {n:,} | {label} | {wall:.2f} s | {cpu:.2f} s | {rss:.1f} MiB | {req:,} | {wr:,} | {lines:,} |")
    print()
    # The goals, read off the rows above: a figure to compare, not a pass/fail test.
    for n in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == n]
        peak = max(r[4] for r in mine)
        goal = RSS_GOAL_MIB.get(n)
        verdict = "" if goal is None else f" (goal <= {goal} MiB: {'met' if peak <= goal else 'MISSED'})"
        print(f"{n:,} objects: peak RSS {peak:.1f} MiB over every run{verdict}")
        replayed = [r for r in mine if r[1].startswith("replayed:")]
        if n == 10000 and replayed:
            worst = max(replayed, key=lambda r: r[2])
            print(f"{n:,} objects listed and decided: {worst[2]:.2f} s wall at worst, {worst[3]:.2f} s of it "
                  f"windowctl's CPU ({worst[1]}) (goal <= 1 s: {'met' if worst[2] <= 1.0 else 'MISSED'})")


if __name__ == "__main__":
    main()
