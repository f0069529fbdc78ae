"""windowctl against a hostile API server (tests/hostile): every scenario checks no crash, a time
bound derived from the retry policy, a bounded peak RSS, one clear stderr line for the failed
target, the contract's exit code, nothing changed that should not be, and the truth reported."""
import functools
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

from e2e_util import binary

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "hostile"))

import hostile as H  # noqa: E402

NS = "flux-system"
OBJ = r"/kustomizations/apps-rw$"
LIST = r"/kustomizations$"
GROUP_PATH = r"^/apis/kustomize\.toolkit\.fluxcd\.io$"
TWO = ["--kustomizations", "apps-rw,infra"]

# The retry policy (docs/connecting.md, "Requests"; src/retry.h): at most 5 attempts of one request, each
# bounded by --request-timeout, with jittered backoff before attempts 2..5 of at most
# 250 + 500 + 1000 + 2000 ms; Retry-After replaces the backoff; 60 s per request in all.
ATTEMPTS = 5
BACKOFF_S = 3.75
BUDGET_S = 60


@functools.lru_cache(maxsize=None)
def sanitized():
    with open(binary(), "rb") as f:
        return b"__asan_init" in f.read()  # the sanitizer build imports its runtime


def bound(requests=1, rt=1.0, retry_after=None):
    """Worst-case wall time of `requests` requests that each fail in every way the policy
    allows, plus process start-up and the healthy requests around them."""
    waits = BACKOFF_S if retry_after is None else (ATTEMPTS - 1) * retry_after
    per_request = min(ATTEMPTS * rt + waits, BUDGET_S + rt)
    return requests * per_request + (15 if sanitized() else 5)


# Peak RSS of one run. The release binary holds one LIST page and one object at a time; 32 MiB
# is several times what it needs (about 7 MiB, 10 MiB for 100,000 objects) and far below what a
# body cap that failed would cost (the audit's chunk-size wrap reached 1 GiB). The sanitizer
# build starts near 110 MiB (shadow memory) and its quarantine keeps up to 256 MiB of freed
# blocks, so its bound is loose: it still catches growth without end.
def rss_bound_mib():
    return 768 if sanitized() else 32


PEAKS = {}  # scenario -> peak RSS MiB, printed at the end (-s) for the report


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    return H.HostilePki(tmp_path_factory.mktemp("hostile-pki"))


class Run:
    def __init__(self, code, out, err, seconds, rss_mib):
        self.code, self.out, self.err, self.seconds, self.rss_mib = code, out, err, seconds, rss_mib

    @property
    def out_lines(self):
        return [line for line in self.out.splitlines() if line.strip()]

    @property
    def err_lines(self):
        return [line for line in self.err.splitlines() if line.strip()]

    def errors(self):
        return [line for line in self.err_lines if re.match(r"^\S+ error ", line) or line.startswith("windowctl:")]


class World:
    """A hostile server seeded with three Kustomizations and windowctl configured in-cluster for it."""

    def __init__(self, pki, tmp, tls="good"):
        self.pki = pki
        self.tmp = tmp
        self.srv = H.HostileServer(pki, tls=tls).start()
        self.srv.put(H.kustomization("apps-rw"))
        self.srv.put(H.kustomization("infra"))
        self.srv.put(H.kustomization("apps-rt"))
        self.sa = tmp / "sa"
        self.sa.mkdir(exist_ok=True)
        (self.sa / "token").write_text("hostile-test-token\n")
        (self.sa / "namespace").write_text(NS)
        (self.sa / "ca.crt").write_text(pathlib.Path(pki.ca_path).read_text())

    def run(self, *args, rt="1s", timeout=300, name=None):
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.tmp), "KUBERNETES_SERVICE_HOST": "127.0.0.1",
               "KUBERNETES_SERVICE_PORT": str(self.srv.port), "WINDOWCTL_SERVICE_ACCOUNT_DIR": str(self.sa)}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            if os.environ.get(k):
                env[k] = os.environ[k]
        # Peak RSS through GNU time: a child of this Python process would be charged with the
        # interpreter's own pages (Linux keeps the high-water mark across fork and exec).
        rss_file = self.tmp / "rss"
        start = time.monotonic()
        try:
            proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(rss_file), binary(), *args,
                                   "--request-timeout", rt], env=env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"windowctl still running after {timeout}s: {(e.stderr or b'')[-2000:]!r}")
        seconds = time.monotonic() - start
        report = rss_file.read_text().split()
        code = proc.returncode
        if "signal" in report:  # "Command terminated by signal N"
            code = -int(report[report.index("signal") + 1])
        r = Run(code, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), seconds,
                int(report[-1]) / 1024)
        PEAKS[name or " ".join(args)] = r.rss_mib
        return r

    def stop(self):
        self.srv.stop()


@pytest.fixture
def world(pki, tmp_path):
    w = World(pki, tmp_path)
    yield w
    w.stop()
    assert w.srv.errors == [], "the hostile server itself failed"  # its bugs must not pass as windowctl's


def check(r, code, max_s, needle=None, target="flux-system/apps-rw"):
    """The assertions every scenario shares."""
    text = r.out + r.err
    assert r.code >= 0, f"killed by signal {-r.code}: {r.err[-3000:]}"
    for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer"):
        assert report not in r.err, r.err[-5000:]
    assert r.code == code, (r.code, r.out[-2000:], r.err[-3000:])
    assert r.seconds <= max_s, f"took {r.seconds:.1f}s, bound {max_s:.1f}s"
    assert r.rss_mib <= rss_bound_mib(), f"peak RSS {r.rss_mib:.1f} MiB"
    for raw in ("json.exception", "[json.", "type_error", "out_of_range", "parse_error", "terminate called"):
        assert raw not in text, text[-3000:]
    # An exception that escaped to main (a bug), logged as "<time> error internal error: ...".
    assert not re.search(r"^\S+ error internal error", r.err, re.M), r.err
    # Every stderr line is one printable line: server text cannot add lines or terminal escapes.
    for line in r.err_lines:
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", line), repr(line)
    if target and code == 1:
        mine = [line for line in r.errors() if f" {target}: " in line or f" {target} " in line]
        assert len(mine) == 1, r.err
        if needle:
            assert re.search(needle, mine[0]), mine[0]
    elif needle:
        assert any(re.search(needle, line) for line in r.errors()), r.err


