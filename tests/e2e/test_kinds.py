"""Every suspendable Flux kind, mixed kinds in one run (--targets), and Flux's suspend reason
annotation: the real binary against the fake API server serving the real CRDs."""
import json
import pathlib
import subprocess

import pytest
import yaml
from hermetic_env import clean_env

from e2e_util import KS, REPO, SA_RULES, SA_USER, Windowctl, binary, json_out, lines
from fakeapi import CRD_BUCKET_V1BETA2, CRD_HELMRELEASE, CRD_KUSTOMIZATION_V1_V1BETA2, FakeApiServer, crd_path
from fakekube.flux_samples import ANNOTATION_KINDS, KINDS, PAUSE, put_sample, resource_of

FLUX_REASON = "suspend.toolkit.fluxcd.io/reason"
GROUPS = {"source.toolkit.fluxcd.io": ["gitrepositories", "ocirepositories", "helmrepositories", "helmcharts", "buckets"],
          "image.toolkit.fluxcd.io": ["imagerepositories", "imagepolicies", "imageupdateautomations"],
          "notification.toolkit.fluxcd.io": ["alerts", "providers", "receivers"],
          "fluxcd.controlplane.io": ["resourcesets", "resourcesetinputproviders", "fluxinstances"],
          "source.extensions.fluxcd.io": ["artifactgenerators"]}
KIND_RULES = [{"namespace": "*", "apiGroups": [g], "resources": r, "verbs": ["get", "list", "patch"]}
              for g, r in GROUPS.items()]
VERSION = {"Alert": "v1beta3", "Provider": "v1beta3", "ArtifactGenerator": "v1beta1"}  # every other kind: v1
# What open leaves in the pause annotation: the Flux Operator's own resume writes "enabled";
# source-watcher's docs say remove it (or set Enabled).
RUNNING = {"ResourceSet": "enabled", "ResourceSetInputProvider": "enabled", "FluxInstance": "enabled",
           "ArtifactGenerator": None}
OPERATOR_SUSPENDED_BY = "fluxcd.controlplane.io/suspendedBy"
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


# --- kinds paused by an annotation (the Flux Operator's, source-watcher's ArtifactGenerator) ---------

@pytest.mark.parametrize("kind", sorted(ANNOTATION_KINDS))
def test_close_status_open_each_annotation_paused_kind(kw, api, kind):
    resource, _, _, revision = ANNOTATION_KINDS[kind]
    key = PAUSE[kind]
    put_sample(api, kind, "podinfo")
    p = kw.run("close", "--kind", kind, "--kustomizations", "podinfo", "--reason", "release freeze")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/podinfo closed\n"
    obj = api.get(resource, "flux-system", "podinfo")
    ann = obj["metadata"]["annotations"]
    assert ann[key] == "disabled" and "suspend" not in obj["spec"]
    assert ann["windowctl.io/suspended-by"] == "windowctl" and ann[OPERATOR_SUSPENDED_BY] == "windowctl"
    (patch,) = kw.patches()
    version = VERSION.get(kind, "v1")
    assert patch["path"] == f"/apis/{group_of(resource)}/{version}/namespaces/flux-system/{resource}/podinfo"
    assert patch["query"].get("fieldManager") in ("windowctl", ["windowctl"])
    body = json.loads(patch["body"])
    assert body["metadata"]["resourceVersion"] and "spec" not in body  # conditional, the annotation only
    assert [e["manager"] for e in obj["metadata"]["managedFields"]
            if f"f:{key}" in e.get("fieldsV1", {}).get("f:metadata", {}).get("f:annotations", {})] == ["windowctl"]
    (event,) = kw.events("WindowClosed")
    assert event["involvedObject"]["kind"] == kind

    p = kw.run("status", "--kind", resource, "--kustomizations", "podinfo", "-o", "json")
    assert p.returncode == 0, p.stderr
    (item,) = json_out(p)["results"]
    assert (item["kind"], item["suspended"], item["suspendedBy"], item["reason"]) == (kind, True, "windowctl", "release freeze")
    assert item["revision"] == revision and item["ready"] is True
    p = kw.run("status", "--kind", resource, "podinfo")
    assert p.returncode == 0 and " true " in lines(p.stdout)[1].lower(), p.stdout  # SUSPENDED

    p = kw.run("open", "--kind", kind.upper(), "--kustomizations", "podinfo", "--wait", "--timeout", "20s",
               "--poll-interval", "100ms")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/podinfo opened, ready\n"
    obj = api.get(resource, "flux-system", "podinfo")
    ann = obj["metadata"].get("annotations", {})
    assert ann.get(key) == RUNNING[kind] and "windowctl.io/suspended-by" not in ann and OPERATOR_SUSPENDED_BY not in ann
    token = ann["reconcile.fluxcd.io/requestedAt"]
    assert obj["status"]["lastHandledReconcileAt"] == token  # the fake controller echoed it, as theirs do
    assert not kw.suspended("podinfo", resource=resource)


