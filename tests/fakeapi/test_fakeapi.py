"""Tests of the fake API server itself: that it behaves like kube-apiserver where windowctl cares.

The strongest check of faithfulness is that an unmodified kubectl works against it (test_kubectl_*).
Run: /usr/bin/python3 -m pytest tests/fakeapi -q
"""

import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time

import pytest
from hermetic_env import clean_env

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fakeapi import SA_RULES, SA_USER, FakeApiServer, crd_path, CRD_ANNOTATION_PAUSED, CRD_KUSTOMIZATION_V1_ONLY  # noqa: E402
from fakekube import schema, selection  # noqa: E402

G = "kustomize.toolkit.fluxcd.io"
KS = f"/apis/{G}/v1/namespaces/flux-system/kustomizations"
MERGE = "application/merge-patch+json"
JSONPATCH = "application/json-patch+json"


# --- fixtures and a plain stdlib client -----------------------------------------------------------

@pytest.fixture(scope="session")
def pki_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("pki"))


def _make(tmp_path, pki_dir, **kw):
    srv = FakeApiServer(str(tmp_path / "fake"), pki_dir=pki_dir, **kw).start()
    srv.admin_token = srv.add_user("admin", cluster_admin=True)
    srv.sa_token = srv.add_user(SA_USER, rules=SA_RULES)
    return srv


@pytest.fixture
def srv(tmp_path, pki_dir):
    s = _make(tmp_path, pki_dir, reconcile_delay=0.2)
    s.seed_default()
    yield s
    s.close()


class Resp:
    def __init__(self, status, headers, raw):
        self.status, self.headers, self.raw = status, headers, raw

    @property
    def json(self):
        return json.loads(self.raw)

    def header_all(self, name):
        return self.headers.get_all(name) or []


class Client:
    def __init__(self, srv, token=None, cert=None, timeout=10):
        ctx = ssl.create_default_context(cafile=srv.ca_path)
        if cert:
            ctx.load_cert_chain(*cert)
        self.token = token
        self.conn = http.client.HTTPSConnection("127.0.0.1", srv.port, context=ctx, timeout=timeout)

    def req(self, method, path, body=None, ctype=None, headers=None):
        h = dict(headers or {})
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if ctype:
            h["Content-Type"] = ctype
        self.conn.request(method, path, body=body, headers=h)
        r = self.conn.getresponse()
        return Resp(r.status, r.headers, r.read())

    def get(self, path, **kw):
        return self.req("GET", path, **kw)

    def patch(self, path, body, ctype=MERGE, **kw):
        return self.req("PATCH", path, body, ctype, **kw)

    def close(self):
        self.conn.close()


@pytest.fixture
def admin(srv):
    c = Client(srv, srv.admin_token)
    yield c
    c.close()


@pytest.fixture
def sa(srv):
    c = Client(srv, srv.sa_token)
    yield c
    c.close()


def wait_for(pred, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


def ready_cond(obj):
    return next(c for c in obj["status"]["conditions"] if c["type"] == "Ready")


# --- discovery, TLS, HTTP -------------------------------------------------------------------------

def test_discovery(admin):
    v = admin.get("/version").json
    assert v["gitVersion"] == "v1.32.0" and v["major"] == "1"
    assert admin.get("/api").json["versions"] == ["v1"]
    core = {r["name"] for r in admin.get("/api/v1").json["resources"]}
    assert {"namespaces", "events", "configmaps"} <= core
    groups = {g["name"]: g for g in admin.get("/apis").json["groups"]}
    assert groups[G]["preferredVersion"]["version"] == "v1"
    assert [v["version"] for v in groups[G]["versions"]] == ["v1", "v1beta2"]
    assert groups["helm.toolkit.fluxcd.io"]["preferredVersion"]["version"] == "v2"
    group = admin.get(f"/apis/{G}").json
    assert group["kind"] == "APIGroup" and group["preferredVersion"]["groupVersion"] == f"{G}/v1"
    res = {r["name"]: r for r in admin.get(f"/apis/{G}/v1").json["resources"]}
    ks = res["kustomizations"]
    assert (ks["kind"], ks["singularName"], ks["namespaced"], ks["shortNames"]) == (
        "Kustomization", "kustomization", True, ["ks"])
    assert {"get", "list", "patch", "watch"} <= set(ks["verbs"])
    assert res["kustomizations/status"]["verbs"] == ["get", "patch", "update"]
    hr = {r["name"]: r for r in admin.get("/apis/helm.toolkit.fluxcd.io/v2").json["resources"]}["helmreleases"]
    assert hr["shortNames"] == ["hr"] and "fluxcd" in hr["categories"]
    # Every other Flux kind with spec.suspend is served from its real CRD; ArtifactGenerator is not.
    src = {r["name"]: r for r in admin.get("/apis/source.toolkit.fluxcd.io/v1").json["resources"]}
    assert {"gitrepositories", "ocirepositories", "helmrepositories", "helmcharts", "buckets"} <= set(src)
    assert src["gitrepositories"]["shortNames"] == ["gitrepo"]
    # Receiver is v1, Alert and Provider v1beta3: the group prefers v1, so windowctl's per-kind
    # version (kinds.cc) is what finds Alerts.
    notification = groups["notification.toolkit.fluxcd.io"]
    assert notification["preferredVersion"]["version"] == "v1"
    assert [v["version"] for v in notification["versions"]] == ["v1", "v1beta3"]
    img = {r["name"]: r for r in admin.get("/apis/image.toolkit.fluxcd.io/v1").json["resources"]}
    assert img["imageupdateautomations"]["shortNames"] == ["iua", "imgupd", "imgauto"]
    # The kinds paused by an annotation, from the CRDs written for the tests.
    operator = {r["name"]: r for r in admin.get("/apis/fluxcd.controlplane.io/v1").json["resources"]}
    assert {n: r.get("shortNames", []) for n, r in operator.items() if "/" not in n} == {
        "resourcesets": ["rset"], "resourcesetinputproviders": ["rsip"], "fluxinstances": []}
    assert admin.get("/apis/source.extensions.fluxcd.io").json["preferredVersion"]["version"] == "v1beta1"
    assert admin.get("/apis/notfluxcd.example.io").status == 404
    assert admin.get(f"/apis/{G}/v1beta1").status == 404


def test_aggregated_discovery_request_gets_legacy_json(admin):
    accept = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
              "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")
    r = admin.get("/apis", headers={"Accept": accept})
    assert r.status == 200 and r.headers["Content-Type"] == "application/json"
    assert r.json["kind"] == "APIGroupList"


def test_version_priority():
    versions = ["v1beta1", "v2alpha1", "v1", "foo", "v1beta2", "v2", "v10alpha1"]
    assert sorted(versions, key=schema.version_priority_key) == [
        "v2", "v1", "v1beta2", "v1beta1", "v10alpha1", "v2alpha1", "foo"]


def test_served_versions_restricted_like_flux_0x(tmp_path, pki_dir):
    srv = _make(tmp_path, pki_dir, served_versions={G: ["v1beta2", "v1beta1"]})
    try:
        srv.seed_default()
        c = Client(srv, srv.admin_token)
        group = c.get(f"/apis/{G}").json
        assert group["preferredVersion"]["version"] == "v1beta2"
        assert [v["version"] for v in group["versions"]] == ["v1beta2", "v1beta1"]
        assert c.get(f"/apis/{G}/v1/namespaces/flux-system/kustomizations/apps-rw").status == 404
        r = c.get(f"/apis/{G}/v1beta2/namespaces/flux-system/kustomizations/apps-rw")
        assert r.status == 200 and r.json["apiVersion"] == f"{G}/v1beta2"
        assert r.header_all("Warning") == ['299 - "v1beta2 Kustomization is deprecated, upgrade to v1"']
        r = c.patch(f"/apis/{G}/v1beta1/namespaces/flux-system/kustomizations/apps-rw", {"spec": {"suspend": True}})
        assert r.status == 200 and r.json["apiVersion"] == f"{G}/v1beta1"
        assert srv.get("kustomizations", "flux-system", "apps-rw")["spec"]["suspend"] is True
    finally:
        srv.close()


def test_flux_not_installed_and_v1_only_crd(tmp_path, pki_dir):
    srv = _make(tmp_path, pki_dir, crds=[crd_path(CRD_KUSTOMIZATION_V1_ONLY)])
    try:
        c = Client(srv, srv.admin_token)
        assert [v["version"] for v in c.get(f"/apis/{G}").json["versions"]] == ["v1"]
        assert c.get("/apis/helm.toolkit.fluxcd.io").status == 404
    finally:
        srv.close()
    srv = _make(tmp_path, pki_dir, served_versions={G: []})
    try:
        c = Client(srv, srv.admin_token)
        assert c.get(f"/apis/{G}").status == 404
        assert G not in [g["name"] for g in c.get("/apis").json["groups"]]
    finally:
        srv.close()
    srv = _make(tmp_path, pki_dir, crds=[])
    try:
        c = Client(srv, srv.admin_token)
        r = c.get(f"/apis/{G}")
        assert r.status == 404 and r.json["reason"] == "NotFound"
        assert r.json["message"] == "the server could not find the requested resource"
    finally:
        srv.close()


def test_server_certificate_names(srv):
    for name in ("127.0.0.1", "localhost", "fake-apiserver.test"):
        ctx = ssl.create_default_context(cafile=srv.ca_path)
        with socket.create_connection(("127.0.0.1", srv.port)) as raw:
            with ctx.wrap_socket(raw, server_hostname=name) as tls:
                assert tls.version() in ("TLSv1.2", "TLSv1.3")
    ctx = ssl.create_default_context(cafile=srv.ca_path)
    with socket.create_connection(("127.0.0.1", srv.port)) as raw:
        with pytest.raises(ssl.SSLCertVerificationError):
            ctx.wrap_socket(raw, server_hostname="other.test")