def sends(world, method, name):
    """How many `method` requests for object `name` the server received (retries included)."""
    return sum(1 for q in world.srv.requests if q["method"] == method and q["path"].endswith("/" + name))


def closed_by_windowctl(obj):
    return (obj["spec"].get("suspend") is True
            and obj["metadata"]["annotations"].get("windowctl.io/suspended-by") == "windowctl")


# --- framing: what comes back instead of an HTTP answer ----------------------------------------

FRAMING = [
    ("garbage-bytes", H.garbage(4096), r"bad response: malformed HTTP response"),
    ("garbage-text", H.raw(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n\r\n"), r"bad response: malformed HTTP response"),
    ("status-code-2000", H.raw(b"HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\n{}"), r"malformed"),
    ("content-length-overflow", H.raw(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n{}"),
     r"malformed Content-Length"),
    ("content-length-negative", H.raw(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{}"), r"malformed Content-Length"),
    ("content-length-huge", H.raw(b"HTTP/1.1 200 OK\r\nContent-Length: 4294967296\r\n\r\n{}"), r"too large"),
    ("unknown-transfer-encoding", H.raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n{}"),
     r"transfer encoding"),
    ("endless-chunks", H.endless_chunks(), r"too large"),
    ("chunk-size-near-2^64", H.overflowing_chunk("fffffffffffffff0"), r"too large"),
    ("chunk-size-2^64-minus-1", H.overflowing_chunk("ffffffffffffffff"), r"too large"),
    ("chunk-size-beyond-2^64", H.overflowing_chunk("1" + "0" * 16), r"malformed chunk size"),
    ("chunk-size-line-endless", H.raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"0" * 100000),
     r"chunk size line too long"),
    ("huge-header-line", H.huge_header(), r"header too large"),
    ("header-line-1MiB", H.huge_header(1 << 20), r"header too large"),
    ("too-many-headers", H.many_headers(), r"header too large"),
    ("endless-100-continue", H.endless_interim(100), r"header too large"),
    ("101-switching-protocols", H.switching_protocols(), r"101"),
]


@pytest.mark.parametrize("name,rule,needle", FRAMING, ids=[f[0] for f in FRAMING])
def test_framing_attacks_fail_the_target_alone(world, name, rule, needle):
    world.srv.on("GET", OBJ, rule)
    r = world.run("close", *TWO, name=name)
    check(r, 1, bound(1), needle)
    assert r.out_lines[0].startswith("flux-system/apps-rw failed: ")
    assert r.out_lines[1] == "flux-system/infra closed"
    assert [p["name"] for p in world.srv.applied_patches()] == ["infra"]
    assert world.srv.event_reasons() == ["WindowClosed"]


@pytest.mark.parametrize("name,rule,needle,requests", [
    ("slowloris-headers", H.slowloris(1.0), r"timeout", 1),
    ("half-a-body-then-silence", H.partial_then_hang(), r"timeout", 1),
    # Found by this file: an EOF without close_notify was "TLS read failed", not retried.
    ("half-a-body-then-close", H.partial_then_close(), r"unreachable: connection closed in the middle of a response", 1),
], ids=["slowloris-headers", "half-a-body-then-silence", "half-a-body-then-close"])
def test_slow_or_cut_answers_are_retried_within_the_policy(world, name, rule, needle, requests):
    world.srv.on("GET", OBJ, rule)
    r = world.run("close", *TWO, rt="1s", name=name)
    check(r, 1, bound(requests, rt=1.0), needle)
    assert r.out_lines[1] == "flux-system/infra closed"
    assert [p["name"] for p in world.srv.applied_patches()] == ["infra"]
    # Retried as transient, each attempt ended by --request-timeout or the server's close.
    assert sends(world, "GET", "apps-rw") == ATTEMPTS


def answer_then_close():
    """The answer, then the connection closed without `Connection: close`."""
    def rule(srv, conn, req):
        conn.send(srv.emulate(req))
        return False
    return rule


def test_a_server_that_closes_after_every_answer_costs_connections_not_the_run(world):
    # Found by this file: the next request was written into the closed connection and SIGPIPE
    # killed windowctl (exit -13, no output) in most runs.
    world.srv.on("*", ".*", answer_then_close())
    r = world.run("close", *TWO, "--kustomizations", "apps-rt", name="close-after-every-answer")
    # A close that lands after windowctl checked the idle connection costs one retry (<= 250 ms).
    check(r, 0, bound(0) + 10 * 0.25)
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed", "flux-system/apps-rt closed"]
    assert len(world.srv.applied_patches()) == 3 and world.srv.event_reasons() == ["WindowClosed"] * 3


# --- 1xx before the answer --------------------------------------------------------------------

@pytest.mark.parametrize("codes", [(100,), (102,), (103,), (100, 102, 103)], ids=["100", "102", "103", "100-102-103"])
def test_interim_answers_before_every_answer_are_skipped(world, codes):
    world.srv.on("*", ".*", H.interim(*codes, repeat=3))
    r = world.run("close", *TWO, name=f"interim-{codes}")
    check(r, 0, bound(0))
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert sorted(p["name"] for p in world.srv.applied_patches()) == ["apps-rw", "infra"]
    assert world.srv.event_reasons() == ["WindowClosed"] * 2
    assert closed_by_windowctl(world.srv.get("apps-rw"))


# --- answers nobody asked for -----------------------------------------------------------------

def fake_patched(srv, req):
    """What the PATCH's answer would be had it landed: a lie sent ahead of the question."""
    obj = srv.get("apps-rw")
    obj["spec"]["suspend"] = True
    obj["metadata"]["annotations"]["windowctl.io/suspended-by"] = "windowctl"
    obj["metadata"]["resourceVersion"] = "999999"
    return H.answer(200, obj)


def test_an_unsolicited_answer_in_the_same_record_is_not_taken_as_the_patchs(world):
    world.srv.on("GET", OBJ, H.then_unsolicited(fake_patched, same_record=True))
    world.srv.on("PATCH", OBJ, H.reset())  # never lands
    r = world.run("close", *TWO, name="unsolicited-same-record")
    check(r, 1, bound(2), r"did not land")
    assert r.out_lines[1] == "flux-system/infra closed"
    assert not world.srv.get("apps-rw")["spec"].get("suspend")
    assert [p["name"] for p in world.srv.applied_patches()] == ["infra"]


def fake_ready(srv, req):
    obj = srv.get("apps-rw")
    token = obj["metadata"]["annotations"].get("reconcile.fluxcd.io/requestedAt", "")
    obj["status"]["lastHandledReconcileAt"] = token
    obj["status"]["conditions"][0]["observedGeneration"] = obj["metadata"]["generation"]
    return H.answer(200, obj)


def test_an_unsolicited_answer_while_idle_is_not_the_next_requests(world):
    # --wait reads the object every poll interval; between two reads the server sends a "Ready"
    # answer nobody asked for. The next read must not take it: the object never got ready.
    # Found by this file: the next GET read the stale answer and reported "opened, ready".
    world.srv.put(H.kustomization("apps-rw", suspend=True, annotations={"windowctl.io/suspended-by": "windowctl"}))
    world.srv.controller = False
    world.srv.on("GET", OBJ, H.emulate(), count=1)  # the read before the PATCH
    world.srv.on("GET", OBJ, H.then_unsolicited(fake_ready))
    r = world.run("open", "--kustomizations", "apps-rw", "--wait", "--timeout", "2s", "--poll-interval", "200ms",
                  name="unsolicited-while-idle")
    check(r, 1, bound(0) + 2, r"wait failed: not ready within 2s")
    assert r.out_lines == ["flux-system/apps-rw opened, wait failed: not ready within 2s"]
    assert world.srv.event_reasons() == ["WindowOpened"]


# --- wrong JSON types in every field windowctl reads -------------------------------------------

def setter(path, value):
    def change(obj):
        cur = obj
        for key in path[:-1]:
            cur = cur[key]
        cur[path[-1]] = value
        return obj
    return change


def ann(key, value):
    def change(obj):
        obj["metadata"]["annotations"][key] = value
        return obj
    return change


def cond(field, value):
    def change(obj):
        obj["status"]["conditions"][0][field] = value
        return obj
    return change


OBJECT_TYPES = [
    ("object-is-list", lambda o: [o]),
    ("object-is-string", lambda o: "Kustomization"),
    ("object-is-null", lambda o: None),
    ("metadata-list", setter(["metadata"], [1, 2])),
    ("metadata-string", setter(["metadata"], "apps-rw")),
    ("metadata.name-number", setter(["metadata", "name"], 5)),
    ("metadata.name-other-object", setter(["metadata", "name"], "infra")),
    ("metadata.namespace-object", setter(["metadata", "namespace"], {})),
    ("metadata.namespace-other", setter(["metadata", "namespace"], "kube-system")),
    ("metadata.namespace-path", setter(["metadata", "namespace"], "flux-system/events/x?dryRun=All")),
    ("metadata.resourceVersion-number", setter(["metadata", "resourceVersion"], 12)),
    ("metadata.generation-string", setter(["metadata", "generation"], "1")),
    ("metadata.generation-huge", setter(["metadata", "generation"], 2 ** 70)),
    ("metadata.labels-string", setter(["metadata", "labels"], "a=b")),
    ("metadata.labels-value-number", setter(["metadata", "labels"], {"kustomize.toolkit.fluxcd.io/reconcile": 0})),
    ("metadata.annotations-list", setter(["metadata", "annotations"], ["windowctl.io/suspended-by"])),
    ("annotation-suspended-by-number", ann("windowctl.io/suspended-by", 5)),
    ("annotation-suspended-at-object", ann("windowctl.io/suspended-at", {"t": 1})),
    ("annotation-reason-list", ann("windowctl.io/reason", ["a"])),
    ("annotation-override-number", ann("windowctl.io/override", 1)),
    ("annotation-override-until-bool", ann("windowctl.io/override-until", True)),
    ("annotation-window-number", ann("windowctl.io/window", 7)),
    ("annotation-requestedAt-object", ann("reconcile.fluxcd.io/requestedAt", {})),
    ("spec-list", setter(["spec"], [])),
    ("spec.suspend-string", setter(["spec", "suspend"], "true")),
    ("spec.suspend-number", setter(["spec", "suspend"], 1)),
    ("spec.suspend-null", setter(["spec", "suspend"], None)),
    ("status-string", setter(["status"], "Ready")),
    ("status.conditions-object", setter(["status", "conditions"], {"type": "Ready", "status": "True"})),
    ("status.conditions-scalars", setter(["status", "conditions"], [5, "x", None, []])),
    ("condition.type-number", cond("type", 5)),
    ("condition.status-bool", cond("status", True)),
    ("condition.message-object", cond("message", {"text": "hi"})),
    ("condition.reason-list", cond("reason", ["x"])),
    ("condition.observedGeneration-string", cond("observedGeneration", "1")),
    ("status.lastHandledReconcileAt-number", setter(["status", "lastHandledReconcileAt"], 5)),
    ("status.lastAppliedRevision-object", setter(["status", "lastAppliedRevision"], {"rev": 1})),
]


# Answers in which no resourceVersion string can be read.
NO_RESOURCE_VERSION = {"object-is-list", "object-is-string", "object-is-null", "metadata-list", "metadata-string",
                       "metadata.resourceVersion-number"}


@pytest.mark.parametrize("name,change", OBJECT_TYPES, ids=[t[0] for t in OBJECT_TYPES])
def test_an_object_with_fields_of_the_wrong_type(world, name, change):
    """A field of the wrong type is absent: windowctl decides on the rest, writes only to the
    object it asked for, records the Event on that object, and says so."""
    world.srv.on("GET", OBJ, H.mutated(change))
    s = world.run("status", *TWO, name=f"{name} status")
    check(s, 0, bound(0))
    assert [line.split()[:2] for line in s.out_lines[1:]] == [["flux-system", "apps-rw"], ["flux-system", "infra"]]
    assert world.srv.patches == []

    r = world.run("close", *TWO, name=f"{name} close")
    if name in NO_RESOURCE_VERSION:
        # Every write is conditional on the resourceVersion it was decided on; without one there
        # is no safe write. That target fails alone, untouched.
        check(r, 1, bound(0), r"the object as read has no resourceVersion, so no write can be conditional on it")
        assert r.out_lines[1:] == ["flux-system/infra closed"]
        assert [p["name"] for p in world.srv.patches] == ["infra"]
        assert [e["involvedObject"]["name"] for e in world.srv.events] == ["infra"]
        return
    check(r, 0, bound(0))
    # An override annotation that is there but unreadable is dropped with the close, as any override.
    verdict = "closed, override cleared" if name.startswith("annotation-override") else "closed"
    assert r.out_lines == [f"flux-system/apps-rw {verdict}", "flux-system/infra closed"]
    assert sorted(p["name"] for p in world.srv.applied_patches()) == ["apps-rw", "infra"]
    assert closed_by_windowctl(world.srv.get("apps-rw")) and closed_by_windowctl(world.srv.get("infra"))
    # The Events name the objects windowctl asked for, in their namespace, whatever the answer said.
    assert sorted((e["involvedObject"]["namespace"], e["involvedObject"]["name"], e["metadata"]["namespace"])
                  for e in world.srv.events) == [(NS, "apps-rw", NS), (NS, "infra", NS)]


# What --wait reads decides readiness; a field it reads only to show (message, reason, the
# revision) being of the wrong type does not make a Ready object unready.
READINESS_TYPES = [t for t in OBJECT_TYPES if t[0].startswith(("status", "condition", "metadata.generation"))]
SHOWN_ONLY = {"condition.message-object", "condition.reason-list", "status.lastAppliedRevision-object"}


@pytest.mark.parametrize("name,change", READINESS_TYPES, ids=[t[0] for t in READINESS_TYPES])
def test_wait_on_readiness_fields_of_the_wrong_type(world, name, change):
    world.srv.put(H.kustomization("apps-rw", suspend=True, annotations={"windowctl.io/suspended-by": "windowctl"}))
    world.srv.on("GET", OBJ, H.emulate(), count=1)
    world.srv.on("GET", OBJ, H.mutated(change))
    r = world.run("open", "--kustomizations", "apps-rw", "--wait", "--timeout", "1s", "--poll-interval", "200ms",
                  name=f"{name} wait")
    if name in SHOWN_ONLY:
        check(r, 0, bound(0))
        assert r.out_lines == ["flux-system/apps-rw opened, ready"]
    else:
        check(r, 1, bound(0) + 1, r"wait failed: not ready within 1s")
        assert r.out_lines == ["flux-system/apps-rw opened, wait failed: not ready within 1s"]
    assert world.srv.get("apps-rw")["spec"].get("suspend") is None  # the open itself landed
    assert world.srv.event_reasons() == ["WindowOpened"]


def test_wait_succeeds_against_the_honest_emulation(world):
    # The control for the two tests above: the same wait, no mutation, is ready.
    world.srv.put(H.kustomization("apps-rw", suspend=True, annotations={"windowctl.io/suspended-by": "windowctl"}))
    r = world.run("open", "--kustomizations", "apps-rw", "--wait", "--timeout", "5s", "--poll-interval", "200ms")
    check(r, 0, bound(0))
    assert r.out_lines == ["flux-system/apps-rw opened, ready"]


@pytest.mark.parametrize("name,change,verdict,writes", [
    # A mark that is not the string windowctl writes is not windowctl's: held, nothing written.
    ("suspended-by-number", ann("windowctl.io/suspended-by", 5), "held: suspended by someone else", 0),
    # spec.suspend "true" is not true: the object runs, and open clears the marks it still has.
    ("suspend-string", setter(["spec", "suspend"], "true"), "already open, stale marks cleared", 1),
], ids=["suspended-by-number", "suspend-string"])
def test_open_reads_marks_of_the_wrong_type_as_absent(world, name, change, verdict, writes):
    world.srv.put(H.kustomization("apps-rw", suspend=True, annotations={"windowctl.io/suspended-by": "windowctl"}))
    world.srv.on("GET", OBJ, H.mutated(change))
    r = world.run("open", "--kustomizations", "apps-rw", name=f"{name} open")
    check(r, 0, bound(0))
    assert r.out_lines == [f"flux-system/apps-rw {verdict}"]
    assert len(world.srv.applied_patches()) == writes
    if writes:
        assert set(world.srv.patches[0]["body"]) == {"metadata"}  # marks only: spec is not touched


def test_sync_with_a_window_annotation_of_the_wrong_type_uses_the_flags(world):
    world.srv.on("GET", OBJ, H.mutated(ann("windowctl.io/window", 7)))
    r = world.run("sync", "--kustomizations", "apps-rw", "--window", "0 0 1 1 * for 1m", name="sync window-number")
    check(r, 0, bound(0))
    assert r.out_lines == ["flux-system/apps-rw closed"]


PATCH_ANSWERS = [
    ("patch-answer-list", lambda o: [o]),
    ("patch-answer-string", lambda o: "ok"),
    ("patch-answer-other-object", setter(["metadata", "name"], "infra")),
    ("patch-answer-other-namespace", setter(["metadata", "namespace"], "kube-system")),
    ("patch-answer-metadata-number", setter(["metadata"], 5)),
]


@pytest.mark.parametrize("name,change", PATCH_ANSWERS, ids=[t[0] for t in PATCH_ANSWERS])
def test_a_patch_answer_of_the_wrong_shape_still_reports_the_write(world, name, change):
    world.srv.on("PATCH", OBJ, H.mutated(change))
    r = world.run("close", *TWO, name=name)
    check(r, 0, bound(0))
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert closed_by_windowctl(world.srv.get("apps-rw"))
    assert sorted((e["involvedObject"]["namespace"], e["involvedObject"]["name"], e["metadata"]["namespace"])
                  for e in world.srv.events) == [(NS, "apps-rw", NS), (NS, "infra", NS)]


def test_a_patch_answer_that_is_not_json_is_checked_by_reading_again(world):
    world.srv.on("PATCH", OBJ, H.respond(200, b"<html>ok</html>"))
    # The rule answers without carrying the PATCH out: windowctl must not claim it landed.
    r = world.run("close", *TWO, name="patch-answer-html")
    check(r, 1, bound(1), r"not JSON.*did not land")
    assert r.out_lines[1] == "flux-system/infra closed"
    assert not world.srv.get("apps-rw")["spec"].get("suspend")


DISCOVERY = [
    ("versions-string", {"kind": "APIGroup", "versions": "v1", "preferredVersion": "v1"}),
    ("version-number", {"kind": "APIGroup", "versions": [{"version": 1}], "preferredVersion": {"version": 1}}),
    ("version-list", {"kind": "APIGroup", "versions": [{"version": ["v1"]}], "preferredVersion": {"version": ["v1"]}}),
    ("preferred-path", {"kind": "APIGroup", "versions": [], "preferredVersion": {"version": "v1/namespaces/x"}}),
    ("versions-null", {"kind": "APIGroup", "versions": None, "preferredVersion": None}),
    ("group-list", [{"versions": [{"version": "v1"}]}]),
    ("group-number", 5),
]


@pytest.mark.parametrize("name,body", DISCOVERY, ids=[d[0] for d in DISCOVERY])
def test_discovery_of_the_wrong_type_fails_every_target_and_writes_nothing(world, name, body):
    world.srv.on("GET", GROUP_PATH, H.with_body(body))
    r = world.run("close", *TWO, name=f"discovery {name}")
    check(r, 1, bound(0), r"serves no version")
    assert r.out_lines == ["flux-system/apps-rw failed: the server serves no version of kustomize.toolkit.fluxcd.io",
                           "flux-system/infra failed: the server serves no version of kustomize.toolkit.fluxcd.io"]
    assert world.srv.patches == []


STATUS_BODIES = [
    ("message-object", 403, {"kind": "Status", "message": {"nested": 1}, "reason": ["Forbidden"], "code": "403",
                             "details": "none"}, r"forbidden"),
    ("message-number", 422, {"kind": "Status", "message": 5, "reason": 5, "code": None, "details": []}, r"invalid"),
    ("kind-list", 403, {"kind": ["Status"], "message": "x"}, r"forbidden"),
    ("not-json-proxy-page", 403, b"<html><body>Access denied by proxy</body></html>", r"forbidden"),
    ("message-multiline-escapes", 403, {"kind": "Status", "reason": "Forbidden", "code": 403,
                                        "message": "line one\nerror flux-system/infra: fake line\r\x1b[31mred\x1b[0m\x07"},
     r"forbidden: line one"),
    ("proxy-page-escapes", 502, b"\x1b]0;pwned\x07\x1b[2J<html>bad gateway</html>", r"HTTP 502|internal error"),
]


@pytest.mark.parametrize("name,code,body,needle", STATUS_BODIES, ids=[s[0] for s in STATUS_BODIES])
def test_a_status_of_the_wrong_shape_is_one_clear_line(world, name, code, body, needle):
    world.srv.on("PATCH", OBJ, H.respond(code, body))
    r = world.run("close", *TWO, name=f"status {name}")
    check(r, 1, bound(1), needle)
    assert r.out_lines[1] == "flux-system/infra closed"
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", r.out), repr(r.out)
    assert len(r.out_lines) == 2
    assert [p["name"] for p in world.srv.applied_patches()] == ["infra"]


# --- LIST pages of the wrong shape ---------------------------------------------------------------

def page(items, **meta):
    return {"kind": "KustomizationList", "apiVersion": f"{H.GROUP}/v1", "metadata": meta, "items": items}


def listed(name, **kw):
    return H.kustomization(name, **kw)


LISTS = [
    ("items-object", page({"a": listed("apps-rw")}), 1, r"items is an object, not a list", []),
    ("items-string", page("apps-rw"), 1, r"items is a string, not a list", []),
    # Items that are not objects with a name make the answer malformed: none of it is acted on.
    ("items-scalars", page([5, "apps-rw", None, [], {"metadata": 5}, {"metadata": {"name": 7}}, listed("apps-rw")]), 1,
     r"item 1 is a number, not an object", []),
    ("items-bad-names", page([listed("../secrets"), listed("apps-rw", ns="flux-system/x"), listed("apps-rw")]), 1,
     r"not a valid Kubernetes name", ["apps-rw"]),
    ("continue-number", page([listed("apps-rw")], **{"continue": 5}), 0, None, ["apps-rw"]),
    ("continue-object", page([listed("apps-rw")], **{"continue": {"t": "x"}}), 0, None, ["apps-rw"]),
    ("metadata-list", {"kind": "KustomizationList", "metadata": ["continue"], "items": [listed("apps-rw")]}, 0, None,
     ["apps-rw"]),
    ("continue-repeats", page([listed("apps-rw")], **{"continue": "same"}), 1, r"repeats its continue token", ["apps-rw"]),
    ("page-is-list", [listed("apps-rw")], 1, r"not an object", []),
]


@pytest.mark.parametrize("name,body,code,needle,closed", LISTS, ids=[x[0] for x in LISTS])
def test_a_list_of_the_wrong_shape(world, name, body, code, needle, closed):
    world.srv.on("GET", LIST, H.with_body(body))
    r = world.run("close", "--all", name=f"list {name}")
    check(r, code, bound(0), needle, target=None)
    assert sorted(p["name"] for p in world.srv.applied_patches()) == closed
    assert [line.rsplit(" ", 1)[0] for line in r.out_lines] == [f"flux-system/{n}" for n in closed]


def without(*path):
    def change(body):
        cur = body
        for key in path[:-1]:
            cur = cur[key]
        del cur[path[-1]]
        return body
    return change


# A LIST answer that is not a list of named objects. windowctl took several for an empty
# selection ("no kustomizations in namespace flux-system matches --all") and acted on the items
# around a nameless one: the answer is named as malformed, and none of its items is acted on.
# The honest answer lists apps-rt, apps-rw and infra: item 2 is apps-rw.
MALFORMED_LISTS = [
    ("items-object", lambda b: dict(b, items={"apps-rw": b["items"][1]}), r"items is an object, not a list"),
    ("items-string", setter(["items"], "apps-rw"), r"items is a string, not a list"),
    ("items-null", setter(["items"], None), r"items is null, not a list"),
    ("items-missing", without("items"), r"has no items"),  # the API server sends "items": [] for none
    ("item-without-metadata", without("items", 1, "metadata"), r"item 2 has no metadata$"),
    ("name-number", setter(["items", 1, "metadata", "name"], 7),
     r"item 2 has a metadata.name that is a number, not a string"),
]
MORE_MALFORMED_LISTS = [
    ("item-number", setter(["items", 1], 5), r"item 2 is a number, not an object"),
    ("metadata-string", setter(["items", 1, "metadata"], "apps-rw"),
     r"item 2 has a metadata that is a string, not an object"),
    ("name-missing", without("items", 1, "metadata", "name"), r"item 2 has no metadata.name"),
    ("name-null", setter(["items", 1, "metadata", "name"], None),
     r"item 2 has a metadata.name that is null, not a string"),
    ("name-empty", setter(["items", 1, "metadata", "name"], ""), r"item 2 has an empty metadata.name"),
    ("namespace-number", setter(["items", 1, "metadata", "namespace"], 7),
     r"item 2 has a metadata.namespace that is a number, not a string"),
]
SELECTING = [
    ("close --all", ["close", "--all"], "in namespace flux-system"),
    ("close -l", ["close", "-l", "tier=web"], "in namespace flux-system"),
    ("status", ["status"], "in namespace flux-system"),
    ("sync -l", ["sync", "-l", "tier=web", "--window", "0 0 1 1 * for 1m"], "in namespace flux-system"),
    ("close -A --all", ["close", "-A", "--all"], "in all namespaces"),
]
MALFORMED_RUNS = ([(b, c) for b in MALFORMED_LISTS for c in SELECTING] +
                  [(b, SELECTING[0]) for b in MORE_MALFORMED_LISTS])


@pytest.mark.parametrize("body,command", MALFORMED_RUNS, ids=[f"{b[0]}-{c[0]}" for b, c in MALFORMED_RUNS])
def test_a_malformed_list_answer_is_named_and_nothing_of_it_is_acted_on(world, body, command):
    (name, change, needle), (label, args, where) = body, command
    for n in ("apps-rt", "apps-rw", "infra"):
        world.srv.put(H.kustomization(n, labels={"tier": "web"}))
    world.srv.on("GET", LIST, H.mutated(change))
    r = world.run(*args, name=f"malformed list {name} {label}")
    check(r, 1, bound(0), target=None)
    (line,) = r.errors()
    assert f" error listing kustomizations {where}: bad response: the LIST answer" in line, line
    assert re.search(needle, line), line
    assert "matches" not in r.err
    assert world.srv.patches == [] and world.srv.events == []
    assert not any(n in r.out for n in ("apps-rt", "apps-rw", "infra")), r.out


def test_a_malformed_list_fails_its_selection_and_the_named_targets_of_other_kinds_are_processed(world):
    world.srv.put(H.helmrelease("podinfo"))
    for n in ("apps-rt", "apps-rw"):
        world.srv.put(H.kustomization(n, labels={"tier": "web"}))
    world.srv.on("GET", LIST, H.mutated(without("items", 1, "metadata")))
    r = world.run("close", "-l", "tier=web", "--targets", "helmrelease/podinfo,kustomization/infra",
                  name="malformed list mixed")
    check(r, 1, bound(0), target=None)
    (line,) = r.errors()
    assert line.endswith("listing kustomizations in namespace flux-system: bad response: the LIST answer's item 2 has "
                         "no metadata"), line
    assert r.out_lines == ["helmrelease/flux-system/podinfo closed", "kustomization/flux-system/infra closed"], r.out
    assert sorted(p["name"] for p in world.srv.applied_patches()) == ["infra", "podinfo"]
    assert closed_by_windowctl(world.srv.get("podinfo", plural="helmreleases"))
    assert not world.srv.get("apps-rt")["spec"].get("suspend")


def test_a_malformed_page_after_a_sound_one_fails_alone(world):
    """Pages are parsed as they come: the first page's objects are acted on, the malformed second
    page is refused whole (its sound first item too), and the run says which answer was wrong."""
    def pages(srv, req):
        if not req.query.get("continue"):
            return page([listed("apps-rt")], **{"continue": "p2"})
        return page([listed("apps-rw"), {"spec": {"suspend": False}}])
    world.srv.on("GET", LIST, H.computed(pages))
    r = world.run("close", "--all", name="malformed second page")
    check(r, 1, bound(0), target=None)
    (line,) = r.errors()
    assert line.endswith("listing kustomizations in namespace flux-system: bad response: the LIST answer's item 2 has "
                         "no metadata"), line
    assert r.out_lines == ["flux-system/apps-rt closed"]
    assert [p["name"] for p in world.srv.applied_patches()] == ["apps-rt"]
    lists = [q for q in world.srv.requests if q["path"].endswith("/kustomizations")]
    assert [q["query"].get("continue") for q in lists] == [None, "p2"]


def test_an_empty_list_is_an_empty_selection(world):
    """"items": [] is the API server's empty answer: a selection that matched nothing, said as such."""
    r = world.run("close", "-l", "tier=none", name="empty list")
    check(r, 1, bound(0), r"no kustomizations in namespace flux-system matches selector \"tier=none\"", target=None)
    r = world.run("status", "-l", "tier=none", name="empty list status")
    check(r, 0, bound(0))


def test_a_list_that_never_ends_stops_at_the_page_cap(world):
    counter = iter(range(10 ** 9))
    world.srv.on("GET", LIST, H.computed(lambda srv, req: page([], **{"continue": f"t{next(counter)}"})))
    r = world.run("status", name="list endless pages")
    check(r, 1, 60, r"beyond 4000 pages", target=None)
    assert len([q for q in world.srv.requests if q["path"].endswith("/kustomizations")]) == 4000


# --- 100,000 objects ----------------------------------------------------------------------------

# 100,000 for the release binary, whose peak RSS is the point; the sanitizer build runs the same
# pages and paths with 10,000 (at -O0 under ASan, 100,000 would cost CI minutes and prove no more).
def bulk_count():
    return 10_000 if sanitized() else 100_000


def bulk_item(i):
    name = f"bulk-{i:06d}"
    return {"apiVersion": f"{H.GROUP}/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": NS, "uid": f"u-{i}", "resourceVersion": str(10 + i), "generation": 1,
                         "labels": {"tier": "bulk"},
                         "annotations": {"windowctl.io/suspended-by": "windowctl",
                                         "windowctl.io/suspended-at": "2026-01-01T00:00:00Z",
                                         "kubectl.kubernetes.io/last-applied-configuration": "x" * 300},
                         "managedFields": [{"manager": "kustomize-controller", "operation": "Apply",
                                            "fieldsV1": {"f:spec": {"f:interval": {}, "f:path": {}}}}]},
            "spec": {"interval": "10m", "path": f"./apps/{i}", "prune": True, "suspend": True,
                     "sourceRef": {"kind": "GitRepository", "name": "flux-system"}},
            "status": {"observedGeneration": 1, "lastAppliedRevision": "main@sha1:0123abcd",
                       "inventory": {"entries": [{"id": f"default_app-{i}_apps_Deployment", "v": "v1"}] * 3},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded",
                                       "message": "Applied revision: main@sha1:0123abcd", "observedGeneration": 1}]}}


def test_a_list_of_100000_objects_is_read_in_pages_with_bounded_memory(world):
    n = bulk_count()
    world.srv.generate_list(n, bulk_item)
    r = world.run("close", "-l", "tier=bulk", rt="30s", name=f"list {n}")
    check(r, 0, 90)
    assert len(r.out_lines) == n
    assert r.out_lines[0] == "flux-system/bulk-000000 already closed"
    assert r.out_lines[-1] == f"flux-system/bulk-{n - 1:06d} already closed"
    assert world.srv.patches == [] and world.srv.events == []
    assert len(world.srv.list_pages) == n // 500
    assert all(limit == 500 for limit, _ in world.srv.list_pages)


# --- resets before and after a PATCH lands ------------------------------------------------------

def test_a_reset_before_the_patch_lands_is_retried_once_and_lands_once(world):
    world.srv.on("PATCH", OBJ, H.reset(), count=1)
    r = world.run("close", *TWO, name="reset-before-once")
    check(r, 0, bound(1))
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert [p["applied"] for p in world.srv.patches if p["name"] == "apps-rw"] == [False, True]
    assert world.srv.event_reasons() == ["WindowClosed"] * 2


def test_resets_before_every_patch_fail_saying_nothing_landed(world):
    world.srv.on("PATCH", OBJ, H.reset())
    r = world.run("close", *TWO, name="reset-before-always")
    check(r, 1, bound(2), r"did not land: nothing changed")
    assert r.out_lines[1] == "flux-system/infra closed"
    assert [p["applied"] for p in world.srv.patches if p["name"] == "apps-rw"] == [False] * ATTEMPTS
    assert not world.srv.get("apps-rw")["spec"].get("suspend")
    assert world.srv.event_reasons() == ["WindowClosed"]  # infra's only


@pytest.mark.parametrize("count", [1, None], ids=["once", "always"])
def test_a_reset_after_the_patch_landed_reports_the_truth(world, count):
    world.srv.on("PATCH", OBJ, H.reset(apply_first=True), count=count)
    r = world.run("close", *TWO, "--reason", "freeze", name=f"reset-after-{count}")
    check(r, 0, bound(2))
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert "it landed" in r.err
    assert sum(p["applied"] for p in world.srv.patches if p["name"] == "apps-rw") == 1
    obj = world.srv.get("apps-rw")
    assert closed_by_windowctl(obj) and obj["metadata"]["annotations"]["windowctl.io/reason"] == "freeze"
    assert sorted(e["involvedObject"]["name"] for e in world.srv.events) == ["apps-rw", "infra"]


def test_a_reset_after_the_patch_landed_and_no_reread_says_unknown(world):
    world.srv.on("GET", OBJ, H.emulate(), count=1)
    world.srv.on("GET", OBJ, H.api_status(500, "InternalError", "etcd is gone"))
    world.srv.on("PATCH", OBJ, H.reset(apply_first=True))
    r = world.run("close", *TWO, name="reset-after-unknown")
    check(r, 1, bound(2), r"whether it landed is unknown")
    assert r.out_lines[1] == "flux-system/infra closed"
    assert sum(p["applied"] for p in world.srv.patches if p["name"] == "apps-rw") == 1


def test_a_cut_answer_once_is_retried_and_lands_once(world):
    world.srv.on("PATCH", OBJ, H.partial_then_close(), count=1)  # carried out, half the answer lost
    r = world.run("close", *TWO, name="cut-patch-answer-once")
    check(r, 0, bound(1))
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert sum(p["applied"] for p in world.srv.patches if p["name"] == "apps-rw") == 1
    assert sorted(e["involvedObject"]["name"] for e in world.srv.events) == ["apps-rw", "infra"]


def test_a_reset_after_the_event_landed_is_not_a_second_event(world):
    world.srv.on("POST", r"/events$", H.reset(apply_first=True), count=1)
    r = world.run("close", "--kustomizations", "apps-rw", name="event-reset-after")
    check(r, 0, bound(1))
    assert r.out_lines == ["flux-system/apps-rw closed"]
    assert world.srv.event_reasons() == ["WindowClosed"]
    assert "could not record" not in r.err, r.err


def test_resets_on_every_read_fail_clearly(world):
    world.srv.on("GET", OBJ, H.reset())
    r = world.run("close", *TWO, name="reset-get-always")
    check(r, 1, bound(1), r"unreachable: connection")
    assert r.out_lines[1] == "flux-system/infra closed"
    assert [p["name"] for p in world.srv.applied_patches()] == ["infra"]


# --- 429 / 503 storms ----------------------------------------------------------------------------

STORMS = [
    # name, status, Retry-After header, Status details, min seconds, needle
    ("429-retry-after-1", 429, "1", None, 4.0, r"too many requests"),
    ("503-retry-after-1", 503, "1", None, 4.0, r"service unavailable"),
    ("429-retry-after-3600", 429, "3600", None, 0, r"too many requests.*3600"),
    ("429-retry-after-huge", 429, "99999999999999999999", None, 0, r"too many requests"),
    ("503-retry-after-garbage", 503, "soon", None, 0, r"service unavailable"),
    ("503-retry-after-negative", 503, "-5", None, 0, r"service unavailable"),
    ("503-retry-after-http-date", 503, "Wed, 21 Oct 2015 07:28:00 GMT", None, 0, r"service unavailable"),
    ("429-details-string", 429, None, {"retryAfterSeconds": "soon"}, 0, r"too many requests"),
    ("429-details-huge", 429, None, {"retryAfterSeconds": 10 ** 30}, 0, r"too many requests"),
    ("429-details-negative", 429, None, {"retryAfterSeconds": -1}, 0, r"too many requests"),
]


@pytest.mark.parametrize("name,code,header,details,min_s,needle", STORMS, ids=[s[0] for s in STORMS])
def test_a_storm_of_429_or_503_gives_up_within_the_policy(world, name, code, header, details, min_s, needle):
    reason = "TooManyRequests" if code == 429 else "ServiceUnavailable"
    body = H.status_body(code, reason, "slow down", details)
    world.srv.on("PATCH", OBJ, H.respond(code, body, [("Retry-After", header)] if header else []))
    r = world.run("close", *TWO, name=f"storm {name}")
    ra = int(header) if header and header.isdigit() and int(header) < BUDGET_S else None
    check(r, 1, bound(1, retry_after=ra), needle)
    assert r.seconds >= min_s
    assert r.out_lines[1] == "flux-system/infra closed"
    assert [p["name"] for p in world.srv.applied_patches()] == ["infra"]
    assert sends(world, "PATCH", "apps-rw") == (1 if header == "3600" else ATTEMPTS)


def test_a_short_storm_then_the_answer(world):
    world.srv.on("PATCH", OBJ, H.api_status(429, "TooManyRequests", retry_after=0), count=3)
    r = world.run("close", *TWO, name="storm-then-ok")
    check(r, 0, bound(1))
    assert r.out_lines == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert sends(world, "PATCH", "apps-rw") == 4
    assert [p["applied"] for p in world.srv.patches if p["name"] == "apps-rw"] == [True]


def test_a_storm_on_every_request_fails_every_target_in_bounded_time(world):
    world.srv.on("*", ".*", H.api_status(503, "ServiceUnavailable", retry_after="soon"))
    r = world.run("close", *TWO, name="storm-everything")
    check(r, 1, bound(3), r"service unavailable")
    assert world.srv.patches == []


# --- redirects ------------------------------------------------------------------------------------

@pytest.fixture
def bait(pki):
    """A server at another address that a followed redirect would reach."""
    srv = H.HostileServer(pki, host="127.0.0.2").start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("code", [301, 302, 307, 308])
@pytest.mark.parametrize("where", ["discovery", "get", "patch"])
def test_a_redirect_is_never_followed(world, bait, code, where):
    method, pattern = {"discovery": ("GET", GROUP_PATH), "get": ("GET", OBJ), "patch": ("PATCH", OBJ)}[where]
    world.srv.on(method, pattern, H.redirect(code, f"https://127.0.0.2:{bait.port}/steal?x=\x1b[31m"))
    r = world.run("close", *TWO, name=f"redirect {code} {where}")
    check(r, 1, bound(0), r"redirect")
    assert "does not follow redirects" in r.err
    assert bait.connections == 0
    applied = [p["name"] for p in world.srv.applied_patches()]
    assert applied == ([] if where == "discovery" else ["infra"])


# --- TLS -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("tls,needle", [
    ("wrong-ca", r"is not trusted"),
    ("wrong-host", r"is not trusted"),
    ("expired", r"is not trusted: certificate has expired"),
    ("garbage", r"TLS handshake with 127.0.0.1:\d+ failed: the server does not speak TLS"),
    ("alert", r"TLS handshake with 127.0.0.1:\d+ failed: the server refused it with TLS alert \"handshake failure\""),
    ("plain-http", r"TLS handshake with 127.0.0.1:\d+ failed: the server does not speak TLS"),
])
def test_tls_failures_are_configuration_errors(pki, tmp_path, tls, needle):
    w = World(pki, tmp_path, tls=tls)
    try:
        r = w.run("close", *TWO, name=f"tls {tls}")
        check(r, 2, bound(0), needle, target=None)
        assert len(r.err_lines) == 1, r.err
        assert r.out == ""
        assert w.srv.requests == [] and w.srv.patches == []
    finally:
        w.stop()


