#!/usr/bin/python3
"""Fake Kubernetes API server for windowctl's e2e tests, demo and benchmark.

Import:     from fakeapi import FakeApiServer   (with tests/fakeapi on sys.path)
Standalone: /usr/bin/python3 tests/fakeapi/fakeapi.py --dir DIR [--port 0] [--seed default]

It shares no HTTP/TLS code with windowctl on purpose: it is the independent other side.
"""

import argparse
import os
import signal
import sys
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from fakekube.server import (  # noqa: E402
    CRD_HELMRELEASE, CRD_KUSTOMIZATION_V1_ONLY, CRD_KUSTOMIZATION_V1_V1BETA2, FakeApiServer, crd_path,
    CRD_DIR, CRD_BUCKET_V1BETA2, CRD_OTHER_KINDS, CRD_ANNOTATION_PAUSED, default_crds,
)

__all__ = ["FakeApiServer", "crd_path", "default_crds", "CRD_DIR", "CRD_HELMRELEASE",
           "CRD_KUSTOMIZATION_V1_ONLY", "CRD_KUSTOMIZATION_V1_V1BETA2", "CRD_OTHER_KINDS", "CRD_ANNOTATION_PAUSED", "CRD_BUCKET_V1BETA2", "SA_USER", "SA_RULES", "main"]

SA_USER = "system:serviceaccount:flux-system:windowctl"
SA_RULES = [
    {"namespace": "flux-system", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"],
     "verbs": ["get", "list", "patch"]},
    {"namespace": "flux-system", "apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
]


def _served(values):
    out = {}
    for item in values or []:
        group, _, versions = item.partition("=")
        out[group] = [v for v in versions.split(",") if v]
    return out or None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="work directory (certs, kubeconfig, sa/, port, fakeapi.log)")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--seed", choices=["default", "none"], default="default")
    p.add_argument("--reconcile-delay", type=float, default=0.5)
    p.add_argument("--crd", action="append", help="CRD YAML to serve (repeatable; default: Flux 2.7 Kustomization, every other Flux kind)")
    p.add_argument("--served", action="append", metavar="GROUP=V1,V2",
                   help="restrict served versions of a group, e.g. kustomize.toolkit.fluxcd.io=v1beta2")
    p.add_argument("--chunked", action="store_true", help="send responses with Transfer-Encoding: chunked")
    p.add_argument("--tls-min", choices=["1.2", "1.3"], default="1.2", help="lowest TLS version accepted")
    p.add_argument("--tls-max", choices=["1.2", "1.3"], help="highest TLS version accepted (default: 1.3)")
    p.add_argument("--key-type", choices=["rsa", "ec"], default="rsa",
                   help="CA and serving certificate keys: RSA 2048 or ECDSA (P-384 CAs, P-256 server)")
    p.add_argument("--server-version", help="gitVersion /version reports, e.g. v1.26.3 (default v1.32.0)")
    args = p.parse_args(argv)

    os.makedirs(args.dir, exist_ok=True)
    srv = FakeApiServer(args.dir, crds=args.crd, served_versions=_served(args.served),
                        reconcile_delay=args.reconcile_delay, key_type=args.key_type,
                        tls_min_version=args.tls_min, tls_max_version=args.tls_max)
    srv.chunked = args.chunked
    if args.server_version:
        srv.set_server_version(args.server_version)
    srv.add_user("admin", cluster_admin=True)
    srv.add_user(SA_USER, rules=SA_RULES)
    srv.start(args.port)
    if args.seed == "default":
        srv.seed_default()
    srv.write_kubeconfig(os.path.join(args.dir, "kubeconfig"), "admin")
    srv.write_kubeconfig(os.path.join(args.dir, "kubeconfig-sa"), SA_USER)
    srv.write_service_account_dir(os.path.join(args.dir, "sa"), SA_USER)
    tmp = os.path.join(args.dir, "port.tmp")
    with open(tmp, "w") as f:
        f.write(f"{srv.port}\n")
    os.replace(tmp, os.path.join(args.dir, "port"))

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    print(f"fakeapi listening on {srv.url}", flush=True)
    while not done.wait(1):
        pass
    srv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
