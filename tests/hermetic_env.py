"""Keeps every test off the caller's cluster.

windowctl's configuration rule (--kubeconfig, KUBECONFIG, in-cluster, ~/.kube/config) and
kubectl's both fall back on the environment: a test that forgot an explicit configuration, or a
subprocess that inherits os.environ, would act on whatever cluster the shell running pytest
points at. Each test directory's conftest.py imports this module, which at import (once per
session) drops the variables that name a cluster and gives the session a HOME of its own, with
no .kube/config. Build caches stay where they were: XDG_CACHE_HOME keeps pointing at the
caller's (scripts/demo.sh builds, and a new HOME would rebuild OpenSSL and every object).
"""
import atexit
import os
import shutil
import tempfile

# What windowctl reads (src/config.cc) and what kubectl's client-go reads besides.
CLUSTER_VARIABLES = (
    "KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "WINDOWCTL_SERVICE_ACCOUNT_DIR",
    "FLUX_SYSTEM_NAMESPACE", "KUBERNETES_MASTER", "KUBECACHEDIR",
)


def _isolate():
    for name in CLUSTER_VARIABLES:
        os.environ.pop(name, None)
    caller_home = os.environ.get("HOME") or os.path.expanduser("~")
    os.environ.setdefault("XDG_CACHE_HOME", os.path.join(caller_home, ".cache"))
    home = tempfile.mkdtemp(prefix="windowctl-tests-home-")
    atexit.register(shutil.rmtree, home, True)
    os.environ["HOME"] = home


def clean_env(home=None, **extra):
    """An environment for a subprocess that names no cluster: PATH, a HOME (the session's own
    unless given), the sanitizers' options, and `extra`."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home or os.environ["HOME"])}
    for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.update({k: str(v) for k, v in extra.items()})
    return env


_isolate()
