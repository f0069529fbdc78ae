"""Windows as code: time-boxed overrides now; schedule and sync build on them."""
import datetime as dt
import json
import re

import pytest

from e2e_util import SA_USER, json_out, lines

TARGETS = ["--kustomizations", "apps-rw"]


def ann(wctl, name="apps-rw"):
    return wctl.obj(name)["metadata"].get("annotations", {})


def test_open_for_records_an_override(wctl, api):
    wctl.run("close", *TARGETS)
    before = dt.datetime.now(dt.timezone.utc)
    p = wctl.run("open", *TARGETS, "--for", "2h", "--reason", "INC-123")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("flux-system/apps-rw opened, open until ")
    a = ann(wctl)
    assert a["windowctl.io/override"] == "open"
    until = dt.datetime.fromisoformat(a["windowctl.io/override-until"].replace("Z", "+00:00"))
    assert dt.timedelta(hours=2) - dt.timedelta(seconds=5) <= until - before <= dt.timedelta(hours=2, seconds=5)
    assert a["windowctl.io/override-reason"] == "INC-123"
    assert a["windowctl.io/override-by"] == SA_USER  # from the ServiceAccount token, or the token's user
    row = json_out(wctl.run("status", *TARGETS, "-o", "json"))["results"][0]
    assert row["override"]["state"] == "open" and row["override"]["reason"] == "INC-123"
    table = wctl.run("status", *TARGETS).stdout
    assert "OVERRIDE" in lines(table)[0] and "open until" in table


def test_close_for_then_plain_open_clears_the_override(wctl, api):
    p = wctl.run("close", *TARGETS, "--for", "12h")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert ann(wctl)["windowctl.io/override"] == "closed"
    p = wctl.run("open", *TARGETS)
    assert p.stdout == "flux-system/apps-rw opened, override cleared\n"
    assert not any(k.startswith("windowctl.io/") for k in ann(wctl))


def test_bad_for(wctl, api):
    for bad in ("soon", "0"):
        p = wctl.run("open", *TARGETS, "--for", bad)
        assert p.returncode == 2 and "--for" in p.stderr
    assert api.writes == 0


ALWAYS = "* * * * * for 1h"  # a start every minute, each an hour long: open at any instant
OPEN = ["--window", ALWAYS]
CLOSED = ["--window", ALWAYS, "--deny", ALWAYS]  # deny wins over allow: closed at any instant


def test_sync_converges_and_a_second_run_writes_nothing(wctl, api):
    p = wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *CLOSED)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed", "flux-system/apps-rt closed"]
    assert wctl.suspended("apps-rw") and wctl.suspended("apps-rt")
    (event, _) = wctl.events("WindowClosed")
    assert "window closed" in event["message"]
    writes = api.writes
    again = wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *CLOSED)
    assert again.returncode == 0
    assert lines(again.stdout) == ["flux-system/apps-rw already closed", "flux-system/apps-rt already closed"]
    assert api.writes == writes and len(wctl.patches()) == 2
    opened = wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *OPEN)
    assert lines(opened.stdout) == ["flux-system/apps-rw opened", "flux-system/apps-rt opened"]
    writes = api.writes
    assert wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *OPEN).stdout.count("already open") == 2
    assert api.writes == writes


def test_sync_uses_the_objects_own_window(wctl, api):
    obj = wctl.obj("apps-rt")
    obj["metadata"].setdefault("annotations", {}).update({"windowctl.io/window": ALWAYS, "windowctl.io/deny": ALWAYS})
    api.put("kustomizations", "flux-system", "apps-rt", obj)
    p = wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *OPEN)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw already open", "flux-system/apps-rt closed"]
    bad = wctl.obj("infra")
    bad["metadata"].setdefault("annotations", {})["windowctl.io/window"] = "0 8 * * FOO for 1h"
    api.put("kustomizations", "flux-system", "infra", bad)
    p = wctl.run("sync", "--kustomizations", "infra,apps-rw", *OPEN)
    assert p.returncode == 1
    assert "flux-system/infra: annotation windowctl.io/window: invalid cron" in p.stderr
    assert lines(p.stdout)[1] == "flux-system/apps-rw already open"


