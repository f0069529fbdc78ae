#!/usr/bin/env python3
"""Writes the seed corpora in tests/fuzz/corpus/<target>/ (committed; run again after changing a
seed or the order in which a target consumes its input).

The targets read their input with libFuzzer's FuzzedDataProvider: numbers and booleans from the
end of the input, strings and the remaining bytes from the front. Each Seed below mirrors its
target's calls in the same order, so the seeds stay realistic inputs however they are laid out.
"""
import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent / "corpus"
ZONEINFO = pathlib.Path("/usr/share/zoneinfo")


class Seed:
    """Builds one input the way FuzzedDataProvider takes it apart."""

    def __init__(self):
        self.front = b""
        self.tail = []  # byte strings, in the order they are consumed

    def int(self, lo, hi, value):
        assert lo <= value <= hi, (lo, hi, value)
        span, n = hi - lo, 0
        while n < 8 and span >> (8 * n) > 0:
            n += 1
        # The first byte consumed (the input's last) is the most significant.
        self.tail.append((value - lo).to_bytes(n, "little") if n else b"")
        return self

    def bool(self, value):
        return self.int(0, 255, 1 if value else 0)

    def int64(self, value):
        self.tail.append((value & (2**64 - 1)).to_bytes(8, "little"))
        return self

    def string(self, text):
        """ConsumeRandomLengthString: a backslash is doubled; backslash-n ends the string."""
        data = text.encode() if isinstance(text, str) else text
        self.front += data.replace(b"\\", b"\\\\") + b"\\n"
        return self

    def rest(self, text):
        self.front += text.encode() if isinstance(text, str) else text
        return self

    def bytes(self):
        return self.front + b"".join(reversed(self.tail))


SEEDS = {}


def seed(target, s):
    SEEDS.setdefault(target, []).append(s.bytes())


# --- http: head, eof, default cap?, [cap], split count, splits; then the wire ----------------
def http(wire, head=False, eof=False, cap=None, splits=(7, 1, 13)):
    s = Seed().bool(head).bool(eof).bool(cap is None)
    if cap is not None:
        s.int(0, 300, cap)
    s.int(0, 16, len(splits))
    for n in splits:
        s.int(0, 64, n)
    seed("http", s.rest(wire))


STATUS_404 = json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                         "message": 'kustomizations.kustomize.toolkit.fluxcd.io "apps-rw" not found',
                         "reason": "NotFound", "details": {"name": "apps-rw", "kind": "kustomizations"}, "code": 404})
OBJECT = json.dumps({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
                     "metadata": {"name": "apps-rw", "namespace": "flux-system", "resourceVersion": "4711"},
                     "spec": {"suspend": True}})
http(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(OBJECT)}\r\n\r\n{OBJECT}")
http(f"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {len(STATUS_404)}\r\n\r\n{STATUS_404}",
     splits=(1, 1, 2, 3, 5, 8))
chunks = "".join(f"{len(OBJECT[i:i + 40]):x}\r\n{OBJECT[i:i + 40]}\r\n" for i in range(0, len(OBJECT), 40))
http(f"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nAudit-Id: 1f2e\r\n\r\n{chunks}0\r\n\r\n")
http(f"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n")
http(f"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
     f"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{{}}")
