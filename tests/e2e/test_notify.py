"""--notify: window changes reach Flux Alerts as the Flux events notification-controller takes.

The receiver here checks each payload against the event contract Flux documents
(fluxcd/pkg apis/event/v1beta1: involvedObject, severity, timestamp, message, reason and
reportingController required; metadata a map of strings; notification-controller keeps only the
metadata keys under the object's API group)."""
import datetime
import http.server
import json
import re
import socket
import threading
import time

import pytest

from e2e_util import KS, lines

REQUIRED = {"involvedObject": dict, "severity": str, "timestamp": str, "message": str, "reason": str,
            "reportingController": str}


def check_event(event):
    for key, kind in REQUIRED.items():
        assert isinstance(event.get(key), kind), (key, event)
    assert event["severity"] in ("info", "error")
    assert event["reportingController"] == "windowctl"
    assert event["message"] and len(event["message"]) <= 39000
    datetime.datetime.strptime(event["timestamp"], "%Y-%m-%dT%H:%M:%SZ")
    ref = event["involvedObject"]
    for key in ("apiVersion", "kind", "name", "namespace"):
        assert isinstance(ref.get(key), str) and ref[key], (key, ref)
    group = ref["apiVersion"].split("/")[0]
    meta = event.get("metadata", {})
    assert isinstance(meta, dict)
    for k, v in meta.items():
        assert k.startswith(group + "/") and isinstance(v, str), (k, v)
    assert set(event) <= set(REQUIRED) | {"metadata", "reportingInstance"}, event


class Receiver:
    def __init__(self, status=202):
        received = self.events = []
        self.requests = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append((self.path, dict(self.headers)))
                received.append(json.loads(body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        outer = self
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


def window_of(event):
    return next(v for k, v in event.get("metadata", {}).items() if k.endswith("/window"))


def test_close_and_open_are_announced_as_flux_events(wctl, api, receiver):
    p = wctl.run("close", "--kustomizations", "apps-rw", f"--notify={receiver.url}", "--reason", "CHG-42")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert len(receiver.events) == 1
    e = receiver.events[0]
    check_event(e)
    assert e["severity"] == "info" and e["reason"] == "WindowClosed" and window_of(e) == "closed"
    assert "CHG-42" in e["message"]
    obj = api.get(KS, "flux-system", "apps-rw")
    assert e["involvedObject"]["uid"] == obj["metadata"]["uid"]
    assert e["involvedObject"]["apiVersion"].startswith("kustomize.toolkit.fluxcd.io/")
    assert receiver.requests[0][1]["Content-Type"] == "application/json"

    p = wctl.run("open", "--kustomizations", "apps-rw", "--notify", receiver.url)
    assert p.returncode == 0, p.stderr
    assert [(ev["reason"], window_of(ev)) for ev in receiver.events] == [("WindowClosed", "closed"), ("WindowOpened", "opened")]
    check_event(receiver.events[1])


def test_held_and_failed_targets_are_errors(wctl, api, receiver):
    obj = api.get(KS, "flux-system", "apps-rw")
    obj["spec"]["suspend"] = True
    api.put(KS, "flux-system", "apps-rw", obj)
    p = wctl.run("open", "--kustomizations", "apps-rw,no-such-ks", f"--notify={receiver.url}")
    assert p.returncode == 1
    for e in receiver.events:
        check_event(e)
    by_name = {e["involvedObject"]["name"]: e for e in receiver.events}
    assert set(by_name) == {"apps-rw", "no-such-ks"}
    assert by_name["apps-rw"]["severity"] == "error" and window_of(by_name["apps-rw"]) == "held"
    assert by_name["no-such-ks"]["severity"] == "error" and window_of(by_name["no-such-ks"]) == "failed"
    assert "not found" in by_name["no-such-ks"]["message"]


def test_nothing_to_change_sends_nothing(wctl, receiver):
    p = wctl.run("open", "--kustomizations", "apps-rt", f"--notify={receiver.url}")
    assert p.returncode == 0, p.stderr
    assert receiver.events == []


def test_a_failing_receiver_is_a_warning_never_a_failed_target(wctl):
    bad = Receiver(status=500)
    try:
        p = wctl.run("close", "--kustomizations", "apps-rw,apps-rt", f"--notify={bad.url}")
    finally:
        bad.stop()
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw") and wctl.suspended("apps-rt")
    assert len(bad.events) == 2
    assert "could not notify" in p.stderr and "HTTP 500" in p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed", "flux-system/apps-rt closed"]


def test_an_absent_receiver_costs_at_most_three_tries(wctl, api):
    # A port nothing listens on: connection refused, at once.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    for name in ("a1", "a2", "a3", "a4", "a5"):
        obj = json.loads(json.dumps(api.get(KS, "flux-system", "apps-rw")))
        obj["metadata"] = {"name": name, "namespace": "flux-system", "labels": {"t": "notify"}}
        obj["spec"].pop("suspend", None)
        obj.pop("status", None)
        api.put(KS, "flux-system", name, obj)
    start = time.monotonic()
    p = wctl.run("close", "-l", "t=notify", f"--notify=http://127.0.0.1:{port}/")
    assert p.returncode == 0, p.stderr
    assert time.monotonic() - start < 20
    assert all(wctl.suspended(n) for n in ("a1", "a2", "a3", "a4", "a5"))
    warnings = [line for line in p.stderr.splitlines() if "could not notify" in line]
    assert len(warnings) == 3 and "no more notifications this run" in warnings[-1]


def test_notify_without_a_value_uses_flux_default_address(wctl):
    p = wctl.run("close", "--kustomizations", "apps-rw", "--notify", "--request-timeout", "3s")
    assert p.returncode == 0, p.stderr
    assert "notification-controller.flux-system.svc.cluster.local." in p.stderr  # unresolvable here: a warning


@pytest.mark.parametrize("url,problem", [
    ("https://nc.flux-system/", "https is not supported"),
    ("http://nc:99999/", "port"),
    ("http://nc/a b", "space"),
])
def test_a_bad_notify_url_is_a_usage_error_before_any_request(wctl, api, url, problem):
    before = len(api.requests)
    p = wctl.run("close", "--kustomizations", "apps-rw", f"--notify={url}")
    assert p.returncode == 2
    assert problem in p.stderr and len(lines(p.stderr)) == 1
    assert len(api.requests) == before
    assert not wctl.suspended("apps-rw")