def operator_ui_suspend(api, resource, name, user):
    """What the Flux Operator's web UI does (internal/web/resource_action.go setSuspension): the
    pause annotation and who, written by its own field manager."""
    obj = api.get(resource, "flux-system", name)
    kind = next(k for k, v in ANNOTATION_KINDS.items() if v[0] == resource)
    ann = obj["metadata"].setdefault("annotations", {})
    ann[PAUSE[kind]] = "disabled"
    ann[OPERATOR_SUSPENDED_BY] = user
    api.put(resource, "flux-system", name, obj)


@pytest.mark.parametrize("kind", ["ResourceSet", "ArtifactGenerator"])
def test_an_annotation_paused_kind_held_adopted_and_forced(kw, api, kind):
    resource = resource_of(kind)
    alias = {"ResourceSet": "rset", "ArtifactGenerator": "ag"}[kind]
    put_sample(api, kind, "podinfo")
    operator_ui_suspend(api, resource, "podinfo", "alice@example.com")
    p = kw.run("open", "--targets", f"{alias}/podinfo")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (f"{kind.lower()}/flux-system/podinfo held: suspended by someone else "
                        "(alice@example.com via Flux Operator)\n"), p.stdout
    assert "alice@example.com via Flux Operator" in p.stderr
    assert not kw.patches() and kw.suspended("podinfo", resource=resource)
    (item,) = json_out(kw.run("status", "--targets", f"{alias}/podinfo", "-o", "json"))["results"]
    assert (item["suspended"], item["suspendedBy"]) == (True, "someone else")
    assert kw.run("status", "--targets", f"{alias}/podinfo", "--fail-on-held").returncode != 0

    # After windowctl's own close, someone pausing it again in the UI holds it too.
    p = kw.run("adopt", "--targets", f"{alias}/podinfo")
    assert p.returncode == 0 and p.stdout.startswith(f"{kind.lower()}/flux-system/podinfo adopted"), p.stdout
    ann = api.get(resource, "flux-system", "podinfo")["metadata"]["annotations"]
    assert ann["windowctl.io/suspended-by"] == "windowctl" and ann[OPERATOR_SUSPENDED_BY] == "windowctl"
    assert ann[PAUSE[kind]] == "disabled"
    p = kw.run("open", "--targets", f"{alias}/podinfo")
    assert p.stdout == f"{kind.lower()}/flux-system/podinfo opened\n", p.stdout
    assert not kw.suspended("podinfo", resource=resource)
    assert kw.run("close", "--targets", f"{alias}/podinfo").returncode == 0
    operator_ui_suspend(api, resource, "podinfo", "bob")
    p = kw.run("open", "--targets", f"{alias}/podinfo")
    assert "held: suspended by someone else (bob suspended it in the Flux Operator after windowctl did)" in p.stdout
    p = kw.run("open", "--force", "--targets", f"{alias}/podinfo")
    assert p.stdout == f"{kind.lower()}/flux-system/podinfo opened\n", p.stdout
    assert not kw.suspended("podinfo", resource=resource)


def test_an_annotation_paused_kind_overridden_for_a_while(kw, api):
    put_sample(api, "FluxInstance", "flux")
    p = kw.run("close", "--targets", "fluxinstance/flux", "--for", "2h", "--reason", "INC-9")
    assert p.returncode == 0 and "closed, closed until " in p.stdout, p.stdout
    ann = api.get("fluxinstances", "flux-system", "flux")["metadata"]["annotations"]
    assert ann["fluxcd.controlplane.io/reconcile"] == "disabled" and ann["windowctl.io/override"] == "closed"
    p = kw.run("open", "--scheduled", "--targets", "instance/flux")
    assert p.returncode == 0 and "kept closed by override closed until" in p.stdout, p.stdout
    assert kw.suspended("flux", resource="fluxinstances")