def test_sync_honours_overrides_until_they_expire(wctl, api):
    wctl.run("close", *TARGETS, "--for", "1h", "--reason", "freeze for INC-9")
    p = wctl.run("sync", *TARGETS, *OPEN)
    assert re.fullmatch(r"flux-system/apps-rw already closed, kept closed by override closed until \S+Z by "
                        r"\S+ \(freeze for INC-9\), over the window\n", p.stdout), p.stdout
    assert wctl.suspended("apps-rw")
    obj = wctl.obj("apps-rw")
    obj["metadata"]["annotations"]["windowctl.io/override-until"] = "2020-01-01T00:00:00Z"
    api.put("kustomizations", "flux-system", "apps-rw", obj)
    p = wctl.run("sync", *TARGETS, *OPEN)
    assert p.stdout == "flux-system/apps-rw opened, override cleared\n"
    assert not any(k.startswith("windowctl.io/") for k in ann(wctl))
    assert "override expired" in wctl.events("WindowOpened")[-1]["message"]


def test_sync_keeps_an_override_until_a_time_beyond_2262(wctl, api):
    # F3: 9999 overflowed to 1816, so the freeze read as expired and sync opened.
    wctl.run("close", *TARGETS, "--for", "1h", "--reason", "freeze")
    obj = wctl.obj("apps-rw")
    obj["metadata"]["annotations"]["windowctl.io/override-until"] = "9999-12-31T23:59:59Z"
    api.put("kustomizations", "flux-system", "apps-rw", obj)
    writes = api.writes
    p = wctl.run("sync", *TARGETS, *OPEN)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("flux-system/apps-rw already closed, kept closed by override closed until "
                               "9999-12-31T23:59:59Z") and wctl.suspended("apps-rw")
    assert ann(wctl)["windowctl.io/override-until"] == "9999-12-31T23:59:59Z" and api.writes == writes
    p = wctl.run("open", *TARGETS, "--scheduled")
    assert p.returncode == 0 and wctl.suspended("apps-rw")
    assert "kept closed by override closed until 9999-12-31T23:59:59Z" in p.stdout


def test_durations_that_would_wrap_a_clock_are_exit_2(wctl, api):
    for flag, value in (("--for", "2562047h"), ("--timeout", "1000000h"), ("--request-timeout", "99999999999999999999s")):
        p = wctl.run("open", *TARGETS, flag, value)
        assert p.returncode == 2 and flag in p.stderr and len(lines(p.stderr)) == 1, p.stderr
    assert api.writes == 0


def test_sync_holds_what_someone_else_suspended(wctl, api):
    obj = wctl.obj("apps-rw")
    obj["spec"]["suspend"] = True
    api.put("kustomizations", "flux-system", "apps-rw", obj)
    p = wctl.run("sync", *TARGETS, *OPEN)
    assert p.returncode == 0
    assert p.stdout == "flux-system/apps-rw held: suspended by someone else\n"


def test_sync_without_a_window_fails_that_target(wctl, api):
    p = wctl.run("sync", *TARGETS)
    assert p.returncode == 1
    assert "flux-system/apps-rw: no window" in p.stderr


def test_sync_with_the_api_down_fails_and_changes_nothing(wctl, api):
    api.stop()
    p = wctl.run("sync", *TARGETS, *CLOSED, "--request-timeout", "1s")
    assert p.returncode == 1
    assert "unreachable" in p.stderr


def test_sync_bad_window_flag_is_exit_2(wctl, api):
    p = wctl.run("sync", *TARGETS, "--window", "0 8 * * MON for 81h in Mars/Base")
    assert p.returncode == 2 and "Mars/Base" in p.stderr and len(lines(p.stderr)) == 1
    assert api.writes == 0


