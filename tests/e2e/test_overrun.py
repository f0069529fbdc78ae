"""close --overrun (a target Flux is changing is closed once it settles) and --cutoff (a window
that closes too soon is not opened), against the fake's scripted controllers."""
import datetime as dt

from e2e_util import json_out, lines, valid

HR = "helmreleases"
PODINFO = "helmrelease/flux-system/podinfo"
FAST = ["--poll-interval", "100ms"]


def cond(obj, ctype):
    return next((c for c in obj["status"].get("conditions", []) if c["type"] == ctype), None)


def in_progress(api, name, resource):
    return cond(api.get(resource, "flux-system", name), "Reconciling") is not None


def wait_until(pred, timeout=5.0):
    end = dt.datetime.now() + dt.timedelta(seconds=timeout)
    while dt.datetime.now() < end:
        if pred():
            return
    raise AssertionError("not reached")


def patch_time(api, name):
    (t,) = [r["time"] for r in api.requests if r["method"] == "PATCH" and r["path"].endswith("/" + name)]
    return t


def test_close_waits_for_a_failing_upgrade_and_its_rollback_and_closes_the_rest_at_once(wctl, api):
    script = api.helm_upgrade("flux-system", "podinfo", upgrade=1.0, remediation=0.8)
    wait_until(lambda: in_progress(api, "podinfo", HR))
    p = wctl.run("close", "--targets", PODINFO + ",kustomization/flux-system/apps-rw", "--overrun", "30s", *FAST,
                 "-o", "json")
    doc = valid(p, "close")
    by_name = {r["name"]: r for r in doc["results"]}
    # The settled one first and at once; podinfo only after the rollback ended.
    assert [r["name"] for r in doc["results"]] == ["apps-rw", "podinfo"]
    assert by_name["apps-rw"]["result"] == "closed" and by_name["apps-rw"]["overrun"] is None
    hr = by_name["podinfo"]
    assert hr["result"] == "closed" and hr["overrun"]["settled"] is True
    assert 1.0 <= hr["overrun"]["waitedSeconds"] < 10
    assert hr["overrun"]["inProgress"].startswith("Reconciling: ")
    assert script.done.is_set() and not script.halted  # the remediation ran before the close
    obj = wctl.obj("podinfo", resource=HR)
    assert obj["spec"]["suspend"] is True
    # The failure and its remediation are what they are: windowctl neither hides nor repairs them.
    assert cond(obj, "Remediated")["status"] == "True" and cond(obj, "Released")["reason"] == "UpgradeFailed"
    assert patch_time(api, "apps-rw") < patch_time(api, "podinfo")
    events = {e["involvedObject"]["name"]: e for e in wctl.events("WindowClosed")}
    assert events["podinfo"]["type"] == "Normal" and "still in progress" not in events["podinfo"]["message"]


def test_close_waits_for_a_kustomization_reconciling(wctl, api):
    api.kustomization_reconciling("flux-system", "apps-rw", duration=1.0)
    wait_until(lambda: in_progress(api, "apps-rw", "kustomizations"))
    p = wctl.run("close", "apps-rw", "--overrun", "20s", *FAST)
    assert p.returncode == 0, p.stderr
    (line,) = lines(p.stdout)
    assert line.startswith("flux-system/apps-rw closed, after waiting ")
    assert "for Flux to settle (Reconciling: Running health checks for revision " in line
    assert "in progress" in p.stderr  # the log says why it waits
    obj = wctl.obj("apps-rw")
    assert obj["spec"]["suspend"] is True and cond(obj, "Ready")["status"] == "True"


def test_sync_waits_too_when_it_closes(wctl, api):
    api.kustomization_reconciling("flux-system", "apps-rw", duration=0.8)
    wait_until(lambda: in_progress(api, "apps-rw", "kustomizations"))
    p = wctl.run("sync", "apps-rw", "--window", "* * * * * for 1h", "--deny", "* * * * * for 1h", "--overrun", "20s",
                 *FAST, "-o", "json")
    (r,) = valid(p, "sync")["results"]
    assert r["result"] == "closed" and r["overrun"]["settled"] is True and r["overrun"]["waitedSeconds"] > 0.3


def test_overrun_runs_out_closes_anyway_and_says_so(wctl, api):
    api.helm_upgrade("flux-system", "podinfo", upgrade=60, remediation=1)
    wait_until(lambda: in_progress(api, "podinfo", HR))
    start = dt.datetime.now()
    p = wctl.run("close", "--targets", PODINFO, "--overrun", "2s", *FAST, "-o", "json")
    took = (dt.datetime.now() - start).total_seconds()
    (r,) = valid(p, "close")["results"]
    assert r["result"] == "closed" and r["overrun"]["settled"] is False
    assert 2 <= r["overrun"]["waitedSeconds"] < 4 and took < 10
    assert r["overrun"]["inProgress"] == "Reconciling: Running 'upgrade' action with timeout of 5m0s"
    assert "closed while still in progress after --overrun 2s" in p.stderr
    assert wctl.suspended("podinfo", resource=HR)
    (event,) = wctl.events("WindowClosed")
    assert event["type"] == "Warning"
    assert "closed while still in progress after --overrun 2s (Reconciling: Running 'upgrade' action" in event["message"]
    text = wctl.run("close", "--targets", PODINFO, "--overrun", "2s").stdout
    assert text == "helmrelease/flux-system/podinfo already closed\n"  # a closed one is never waited for