http("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
http("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the connection closes", eof=True)
http("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n")
http(f"HTTP/1.1 200 OK\r\nContent-Length: {len(OBJECT)}\r\n\r\n", head=True)
http("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
http(f"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{{}}HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
http("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffff00\r\n", cap=200)
http("HTTP/1.1 200 OK\r\nContent-Length: 250\r\n\r\n" + "x" * 250, cap=100)


# --- timefmt: mode, then text / int64 / seconds / duration ------------------------------------
for text in ("2026-03-29T01:30:00Z", "2026-11-21T23:35:06.123456789-04:30", "2026-11-22 04:05:06+01:00",
             "9999-12-31T23:59:59Z", "2262-04-11T23:47:16.854775807Z", "1677-09-21T00:12:43.145224192Z",
             "0000-01-01T00:00:00Z", "2026-12-31T23:59:60Z"):
    seed("timefmt", Seed().int(0, 4, 0).rest(text))
seed("timefmt", Seed().int(0, 4, 1).int64(1_795_000_000_123_456_789))
seed("timefmt", Seed().int(0, 4, 1).int64(-2**63))
seed("timefmt", Seed().int(0, 4, 2).int(-62167219200, 253402300799, 32503680000))
for text in ("30s", "1h30m", "81h", "1.5h", "500ms", ".5s", "2562047h47m16.854775807s", "3\u00b5s", "0"):
    seed("timefmt", Seed().int(0, 4, 3).rest(text))
seed("timefmt", Seed().int(0, 4, 4).int(0, 2**63 - 1, 291_600_000_000_000).int64(-5))


# --- zone: posix?, start, walks, [rule]; then TZif bytes --------------------------------------
REACH = 10_000_000_000
for name in ("Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "America/Nuuk", "Asia/Kolkata", "Pacific/Apia"):
    seed("zone", Seed().bool(False).int(-REACH, REACH, 1_774_000_000).int(1, 40, 12).rest((ZONEINFO / name).read_bytes()))
for rule in ("CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT,M3.2.0,M11.1.0", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
             "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "EST5EDT,0/0,J365/25", "EST0EDT,0/1,J365/75", "XST0XDT,J60/0,J300/0",
             "<+0530>-5:30", "XST0XDT,0/0,M12.4.6/167"):
    seed("zone", Seed().bool(True).int(-REACH, REACH, 1_767_000_000).int(1, 40, 8).string(rule))


# --- cron: after (minutes since 1970), walk; then the expression ------------------------------
for text in ("0 8 * * MON", "*/15 9-17 * * 1-5", "0 0 29 2 *", "@weekly", "30 2 * * SUN", "0 0 1,15 * *",
             "0 0 */2 * MON", "5 4 * jan-mar sat", "0 0 30 2 *", "? 0-23/6 ? * *"):
    seed("cron", Seed().int(-36_000_000, 173_000_000, 29_556_000).int(1, 3000, 2000).rest(text))


# --- window: when, allow/deny/freeze counts; then the expressions -----------------------------
def window(allow, deny=(), freeze=(), at=1_774_746_000, mode=2):
    s = Seed().int(0, 7, mode)
    if mode == 0:
        s.int(0, 5_000_000_000, at)
    elif mode == 1:
        s.int(0, 100_000_000, at)
    else:
        s.int(0, 4_100_000_000, at)
    s.int(0, 999_999_999, 0).int(1, 2, len(allow)).int(0, 1, len(deny)).int(0, 1, len(freeze))
    for text in (*allow, *deny, *freeze):
        s.string(text)
    seed("window", s)


window(["0 8 * * MON for 81h in Europe/Zurich"])
window(["30 2 * * * for 1h in Europe/Zurich", "0 */4 * * * for 90m"], ["0 12 * * * for 1h in America/New_York"])
window(["* * * * * for 1h"], [], ["2026-03-27T00:00:00.5Z/2026-03-30T12:00:00Z"], at=1_774_700_000)
window(["0 8 * * FRI for 81h"], mode=1, at=3600)
window(["@daily for 2h in Australia/Lord_Howe"], ["0 1 * * SUN for 30m in Australia/Lord_Howe"], at=1_775_300_000)
window(["0 0 1 1 * for 8784h"], mode=0, at=100)
window(["0 8 * * MON to 0 17 * * THU in Europe/Zurich"])
window(["30 2 * * * to 0 3 * * * in Europe/Zurich", "0 12 * * * for 2h"], ["0 12 * * FRI to 0 8 * * MON"],
       at=1_774_600_000)
window(["0 0 1 1 * to 0 0 29 2 *"], [], ["2027-01-01T00:00:00Z/2027-02-01T00:00:00Z"], at=1_795_000_000)
window(["0 8 * * * to 0 8 * * *", "*/2 * * * * to * * * * * in America/New_York"], at=1_793_500_000)
window(["0 8 * * * to 0 0 30 2 *"])


# --- sync: now, flags?; then the object ------------------------------------------------------
def obj(annotations, suspend=None):
    o = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
         "metadata": {"name": "apps-rw", "namespace": "flux-system", "annotations": annotations}}
    if suspend is not None:
        o["spec"] = {"suspend": suspend}
    return json.dumps(o)


for ann, flags in (({"windowctl.io/window": "0 8 * * MON for 81h in Europe/Zurich"}, False),
                   ({"windowctl.io/window": "0 22 * * * for 2h; 0 9 * * SAT for 2h",
                     "windowctl.io/deny": "0 23 * * * for 10m\n0 0 24 12 * for 72h"}, True),
                   ({"windowctl.io/window": "0 8 * * MON to 0 17 * * THU in Europe/Zurich",
                     "windowctl.io/deny": "0 12 * * FRI to 0 8 * * MON"}, False),
                   ({"windowctl.io/override": "closed", "windowctl.io/override-until": "9999-12-31T23:59:59Z",
                     "windowctl.io/suspended-by": "windowctl"}, True),
                   ({"windowctl.io/override": "open", "windowctl.io/override-until": "2026-11-22T10:00:00Z",
                     "windowctl.io/override-by": "ops", "windowctl.io/window": " ; "}, False),
                   ({}, True)):
    seed("sync", Seed().int(0, 4_100_000_000, 1_795_000_000).bool(flags).rest(obj(ann, True)))


# --- kubeconfig: [context], [second file]; then the first file --------------------------------
def kubeconfig(first, second=None, context=None):
    s = Seed().bool(context is not None)
    if context is not None:
        s.string(context)
    s.bool(second is not None)
    if second is not None:
        s.string(second)
    seed("kubeconfig", s.rest(first))


KC = """apiVersion: v1
kind: Config
current-context: main
clusters:
- name: prod
  cluster:
    server: https://api.prod.example:6443
    certificate-authority-data: Q0EtUEVN
    tls-server-name: kubernetes
contexts:
- name: main
  context: {cluster: prod, user: ops, namespace: flux-system}
- name: files
  context: {cluster: files, user: cert}
users:
- name: ops
  user:
    token: abc.def.ghi
"""
kubeconfig(KC)
kubeconfig(KC, context="files", second="""clusters:
- name: files
  cluster:
    server: https://[fd00::1]:443/
    certificate-authority: ca.crt
users:
- name: cert
  user:
    client-certificate: certs/client.crt
    client-key: missing.key
""")
kubeconfig("""current-context: aks
clusters:
- name: aks
  cluster: {server: "https://10.0.0.1", insecure-skip-tls-verify: true}
contexts:
- name: aks
  context: {cluster: aks, user: azure}
users:
- name: azure
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: kubelogin
      args: [get-token, --server-id, "6dae42f8"]
      env: [{name: AAD_LOGIN_METHOD, value: msi}]
      provideClusterInfo: true
      installHint: install kubelogin
""")
kubeconfig("apiVersion: v1\nkind: Config\n")
kubeconfig("{{{ not yaml")


# --- exec credential: v1?; then the plugin's stdout -------------------------------------------
for v1, text in ((True, {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                         "status": {"token": "eyJhbGciOi.x.y", "expirationTimestamp": "2026-11-22T10:00:00Z"}}),
                 (False, {"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential",
                          "status": {"clientCertificateData": "-----BEGIN CERTIFICATE-----\n",
                                     "clientKeyData": "-----BEGIN EC PRIVATE KEY-----\n"}}),
                 (True, {"apiVersion": "client.authentication.k8s.io/v1", "kind": 5, "status": {"token": 7}})):
    seed("exec_credential", Seed().bool(v1).rest(json.dumps(text)))


# --- api_error: code, [Retry-After]; then the body ---------------------------------------------
def api_error(code, body, retry=None):
    s = Seed().int(100, 999, code).bool(retry is not None)
    if retry is not None:
        s.string(retry)
    seed("api_error", s.rest(body))


api_error(404, STATUS_404)
api_error(403, json.dumps({"kind": "Status", "status": "Failure", "reason": "Forbidden", "code": 403,
                           "message": 'kustomizations.kustomize.toolkit.fluxcd.io "apps-rw" is forbidden: User '
                                      '"system:serviceaccount:flux-system:windowctl" cannot patch resource'}))
api_error(429, json.dumps({"kind": "Status", "reason": "TooManyRequests", "message": "rate limited",
                           "details": {"retryAfterSeconds": 2}}), retry="1")
api_error(410, json.dumps({"kind": "Status", "reason": "Expired", "message": "The provided continue parameter is too old"}))
api_error(409, json.dumps({"kind": "Status", "reason": "Conflict", "message": {"not": "a string"}, "details": []}))
api_error(502, "<html><body><h1>502 Bad Gateway</h1>\r\n</body></html>", retry="Wed, 21 Oct 2026 07:28:00 GMT")


# --- kinds: kind (index into kinds.cc's table), token?, [token], reason, action, force, relabel;
# then the object ------------------------------------------------------------------------------
KIND_INDEX = {k: i for i, k in enumerate([
    "Kustomization", "HelmRelease", "GitRepository", "OCIRepository", "HelmRepository", "HelmChart", "Bucket",
    "ImageRepository", "ImagePolicy", "ImageUpdateAutomation", "Alert", "Provider", "Receiver"])}


def kinds(o, ks=True, token=None, reason="INC-123", action=1, force=False, relabel=False, kind=None):
    kind = kind or ("Kustomization" if ks else "HelmRelease")
    s = Seed().int(0, len(KIND_INDEX) - 1, KIND_INDEX[kind]).bool(token is not None)
    if token is not None:
        s.string(token)
    s.string(reason).int(0, 3, action).bool(force).bool(relabel)
    seed("kinds", s.rest(json.dumps(o)))


KS = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
      "metadata": {"name": "apps-rw", "namespace": "flux-system", "uid": "6f1c", "resourceVersion": "4711",
                   "generation": 3, "labels": {"kustomize.toolkit.fluxcd.io/reconcile": "Disabled"},
                   "annotations": {"windowctl.io/suspended-by": "windowctl", "windowctl.io/suspended-at": "2026-11-22T08:00:00Z",
                                   "windowctl.io/reason": "window closed", "reconcile.fluxcd.io/requestedAt": "t1"}},
      "spec": {"suspend": True, "interval": "10m", "path": "./apps"},
      "status": {"lastAppliedRevision": "main@sha1:abc", "lastHandledReconcileAt": "t1", "observedGeneration": 3,
                 "conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded",
                                 "message": "Applied revision: main@sha1:abc", "observedGeneration": 3}]}}