def test_a_server_that_never_speaks_tls_times_out_within_the_policy(pki, tmp_path):
    w = World(pki, tmp_path, tls="silent")
    try:
        r = w.run("close", *TWO, rt="500ms", name="tls silent")
        check(r, 1, bound(1, rt=0.5), r"timed out .*TLS handshake", target=None)
        assert w.srv.connections == ATTEMPTS
    finally:
        w.stop()


@pytest.fixture(scope="module", autouse=True)
def print_peaks():
    yield
    if PEAKS:
        top = sorted(PEAKS.items(), key=lambda kv: -kv[1])[:8]
        print("\npeak RSS (MiB), highest runs: " + ", ".join(f"{k}: {v:.1f}" for k, v in top))


def test_a_server_that_stops_speaking_tls_mid_run_is_not_a_configuration_error(world):
    # apps-rw's PATCH lands, its answer is lost, and from then on the server answers handshakes
    # with garbage. Exit 2 would say "nothing was changed": a lie once a write landed. A refused
    # handshake is exit 2 only when the server never spoke TLS in this run (the tests above).
    def land_then_garble(srv, conn, req):
        srv.emulate(req, answered=False)
        srv.tls = "garbage"
        conn.reset()
        return False
    world.srv.on("PATCH", OBJ, land_then_garble, count=1)
    r = world.run("close", *TWO, name="tls garbage mid-run")
    check(r, 1, bound(3), r"whether it landed is unknown")
    assert r.out_lines[0].startswith("flux-system/apps-rw failed: ")
    assert r.out_lines[1].startswith("flux-system/infra failed: unreachable: TLS handshake with 127.0.0.1:")
    assert r.out_lines[1].endswith("(it completed a handshake earlier in this run)")
    assert [p["name"] for p in world.srv.applied_patches()] == ["apps-rw"]
