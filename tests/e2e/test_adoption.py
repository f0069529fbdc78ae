"""adopt, --scheduled, --fail-on-held and the default namespace rule, on the real binary."""
import json

import pytest

from e2e_util import KS, SA_USER, json_out, lines

TARGETS = ["--kustomizations", "apps-rw"]


def flux_suspend(api, name="apps-rw", ns="flux-system"):
    """A suspension windowctl did not make (the flux CLI's, or kubectl's)."""
    obj = api.get(KS, ns, name)
    obj["spec"]["suspend"] = True
    api.put(KS, ns, name, obj)


def test_adopt_marks_someone_elses_suspension_and_open_then_resumes_it(wctl, api):
    flux_suspend(api)
    p = wctl.run("adopt", "--kustomizations", "apps-rw,apps-rt", "--reason", "migrated from flux-cli jobs")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw adopted", "flux-system/apps-rt already open, nothing to adopt"]
    ann = wctl.obj("apps-rw")["metadata"]["annotations"]
    assert ann["windowctl.io/suspended-by"] == "windowctl"
    assert ann["windowctl.io/reason"] == "migrated from flux-cli jobs"
    assert wctl.suspended("apps-rw"), "adopt never changes spec"
    # The fake's controller may write status after the put, so a conditional PATCH can meet a 409
    # and be decided again: one PATCH lands.
    (patch,) = [r for r in wctl.patches() if r["status"] < 300]
    body = json.loads(patch["body"])
    assert "spec" not in body and set(body["metadata"]["annotations"]) == {
        "windowctl.io/suspended-by", "windowctl.io/suspended-at", "windowctl.io/reason", "windowctl.io/flux-reason",
        "fluxcd.controlplane.io/suspendedBy"}
    assert body["metadata"]["annotations"]["fluxcd.controlplane.io/suspendedBy"] == "windowctl"
    assert body["metadata"]["annotations"]["windowctl.io/flux-reason"] == "", "the Flux reason it found: none"
    assert patch["query"].get("fieldManager") in ("windowctl", ["windowctl"])
    (event,) = wctl.events("WindowAdopted")
    assert event["type"] == "Normal" and "migrated from flux-cli jobs" in event["message"]

    again = wctl.run("adopt", *TARGETS)
    assert again.returncode == 0 and again.stdout == "flux-system/apps-rw already closed, already marked by windowctl\n"
    assert len(wctl.patches()) == 1, "nothing to write the second time"
    opened = wctl.run("open", *TARGETS)
    assert opened.stdout == "flux-system/apps-rw opened\n" and not wctl.suspended("apps-rw")


def test_adopt_dry_run_json_and_failures(wctl, api):
    flux_suspend(api)
    p = wctl.run("adopt", "--kustomizations", "apps-rw,missing", "--dry-run", "-o", "json")
    assert p.returncode == 1, "a missing target fails the run; the others are still processed"
    results = {r["name"]: r for r in json_out(p)["results"]}
    assert results["apps-rw"]["result"] == "adopted" and results["apps-rw"]["changed"] is False
    assert results["apps-rw"]["message"] == "would adopt"
    assert results["apps-rw"]["patch"]["metadata"]["annotations"]["windowctl.io/suspended-by"] == "windowctl"
    assert results["missing"]["result"] == "failed" and "not found" in results["missing"]["error"]
    assert wctl.patches() == []
    assert "flux-system/missing: not found" in p.stderr
    assert wctl.run("adopt").returncode == 2


def test_fail_on_held(wctl, api):
    flux_suspend(api)
    p = wctl.run("open", "--kustomizations", "apps-rw,apps-rt", "--fail-on-held")
    assert p.returncode == 1
    assert lines(p.stdout) == ["flux-system/apps-rw held: suspended by someone else", "flux-system/apps-rt already open"]
    assert "flux-system/apps-rw: held" in p.stderr and wctl.suspended("apps-rw")
    assert wctl.run("open", "--kustomizations", "apps-rw,apps-rt").returncode == 0, "without the flag: a warning"
    p = wctl.run("status", "--fail-on-held")
    assert p.returncode == 1 and "flux-system/apps-rw: held" in p.stderr
    assert wctl.run("status").returncode == 0
    p = wctl.run("sync", *TARGETS, "--window", "* * * * * for 1h", "--fail-on-held")
    assert p.returncode == 1 and p.stdout == "flux-system/apps-rw held: suspended by someone else\n"
    # Once windowctl's, nothing is held.
    assert wctl.run("adopt", *TARGETS).returncode == 0
    assert wctl.run("status", "--fail-on-held").returncode == 0
    assert wctl.run("open", *TARGETS, "--fail-on-held").returncode == 0 and not wctl.suspended("apps-rw")


def test_scheduled_runs_respect_overrides(wctl, api):
    assert wctl.run("close", *TARGETS, "--for", "12h", "--reason", "freeze").returncode == 0
    p = wctl.run("open", *TARGETS, "--scheduled", "--reason", "scheduled window")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("flux-system/apps-rw already closed, kept closed by override closed until ")
    assert p.stdout.endswith(f" by {SA_USER} (freeze)\n"), p.stdout
    assert wctl.suspended("apps-rw") and len(wctl.patches()) == 1
    p = wctl.run("open", *TARGETS, "--scheduled", "-o", "json")
    (r,) = json_out(p)["results"]
    assert r["result"] == "already-closed" and "kept closed by override" in r["message"] and r["changed"] is False
    # A plain open by an operator still wins.
    p = wctl.run("open", *TARGETS)
    assert p.stdout == "flux-system/apps-rw opened, override cleared\n"
    p = wctl.run("close", *TARGETS, "--scheduled", "--for", "1h")
    assert p.returncode == 2 and "--scheduled and --for" in p.stderr


def test_default_namespace_is_flux_system_namespace_env_not_the_context(wctl, api):
    api.put("namespaces", "", "apps", {})
    src = api.get(KS, "flux-system", "apps-rw")
    api.put(KS, "apps", "apps-rw", {"spec": src["spec"], "status": src.get("status", {})})
    # A kubeconfig whose context says "apps": ignored, as by the flux CLI.
    kc = api.write_kubeconfig(str(wctl.tmp / "kc-apps"), SA_USER, namespace="apps")
    p = wctl.run("close", *TARGETS, "--kubeconfig", kc, mode="kubeconfig")
    assert p.stdout == "flux-system/apps-rw closed\n", p.stderr
    p = wctl.run("close", *TARGETS, "--kubeconfig", kc, mode="kubeconfig", extra_env={"FLUX_SYSTEM_NAMESPACE": "apps"})
    assert p.stdout == "apps/apps-rw closed\n", p.stderr
    p = wctl.run("open", *TARGETS, "-n", "flux-system", extra_env={"FLUX_SYSTEM_NAMESPACE": "apps"})
    assert p.stdout == "flux-system/apps-rw opened\n", p.stderr
    sent = len(api.requests)
    p = wctl.run("status", extra_env={"FLUX_SYSTEM_NAMESPACE": "Not_A_Namespace"})
    assert p.returncode == 2 and 'invalid FLUX_SYSTEM_NAMESPACE "Not_A_Namespace"' in p.stderr
    assert len(api.requests) == sent, "refused before anything was sent"
