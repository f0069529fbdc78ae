"""A hostile Kubernetes API server for windowctl's e2e tests.

It speaks raw bytes over TLS (a plain socket server wrapped with `ssl`, never http.server, which
would normalise framing), so a rule can send anything: garbage, a header a byte a second, endless
or overflowing chunks, 1xx answers, resets before or after a PATCH lands, redirects, Status bodies
of the wrong shape. Requests no rule takes are answered by a small, honest emulation of the
Kubernetes API (discovery, GET, merge PATCH with the resourceVersion precondition, paged LIST,
Event POST), enough for windowctl to reach the step under attack.

It shares no code with windowctl and none with tests/fakeapi except that package's certificate
helper (tests/fakeapi/fakekube/certs.py), used for the test CA and server certificates.

    pki = HostilePki(directory)                # CA, server certs: good, expired, wrong name, other CA
    srv = HostileServer(pki, tls="good").start()
    srv.put(obj)                               # objects served by the emulation
    srv.on("PATCH", r"/apps-rw$", reset(apply_first=True), count=1)
    ... run windowctl against 127.0.0.1:srv.port with pki.ca_path as its CA ...
    srv.patches  # [{"name", "body", "applied", "answered"}]; srv.events; srv.requests
    srv.stop()
"""

import base64
import copy
import json
import os
import random
import re
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_REPO, "tests", "fakeapi"))

from fakekube.certs import Pki  # noqa: E402  (the only thing shared with the fake: its PKI helper)

GROUP = "kustomize.toolkit.fluxcd.io"
VERSION = "v1"
PLURAL = "kustomizations"
# The kinds the emulation serves: plural -> (group, version, kind). A second kind, in a group of
# its own, is for runs that name targets of several kinds (--targets).
KINDS = {PLURAL: (GROUP, VERSION, "Kustomization"), "helmreleases": ("helm.toolkit.fluxcd.io", "v2", "HelmRelease")}
MAX_REQUEST_HEAD = 64 * 1024


# --- certificates ----------------------------------------------------------------------------

_CA_CONF = """[ca]
default_ca = d
[d]
database = {dir}/index.txt
serial = {dir}/serial
new_certs_dir = {dir}
default_md = sha256
policy = p
copy_extensions = none
x509_extensions = ext
unique_subject = no
[p]
commonName = supplied
[ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = {sans}
"""


def _openssl(*args, cwd):
    proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)}: {proc.stderr.strip()}")


class HostilePki:
    """The CA windowctl trusts, its good server certificate (127.0.0.1, localhost), and the bad
    ones: expired, issued for another name, issued by another CA. Made once per directory."""

    def __init__(self, directory):
        self.dir = os.path.abspath(directory)
        self.trusted = Pki(os.path.join(self.dir, "trusted"))
        self.other = Pki(os.path.join(self.dir, "other"))  # a CA windowctl does not trust
        self.ca_path = self.trusted.ca_cert
        self.certs = {
            "good": (self.trusted.server_cert, self.trusted.server_key),
            "wrong-ca": (self.other.server_cert, self.other.server_key),
            "expired": self._issue("expired", "IP:127.0.0.1,DNS:localhost", "20200101000000Z", "20200201000000Z"),
            "wrong-host": self._issue("wrong-host", "DNS:elsewhere.example.test", None, None),
        }

    def _issue(self, stem, sans, start, end):
        d = os.path.join(self.dir, stem)
        crt, key = os.path.join(d, "server.crt"), os.path.join(d, "server.key")
        if os.path.exists(crt) and os.path.exists(key):
            return crt, key
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "index.txt"), "w"):
            pass
        with open(os.path.join(d, "serial"), "w") as f:
            f.write("%016X\n" % random.getrandbits(63))
        conf = os.path.join(d, "ca.cnf")
        with open(conf, "w") as f:
            f.write(_CA_CONF.format(dir=d, sans=sans))
        _openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", "server.csr",
                 "-subj", "/CN=kube-apiserver", cwd=d)
        dates = ["-startdate", start, "-enddate", end] if start else ["-days", "365"]
        _openssl("ca", "-batch", "-config", conf, "-cert", self.trusted.ca_cert, "-keyfile", self.trusted.ca_key,
                 "-in", "server.csr", "-out", crt, "-notext", *dates, cwd=d)
        return crt, key


# --- requests and raw answers ----------------------------------------------------------------

