"""Differential test of the calendar expansion (src/calendar.cc) against python3-dateutil's rrule
over files read by python3-icalendar.

Random VEVENTs (FREQ DAILY/WEEKLY/MONTHLY/YEARLY with INTERVAL, COUNT or UNTIL, BYDAY with and
without ordinals, BYMONTH, BYMONTHDAY, BYSETPOS, WKST; EXDATE and RDATE; timed events in UTC, in
an IANA zone, in Outlook's "W. Europe Standard Time" with its VTIMEZONE, floating, and all-day
events) are written as .ics files. Each file is read back by python3-icalendar (an independent
parser: the file must be iCalendar to it too), its RRULE handed to dateutil's rrulestr over the
wall-clock DTSTART, and every wall time turned into an instant as zoneinfo does with fold=0 (a
time in a spring-forward gap moves forward by the gap, a repeated time is its first pass), which
is RFC 5545's rule and windowctl's. Then RFC 5545's own two rules on top of dateutil's set:
DTSTART is always the first occurrence and counts towards COUNT, and UNTIL bounds the instants.
The `calendar_probe` binary prints windowctl's occurrences over a random two-year range; the
two must be equal for every case. Zones are picked for their DST quirks: half-hour DST
(Australia/Lord_Howe), southern hemisphere (America/Santiago), a skipped day (Pacific/Apia,
2011), negative-looking rules (Europe/Dublin).

Run: /usr/bin/python3 -m pytest -q tests/calendar   (CALENDAR_PROBE names the probe; default build/).
"""
import datetime as dt
import os
import pathlib
import random
import subprocess

import pytest

icalendar = pytest.importorskip("icalendar", reason="apt-get install -y python3-icalendar")
rrule_module = pytest.importorskip("dateutil.rrule", reason="apt-get install -y python3-dateutil")
from zoneinfo import ZoneInfo  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("CALENDAR_DIFF_SEED", "20261125"))
CASES = int(os.environ.get("CALENDAR_DIFF_CASES", "500"))
UTC = dt.timezone.utc
ZONES = ["Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Pacific/Apia",
         "Europe/Dublin", "Asia/Kolkata", "America/St_Johns"]
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
OUTLOOK_TZID = "W. Europe Standard Time"
OUTLOOK_VTIMEZONE = (
    "BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\n"
    "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\r\n"
    "END:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n"
    "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n")


def probe_path():
    path = os.environ.get("CALENDAR_PROBE", str(REPO / "build" / "calendar_probe"))
    if not os.path.exists(path):
        pytest.fail(f"no calendar_probe at {path}: build it (cmake --build build) or set CALENDAR_PROBE")
    return path


def ical_time(t, date=False, utc=False):
    if date:
        return t.strftime("%Y%m%d")
    return t.strftime("%Y%m%dT%H%M%S") + ("Z" if utc else "")


