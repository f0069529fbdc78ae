"""Selections listed in pages, and the truth about writes whose answers were lost."""
import json
import urllib.parse

from e2e_util import KS, lines

OBJ = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps-rw"
N = 1234  # two full pages of 500 and a partial third


def seed_many(api, n=N, prefix="many"):
    for i in range(n):
        api.put(KS, "flux-system", f"{prefix}-{i:05d}", {
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": f"{prefix}-{i:05d}", "namespace": "flux-system", "labels": {"tier": "bulk"},
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "x" * 2000}},
            "spec": {"interval": "10m", "path": "./apps", "prune": True,
                     "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}})


def list_requests(api):
    return [r for r in api.requests if r["method"] == "GET" and r["path"].endswith("/kustomizations")]


def test_a_selection_is_listed_in_pages_and_every_object_handled_once(wctl, api):
    seed_many(api)
    # The fake's controller reconciles the new objects meanwhile: --overrun 0 keeps this test to
    # the pages (test_overrun.py has the wait for objects in progress).
    p = wctl.run("close", "-l", "tier=bulk", "--overrun", "0", timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    out = lines(p.stdout)
    assert len(out) == N and len(set(out)) == N
    assert all(line.endswith(" closed") for line in out)
    assert sum(1 for o in api.list(KS, "flux-system") if o["spec"].get("suspend") is True
               and o["metadata"]["name"].startswith("many-")) == N
    gets = list_requests(api)
    # Three pages of at most 500, each from the previous page's continue token.
    assert len(gets) == 3, gets
    assert all(str(r["query"].get("limit")) in ("500", "['500']") for r in gets)
    assert "continue" not in gets[0]["query"] and all("continue" in r["query"] for r in gets[1:])
    # A GET per object only where the controller moved it between the LIST and the PATCH (409).
    object_gets = [r for r in api.requests if r["method"] == "GET" and "/kustomizations/many-" in r["path"]]
    conflicts = [r for r in wctl.patches() if r.get("status") == 409]
    assert len(object_gets) == len(conflicts)


def test_status_over_pages_prints_one_header_and_every_row(wctl, api):
    seed_many(api)
    p = wctl.run("status", timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    out = lines(p.stdout)
    assert sum(1 for line in out if line.startswith("NAMESPACE")) == 1
    assert sum(1 for line in out if " many-" in line) == N
    j = wctl.run("status", "-o", "json", timeout=300)
    items = json.loads(j.stdout)["results"]
    assert len(items) == N + len(api.list(KS, "flux-system")) - N
    assert len({(i["namespace"], i["name"]) for i in items}) == len(items)


def test_json_results_stream_as_one_document(wctl, api):
    seed_many(api, 700)
    p = wctl.run("close", "--all", "-o", "json", timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    results = json.loads(p.stdout)["results"]
    assert len(results) == len(api.list(KS, "flux-system"))
    assert {r["result"] for r in results} <= {"closed", "already-closed", "held"}


def test_an_expired_continue_token_lists_again_and_handles_each_object_once(wctl, api):
    seed_many(api)
    api.store.compact_after_pages = 2  # etcd compacts while windowctl works on the second page
    p = wctl.run("close", "-l", "tier=bulk", timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "continue token expired; listing again from the start" in p.stderr
    out = lines(p.stdout)
    assert len(out) == N and len(set(out)) == N
    gets = list_requests(api)
    assert [r["status"] for r in gets] == [200, 200, 410, 200, 200, 200]


def test_a_named_target_that_the_selector_also_matches_is_handled_once(wctl, api):
    seed_many(api, 3)
    # --overrun 0: the fake's controller may be reconciling the new objects; this is about the order.
    p = wctl.run("close", "--kustomizations", "many-00001", "-l", "tier=bulk", "--overrun", "0")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/many-00001 closed", "flux-system/many-00000 closed",
                               "flux-system/many-00002 closed"]
    # One write each; a 409 (the fake's controller moved an object after the LIST) is re-read
    # and written once more, never twice successfully.
    assert sorted(r["path"].rsplit("/", 1)[1] for r in wctl.patches() if r.get("status") == 200) == [
        "many-00000", "many-00001", "many-00002"]


def test_a_patch_whose_answer_was_lost_is_reported_as_landed_with_its_event(wctl, api):
    # The PATCH is carried out, then the connection drops before the answer: the client's retry
    # meets a 409 (the resourceVersion moved), and the object, read again, shows the patch.
    api.add_fault(method="PATCH", path_regex=OBJ, action="reset-after", count=1)
    p = wctl.run("close", "--kustomizations", "apps-rw", "--reason", "freeze")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed"]
    assert "it landed" in p.stderr
    assert wctl.suspended("apps-rw")
    assert wctl.obj("apps-rw")["metadata"]["annotations"]["windowctl.io/reason"] == "freeze"
    assert len(wctl.events("WindowClosed")) == 1


def test_every_answer_lost_still_reports_the_write_that_landed(wctl, api):
    # Every PATCH answer is lost, the retries' 409s too: after the retries the object is read.
    assert wctl.run("close", "--kustomizations", "apps-rw").returncode == 0
    api.add_fault(method="PATCH", path_regex=OBJ, action="reset-after", count=None)
    p = wctl.run("open", "--kustomizations", "apps-rw", "--request-timeout", "2s", timeout=120)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw opened"]
    assert not wctl.suspended("apps-rw")
    assert len(wctl.events("WindowOpened")) == 1


def test_a_patch_that_never_landed_is_a_failure_that_says_so(wctl, api):
    api.add_fault(method="PATCH", path_regex=OBJ, action="reset", count=None)
    p = wctl.run("close", "--kustomizations", "apps-rw,infra", "--request-timeout", "2s", timeout=120)
    assert p.returncode == 1
    assert "flux-system/apps-rw failed:" in p.stdout and "did not land" in p.stdout
    assert "flux-system/infra closed" in p.stdout
    assert not wctl.suspended("apps-rw")
    assert not wctl.events("WindowClosed") or all(e["involvedObject"]["name"] != "apps-rw"
                                                  for e in wctl.events("WindowClosed"))


def test_an_object_beyond_etcds_limit_fails_alone(wctl, api):
    # No object etcd stores is this large: the answer is refused at 2 MiB, not read to the end.
    huge = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps-rw", "namespace": "flux-system", "annotations": {"x": "y" * (3 << 20)}},
            "spec": {"suspend": False}}
    api.add_fault(method="GET", path_regex=OBJ + "$", body=huge, count=None)
    p = wctl.run("close", "--kustomizations", "apps-rw,infra")
    assert p.returncode == 1
    assert "flux-system/apps-rw failed:" in p.stdout and "too large" in p.stdout
    assert "flux-system/infra closed" in p.stdout
    assert not wctl.suspended("apps-rw") and wctl.suspended("infra")


def test_a_page_beyond_its_cap_is_a_failed_list(wctl, api):
    big = {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "KustomizationList", "metadata": {},
           "items": [{"metadata": {"name": f"x-{i}", "namespace": "flux-system"}, "pad": "z" * (1 << 20)}
                     for i in range(70)]}
    api.add_fault(method="GET", path_regex=r"/kustomizations$", body=big, count=None)
    p = wctl.run("close", "--all", timeout=120)
    assert p.returncode == 1
    assert "listing kustomizations in namespace flux-system" in p.stderr and "too large" in p.stderr
    assert api.writes == 0