def test_status_with_window_columns(wctl, api):
    p = wctl.run("status", *TARGETS, "--window", "0 8 * * MON for 81h in Europe/Zurich")
    assert p.returncode == 0, p.stderr
    header = lines(p.stdout)[0]
    assert "WINDOW" in header and "NEXT OPEN" in header and "NEXT CLOSE" in header
    row = json_out(wctl.run("status", *TARGETS, *CLOSED, "-o", "json"))["results"][0]
    assert row["window"] == "closed"
    row = json_out(wctl.run("status", *TARGETS, "--window", "0 8 * * MON for 81h in Europe/Zurich", "-o", "json"))["results"][0]
    assert row["window"] in ("open", "closed")
    # JSON times are UTC: 08:00 and 17:00 in Zurich, summer or winter.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT0[67]:00:00Z", row["nextOpen"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT1[56]:00:00Z", row["nextClose"])


def test_schedule_needs_no_cluster(wctl, api):
    p = wctl.run("schedule", "--window", "0 8 * * MON for 81h in Europe/Zurich", "--at", "2026-03-25T12:00:00Z",
                 "--count", "2", "-o", "json", mode="none")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"command": "schedule", "open": True, "zone": "Europe/Zurich", "windows": [
        {"start": "2026-03-23T07:00:00Z", "end": "2026-03-26T16:00:00Z"},
        {"start": "2026-03-30T06:00:00Z", "end": "2026-04-02T15:00:00Z"}]}
    text = wctl.run("schedule", "--window", "0 8 * * MON for 81h in Europe/Zurich", "--at", "2026-03-27T12:00:00Z",
                    mode="none").stdout
    assert lines(text)[0] == "closed: opens in 2d 18h (2026-03-30T08:00:00+02:00)"
    assert "2026-03-30T06:00:00Z" in text  # UTC shown too
    spring = json.loads(wctl.run("schedule", "--window", "30 2 * * * for 1h in Europe/Zurich", "--at",
                                 "2026-03-28T12:00:00Z", "--count", "1", "-o", "json", mode="none").stdout)
    assert spring["windows"][0]["start"] == "2026-03-29T01:30:00Z"  # 03:30+02:00: 02:30 does not exist that night


def test_schedule_at_a_time_beyond_2262_is_refused(wctl, api):
    # F3: --at 3000 wrapped around to 1830 and listed windows there.
    for at, needle in (("3000-01-01T00:00:00Z", "is after 2262-04-11T23:47:16Z"),
                       ("1600-01-01T00:00:00Z", "is before 1677-09-21T00:12:44Z")):
        p = wctl.run("schedule", "--window", "0 8 * * MON for 81h", "--at", at, mode="none")
        assert p.returncode == 2 and p.stdout == "", p.stdout
        assert needle in p.stderr and "--at" in p.stderr and len(lines(p.stderr)) == 1, p.stderr
    p = wctl.run("schedule", "--window", ALWAYS, "--freeze", "2026-01-01T00:00:00Z/9999-12-31T23:59:59Z", mode="none")
    assert p.returncode == 2 and "is after 2262-04-11T23:47:16Z" in p.stderr, p.stderr
    # Up to the last second SysTime holds, and the window open there ends with it.
    p = wctl.run("schedule", "--window", "0 8 * * FRI for 81h", "--at", "2262-04-11T12:00:00Z", "-o", "json", mode="none")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"command": "schedule", "open": True, "zone": "UTC", "windows": [
        {"start": "2262-04-11T08:00:00Z", "end": "2262-04-11T23:47:16Z"}]}


@pytest.mark.parametrize("args,needle", [
    (["--window", "0 8 * * MON for 81x"], '"81x"'),
    (["--window", "0 8 * * MON"], "for"),
    (["--window", "0 25 * * * for 1h"], "hour 25"),
    (["--window", "0 8 * * MON for 1h in Mars/Base"], "Mars/Base"),
    (["--window", ALWAYS, "--freeze", "2026-01-02T00:00:00Z/2026-01-01T00:00:00Z"], "freeze"),
    (["--window", ALWAYS, "--at", "yesterday"], "--at"),
    ([], "--window"),
])
def test_schedule_bad_input(wctl, api, args, needle):
    p = wctl.run("schedule", *args, mode="none")
    assert p.returncode == 2, p.stdout
    assert needle in p.stderr and len(lines(p.stderr)) == 1, p.stderr


