"""schedule -o ics (the windows as a calendar, parsed by python3-icalendar) and schedule
--exit-code (the gate for pipelines), run by the real binary."""

import datetime
import json
import subprocess

import icalendar
import pytest

from e2e_util import binary

ZURICH = "0 8 * * MON-FRI for 4h in Europe/Zurich"
DENY = "0 9 * * WED for 1h in Europe/Zurich"
AT = "2026-11-23T00:00:00Z"  # a Monday, before the window
UTC = datetime.timezone.utc


def ics(wctl, *args):
    # Bytes as written: text mode would turn each CRLF into a newline before the test sees it.
    p = subprocess.run([wctl.bin, "schedule", *args, "-o", "ics"], env=wctl.env("none"), capture_output=True,
                       timeout=60)
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    return p.stdout.decode("utf-8")


def events(text):
    cal = icalendar.Calendar.from_ical(text)
    assert str(cal["VERSION"]) == "2.0" and str(cal["PRODID"]).startswith("-//windowctl//")
    return [c for c in cal.walk("VEVENT")]


def json_windows(wctl, *args):
    p = wctl.run("schedule", *args, "-o", "json", mode="none")
    assert p.returncode == 0, p.stderr
    return [(w["start"], w["end"]) for w in json.loads(p.stdout)["windows"]]


def utc_text(value):
    assert value.dt.tzinfo is not None and value.dt.utcoffset() == datetime.timedelta(0), value.to_ical()
    return value.dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_ics_is_the_windows_schedule_lists(wctl, api):
    args = ("--window", ZURICH, "--deny", DENY, "--at", AT, "--count", "6")
    text = ics(wctl, *args)
    # RFC 5545: CRLF line ends, no line over 75 octets.
    assert "\n" not in text.replace("\r\n", "")
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    evs = events(text)
    assert [(utc_text(e["DTSTART"]), utc_text(e["DTEND"])) for e in evs] == json_windows(wctl, *args)
    # The deny cuts Wednesday's window in two: two events, two UIDs.
    assert ("2026-11-25T07:00:00Z", "2026-11-25T08:00:00Z") in json_windows(wctl, *args)
    assert len({str(e["UID"]) for e in evs}) == len(evs) == 6
    for e in evs:
        assert str(e["SUMMARY"]) == ZURICH
        assert e["DTSTAMP"].dt == datetime.datetime(2026, 11, 23, tzinfo=UTC)
    # Byte for byte the same with the same --at.
    assert ics(wctl, *args) == text


def test_ics_uids_stay_the_same_across_runs(wctl, api):
    first = {utc_text(e["DTSTART"]): str(e["UID"]) for e in events(ics(wctl, "--window", ZURICH, "--at", AT))}
    # A day later: the windows still ahead keep their UIDs, so a re-import updates them.
    later = {utc_text(e["DTSTART"]): str(e["UID"])
             for e in events(ics(wctl, "--window", ZURICH, "--at", "2026-11-24T00:00:00Z"))}
    shared = set(first) & set(later)
    assert len(shared) == 4
    assert all(first[k] == later[k] for k in shared)
    # A freeze that cuts Monday's window short: the same event, a new end.
    frozen = events(ics(wctl, "--window", ZURICH, "--at", AT, "--freeze", "2026-11-23T09:00:00Z/2026-11-23T12:00:00Z"))
    assert str(frozen[0]["UID"]) == first["2026-11-23T07:00:00Z"]
    assert utc_text(frozen[0]["DTEND"]) == "2026-11-23T09:00:00Z"
    # Another window type in another feed does not collide with these.
    other = events(ics(wctl, "--window", "0 8 * * MON-FRI for 2h in Europe/Zurich", "--at", AT))
    assert str(other[0]["UID"]) != first["2026-11-23T07:00:00Z"]


def test_ics_escapes_and_folds_the_summary(wctl, api):
    window = "0 8 * * MON,TUE,WED,THU,FRI,SAT,SUN for 1h30m in America/Argentina/ComodRivadavia"
    text = ics(wctl, "--window", window, "--at", AT, "--count", "1")
    assert "\\," in text and "\r\n " in text  # escaped commas, a folded line
    assert [str(e["SUMMARY"]) for e in events(text)] == [window]