HR = {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
      "metadata": {"name": "podinfo", "namespace": "apps", "generation": 1},
      "status": {"history": [{"chartVersion": "6.5.0"}], "lastAttemptedRevision": "6.4.0",
                 "conditions": [{"type": "Stalled", "status": "True", "message": "install retries exhausted"}]}}
GROUP = {"kind": "APIGroup", "apiVersion": "v1", "name": "kustomize.toolkit.fluxcd.io",
         "versions": [{"groupVersion": "kustomize.toolkit.fluxcd.io/v1", "version": "v1"},
                      {"groupVersion": "kustomize.toolkit.fluxcd.io/v1beta2", "version": "v1beta2"}],
         "preferredVersion": {"groupVersion": "kustomize.toolkit.fluxcd.io/v1", "version": "v1"}}
kinds(KS, token="t1", action=0)
kinds(KS, action=1, relabel=True, reason="Z\u00fcrich freeze \u00fc\u00fc")
kinds({**KS, "metadata": {**KS["metadata"], "annotations": {}}}, action=0, force=True)
kinds({**KS, "spec": {"suspend": False}}, action=3)
kinds(HR, ks=False, action=2)
kinds(GROUP)
kinds({"metadata": {"name": 5}, "spec": "x", "status": {"conditions": {"type": "Ready"}}})
GIT = {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
       "metadata": {"name": "podinfo", "namespace": "flux-system", "resourceVersion": "12", "generation": 2,
                    "annotations": {"suspend.toolkit.fluxcd.io/reason": "DB migration \"v2\""}},
       "spec": {"suspend": True, "interval": "1m", "url": "https://github.com/stefanprodan/podinfo"},
       "status": {"artifact": {"revision": "master@sha1:8d4e3c9a", "digest": "sha256:3f"},
                  "conditions": [{"type": "Ready", "status": "True", "observedGeneration": 2}]}}