def test_keepalive_counts_one_handshake_and_honours_connection_close(srv, admin):
    srv.reset_stats()
    for _ in range(5):
        assert admin.get(KS + "/apps-rw").status == 200
    assert srv.handshakes == 1
    r = admin.get(KS + "/apps-rw", headers={"Connection": "close"})
    assert r.headers["Connection"] == "close"
    assert admin.get(KS + "/apps-rw").status == 200  # http.client reconnects
    assert srv.handshakes == 2
    assert srv.stats() == {"requests": 7, "handshakes": 2, "writes": 0}


def test_chunked_responses(srv, admin):
    srv.chunked = True
    r = admin.get(KS + "/apps-rw")
    assert r.headers["Transfer-Encoding"] == "chunked" and "Content-Length" not in r.headers
    assert r.json["metadata"]["name"] == "apps-rw"
    # A raw look at the framing: several chunks, the first one small.
    ctx = ssl.create_default_context(cafile=srv.ca_path)
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", srv.port)), server_hostname="localhost") as s:
        s.sendall(f"GET {KS}/apps-rw HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {srv.admin_token}\r\n"
                  "Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head
    assert body.startswith(b"7\r\n") and body.endswith(b"0\r\n\r\n")


def test_response_headers_like_apiserver(admin):
    r = admin.get(KS + "/apps-rw")
    assert r.headers["Content-Type"] == "application/json"
    assert r.headers["Audit-Id"] and r.headers["Cache-Control"] == "no-cache, private"
    assert "Server" not in r.headers


# --- authentication and RBAC ----------------------------------------------------------------------

UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}


def test_unauthenticated_requests_get_401(srv):
    for token in (None, "wrong-token", ""):
        c = Client(srv, token)
        for path in ("/version", "/apis", KS, KS + "/apps-rw"):
            r = c.get(path)
            assert r.status == 401 and r.json == UNAUTHORIZED
        c.close()


def test_anonymous_auth_option(srv):
    srv.anonymous_auth = True
    c = Client(srv)
    assert c.get("/version").status == 200
    r = c.get("/apis")
    assert r.status == 403 and r.json["message"] == 'forbidden: User "system:anonymous" cannot get path "/apis"'
    r = c.get(KS)
    assert r.status == 403 and 'User "system:anonymous" cannot list resource "kustomizations"' in r.json["message"]
    assert Client(srv, "bad").get("/version").status == 401


def test_rbac_forbidden_messages(sa):
    assert sa.get("/apis").status == 200  # discovery is open to any authenticated user
    assert sa.get(KS).status == 200
    assert sa.get(KS + "/apps-rw").status == 200
    assert sa.patch(KS + "/apps-rw", {"spec": {"suspend": True}}).status == 200

    r = sa.req("DELETE", KS + "/apps-rw")
    assert r.status == 403
    assert r.json == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'kustomizations.{G} "apps-rw" is forbidden: User "{SA_USER}" cannot delete resource '
                   f'"kustomizations" in API group "{G}" in the namespace "flux-system"',
        "reason": "Forbidden", "details": {"name": "apps-rw", "group": G, "kind": "kustomizations"}, "code": 403}
    r = sa.get(f"/apis/{G}/v1/namespaces/default/kustomizations")
    assert r.json["message"] == (f'kustomizations.{G} is forbidden: User "{SA_USER}" cannot list resource '
                                 f'"kustomizations" in API group "{G}" in the namespace "default"')
    assert r.json["details"] == {"group": G, "kind": "kustomizations"}
    r = sa.get(f"/apis/{G}/v1/kustomizations")
    assert r.json["message"].endswith('in API group "kustomize.toolkit.fluxcd.io" at the cluster scope')
    r = sa.patch(KS + "/apps-rw/status", {"status": {}})
    assert r.status == 403 and 'cannot patch resource "kustomizations/status"' in r.json["message"]
    r = sa.patch("/apis/helm.toolkit.fluxcd.io/v2/namespaces/flux-system/helmreleases/podinfo", {"spec": {}})
    assert r.status == 403 and r.json["details"]["kind"] == "helmreleases"
    ev = {"metadata": {"generateName": "apps-rw."}, "involvedObject": {"kind": "Kustomization", "namespace": "default"},
          "reason": "Suspended", "message": "m", "type": "Normal"}
    r = sa.req("POST", "/api/v1/namespaces/default/events", ev, "application/json")
    assert r.json["message"] == (f'events is forbidden: User "{SA_USER}" cannot create resource "events" in '
                                 'API group "" in the namespace "default"')
    assert r.json["details"] == {"kind": "events"}


def test_rbac_resource_names(srv):
    token = srv.add_user("named", rules=[{"namespace": "flux-system", "apiGroups": [G], "resources": ["kustomizations"],
                                          "verbs": ["get", "list", "patch"], "resourceNames": ["apps-rw"]}])
    c = Client(srv, token)
    assert c.get(KS + "/apps-rw").status == 200
    assert c.get(KS + "/apps-rt").status == 403
    assert c.patch(KS + "/apps-rt", {"spec": {"suspend": True}}).status == 403
    assert c.get(KS).status == 403
    r = c.get(KS + "?fieldSelector=metadata.name%3Dapps-rw")
    assert r.status == 200 and [i["metadata"]["name"] for i in r.json["items"]] == ["apps-rw"]


def test_load_role_from_rendered_manifest(srv):
    manifest = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: windowctl, namespace: flux-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: windowctl, namespace: flux-system}
rules:
- apiGroups: ["kustomize.toolkit.fluxcd.io"]
  resources: ["kustomizations"]
  verbs: ["get", "list", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: windowctl, namespace: flux-system}
