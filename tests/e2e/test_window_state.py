"""The window's state on the object (issue 21 part 3): Flux's reason as a person says it, the next
edges in windowctl.io/next-open and -close, and the Flux Operator's suspendedBy, written by the
real binary against the fake API server and read back as status computes them."""

import datetime as dt

from e2e_util import backdate_mark, json_out, lines, patch_as

TARGETS = ["--kustomizations", "apps-rw"]
REASON = "suspend.toolkit.fluxcd.io/reason"
RECORD = "windowctl.io/flux-reason"
BY = "fluxcd.controlplane.io/suspendedBy"
NEXT_OPEN, NEXT_CLOSE = "windowctl.io/next-open", "windowctl.io/next-close"
# Open one hour a year, New Year's midnight on the Zurich clock: closed whenever the test runs
# (unless on that very hour, which the test skips).
NEW_YEAR = "0 0 1 1 * for 1h in Europe/Zurich"


def new_year_edges():
    now = dt.datetime.now(dt.timezone.utc)
    # Midnight in Zurich is 23:00 UTC the day before (CET, +01:00, all winter).
    start = dt.datetime(now.year, 12, 31, 23, tzinfo=dt.timezone.utc)
    if start <= now:
        start = dt.datetime(now.year + 1, 12, 31, 23, tzinfo=dt.timezone.utc)
    start_local = f"{start.year + 1}-01-01 00:00 Europe/Zurich"
    z = "%Y-%m-%dT%H:%M:%SZ"
    return start.strftime(z), (start + dt.timedelta(hours=1)).strftime(z), start_local


def annotations(wctl, name="apps-rw"):
    return wctl.obj(name)["metadata"].get("annotations", {})


def status_row(wctl, *flags):
    (row,) = json_out(wctl.run("status", *TARGETS, *flags, "-o", "json"))["results"]
    return row


def test_sync_closes_with_a_reason_people_read_and_the_next_edges(wctl, api):
    opens, closes, local = new_year_edges()
    p = wctl.run("sync", *TARGETS, "--window", NEW_YEAR)
    assert p.returncode == 0 and lines(p.stdout) == ["flux-system/apps-rw closed"], p.stderr
    ann = annotations(wctl)
    assert ann[REASON] == ann[RECORD] == f"windowctl: window closed until {local}"
    assert ann[BY] == "windowctl"
    assert (ann[NEXT_OPEN], ann[NEXT_CLOSE]) == (opens, closes)
    # status computes the same edges from the schedule; annotations and columns agree.
    row = status_row(wctl, "--window", NEW_YEAR)
    assert (row["window"], row["nextOpen"], row["nextClose"]) == ("closed", opens, closes)
    assert row["suspendedBy"] == "windowctl" and not row["held"]
    # Ticks with nothing changed write nothing.
    writes = api.writes
    for _ in range(2):
        assert wctl.run("sync", *TARGETS, "--window", NEW_YEAR).stdout == "flux-system/apps-rw already closed\n"
    assert api.writes == writes


def test_a_freeze_while_closed_updates_the_reason_once_and_open_still_resumes(wctl, api):
    opens, closes, local = new_year_edges()
    assert wctl.run("sync", *TARGETS, "--window", NEW_YEAR).returncode == 0
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    z = "%Y-%m-%dT%H:%M:%SZ"
    freeze = f"{(now - dt.timedelta(hours=1)).strftime(z)}/{(now + dt.timedelta(days=2)).strftime(z)}"
    p = wctl.run("sync", *TARGETS, "--window", NEW_YEAR, "--freeze", freeze)
    assert lines(p.stdout) == ["flux-system/apps-rw already closed, reason updated"], p.stdout
    ann = annotations(wctl)
    assert ann[REASON] == ann[RECORD] == f"windowctl: window closed until {local} (freeze {freeze})"
    (event,) = wctl.events("WindowUpdated")
    assert "reason updated" in event["message"]
    writes = api.writes
    assert wctl.run("sync", *TARGETS, "--window", NEW_YEAR, "--freeze", freeze).stdout == \
        "flux-system/apps-rw already closed\n"
    assert api.writes == writes
    # Still windowctl's own suspension: the scheduled open resumes it, and its marks go.
    p = wctl.run("open", *TARGETS)
    assert p.stdout == "flux-system/apps-rw opened\n", p.stdout + p.stderr
    ann = annotations(wctl)
    assert REASON not in ann and BY not in ann and RECORD not in ann
    assert (ann[NEXT_OPEN], ann[NEXT_CLOSE]) == (opens, closes)  # the schedule's, whoever opened it