def test_annotation_paused_kinds_with_all_namespaces_selectors_and_mixed_targets(kw, api):
    put_sample(api, "ResourceSet", "apps")
    put_sample(api, "ResourceSet", "tenants", ns="apps")
    put_sample(api, "ResourceSetInputProvider", "prs")
    put_sample(api, "ArtifactGenerator", "podinfo")
    p = kw.run("close", "-A", "--all", "--kind", "rset")
    assert p.returncode == 0, p.stderr
    assert sorted(lines(p.stdout)) == ["apps/tenants closed", "flux-system/apps closed"]
    assert kw.suspended("tenants", "apps", "resourcesets") and kw.suspended("apps", resource="resourcesets")
    rows = json_out(kw.run("status", "-A", "--kind", "ResourceSet", "-o", "json"))["results"]
    assert sorted((r["namespace"], r["name"], r["suspended"]) for r in rows) == [
        ("apps", "tenants", True), ("flux-system", "apps", True)]
    # One run over kinds of four API groups, both ways of pausing.
    p = kw.run("close", "--targets", "ks/apps-rw,rsip/prs,ag/podinfo,resourceset/apps", "--reason", "INC-7")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["kustomization/flux-system/apps-rw closed",
                               "resourcesetinputprovider/flux-system/prs closed",
                               "artifactgenerator/flux-system/podinfo closed", "resourceset/flux-system/apps already closed"]
    assert kw.suspended("prs", resource="resourcesetinputproviders") and kw.suspended("podinfo", resource="artifactgenerators")
    p = kw.run("open", "--targets", "ks/apps-rw,rsip/prs,ag/podinfo,resourceset/apps", "--wait", "--timeout", "20s",
               "--poll-interval", "100ms")
    assert p.returncode == 0, p.stderr
    assert all(line.endswith("opened, ready") for line in lines(p.stdout)), p.stdout
    assert kw.suspended("tenants", "apps", "resourcesets")  # not named: still closed


def test_a_pause_annotation_that_is_not_a_string_fails_that_target_named(kw, api):
    put_sample(api, "ResourceSet", "odd")
    obj = api.get("resourcesets", "flux-system", "odd")
    obj["metadata"]["annotations"]["fluxcd.controlplane.io/reconcile"] = {"disabled": True}
    api.put("resourcesets", "flux-system", "odd", obj)
    for command in ("close", "open", "status"):
        p = kw.run(command, "--targets", "rset/odd,ks/apps-rt")
        assert p.returncode == 1, (command, p.stdout, p.stderr)
        assert "fluxcd.controlplane.io/reconcile is a JSON object, not a string" in p.stderr, p.stderr
    assert not kw.patches() or all("apps-rt" in r["path"] for r in kw.patches())


def test_completion_and_help_list_the_annotation_paused_kinds(kw):
    for shell in ("bash", "zsh", "fish"):
        p = kw.run("completion", shell)
        assert p.returncode == 0, p.stderr
        for kind in ANNOTATION_KINDS:
            assert kind.lower() in p.stdout, (shell, kind)
    p = kw.run("close", "--help")
    assert "ResourceSet (rset), ResourceSetInputProvider (rsip,inputprovider), FluxInstance (instance), ArtifactGenerator (ag)" in p.stdout


CLOSE_RSET_JOB = """apiVersion: batch/v1
kind: CronJob
metadata: {name: windowctl-close, namespace: flux-system}
spec:
  schedule: "0 17 * * 4"
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: windowctl
          restartPolicy: Never
          containers:
          - name: windowctl
            image: registry.example.com/platform/windowctl:0.2.0
            args: ["close", "--targets", "resourceset/tenants,ag/podinfo"]
"""


@pytest.mark.parametrize("declared", [True, False])
def test_check_knows_a_manifest_that_declares_the_pause_annotation(declared):
    """WC002's analogue: the Kustomization applying a ResourceSet whose manifest declares
    fluxcd.controlplane.io/reconcile re-applies it over every close."""
    ann = '{"fluxcd.controlplane.io/reconcile": enabled}' if declared else "{team: a}"
    manifests = CLOSE_RSET_JOB + f"""---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {{name: tenants, namespace: flux-system, annotations: {ann}}}
spec: {{}}
---
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {{name: podinfo, namespace: flux-system}}
spec: {{}}
"""
    p = subprocess.run([binary(), "check", "-f", "-", "-o", "json"], input=manifests, capture_output=True, text=True,
                       timeout=60, env=clean_env())
    found = [f for f in json.loads(p.stdout)["findings"] if f["id"] == "WC002"]
    if declared:
        (f,) = found
        assert f["object"] == "CronJob/flux-system/windowctl-close"
        assert "ResourceSet flux-system/tenants is applied with fluxcd.controlplane.io/reconcile set" in f["message"], f
    else:
        assert not found, p.stdout