"""
    token = srv.add_user("from-role")
    c = Client(srv, token)
    assert c.get(KS).status == 403
    srv.load_role("from-role", manifest)
    assert c.get(KS).status == 200
    assert c.get(f"/apis/{G}/v1/namespaces/other/kustomizations").status == 403


def test_apply_rbac_follows_the_bindings(srv):
    """Who may do what follows from the RoleBindings' subjects, as with the apiserver's RBAC
    authorizer: the same Role bound to a ServiceAccount of another namespace grants it nothing."""
    jobs_sa, wrong_sa = "system:serviceaccount:jobs:windowctl", "system:serviceaccount:flux-system:windowctl"
    jobs, wrong = Client(srv, srv.add_user(jobs_sa)), Client(srv, srv.add_user(wrong_sa))
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "windowctl", "namespace": "flux-system"},
            "rules": [{"apiGroups": [G], "resources": ["kustomizations"], "verbs": ["get"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "windowctl", "namespace": "flux-system"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "windowctl"},
               "subjects": [{"kind": "ServiceAccount", "name": "windowctl", "namespace": "jobs"}]}
    assert jobs.get(KS + "/apps-rw").status == 403
    srv.apply_rbac([role, binding])
    assert jobs.get(KS + "/apps-rw").status == 200
    assert wrong.get(KS + "/apps-rw").status == 403, "bound to jobs/windowctl, not flux-system/windowctl"
    assert jobs.patch(KS + "/apps-rw", {"spec": {"suspend": True}}).status == 403, "only the Role's verbs"
    assert jobs.get(f"/apis/{G}/v1/namespaces/jobs/kustomizations/x").status == 403, "only the binding's namespace"

    # A subject without a namespace is the binding's own namespace; a binding to a Role that does
    # not exist grants nothing; a ClusterRole bound by a RoleBinding grants in that namespace only.
    srv.apply_rbac("""
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: local, namespace: flux-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: windowctl}
subjects: [{kind: ServiceAccount, name: windowctl}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dangling, namespace: flux-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: missing}
subjects: [{kind: ServiceAccount, name: windowctl, namespace: jobs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: events}
rules: [{apiGroups: [""], resources: [events], verbs: [create]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: events, namespace: jobs}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: events}
subjects: [{kind: Group, name: "system:serviceaccounts:jobs"}]
""")
    assert wrong.get(KS + "/apps-rw").status == 200
    srv.put("namespaces", "", "jobs", {})
    ev = {"metadata": {"generateName": "x."}, "involvedObject": {"kind": "Kustomization", "namespace": "jobs"},
          "reason": "R", "message": "m", "type": "Normal"}
    assert jobs.req("POST", "/api/v1/namespaces/jobs/events", ev, "application/json").status == 201
    assert jobs.req("POST", "/api/v1/namespaces/flux-system/events", ev, "application/json").status == 403
    assert wrong.req("POST", "/api/v1/namespaces/jobs/events", ev, "application/json").status == 403


def test_crd_fixtures_are_the_recorded_upstream_files():
    """tests/testdata/crds holds unmodified upstream CRDs, SOURCES.md lists each with its sha256, and
    the CRDs written for the tests (`- written  FILE`), which are no upstream file."""
    import hashlib
    import re
    crd_dir = os.path.dirname(crd_path("x"))
    sources = open(os.path.join(crd_dir, "SOURCES.md")).read()
    recorded = dict((name, digest) for digest, name in re.findall(r"^- ([0-9a-f]{64})  (\S+)$", sources, re.M))
    written = re.findall(r"^- written  (\S+)$", sources, re.M)
    assert sorted(written) == sorted(CRD_ANNOTATION_PAUSED)
    files = sorted(f for f in os.listdir(crd_dir) if f.endswith(".yaml") and f not in written)
    assert files and sorted(recorded) == files, "every fixture is listed in SOURCES.md, and only those"
    for f in written:
        with open(os.path.join(crd_dir, f)) as fh:
            assert fh.read().startswith("# Written for windowctl's tests, not an upstream file")
    for f in files:
        with open(os.path.join(crd_dir, f), "rb") as fh:
            assert hashlib.sha256(fh.read()).hexdigest() == recorded[f], f"{f} differs from its upstream copy"


def test_token_rotation(srv, tmp_path):
    sa_dir = srv.write_service_account_dir(str(tmp_path / "sa"), SA_USER)
    assert open(os.path.join(sa_dir, "token")).read() == srv.sa_token
    assert open(os.path.join(sa_dir, "namespace")).read() == "flux-system"
    assert open(os.path.join(sa_dir, "ca.crt")).read() == open(srv.ca_path).read()
    old = Client(srv, srv.sa_token)
    assert old.get(KS).status == 200
    srv.set_token(SA_USER, "rotated-token")
    assert old.get(KS).status == 401  # same connection, stale token
    assert open(os.path.join(sa_dir, "token")).read() == "rotated-token"
    assert Client(srv, "rotated-token").get(KS).status == 200
    srv.set_token(SA_USER, "second", update_files=False)
    assert open(os.path.join(sa_dir, "token")).read() == "rotated-token"


def test_client_certificates(srv, tmp_path):
    c = Client(srv, cert=srv.client_cert("admin"))
    assert c.get(KS + "/apps-rw").status == 200
    assert srv.requests[-1]["user"] == "admin"
    r = Client(srv, cert=srv.client_cert("nobody")).get(KS)
    assert r.status == 403 and 'User "nobody"' in r.json["message"]
    # A certificate from another CA is refused in the handshake, as by Go's VerifyClientCertIfGiven.
    other = FakeApiServer(str(tmp_path / "other"))
    bad = Client(srv, cert=other.client_cert("admin"))
    with pytest.raises((ssl.SSLError, ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected)):
        bad.get(KS)
    other.close()


def _handshake(srv, max_version=None, cert=None, curve=None):
    ctx = ssl.create_default_context(cafile=srv.ca_path)
    if max_version:
        ctx.maximum_version = max_version
    if cert:
        ctx.load_cert_chain(*cert)
    if curve:
        ctx.set_ecdh_curve(curve)
    with socket.create_connection(("127.0.0.1", srv.port)) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            tls.recv(1)
            return tls.version(), tls.cipher()[0]


def test_tls_versions_key_types_and_groups(tmp_path):
    """The TLS options windowctl's handshake tests use (tests/e2e/test_tls.py)."""
    only13 = _make(tmp_path / "13", str(tmp_path / "pki-rsa"), tls_min_version="1.3", tls_group="secp384r1")
    try:
        assert _handshake(only13)[0] == "TLSv1.3"
        with pytest.raises(ssl.SSLError):
            _handshake(only13, max_version=ssl.TLSVersion.TLSv1_2)
        with pytest.raises(ssl.SSLError):
            _handshake(only13, curve="prime256v1")  # the one group is P-384, in TLS 1.3 too
        assert [h["version"] for h in only13.tls_log] == ["TLSv1.3"]
    finally:
        only13.close()
    # ECDSA: P-384 CAs and a P-256 serving certificate; TLS 1.2 suites then name ECDSA.
    only12 = _make(tmp_path / "12", str(tmp_path / "pki-ec"), key_type="ec", tls_max_version="1.2",
                   tls_ciphers="ECDHE-ECDSA-CHACHA20-POLY1305")
    try:
        assert _handshake(only12) == ("TLSv1.2", "ECDHE-ECDSA-CHACHA20-POLY1305")
        crt, key = only12.client_cert("admin", key_type="ec")
        assert "BEGIN PRIVATE KEY" in open(key).read()
        c = Client(only12, cert=(crt, key))
        assert c.get(KS).status == 200 and only12.requests[-1]["user"] == "admin"
        assert only12.tls_log[-1] == {"version": "TLSv1.2", "cipher": "ECDHE-ECDSA-CHACHA20-POLY1305",
                                      "client_cert": True}
        text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", only12.pki.server_cert],
                              capture_output=True, text=True, check=True).stdout
        assert "id-ecPublicKey" in text and "prime256v1" in text and "ecdsa-with-SHA256" in text
        only12.reset_stats()
        assert only12.tls_log == []
    finally:
        only12.close()
    # A PKI directory keeps its key type.
    with pytest.raises(ValueError):
        FakeApiServer(str(tmp_path / "mixed"), pki_dir=str(tmp_path / "pki-ec"), key_type="rsa")


# --- reads: get, list, selectors, tables ----------------------------------------------------------

def test_get_and_not_found(admin):
    obj = admin.get(KS + "/apps-rw").json
    assert obj["apiVersion"] == f"{G}/v1" and obj["kind"] == "Kustomization"
    meta = obj["metadata"]
    assert meta["labels"] == {"app.kubernetes.io/part-of": "apps", "window": "rw"}
    assert meta["generation"] == 1 and meta["uid"] and meta["creationTimestamp"].endswith("Z")
    assert int(meta["resourceVersion"]) > 0
    assert obj["status"]["lastAppliedRevision"].startswith("main@sha1:")
    assert len(obj["status"]["lastAppliedRevision"]) == len("main@sha1:") + 40
    assert ready_cond(obj)["status"] == "True" and ready_cond(obj)["observedGeneration"] == 1
    r = admin.get(KS + "/missing")
    assert r.status == 404
    assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": f'kustomizations.{G} "missing" not found', "reason": "NotFound",
                      "details": {"name": "missing", "group": G, "kind": "kustomizations"}, "code": 404}
    for path in ("/nope", f"/apis/{G}/v1/namespaces/flux-system/widgets", KS + "/apps-rw/scale"):
        r = admin.get(path)
        assert r.status == 404 and r.json["message"] == "the server could not find the requested resource"


def test_list(admin):
    r = admin.get(KS).json
    assert r["kind"] == "KustomizationList" and r["apiVersion"] == f"{G}/v1"
    assert int(r["metadata"]["resourceVersion"]) > 0
    assert [i["metadata"]["name"] for i in r["items"]] == ["apps-rt", "apps-rw", "infra"]
    assert all(i["kind"] == "Kustomization" and i["apiVersion"] == f"{G}/v1" for i in r["items"])
    allns = admin.get(f"/apis/{G}/v1/kustomizations").json
    assert len(allns["items"]) == 3
    assert admin.get(f"/apis/{G}/v1/namespaces/empty/kustomizations").json["items"] == []


@pytest.mark.parametrize("selector,names", [
    ("window=rw", ["apps-rw"]),
    ("window==rw", ["apps-rw"]),
    ("window!=rw", ["apps-rt", "infra"]),
    ("window in (rw,rt)", ["apps-rt", "apps-rw"]),
    ("window notin (rw)", ["apps-rt", "infra"]),
    ("window", ["apps-rt", "apps-rw"]),
    ("!window", ["infra"]),
    ("app.kubernetes.io/part-of=apps,window=rt", ["apps-rt"]),
    ("app.kubernetes.io/part-of=apps, !window", []),
    ("", ["apps-rt", "apps-rw", "infra"]),
])
def test_label_selectors(admin, selector, names):
    from urllib.parse import quote
    r = admin.get(KS + "?labelSelector=" + quote(selector))
    assert r.status == 200, r.json
    assert [i["metadata"]["name"] for i in r.json["items"]] == names


@pytest.mark.parametrize("selector", ["window=", "=rw", "window in rw", "window in (rw", "a b", "!", "window,",
                                      "bad key=1", "window=b@d", "-x=1"])
def test_invalid_label_selector_is_bad_request(admin, selector):
    from urllib.parse import quote
    if selector == "window=":
        # An empty value is valid: it matches objects whose label is empty.
        assert admin.get(KS + "?labelSelector=" + quote(selector)).status == 200
        return
    r = admin.get(KS + "?labelSelector=" + quote(selector))
    assert r.status == 400 and r.json["reason"] == "BadRequest", selector


def test_field_selectors(admin):
    names = lambda q: [i["metadata"]["name"] for i in admin.get(KS + "?fieldSelector=" + q).json["items"]]  # noqa
    assert names("metadata.name%3Dinfra") == ["infra"]
    assert names("metadata.name%3D%3Dinfra") == ["infra"]
    assert names("metadata.name!%3Dinfra") == ["apps-rt", "apps-rw"]
    assert names("metadata.namespace%3Dflux-system,metadata.name%3Dapps-rt") == ["apps-rt"]
    r = admin.get(KS + "?fieldSelector=spec.suspend%3Dtrue")
    assert r.status == 400 and r.json["message"] == "field label not supported: spec.suspend"


def test_pagination(admin):
    first = admin.get(KS + "?limit=2").json
    assert [i["metadata"]["name"] for i in first["items"]] == ["apps-rt", "apps-rw"]
    assert first["metadata"]["remainingItemCount"] == 1
    cont = first["metadata"]["continue"]
    from urllib.parse import quote
    second = admin.get(KS + f"?limit=2&continue={quote(cont)}").json
    assert [i["metadata"]["name"] for i in second["items"]] == ["infra"]
    assert "continue" not in second["metadata"]


def test_pagination_with_a_selector_and_compaction(srv, admin):
    from urllib.parse import quote
    first = admin.get(KS + "?limit=1&labelSelector=window").json
    assert len(first["items"]) == 1 and "remainingItemCount" not in first["metadata"]
    # etcd compacted: the old token answers 410 Expired; a new list works, its tokens too.
    srv.store.compact_after_pages = 1
    admin.get(KS + "?limit=1")
    r = admin.get(KS + f"?limit=1&continue={quote(first['metadata']['continue'])}")
    assert r.status == 410 and r.json["reason"] == "Expired" and "too old" in r.json["message"]
    again = admin.get(KS + "?limit=2").json
    rest = admin.get(KS + f"?limit=2&continue={quote(again['metadata']['continue'])}")
    assert rest.status == 200 and [i["metadata"]["name"] for i in rest.json["items"]] == ["infra"]