def test_schedule_to_window_keeps_the_wall_clock_over_dst(wctl, api):
    # Friday 17:00 to Monday 08:00 in Zurich over the spring change: 62h elapsed, 08:00 CEST.
    window = "0 17 * * FRI to 0 8 * * MON in Europe/Zurich"
    p = wctl.run("schedule", "--window", window, "--at", "2026-03-26T00:00:00Z", "--count", "2", "-o", "json", mode="none")
    assert p.returncode == 0, p.stderr
    # JSON is UTC: 17:00+01:00 to 08:00+02:00, then 17:00+02:00 to 08:00+02:00.
    assert json.loads(p.stdout) == {"command": "schedule", "open": False, "zone": "Europe/Zurich", "windows": [
        {"start": "2026-03-27T16:00:00Z", "end": "2026-03-30T06:00:00Z"},
        {"start": "2026-04-03T15:00:00Z", "end": "2026-04-06T06:00:00Z"}]}
    text = wctl.run("schedule", "--window", window, "--at", "2026-03-28T00:00:00Z", mode="none").stdout
    assert lines(text)[0] == "open: closes in 2d 6h (2026-03-30T08:00:00+02:00)", text
    header = next(line for line in lines(text) if line.startswith("START")).split()
    assert header == ["START", "(Europe/Zurich)", "END", "(Europe/Zurich)", "START", "(UTC)", "END", "(UTC)", "LENGTH"], text
    assert "2026-03-27T16:00:00Z   2026-03-30T06:00:00Z   2d 14h" in text
    # A "for" window of the same clock length ends an hour later on the clock.
    text = wctl.run("schedule", "--window", "0 17 * * FRI for 63h in Europe/Zurich", "--at", "2026-03-26T00:00:00Z",
                    "--count", "1", "-o", "json", mode="none").stdout
    assert json.loads(text)["windows"][0]["end"] == "2026-03-30T07:00:00Z"  # 09:00+02:00
    # Without a zone the local columns say UTC.
    text = wctl.run("schedule", "--window", "0 8 * * MON to 0 8 * * *", "--at", "2026-03-20T00:00:00Z", mode="none").stdout
    header = next(line for line in lines(text) if line.startswith("START")).split()
    assert header[:4] == ["START", "(UTC)", "END", "(UTC)"], text
    assert "2026-03-23T08:00:00Z   2026-03-24T08:00:00Z" in text  # the same minute: 24 hours


def test_schedule_looks_5_years_ahead(wctl, api):
    p = wctl.run("schedule", "--window", "0 0 29 2 * for 24h", "--at", "2026-11-24T00:00:00Z", "-o", "json", mode="none")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"command": "schedule", "open": False, "zone": "UTC", "windows": [
        {"start": "2028-02-29T00:00:00Z", "end": "2028-03-01T00:00:00Z"}]}
    text = wctl.run("schedule", "--window", "0 0 29 2 * for 24h", "--at", "2026-11-24T00:00:00Z", mode="none").stdout
    assert lines(text)[0].startswith("closed: opens in ") and lines(text)[0].endswith("(2028-02-29T00:00:00Z)"), text
    # 2100 is no leap year: from March 2096 the next 29 February is 8 years away.
    p = wctl.run("schedule", "--window", "0 0 29 2 * for 24h", "--at", "2096-03-01T00:00:00Z", mode="none")
    assert p.returncode == 0 and p.stdout == "closed: no window opens within the next 5 years\n", p.stdout


def test_a_close_schedule_that_never_matches_is_exit_2(wctl, api):
    for cmd, extra in (("schedule", []), ("sync", TARGETS), ("status", TARGETS)):
        p = wctl.run(cmd, *extra, "--window", "0 8 * * * to 0 0 30 2 *", **({"mode": "none"} if cmd == "schedule" else {}))
        assert p.returncode == 2, (cmd, p.stdout, p.stderr)
        assert 'the close schedule "0 0 30 2 *" never matches' in p.stderr and len(lines(p.stderr)) == 1, p.stderr
    p = wctl.run("sync", *TARGETS, "--window", ALWAYS, "--deny", "0 8 * * * to 0 0 31 4 *")
    assert p.returncode == 2 and '"0 0 31 4 *" never matches' in p.stderr, p.stderr
    assert api.writes == 0


def _day(d):
    return f"{d.day} {d.month}"


