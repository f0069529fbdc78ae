#!/usr/bin/env python3
"""Calendars: how long and how much memory windowctl takes to expand a 500-event calendar of
yearly rules over the 5 years `schedule` looks ahead, and the binary's size against its ceiling.

The calendar is what a company's holiday and freeze calendar grows into: 500 VEVENTs, each a
yearly rule (fixed dates, "the third Monday of April", "the last Friday of the quarter's last
month" with BYSETPOS), all-day or timed in Europe/Zurich, some with EXDATEs. Measured with the real
binary: `schedule --window-calendar FILE --count 100000 -o json` (every window of the 5 years, so
every occurrence is expanded and merged) and the same as a deny calendar beside a weekly window,
each the median of --runs wall times (GNU time's fork and exec included) and the largest peak RSS. Goals (issue 21): at most
50 ms and 8 MiB peak RSS.

Run: /usr/bin/python3 bench/calendar.py [--bin build/windowctl] [--runs 7]
"""
import argparse
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
import hermetic_env  # noqa: E402,F401  (no caller's cluster: schedule talks to none anyway)

CEILING = 4 * 1024 * 1024  # tests/e2e/test_commands.py
GOAL_MS, GOAL_RSS_MIB = 50, 8
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def calendar(events=500, seed=21):
    rng = random.Random(seed)
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//windowctl//bench//EN"]
    for i in range(events):
        month = rng.randint(1, 12)
        kind = i % 4
        lines += ["BEGIN:VEVENT", f"UID:bench-{i}", f"SUMMARY:Event {i}"]
        if kind == 0:  # a fixed date, all day
            lines += [f"DTSTART;VALUE=DATE:2026{month:02d}{rng.randint(1, 28):02d}", "RRULE:FREQ=YEARLY"]
        elif kind == 1:  # the nth weekday of a month, all day
            n = rng.choice([1, 2, 3, 4, -1])
            lines += [f"DTSTART;VALUE=DATE:2026{month:02d}01", "DURATION:P1D",
                      f"RRULE:FREQ=YEARLY;BYMONTH={month};BYDAY={n}{rng.choice(WEEKDAYS)}"]
        elif kind == 2:  # the last weekday of the quarter's last month, timed
            lines += ["DTSTART;TZID=Europe/Zurich:20260101T180000", "DURATION:PT6H",
                      "RRULE:FREQ=YEARLY;BYMONTH=3,6,9,12;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"]
        else:  # a freeze of a few days, with an exception
            lines += [f"DTSTART;VALUE=DATE:2026{month:02d}10", "DTEND;VALUE=DATE:2026%02d14" % month,
                      "RRULE:FREQ=YEARLY;COUNT=8", f"EXDATE;VALUE=DATE:2028{month:02d}10"]
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(line + "\r\n" for line in lines)


def measure(binary, args, runs, tmp):
    """Median wall time and largest peak RSS (KiB). GNU time runs the binary: a child forked from
    Python would count Python's pages in its peak until exec."""
    walls, rss = [], 0
    report = pathlib.Path(tmp) / "time.txt"
    for _ in range(runs):
        began = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(report), binary, *args], capture_output=True,
                              env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
        walls.append(time.perf_counter() - began)
        if proc.returncode != 0:
            raise SystemExit(f"windowctl {' '.join(args)} failed: {proc.stderr.decode()}")
        rss = max(rss, int(report.read_text().split()[-1]))
    return statistics.median(walls), rss, proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPO / "build" / "windowctl"))
    parser.add_argument("--runs", type=int, default=7)
    a = parser.parse_args()
    size = os.path.getsize(a.bin)
    verdict = "met" if size <= CEILING else "OVER"
    print(f"binary {a.bin}: {size:,} B ({size / 1048576:.2f} MiB) against the 4 MiB ceiling ({CEILING:,} B): {verdict}")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "calendar.ics"
        path.write_text(calendar(), newline="")
        window = "0 8 * * MON to 0 17 * * THU in Europe/Zurich"
        common = ["--count", "100000", "--at", "2026-01-01T00:00:00Z", "-o", "json"]
        print(f"calendar: 500 events, yearly rules, {path.stat().st_size:,} B; median of {a.runs} runs")
        # What every run costs without a calendar (start, zone, output): the expansion is the rest.
        base_window, base_rss, _ = measure(a.bin, ["schedule", "--window", window, *common], a.runs, tmp)
        base_start, _, _ = measure(a.bin, ["schedule", "--window", "0 0 1 1 * for 1s", *common], a.runs, tmp)
        print(f"  baseline, no calendar: {base_start * 1000:.1f} ms (a window of one second a year), "
              f"{base_window * 1000:.1f} ms (the weekly window), peak RSS {base_rss / 1024:.1f} MiB")
        for name, args, base in (
                ("as --window-calendar: every window of 5 years", ["--window-calendar", str(path)], base_start),
                ("as --deny-calendar beside the weekly window", ["--window", window, "--deny-calendar", str(path)],
                 base_window)):
            wall, rss, out = measure(a.bin, ["schedule", *args, *common], a.runs, tmp)
            windows = len(json.loads(out)["windows"])
            expansion = (wall - base) * 1000
            ok = expansion <= GOAL_MS and rss / 1024 <= GOAL_RSS_MIB
            print(f"  {name}: {wall * 1000:.1f} ms in all, expansion {expansion:.1f} ms, peak RSS {rss / 1024:.1f} MiB,"
                  f" {windows} windows (goal <= {GOAL_MS} ms and <= {GOAL_RSS_MIB} MiB: {'met' if ok else 'MISSED'})")

if __name__ == "__main__":
    main()