def test_table_output(admin):
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    t = admin.get(KS + "?labelSelector=window", headers={"Accept": accept}).json
    assert t["kind"] == "Table"
    assert [c["name"] for c in t["columnDefinitions"]] == ["Name", "Age", "Ready", "Status"]
    row = t["rows"][1]
    assert row["cells"][0] == "apps-rw" and row["cells"][2] == "True"
    assert row["cells"][3].startswith("Applied revision: main@sha1:")
    assert row["object"]["kind"] == "PartialObjectMetadata"


def test_selector_parser_units():
    sel = selection.LabelSelector("a in (x, y),b!=z,!c,d")
    assert sel.requirements == [("a", "in", ("x", "y")), ("b", "!=", ("z",)), ("c", "!", ()), ("d", "exists", ())]
    assert sel.matches({"a": "x", "d": ""}) and not sel.matches({"a": "x"})
    assert selection.LabelSelector("n>3").matches({"n": "4"})
    with pytest.raises(selection.SelectorError):
        selection.LabelSelector("a in ()x")


# --- writes ----------------------------------------------------------------------------------------

def test_merge_patch_suspend_resume_generation_and_resource_version(srv, admin):
    srv.reconcile_outcome[("flux-system", "apps-rw")] = "never"  # keep controller writes out of the RVs
    before = admin.get(KS + "/apps-rw").json
    rv0 = int(before["metadata"]["resourceVersion"])
    writes0 = srv.writes
    r = admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": True}})
    assert r.status == 200
    obj = r.json
    assert obj["spec"]["suspend"] is True and obj["metadata"]["generation"] == 2
    rv1 = int(obj["metadata"]["resourceVersion"])
    assert rv1 > rv0 and srv.writes == writes0 + 1
    # No-op: same value again does not bump anything.
    again = admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": True}}).json
    assert again["metadata"]["resourceVersion"] == str(rv1) and srv.writes == writes0 + 1
    assert admin.patch(KS + "/apps-rw", {}).json["metadata"]["resourceVersion"] == str(rv1)
    # Flux resume: null removes the field.
    obj = admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": None}}).json
    assert "suspend" not in obj["spec"] and obj["metadata"]["generation"] == 3
    # Metadata-only changes bump resourceVersion but not generation.
    obj = admin.patch(KS + "/apps-rw", {"metadata": {"annotations": {"a": "b"}}}).json
    assert obj["metadata"]["generation"] == 3 and int(obj["metadata"]["resourceVersion"]) > rv1
    assert srv.get("kustomizations", "flux-system", "apps-rw")["metadata"]["annotations"] == {"a": "b"}


def test_merge_patch_semantics(admin):
    obj = admin.patch(KS + "/apps-rw", {"spec": {"sourceRef": {"namespace": "flux-system"},
                                                 "dependsOn": [{"name": "x"}]}}).json
    assert obj["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "flux-system", "namespace": "flux-system"}
    assert obj["spec"]["dependsOn"] == [{"name": "x"}]  # lists replace
    obj = admin.patch(KS + "/apps-rw", {"metadata": {"labels": {"window": None, "new": "1"}}}).json
    assert obj["metadata"]["labels"] == {"app.kubernetes.io/part-of": "apps", "new": "1"}


def test_patch_resource_version_precondition(admin):
    rv = admin.get(KS + "/apps-rw").json["metadata"]["resourceVersion"]
    r = admin.patch(KS + "/apps-rw", {"metadata": {"resourceVersion": "1"}, "spec": {"suspend": True}})
    assert r.status == 409
    assert r.json["reason"] == "Conflict"
    assert r.json["message"] == (f'Operation cannot be fulfilled on kustomizations.{G} "apps-rw": the object has '
                                 "been modified; please apply your changes to the latest version and try again")
    assert r.json["details"] == {"name": "apps-rw", "group": G, "kind": "kustomizations"}
    r = admin.patch(KS + "/apps-rw", {"metadata": {"resourceVersion": rv}, "spec": {"suspend": True}})
    assert r.status == 200 and r.json["spec"]["suspend"] is True


def test_json_patch(admin):
    ops = [{"op": "test", "path": "/spec/prune", "value": True},
           {"op": "add", "path": "/spec/suspend", "value": True},
           {"op": "replace", "path": "/spec/interval", "value": "5m"},
           {"op": "add", "path": "/metadata/annotations", "value": {"x/y": "1"}},
           {"op": "add", "path": "/spec/dependsOn/-", "value": {"name": "extra"}},
           {"op": "remove", "path": "/metadata/labels/window"}]
    obj = admin.patch(KS + "/apps-rw", ops, JSONPATCH).json
    assert obj["spec"]["suspend"] is True and obj["spec"]["interval"] == "5m"
    assert obj["metadata"]["annotations"] == {"x/y": "1"} and "window" not in obj["metadata"]["labels"]
    assert obj["spec"]["dependsOn"] == [{"name": "infra"}, {"name": "extra"}]
    obj = admin.patch(KS + "/apps-rw", [{"op": "add", "path": "/metadata/annotations/a~1b", "value": "2"}],
                      JSONPATCH).json
    assert obj["metadata"]["annotations"]["a/b"] == "2"
    r = admin.patch(KS + "/apps-rw", [{"op": "test", "path": "/spec/suspend", "value": False}], JSONPATCH)
    assert r.status == 422 and r.json["reason"] == "Invalid"
    assert r.json["details"]["causes"][0]["message"] == "testing value /spec/suspend failed: test failed"
    r = admin.patch(KS + "/apps-rw", [{"op": "remove", "path": "/spec/nothing"}], JSONPATCH)
    assert r.status == 422
    r = admin.patch(KS + "/apps-rw", {"op": "remove"}, JSONPATCH)
    assert r.status == 400


def test_patch_content_types_and_bad_bodies(admin):
    r = admin.patch(KS + "/apps-rw", {"spec": {"suspend": True}}, "application/strategic-merge-patch+json")
    assert r.status == 415
    assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": "the body of the request was in an unknown format - accepted media types include: "
                                 "application/json-patch+json, application/merge-patch+json, "
                                 "application/apply-patch+yaml",
                      "reason": "UnsupportedMediaType", "code": 415}
    assert admin.patch(KS + "/apps-rw", {"spec": {}}, "application/json").status == 415
    assert admin.patch(KS + "/apps-rw", {"spec": {}}, "text/plain").status == 415
    r = admin.patch(KS + "/apps-rw", b'{"spec": {"suspend": tru', MERGE)
    assert r.status == 400 and r.json["reason"] == "BadRequest"
    assert admin.patch(KS + "/apps-rw", b"[1]", MERGE).status == 400
    assert admin.patch(KS + "/apps-rw", {"spec": {"suspend": True}}, MERGE + "; charset=utf-8").status == 200


def test_schema_validation(srv, admin):
    rv = admin.get(KS + "/apps-rw").json["metadata"]["resourceVersion"]
    r = admin.patch(KS + "/apps-rw", {"spec": {"suspend": "yes"}})
    assert r.status == 422
    assert r.json["message"] == (f'Kustomization.{G} "apps-rw" is invalid: spec.suspend: Invalid value: '
                                 '"string": spec.suspend in body must be of type boolean: "string"')
    assert r.json["details"] == {"name": "apps-rw", "group": G, "kind": "Kustomization", "causes": [{
        "reason": "FieldValueTypeInvalid", "field": "spec.suspend",
        "message": 'Invalid value: "string": spec.suspend in body must be of type boolean: "string"'}]}
    r = admin.patch(KS + "/apps-rw", {"spec": {"interval": 5, "deletionPolicy": "Nope", "path": ["x"]}})
    assert r.status == 422 and len(r.json["details"]["causes"]) == 3
    assert r.json["message"].count("spec.") >= 3 and "[" in r.json["message"]
    r = admin.patch(KS + "/apps-rw", {"spec": {"interval": "soon"}})
    assert r.status == 422 and "should match" in r.json["message"]
    r = admin.patch(KS + "/apps-rw", [{"op": "remove", "path": "/spec/sourceRef"}], JSONPATCH)
    assert r.status == 422 and r.json["details"]["causes"][0] == {
        "reason": "FieldValueRequired", "message": "Required value", "field": "spec.sourceRef"}
    # Nothing above was written.
    assert admin.get(KS + "/apps-rw").json["metadata"]["resourceVersion"] == rv


def test_name_and_namespace_are_immutable(admin):
    r = admin.patch(KS + "/apps-rw", [{"op": "replace", "path": "/metadata/name", "value": "x"}], JSONPATCH)
    assert r.status == 400
    assert r.json["message"] == "the name of the object (x) does not match the name on the URL (apps-rw)"
    r = admin.patch(KS + "/apps-rw", {"metadata": {"namespace": "other"}})
    assert r.status == 400
    assert r.json["message"] == "the namespace of the object (other) does not match the namespace on the URL (flux-system)"


def test_unknown_fields_are_pruned_with_warning_or_rejected_when_strict(admin):
    r = admin.patch(KS + "/apps-rw", {"spec": {"suspended": True}})
    assert r.status == 200 and "suspended" not in r.json["spec"]
    assert r.header_all("Warning") == ['299 - "unknown field \\"spec.suspended\\""']
    r = admin.patch(KS + "/apps-rw?fieldValidation=Strict", {"spec": {"suspended": True}})
    assert r.status == 400
    assert r.json["message"] == ('Kustomization in version "v1" cannot be handled as a Kustomization: '
                                 'strict decoding error: unknown field "spec.suspended"')