kinds(GIT, kind="GitRepository", action=0)
kinds({**GIT, "kind": "ImageUpdateAutomation", "status": {"lastPushCommit": "8d4e3c9a"}}, kind="ImageUpdateAutomation", action=1)
kinds({**GIT, "kind": "ImageRepository", "status": {"lastScanResult": {"tagCount": 42}}}, kind="ImageRepository", action=3)
kinds({**GIT, "kind": "ImagePolicy", "status": {"latestRef": {"name": "ghcr.io/x", "tag": "6.7.1"}}}, kind="ImagePolicy")
kinds({"apiVersion": "notification.toolkit.fluxcd.io/v1beta3", "kind": "Alert",
       "metadata": {"name": "on-call", "namespace": "flux-system", "resourceVersion": "3"},
       "spec": {"eventSources": [{"kind": "Kustomization", "name": "*"}], "providerRef": {"name": "slack"}}},
      kind="Alert", token="t1", action=0)

# What `check` reads live (check_online.h): /version, a SelfSubjectAccessReview answer, a target
# whose spec.suspend its parent Kustomization applies.
kinds({"major": "1", "minor": "26+", "gitVersion": "v1.26.3+k3s1", "platform": "linux/amd64"})
kinds({"major": "1", "minor": "32", "gitVersion": "v1.32.0-eks-4096"}, relabel=True)
kinds({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {"creationTimestamp": None},
       "spec": {"resourceAttributes": {"namespace": "flux-system", "verb": "patch", "group": "kustomize.toolkit.fluxcd.io",
                                       "resource": "kustomizations", "name": "apps-rw"}},
       "status": {"allowed": False, "reason": "no RBAC policy matched"}})