class Request:
    def __init__(self, method, target, headers, body):
        self.method = method
        self.target = target
        url = urllib.parse.urlsplit(target)
        self.path = url.path
        self.query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        self.headers = headers
        self.body = body

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None


REASONS = {100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints", 200: "OK",
           201: "Created", 301: "Moved Permanently", 302: "Found", 307: "Temporary Redirect",
           308: "Permanent Redirect", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 422: "Unprocessable Entity",
           429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}


def head(status, headers=(), reason=None):
    lines = [f"HTTP/1.1 {status} {reason if reason is not None else REASONS.get(status, 'Whatever')}"]
    lines += [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def answer(status, body, headers=()):
    """One complete HTTP/1.1 answer: JSON (dict, list, ...) or bytes, with Content-Length."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return head(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *headers]) + data


def status_body(code, reason, message, details=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}
    if details is not None:
        body["details"] = details
    return body


class Closed(Exception):
    """The client went away while a rule was still sending."""


class Conn:
    """One accepted connection (TLS-wrapped or raw), with the bytes read ahead of a request."""

    def __init__(self, server, sock):
        self.server = server
        self.sock = sock
        self.buf = b""

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (OSError, ssl.SSLError) as e:
            raise Closed() from e

    def drip(self, chunks, period):
        """Sends each chunk `period` seconds apart until the client leaves or the server stops."""
        for chunk in chunks:
            if self.server.stopping.is_set():
                raise Closed()
            self.send(chunk)
            if period:
                time.sleep(period)

    def reset(self):
        """A TCP reset (SO_LINGER 0), without a TLS close_notify."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _recv(self):
        while not self.server.stopping.is_set():
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, ssl.SSLWantReadError):
                continue
            except (OSError, ssl.SSLError):
                return b""
            return data
        return b""

    def read_request(self):
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > MAX_REQUEST_HEAD:
                return None
            data = self._recv()
            if not data:
                return None
            self.buf += data
        head_bytes, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head_bytes.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return None
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        length = int(headers.get("content-length", "0") or 0)
        while len(self.buf) < length:
            data = self._recv()
            if not data:
                return None
            self.buf += data
        body, self.buf = self.buf[:length], self.buf[length:]
        return Request(parts[0], parts[1], headers, body)


# --- rules: what to do with a request ---------------------------------------------------------
# A rule is a function (server, conn, request) -> bool: True keeps the connection for the next
# request, False closes it. They are built by the functions below.

def emulate():
    """The honest answer (what no rule is also answered with)."""
    def rule(srv, conn, req):
        conn.send(srv.emulate(req))
        return True
    return rule


def raw(data, keep=False):
    """Exactly these bytes, then close (or keep the connection)."""
    def rule(srv, conn, req):
        conn.send(data)
        return keep
    return rule


def garbage(n=4096, seed=1):
    data = random.Random(seed).randbytes(n)
    return raw(data)


def slowloris(period=1.0):
    """A status line, then a header one byte each `period` seconds, never finished."""
    def rule(srv, conn, req):
        conn.send(b"HTTP/1.1 200 OK\r\n")
        conn.drip(iter(lambda: b"X", None), period)
        return False
    return rule


