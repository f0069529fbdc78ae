"""One JSON contract: every command's -o json, run by the real binary against the fake API server,
validates against schema/result.schema.json (draft 2020-12), the file docs/cli.md points users to.
Each run also checks the facts the schema cannot: the failed target is in the list with its
error, ready is a boolean, times are UTC."""
import copy

import jsonschema
import pytest

from e2e_util import FLUX_CLI, KS, REPO, SCHEMA, VALIDATOR, backdate_mark, json_out, patch_as, valid

ALWAYS = "* * * * * for 1h"
MIXED = ["--targets", "kustomization/apps-rw,helmrelease/podinfo,kustomization/missing"]
CHECK_DATA = REPO / "tests" / "testdata" / "check"


def by_name(doc):
    return {(r["kind"], r["name"]): r for r in doc["results"]}


def suspend_by_someone_else(api, name):
    obj = api.get(KS, "flux-system", name)
    obj["spec"]["suspend"] = True
    api.put(KS, "flux-system", name, obj)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # Strict enough to catch the shapes it replaced.
    old_status = {"items": [{"kind": "Kustomization", "namespace": "flux-system", "name": "a", "ready": "True"}]}
    assert not VALIDATOR.is_valid(old_status)
    assert not VALIDATOR.is_valid({"open": True, "windows": [{"start": "2026-03-23T08:00:00+01:00", "end": "2026-03-26T17:00:00+01:00"}]})
    assert not VALIDATOR.is_valid({"findings": []})
    assert VALIDATOR.is_valid({"command": "check", "findings": [], "jobs": []})
    assert not VALIDATOR.is_valid({"command": "check", "findings": []})
    assert VALIDATOR.is_valid({"command": "version", "version": "1.2.3", "commit": "0123456789ab"})


def test_close_with_a_failed_target_and_mixed_kinds(wctl, api):
    doc = valid(wctl.run("close", *MIXED, "--reason", "freeze", "-o", "json"), "close", code=1)
    r = by_name(doc)
    assert list(r) == [("Kustomization", "apps-rw"), ("HelmRelease", "podinfo"), ("Kustomization", "missing")]
    assert r["Kustomization", "apps-rw"]["result"] == "closed" and r["Kustomization", "apps-rw"]["changed"] is True
    assert r["HelmRelease", "podinfo"]["result"] == "closed" and r["HelmRelease", "podinfo"]["error"] is None
    missing = r["Kustomization", "missing"]
    assert missing["result"] == "failed" and "not found" in missing["error"] and missing["message"] == missing["error"]
    assert missing["changed"] is None and missing["namespace"] == "flux-system"
    # Again: nothing to do, said the same way.
    doc = valid(wctl.run("close", "--kustomizations", "apps-rw", "-o", "json"), "close")
    assert [(x["result"], x["changed"], x["dryRun"]) for x in doc["results"]] == [("already-closed", False, False)]


def test_dry_runs_plan_in_the_same_shape(wctl, api):
    doc = valid(wctl.run("close", "--kustomizations", "apps-rw,apps-rt", "--relabel", "--dry-run", "-o", "json"), "close")
    for x in doc["results"]:
        assert (x["result"], x["dryRun"], x["changed"], x["current"]) == ("closed", True, False, "running")
        assert x["patch"]["spec"] == {"suspend": True}
    assert api.writes == 0
    doc = valid(wctl.run("open", *MIXED, "--dry-run", "-o", "json"), "open", code=1)
    assert [(x["result"], x["patch"]) for x in doc["results"][:2]] == [("already-open", None)] * 2
    assert doc["results"][2]["result"] == "failed"
    for command in (["relabel", "--reconcile", "disabled"], ["adopt"]):
        doc = valid(wctl.run(*command, "--kustomizations", "apps-rw", "--dry-run", "-o", "json"), command[0])
        assert doc["results"][0]["dryRun"] is True


def test_open_with_a_held_target_and_wait(wctl, api):
    wctl.run("close", "--kustomizations", "apps-rw")
    suspend_by_someone_else(api, "infra")
    doc = valid(wctl.run("open", "--kustomizations", "apps-rw,infra", "--wait", "--timeout", "20s", "--poll-interval",
                         "100ms", "-o", "json"), "open")
    r = {x["name"]: x for x in doc["results"]}
    assert (r["apps-rw"]["result"], r["apps-rw"]["wait"], r["apps-rw"]["changed"]) == ("opened", "ready", True)
    assert (r["infra"]["result"], r["infra"]["changed"], r["infra"]["wait"]) == ("held", False, None)
    assert r["infra"]["message"].startswith("held: suspended by someone else")
    doc = valid(wctl.run("open", "--kustomizations", "infra", "--fail-on-held", "-o", "json"), "open", code=1)
    assert doc["results"][0]["result"] == "held" and doc["results"][0]["error"] is None