kinds({**KS, "metadata": {"name": "apps-rw", "namespace": "flux-system",
                          "labels": {"kustomize.toolkit.fluxcd.io/name": "flux-system", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"},
                          "managedFields": [{"manager": "kustomize-controller", "operation": "Apply", "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
                                             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:suspend": {}, "f:path": {}}}}]},
       "spec": {"suspend": True}})

# A Kustomization's status.inventory (WC016): namespaced, core group, cluster-scoped, an RBAC name
# with a colon ("__") and an '_'; then malformed entries.
kinds({**KS, "status": {**KS["status"], "inventory": {"entries": [
    {"id": "apps_podinfo_apps_Deployment", "v": "v1"}, {"id": "apps_podinfo__Service", "v": "v1"},
    {"id": "_apps__Namespace", "v": "v1"}, {"id": "_system__podinfo_view_rbac.authorization.k8s.io_ClusterRole", "v": "v1"},
    {"id": "apps_podinfo_apps_Deployment", "v": "v1"}]}}})
kinds({**KS, "status": {**KS["status"], "inventory": {"entries": [
    {"id": "apps-podinfo"}, {"id": 7}, "x", {"v": "v1"}, {"id": "ns__Kind"}, {"id": "_a__Namespace"}]}}}, relabel=True)
kinds({**KS, "status": {**KS["status"], "inventory": {"entries": {"id": "apps_podinfo_apps_Deployment"}}}})

# --- resolve: a LIST page --------------------------------------------------------------------
def page(items, token=""):
    return json.dumps({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "KustomizationList",
                       "metadata": {"resourceVersion": "9000", "continue": token}, "items": items})


for text in (page([KS, {**KS, "metadata": {**KS["metadata"], "name": "infra", "managedFields": [{"manager": "flux"}]}}],
                  "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTAwMH0"),
             page([]), page([HR, 7, None, []]), json.dumps({"kind": "Status", "items": {"a": 1}}),
             '{"items":[{"metadata":{"name":"a"}}],"items":[{"metadata":{"name":"b"}}]}'):
    seed("resolve", Seed().rest(text))


# --- targets: -n, API version, selector, then --kustomizations (and --targets) values -----------
for ns, version, selector, values in (("", "v1", "app=x,window in (rw)", ["apps-rw,flux-system/infra", "apps-rt"]),
                                      ("", "v1", "", ["kustomization/apps-rw,hr/podinfo", "iua/apps/flux-system,gitrepo/x"]),
                                      ("apps", "v1beta3", "", ["alert/on-call,Provider.notification.toolkit.fluxcd.io/slack"]),
                                      ("team-a", "v2beta1", "!canary", ["team-b/app.v2", " apps , apps "]),
                                      ("Flux", "v0", "a b&c=%", ["flux-system/kustomizations/infra?dryRun=All&x="])):
    s = Seed().string(ns).string(version).string(selector)
    for v in values:
        s.string(v)
    seed("targets", s)


# --- manifests: the whole input is YAML (check's manifest sets, and a few odd shapes) ----------
for path in sorted((pathlib.Path(__file__).resolve().parents[1] / "testdata" / "check").glob("*/*.yaml")):
    seed("manifests", Seed().rest(path.read_bytes()))
for text in ("kind: List\nitems:\n- kind: CronJob\n  spec: &s {suspend: yes}\n- {kind: Role, rules: *s}\n",
             "---\n...\n---\nkind: A\nmetadata: {name: 3, labels: [x]}\n", "a: &a [*a]\n"):
    seed("manifests", Seed().rest(text))


# --- calendar: from (seconds since 1970), days, split percent, zone; then the file ------------
def ics(body, head=""):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//windowctl//fuzz//EN\r\n" + head + body +
            "END:VCALENDAR\r\n")


OUTLOOK = ("BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\n"
           "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\n"
           "BEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n"
           "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n")
for text in (
        ics("BEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Christmas freeze\r\nDTSTART;VALUE=DATE:20261221\r\n"
            "DTEND;VALUE=DATE:20270104\r\nRRULE:FREQ=YEARLY\r\nEND:VEVENT\r\n"),
        ics("BEGIN:VEVENT\r\nUID:b\r\nSUMMARY:Patch Tuesday\r\nDTSTART;TZID=Europe/Zurich:20260113T200000\r\n"
            "DURATION:PT3H\r\nRRULE:FREQ=MONTHLY;BYDAY=2TU\r\nEXDATE;TZID=Europe/Zurich:20260210T200000\r\n"
            "END:VEVENT\r\nBEGIN:VEVENT\r\nUID:b\r\nRECURRENCE-ID;TZID=Europe/Zurich:20260310T200000\r\n"
            "DTSTART;TZID=Europe/Zurich:20260311T200000\r\nDURATION:PT3H\r\nEND:VEVENT\r\n"),
        ics("BEGIN:VEVENT\r\nUID:c\r\nDTSTART;TZID=W. Europe Standard Time:20260302T080000\r\n"
            "DTEND;TZID=W. Europe Standard Time:20260302T170000\r\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;"
            "WKST=SU;UNTIL=20271231T000000Z\r\nRDATE;VALUE=PERIOD:20260401T000000Z/PT4H\r\nEND:VEVENT\r\n", OUTLOOK),
        ics("BEGIN:VEVENT\r\nUID:d\r\nDTSTART:20260130T180000\r\nDURATION:P1DT2H\r\n"
            "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=20\r\nEND:VEVENT\r\n"),
        ics("BEGIN:VEVENT\r\nUID:e\r\nSUMMARY:Quarter\\, end\r\n  folded\r\nDTSTART:20260327T120000Z\r\n"
            "DTEND:20260327T130000Z\r\nRRULE:FREQ=YEARLY;BYMONTH=3,6,9,12;BYDAY=-1FR;BYMONTHDAY=-7,-6,-5,-4,-3,-2,-1"
            "\r\nEND:VEVENT\r\n"),
):
    seed("calendar", Seed().int(-2_000_000_000, 10_000_000_000, 1_764_000_000).int(1, 1100, 730).int(1, 99, 40)
         .int(0, 2, 1).rest(text))


def main():
    for target, inputs in SEEDS.items():
        out = ROOT / target
        # The seeds are rewritten; inputs a fuzzer found (regression-*) are kept.
        out.mkdir(parents=True, exist_ok=True)
        for old in out.iterdir():
            if not old.name.startswith("regression-"):
                old.unlink()
        for data in inputs:
            (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(", ".join(f"{t}: {len(v)}" for t, v in sorted(SEEDS.items())))


if __name__ == "__main__":
    main()