def test_sync_with_a_to_window_annotation(wctl, api):
    today = dt.datetime.now(dt.timezone.utc).date()
    day = dt.timedelta(days=1)
    # Windows by calendar day around today, far from their edges whenever the test runs.
    around = f"0 0 {_day(today - 10 * day)} * to 0 0 {_day(today + 10 * day)} * in Europe/Zurich"
    later = f"0 0 {_day(today + 90 * day)} * to 0 0 {_day(today + 100 * day)} * in Europe/Zurich"
    wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *CLOSED)
    assert wctl.suspended("apps-rw") and wctl.suspended("apps-rt")
    for name, window in (("apps-rw", around), ("apps-rt", later)):
        obj = wctl.obj(name)
        obj["metadata"].setdefault("annotations", {})["windowctl.io/window"] = window
        api.put("kustomizations", "flux-system", name, obj)
    # The flags say open; each object's own window wins (the flags' --deny would still apply).
    p = wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *OPEN)
    assert p.returncode == 0, p.stderr
    # apps-rt stays closed; its window's edges are new, so they are written (and said).
    out = lines(p.stdout)
    assert out[0] == "flux-system/apps-rw opened"
    assert re.fullmatch(r"flux-system/apps-rt already closed, reason updated, next open \S+Z, next close \S+Z", out[1]), out
    assert not wctl.suspended("apps-rw") and wctl.suspended("apps-rt")
    rows = json_out(wctl.run("status", "--kustomizations", "apps-rw,apps-rt", "-o", "json"))["results"]
    assert [r["window"] for r in rows] == ["open", "closed"]
    for row in rows:  # what status computes is what sync recorded
        ann = wctl.obj(row["name"])["metadata"]["annotations"]
        assert (ann["windowctl.io/next-open"], ann["windowctl.io/next-close"]) == (row["nextOpen"], row["nextClose"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT2[23]:00:00Z", rows[0]["nextClose"]), rows[0]  # midnight in Zurich
    # A never-matching close in an annotation fails that target only, naming it.
    obj = wctl.obj("apps-rt")
    obj["metadata"]["annotations"]["windowctl.io/window"] = "0 8 * * * to 0 0 30 2 *"
    api.put("kustomizations", "flux-system", "apps-rt", obj)
    p = wctl.run("sync", "--kustomizations", "apps-rw,apps-rt", *OPEN)
    assert p.returncode == 1
    assert 'flux-system/apps-rt: annotation windowctl.io/window: invalid window "0 8 * * * to 0 0 30 2 *": the close ' \
           'schedule "0 0 30 2 *" never matches' in p.stderr, p.stderr
    assert lines(p.stdout)[0] == "flux-system/apps-rw already open"


def test_status_with_a_to_window(wctl, api):
    row = json_out(wctl.run("status", *TARGETS, "--window", "0 8 * * MON to 0 17 * * THU in Europe/Zurich", "-o",
                            "json"))["results"][0]
    assert row["window"] in ("open", "closed")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT0[67]:00:00Z", row["nextOpen"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT1[56]:00:00Z", row["nextClose"])


def test_sync_says_an_override_wins_over_a_freeze(wctl):
    """The precedence (docs/windows.md): override, then freeze, then deny, then window; sync says
    which decided when the override goes against the schedule."""
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    freeze = f"{(now - dt.timedelta(hours=1)).isoformat().replace('+00:00', 'Z')}/" \
             f"{(now + dt.timedelta(hours=1)).isoformat().replace('+00:00', 'Z')}"
    p = wctl.run("sync", *TARGETS, *OPEN, "--freeze", freeze)
    assert p.stdout == "flux-system/apps-rw closed\n" and wctl.suspended("apps-rw")
    assert wctl.run("open", *TARGETS, "--for", "2h", "--reason", "INC-1").returncode == 0
    p = wctl.run("sync", *TARGETS, *OPEN, "--freeze", freeze)
    assert p.returncode == 0
    assert re.fullmatch(r"flux-system/apps-rw already open, kept open by override open until \S+Z by \S+ "
                        r"\(INC-1\), over a freeze\n", p.stdout), p.stdout
    assert not wctl.suspended("apps-rw")