def test_dry_run(srv, admin):
    before = admin.get(KS + "/apps-rw").json
    writes = srv.writes
    r = admin.patch(KS + "/apps-rw?dryRun=All", {"spec": {"suspend": True}})
    assert r.status == 200 and r.json["spec"]["suspend"] is True
    assert admin.get(KS + "/apps-rw").json == before and srv.writes == writes
    assert admin.patch(KS + "/apps-rw?dryRun=All", {"spec": {"suspend": 1}}).status == 422
    assert admin.patch(KS + "/apps-rw?dryRun=Some", {"spec": {"suspend": True}}).status == 400


def test_status_subresource(admin):
    before = admin.get(KS + "/apps-rw").json
    # The main resource ignores status: this is a no-op.
    r = admin.patch(KS + "/apps-rw", {"status": {"lastAppliedRevision": "hacked"}})
    assert r.json["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert r.json["status"] == before["status"]
    # The status subresource changes status only.
    r = admin.patch(KS + "/apps-rw/status", {"spec": {"suspend": True}, "status": {"lastAppliedRevision": "x"}})
    assert r.status == 200
    assert r.json["status"]["lastAppliedRevision"] == "x" and "suspend" not in r.json["spec"]
    assert r.json["metadata"]["generation"] == 1
    assert admin.get(KS + "/apps-rw/status").json["status"]["lastAppliedRevision"] == "x"


def test_managed_fields(admin):
    admin.patch(KS + "/apps-rw", {"spec": {"suspend": True}}, headers={"User-Agent": "kubectl/v1.32.0 (linux)"})
    mf = admin.get(KS + "/apps-rw").json["metadata"]["managedFields"]
    entry = next(e for e in mf if e["manager"] == "kubectl")
    assert entry["operation"] == "Update" and entry["fieldsType"] == "FieldsV1"
    assert entry["fieldsV1"] == {"f:spec": {"f:suspend": {}}} and entry["apiVersion"] == f"{G}/v1"
    admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": False}},
                headers={"User-Agent": "windowctl/0.1"})
    mf = admin.get(KS + "/apps-rw").json["metadata"]["managedFields"]
    assert [e["manager"] for e in mf if "f:spec" in e["fieldsV1"] and "f:suspend" in e["fieldsV1"]["f:spec"]] == [
        "windowctl"]
    assert all(e["manager"] != "kubectl" for e in mf)  # it owned nothing else


def owners(obj, *path):
    """The managers (no subresource) whose fieldsV1 holds the field at `path`, e.g. ("spec", "suspend")."""
    out = []
    for e in obj["metadata"].get("managedFields", []):
        node = e["fieldsV1"]
        for part in path:
            node = node.get("f:" + part) if isinstance(node, dict) else None
        if node is not None and not e.get("subresource"):
            out.append(e["manager"])
    return out


def test_managed_fields_follow_who_changed_what(srv, admin):
    """What windowctl reads from managedFields, as kube-apiserver's field manager keeps them: an
    Update takes only the fields whose value it changed, so `flux suspend --reason` on an object
    someone else suspended owns the reason and not spec.suspend; a resume and a suspend move
    spec.suspend to whoever wrote them; a write of removals only keeps the writer's time."""
    srv.reconcile_outcome[("flux-system", "apps-rw")] = "never"
    reason = "suspend.toolkit.fluxcd.io/reason"
    admin.patch(KS + "/apps-rw?fieldManager=windowctl",
                {"metadata": {"annotations": {reason: "weekly", "windowctl.io/suspended-by": "windowctl",
                                                 "windowctl.io/suspended-at": "2026-11-20T17:00:00Z"}},
                 "spec": {"suspend": True}})
    obj = admin.get(KS + "/apps-rw").json
    assert owners(obj, "spec", "suspend") == ["windowctl"]
    assert owners(obj, "metadata", "annotations", reason) == ["windowctl"]
    # The flux CLI sends no fieldManager: the manager is its User-Agent's first word. Its merge
    # patch (client.MergeFrom) carries what changed, and suspend: true again changes nothing.
    flux = {"User-Agent": "flux/v2.6.4 (linux/amd64) kubernetes/$Format"}
    admin.patch(KS + "/apps-rw", {"metadata": {"annotations": {reason: "INC-999"}}, "spec": {"suspend": True}},
                headers=flux)
    obj = admin.get(KS + "/apps-rw").json
    assert owners(obj, "spec", "suspend") == ["windowctl"]
    assert owners(obj, "metadata", "annotations", reason) == ["flux"]
    assert owners(obj, "metadata", "annotations", "windowctl.io/suspended-by") == ["windowctl"]
    # A resume and a suspend by someone else: spec.suspend is theirs, windowctl's marks stay windowctl's.
    admin.patch(KS + "/apps-rw?fieldManager=kubectl-patch", {"spec": {"suspend": None}})
    assert owners(admin.get(KS + "/apps-rw").json, "spec", "suspend") == []
    admin.patch(KS + "/apps-rw?fieldManager=kubectl-patch", {"spec": {"suspend": True}})
    obj = admin.get(KS + "/apps-rw").json
    assert owners(obj, "spec", "suspend") == ["kubectl-patch"]
    assert owners(obj, "metadata", "annotations", "windowctl.io/suspended-by") == ["windowctl"]
    # Removals only: the entry keeps its time (and loses the field); a write that sets a field renews it.
    obj["metadata"]["managedFields"] = [dict(e, time="2020-01-01T00:00:00Z") for e in obj["metadata"]["managedFields"]]
    srv.put("kustomizations", "flux-system", "apps-rw", obj)
    admin.patch(KS + "/apps-rw?fieldManager=windowctl",
                {"metadata": {"annotations": {"windowctl.io/suspended-by": None}}})
    mf = admin.get(KS + "/apps-rw").json["metadata"]["managedFields"]
    assert [e["time"] for e in mf if e["manager"] == "windowctl"] == ["2020-01-01T00:00:00Z"]
    admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"metadata": {"annotations": {"a": "b"}}})
    mf = admin.get(KS + "/apps-rw").json["metadata"]["managedFields"]
    assert [e["time"] for e in mf if e["manager"] == "windowctl"] != ["2020-01-01T00:00:00Z"]
    assert [e["time"] for e in mf if e["manager"] == "kubectl-patch"] == ["2020-01-01T00:00:00Z"]


def test_create_put_delete(srv, admin):
    srv.reconcile_outcome[("flux-system", "new")] = "never"
    body = {"apiVersion": f"{G}/v1", "kind": "Kustomization",
            "metadata": {"name": "new", "labels": {"window": "rw"}},
            "spec": {"interval": "1m", "prune": False, "sourceRef": {"kind": "GitRepository", "name": "x"}},
            "status": {"lastAppliedRevision": "ignored"}}
    r = admin.req("POST", KS, body, "application/json")
    assert r.status == 201
    obj = r.json
    assert obj["metadata"]["generation"] == 1 and obj["status"] == {"observedGeneration": -1}
    assert obj["spec"]["force"] is False  # schema default
    r = admin.req("POST", KS, body, "application/json")
    assert r.status == 409 and r.json["reason"] == "AlreadyExists"
    assert r.json["message"] == f'kustomizations.{G} "new" already exists'
    gen = dict(body, metadata={"generateName": "gen-"})
    assert admin.req("POST", KS, gen, "application/json").json["metadata"]["name"].startswith("gen-")
    r = admin.req("POST", f"/apis/{G}/v1/namespaces/nowhere/kustomizations", body, "application/json")
    assert r.status == 404 and r.json["message"] == 'namespaces "nowhere" not found'

    put = json.loads(json.dumps(obj))
    put["spec"]["suspend"] = True
    del put["metadata"]["resourceVersion"]
    r = admin.req("PUT", KS + "/new", put, "application/json")
    assert r.status == 422 and "must be specified for an update" in r.json["message"]
    put["metadata"]["resourceVersion"] = "1"
    assert admin.req("PUT", KS + "/new", put, "application/json").status == 409
    put["metadata"]["resourceVersion"] = admin.get(KS + "/new").json["metadata"]["resourceVersion"]
    r = admin.req("PUT", KS + "/new", put, "application/json")
    assert r.status == 200 and r.json["spec"]["suspend"] is True and r.json["metadata"]["generation"] == 2
    assert admin.req("PUT", KS + "/other", dict(put, metadata=dict(put["metadata"], name="other")),
                     "application/json").status == 404

    r = admin.req("DELETE", KS + "/new")
    assert r.status == 200 and r.json["metadata"]["name"] == "new"
    assert admin.get(KS + "/new").status == 404
    assert admin.req("DELETE", KS + "/new").status == 404
    assert admin.req("POST", KS + "/apps-rw", body, "application/json").status == 405


def test_events(srv, sa):
    ev = {"apiVersion": "v1", "kind": "Event",
          "metadata": {"generateName": "apps-rw.", "namespace": "flux-system"},
          "involvedObject": {"apiVersion": f"{G}/v1", "kind": "Kustomization", "name": "apps-rw",
                             "namespace": "flux-system"},
          "reason": "WindowClosed", "message": "suspended by windowctl", "type": "Normal",
          "source": {"component": "windowctl"}}
    r = sa.req("POST", "/api/v1/namespaces/flux-system/events", ev, "application/json")
    assert r.status == 201 and r.json["metadata"]["name"].startswith("apps-rw.")
    stored = srv.events("flux-system")
    assert len(stored) == 1 and stored[0]["reason"] == "WindowClosed"
    bad = dict(ev, involvedObject=dict(ev["involvedObject"], namespace="other"))
    r = sa.req("POST", "/api/v1/namespaces/flux-system/events", bad, "application/json")
    assert r.status == 422
    assert r.json["message"] == ('Event "" is invalid: involvedObject.namespace: Invalid value: "other": '
                                 "does not match event.namespace") or "does not match" in r.json["message"]
    name = stored[0]["metadata"]["name"]
    r = sa.patch(f"/api/v1/namespaces/flux-system/events/{name}", {"count": 2},
                 "application/strategic-merge-patch+json")
    assert r.status == 200 and r.json["count"] == 2


