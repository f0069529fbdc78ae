"""FakeApiServer: HTTPS + auth + RBAC + REST routing over the Store, with fault injection."""

import base64
import datetime
import hashlib
import http.server
import json
import logging
import os
import re
import secrets
import socket
import socketserver
import ssl
import struct
import threading
import time
import urllib.parse
import uuid
import warnings

import yaml

from . import errors, rbac, schema
from .certs import Pki
from .controller import FluxSimulator, default_revision, helm_upgrade_steps, kustomization_reconciling_steps
from .errors import ApiError
from .objects import paths_to_fields, tracked_leaves
from .rbac import User
from .store import Store, now_rfc3339

MAX_BODY = 3 * 1024 * 1024
IDLE_TIMEOUT = 120
HANDSHAKE_TIMEOUT = 10
PUBLIC_PATHS = {"/version", "/healthz", "/livez", "/readyz"}
VERSION_INFO = {
    "major": "1", "minor": "32", "gitVersion": "v1.32.0", "gitCommit": "70d3cc986aa8221cd1dfb1121852688902d3bf53",
    "gitTreeState": "clean", "buildDate": "2024-12-11T17:59:15Z", "goVersion": "go1.23.3", "compiler": "gc",
    "platform": "linux/amd64",
}
CRUD_VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
ANONYMOUS = "system:anonymous"


# The Flux CRDs served, copied into the repository (tests/testdata/crds/SOURCES.md says from where).
CRD_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "testdata", "crds")


def crd_path(filename):
    return os.path.join(CRD_DIR, filename)


CRD_KUSTOMIZATION_V1_ONLY = "kustomize.toolkit.fluxcd.io_kustomizations.yaml"
CRD_KUSTOMIZATION_V1_V1BETA2 = "kustomize.toolkit.fluxcd.io_kustomizations.v1.7.3.yaml"
CRD_HELMRELEASE = "helm.toolkit.fluxcd.io_helmreleases.yaml"


# The current CRD of every other Flux kind with spec.suspend (sources, image, notification).
CRD_OTHER_KINDS = [
    "source.toolkit.fluxcd.io_gitrepositories.yaml", "source.toolkit.fluxcd.io_ocirepositories.yaml",
    "source.toolkit.fluxcd.io_helmrepositories.yaml", "source.toolkit.fluxcd.io_helmcharts.yaml",
    "source.toolkit.fluxcd.io_buckets.yaml", "image.toolkit.fluxcd.io_imagerepositories.yaml",
    "image.toolkit.fluxcd.io_imagepolicies.yaml", "image.toolkit.fluxcd.io_imageupdateautomations.yaml",
    "notification.toolkit.fluxcd.io_alerts.yaml", "notification.toolkit.fluxcd.io_providers.yaml",
    "notification.toolkit.fluxcd.io_receivers.yaml",
]
# The kinds paused by an annotation (the Flux Operator's, source-watcher's ArtifactGenerator): CRDs
# written for the tests with the published names and versions and an open schema (SOURCES.md).
CRD_ANNOTATION_PAUSED = [
    "fluxcd.controlplane.io_resourcesets.yaml", "fluxcd.controlplane.io_resourcesetinputproviders.yaml",
    "fluxcd.controlplane.io_fluxinstances.yaml", "source.extensions.fluxcd.io_artifactgenerators.yaml",
]
# Bucket of Flux v2.3: serves v1beta2 (storage) and v1beta1, no v1.
CRD_BUCKET_V1BETA2 = "source.toolkit.fluxcd.io_buckets.v1.3.0.yaml"


def default_crds():
    return ([crd_path(CRD_KUSTOMIZATION_V1_V1BETA2), crd_path(CRD_HELMRELEASE)] +
            [crd_path(f) for f in CRD_OTHER_KINDS + CRD_ANNOTATION_PAUSED])


