"""The fault matrix: every way the API can fail, and what windowctl does about it."""
import json
import os
import time

import pytest

from e2e_util import KS, SA_USER, lines

TARGETS = ["--kustomizations", "apps-rw"]
OBJ = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps-rw"


def test_401_with_rotated_token_rereads_the_file_once(wctl, api):
    # The token rotates while windowctl's first request is on its way: it arrives with the token
    # read at start, now stale. The rotation happens when the request has arrived, before it is
    # answered, so the order is certain whatever the machine's load (a timer raced windowctl's start).
    def rotate():
        new = "rotated-" + wctl.token[:8]
        (wctl.sa_dir / "token").write_text(new + "\n")
        api.set_token(SA_USER, new)
        wctl.secrets.add(new)

    api.add_fault(method="GET", path_regex=r"^/apis/kustomize\.toolkit\.fluxcd\.io$", hook=rotate)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert [r["status"] for r in api.requests][:2] == [401, 200]
    assert "re-read" in p.stderr


def test_401_without_a_new_token_fails(wctl, api):
    api.set_token(SA_USER, "someone-elses-token", update_files=False)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 1
    assert "flux-system/apps-rw: unauthorized" in p.stderr
    assert api.writes == 0


def test_403_names_verb_resource_and_namespace(wctl, api):
    api.add_user("readonly", token="readonly-token", rules=[
        {"namespace": "flux-system", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": [KS], "verbs": ["get", "list"]}])
    (wctl.sa_dir / "token").write_text("readonly-token")
    wctl.secrets.add("readonly-token")
    p = wctl.run("close", "--kustomizations", "apps-rw,infra")
    assert p.returncode == 1
    err = [line for line in lines(p.stderr) if "forbidden" in line]
    assert len(err) == 2  # both targets were tried
    assert ('flux-system/apps-rw: forbidden: User "readonly" cannot patch resource "kustomizations" in API group '
            '"kustomize.toolkit.fluxcd.io" in the namespace "flux-system"') in p.stderr
    assert api.writes == 0


def test_event_forbidden_is_only_a_warning(wctl, api):
    api.add_user("no-events", token="no-events-token", rules=[
        {"namespace": "flux-system", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": [KS],
         "verbs": ["get", "list", "patch"]}])
    (wctl.sa_dir / "token").write_text("no-events-token")
    wctl.secrets.add("no-events-token")
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/apps-rw closed\n"
    assert "could not record Event WindowClosed" in p.stderr and "forbidden" in p.stderr
    assert wctl.suspended("apps-rw")


def test_404_target_fails_others_proceed(wctl, api):
    p = wctl.run("open", "--kustomizations", "nope,apps-rw")
    assert p.returncode == 1
    assert lines(p.stdout)[1] == "flux-system/apps-rw already open"


def test_409_conflict_is_decided_again(wctl, api):
    api.add_fault(method="PATCH", path_regex=OBJ, status=409, count=1)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/apps-rw closed\n"
    gets = [r for r in api.requests if r["method"] == "GET" and r["path"] == OBJ]
    assert len(gets) == 2  # read again after the conflict
    assert wctl.suspended("apps-rw")


def test_real_conflict_from_a_stale_resource_version(wctl, api):
    # Someone else suspends between windowctl's read and its write: the conditional patch
    # fails with 409, windowctl reads again and sees it is already closed, without our marks.
    # The other writer acts when windowctl's PATCH has arrived, before it is carried out.
    orig = api.get(KS, "flux-system", "apps-rw")

    def sneak():
        o = api.get(KS, "flux-system", "apps-rw")
        o["spec"]["suspend"] = True
        api.put(KS, "flux-system", "apps-rw", o)

    api.add_fault(method="PATCH", path_regex=OBJ, count=1, hook=sneak)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert orig["metadata"]["resourceVersion"] != api.get(KS, "flux-system", "apps-rw")["metadata"]["resourceVersion"]
    assert p.stdout == "flux-system/apps-rw already closed\n"
    assert "windowctl.io/suspended-by" not in api.get(KS, "flux-system", "apps-rw")["metadata"].get("annotations", {})
    assert [r["status"] for r in api.requests if r["method"] == "PATCH"] == [409]


def test_422_invalid_fails_with_the_reason(wctl, api):
    api.add_fault(method="PATCH", path_regex=OBJ, status=422, count=1)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 1
    assert "flux-system/apps-rw: invalid" in p.stderr


def test_429_honours_retry_after(wctl, api):
    api.add_fault(method="PATCH", path_regex=OBJ, status=429, retry_after=1, count=1)
    start = time.monotonic()
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert time.monotonic() - start >= 1.0
    assert "too many requests" in p.stderr and "retry 1 in 1000ms" in p.stderr
    assert wctl.suspended("apps-rw")


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_transient_server_errors_are_retried(wctl, api, status):
    api.add_fault(method="PATCH", path_regex=OBJ, status=status, count=2)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert len(wctl.patches()) == 3


def test_persistent_500_gives_up_bounded(wctl, api):
    api.add_fault(method="PATCH", path_regex=OBJ, status=500, count=100)
    start = time.monotonic()
    p = wctl.run("close", "--kustomizations", "apps-rw,infra")
    assert p.returncode == 1
    assert time.monotonic() - start < 30
    assert len(wctl.patches()) == 5 + 1  # five attempts for apps-rw, then infra
    assert "flux-system/apps-rw: internal error" in p.stderr
    assert lines(p.stdout)[1] == "flux-system/infra closed"


def test_connection_reset_is_retried(wctl, api):
    api.add_fault(method="PATCH", path_regex=OBJ, action="reset", count=2)
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert api.handshakes >= 2  # a reset costs a new connection


def test_hung_server_times_out(wctl, api):
    api.add_fault(method="GET", path_regex=OBJ, action="hang", count=100)
    start = time.monotonic()
    p = wctl.run("close", *TARGETS, "--request-timeout", "500ms", timeout=60)
    assert p.returncode == 1
    assert time.monotonic() - start < 20
    assert "flux-system/apps-rw: timeout" in p.stderr
    assert api.writes == 0


def test_garbage_json_is_reported_not_crashed_on(wctl, api):
    api.add_fault(method="GET", path_regex=OBJ, action="garbage", count=1)
    p = wctl.run("close", "--kustomizations", "apps-rw,infra")
    assert p.returncode == 1
    assert "flux-system/apps-rw: bad response" in p.stderr and "not JSON" in p.stderr
    assert not wctl.suspended("apps-rw") and wctl.suspended("infra")


def test_chunked_responses(wctl, api):
    api.chunked = True
    p = wctl.run("close", "--kustomizations", "apps-rw,infra")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw") and wctl.suspended("infra")
    assert api.handshakes == 1


def test_server_down_fails_after_retries(wctl, api):
    api.stop()
    start = time.monotonic()
    p = wctl.run("close", *TARGETS)
    assert p.returncode == 1
    assert time.monotonic() - start < 30
    assert "unreachable" in p.stderr and "Connection refused" in p.stderr
