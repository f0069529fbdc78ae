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
from hermetic_env import clean_env

REPO = pathlib.Path(__file__).resolve().parents[2]
KUSTOMIZE = REPO / "kustomize"
MANIFESTS = REPO / "manifests"
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
    proc = subprocess.run(["kubectl", "kustomize", str(path)], capture_output=True, text=True, timeout=60,
                          env=clean_env())
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


def sa_user(ns, name="windowctl"):
    return f"system:serviceaccount:{ns}:{name}"


def job_namespace(cronjob):
    return cronjob["metadata"]["namespace"]


class Cluster:
    """A fresh fake API server, seeded with the Flux objects, where a rendering's manifests are
    applied as a cluster would take them: its Namespaces exist, its ServiceAccounts have tokens,
    and its Roles and RoleBindings, evaluated by the fake's RBAC authorizer, are all they may use."""

    def __init__(self, tmp_path, pki_dir, windowctl_bin, docs, target_ns=NS):
        from fakeapi import FakeApiServer
        self.tmp = tmp_path
        self.bin = windowctl_bin
        self.docs = docs
        self.target_ns = target_ns
        self.api = FakeApiServer(str(tmp_path / "api"), pki_dir=pki_dir)
        self.api.start()
        self.api.seed_default()
        for ns in sorted({d["metadata"]["name"] for d in of_kind(docs, "Namespace")} |
                         {d["metadata"].get("namespace") for d in docs if d["metadata"].get("namespace")}):
            self.api.put("namespaces", "", ns, {})
        if target_ns != NS:
            # The seeded Flux objects, moved to where this rendering's jobs look for them.
            for resource in ("kustomizations", "helmreleases"):
                for obj in self.api.list(resource, NS):
                    self.add_target(obj["metadata"]["name"], resource, like=obj["metadata"]["name"])
        self.api.apply_rbac(docs)
        self.sa_dirs = {}
        for sa in of_kind(docs, "ServiceAccount"):
            key = (sa["metadata"]["namespace"], sa["metadata"]["name"])
            self.api.add_user(sa_user(*key))  # no rules of its own: only what the bindings grant
            self.sa_dirs[key] = self.api.write_service_account_dir(
                str(tmp_path / f"sa-{key[0]}-{key[1]}"), sa_user(*key), namespace=key[0])
        # An operator's kubeconfig identity, all-powerful, to set the scene and to run the
        # commands docs/operations.md tells an operator to run.
        self.api.add_user("admin", cluster_admin=True)
        self.admin_kubeconfig = self.api.write_kubeconfig(str(tmp_path / "admin-kubeconfig"), "admin")
        (tmp_path / "home").mkdir(parents=True)

    def add_target(self, name, resource="kustomizations", like="apps-rw", ns=None):
        """Another Kustomization/HelmRelease for a job to act on, shaped like a seeded one; an
        object of another Flux kind as its controller leaves it (fakekube/flux_samples)."""
        if resource not in ("kustomizations", "helmreleases"):
            from fakekube.flux_samples import kind_of, put_sample
            put_sample(self.api, kind_of(resource), name, ns=ns or self.target_ns)
            return
        if resource == "helmreleases" and like == "apps-rw":
            like = "podinfo"
        src = self.api.get(resource, NS, like)
        self.api.put(resource, ns or self.target_ns, name, {
            "metadata": {"labels": src["metadata"].get("labels", {})}, "spec": src["spec"], "status": src.get("status", {})})

    def _env(self):
        return clean_env(self.tmp / "home", PATH="/usr/bin:/bin")

    def run_job(self, cronjob, timeout=60):
        """Run a rendered CronJob exactly as its pod would: its args, its env (the downward API's
        metadata.namespace is the job's namespace), in-cluster config with its ServiceAccount's token."""
        pod = pod_spec(cronjob)
        ns = job_namespace(cronjob)
        env = self._env()
        env.update(KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(self.api.port),
                   WINDOWCTL_SERVICE_ACCOUNT_DIR=self.sa_dirs[(ns, pod.get("serviceAccountName", "default"))])
        container = pod["containers"][0]
        for var in container.get("env") or []:
            if "value" in var:
                env[var["name"]] = var["value"]
            else:
                ref = var["valueFrom"]["fieldRef"]["fieldPath"]
                assert ref == "metadata.namespace", f"downward API field {ref} not simulated"
                env[var["name"]] = ns
        return subprocess.run([self.bin, *self.mounted(cronjob)], env=env, capture_output=True, text=True,
                              timeout=timeout)

    def mounted(self, cronjob):
        """The container's args with its ConfigMap volumes mounted: each volume's data written to a
        directory of its own, and an arg under a mountPath pointed there (the pod reads the same
        bytes at the mountPath; the ConfigMap comes from the rendering, as the cluster would have it)."""
        pod = pod_spec(cronjob)
        container = pod["containers"][0]
        args = list(container["args"])
        volumes = {v["name"]: v for v in pod.get("volumes") or []}
        for mount in container.get("volumeMounts") or []:
            source = volumes[mount["name"]].get("configMap")
            assert source, f"volume {mount['name']} is no ConfigMap: not simulated"
            cm = one(self.docs, "ConfigMap", source["name"])
            where = self.tmp / "volumes" / job_namespace(cronjob) / mount["name"]
            where.mkdir(parents=True, exist_ok=True)
            for key, value in cm.get("data", {}).items():
                (where / key).write_text(value, newline="")
            prefix = mount["mountPath"].rstrip("/") + "/"
            args = [str(where) + "/" + a[len(prefix):] if a.startswith(prefix) else a for a in args]
        return args

    def run(self, argv, timeout=60):
        """Run windowctl as an operator would: the admin kubeconfig."""
        env = self._env()
        env["KUBECONFIG"] = self.admin_kubeconfig
        return subprocess.run([self.bin, *argv], env=env, capture_output=True, text=True, timeout=timeout)

    def obj(self, name, resource="kustomizations", ns=None):
        return self.api.get(resource, ns or self.target_ns, name)

    def suspended(self, name, resource="kustomizations", ns=None):
        from fakekube.flux_samples import is_suspended
        return is_suspended(self.obj(name, resource, ns))

    def annotations(self, name, resource="kustomizations", ns=None):
        return self.obj(name, resource, ns)["metadata"].get("annotations", {})

    def close(self):
        self.api.close()


@pytest.fixture
def cluster(tmp_path, pki_dir, windowctl_bin):
    """cluster(docs, target_ns=...) -> Cluster for those rendered manifests; stopped at the end."""
    made = []

    def make(docs, sub="c", target_ns=NS):
        c = Cluster(tmp_path / f"{sub}{len(made)}", pki_dir, windowctl_bin, docs, target_ns)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def render_overlay(tmp_path, kustomization):
    """Render a throwaway overlay: `kustomization` is the kustomization.yaml as a dict, with
    paths relative to the repository's kustomize/ directory."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    k = dict(kustomization)
    for key in ("resources", "components"):
        if key in k:
            k[key] = [os.path.relpath(KUSTOMIZE / r, tmp_path) for r in k[key]]
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(k))
    proc = subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=60,
                          env=clean_env())
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def render_with_components(tmp_path, base, *components):
    """Render `base` with the given components applied, through a throwaway overlay."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
        "resources": [os.path.relpath(base, tmp_path)],
        "components": [os.path.relpath(c, tmp_path) for c in components]}))
    return [d for d in yaml.safe_load_all(
        subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True, text=True,
                       check=True, timeout=60, env=clean_env()).stdout) if d]