def endless_chunks(chunk=16384):
    """Chunked 200 whose chunks never end."""
    def rule(srv, conn, req):
        conn.send(head(200, [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
        piece = b"%x\r\n" % chunk + b" " * chunk + b"\r\n"
        conn.send(b"1\r\n{\r\n")
        conn.drip(iter(lambda: piece, None), 0)
        return False
    return rule


def overflowing_chunk(size_hex="fffffffffffffff0"):
    """A first honest chunk, then a chunk size near 2^64 (or beyond it), then bytes for ever."""
    def rule(srv, conn, req):
        conn.send(head(200, [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
        conn.send(b"10\r\n" + b'{"kind":"Kustom' + b"\r\n")
        conn.send(size_hex.encode() + b"\r\n")
        piece = b"A" * 65536
        conn.drip(iter(lambda: piece, None), 0)
        return False
    return rule


def huge_header(line_bytes=None):
    """A header line that never ends (or is `line_bytes` long)."""
    def rule(srv, conn, req):
        conn.send(b"HTTP/1.1 200 OK\r\nX-Huge: ")
        if line_bytes:
            conn.send(b"h" * line_bytes + b"\r\nContent-Length: 2\r\n\r\n{}")
            return False
        conn.drip(iter(lambda: b"h" * 65536, None), 0)
        return False
    return rule


def many_headers():
    """Short headers for ever."""
    def rule(srv, conn, req):
        conn.send(b"HTTP/1.1 200 OK\r\n")
        block = b"".join(b"X-%d: v\r\n" % i for i in range(1000))
        conn.drip(iter(lambda: block, None), 0)
        return False
    return rule


def interim(*codes, repeat=1):
    """1xx interim answers, then the honest answer, on the same stream."""
    def rule(srv, conn, req):
        out = b""
        for _ in range(repeat):
            for code in codes:
                extra = [("Link", "</style.css>; rel=preload; as=style")] if code == 103 else []
                out += head(code, extra)
        conn.send(out + srv.emulate(req))
        return True
    return rule


def endless_interim(code=100):
    def rule(srv, conn, req):
        conn.drip(iter(lambda: head(code) * 100, None), 0)
        return False
    return rule


def switching_protocols():
    def rule(srv, conn, req):
        conn.send(head(101, [("Upgrade", "h2c"), ("Connection", "Upgrade")]) + b"\x00\x00\x12\x04\x00\x00\x00\x00\x00")
        return False
    return rule


def computed(make):
    """200 with the JSON make(server, request) returns."""
    def rule(srv, conn, req):
        conn.send(answer(200, make(srv, req)))
        return True
    return rule


def partial_then_close(fraction=0.5):
    """Content-Length promises the answer; part of it comes, then the connection closes (FIN,
    no TLS close_notify), as a proxy that drops a backend would."""
    def rule(srv, conn, req):
        data = srv.emulate(req)
        conn.send(data[: int(len(data) * fraction)])
        return False
    return rule


def mutated(change):
    """The honest answer, its JSON changed by change(body) -> body (wrong types, other names)."""
    def rule(srv, conn, req):
        status, body = srv._handle(req, True)
        if 200 <= status < 300:
            body = change(copy.deepcopy(body))
        conn.send(answer(status, body))
        return True
    return rule


def respond(status, body, headers=(), keep=True):
    """A complete answer with this status and JSON body (anything, of any type)."""
    def rule(srv, conn, req):
        conn.send(answer(status, body, headers))
        return keep
    return rule


def with_body(body):
    """200 with this body instead of the object: wrong types, wrong shapes."""
    return respond(200, body)


def api_status(code, reason="Whatever", message="the hostile server says no", retry_after=None, body=None):
    headers = [("Retry-After", str(retry_after))] if retry_after is not None else []
    return respond(code, body if body is not None else status_body(code, reason, message), headers)


def redirect(code, location):
    def rule(srv, conn, req):
        body = b"<a href=\"" + location.encode() + b"\">moved</a>\n"
        conn.send(head(code, [("Location", location), ("Content-Type", "text/html"),
                              ("Content-Length", str(len(body)))]) + body)
        return True
    return rule


def reset(apply_first=False):
    """A TCP reset instead of the answer. apply_first: the request is carried out first (a PATCH
    lands; the 409 of a retry that no longer matches is "carried out" too), its answer is lost."""
    def rule(srv, conn, req):
        if apply_first:
            srv.emulate(req, answered=False)
        else:
            srv.record_unapplied(req)
        conn.reset()
        return False
    return rule


def close_silently():
    def rule(srv, conn, req):
        return False
    return rule


def then_unsolicited(extra, same_record=False):
    """The honest answer, then another whole answer nobody asked for: extra(srv, req) -> bytes,
    in the same TLS record or its own. A later request on this connection must not take it as
    its answer."""
    def rule(srv, conn, req):
        first, second = srv.emulate(req), extra(srv, req)
        if same_record:
            conn.send(first + second)
        else:
            conn.send(first)
            conn.send(second)
        return True
    return rule


def partial_then_hang(fraction=0.5):
    """Content-Length promises the object; half of it comes, then nothing."""
    def rule(srv, conn, req):
        data = srv.emulate(req)
        conn.send(data[: int(len(data) * fraction)])
        while not srv.stopping.is_set() and conn._recv():
            pass
        return False
    return rule


class Rule:
    def __init__(self, method, pattern, action, count):
        self.method = method
        self.pattern = re.compile(pattern)
        self.action = action
        self.remaining = count  # None: for ever
        self.hits = 0

    def matches(self, req):
        return (self.method in ("*", req.method) and self.pattern.search(req.path)
                and (self.remaining is None or self.remaining > 0))


# --- the server ----------------------------------------------------------------------------------

def merge_patch(target, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def kustomization(name, ns="flux-system", suspend=None, annotations=None, labels=None, rv=1, **status):
    return _flux_object(PLURAL, name, ns, suspend, annotations, labels, rv, status)


def helmrelease(name, ns="flux-system", suspend=None, annotations=None, labels=None, rv=1, **status):
    obj = _flux_object("helmreleases", name, ns, suspend, annotations, labels, rv, status)
    obj["spec"] = {"interval": "10m", "chart": {"spec": {"chart": name, "sourceRef": {"kind": "HelmRepository",
                                                                                     "name": name}}},
                   **({"suspend": suspend} if suspend is not None else {})}
    return obj


def _flux_object(plural, name, ns, suspend, annotations, labels, rv, status):
    group, version, kind = KINDS[plural]
    obj = {"apiVersion": f"{group}/{version}", "kind": kind,
           "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "resourceVersion": str(rv),
                        "generation": 1, "labels": dict(labels or {}), "annotations": dict(annotations or {})},
           "spec": {"interval": "10m", "path": "./apps", "prune": True,
                    "sourceRef": {"kind": "GitRepository", "name": "flux-system"}},
           "status": {"observedGeneration": 1, "lastAppliedRevision": "main@sha1:0123abcd",
                      "conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded",
                                      "message": "Applied revision: main@sha1:0123abcd", "observedGeneration": 1,
                                      "lastTransitionTime": "2026-01-01T00:00:00Z"}], **status}}
    if suspend is not None:
        obj["spec"]["suspend"] = suspend
    return obj


class HostileServer:
    """tls: "good" | "wrong-ca" | "wrong-host" | "expired" (certificates), "garbage" (bytes that
    are not TLS answer the ClientHello), "alert" (a fatal TLS alert), "plain-http" (an HTTP answer
    in clear text), "silent" (accepts TCP, never says anything)."""

    def __init__(self, pki, tls="good", host="127.0.0.1"):
        self.pki = pki
        self.tls = tls
        self.host = host
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.rules = []
        self.objects = {}  # (plural, ns, name) -> object
        self.events = []
        self.requests = []  # {"method", "path", "query", "body"}
        self.patches = []   # {"name", "body", "applied", "answered"}
        self.connections = 0
        self.handshakes = 0
        self.list_total = None  # a generated LIST: (count, make(i) -> object)
        self.list_pages = []    # (limit, continue) of each LIST request
        self.controller = True  # a resumed object is reconciled and Ready at once
        self.errors = []        # exceptions in this server's own code
        self._socks = set()
        self._rv = 1000
        self.ctx = None
        if tls in ("good", "wrong-ca", "wrong-host", "expired"):
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.ctx.minimum_version = ssl.TLSVersion.TLSv1_2
            self.ctx.load_cert_chain(*pki.certs[tls])

    # -- set-up
    def on(self, method, pattern, action, count=None):
        """Requests of `method` ("*" any) whose path matches `pattern` (searched) get `action`,
        `count` times (None: for ever). Rules are tried in the order added."""
        rule = Rule(method, pattern, action, count)
        with self._lock:
            self.rules.append(rule)
        return rule

    def put(self, obj):
        m = obj["metadata"]
        plural = next(p for p, (_, _, kind) in KINDS.items() if kind == obj["kind"])
        with self._lock:
            self.objects[(plural, m["namespace"], m["name"])] = copy.deepcopy(obj)

    def get(self, name, ns="flux-system", plural=PLURAL):
        with self._lock:
            obj = self.objects.get((plural, ns, name))
            return copy.deepcopy(obj)

    def generate_list(self, count, make):
        """A LIST of Kustomizations: `count` objects made on demand by make(i), served in pages as asked."""
        self.list_total = (count, make)

    # -- life cycle
    def start(self):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((self.host, 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept_loop, daemon=True).start()
        return self

    def stop(self):
        self.stopping.set()
        try:
            self._listener.close()
        except OSError:
            pass
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept_loop(self):
        self._listener.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._socks.add(sock)
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock):
        # Long enough that a slow (sanitizer) client is never dropped mid-send by the server; stop()
        # shuts the sockets down, which wakes any blocked call.
        sock.settimeout(30)
        try:
            if self.tls in ("garbage", "alert", "plain-http", "silent"):
                self._not_tls(sock)
                return
            try:
                tls = self.ctx.wrap_socket(sock, server_side=True)
            except (OSError, ssl.SSLError):
                return  # the client refused the certificate: that is the test
            with self._lock:
                self.handshakes += 1
                self._socks.discard(sock)  # wrap_socket took its descriptor over
                self._socks.add(tls)
                sock = tls
            conn = Conn(self, tls)
            while not self.stopping.is_set():
                req = conn.read_request()
                if req is None:
                    break
                rule = self._take_rule(req)
                with self._lock:
                    self.requests.append({"method": req.method, "path": req.path, "query": req.query,
                                          "body": req.body, "rule": rule is not None})
                try:
                    keep = (rule.action if rule else emulate())(self, conn, req)
                except Closed:
                    keep = False
                except Exception as e:  # a bug of this server, not windowctl's: the test fails on it
                    with self._lock:
                        self.errors.append(f"{req.method} {req.target}: {e!r}")
                    keep = False
                if not keep:
                    break
            conn.close()
        finally:
            with self._lock:
                self._socks.discard(sock)
            try:
                sock.close()
            except OSError:
                pass

    def _not_tls(self, sock):
        conn = Conn(self, sock)
        hello = conn._recv()  # the ClientHello
        if not hello:
            return
        try:
            if self.tls == "garbage":
                conn.send(random.Random(7).randbytes(2048))
            elif self.tls == "alert":
                conn.send(b"\x15\x03\x03\x00\x02\x02\x28")  # fatal handshake_failure
            elif self.tls == "plain-http":
                conn.send(answer(400, b"Client sent an HTTP request to an HTTPS server.\n"))
            else:  # silent: read what comes, say nothing, until the client leaves
                while conn._recv():
                    pass
        except Closed:
            pass

    def _take_rule(self, req):
        with self._lock:
            for rule in self.rules:
                if rule.matches(req):
                    rule.hits += 1
                    if rule.remaining is not None:
                        rule.remaining -= 1
                    return rule
        return None

    # -- the honest emulation
    def _next_rv(self):
        self._rv += 1
        return str(self._rv)

    def record_unapplied(self, req):
        if req.method == "PATCH":
            with self._lock:
                self.patches.append({"name": req.path.rsplit("/", 1)[-1], "body": req.json(), "applied": False,
                                     "answered": False})

    def emulate(self, req, answered=True):
        """Carries the request out and returns its answer's bytes."""
        status, body = self._handle(req, answered)
        return answer(status, body)

    def _handle(self, req, answered):
        p = req.path.strip("/").split("/")
        for group, version, _ in KINDS.values():
            if req.method == "GET" and p == ["apis", group]:
                return 200, {"kind": "APIGroup", "apiVersion": "v1", "name": group,
                             "versions": [{"groupVersion": f"{group}/{version}", "version": version}],
                             "preferredVersion": {"groupVersion": f"{group}/{version}", "version": version}}
        if req.method == "POST" and len(p) == 5 and p[:3] == ["api", "v1", "namespaces"] and p[4] == "events":
            ev = req.json()
            name = ev.get("metadata", {}).get("name") if isinstance(ev, dict) and isinstance(ev.get("metadata"), dict) else None
            with self._lock:
                if name is not None and any(e.get("metadata", {}).get("name") == name for e in self.events):
                    return 409, status_body(409, "AlreadyExists", f'events "{name}" already exists',
                                            {"name": name, "kind": "events"})
                self.events.append(ev)
            return 201, ev
        plural = p[-1] if len(p) in (4, 6) else p[-2] if len(p) == 7 else None
        if plural not in KINDS or p[:3] != ["apis", *KINDS[plural][:2]]:
            plural = None
        if plural and len(p) == 4 and req.method == "GET":
            return 200, self._list(plural, None, req.query)  # every namespace
        if plural and len(p) >= 6 and p[3] == "namespaces":
            ns = p[4]
            if len(p) == 6 and req.method == "GET":
                return 200, self._list(plural, ns, req.query)
            if len(p) == 7:
                name = p[6]
                group = KINDS[plural][0]
                if req.method == "GET":
                    obj = self.get(name, ns, plural)
                    if obj is None:
                        return 404, status_body(404, "NotFound", f'{plural}.{group} "{name}" not found',
                                                {"name": name, "group": group, "kind": plural})
                    return 200, obj
                if req.method == "PATCH":
                    return self._patch(plural, ns, name, req, answered)
        return 404, status_body(404, "NotFound", "the server could not find the requested resource")

    def _patch(self, plural, ns, name, req, answered):
        patch = req.json()
        group = KINDS[plural][0]
        rec = {"name": name, "body": patch, "applied": False, "answered": answered}
        with self._lock:
            self.patches.append(rec)
            obj = self.objects.get((plural, ns, name))
            if obj is None:
                return 404, status_body(404, "NotFound", f'{plural}.{group} "{name}" not found')
            if req.headers.get("content-type") != "application/merge-patch+json" or not isinstance(patch, dict):
                return 415, status_body(415, "UnsupportedMediaType", "the body of the request was in an unknown format")
            want = (patch.get("metadata") or {}).get("resourceVersion") if isinstance(patch.get("metadata"), dict) else None
            have = obj.get("metadata", {}).get("resourceVersion") if isinstance(obj.get("metadata"), dict) else None
            if want is not None and want != have:
                return 409, status_body(409, "Conflict", f'Operation cannot be fulfilled on {plural}.{group} "{name}": '
                                        "the object has been modified; please apply your changes to the latest "
                                        "version and try again")
            new = merge_patch(obj, patch)
            if not isinstance(new.get("metadata"), dict):
                new["metadata"] = {}
            new["metadata"]["resourceVersion"] = self._next_rv()
            if new.get("spec") != obj.get("spec"):
                gen = new["metadata"].get("generation")
                new["metadata"]["generation"] = (gen if isinstance(gen, int) else 0) + 1
            if self.controller:
                self._reconcile(new)
            self.objects[(plural, ns, name)] = new
            rec["applied"] = True
            return 200, copy.deepcopy(new)

    @staticmethod
    def _reconcile(obj):
        """A controller that is done at once: a running object with a new requestedAt token is
        reconciled and Ready at its generation (enough for open --wait)."""
        spec, meta = obj.get("spec"), obj.get("metadata")
        if not isinstance(spec, dict) or spec.get("suspend") is True or not isinstance(meta, dict):
            return
        token = (meta.get("annotations") or {}).get("reconcile.fluxcd.io/requestedAt") \
            if isinstance(meta.get("annotations"), dict) else None
        status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
        if not isinstance(token, str) or status.get("lastHandledReconcileAt") == token:
            return
        status["lastHandledReconcileAt"] = token
        status["observedGeneration"] = meta.get("generation")
        status["conditions"] = [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded",
                                 "message": "Applied revision: main@sha1:0123abcd",
                                 "observedGeneration": meta.get("generation"),
                                 "lastTransitionTime": "2026-01-01T00:00:00Z"}]
        obj["status"] = status

    def _list(self, plural, ns, query):
        """A LIST of `plural` in namespace `ns`, or in every namespace (None)."""
        limit = int(query.get("limit", "0") or 0)
        start = 0
        if query.get("continue"):
            start = json.loads(base64.urlsafe_b64decode(query["continue"].encode()))["start"]
        selector = query.get("labelSelector", "")
        want = dict(part.split("=", 1) for part in selector.split(",") if "=" in part)
        with self._lock:
            self.list_pages.append((limit, query.get("continue")))
        if self.list_total and plural == PLURAL:
            total, make = self.list_total
            end = total if not limit else min(total, start + limit)
            items = [make(i) for i in range(start, end)]
        else:
            with self._lock:
                objs = [copy.deepcopy(o) for (r, n, _), o in sorted(self.objects.items())
                        if r == plural and (ns is None or n == ns)]
            objs = [o for o in objs if all(o["metadata"].get("labels", {}).get(k) == v for k, v in want.items())]
            total = len(objs)
            end = total if not limit else min(total, start + limit)
            items = objs[start:end]
        meta = {"resourceVersion": str(self._rv)}
        if end < total:
            meta["continue"] = base64.urlsafe_b64encode(json.dumps({"start": end}).encode()).decode()
            meta["remainingItemCount"] = total - end
        group, version, kind = KINDS[plural]
        return {"apiVersion": f"{group}/{version}", "kind": f"{kind}List", "metadata": meta, "items": items}

    # -- what happened
    def applied_patches(self):
        return [p for p in self.patches if p["applied"]]

    def event_reasons(self):
        return [e.get("reason") for e in self.events if isinstance(e, dict)]