# --- faults ---------------------------------------------------------------------------------------

def test_fault_status_codes(srv, admin):
    srv.add_fault("GET", "/kustomizations/apps-rw$", count=2, status=503, retry_after=3)
    for _ in range(2):
        r = admin.get(KS + "/apps-rw")
        assert r.status == 503 and r.headers["Retry-After"] == "3"
        assert r.json["reason"] == "ServiceUnavailable" and r.json["details"]["retryAfterSeconds"] == 3
    assert admin.get(KS + "/apps-rw").status == 200
    srv.add_fault("PATCH", count=1, status=429, retry_after=1)
    r = admin.patch(KS + "/apps-rw", {"spec": {"suspend": True}})
    assert r.status == 429 and r.json["reason"] == "TooManyRequests" and r.headers["Retry-After"] == "1"
    assert srv.get("kustomizations", "flux-system", "apps-rw")["spec"].get("suspend") is None
    expected = {401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 422: "Invalid",
                500: "InternalError"}
    for code, reason in expected.items():
        srv.add_fault(status=code)
        r = admin.get(KS + "/apps-rw")
        assert (r.status, r.json["reason"], r.json["kind"]) == (code, reason, "Status")
    for code in (502, 504):
        srv.add_fault(status=code)
        r = admin.get(KS + "/apps-rw")
        assert r.status == code and r.headers["Content-Type"].startswith("text/plain")
        with pytest.raises(ValueError):
            r.json


def test_fault_order_and_unlimited(srv, admin):
    first = srv.add_fault(path_regex="apps-rw", status=500)
    srv.add_fault(path_regex="apps", count=None, status=503)
    assert admin.get(KS + "/apps-rw").status == 500
    assert admin.get(KS + "/apps-rw").status == 503
    assert admin.get(KS + "/apps-rt").status == 503
    assert first.remaining == 0 and first.hits == 1
    srv.clear_faults()
    assert admin.get(KS + "/apps-rt").status == 200


def test_fault_garbage_and_delay(srv, admin):
    srv.add_fault(action="garbage")
    r = admin.get(KS + "/apps-rw")
    assert r.status == 200 and r.raw == b'{"kind": "Kustom' and r.headers["Content-Type"] == "application/json"
    srv.add_fault(delay=0.3)
    t0 = time.monotonic()
    assert admin.get(KS + "/apps-rw").status == 200
    assert time.monotonic() - t0 >= 0.3


def _tls_exchange_raw(srv, request):
    """Speak TLS through memory BIOs so the TCP-level outcome stays visible: Python's ssl module
    reports a peer's RST inside TLS as a plain EOF."""
    ctx = ssl.create_default_context(cafile=srv.ca_path)
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, out, server_hostname="localhost")
    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            sock.sendall(out.read())
            inc.write(sock.recv(65536))
    tls.write(request)
    sock.sendall(out.read())
    try:
        while data := sock.recv(65536):
            inc.write(data)
        return "eof"
    except ConnectionResetError:
        return "reset"
    finally:
        sock.close()


def test_fault_reset(srv, admin):
    srv.add_fault(action="reset")
    with pytest.raises((ConnectionResetError, ssl.SSLError, http.client.RemoteDisconnected)):
        admin.get(KS + "/apps-rw")
    assert srv.requests[-1]["status"] == 0
    assert Client(srv, srv.admin_token).get(KS + "/apps-rw").status == 200  # the server lives on
    srv.add_fault(action="reset")
    request = f"GET {KS}/apps-rw HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {srv.admin_token}\r\n\r\n"
    assert _tls_exchange_raw(srv, request.encode()) == "reset"  # an RST, not a clean close
    request = f"GET {KS}/apps-rw HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    assert _tls_exchange_raw(srv, request.encode()) == "eof"


def test_fault_hang(srv):
    srv.add_fault(action="hang")
    c = Client(srv, srv.admin_token, timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises((TimeoutError, socket.timeout)):
        c.get(KS + "/apps-rw")
    assert time.monotonic() - t0 >= 0.5
    c.close()
    assert Client(srv, srv.admin_token).get(KS + "/apps-rw").status == 200


def test_requests_are_recorded(srv, admin):
    srv.reset_stats()
    admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": True}},
                headers={"User-Agent": "windowctl/1.0"})
    rec = srv.requests[-1]
    assert rec["method"] == "PATCH" and rec["path"] == KS + "/apps-rw"
    assert rec["query"] == {"fieldManager": "windowctl"}
    assert rec["headers"]["content-type"] == MERGE and rec["headers"]["user-agent"] == "windowctl/1.0"
    assert json.loads(rec["body"]) == {"spec": {"suspend": True}}
    assert rec["status"] == 200 and rec["user"] == "admin"


def test_fake_stats_endpoints(srv, admin):
    admin.get(KS)
    plain = Client(srv)  # no credentials needed
    stats = plain.get("/fake/stats").json
    assert stats["requests"] >= 1 and stats["handshakes"] >= 1 and "writes" in stats
    assert plain.req("POST", "/fake/reset-stats").status == 200
    assert plain.get("/fake/stats").json == {"requests": 0, "handshakes": 0, "writes": 0}


def test_server_survives_malformed_requests(srv):
    ctx = ssl.create_default_context(cafile=srv.ca_path)
    for junk in (b"\x00\x01garbage\r\n\r\n", b"GET / HTTP/1.1\r\nContent-Length: zz\r\n\r\n",
                 b"PATCH " + KS.encode() + b"/apps-rw HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"):
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", srv.port)), server_hostname="localhost") as s:
            s.settimeout(5)
            s.sendall(junk)
            try:
                s.recv(4096)
            except (OSError, ssl.SSLError):
                pass
    with socket.create_connection(("127.0.0.1", srv.port)) as s:  # plain HTTP at a TLS port
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")
        s.settimeout(5)
        try:
            s.recv(100)
        except OSError:
            pass
    assert Client(srv, srv.admin_token).get(KS).status == 200


# --- controller simulation -------------------------------------------------------------------------

def test_resume_with_reconcile_request_becomes_ready(srv, admin):
    admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": True}})
    writes = srv.writes
    token = "2026-01-01T00:00:00.000000001Z"
    r = admin.patch(KS + "/apps-rw?fieldManager=windowctl", {
        "metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": token}}, "spec": {"suspend": None}})
    gen = r.json["metadata"]["generation"]
    assert gen == 3 and r.json["status"].get("lastHandledReconcileAt") != token

    def done():
        obj = admin.get(KS + "/apps-rw").json
        return obj if obj["status"].get("lastHandledReconcileAt") == token else None
    obj = wait_for(done)
    cond = ready_cond(obj)
    assert (cond["status"], cond["reason"], cond["observedGeneration"]) == ("True", "ReconciliationSucceeded", gen)
    assert cond["message"] == "Applied revision: " + obj["status"]["lastAppliedRevision"]
    assert obj["status"]["observedGeneration"] == gen
    assert not any(c["type"] == "Reconciling" for c in obj["status"]["conditions"])
    assert srv.writes == writes + 1  # controller writes are not client writes
    managers = {(e["manager"], e.get("subresource")) for e in obj["metadata"]["managedFields"]}
    assert ("kustomize-controller", "status") in managers