def test_overrun_text_when_it_runs_out(wctl, api):
    api.kustomization_reconciling("flux-system", "apps-rw", duration=60)
    wait_until(lambda: in_progress(api, "apps-rw", "kustomizations"))
    p = wctl.run("close", "apps-rw", "--overrun", "1s", *FAST)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("flux-system/apps-rw closed, still in progress after waiting 1s (--overrun) (Reconciling: ")


def test_overrun_0_closes_at_once_and_the_rollback_waits_for_the_window(wctl, api):
    script = api.helm_upgrade("flux-system", "podinfo", upgrade=0.5, remediation=0.5)
    wait_until(lambda: in_progress(api, "podinfo", HR))
    p = wctl.run("close", "--targets", PODINFO, "--overrun", "0", "-o", "json")
    (r,) = valid(p, "close")["results"]
    assert r["result"] == "closed" and r["overrun"] is None
    # Today's behaviour, and why the default waits: the upgrade fails, its rollback never runs.
    assert script.done.wait(5) and script.halted
    obj = wctl.obj("podinfo", resource=HR)
    assert cond(obj, "Reconciling")["reason"] == "ProgressingWithRetry" and cond(obj, "Remediated") is None


def test_dry_run_does_not_wait(wctl, api):
    api.kustomization_reconciling("flux-system", "apps-rw", duration=60)
    wait_until(lambda: in_progress(api, "apps-rw", "kustomizations"))
    p = wctl.run("close", "apps-rw", "--dry-run", "--overrun", "1m")
    assert p.returncode == 0 and p.stdout.startswith("flux-system/apps-rw would close")
    assert api.writes == 0


def test_bad_overrun_and_cutoff(wctl, api):
    for args, flag in ((["close", "apps-rw", "--overrun", "soon"], "--overrun"),
                       (["sync", "apps-rw", "--window", "* * * * * for 1h", "--cutoff", "1d"], "--cutoff"),
                       (["open", "apps-rw", "--cutoff", "5m"], "--cutoff")):
        p = wctl.run(*args)
        assert p.returncode == 2 and flag in p.stderr and len(lines(p.stderr)) == 1, p.stderr
    assert "--overrun" not in wctl.run("open", "--help", mode="none").stdout
    assert api.writes == 0


def closing_soon():
    """A window that began at the start of this minute and lasts 3 minutes: 2 to 3 minutes left."""
    now = dt.datetime.now(dt.timezone.utc)
    return f"{now.minute} {now.hour} * * * for 3m"


def test_sync_cutoff_leaves_a_window_closing_soon_unopened(wctl, api):
    wctl.run("close", "apps-rw")
    writes = api.writes
    p = wctl.run("sync", "apps-rw", "--window", closing_soon(), "--cutoff", "10m")
    assert p.returncode == 0, p.stderr
    (line,) = lines(p.stdout)
    assert line.startswith("flux-system/apps-rw not opened, the window closes at ")
    assert line.endswith(": within --cutoff 10m")
    assert wctl.suspended("apps-rw") and api.writes == writes
    (r,) = valid(wctl.run("sync", "apps-rw", "--window", closing_soon(), "--cutoff", "10m", "-o", "json"),
                 "sync")["results"]
    assert r["result"] == "not-opened" and r["changed"] is False and "within --cutoff 10m" in r["message"]
    # A cutoff shorter than what is left: opened.
    assert wctl.run("sync", "apps-rw", "--window", closing_soon(), "--cutoff", "1m").stdout == "flux-system/apps-rw opened\n"
    # An open window stays open: the cutoff only holds back an open.
    again = wctl.run("sync", "apps-rw", "--window", closing_soon(), "--cutoff", "10m")
    assert again.stdout == "flux-system/apps-rw already open\n"


def test_scheduled_open_cutoff_reads_the_objects_window(wctl, api):
    wctl.run("close", "apps-rw", "apps-rt")
    obj = wctl.obj("apps-rw")
    obj["metadata"]["annotations"]["windowctl.io/window"] = closing_soon()
    api.put("kustomizations", "flux-system", "apps-rw", obj)
    p = wctl.run("open", "apps-rw", "apps-rt", "--scheduled", "--cutoff", "10m", "-o", "json")
    doc = valid(p, "open")
    assert [r["result"] for r in doc["results"]] == ["not-opened", "opened"]
    assert wctl.suspended("apps-rw") and not wctl.suspended("apps-rt")
    # apps-rt has no window: nothing says when it closes, which the log says.
    assert "apps-rt: --cutoff: the object has no window" in p.stderr
    assert json_out(wctl.run("open", "apps-rw", "--scheduled", "--cutoff", "1m", "-o", "json"))["results"][0][
        "result"] == "opened"
