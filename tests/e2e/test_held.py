"""Held covers incidents: a target someone else suspended again after windowctl closed it is not
windowctl's to resume. The other writers write over the fake's HTTPS API, so that it keeps
metadata.managedFields for them as kube-apiserver does (tests/fakeapi/README.md)."""
import pytest

from e2e_util import FLUX_CLI, KUBECTL, backdate_mark, json_out, lines, patch_as

TARGETS = ["--kustomizations", "apps-rw"]
REASON = "suspend.toolkit.fluxcd.io/reason"


def flux_suspend_reason(api, reason, name="apps-rw"):
    """`flux suspend ks NAME --reason R` on an object that is already suspended: client.MergeFrom's
    patch carries what changed, the reason annotation (spec.suspend: true again is no change)."""
    patch_as(api, name, {"metadata": {"annotations": {REASON: reason}}}, FLUX_CLI)


def incident(wctl, api):
    assert wctl.run("close", *TARGETS, "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    flux_suspend_reason(api, "INC-999 do not resume")


HELD = ('flux-system/apps-rw held: suspended by someone else (flux changed the suspend reason after windowctl '
        'suspended it), reason "INC-999 do not resume"')


def test_flux_suspend_reason_after_windowctls_close_is_held_and_named(wctl, api):
    incident(wctl, api)
    writes = len(wctl.patches())
    p = wctl.run("open", *TARGETS)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == [HELD]
    assert "held: suspended by someone else (flux changed the suspend reason" in p.stderr
    assert wctl.suspended("apps-rw") and len(wctl.patches()) == writes, "nothing written"
    (event,) = wctl.events("WindowOpenHeld")
    assert event["type"] == "Warning" and "flux changed the suspend reason" in event["message"]
    assert 'their reason: "INC-999 do not resume"' in event["message"]
    assert wctl.run("open", *TARGETS, "--fail-on-held").returncode == 1
    # The scheduled jobs and sync open the same way.
    assert wctl.run("open", *TARGETS, "--scheduled").stdout == HELD + "\n"
    p = wctl.run("sync", *TARGETS, "--window", "* * * * * for 1h")
    assert p.returncode == 0 and p.stdout == HELD + "\n"
    assert wctl.run("sync", *TARGETS, "--window", "* * * * * for 1h", "--fail-on-held").returncode == 1
    # JSON says held, with the same message.
    (r,) = json_out(wctl.run("open", *TARGETS, "-o", "json"))["results"]
    assert r["result"] == "held" and r["message"] == HELD.split(" ", 1)[1] and r["changed"] is False
    assert wctl.suspended("apps-rw") and len(wctl.patches()) == writes
    # --force still resumes, and leaves none of the marks.
    p = wctl.run("open", *TARGETS, "--force")
    assert p.returncode == 0 and p.stdout == "flux-system/apps-rw opened\n"
    ann = wctl.obj("apps-rw")["metadata"].get("annotations", {})
    assert not [k for k in ann if k.startswith("windowctl.io/") or k == REASON]


def test_adopt_makes_it_windowctls_again(wctl, api):
    incident(wctl, api)
    p = wctl.run("adopt", *TARGETS, "--reason", "INC-999 closed")
    assert p.returncode == 0 and p.stdout == "flux-system/apps-rw adopted\n", p.stdout
    ann = wctl.obj("apps-rw")["metadata"]["annotations"]
    assert ann["windowctl.io/flux-reason"] == "INC-999 do not resume" == ann[REASON], "their reason stays, recorded"
    (event,) = wctl.events("WindowAdopted")
    assert "flux changed the suspend reason after windowctl suspended it" in event["message"]
    assert wctl.run("status", "--fail-on-held").returncode == 0
    p = wctl.run("open", *TARGETS)
    assert p.stdout == "flux-system/apps-rw opened\n" and not wctl.suspended("apps-rw")


def test_flux_operator_ui_suspend_after_windowctl_is_held(wctl, api):
    """The Flux Operator's web UI skips an object already suspended: its suspend comes after a
    resume (its own, which leaves windowctl's marks and Flux's reason), and names the user."""
    assert wctl.run("close", *TARGETS, "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    ui = "flux-operator/v0.30.0"
    patch_as(api, "apps-rw", {"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "t1"}},
                              "spec": {"suspend": None}}, ui, field_manager="flux-operator-web")
    patch_as(api, "apps-rw", {"metadata": {"annotations": {"fluxcd.controlplane.io/suspendedBy": "alice@example.com"}},
                              "spec": {"suspend": True}}, ui, field_manager="flux-operator-web")
    p = wctl.run("open", *TARGETS)
    assert p.returncode == 0 and wctl.suspended("apps-rw")
    assert p.stdout == ("flux-system/apps-rw held: suspended by someone else (alice@example.com suspended it in the "
                        'Flux Operator after windowctl did), reason "weekly"\n')
    # adopt hands it to windowctl, which the UI then names; --force is not needed after.
    assert wctl.run("adopt", *TARGETS).stdout == "flux-system/apps-rw adopted\n"
    assert wctl.obj("apps-rw")["metadata"]["annotations"]["fluxcd.controlplane.io/suspendedBy"] == "windowctl"
    assert wctl.run("open", *TARGETS).stdout == "flux-system/apps-rw opened\n"
    assert "fluxcd.controlplane.io/suspendedBy" not in wctl.obj("apps-rw")["metadata"].get("annotations", {})


@pytest.mark.parametrize("select", [TARGETS, ["--all"], ["-l", "window=rw"]])
def test_kubectl_resume_and_suspend_after_windowctl_is_held_by_managed_fields_alone(wctl, api, select):
    """Nothing in the annotations changed: only managedFields say that kubectl-patch wrote
    spec.suspend after windowctl's mark. -l and --all read it from the LIST page."""
    assert wctl.run("close", *TARGETS, "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    patch_as(api, "apps-rw", {"spec": {"suspend": None}}, KUBECTL, field_manager="kubectl-patch")
    patch_as(api, "apps-rw", {"spec": {"suspend": True}}, KUBECTL, field_manager="kubectl-patch")
    p = wctl.run("open", *select)
    assert p.returncode == 0, p.stderr
    assert ("flux-system/apps-rw held: suspended by someone else (kubectl-patch set spec.suspend after windowctl "
            'suspended it), reason "weekly"') in lines(p.stdout)
    assert wctl.suspended("apps-rw")


def test_writes_that_are_not_someone_suspending_it_again_are_not_held(wctl, api):
    assert wctl.run("close", *TARGETS, "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    # The parent Kustomization applies it from Git, which declares spec.suspend: true (check's
    # WC002, a setup problem), a person labels it, windowctl itself writes an override later.
    obj = wctl.obj("apps-rw")
    assert api.parent_apply("flux-system", "apps-rw", {"metadata": {"labels": obj["metadata"]["labels"]},
                                                       "spec": dict(obj["spec"], suspend=True)})
    owners = [e["manager"] for e in wctl.obj("apps-rw")["metadata"]["managedFields"]
              if "f:suspend" in e["fieldsV1"].get("f:spec", {})]
    assert owners == ["kustomize-controller"]
    patch_as(api, "apps-rw", {"metadata": {"labels": {"owner": "bob"}}}, KUBECTL, field_manager="kubectl-label")
    assert wctl.run("close", *TARGETS, "--for", "1h").returncode == 0
    p = wctl.run("status", *TARGETS, "--fail-on-held")
    assert p.returncode == 0, p.stdout + p.stderr
    p = wctl.run("open", *TARGETS)
    assert p.stdout == "flux-system/apps-rw opened, override cleared\n" and not wctl.suspended("apps-rw")


def test_adopting_a_flux_suspension_is_not_held_by_its_own_managed_fields(wctl, api):
    """flux suspend wrote spec.suspend and the reason before adopt marked it: not after."""
    patch_as(api, "apps-rw", {"metadata": {"annotations": {REASON: "DB migration"}}, "spec": {"suspend": True}},
             FLUX_CLI)
    p = wctl.run("open", *TARGETS)
    assert p.stdout == 'flux-system/apps-rw held: suspended by someone else (flux), reason "DB migration"\n'
    assert wctl.run("adopt", *TARGETS).stdout == "flux-system/apps-rw adopted\n"
    assert wctl.run("open", *TARGETS).stdout == "flux-system/apps-rw opened\n"