def test_progressing_phase_is_visible(srv, admin):
    srv.reconcile_delay = 1.0
    admin.patch(KS + "/apps-rw", {"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "t1"}}})

    def progressing():
        c = ready_cond(admin.get(KS + "/apps-rw").json)
        return c["status"] == "Unknown" and c["reason"] == "Progressing"
    wait_for(progressing, timeout=2)
    wait_for(lambda: ready_cond(admin.get(KS + "/apps-rw").json)["status"] == "True", timeout=3)


def test_suspended_observed_generation_runs_ahead_of_ready_condition(srv, admin):
    obj = admin.patch(KS + "/apps-rw", {"spec": {"suspend": True}}).json
    assert obj["metadata"]["generation"] == 2
    obj = wait_for(lambda: (o := admin.get(KS + "/apps-rw").json)["status"]["observedGeneration"] == 2 and o)
    assert ready_cond(obj)["observedGeneration"] == 1  # the trap: Ready is stale
    time.sleep(0.4)
    assert ready_cond(admin.get(KS + "/apps-rw").json)["observedGeneration"] == 1


@pytest.mark.parametrize("outcome", ["failed", "stalled", "never"])
def test_reconcile_outcomes(srv, admin, outcome):
    srv.reconcile_outcome[("flux-system", "apps-rw")] = outcome
    admin.patch(KS + "/apps-rw", {"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "tok"}}})
    if outcome == "never":
        time.sleep(0.5)
        obj = admin.get(KS + "/apps-rw").json
        assert "lastHandledReconcileAt" not in obj["status"] and ready_cond(obj)["status"] == "True"
        return
    obj = wait_for(lambda: (o := admin.get(KS + "/apps-rw").json)["status"].get("lastHandledReconcileAt") == "tok" and o)
    cond = ready_cond(obj)
    assert cond["status"] == "False" and cond["observedGeneration"] == 1
    stalled = [c for c in obj["status"]["conditions"] if c["type"] == "Stalled"]
    if outcome == "failed":
        assert cond["reason"] == "ReconciliationFailed" and not stalled
    else:
        assert stalled and stalled[0]["status"] == "True"


def test_helmrelease_reconciles(srv, admin):
    hr = "/apis/helm.toolkit.fluxcd.io/v2/namespaces/flux-system/helmreleases/podinfo"
    admin.patch(hr, {"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "x"}}})
    obj = wait_for(lambda: (o := admin.get(hr).json)["status"].get("lastHandledReconcileAt") == "x" and o)
    assert ready_cond(obj)["status"] == "True"
    assert any(e["manager"] == "helm-controller" for e in obj["metadata"]["managedFields"])


def test_parent_apply_takes_back_kubectl_fields_only(srv, admin):
    git = {"metadata": {"labels": {"app.kubernetes.io/part-of": "apps", "window": "rw"}},
           "spec": {"interval": "10m", "path": "./apps/readwrite", "prune": True, "timeout": "5m",
                    "sourceRef": {"kind": "GitRepository", "name": "flux-system"}, "dependsOn": [{"name": "infra"}]}}
    admin.patch(KS + "/apps-rw?fieldManager=kubectl-patch", {"spec": {"suspend": True}})
    assert srv.parent_apply("flux-system", "apps-rw", git)
    assert "suspend" not in srv.get("kustomizations", "flux-system", "apps-rw")["spec"]
    admin.patch(KS + "/apps-rw?fieldManager=windowctl", {"spec": {"suspend": True}})
    assert srv.parent_apply("flux-system", "apps-rw", git)
    assert srv.get("kustomizations", "flux-system", "apps-rw")["spec"]["suspend"] is True
    declared = json.loads(json.dumps(git))
    declared["spec"]["suspend"] = False
    assert srv.parent_apply("flux-system", "apps-rw", declared)
    assert srv.get("kustomizations", "flux-system", "apps-rw")["spec"]["suspend"] is False
    admin.patch(KS + "/apps-rw?fieldManager=windowctl", {
        "metadata": {"labels": {"kustomize.toolkit.fluxcd.io/reconcile": "Disabled"}}, "spec": {"suspend": True}})
    assert not srv.parent_apply("flux-system", "apps-rw", declared)
    assert srv.get("kustomizations", "flux-system", "apps-rw")["spec"]["suspend"] is True


# --- kubectl: the proof of faithfulness ------------------------------------------------------------

KUBECTL = shutil.which("kubectl")


@pytest.fixture
def kubectl(srv, tmp_path):
    if not KUBECTL:
        pytest.skip("kubectl not on PATH")
    admin_cfg = srv.write_kubeconfig(str(tmp_path / "admin.kubeconfig"), "admin")
    sa_cfg = srv.write_kubeconfig(str(tmp_path / "sa.kubeconfig"), SA_USER, server_name="fake-apiserver.test")

    def run(*args, config=admin_cfg, check=True):
        p = subprocess.run([KUBECTL, "--kubeconfig", config, "--cache-dir", str(tmp_path / "kcache"), *args],
                           capture_output=True, text=True, timeout=60, env=clean_env(tmp_path))
        if check and p.returncode != 0:
            raise AssertionError(f"kubectl {args} failed: {p.stderr}")
        return p
    run.sa_config = sa_cfg
    return run


def test_kubectl_get(kubectl):
    out = kubectl("get", "kustomizations", "-n", "flux-system").stdout.splitlines()
    assert out[0].split() == ["NAME", "AGE", "READY", "STATUS"]
    assert [line.split()[0] for line in out[1:]] == ["apps-rt", "apps-rw", "infra"]
    assert all(line.split()[2] == "True" for line in out[1:])
    obj = json.loads(kubectl("get", "kustomization", "apps-rw", "-o", "json").stdout)
    assert obj["kind"] == "Kustomization" and obj["metadata"]["labels"]["window"] == "rw"
    out = kubectl("get", "ks", "-l", "app.kubernetes.io/part-of=apps,window!=rw", "-o", "name").stdout.split()
    assert out == [f"kustomization.{G}/apps-rt"]
    out = kubectl("get", "helmreleases", "-A", "--no-headers").stdout.split()
    assert out[:2] == ["flux-system", "podinfo"]


def test_kubectl_patch(srv, kubectl):
    out = kubectl("patch", "kustomization", "apps-rw", "-n", "flux-system", "--type", "merge",
                  "-p", '{"spec":{"suspend":true}}').stdout
    assert out.strip() == f"kustomization.{G}/apps-rw patched"
    got = kubectl("get", "ks", "apps-rw", "-o", "jsonpath={.spec.suspend} {.metadata.generation}").stdout
    assert got == "true 2"
    assert kubectl("patch", "ks", "apps-rw", "--type", "merge", "-p", '{"spec":{"suspend":true}}').stdout.strip() == \
        f"kustomization.{G}/apps-rw patched (no change)"
    kubectl("patch", "ks", "apps-rw", "--type", "json", "-p", '[{"op":"remove","path":"/spec/suspend"}]')
    assert kubectl("get", "ks", "apps-rw", "-o", "jsonpath={.spec.suspend}").stdout == ""
    rec = [r for r in srv.requests if r["method"] == "PATCH"][-1]
    assert rec["query"]["fieldManager"] == "kubectl-patch"
    p = kubectl("patch", "ks", "apps-rw", "-p", '{"spec":{"suspend":true}}', check=False)
    assert p.returncode != 0 and "application/strategic-merge-patch+json is not supported" in p.stderr


def test_kubectl_forbidden_and_validation(kubectl):
    p = kubectl("get", "helmreleases", config=kubectl.sa_config, check=False)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines()[-1] == (
        f'Error from server (Forbidden): helmreleases.helm.toolkit.fluxcd.io is forbidden: User "{SA_USER}" cannot '
        'list resource "helmreleases" in API group "helm.toolkit.fluxcd.io" in the namespace "flux-system"')
    p = kubectl("delete", "ks", "apps-rw", config=kubectl.sa_config, check=False)
    assert "Error from server (Forbidden)" in p.stderr and 'cannot delete resource "kustomizations"' in p.stderr
    p = kubectl("patch", "ks", "apps-rw", "--type", "merge", "-p", '{"spec":{"suspend":"yes"}}', check=False)
    assert p.returncode == 1 and 'The Kustomization "apps-rw" is invalid' in p.stderr
    assert "spec.suspend in body must be of type boolean" in p.stderr
    p = kubectl("get", "ks", "nope", check=False)
    assert f'Error from server (NotFound): kustomizations.{G} "nope" not found' in p.stderr


def test_kubectl_user_without_rbac_and_client_cert_auth(srv, kubectl, tmp_path):
    srv.add_user("nobody")
    cfg = srv.write_kubeconfig(str(tmp_path / "nobody.kubeconfig"), "nobody")
    p = kubectl("get", "ks", "apps-rw", config=cfg, check=False)
    assert p.returncode == 1 and p.stderr.strip() == (
        f'Error from server (Forbidden): kustomizations.{G} "apps-rw" is forbidden: User "nobody" cannot get '
        f'resource "kustomizations" in API group "{G}" in the namespace "flux-system"')
    cfg = srv.write_kubeconfig(str(tmp_path / "cert.kubeconfig"), "admin", auth="cert", embed=False,
                               host="localhost")
    assert kubectl("get", "ks", "-o", "name", config=cfg).stdout.split()[0] == f"kustomization.{G}/apps-rt"
    assert srv.requests[-1]["user"] == "admin" and "authorization" not in srv.requests[-1]["headers"]


# --- standalone mode ------------------------------------------------------------------------------

def test_standalone_main(tmp_path):
    d = tmp_path / "standalone"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakeapi.py")
    proc = subprocess.Popen([sys.executable, script, "--dir", str(d), "--reconcile-delay", "0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        port = int(open(d / "port").read())
        assert line == f"fakeapi listening on https://127.0.0.1:{port}"
        for f in ("kubeconfig", "sa/token", "sa/ca.crt", "sa/namespace", "fakeapi.log"):
            assert (d / f).exists(), f
        token = open(d / "sa" / "token").read()
        ctx = ssl.create_default_context(cafile=str(d / "sa" / "ca.crt"))
        conn = http.client.HTTPSConnection("localhost", port, context=ctx, timeout=10)
        conn.request("PATCH", KS + "/apps-rw", body='{"spec":{"suspend":true}}',
                     headers={"Authorization": f"Bearer {token}", "Content-Type": MERGE})
        r = conn.getresponse()
        assert r.status == 200 and json.loads(r.read())["spec"]["suspend"] is True
        conn.request("GET", "/fake/stats")
        assert json.loads(conn.getresponse().read())["writes"] == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    assert proc.stdout.read() == ""  # logs go to the file, not stdout


# --- what `windowctl check` reads live: /version, CronJobs, SelfSubjectAccessReview -----------------

SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


def _review(client, **attrs):
    return client.req("POST", SSAR, {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                                     "spec": {"resourceAttributes": attrs}}, "application/json")


def test_version_is_configurable(srv, admin):
    assert admin.get("/version").json["gitVersion"] == "v1.32.0"
    srv.set_server_version("v1.26.3+k3s1")
    v = admin.get("/version").json
    assert (v["gitVersion"], v["major"], v["minor"]) == ("v1.26.3+k3s1", "1", "26")


def test_self_subject_access_review_follows_rbac(srv, sa):
    r = _review(sa, namespace="flux-system", verb="patch", group=G, resource="kustomizations", name="apps-rw")
    assert r.status == 201
    assert r.json["kind"] == "SelfSubjectAccessReview" and r.json["status"]["allowed"] is True
    assert r.json["spec"]["resourceAttributes"]["name"] == "apps-rw"
    r = _review(sa, namespace="flux-system", verb="delete", group=G, resource="kustomizations", name="apps-rw")
    assert r.status == 201 and r.json["status"] == {"allowed": False}
    assert _review(sa, namespace="default", verb="create", group="", resource="events").json["status"]["allowed"] is False
    assert _review(sa, namespace="flux-system", verb="create", group="", resource="events").json["status"]["allowed"] is True
    # resourceNames never cover a request without a name, in a review as in a request.
    token = srv.add_user("named", rules=[{"namespace": "flux-system", "apiGroups": [G], "resources": ["kustomizations"],
                                          "verbs": ["get", "list"], "resourceNames": ["apps-rw"]}])
    named = Client(srv, token)
    assert _review(named, namespace="flux-system", verb="get", group=G, resource="kustomizations",
                   name="apps-rw").json["status"]["allowed"] is True
    assert _review(named, namespace="flux-system", verb="list", group=G, resource="kustomizations").json["status"]["allowed"] is False


def test_self_subject_access_review_needs_no_grant_but_authentication(srv):
    # system:basic-user (bound to system:authenticated) allows it to a user with no rules at all ...
    nobody = Client(srv, srv.add_user("nobody"))
    r = _review(nobody, namespace="flux-system", verb="get", group=G, resource="kustomizations")
    assert r.status == 201 and r.json["status"]["allowed"] is False
    # ... but not to anonymous, and not as GET or without attributes.
    srv.anonymous_auth = True
    assert _review(Client(srv), namespace="x", verb="get", resource="pods").status == 403
    assert nobody.get(SSAR).status == 403  # authorization first: list is not granted
    r = nobody.req("POST", SSAR, {"kind": "SelfSubjectAccessReview", "spec": {}}, "application/json")
    assert r.status == 422 and r.json["reason"] == "Invalid"


def test_cronjobs_in_batch_v1(srv, admin):
    assert "batch" in [g["name"] for g in admin.get("/apis").json["groups"]]
    cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "close"},
          "spec": {"schedule": "0 18 * * *", "timeZone": "Europe/Zurich", "jobTemplate": {"spec": {}}}}
    r = admin.req("POST", "/apis/batch/v1/namespaces/flux-system/cronjobs", cj, "application/json")
    assert r.status == 201
    items = admin.get("/apis/batch/v1/namespaces/flux-system/cronjobs").json
    assert items["kind"] == "CronJobList" and [i["metadata"]["name"] for i in items["items"]] == ["close"]
    assert "kind" not in items["items"][0]  # a built-in kind's LIST leaves it out of the items
    assert items["items"][0]["spec"]["timeZone"] == "Europe/Zurich"


def test_parent_apply_records_kustomize_controller_owning_spec_suspend(srv):
    srv.parent_apply("flux-system", "apps-rw", {"spec": {"suspend": False}})
    managed = srv.get("kustomizations", "flux-system", "apps-rw")["metadata"]["managedFields"]
    owners = [e for e in managed if e["manager"] == "kustomize-controller" and "f:suspend" in e["fieldsV1"].get("f:spec", {})]
    assert owners and owners[0]["operation"] == "Apply"


ANNOTATION_PAUSED = [  # kind, path of the collection, pause annotation, status field with the revision
    ("ResourceSet", "/apis/fluxcd.controlplane.io/v1/namespaces/flux-system/resourcesets",
     "fluxcd.controlplane.io/reconcile", "lastAppliedRevision"),
    ("ResourceSetInputProvider", "/apis/fluxcd.controlplane.io/v1/namespaces/flux-system/resourcesetinputproviders",
     "fluxcd.controlplane.io/reconcile", "lastExportedRevision"),
    ("FluxInstance", "/apis/fluxcd.controlplane.io/v1/namespaces/flux-system/fluxinstances",
     "fluxcd.controlplane.io/reconcile", "lastAppliedRevision"),
    ("ArtifactGenerator", "/apis/source.extensions.fluxcd.io/v1beta1/namespaces/flux-system/artifactgenerators",
     "source.extensions.fluxcd.io/reconcile", "observedSourcesDigest"),
]


@pytest.mark.parametrize("kind,path,key,revision", ANNOTATION_PAUSED, ids=[k[0] for k in ANNOTATION_PAUSED])
def test_annotation_paused_kinds_reconcile_as_their_controllers(srv, admin, kind, path, key, revision):
    """Paused while the annotation says disabled (any case): no reconcile, Ready as it was, but
    the token echoed (their deferred status patch); any other value, or none, reconciles."""
    srv.put(kind, "flux-system", "x", {"metadata": {"name": "x", "namespace": "flux-system"}, "spec": {}})
    obj = wait_for(lambda: (o := admin.get(path + "/x").json).get("status", {}).get(revision) and o)
    ready = ready_cond(obj)
    assert ready["status"] == "True" and ready["observedGeneration"] == obj["metadata"]["generation"]
    assert any(e["manager"] in ("flux-operator", "source-watcher") for e in obj["metadata"]["managedFields"])
    admin.patch(path + "/x", {"metadata": {"annotations": {key: "Disabled", "reconcile.fluxcd.io/requestedAt": "t1"}}})
    obj = wait_for(lambda: (o := admin.get(path + "/x").json)["status"].get("lastHandledReconcileAt") == "t1" and o)
    assert ready_cond(obj) == ready  # not reconciled: the Ready condition is the one from before
    admin.patch(path + "/x", {"metadata": {"annotations": {key: "enabled", "reconcile.fluxcd.io/requestedAt": "t2"}}})
    obj = wait_for(lambda: (o := admin.get(path + "/x").json)["status"].get("lastHandledReconcileAt") == "t2" and o)
    assert ready_cond(obj)["status"] == "True"
    admin.patch(path + "/x", {"metadata": {"annotations": {key: None, "reconcile.fluxcd.io/requestedAt": "t3"}}})
    wait_for(lambda: admin.get(path + "/x").json["status"].get("lastHandledReconcileAt") == "t3")
    # The kind has no spec.suspend: a spec.suspend: true pauses nothing.
    admin.patch(path + "/x", {"spec": {"suspend": True}, "metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "t4"}}})
    obj = wait_for(lambda: (o := admin.get(path + "/x").json)["status"].get("lastHandledReconcileAt") == "t4" and o)
    assert ready_cond(obj)["observedGeneration"] == obj["metadata"]["generation"]


HR = "/apis/helm.toolkit.fluxcd.io/v2/namespaces/flux-system/helmreleases/podinfo"


def cond_of(obj, ctype):
    return next((c for c in obj["status"].get("conditions", []) if c["type"] == ctype), None)


def test_helm_upgrade_fails_and_is_remediated_over_time(srv, admin):
    script = srv.helm_upgrade("flux-system", "podinfo", upgrade=0.4, remediation=0.4)
    obj = wait_for(lambda: (o := admin.get(HR).json) and cond_of(o, "Reconciling") and o)
    rec = cond_of(obj, "Reconciling")
    assert rec["status"] == "True" and rec["reason"] == "Progressing"
    assert rec["message"] == "Running 'upgrade' action with timeout of 5m0s"
    assert cond_of(obj, "Ready")["status"] == "Unknown" and obj["status"]["history"][0]["status"] == "pending-upgrade"
    seen = set()

    def settled():
        o = admin.get(HR).json
        r = cond_of(o, "Reconciling")
        seen.add((r or {}).get("reason"))
        seen.add(o["status"]["history"][0]["status"])
        return script.done.is_set() and o
    obj = wait_for(settled, timeout=5)
    assert not script.halted and script.steps == 4
    assert {"ProgressingWithRetry", "pending-rollback"} <= seen  # the failure, then the rollback running
    assert cond_of(obj, "Reconciling") is None
    assert cond_of(obj, "Released")["reason"] == "UpgradeFailed"
    assert cond_of(obj, "Remediated")["status"] == "True"
    assert cond_of(obj, "Ready")["status"] == "False" and cond_of(obj, "Ready")["reason"] == "RollbackSucceeded"
    assert [h["status"] for h in obj["status"]["history"][:2]] == ["deployed", "failed"]
    # The scripted writes are the controller's, on the status subresource.
    assert any(e["manager"] == "helm-controller" and e.get("subresource") == "status"
               for e in obj["metadata"]["managedFields"])


def test_helm_upgrade_remediation_waits_for_a_resume(srv, admin):
    script = srv.helm_upgrade("flux-system", "podinfo", upgrade=0.3, remediation=0.3)
    wait_for(lambda: cond_of(admin.get(HR).json, "Reconciling"))
    admin.patch(HR, {"spec": {"suspend": True}})  # suspended in the middle of the upgrade
    assert script.done.wait(3) and script.halted and script.steps == 2
    obj = admin.get(HR).json
    # The upgrade failed and the rollback never ran: still asking to be remediated.
    assert cond_of(obj, "Reconciling")["reason"] == "ProgressingWithRetry"
    assert obj["status"]["history"][0]["status"] == "failed" and cond_of(obj, "Remediated") is None


def test_helm_upgrade_that_succeeds(srv, admin):
    script = srv.helm_upgrade("flux-system", "podinfo", upgrade=0.2, outcome="succeeded")
    # Unread, the upgrade stays in progress however long the client takes to come (a store read
    # is not a client's); the clock starts at the first GET.
    time.sleep(0.6)
    assert script.steps == 1 and cond_of(srv.get("helmreleases", "flux-system", "podinfo"), "Reconciling")
    assert cond_of(admin.get(HR).json, "Reconciling")["reason"] == "Progressing"
    assert script.done.wait(3) and not script.halted
    obj = admin.get(HR).json
    assert cond_of(obj, "Ready")["status"] == "True" and cond_of(obj, "Reconciling") is None
    assert obj["status"]["history"][0]["status"] == "deployed"


@pytest.mark.parametrize("outcome", ["ready", "failed"])
def test_kustomization_reconciling(srv, admin, outcome):
    script = srv.kustomization_reconciling("flux-system", "apps-rw", duration=0.3, outcome=outcome)
    obj = wait_for(lambda: (o := admin.get(KS + "/apps-rw").json) and cond_of(o, "Reconciling") and o)
    assert cond_of(obj, "Reconciling")["message"].startswith("Running health checks for revision ")
    assert script.done.wait(3)
    obj = admin.get(KS + "/apps-rw").json
    assert cond_of(obj, "Reconciling") is None
    assert ready_cond(obj)["status"] == ("True" if outcome == "ready" else "False")
