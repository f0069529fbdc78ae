"""End-to-end harness: the real windowctl binary over real TLS against the fake API server."""
import http.client
import json
import os
import pathlib
import ssl
import subprocess
import sys

import jsonschema
import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "fakeapi"))

from fakeapi import FakeApiServer  # noqa: E402

SA_USER = "system:serviceaccount:flux-system:windowctl"
# Everything windowctl may use (list for -l/--all/status), in every namespace for the
# cross-namespace tests. The kustomize base grants less; tests/deploy proves that is enough.
SA_RULES = [
    {"namespace": "*", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"],
     "verbs": ["get", "list", "patch"]},
    {"namespace": "*", "apiGroups": ["helm.toolkit.fluxcd.io"], "resources": ["helmreleases"],
     "verbs": ["get", "list", "patch"]},
    {"namespace": "*", "apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
]
KS = "kustomizations"


def binary():
    path = os.environ.get("WINDOWCTL_BIN", str(REPO / "build" / "windowctl"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"windowctl binary not found at {path}; build it first (scripts/build.sh)")
    return path


class Windowctl:
    """Runs the binary as a CronJob pod would (in-cluster) or as an operator would (kubeconfig)."""

    def __init__(self, api, tmp_path):
        self.api = api
        self.tmp = tmp_path
        self.bin = binary()
        self.home = tmp_path / "home"
        self.home.mkdir()
        self.token = api.add_user(SA_USER, rules=SA_RULES)
        self.sa_dir = pathlib.Path(api.write_service_account_dir(str(tmp_path / "sa"), SA_USER))
        self.secrets = {self.token}

    def env(self, mode):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home)}
        if os.environ.get("ASAN_OPTIONS"):
            env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"]
        if os.environ.get("UBSAN_OPTIONS"):
            env["UBSAN_OPTIONS"] = os.environ["UBSAN_OPTIONS"]
        if mode == "in-cluster":
            env.update(KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(self.api.port),
                       WINDOWCTL_SERVICE_ACCOUNT_DIR=str(self.sa_dir))
        return env

    def run(self, *args, mode="in-cluster", extra_env=None, timeout=60, check_secrets=True):
        env = self.env(mode)
        env.update(extra_env or {})
        proc = subprocess.run([self.bin, *args], env=env, capture_output=True, text=True, timeout=timeout)
        # Sanitizer builds report here; a report is a failure whatever the exit code says.
        assert "AddressSanitizer" not in proc.stderr and "runtime error:" not in proc.stderr, proc.stderr
        if check_secrets:
            for secret in self.secrets:
                assert secret not in proc.stdout and secret not in proc.stderr, "a token was printed"
        return proc

    def kubeconfig(self, user=SA_USER, token=None, **kw):
        path = self.api.write_kubeconfig(str(self.tmp / f"kubeconfig-{len(list(self.tmp.iterdir()))}"), user, **kw)
        return path

    def kubeconfig_for(self, name, user, cluster=None, namespace=None):
        """A hand-made kubeconfig with one context: `user` is the kubeconfig user entry (token,
        client-certificate, exec, ...); the cluster defaults to the fake with its CA file."""
        cluster = cluster or {"server": self.api.url, "certificate-authority": self.api.ca_path}
        context = {"cluster": "fake", "user": "u"}
        if namespace:
            context["namespace"] = namespace
        path = self.tmp / name
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "ctx",
            "clusters": [{"name": "fake", "cluster": cluster}],
            "contexts": [{"name": "ctx", "context": context}],
            "users": [{"name": "u", "user": user}]}))
        return str(path)

    # Helpers over the fake's store.
    def obj(self, name, ns="flux-system", resource=KS):
        return self.api.get(resource, ns, name)

    def suspended(self, name, ns="flux-system", resource=KS):
        from fakekube.flux_samples import is_suspended  # spec.suspend, or the kind's pause annotation
        return is_suspended(self.obj(name, ns, resource))

    def patches(self):
        return [r for r in self.api.requests if r["method"] == "PATCH"]

    def events(self, reason=None):
        evs = self.api.events("flux-system")
        return [e for e in evs if reason is None or e.get("reason") == reason]


@pytest.fixture(scope="session")
def pki_dir(tmp_path_factory):
    """One CA and server certificate per test process: RSA keys cost about a second of CPU each,
    and a test that is about certificates makes its own server (test_tls.py)."""
    return str(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def api(tmp_path, pki_dir):
    srv = FakeApiServer(str(tmp_path / "api"), reconcile_delay=0.2, pki_dir=pki_dir)
    srv.start()
    srv.seed_default()
    yield srv
    srv.stop()


@pytest.fixture
def wctl(api, tmp_path):
    return Windowctl(api, tmp_path)


# User-Agents of the other writers: the API server names an Update's manager after the first word
# when the request has no ?fieldManager= (the flux CLI sends none; kubectl does).
FLUX_CLI = "flux/v2.6.4 (linux/amd64) kubernetes/$Format"
KUBECTL = "kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef0"


def patch_as(api, name, body, agent, field_manager=None, ns="flux-system", resource=KS,
             group="kustomize.toolkit.fluxcd.io/v1"):
    """A merge patch by someone else over the fake's HTTPS API (not its store), so that the
    server keeps metadata.managedFields for it as for any client: `flux suspend`, `kubectl
    patch`, the Flux Operator's web UI."""
    token = api.add_user("someone-else", cluster_admin=True)
    ctx = ssl.create_default_context(cafile=api.ca_path)
    conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=ctx, timeout=10)
    path = f"/apis/{group}/namespaces/{ns}/{resource}/{name}"
    if field_manager:
        path += "?fieldManager=" + field_manager
    try:
        conn.request("PATCH", path, body=json.dumps(body), headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/merge-patch+json", "User-Agent": agent})
        r = conn.getresponse()
        answer = r.read()
        assert r.status == 200, answer
        return json.loads(answer)
    finally:
        conn.close()


def backdate_mark(api, name, when="2026-01-05T07:00:00Z", ns="flux-system", resource=KS):
    """windowctl marked the object earlier than the test's seconds: what it stores is kept, only
    suspended-at moves, so that a later write by someone else is later by the clock too."""
    obj = api.get(resource, ns, name)
    obj["metadata"]["annotations"]["windowctl.io/suspended-at"] = when
    api.put(resource, ns, name, obj)


def lines(text):
    return [line for line in text.splitlines() if line.strip()]


def json_out(proc):
    return json.loads(proc.stdout)


# The -o json contract (schema/result.schema.json), for the tests that validate documents.
SCHEMA = json.loads((REPO / "schema" / "result.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
TARGET_KEYS = set(SCHEMA["$defs"]["target"]["required"])


def valid(proc, command, code=0, keys=TARGET_KEYS):
    """The document on stdout, after checking it against the schema and the exit code; each
    result has exactly `keys` (a fleet's also its context)."""
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    doc = json.loads(proc.stdout)
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    assert doc["command"] == command
    for r in doc.get("results", []):
        assert set(r) == keys, r  # one shape, every key present
    return doc