def test_ics_until_and_count(wctl, api):
    until = ("--until", "2026-12-05T00:00:00Z")
    evs = events(ics(wctl, "--window", ZURICH, "--at", AT, *until))
    assert len(evs) == 10  # two working weeks; --until lifts --count's default of 5
    assert all(utc_text(e["DTSTART"]) < "2026-12-05T00:00:00Z" for e in evs)
    assert len(events(ics(wctl, "--window", ZURICH, "--at", AT, *until, "--count", "3"))) == 3
    assert len(json_windows(wctl, "--window", ZURICH, "--at", AT, *until)) == 10
    text = wctl.run("schedule", "--window", ZURICH, "--at", AT, "--until", "2026-11-23T01:00:00Z", mode="none").stdout
    assert text == "closed: opens in 7h (2026-11-23T08:00:00+01:00)\n"  # no window in the list, the next still said
    # No window at all: an empty calendar, still a valid one.
    assert events(ics(wctl, "--window", "0 0 29 2 * for 24h", "--at", "2096-03-01T00:00:00Z")) == []


@pytest.mark.parametrize("args,needle", [
    (["--until", "tomorrow"], 'invalid --until "tomorrow": it is not an RFC 3339 time'),
    (["--until", "2026-11-22T00:00:00Z"], "--until must be after --at"),
    (["-o", "ical"], "--output: ical not in {text,json,ics}"),
])
def test_schedule_export_bad_input(wctl, api, args, needle):
    p = wctl.run("schedule", "--window", ZURICH, "--at", AT, *args, mode="none")
    assert p.returncode == 2 and p.stdout == ""
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_ics_is_schedules_alone(wctl, api):
    for cmd in (["version"], ["status", "apps-rw"], ["close", "apps-rw"]):
        p = wctl.run(*cmd, "-o", "ics")
        assert p.returncode == 2 and "ics not in {text,json}" in p.stderr, p.stderr
    assert api.requests == [], api.requests  # refused before any request


@pytest.mark.parametrize("at,open_now", [
    ("2026-11-23T07:30:00Z", True),    # inside Monday's window
    ("2026-11-23T12:00:00Z", False),   # after it
    ("2026-11-25T08:30:00Z", False),   # inside the deny that cuts Wednesday's
])
def test_exit_code_is_the_gate(wctl, api, at, open_now):
    args = ("schedule", "--window", ZURICH, "--deny", DENY, "--at", at)
    p = wctl.run(*args, "--exit-code", mode="none")
    assert p.returncode == (0 if open_now else 3), p.stderr
    assert p.stdout.startswith("open: closes in" if open_now else "closed: opens in"), p.stdout
    # The same answer as -o json's "open"; without --exit-code, closed is exit 0 as ever.
    doc = wctl.run(*args, "-o", "json", "--exit-code", mode="none")
    assert json.loads(doc.stdout)["open"] is open_now and doc.returncode == (0 if open_now else 3)
    assert wctl.run(*args, mode="none").returncode == 0


def test_exit_code_when_nothing_opens_and_with_a_freeze(wctl, api):
    p = wctl.run("schedule", "--window", "0 0 29 2 * for 24h", "--at", "2096-03-01T00:00:00Z", "--exit-code", mode="none")
    assert p.returncode == 3 and "no window opens within the next 5 years" in p.stdout
    p = wctl.run("schedule", "--window", ZURICH, "--at", "2026-11-23T07:30:00Z", "--exit-code", "--freeze",
                 "2026-11-23T00:00:00Z/2026-11-24T00:00:00Z", mode="none")
    assert p.returncode == 3 and p.stdout.startswith("closed: opens in 23h 30m (2026-11-24T08:00:00+01:00)"), p.stdout
    # Bad input stays exit 2, never the gate's 3.
    p = wctl.run("schedule", "--window", "0 8 * * * for 1d", "--exit-code", mode="none")
    assert p.returncode == 2


def _has_calendars():
    help_text = subprocess.run([binary(), "schedule", "--help"], capture_output=True, text=True).stdout
    return "--window-calendar" in help_text


@pytest.mark.skipif(not _has_calendars(), reason="schedule --window-calendar is not in this build yet (issue 21 part 1)")
def test_exported_calendar_reads_back_as_the_same_windows(wctl, api, tmp_path):
    args = ("--window", ZURICH, "--deny", DENY, "--freeze", "2026-11-26T00:00:00Z/2026-11-27T00:00:00Z")
    exported = tmp_path / "exported.ics"
    exported.write_bytes(ics(wctl, *args, "--at", AT, "--until", "2027-01-01T00:00:00Z").encode())
    windows = json_windows(wctl, *args, "--at", AT, "--until", "2027-01-01T00:00:00Z")
    back = json_windows(wctl, "--window-calendar", str(exported), "--at", AT, "--until", "2027-01-01T00:00:00Z")
    assert back == windows and len(windows) > 20
    # And exported again, the same events: the SUMMARY carries the window's name through.
    again = events(ics(wctl, "--window-calendar", str(exported), "--at", AT, "--until", "2027-01-01T00:00:00Z"))
    assert [str(e["SUMMARY"]) for e in again] == [ZURICH] * len(windows)
