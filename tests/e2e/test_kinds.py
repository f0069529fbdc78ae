"""Every suspendable Flux kind, mixed kinds in one run (--targets), and Flux's suspend reason
annotation: the real binary against the fake API server serving the real CRDs."""
import json
import pathlib

import pytest
import yaml

from e2e_util import KS, REPO, SA_RULES, SA_USER, Windowctl, json_out, lines
from fakeapi import CRD_BUCKET_V1BETA2, CRD_HELMRELEASE, CRD_KUSTOMIZATION_V1_V1BETA2, FakeApiServer, crd_path
from fakekube.flux_samples import KINDS, put_sample, resource_of

FLUX_REASON = "suspend.toolkit.fluxcd.io/reason"
GROUPS = {"source.toolkit.fluxcd.io": ["gitrepositories", "ocirepositories", "helmrepositories", "helmcharts", "buckets"],
          "image.toolkit.fluxcd.io": ["imagerepositories", "imagepolicies", "imageupdateautomations"],
          "notification.toolkit.fluxcd.io": ["alerts", "providers", "receivers"]}
KIND_RULES = [{"namespace": "*", "apiGroups": [g], "resources": r, "verbs": ["get", "list", "patch"]}
              for g, r in GROUPS.items()]
VERSION = {"Alert": "v1beta3", "Provider": "v1beta3"}  # every other kind of KINDS: v1
CRD_DIR = REPO / "tests" / "testdata" / "crds"


@pytest.fixture
def kw(api, tmp_path):
    w = Windowctl(api, tmp_path)
    api.add_user(SA_USER, token=w.token, rules=SA_RULES + KIND_RULES)
    return w


def group_of(resource):
    return next(g for g, rs in GROUPS.items() if resource in rs)