def test_relabel_adopt_and_sync(wctl, api):
    doc = valid(wctl.run("relabel", *MIXED, "--reconcile", "disabled", "-o", "json"), "relabel", code=1)
    assert [x["result"] for x in doc["results"]] == ["relabeled", "relabeled", "failed"]
    suspend_by_someone_else(api, "apps-rt")
    doc = valid(wctl.run("adopt", "--kustomizations", "apps-rt,apps-rw,missing", "-o", "json"), "adopt", code=1)
    assert [x["result"] for x in doc["results"]] == ["adopted", "already-open", "failed"]
    doc = valid(wctl.run("sync", *MIXED, "--window", ALWAYS, "--deny", ALWAYS, "-o", "json"), "sync", code=1)
    assert [x["result"] for x in doc["results"]] == ["closed", "closed", "failed"]
    doc = valid(wctl.run("sync", *MIXED, "--window", ALWAYS, "--dry-run", "-o", "json"), "sync", code=1)
    assert [(x["result"], x["dryRun"]) for x in doc["results"][:2]] == [("opened", True)] * 2
    doc = valid(wctl.run("sync", "--all", "--window", ALWAYS, "-o", "json"), "sync")
    assert {x["name"]: x["result"] for x in doc["results"]} == {"apps-rw": "opened", "apps-rt": "opened", "infra": "already-open"}


def test_status_lists_failed_targets_with_booleans_and_utc_times(wctl, api):
    assert wctl.run("close", "--kustomizations", "apps-rw", "--reason", "weekly").returncode == 0
    assert wctl.run("close", "--kustomizations", "apps-rt", "--for", "1h", "--reason", "INC-1").returncode == 0
    suspend_by_someone_else(api, "infra")
    bare = copy.deepcopy(api.get(KS, "flux-system", "apps-rw"))
    bare["metadata"] = {"name": "bare", "namespace": "flux-system"}
    bare["spec"].pop("suspend", None)
    bare.pop("status", None)
    api.reconcile_outcome[("flux-system", "bare")] = "never"  # no controller: no Ready condition
    api.put(KS, "flux-system", "bare", bare)

    doc = valid(wctl.run("status", "--kustomizations", "apps-rw,apps-rt,infra,bare,missing", "--window",
                         "0 8 * * MON for 81h in Europe/Zurich", "-o", "json"), "status", code=1)
    r = {x["name"]: x for x in doc["results"]}
    assert list(r) == ["apps-rw", "apps-rt", "infra", "bare", "missing"]
    mine = r["apps-rw"]
    assert (mine["result"], mine["suspended"], mine["suspendedBy"], mine["reason"], mine["ready"]) == (
        "observed", True, "windowctl", "weekly", True)
    assert mine["since"].endswith("Z") and mine["revision"].startswith("main@sha1:") and mine["changed"] is False
    assert mine["window"] in ("open", "closed") and mine["nextOpen"].endswith("Z") and mine["nextClose"].endswith("Z")
    assert mine["override"] is None
    over = r["apps-rt"]["override"]
    assert (over["state"], over["reason"]) == ("closed", "INC-1") and over["until"].endswith("Z")
    assert (r["infra"]["suspendedBy"], r["infra"]["since"]) == ("someone else", None)
    assert (r["bare"]["suspended"], r["bare"]["suspendedBy"], r["bare"]["ready"]) == (False, None, None)  # Unknown
    missing = r["missing"]
    assert (missing["result"], missing["suspended"], missing["ready"]) == ("failed", None, None)
    assert "not found" in missing["error"]
    # The text table still has no row for it: stderr names it.
    text = wctl.run("status", "--kustomizations", "apps-rw,missing")
    assert text.returncode == 1 and "missing" not in text.stdout and "flux-system/missing: not found" in text.stderr