def z(t):
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def random_rule(rng, date_only):
    freq = rng.choice(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"])
    parts = [f"FREQ={freq}"]
    if rng.random() < 0.5:
        parts.append(f"INTERVAL={rng.randint(2, 4)}")
    by = False
    if rng.random() < 0.4:
        parts.append("BYMONTH=" + ",".join(str(m) for m in sorted(rng.sample(range(1, 13), rng.randint(1, 4)))))
        by = True
    if freq in ("MONTHLY", "YEARLY") and rng.random() < 0.5:
        # Ordinals only, or plain days only: dateutil and RFC 5545 read a mix differently.
        if rng.random() < 0.6:
            n = rng.choice([1, 2, 3, 4, -1, -2])
            parts.append("BYDAY=" + ",".join(f"{n}{d}" for d in rng.sample(WEEKDAYS, rng.randint(1, 2))))
        else:
            parts.append("BYDAY=" + ",".join(rng.sample(WEEKDAYS, rng.randint(1, 5))))
        by = True
    elif freq in ("DAILY", "WEEKLY") and rng.random() < 0.5:
        parts.append("BYDAY=" + ",".join(rng.sample(WEEKDAYS, rng.randint(1, 4))))
        by = True
    if freq != "WEEKLY" and rng.random() < 0.3:
        days = rng.sample([1, 2, 13, 15, 28, 29, 30, 31, -1, -2, -7], rng.randint(1, 3))
        parts.append("BYMONTHDAY=" + ",".join(str(d) for d in days))
        by = True
    if by and freq in ("MONTHLY", "YEARLY", "WEEKLY") and rng.random() < 0.3:
        parts.append("BYSETPOS=" + ",".join(str(p) for p in rng.sample([1, 2, -1, -2], rng.randint(1, 2))))
    if freq == "WEEKLY" and rng.random() < 0.5:
        parts.append("WKST=" + rng.choice(WEEKDAYS))
    return parts


def random_case(rng, index):
    kind = rng.choice(["utc", "zone", "zone", "outlook", "floating", "date"])
    zone = rng.choice(ZONES)
    floating_zone = rng.choice(ZONES + ["UTC"])
    year = rng.randint(2010, 2030)
    start = dt.datetime(year, rng.randint(1, 12), rng.randint(1, 28), rng.choice([0, 1, 2, 3, 8, 12, 22, 23]),
                        rng.choice([0, 0, 30, 45]))
    if kind == "date":
        start = start.replace(hour=0, minute=0)
    wall_zone = {"utc": "UTC", "zone": zone, "outlook": "Europe/Berlin", "floating": floating_zone,
                 "date": floating_zone}[kind]
    length_minutes = rng.choice([30, 60, 240, 24 * 60, 3 * 24 * 60])
    length_days = rng.randint(1, 3)
    props = [f"UID:case-{index}", f"SUMMARY:case {index}"]
    if kind == "date":
        props.append(f"DTSTART;VALUE=DATE:{ical_time(start, date=True)}")
        props.append(f"DTEND;VALUE=DATE:{ical_time(start + dt.timedelta(days=length_days), date=True)}")
    else:
        param = {"utc": "", "zone": f";TZID={zone}", "outlook": f";TZID={OUTLOOK_TZID}", "floating": ""}[kind]
        props.append(f"DTSTART{param}:{ical_time(start, utc=kind == 'utc')}")
        props.append(f"DURATION:PT{length_minutes}M")
    parts = random_rule(rng, kind == "date")
    count = until = None
    r = rng.random()
    if r < 0.35:
        count = rng.randint(1, 40)
        parts.append(f"COUNT={count}")
    elif r < 0.7:
        until_wall = start + dt.timedelta(days=rng.randint(1, 2000))
        if kind == "date":
            until = until_wall.replace(hour=0, minute=0)
            parts.append(f"UNTIL={ical_time(until, date=True)}")
        elif kind == "floating":
            until = until_wall
            parts.append(f"UNTIL={ical_time(until)}")
        else:
            until = until_wall.replace(tzinfo=UTC)
            parts.append(f"UNTIL={ical_time(until, utc=True)}")
    props.append("RRULE:" + ";".join(parts))
    # A few EXDATEs and RDATEs, in the DTSTART's own form.
    rdates, exdates = [], []
    for _ in range(rng.choice([0, 0, 1, 2])):
        rdates.append(start + dt.timedelta(days=rng.randint(1, 700)))
    if rdates:
        form = [ical_time(t, date=kind == "date", utc=kind == "utc") for t in rdates]
        param = {"utc": "", "zone": f";TZID={zone}", "outlook": f";TZID={OUTLOOK_TZID}", "floating": "",
                 "date": ";VALUE=DATE"}[kind]
        props.append(f"RDATE{param}:" + ",".join(form))
    return {"kind": kind, "wall_zone": wall_zone, "start": start, "props": props, "count": count, "until": until,
            "rule": ";".join(parts), "rdates": rdates, "exdates": exdates, "length_minutes": length_minutes,
            "length_days": length_days, "floating_zone": floating_zone}


def ics_text(case):
    body = "BEGIN:VEVENT\r\n" + "".join(p + "\r\n" for p in case["props"]) + "END:VEVENT\r\n"
    head = OUTLOOK_VTIMEZONE if case["kind"] == "outlook" else ""
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//windowctl//diff//EN\r\n" + head + body + "END:VCALENDAR\r\n"


def instant(wall, zone):
    """A wall time as zoneinfo with fold=0 reads it: RFC 5545 3.3.5."""
    return wall.replace(tzinfo=ZoneInfo(zone), fold=0).astimezone(UTC)


def expected(case, text, frm, to):
    # The file as python3-icalendar reads it: the rule text and DTSTART's wall time come from it.
    cal = icalendar.Calendar.from_ical(text.encode())
    (event,) = list(cal.walk("VEVENT"))
    rule_text = event["RRULE"].to_ical().decode()
    dtstart = event["DTSTART"].dt
    wall = dt.datetime.combine(dtstart, dt.time()) if not isinstance(dtstart, dt.datetime) else dtstart
    wall = wall.replace(tzinfo=None)
    assert wall == case["start"], (wall, case["start"])
    zone = case["wall_zone"]
    # dateutil over wall times, UNTIL and COUNT applied below as RFC 5545 says.
    parts = [p for p in rule_text.split(";") if not p.startswith(("UNTIL=", "COUNT="))]
    rule = rrule_module.rrulestr(";".join(parts), dtstart=wall)
    first = instant(wall, zone)
    horizon = to + dt.timedelta(days=3)
    starts = [first]
    for w in rule:
        t = instant(w, zone)
        if w > wall + dt.timedelta(days=366 * 300) or t >= horizon:
            break
        if t <= first:
            continue
        if case["until"] is not None:
            u = case["until"]
            limit = u if u.tzinfo else instant(u, zone)
            if t > limit:
                break
        if case["count"] is not None and len(starts) >= case["count"]:
            break
        starts.append(t)
    spans = []
    for t, w in [(t, None) for t in starts] + [(instant(r, zone), r) for r in case["rdates"]]:
        if case["kind"] == "date":
            local = t.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
            # Nominal days: the end is local midnight N days on.
            end = instant(dt.datetime.combine(local.date() + dt.timedelta(days=case["length_days"]), dt.time()), zone)
        else:
            end = t + dt.timedelta(minutes=case["length_minutes"])
        if end > frm and t < to:
            spans.append((t, end))
    spans.sort()
    return " ".join(f"{z(s)}/{z(e)}" for s, e in spans)


def test_expansion_agrees_with_dateutil(tmp_path):
    rng = random.Random(SEED)
    cases, lines = [], []
    for i in range(CASES):
        case = random_case(rng, i)
        text = ics_text(case)
        path = tmp_path / f"case{i}.ics"
        path.write_text(text, newline="")
        frm = dt.datetime(rng.randint(2010, 2031), rng.randint(1, 12), 1, tzinfo=UTC)
        to = frm + dt.timedelta(days=730)
        zone = case["floating_zone"] if case["kind"] in ("floating", "date") else "-"
        cases.append((case, text, frm, to))
        lines.append(f"{path}\t{z(frm)}\t{z(to)}\t{zone}\n")
    p = subprocess.run([probe_path()], input="".join(lines), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    out = p.stdout.split("\n")
    assert len(out) == len(lines) + 1 and out[-1] == ""
    failures, occurrences = [], 0
    for (case, text, frm, to), got in zip(cases, out):
        want = expected(case, text, frm, to)
        occurrences += len(want.split())
        if got != want:
            failures.append(f"{case['kind']} {case['wall_zone']} DTSTART {case['start']} RRULE:{case['rule']} "
                            f"RDATE {case['rdates']} over {z(frm)}..{z(to)}:\n  windowctl {got[:400]}\n"
                            f"  expected  {want[:400]}")
    print(f"{len(cases)} calendars, {occurrences} occurrences compared, {len(failures)} differ")
    assert not failures, f"{len(failures)} of {len(cases)} differ; first:\n" + "\n".join(failures[:5])
    # The comparison must have had something to compare.
    assert occurrences > len(cases)