def _json(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def _storage_version_hash(group, version, kind):
    return base64.b64encode(hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()[:8]).decode()


def _human_duration(seconds):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration, as table cells show ages."""
    s = int(max(seconds, 0))
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = s // 3600
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    if h < 24 * 8:
        return f"{h // 24}d{h % 24}h" if h % 24 else f"{h // 24}d"
    if h < 24 * 365 * 2:
        return f"{h // 24}d"
    return f"{h // 24 // 365}y{h // 24 % 365}d"


class Fault:
    def __init__(self, method, path_regex, count, status, retry_after, delay, action, body, hook=None):
        if action not in (None, "reset", "reset-after", "hang", "garbage"):
            raise ValueError(f"unknown fault action {action!r}")
        self.method = method.upper()
        self.regex = re.compile(path_regex)
        self.remaining = count  # None: every matching request
        self.status = status
        self.retry_after = retry_after
        self.delay = delay
        self.action = action
        self.body = body
        self.hook = hook
        self.hits = 0

    def matches(self, method, path):
        return ((self.remaining is None or self.remaining > 0)
                and self.method in ("*", method) and self.regex.search(path) is not None)


class _Closed(Exception):
    """The connection was deliberately dropped; nothing more may be written."""


class _TLSServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, fake, addr, handler):
        self.fake = fake
        super().__init__(addr, handler)

    def finish_request(self, request, client_address):
        # The handshake runs here, in the connection's own thread, so a slow or broken client
        # cannot stall the accept loop (as with Go's net/http).
        request.settimeout(HANDSHAKE_TIMEOUT)
        # Go's net/http disables Nagle on every connection; without this, headers and body sent
        # in separate writes meet the client's delayed ACK and every response waits ~40 ms.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            conn = self.fake._ssl_context.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError) as e:
            self.fake.log.info("TLS handshake from %s failed: %s", client_address, e)
            return
        self.fake._on_handshake(conn)
        try:
            conn.settimeout(IDLE_TIMEOUT)
            self.RequestHandlerClass(conn, client_address, self)
        except (OSError, ssl.SSLError, _Closed):
            pass
        finally:
            self.fake._on_close(conn)
            try:
                conn.close()
            except OSError:
                pass

    def handle_error(self, request, client_address):
        self.fake.log.exception("unhandled error serving %s", client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT

    # --- plumbing ------------------------------------------------------------------------------

    def log_message(self, fmt, *args):
        self.server.fake.log.info("%s %s", self.client_address[0], fmt % args)

    def send_response(self, code, message=None):
        # Go's net/http sends no Server header.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    def do_GET(self):
        self._serve()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > MAX_BODY:
                    self.close_connection = True
                    raise ApiError(413, f"Request entity too large: limit is {MAX_BODY}")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(1024)
            return b"".join(chunks)
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        n = int(length)
        if n > MAX_BODY:
            self.close_connection = True
            raise ApiError(413, f"Request entity too large: limit is {MAX_BODY}")
        return self.rfile.read(n)

    def _respond(self, code, body=b"", content_type="application/json", headers=()):
        fake = self.server.fake
        if getattr(self, "_lose_answer", False):
            # reset-after: the request was carried out; its answer is lost with the connection.
            self._record["status"] = code
            self._finish_record()
            self._reset_connection()
        self._record["status"] = code
        # Recorded before the bytes go out: a client that got its answer must find its request.
        self._finish_record()
        self.send_response(code)
        self.send_header("Audit-Id", str(uuid.uuid4()))
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Content-Type", content_type)
        if self._api_request:
            self.send_header("X-Kubernetes-Pf-Flowschema-Uid", fake._flowschema_uid)
            self.send_header("X-Kubernetes-Pf-Prioritylevel-Uid", fake._prioritylevel_uid)
        for k, v in headers:
            self.send_header(k, v)
        for w in self._warnings:
            self.send_header("Warning", '299 - "%s"' % w.replace("\\", "\\\\").replace('"', '\\"'))
        if self.close_connection:
            self.send_header("Connection", "close")
        if fake.chunked and body:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if self.command != "HEAD":
                # Several small chunks in separate TLS records, so a client must really reassemble.
                pos, size = 0, 7
                while pos < len(body):
                    piece = body[pos:pos + size]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    pos += len(piece)
                    size = 4096
                self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD" and body:
                self.wfile.write(body)

    def _send_error(self, err):
        headers = list(err.headers)
        self._respond(err.code, _json(err.status()), headers=headers)

    def _send_obj(self, code, obj):
        self._respond(code, _json(obj))

    # --- request entry -------------------------------------------------------------------------

    def _serve(self):
        fake = self.server.fake
        url = urllib.parse.urlsplit(self.path)
        path = url.path or "/"
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        self._warnings = []
        self._api_request = False
        self._record = {"method": self.command, "path": path, "query": query,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": b"", "status": 0, "user": None, "time": time.time()}
        self._recorded = False
        if path.startswith("/fake/"):
            self._recorded = True  # the fake's own endpoints are not API traffic
            self._serve_fake(path)
            return
        try:
            try:
                self._record["body"] = self._read_body()
            except ValueError:
                self.close_connection = True
                raise errors.bad_request("malformed request body framing")
            fault = fake._take_fault(self.command, path)
            if fault is not None:
                self._record["user"] = self._peek_user()
            if fault is not None and self._apply_fault(fault, path):
                return
            self._dispatch(path, query)
        except ApiError as e:
            self._send_error(e)
        except _Closed:
            raise
        except (OSError, ssl.SSLError):
            raise
        except Exception as e:  # the fake must survive anything a client sends
            fake.log.exception("internal error on %s %s", self.command, self.path)
            self._send_error(ApiError(500, f"Internal error occurred: {e}",
                                      details={"causes": [{"message": str(e)}]}))
        finally:
            self._finish_record()

    def _finish_record(self):
        if not self._recorded:
            self._recorded = True
            self.server.fake._record_request(self._record)

    def _serve_fake(self, path):
        fake = self.server.fake
        if path == "/fake/stats" and self.command == "GET":
            self._send_obj(200, fake.stats())
        elif path == "/fake/reset-stats" and self.command == "POST":
            self._read_body()
            fake.reset_stats()
            self._send_obj(200, fake.stats())
        else:
            self._send_error(errors.no_route())

    # --- faults --------------------------------------------------------------------------------

    def _reset_connection(self):
        self.close_connection = True
        conn = self.connection
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # All file objects must go for close() to reach the fd and send the RST.
        self.rfile.close()
        self.wfile.close()
        conn.close()
        raise _Closed()

    def _apply_fault(self, fault, path):
        """Act out a fault; returns True when the request has been fully dealt with."""
        fake = self.server.fake
        if fault.hook:
            fault.hook()
        if fault.delay:
            fake._stopping.wait(fault.delay)
        if fault.action == "reset":
            self._record["status"] = 0
            self._finish_record()
            self._reset_connection()
        if fault.action == "reset-after":
            self._lose_answer = True
            return False
        if fault.action == "hang":
            self._record["status"] = 0
            self._finish_record()
            self.close_connection = True
            conn = self.connection
            conn.settimeout(0.2)
            while not fake._stopping.is_set():
                try:
                    if not conn.recv(4096):
                        break
                except (TimeoutError, socket.timeout):
                    continue
                except (OSError, ssl.SSLError):
                    break
            raise _Closed()
        if fault.action == "garbage":
            self._respond(200, b'{"kind": "Kustom')
            return True
        if fault.status is None and fault.body is None:
            return False
        code = fault.status or 200
        headers = [("Retry-After", str(fault.retry_after))] if fault.retry_after is not None else []
        if fault.body is not None:
            body = fault.body
            if isinstance(body, (dict, list)):
                body = _json(body)
            elif isinstance(body, str):
                body = body.encode()
            try:
                json.loads(body)
                ctype = "application/json"
            except ValueError:
                ctype = "text/plain; charset=utf-8"
            self._respond(code, body, ctype, headers)
            return True
        if code in (502, 504):
            text = {502: b"Bad Gateway\n", 504: b"Gateway Timeout\n"}[code]
            self._respond(code, text, "text/plain; charset=utf-8", headers)
            return True
        err = self._fault_error(code, path, fault.retry_after)
        err.headers += headers
        self._send_error(err)
        return True

    def _fault_error(self, code, path, retry_after):
        fake = self.server.fake
        info = _request_info(path)
        rtype = fake.store.type_for(info["group"], info["resource"]) if info else None
        name = info["name"] if info else None
        if code == 401:
            return errors.unauthorized()
        if code == 404 and rtype and name:
            return errors.not_found(rtype, name)
        if code == 409 and rtype and name:
            return errors.conflict(rtype, name)
        if code == 403 and rtype:
            user = fake._user_for_token(self._bearer()) or User(ANONYMOUS, None, [], False)
            verb = _verb(self.command, name, {})
            return errors.forbidden(rtype.group, rtype.plural, name, rbac.forbidden_message(
                user.name, verb, rtype.group, rtype.plural, info["subresource"], info["namespace"], name))
        if code == 422 and rtype and name:
            return errors.invalid(rtype, name, [("spec", "FieldValueInvalid", "Invalid value: \"object\": fake fault")])
        if code == 429:
            details = {"retryAfterSeconds": retry_after} if retry_after is not None else {}
            return ApiError(429, "Too many requests, please try again later.", details=details)
        if code == 503:
            details = {"retryAfterSeconds": retry_after} if retry_after is not None else {}
            return ApiError(503, "the server is currently unable to handle the request", details=details)
        if code == 500:
            return ApiError(500, "Internal error occurred: fake fault", details={"causes": [{"message": "fake fault"}]})
        messages = {403: "forbidden", 404: "the server could not find the requested resource",
                    409: "the object has been modified; please apply your changes to the latest version and try again",
                    422: "the server rejected our request due to an error in our request"}
        return ApiError(code, messages.get(code, f"fake fault {code}"),
                        reason=errors.REASONS.get(code, "Unknown"), details={})

    # --- auth ----------------------------------------------------------------------------------

    def _bearer(self):
        auth = self.headers.get("Authorization", "")
        scheme, _, token = auth.partition(" ")
        return token.strip() if scheme.lower() == "bearer" else None

    def _peek_user(self):
        """Who the request would authenticate as, without failing: for recording faulted requests."""
        try:
            return self._authenticate().name
        except ApiError:
            return None

    def _authenticate(self):
        fake = self.server.fake
        cert = self.connection.getpeercert()
        if cert:
            cn = next((v for rdn in cert.get("subject", ()) for k, v in rdn if k == "commonName"), None)
            if cn:
                return fake._users.get(cn) or User(cn, None, [], False)
        token = self._bearer()
        if token is not None:
            user = fake._user_for_token(token)
            if user is None:
                raise errors.unauthorized()
            return user
        if fake.anonymous_auth:
            return User(ANONYMOUS, None, [], False)
        raise errors.unauthorized()

    # --- routing -------------------------------------------------------------------------------

    def _dispatch(self, path, query):
        user = self._authenticate()
        self._record["user"] = user.name
        norm = path.rstrip("/") or "/"
        info = _request_info(norm)
        if info is None:
            if user.name == ANONYMOUS and norm not in PUBLIC_PATHS:
                raise errors.forbidden_path(user.name, self.command.lower(), norm)
            return self._non_resource(norm)
        self._api_request = True
        self._resource(user, info, query)

    def _non_resource(self, path):
        fake = self.server.fake
        if self.command not in ("GET", "HEAD"):
            raise errors.method_not_allowed()
        if path in ("/healthz", "/livez", "/readyz"):
            return self._respond(200, b"ok", "text/plain; charset=utf-8")
        self._api_request = True
        if path == "/version":
            return self._send_obj(200, fake.version_info)
        if path == "/api":
            return self._send_obj(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{fake.port}"}]})
        if path == "/api/v1":
            return self._send_obj(200, fake._resource_list("", "v1"))
        groups = fake.store.groups()
        if path == "/apis":
            # Always the legacy APIGroupList, whatever Accept asks for: clients that ask for
            # aggregated discovery must fall back on the Content-Type, as against older servers.
            return self._send_obj(200, {"kind": "APIGroupList", "apiVersion": "v1",
                                        "groups": [_api_group(g, v) for g, v in sorted(groups.items())]})
        parts = path.split("/")[2:]
        if parts and parts[0] in groups:
            if len(parts) == 1:
                return self._send_obj(200, dict(kind="APIGroup", apiVersion="v1", **_api_group(parts[0], groups[parts[0]])))
            if len(parts) == 2 and parts[1] in groups[parts[0]]:
                return self._send_obj(200, fake._resource_list(parts[0], parts[1]))
        raise errors.no_route()

    def _resource(self, user, info, query):
        fake = self.server.fake
        store = fake.store
        group, version, resource = info["group"], info["version"], info["resource"]
        ns, name, sub = info["namespace"], info["name"], info["subresource"]
        verb = _verb(self.command, name, query)
        authz_name = name
        if verb in ("list", "watch") and query.get("fieldSelector"):
            m = re.fullmatch(r"\s*metadata\.name\s*==?\s*([^,]+?)\s*", query["fieldSelector"])
            authz_name = m.group(1) if m else None
        if not rbac.allowed(user, verb, group, resource, sub, ns, authz_name, fake.bound_rules(user.name)):
            raise errors.forbidden(group, resource, name, rbac.forbidden_message(
                user.name, verb, group, resource, sub, ns, name))
        if (group, resource) == ("authorization.k8s.io", "selfsubjectaccessreviews") and version == "v1":
            if ns is not None or name is not None or info["extra"]:
                raise errors.no_route()
            if self.command != "POST":
                raise errors.method_not_allowed()
            return self._send_obj(201, self._self_subject_access_review(user, self._record["body"]))
        rtype = store.type_for(group, resource)
        if rtype is None or version not in rtype.versions or info["extra"]:
            raise errors.no_route()
        if not rtype.namespaced:
            if resource != "namespaces" and info["namespaced_path"]:
                raise errors.no_route()
            ns = ""
        elif ns is None and name is not None:
            raise errors.no_route()
        if sub is not None and (sub != "status" or not rtype.has_status(version)):
            raise errors.no_route()
        allowed = ("GET", "HEAD", "PUT", "PATCH") if sub else (
            ("GET", "HEAD", "PUT", "PATCH", "DELETE") if name else ("GET", "HEAD", "POST", "DELETE"))
        if self.command not in allowed or (self.command == "POST" and rtype.namespaced and ns is None):
            raise errors.method_not_allowed()
        ver = rtype.versions[version]
        if ver.deprecated:
            self._warnings.append(ver.warning or f"{rtype.api_version(version)} {rtype.kind} is deprecated")

        dry_run = query.get("dryRun")
        if dry_run not in (None, "", "All"):
            raise errors.bad_request(f'dryRun: Unsupported value: "{dry_run}": supported values: "All"')
        dry_run = dry_run == "All"
        fv = query.get("fieldValidation") or "Warn"
        if fv not in ("Ignore", "Warn", "Strict"):
            raise errors.bad_request(f"invalid fieldValidation directive: {fv}")
        ua = self.headers.get("User-Agent", "")
        manager = query.get("fieldManager") or ua.split("/")[0]
        body = self._record["body"]

        if verb == "watch":
            raise ApiError(405, "the fake API server does not implement watch; poll instead", details={})
        if verb == "get":
            obj = store.get_copy(rtype, ns, name)
            if obj is None:
                raise errors.not_found(rtype, name)
            obj = store.present(rtype, obj, version)
            return self._send_obj(200, self._maybe_table(rtype, version, [obj], query, single=True) or obj)
        if verb == "list":
            try:
                limit = int(query.get("limit") or 0)
            except ValueError:
                raise errors.bad_request(f"limit: Invalid value: {query.get('limit')!r}")
            with store.lock:
                items, cont, remaining = store.list(rtype, ns, query.get("labelSelector", ""),
                                                    query.get("fieldSelector", ""), limit, query.get("continue", ""))
                rv = store.current_rv()
            items = [store.present(rtype, o, version) for o in items]
            meta = {"resourceVersion": rv}
            if cont:
                meta["continue"] = cont
            if remaining is not None:
                meta["remainingItemCount"] = remaining
            table = self._maybe_table(rtype, version, items, query, meta=meta)
            if table:
                return self._send_obj(200, table)
            if not rtype.is_crd:
                for o in items:
                    o.pop("apiVersion", None)
                    o.pop("kind", None)
                return self._send_obj(200, {"kind": rtype.list_kind, "apiVersion": rtype.api_version(version),
                                            "metadata": meta, "items": items})
            return self._send_obj(200, {"apiVersion": rtype.api_version(version), "items": items,
                                        "kind": rtype.list_kind, "metadata": meta})
        if verb == "create":
            result = store.create(rtype, version, ns, self._decode_body(body, rtype), manager, dry_run, fv)
            self._warnings += result.warnings
            return self._send_obj(201, result.obj)
        if verb == "update":
            result = store.update(rtype, version, ns, name, self._decode_body(body, rtype), sub, manager, dry_run, fv)
            self._warnings += result.warnings
            return self._send_obj(200, result.obj)
        if verb == "patch":
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            result = store.patch(rtype, version, ns, name, ctype, body, sub, manager, dry_run, fv)
            self._warnings += result.warnings
            return self._send_obj(200, result.obj)
        if verb == "delete":
            obj = store.delete(rtype, version, ns, name, dry_run)
            if rtype.is_crd:
                return self._send_obj(200, obj)
            return self._send_obj(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                        "details": {"name": name, "kind": rtype.plural,
                                                    "uid": obj["metadata"].get("uid")}})
        if verb == "deletecollection":
            store.delete_collection(rtype, version, ns, query.get("labelSelector", ""),
                                    query.get("fieldSelector", ""), dry_run)
            return self._send_obj(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"})
        raise errors.method_not_allowed()

    def _self_subject_access_review(self, user, body):
        """authorization.k8s.io/v1 SelfSubjectAccessReview: the spec echoed back with
        status.allowed as RBAC decides for the caller (a denial has no reason, as RBAC alone gives none)."""
        try:
            review = json.loads(body or b"null")
        except ValueError as e:
            raise errors.bad_request(f"couldn't get version/kind; json parse error: {e}")
        spec = (review or {}).get("spec") if isinstance(review, dict) else None
        attrs = (spec or {}).get("resourceAttributes")
        non_resource = isinstance((spec or {}).get("nonResourceAttributes"), dict)
        if isinstance(attrs, dict) == non_resource:
            raise ApiError(422, 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: '
                                'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
                           details={"group": "authorization.k8s.io", "kind": "SelfSubjectAccessReview", "causes": []})
        status = {"allowed": False}
        if isinstance(attrs, dict):
            ok = rbac.allowed(user, attrs.get("verb", ""), attrs.get("group", ""), attrs.get("resource", ""),
                              attrs.get("subresource") or None, attrs.get("namespace", ""), attrs.get("name") or None,
                              self.server.fake.bound_rules(user.name))
            if ok:
                status = {"allowed": True, "reason": "RBAC: allowed by the fake's rules"}
        return {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                "metadata": {"creationTimestamp": None}, "spec": spec, "status": status}

    def _decode_body(self, body, rtype):
        ctype = self.headers.get("Content-Type", "application/json").split(";")[0].strip().lower()
        try:
            if ctype == "application/json":
                return json.loads(body or b"null")
            if ctype == "application/yaml":
                return yaml.safe_load(body)
        except (ValueError, yaml.YAMLError) as e:
            raise errors.bad_request(f"couldn't get version/kind; json parse error: {e}")
        accepted = ["application/json", "application/yaml"] + ([] if rtype.is_crd else ["application/vnd.kubernetes.protobuf"])
        raise errors.unsupported_media_type(accepted)

    def _maybe_table(self, rtype, version, items, query, single=False, meta=None):
        if "as=Table" not in self.headers.get("Accept", ""):
            return None
        columns = rtype.versions[version].columns if rtype.is_crd else []
        defs = [{"name": "Name", "type": "string", "format": "name", "priority": 0,
                 "description": "Name must be unique within a namespace. Is required when creating resources, "
                                "although some resources may allow a client to request the generation of an "
                                "appropriate name automatically. Name is primarily intended for creation "
                                "idempotence and configuration definition. Cannot be updated. More info: "
                                "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"}]
        if not columns:
            columns = [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]
        for c in columns:
            defs.append({"name": c["name"], "type": c.get("type", "string"), "format": c.get("format", ""),
                         "description": c.get("description", ""), "priority": c.get("priority", 0)})
        include = query.get("includeObject", "Metadata")
        rows = []
        now = time.time()
        for obj in items:
            cells = [obj["metadata"]["name"]]
            for c in columns:
                found = schema.jsonpath(obj, c["jsonPath"])
                value = found[0] if found else None
                if c.get("type") == "date" and isinstance(value, str):
                    try:
                        t = datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(
                            tzinfo=datetime.timezone.utc).timestamp()
                        value = _human_duration(now - t)
                    except ValueError:
                        pass
                cells.append(value)
            row = {"cells": cells}
            if include == "Object":
                row["object"] = obj
            elif include != "None":
                row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                 "metadata": obj["metadata"]}
            rows.append(row)
        if meta is None:
            meta = {"resourceVersion": items[0]["metadata"].get("resourceVersion", "")} if items else {}
        return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
                "columnDefinitions": defs, "rows": rows}


def _verb(method, name, query):
    if method in ("GET", "HEAD"):
        if not name:
            return "watch" if query.get("watch") in ("1", "true", "True") else "list"
        return "get"
    return {"POST": "create", "PUT": "update", "PATCH": "patch",
            "DELETE": "delete" if name else "deletecollection"}.get(method, method.lower())


def _request_info(path):
    """Split a resource path the way k8s.io/apiserver's RequestInfoFactory does; None if not one."""
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"] and len(parts) > 2:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) > 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    ns, namespaced_path = None, False
    if rest[0] == "namespaces" and len(rest) > 1:
        ns = rest[1]
        if len(rest) > 2 and rest[2] not in ("status", "finalize"):
            rest = rest[2:]
            namespaced_path = True
    return {"group": group, "version": version, "namespace": ns, "resource": rest[0],
            "name": rest[1] if len(rest) > 1 else None, "subresource": rest[2] if len(rest) > 2 else None,
            "extra": rest[3:], "namespaced_path": namespaced_path}


def _tls_version(value, default):
    """None: default; "1.0" ... "1.3" (or an ssl.TLSVersion). Below 1.2 also needs
    tls_ciphers="DEFAULT:@SECLEVEL=0" (Debian's OpenSSL refuses them at its default level)."""
    if value is None:
        return default
    if isinstance(value, ssl.TLSVersion):
        return value
    versions = {"1.0": ssl.TLSVersion.TLSv1, "1.1": ssl.TLSVersion.TLSv1_1,
                "1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}
    if value not in versions:
        raise ValueError(f"TLS version {value!r}: one of {sorted(versions)}")
    return versions[value]


def _api_group(group, versions):
    gv = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": gv, "preferredVersion": gv[0]}


class FakeApiServer:
    """A faithful-enough kube-apiserver for windowctl's tests; see tests/fakeapi/README.md."""

    def __init__(self, workdir, crds=None, served_versions=None, reconcile_delay=0.2, pki_dir=None,
                 key_type="rsa", tls_min_version="1.2", tls_max_version=None, tls_ciphers=None, tls_group=None):
        self.workdir = os.path.abspath(workdir)
        os.makedirs(self.workdir, exist_ok=True)
        self.log = logging.getLogger(f"fakeapi.{id(self)}")
        self.log.setLevel(logging.INFO)
        self.log.propagate = False
        self._log_handler = logging.FileHandler(os.path.join(self.workdir, "fakeapi.log"))
        self._log_handler.setFormatter(logging.Formatter("%(asctime)s %(threadName)s %(message)s"))
        self.log.addHandler(self._log_handler)

        self.reconcile_delay = reconcile_delay
        self.reconcile_outcome = {}
        self.progressing_phase = True
        self.chunked = False
        self.anonymous_auth = False
        self.version_info = dict(VERSION_INFO)  # what /version answers; set_server_version() changes it
        self._lock = threading.Lock()
        self._requests = []
        self._handshakes = 0
        self._tls_log = []
        self._faults = []
        self._users = {}
        self._sa_dirs = {}
        self._rbac_docs = []  # apply_rbac: Roles and bindings, evaluated per request
        self._conns = set()
        self._stopping = threading.Event()
        self._httpd = None
        self._thread = None
        self._flowschema_uid, self._prioritylevel_uid = str(uuid.uuid4()), str(uuid.uuid4())
        self.port = None

        rtypes = schema.core_types()
        for crd in default_crds() if crds is None else crds:
            loaded = schema.load_crd(crd)
            override = (served_versions or {}).get(loaded.group)
            if override is not None:
                loaded = schema.load_crd(crd, served_override=override)
            rtypes.append(loaded)
        self.controller = None
        self.store = Store(rtypes, on_change=self._on_change)
        self.pki = Pki(pki_dir or os.path.join(self.workdir, "pki"), key_type=key_type)
        self.ca_path = self.pki.ca_cert
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        # The TLS versions, TLS 1.2 cipher suites and key exchange group the server accepts, for the
        # handshake tests (OpenShift's "Modern" profile: TLS 1.3 only; an old proxy: TLS 1.2 only).
        with warnings.catch_warnings():  # TLS 1.0 and 1.1 are deprecated, and wanted when asked for
            warnings.simplefilter("ignore", DeprecationWarning)
            ctx.minimum_version = _tls_version(tls_min_version, ssl.TLSVersion.MINIMUM_SUPPORTED)
            ctx.maximum_version = _tls_version(tls_max_version, ssl.TLSVersion.MAXIMUM_SUPPORTED)
        if tls_ciphers:
            ctx.set_ciphers(tls_ciphers)
        if tls_group:
            ctx.set_ecdh_curve(tls_group)
        ctx.load_cert_chain(self.pki.server_cert, self.pki.server_key)
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.load_verify_locations(self.pki.client_ca_cert)
        ctx.set_alpn_protocols(["http/1.1"])
        self._ssl_context = ctx

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self, port=0):
        self._stopping.clear()
        self.controller = FluxSimulator(self)
        self._httpd = _TLSServer(self, ("127.0.0.1", port), _Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="fakeapi-accept", daemon=True)
        self._thread.start()
        self.log.info("listening on %s", self.url)
        return self

    def stop(self):
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            with self._lock:
                conns = list(self._conns)
            for c in conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._httpd = None
        if self.controller is not None:
            self.controller.stop()
            self.controller = None
        self.log.info("stopped")

    def close(self):
        self.stop()
        self.log.removeHandler(self._log_handler)
        self._log_handler.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    @property
    def url(self):
        return f"https://127.0.0.1:{self.port}"

    def _on_handshake(self, conn):
        info = {"version": conn.version(), "cipher": (conn.cipher() or ("",))[0],
                "client_cert": bool(conn.getpeercert())}
        with self._lock:
            self._handshakes += 1
            self._tls_log.append(info)
            self._conns.add(conn)

    def _on_close(self, conn):
        with self._lock:
            self._conns.discard(conn)

    def _on_change(self, rtype, obj):
        if self.controller is not None:
            self.controller.notify(rtype, obj)

    # --- counters --------------------------------------------------------------------------------

    @property
    def requests(self):
        with self._lock:
            return list(self._requests)

    @property
    def writes(self):
        return self.store.writes

    @property
    def handshakes(self):
        with self._lock:
            return self._handshakes

    @property
    def tls_log(self):
        """One {version, cipher, client_cert} per completed handshake, e.g. TLSv1.3,
        TLS_AES_256_GCM_SHA384, True (a client certificate the client CA vouches for)."""
        with self._lock:
            return list(self._tls_log)

    def _record_request(self, rec):
        with self._lock:
            self._requests.append(rec)

    def stats(self):
        return {"requests": len(self.requests), "handshakes": self.handshakes, "writes": self.writes}

    def reset_stats(self):
        with self._lock:
            self._requests.clear()
            self._handshakes = 0
            self._tls_log.clear()
        with self.store.lock:
            self.store.writes = 0

    def set_server_version(self, git_version):
        """Report another Kubernetes version on /version, e.g. "v1.26.3" (major/minor follow)."""
        m = re.match(r"v(\d+)\.(\d+)", git_version)
        self.version_info = dict(VERSION_INFO, gitVersion=git_version,
                                 major=m.group(1) if m else "", minor=m.group(2) if m else "")

    # --- users ---------------------------------------------------------------------------------

    def add_user(self, name, token=None, rules=None, cluster_admin=False):
        """Create (or replace) a user; returns its bearer token."""
        token = token or rbac.new_token(name)
        with self._lock:
            self._users[name] = User(name, token, rules, cluster_admin)
        return token

    def load_role(self, user, role):
        """Grant the rules of a rendered Role/ClusterRole (dict or YAML text, multi-document allowed)."""
        with self._lock:
            if user not in self._users:
                self._users[user] = User(user, rbac.new_token(user), [], False)
            self._users[user].rules.extend(rbac.rules_from_role(role))

    def apply_rbac(self, manifest):
        """Add Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (dicts, or YAML text with
        any number of documents; other kinds are skipped) and authorize with them as the
        apiserver's RBAC authorizer does: who gets what follows from the bindings' subjects, so a
        binding to the wrong ServiceAccount namespace grants nothing. Add the ServiceAccount's
        user (add_user("system:serviceaccount:NS:NAME")) to give it a token."""
        docs = list(yaml.safe_load_all(manifest)) if isinstance(manifest, str) else list(manifest)
        kinds = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
        with self._lock:
            self._rbac_docs.extend(d for d in docs if isinstance(d, dict) and d.get("kind") in kinds)

    def bound_rules(self, username):
        with self._lock:
            docs = list(self._rbac_docs)
        # The RBAC objects created through the API count as well as those given to apply_rbac.
        for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"):
            docs.extend(self.store.snapshot(self.store.find_type(kind)))
        return rbac.rules_from_bindings(docs, username)

    def set_token(self, user, new_token, update_files=True):
        """Rotate a user's token (the old one now gets 401); like the kubelet, rewrite the token
        file of every service-account directory written for that user unless update_files=False."""
        with self._lock:
            self._users[user].token = new_token
            dirs = list(self._sa_dirs.get(user, ())) if update_files else []
        for d in dirs:
            _atomic_write(os.path.join(d, "token"), new_token)

    def _user_for_token(self, token):
        if not token:
            return None
        with self._lock:
            for u in self._users.values():
                if u.token and secrets.compare_digest(u.token.encode(), token.encode("utf-8", "surrogateescape")):
                    return u
        return None

    def client_cert(self, user, key_type="rsa"):
        return self.pki.client_cert(user, key_type=key_type)

    # --- faults --------------------------------------------------------------------------------

    def add_fault(self, method="*", path_regex=".*", count=1, status=None, retry_after=None, delay=0,
                  action=None, body=None, hook=None):
        """The next `count` requests matching `method` and `path_regex` are answered otherwise:
        `status` (an API error of that code), `body`, or `action`, after `delay` seconds; with
        none of these they are served as usual. `hook()` runs when the request has arrived and
        before anything is decided or answered: a test makes something happen between a client's
        reads and its writes there, in that order for certain, instead of racing it with a timer."""
        fault = Fault(method, path_regex, count, status, retry_after, delay, action, body, hook)
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self):
        with self._lock:
            self._faults.clear()

    def _take_fault(self, method, path):
        with self._lock:
            for f in self._faults:
                if f.matches(method, path):
                    if f.remaining is not None:
                        f.remaining -= 1
                    f.hits += 1
                    return f
        return None

    # --- objects -------------------------------------------------------------------------------

    def put(self, kind_or_resource, namespace, name, obj_dict, manager=None):
        rtype = self.store.find_type(kind_or_resource)
        return self.store.put_direct(rtype, namespace, name, obj_dict, manager)

    def get(self, resource, namespace, name):
        rtype = self.store.find_type(resource)
        return self.store.get_copy(rtype, namespace if rtype.namespaced else "", name)

    def delete(self, resource, namespace, name):
        rtype = self.store.find_type(resource)
        with self.store.lock:
            obj = self.store.raw(rtype, namespace, name)
            if obj is not None:
                self.store._delete_now(rtype, obj)
        return obj

    def list(self, resource, namespace=None, label_selector=""):
        rtype = self.store.find_type(resource)
        return self.store.list(rtype, namespace, label_selector)[0]

    def events(self, namespace=None):
        return self.list("events", namespace)

    def helm_upgrade(self, namespace, name, upgrade=1.0, remediation=1.0, outcome="failed"):
        """Start a HelmRelease upgrade that runs `upgrade` seconds, then "succeeded" or "failed";
        a failed one is remediated (rollback, `remediation` seconds) unless suspended by then.
        Returns the Script (.done, .halted, .steps)."""
        return self.controller.script(self.store.find_type("helmreleases"), namespace, name,
                                      helm_upgrade_steps(upgrade, remediation, outcome))

    def kustomization_reconciling(self, namespace, name, duration=1.0, outcome="ready"):
        """A Kustomization reconciling (Reconciling=True) for `duration` seconds, then Ready
        ("ready") or a failed health check ("failed")."""
        return self.controller.script(self.store.find_type("kustomizations"), namespace, name,
                                      kustomization_reconciling_steps(duration, outcome))

    def parent_apply(self, namespace, name, desired, resource="kustomizations"):
        """Simulate the parent Kustomization applying this object from Git; False if it skipped it."""
        return self.store.parent_apply(self.store.find_type(resource), namespace, name, desired)

    def seed_default(self):
        ns = "flux-system"
        source = {"kind": "GitRepository", "name": "flux-system"}
        specs = {
            "infra": ({"app.kubernetes.io/part-of": "infra"}, "./infrastructure"),
            "apps-rt": ({"app.kubernetes.io/part-of": "apps", "window": "rt"}, "./apps/realtime"),
            "apps-rw": ({"app.kubernetes.io/part-of": "apps", "window": "rw"}, "./apps/readwrite"),
        }
        for name, (labels, path) in specs.items():
            rev = default_revision(ns, name)
            spec = {"interval": "10m", "path": path, "prune": True, "sourceRef": source, "timeout": "5m"}
            if name != "infra":
                spec["dependsOn"] = [{"name": "infra"}]
            self._put_seeded("kustomizations", ns, name, labels, spec, {
                "lastAppliedRevision": rev, "lastAttemptedRevision": rev,
            }, "ReconciliationSucceeded", f"Applied revision: {rev}", "kustomize-controller")
        self._put_seeded("helmreleases", ns, "podinfo", {"app.kubernetes.io/part-of": "apps"}, {
            "interval": "5m", "releaseName": "podinfo", "targetNamespace": "podinfo",
            "chart": {"spec": {"chart": "podinfo", "version": "6.x",
                               "sourceRef": {"kind": "HelmRepository", "name": "podinfo"}}},
        }, {"lastAttemptedRevision": "6.7.1", "lastAttemptedGeneration": 1},
            "InstallSucceeded", "Helm install succeeded for release podinfo/podinfo.v1 with chart podinfo@6.7.1",
            "helm-controller")
        return self

    def _put_seeded(self, resource, ns, name, labels, spec, status, reason, message, controller):
        try:
            rtype = self.store.find_type(resource)
        except KeyError:
            return  # that CRD is not installed in this server
        now = now_rfc3339()
        applied = {"metadata": {"labels": labels}, "spec": spec}
        status = dict(status, observedGeneration=1, conditions=[{
            "type": "Ready", "status": "True", "observedGeneration": 1, "lastTransitionTime": now,
            "reason": reason, "message": message}])
        api_version = rtype.api_version(rtype.storage_version)
        managed = [
            {"manager": "kustomize-controller", "operation": "Apply", "apiVersion": api_version, "time": now,
             "fieldsType": "FieldsV1", "fieldsV1": paths_to_fields(set(tracked_leaves(applied)))},
            {"manager": controller, "operation": "Update", "apiVersion": api_version, "time": now,
             "fieldsType": "FieldsV1", "fieldsV1": paths_to_fields(set(tracked_leaves({"status": status}, "status"))),
             "subresource": "status"},
        ]
        self.put(resource, ns, name, {"metadata": {"labels": labels, "managedFields": managed},
                                      "spec": spec, "status": status})

    # --- client configuration -------------------------------------------------------------------

    def write_kubeconfig(self, path, user, namespace="flux-system", server_name=None, context="fake",
                         host="127.0.0.1", auth="token", embed=True, client_key_type="rsa"):
        """server_name becomes the cluster's tls-server-name; host is the server URL's host;
        auth "token" or "cert" (client certificate, its key "rsa" or "ec": client_key_type);
        embed=False writes file paths instead of data."""
        cluster = {"server": f"https://{host}:{self.port}"}
        if embed:
            cluster["certificate-authority-data"] = _b64file(self.ca_path)
        else:
            cluster["certificate-authority"] = self.ca_path
        if server_name:
            cluster["tls-server-name"] = server_name
        if auth == "cert":
            crt, key = self.client_cert(user, key_type=client_key_type)
            creds = ({"client-certificate-data": _b64file(crt), "client-key-data": _b64file(key)} if embed
                     else {"client-certificate": crt, "client-key": key})
        else:
            with self._lock:
                creds = {"token": self._users[user].token}
        config = {
            "apiVersion": "v1", "kind": "Config", "preferences": {},
            "clusters": [{"name": context, "cluster": cluster}],
            "users": [{"name": user, "user": creds}],
            "contexts": [{"name": context, "context": {"cluster": context, "user": user, "namespace": namespace}}],
            "current-context": context,
        }
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            yaml.safe_dump(config, f, default_flow_style=False, sort_keys=False)
        os.chmod(path, 0o600)
        return path

    def write_service_account_dir(self, path, user, namespace="flux-system"):
        os.makedirs(path, exist_ok=True)
        with self._lock:
            token = self._users[user].token
            self._sa_dirs.setdefault(user, []).append(path)
        _atomic_write(os.path.join(path, "token"), token)
        _atomic_write(os.path.join(path, "namespace"), namespace)
        with open(self.ca_path, "rb") as src:
            _atomic_write(os.path.join(path, "ca.crt"), src.read())
        return path

    # --- discovery -------------------------------------------------------------------------------

    def _resource_list(self, group, version):
        resources = []
        for t in sorted(self.store.types.values(), key=lambda t: t.plural):
            if t.group != group or version not in t.versions:
                continue
            entry = {"name": t.plural, "singularName": t.singular, "namespaced": t.namespaced, "kind": t.kind,
                     "verbs": CRUD_VERBS if t.namespaced else [v for v in CRUD_VERBS if v != "deletecollection"]}
            if t.short_names:
                entry["shortNames"] = t.short_names
            if t.categories:
                entry["categories"] = t.categories
            entry["storageVersionHash"] = _storage_version_hash(group, t.storage_version, t.kind)
            resources.append(entry)
            if t.has_status(version) or t.plural == "namespaces":
                resources.append({"name": f"{t.plural}/status", "singularName": "", "namespaced": t.namespaced,
                                  "kind": t.kind, "verbs": ["get", "patch", "update"]})
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}" if group else version,
                "resources": resources}


def _b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def _atomic_write(path, data):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    os.replace(tmp, path)
