"""Calendars as window sources: --window-calendar and --deny-calendar with the real binary."""
import datetime as dt
import json
import time

from e2e_util import json_out, lines

TARGETS = ["--kustomizations", "apps-rw"]
ALWAYS = ["--window", "* * * * * for 2m"]  # open at every instant


def ics(*events, head=""):
    body = "".join("BEGIN:VEVENT\r\n" + "".join(p + "\r\n" for p in e) + "END:VEVENT\r\n" for e in events)
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//windowctl//e2e//EN\r\n" + head + body + "END:VCALENDAR\r\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, newline="")
    return str(path)


def now_utc():
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def stamp(t):
    return t.strftime("%Y%m%dT%H%M%SZ")


def freeze_now(tmp_path, summary="Christmas freeze"):
    """A deny calendar whose one event is on now, for a day."""
    t = now_utc()
    return write(tmp_path, "freeze.ics", ics([f"UID:f", f"SUMMARY:{summary}", f"DTSTART:{stamp(t - dt.timedelta(hours=1))}",
                                              f"DTEND:{stamp(t + dt.timedelta(days=1))}"]))


def test_schedule_merges_a_window_with_a_holiday_calendar(wctl, tmp_path):
    holidays = write(tmp_path, "holidays.ics", ics(
        ["UID:xmas", "SUMMARY:Christmas freeze", "DTSTART;VALUE=DATE:20261221", "DTEND;VALUE=DATE:20270104",
         "RRULE:FREQ=YEARLY"],
        ["UID:patch", "SUMMARY:Patch Tuesday", "DTSTART;TZID=Europe/Zurich:20260113T080000", "DURATION:PT9H",
         "RRULE:FREQ=MONTHLY;BYDAY=2TU"]))
    window = "0 8 * * MON to 0 17 * * THU in Europe/Zurich"
    p = wctl.run("schedule", "--window", window, "--deny-calendar", holidays, "--at", "2026-12-06T00:00:00Z",
                 "--count", "4", "-o", "json")
    assert p.returncode == 0, p.stderr
    # Tuesday 8 December 08:00-17:00 is Patch Tuesday: the week's window is cut there; the two
    # weeks of the freeze (21 December to 4 January, days of Zurich) are gone.
    assert json_out(p)["windows"] == [
        {"start": "2026-12-07T07:00:00Z", "end": "2026-12-08T07:00:00Z"},
        {"start": "2026-12-08T16:00:00Z", "end": "2026-12-10T16:00:00Z"},
        {"start": "2026-12-14T07:00:00Z", "end": "2026-12-17T16:00:00Z"},
        {"start": "2027-01-04T07:00:00Z", "end": "2027-01-07T16:00:00Z"}]
    # A calendar alone is an allow window.
    p = wctl.run("schedule", "--window-calendar", holidays, "--at", "2026-12-01T00:00:00Z", "--count", "1", "-o", "json")
    assert json_out(p)["windows"][0] == {"start": "2026-12-08T07:00:00Z", "end": "2026-12-08T16:00:00Z"}


def test_schedule_needs_an_allow_window(wctl, tmp_path):
    p = wctl.run("schedule", "--deny-calendar", freeze_now(tmp_path))
    assert p.returncode == 2 and "--window EXPR or --window-calendar FILE" in p.stderr
    assert len(lines(p.stderr)) == 1


def test_a_bad_calendar_is_one_line_and_exit_2_before_any_request(wctl, api, tmp_path):
    bad = write(tmp_path, "bad.ics", ics(["UID:a", "DTSTART:20260101T000000Z", "DURATION:PT1H",
                                          "RRULE:FREQ=HOURLY"]))
    missing = str(tmp_path / "nowhere.ics")
    for args, expect in (
        (["--deny-calendar", bad], f"calendar {bad} line 8: RRULE: FREQ=HOURLY is not supported"),
        (["--window-calendar", missing], f"cannot read calendar {missing}"),
    ):
        for command in (["sync", *TARGETS, *ALWAYS], ["status", *TARGETS, *ALWAYS], ["schedule", *ALWAYS]):
            before = len(api.requests)
            p = wctl.run(*command, *args)
            assert p.returncode == 2, (command, p.stderr)
            assert expect in p.stderr and len(lines(p.stderr)) == 1, p.stderr
            assert len(api.requests) == before, "a request before the flags were read"


def test_sync_closes_for_a_calendar_event_and_says_which(wctl, api, tmp_path):
    freeze = freeze_now(tmp_path)
    p = wctl.run("sync", *TARGETS, *ALWAYS, "--deny-calendar", freeze)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed"]
    assert wctl.suspended("apps-rw")
    # status reads the same schedule: closed.
    row = json_out(wctl.run("status", *TARGETS, *ALWAYS, "--deny-calendar", freeze, "-o", "json"))["results"][0]
    assert row["window"] == "closed" and row["nextOpen"] is not None, row
    # Without the calendar the same window opens it again.
    p = wctl.run("sync", *TARGETS, *ALWAYS)
    assert lines(p.stdout) == ["flux-system/apps-rw opened"] and not wctl.suspended("apps-rw")


def test_a_calendar_of_100000_events_is_refused_in_bounded_time(wctl, tmp_path):
    events = "".join(f"BEGIN:VEVENT\r\nUID:{i}\r\nDTSTART;VALUE=DATE:20260101\r\nEND:VEVENT\r\n" for i in range(100000))
    big = write(tmp_path, "big.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + events + "END:VCALENDAR\r\n")
    began = time.monotonic()
    p = wctl.run("schedule", *ALWAYS, "--deny-calendar", big)
    assert p.returncode == 2 and "more than 20000 events (the cap)" in p.stderr and len(lines(p.stderr)) == 1
    assert time.monotonic() - began < 20


def test_a_rule_without_end_is_expanded_only_as_far_as_asked(wctl, tmp_path):
    daily = write(tmp_path, "daily.ics", ics(["UID:d", "SUMMARY:Nightly", "DTSTART:19700101T220000Z",
                                              "DURATION:PT4H", "RRULE:FREQ=DAILY"]))
    began = time.monotonic()
    p = wctl.run("schedule", "--window-calendar", daily, "--at", "2200-01-01T00:00:00Z", "--count", "3", "-o", "json")
    assert p.returncode == 0, p.stderr
    assert [w["start"] for w in json_out(p)["windows"]] == [
        "2199-12-31T22:00:00Z", "2200-01-01T22:00:00Z", "2200-01-02T22:00:00Z"]
    assert time.monotonic() - began < 20


def test_outlook_export_with_a_windows_zone(wctl, tmp_path):
    vtimezone = ("BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\n"
                 "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\r\n"
                 "END:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\n"
                 "TZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\n"
                 "END:VTIMEZONE\r\n")
    event = ["UID:o", "SUMMARY:Wartungsfenster", "DTSTART;TZID=W. Europe Standard Time:20260323T080000",
             "DTEND;TZID=W. Europe Standard Time:20260323T120000", "RRULE:FREQ=WEEKLY;COUNT=2"]
    path = write(tmp_path, "outlook.ics", "\ufeff" + ics(event, head=vtimezone))
    p = wctl.run("schedule", "--window-calendar", path, "--at", "2026-03-01T00:00:00Z", "-o", "json")
    assert p.returncode == 0, p.stderr
    # The week after, summer time: 08:00 is 06:00Z.
    assert json_out(p)["windows"] == [{"start": "2026-03-23T07:00:00Z", "end": "2026-03-23T11:00:00Z"},
                                      {"start": "2026-03-30T06:00:00Z", "end": "2026-03-30T10:00:00Z"}]