def discoveries(api, group):
    return [r for r in api.requests if r["method"] == "GET" and r["path"] == f"/apis/{group}"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_close_status_open_each_kind(kw, api, kind):
    resource, _, _, revision = KINDS[kind]
    put_sample(api, kind, "podinfo")
    p = kw.run("close", "--kind", kind, "--kustomizations", "podinfo", "--reason", "release freeze")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/podinfo closed\n"
    obj = api.get(resource, "flux-system", "podinfo")
    ann = obj["metadata"]["annotations"]
    assert obj["spec"]["suspend"] is True
    assert ann["windowctl.io/suspended-by"] == "windowctl" and ann[FLUX_REASON] == "release freeze"
    (patch,) = kw.patches()
    version = VERSION.get(kind, "v1")
    assert patch["path"] == f"/apis/{group_of(resource)}/{version}/namespaces/flux-system/{resource}/podinfo"
    (event,) = kw.events("WindowClosed")
    assert event["involvedObject"]["kind"] == kind
    assert event["involvedObject"]["apiVersion"] == f"{group_of(resource)}/{version}"

    p = kw.run("status", "--kind", resource, "--kustomizations", "podinfo", "-o", "json")
    assert p.returncode == 0, p.stderr
    (item,) = json_out(p)["results"]
    assert (item["kind"], item["suspended"], item["suspendedBy"], item["reason"]) == (kind, True, "windowctl", "release freeze")
    assert item["revision"] == (revision or None)  # null, not "", for a kind without one
    assert item["ready"] is True, item  # the Ready condition, or a static kind that exists

    p = kw.run("open", "--kind", kind.upper(), "--kustomizations", "podinfo", "--wait", "--timeout", "20s",
               "--poll-interval", "100ms")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/podinfo opened, ready\n"
    obj = api.get(resource, "flux-system", "podinfo")
    ann = obj["metadata"].get("annotations", {})
    assert "suspend" not in obj["spec"] and FLUX_REASON not in ann and "windowctl.io/suspended-by" not in ann
    assert "reconcile.fluxcd.io/requestedAt" in ann


def test_every_kind_name_plural_and_crd_short_name_is_accepted(kw):
    """Straight from the CRDs the fake serves: names.kind, plural, shortNames, KIND.GROUP."""
    names = []
    for f in sorted(CRD_DIR.glob("*.yaml")):
        crd = yaml.safe_load(f.read_text())
        n, group = crd["spec"]["names"], crd["spec"]["group"]
        names += [n["kind"], n["plural"], n["kind"].lower(), f"{n['kind']}.{group}", f"{n['plural']}.{group}"]
        names += n.get("shortNames") or []
    names += ["gitrepo", "helmrepo", "ocirepo", "imagerepo", "imagepolicy", "iua", "imageupdate", "alert", "provider",
              "receiver", "HR", "Ks"]
    assert len(set(n.lower() for n in names)) > 60
    for name in sorted(set(names)):
        # A known kind gets as far as the missing targets; an unknown one stops at --kind.
        p = kw.run("close", "--kind", name)
        assert p.returncode == 2 and "close needs targets" in p.stderr, (name, p.stderr)
    # An unknown kind near a known one is offered it; else every kind is listed.
    for bad, fix in (("git", "; did you mean GitRepository?"), ("gitrepositorys", "; did you mean GitRepository?"),
                     ("ExternalArtifact", ": use one of Kustomization (ks), "),
                     ("kustomization.source.toolkit.fluxcd.io", ": use one of Kustomization (ks), ")):
        p = kw.run("close", "--kind", bad)
        assert p.returncode == 2 and f'unknown --kind "{bad}"{fix}' in p.stderr, p.stderr
    assert not kw.api.requests


def test_mixed_targets_in_one_run(kw, api):
    put_sample(api, "GitRepository", "apps-rw")  # the same name as a Kustomization: another object
    put_sample(api, "HelmRepository", "podinfo")
    put_sample(api, "ImageUpdateAutomation", "flux-system", ns="apps")
    put_sample(api, "Alert", "on-call")
    targets = ["--targets", "kustomization/apps-rw,helmrelease/podinfo,gitrepository/apps-rw",
               "--targets", "helmrepo/podinfo,iua/apps/flux-system,alert/on-call"]
    p = kw.run("close", *targets, "--reason", "INC-7")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["kustomization/flux-system/apps-rw closed", "helmrelease/flux-system/podinfo closed",
                               "gitrepository/flux-system/apps-rw closed", "helmrepository/flux-system/podinfo closed",
                               "imageupdateautomation/apps/flux-system closed", "alert/flux-system/on-call closed"]
    for resource, ns, name in [(KS, "flux-system", "apps-rw"), ("helmreleases", "flux-system", "podinfo"),
                               ("gitrepositories", "flux-system", "apps-rw"), ("helmrepositories", "flux-system", "podinfo"),
                               ("imageupdateautomations", "apps", "flux-system"), ("alerts", "flux-system", "on-call")]:
        assert kw.suspended(name, ns, resource), (resource, name)
    assert not kw.suspended("apps-rt") and not kw.suspended("infra")
    # Discovery once per API group: the two sources share one.
    for group in ("kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io",
                  "image.toolkit.fluxcd.io", "notification.toolkit.fluxcd.io"):
        assert len(discoveries(api, group)) == 1, group
    assert {e["involvedObject"]["kind"] for e in kw.events("WindowClosed")} == {
        "Kustomization", "HelmRelease", "GitRepository", "HelmRepository", "Alert"}  # the IUA's Event is in apps

    p = kw.run("status", *targets)
    assert p.returncode == 0, p.stderr
    rows = lines(p.stdout)
    assert rows[0].split()[:3] == ["NAMESPACE", "NAME", "SUSPENDED"]
    assert [r.split()[:4] for r in rows[1:]] == [
        ["flux-system", "kustomization/apps-rw", "True", "windowctl"], ["flux-system", "helmrelease/podinfo", "True", "windowctl"],
        ["flux-system", "gitrepository/apps-rw", "True", "windowctl"], ["flux-system", "helmrepository/podinfo", "True", "windowctl"],
        ["apps", "imageupdateautomation/flux-system", "True", "windowctl"], ["flux-system", "alert/on-call", "True", "windowctl"]]
    items = json_out(kw.run("status", *targets, "-o", "json"))["results"]
    assert [i["kind"] for i in items] == ["Kustomization", "HelmRelease", "GitRepository", "HelmRepository",
                                          "ImageUpdateAutomation", "Alert"]

    p = kw.run("open", *targets, "-o", "json")
    assert p.returncode == 0, p.stderr
    results = json_out(p)["results"]
    assert [(r["kind"], r["result"]) for r in results] == [(i["kind"], "opened") for i in items]
    assert not kw.suspended("apps-rw", resource="gitrepositories")


def test_targets_with_kustomizations_and_selector(kw, api):
    """--targets adds to --kustomizations and -l (both of --kind); one object named twice is handled once,
    and an object of another kind with a selected name is not taken for the selected one."""
    put_sample(api, "GitRepository", "apps-rw")
    p = kw.run("close", "--kustomizations", "apps-rw", "--targets", "ks/apps-rw,gitrepo/apps-rw", "-l", "window=rw")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed", "gitrepository/flux-system/apps-rw closed"]
    assert kw.suspended("apps-rw") and kw.suspended("apps-rw", resource="gitrepositories")


def test_one_failed_target_never_stops_the_others(kw, api, tmp_path):
    put_sample(api, "Receiver", "github")
    p = kw.run("close", "--targets", "gitrepo/missing,receiver/github,hr/missing,ks/apps-rw")
    assert p.returncode == 1
    out = lines(p.stdout)
    assert out[0].startswith("gitrepository/flux-system/missing failed: ") and "not found" in out[0]
    assert out[1] == "receiver/flux-system/github closed"
    assert out[2].startswith("helmrelease/flux-system/missing failed: ")
    assert out[3] == "kustomization/flux-system/apps-rw closed"
    assert "gitrepository/flux-system/missing: " in p.stderr


def test_a_group_the_server_does_not_serve_fails_only_its_targets(tmp_path):
    srv = FakeApiServer(str(tmp_path / "api"), crds=[crd_path(CRD_KUSTOMIZATION_V1_V1BETA2), crd_path(CRD_HELMRELEASE)])
    srv.start()
    try:
        srv.seed_default()
        w = Windowctl(srv, tmp_path)
        srv.add_user(SA_USER, token=w.token, rules=SA_RULES + KIND_RULES)
        p = w.run("close", "--targets", "alert/on-call,provider/slack,ks/apps-rw,gitrepo/flux-system")
        assert p.returncode == 1
        assert lines(p.stdout) == [
            "alert/flux-system/on-call failed: the server does not serve notification.toolkit.fluxcd.io (is Flux installed?)",
            "provider/flux-system/slack failed: the server does not serve notification.toolkit.fluxcd.io (is Flux installed?)",
            "kustomization/flux-system/apps-rw closed",
            "gitrepository/flux-system/flux-system failed: the server does not serve source.toolkit.fluxcd.io (is Flux installed?)"]
        assert len(discoveries(srv, "notification.toolkit.fluxcd.io")) == 1, "a failed group is asked once"
    finally:
        srv.stop()


def test_an_older_bucket_crd_is_spoken_in_its_own_version(tmp_path):
    """Flux v2.3's Bucket serves v1beta2 and v1beta1, no v1: discovery picks the group's preference."""
    srv = FakeApiServer(str(tmp_path / "api"), crds=[crd_path(CRD_KUSTOMIZATION_V1_V1BETA2), crd_path(CRD_BUCKET_V1BETA2)])
    srv.start()
    try:
        put_sample(srv, "Bucket", "manifests")
        w = Windowctl(srv, tmp_path)
        srv.add_user(SA_USER, token=w.token, rules=SA_RULES + KIND_RULES)
        p = w.run("close", "--targets", "bucket/manifests")
        assert p.returncode == 0, p.stderr
        assert p.stdout == "bucket/flux-system/manifests closed\n"
        (patch,) = w.patches()
        assert patch["path"] == "/apis/source.toolkit.fluxcd.io/v1beta2/namespaces/flux-system/buckets/manifests"
    finally:
        srv.stop()


MALFORMED = [
    ("apps-rw", '--targets entry "apps-rw" has no kind'),
    ("ks/apps-rw,gitrepos/x", 'unknown kind "gitrepos"'),
    ("ks/a,,hr/b", "empty name in --targets"),
    ("ks/Bad/x", 'invalid namespace "Bad"'),
    ("hr/x/y/z", 'invalid name "y/z"'),
    ("ks/apps-rw,hr/../secrets", 'invalid namespace ".."'),
    ("gitrepo/x?dryRun=All", "invalid name"),
]


def test_a_malformed_target_is_a_usage_error_before_any_request(kw, api):
    for command in ("close", "open", "status", "sync", "relabel", "adopt"):
        extra = {"sync": ["--window", "0 8 * * * for 1h"], "relabel": ["--reconcile", "enabled"]}.get(command, [])
        for value, message in MALFORMED:
            p = kw.run(command, "--targets", value, *extra)
            assert p.returncode == 2, (command, value, p.stderr)
            assert message in p.stderr, (command, value, p.stderr)
            assert p.stdout == ""
    assert not api.requests, "nothing was sent"


def test_relabel_and_adopt_take_targets_of_any_kind(kw, api):
    put_sample(api, "HelmChart", "podinfo", suspended=True)
    p = kw.run("relabel", "--reconcile", "disabled", "--targets", "hc/podinfo,ks/apps-rw")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["helmchart/flux-system/podinfo relabeled", "kustomization/flux-system/apps-rw relabeled"]
    assert api.get("helmcharts", "flux-system", "podinfo")["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/reconcile"] == "disabled"
    p = kw.run("adopt", "--targets", "helmchart/podinfo")
    assert p.stdout == "helmchart/flux-system/podinfo adopted\n", p.stderr
    p = kw.run("open", "--targets", "helmchart/podinfo")
    assert p.stdout == "helmchart/flux-system/podinfo opened\n" and not kw.suspended("podinfo", resource="helmcharts")


def test_sync_takes_targets_of_any_kind(kw, api):
    put_sample(api, "ImagePolicy", "podinfo")
    p = kw.run("sync", "--targets", "imagepolicy/podinfo", "--window", "0 8 * * * for 1h",
               "--freeze", "2000-01-01T00:00:00Z/2200-01-01T00:00:00Z")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("imagepolicy/flux-system/podinfo closed")
    obj = api.get("imagepolicies", "flux-system", "podinfo")
    assert obj["spec"]["suspend"] is True and obj["metadata"]["annotations"][FLUX_REASON]


# --- Flux's suspend reason -----------------------------------------------------------------------

def test_close_writes_flux_reason_and_open_removes_it(kw, api):
    p = kw.run("close", "--kustomizations", "apps-rw")
    assert p.returncode == 0, p.stderr
    ann = kw.obj("apps-rw")["metadata"]["annotations"]
    assert ann[FLUX_REASON] == "suspended by windowctl: reconciliation window closed"
    assert "windowctl.io/reason" not in ann
    body = json.loads(kw.patches()[0]["body"])
    assert body["metadata"]["annotations"][FLUX_REASON] == ann[FLUX_REASON]
    p = kw.run("open", "--kustomizations", "apps-rw")
    assert p.returncode == 0 and FLUX_REASON not in kw.obj("apps-rw")["metadata"].get("annotations", {})
    body = json.loads(kw.patches()[1]["body"])
    assert body["metadata"]["annotations"][FLUX_REASON] is None


def flux_suspend(api, resource, name, reason):
    """What `flux suspend --reason` leaves: spec.suspend and the annotation, no windowctl marks."""
    obj = api.get(resource, "flux-system", name)
    obj["spec"]["suspend"] = True
    obj["metadata"].setdefault("annotations", {})[FLUX_REASON] = reason
    api.put(resource, "flux-system", name, obj)


def test_a_held_object_quotes_the_reason_someone_else_gave(kw, api):
    put_sample(api, "OCIRepository", "podinfo")
    flux_suspend(api, "ocirepositories", "podinfo", 'DB migration "v2", ask @anna')
    flux_suspend(api, KS, "apps-rw", "x" * 500 + "\n\x1b[31mred")
    p = kw.run("open", "--targets", "ocirepo/podinfo,ks/apps-rw")
    assert p.returncode == 0, p.stderr
    out = lines(p.stdout)
    assert out[0] == 'ocirepository/flux-system/podinfo held: suspended by someone else, reason "DB migration \\"v2\\", ask @anna"'
    # Capped, and still one line with no escape sequence.
    assert out[1] == 'kustomization/flux-system/apps-rw held: suspended by someone else, reason "' + "x" * 197 + '..."'
    assert kw.suspended("podinfo", resource="ocirepositories") and kw.suspended("apps-rw")
    assert api.get("ocirepositories", "flux-system", "podinfo")["metadata"]["annotations"][FLUX_REASON].startswith("DB")
    held = {e["involvedObject"]["kind"]: e for e in kw.events("WindowOpenHeld")}
    assert held["OCIRepository"]["type"] == "Warning"
    assert held["OCIRepository"]["message"].endswith('; their reason: "DB migration \\"v2\\", ask @anna"')
    assert len(held["Kustomization"]["message"]) < 400
    assert not kw.patches(), "someone else's suspension is not touched"

    items = json_out(kw.run("status", "--targets", "ocirepo/podinfo", "-o", "json"))["results"]
    assert (items[0]["suspendedBy"], items[0]["reason"]) == ("someone else", 'DB migration "v2", ask @anna')
    p = kw.run("open", "--targets", "ocirepo/podinfo", "--dry-run")
    assert '(suspended by someone else (reason "DB migration' in p.stdout

    # --force resumes it, and the reason goes with the suspension, as `flux resume` does.
    p = kw.run("open", "--force", "--targets", "ocirepo/podinfo")
    assert p.stdout == "ocirepository/flux-system/podinfo opened\n", p.stderr
    assert FLUX_REASON not in api.get("ocirepositories", "flux-system", "podinfo")["metadata"]["annotations"]


@pytest.mark.parametrize("kind", sorted([*KINDS, "Kustomization", "HelmRelease"]))
def test_a_listed_object_shows_the_revision_a_read_one_does(kw, api, kind):
    """status over a LIST, whose items keep only the status fields the kinds table declares,
    shows each kind's revision as status over a GET of the whole object does."""
    name = {"Kustomization": "infra"}.get(kind, "podinfo")  # the seeded ones, and a sample of every other kind
    if kind in KINDS:
        put_sample(api, kind, name)
    listed = {r["name"]: r for r in json_out(kw.run("status", "--kind", kind, "-o", "json"))["results"]}
    (read,) = json_out(kw.run("status", "--kind", kind, name, "-o", "json"))["results"]
    assert listed[name]["revision"] == read["revision"]
    assert listed[name]["ready"] == read["ready"]
    assert (read["revision"] is None) == (kind in ("Alert", "Provider", "Receiver"))