def test_status_with_a_held_incident_an_expired_override_and_drift(wctl, api):
    assert wctl.run("close", "--kustomizations", "apps-rw", "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    patch_as(api, "apps-rw", {"metadata": {"annotations": {"suspend.toolkit.fluxcd.io/reason": "INC-9"}}}, FLUX_CLI)
    assert wctl.run("close", "--kustomizations", "apps-rt", "--for", "1h").returncode == 0
    obj = api.get(KS, "flux-system", "apps-rt")
    obj["metadata"]["annotations"]["windowctl.io/override-until"] = "2026-01-05T08:00:00+01:00"
    api.put(KS, "flux-system", "apps-rt", obj)
    doc = valid(wctl.run("status", "--window", ALWAYS, "-o", "json"), "status")
    r = {x["name"]: x for x in doc["results"]}
    assert r["apps-rw"]["held"]["by"] == "flux" and r["apps-rw"]["held"]["afterWindowctl"] is True
    assert r["apps-rw"]["since"].endswith("Z") and (r["apps-rw"]["desired"], r["apps-rw"]["drift"]) == ("open", True)
    assert r["apps-rt"]["override"]["expired"] is True and r["apps-rt"]["override"]["until"] == "2026-01-05T07:00:00Z"
    assert (r["infra"]["held"], r["infra"]["desired"], r["infra"]["drift"]) == (None, "open", False)
    # The writes have the keys too, null: status reads the state.
    doc = valid(wctl.run("open", "--kustomizations", "apps-rw", "-o", "json"), "open")
    assert [(x["result"], x["held"], x["desired"], x["drift"]) for x in doc["results"]] == [("held", None, None, None)]


def test_status_of_mixed_kinds_and_of_a_namespace(wctl, api):
    doc = valid(wctl.run("status", *MIXED, "-o", "json"), "status", code=1)
    assert [(x["kind"], x["result"]) for x in doc["results"]] == [
        ("Kustomization", "observed"), ("HelmRelease", "observed"), ("Kustomization", "failed")]
    assert doc["results"][1]["ready"] is True and doc["results"][1]["window"] is None
    doc = valid(wctl.run("status", "-o", "json"), "status")
    assert {x["name"] for x in doc["results"]} == {"apps-rw", "apps-rt", "infra"}
    doc = valid(wctl.run("status", "-l", "window=none", "-o", "json"), "status")
    assert doc["results"] == []


@pytest.mark.parametrize("args,open_now,count", [
    (["--window", "0 8 * * MON for 81h in Europe/Zurich", "--at", "2026-03-25T12:00:00Z", "--count", "2"], True, 2),
    (["--window", "0 8 * * MON to 0 17 * * THU", "--at", "2026-03-27T12:00:00Z"], False, 5),
    (["--window", "0 0 29 2 * for 24h", "--at", "2096-03-01T00:00:00Z"], False, 0),  # none within 5 years
    (["--window", ALWAYS, "--freeze", "2026-01-01T00:00:00Z/2026-12-31T00:00:00Z", "--at", "2026-06-01T00:00:00Z"], False, 1),
    (["--window", "0 8 * * * for 1h", "--at", "2026-06-01T00:00:00Z", "--until", "2026-06-11T00:00:00Z"], False, 10),
])
def test_schedule(wctl, api, args, open_now, count):
    doc = valid(wctl.run("schedule", *args, "-o", "json", mode="none"), "schedule")
    assert doc["open"] is open_now and len(doc["windows"]) == count
    assert doc["zone"] == ("Europe/Zurich" if "Zurich" in args[1] else "UTC")


def test_schedule_exit_code(wctl, api):
    """--exit-code changes the exit code only: the document is the same, open or closed."""
    args = ("schedule", "--window", "0 8 * * * for 1h", "-o", "json", "--exit-code")
    doc = valid(wctl.run(*args, "--at", "2026-06-01T00:00:00Z", mode="none"), "schedule", code=3)
    assert doc["open"] is False
    doc = valid(wctl.run(*args, "--at", "2026-06-01T08:30:00Z", mode="none"), "schedule", code=0)
    assert doc["open"] is True


def test_check_with_findings_and_clean(wctl, api):
    doc = valid(wctl.run("check", "-f", str(CHECK_DATA / "WC001-bad"), "-o", "json", mode="none"), "check", code=1)
    assert "WC001" in {f["id"] for f in doc["findings"]}
    doc = valid(wctl.run("check", "-f", str(CHECK_DATA / "WC003-bad"), "-o", "json", mode="none"), "check")
    assert {f["severity"] for f in doc["findings"]} == {"warning"}
    doc = valid(wctl.run("check", "-f", str(CHECK_DATA / "WC001-good"), "-o", "json", mode="none"), "check")
    assert doc["findings"] == []


def test_version(wctl):
    p = wctl.run("version", "-o", "json", mode="none")
    doc = valid(p, "version")
    assert doc["version"] in wctl.run("version", mode="none").stdout


def test_live_check(wctl, api):
    # A missing target (error) and one held by someone else (warning), against the cluster.
    suspend_by_someone_else(api, "apps-rw")
    doc = valid(wctl.run("check", "apps-rw", "nope", "-o", "json"), "check", code=1)
    assert {(f["id"], f["severity"]) for f in doc["findings"]} >= {("WC012", "error"), ("WC014", "warning")}