def test_an_explicit_reason_wins_and_is_never_replaced(wctl, api):
    p = wctl.run("sync", *TARGETS, "--window", NEW_YEAR, "--reason", "INC-7 freeze")
    assert p.stdout == "flux-system/apps-rw closed\n"
    assert annotations(wctl)[REASON] == "INC-7 freeze" == annotations(wctl)[RECORD]
    p = wctl.run("sync", *TARGETS, "--window", NEW_YEAR)
    assert p.stdout == "flux-system/apps-rw already closed\n"
    assert annotations(wctl)[REASON] == "INC-7 freeze"


def test_the_objects_own_window_governs_open_and_close(wctl, api):
    opens, closes, local = new_year_edges()
    obj = wctl.obj("apps-rw")
    obj["metadata"].setdefault("annotations", {})["windowctl.io/window"] = NEW_YEAR
    api.put("kustomizations", "flux-system", "apps-rw", obj)
    assert wctl.run("close", *TARGETS, "--scheduled").stdout == "flux-system/apps-rw closed\n"
    ann = annotations(wctl)
    assert ann[REASON] == f"windowctl: window closed until {local}"
    assert (ann[NEXT_OPEN], ann[NEXT_CLOSE]) == (opens, closes)
    # An override decides instead of the window: Flux's reason says windowctl closed it, not when
    # the window opens.
    wctl.run("open", *TARGETS)
    assert wctl.run("close", *TARGETS, "--for", "1h").returncode == 0
    assert annotations(wctl)[REASON] == "suspended by windowctl: reconciliation window closed"
    # Without a window anywhere nothing about edges is written.
    wctl.run("open", *TARGETS, "--relabel")
    assert NEXT_OPEN not in annotations(wctl, "apps-rt")
    assert wctl.run("close", "apps-rt").returncode == 0
    assert NEXT_OPEN not in annotations(wctl, "apps-rt")
    assert annotations(wctl, "apps-rt")[REASON] == "suspended by windowctl: reconciliation window closed"


def test_flux_operator_ui_suspension_stays_held_by_sync_and_names_the_user(wctl, api):
    assert wctl.run("sync", *TARGETS, "--window", NEW_YEAR).returncode == 0
    backdate_mark(api, "apps-rw")
    ui = "flux-operator/v0.30.0"
    patch_as(api, "apps-rw", {"metadata": {"annotations": {BY: None}}, "spec": {"suspend": None}}, ui,
             field_manager="flux-operator-web")
    patch_as(api, "apps-rw", {"metadata": {"annotations": {BY: "alice@example.com"}}, "spec": {"suspend": True}}, ui,
             field_manager="flux-operator-web")
    patches = len(wctl.patches())
    p = wctl.run("sync", *TARGETS, "--window", "* * * * * for 1h")  # the window says open
    assert p.returncode == 0 and wctl.suspended("apps-rw")
    assert p.stdout.startswith("flux-system/apps-rw held: suspended by someone else (alice@example.com suspended it "
                               "in the Flux Operator after windowctl did)"), p.stdout
    assert len(wctl.patches()) == patches  # not even the edges on someone else's suspension (an Event only)
    row = status_row(wctl)
    assert row["held"]["by"] == "alice@example.com" and row["suspendedBy"] == "someone else"
