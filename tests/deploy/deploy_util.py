"""Shared helpers for the deployment tests: render kustomizations, find things in them,
run rendered CronJobs against the fake API server."""
import functools
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
KUSTOMIZE = REPO / "kustomize"
MANIFESTS = REPO / "manifests"
SA_USER = "system:serviceaccount:flux-system:windowctl"
NS = "flux-system"

sys.path.insert(0, str(REPO / "tests" / "fakeapi"))


def kustomization_dirs(*roots, components=False):
    """Directories holding a kustomization.yaml; components only if asked."""
    out = []
    for root in roots:
        for f in sorted(root.rglob("kustomization.yaml")):
            is_component = (yaml.safe_load(f.read_text()) or {}).get("kind") == "Component"
            if is_component == components:
                out.append(f.parent)
    return out


def rel(path):
    return str(pathlib.Path(path).relative_to(REPO))


@functools.lru_cache(maxsize=None)
def render_text(path):
    proc = subprocess.run(["kubectl", "kustomize", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"kubectl kustomize {rel(path)} failed:\n{proc.stderr}"
    return proc.stdout


def render(path):
    return [d for d in yaml.safe_load_all(render_text(path)) if d]


def of_kind(docs, kind):
    return [d for d in docs if d.get("kind") == kind]


def one(docs, kind, name):
    found = [d for d in docs if d.get("kind") == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def pod_spec(cronjob):
    return cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def job_args(cronjob):
    return pod_spec(cronjob)["containers"][0]["args"]


# Everything that renders windowctl CronJobs: the base and each example.
WINDOWCTL_TARGETS = [KUSTOMIZE / "base"] + sorted(p for p in (KUSTOMIZE / "examples").iterdir() if p.is_dir())


@pytest.fixture(scope="session")
def windowctl_bin(tmp_path_factory):
    """A private copy of the binary: others may rebuild build/windowctl while the tests run."""
    src = os.environ.get("WINDOWCTL_BIN", str(REPO / "build" / "windowctl"))
    if not os.access(src, os.X_OK):
        pytest.fail(f"windowctl binary not found at {src}; build it first (scripts/build.sh)")
    dst = tmp_path_factory.mktemp("bin") / "windowctl"
    shutil.copy2(src, dst)
    return str(dst)


@pytest.fixture(scope="session")
def pki_dir(tmp_path_factory):
    # One PKI for every fake server: RSA key generation is the slow part of starting one.
    return str(tmp_path_factory.mktemp("pki"))


class Cluster:
    """A fresh fake API server, seeded, where the windowctl ServiceAccount holds a given Role."""

    def __init__(self, tmp_path, pki_dir, windowctl_bin, role):
        from fakeapi import FakeApiServer
        self.tmp = tmp_path
        self.bin = windowctl_bin
        self.api = FakeApiServer(str(tmp_path / "api"), pki_dir=pki_dir)
        self.api.start()
        self.api.seed_default()
        self.api.add_user(SA_USER)  # no rules: exactly the Role's, loaded next
        self.api.load_role(SA_USER, role)
        self.sa_dir = self.api.write_service_account_dir(str(tmp_path / "sa"), SA_USER)
        # An all-powerful identity to set the scene (e.g. close before testing open).
        self.api.add_user("admin", cluster_admin=True)
        self.admin_dir = self.api.write_service_account_dir(str(tmp_path / "admin-sa"), "admin")
        (tmp_path / "home").mkdir(parents=True)

    def add_target(self, name, resource="kustomizations", like="apps-rw"):
        """Another Kustomization/HelmRelease for a job to act on, shaped like a seeded one."""
        if resource == "helmreleases":
            like = "podinfo"
        src = self.api.get(resource, NS, like)
        self.api.put(resource, NS, name, {"metadata": {"labels": src["metadata"].get("labels", {})},
                                          "spec": src["spec"], "status": src.get("status", {})})

    def run(self, argv, timeout=60, admin=False):
        """Run like the CronJob's pod: in-cluster config, the ServiceAccount's token, no kubeconfig."""
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.tmp / "home"),
               "KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(self.api.port),
               "WINDOWCTL_SERVICE_ACCOUNT_DIR": self.admin_dir if admin else self.sa_dir}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]
        return subprocess.run([self.bin, *argv], env=env, capture_output=True, text=True, timeout=timeout)

    def suspended(self, name, resource="kustomizations"):
        return self.api.get(resource, NS, name).get("spec", {}).get("suspend") is True

    def close(self):
        self.api.close()


@pytest.fixture
def cluster(tmp_path, pki_dir, windowctl_bin):
    """cluster(role) -> Cluster; stopped at the end of the test."""
    made = []

    def make(role, sub="c"):
        c = Cluster(tmp_path / f"{sub}{len(made)}", pki_dir, windowctl_bin, role)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def render_with_components(tmp_path, base, *components):
    """Render `base` with the given components applied, through a throwaway overlay."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
        "resources": [os.path.relpath(base, tmp_path)],
        "components": [os.path.relpath(c, tmp_path) for c in components]}))
    return [d for d in yaml.safe_load_all(
        subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True, text=True,
                       check=True, timeout=60).stdout) if d]
