"""Differential test of the window engine's start instants against python3-croniter.

Random cron expressions in windowctl's dialect (robfig/cron v3, as Kubernetes CronJobs) and
random instants 2000-2040, in UTC and in zones with DST quirks, go to one `cron_probe` process,
which prints the engine's next five starts. Each case is compared with two things:

- croniter itself (tz-aware start, get_next), the independent implementation; and
- the documented semantics rebuilt independently here: robfig's value sets and star bits, matching
  wall-clock minutes found day by day, each turned into an instant as zoneinfo does with fold=0
  (a gap moves forward by its length, a repeated time counts at its first occurrence), sorted
  and deduplicated.

The engine must agree with that model in every case. Where it differs from croniter
itself, the difference must fall in one of these classes, each a known divergence:

  croniter-full-range-day     day-of-month and day-of-week both restricted, one written out in
                              full (1-31, 0-6, SUN-SAT): robfig has no star bit for them and ORs
                              the fields (every day); croniter normalises a full set to "*" and ANDs.
  croniter-dow-step-to-7      a day-of-week step "N/S": robfig reads N-6/S, croniter N-7/S with 7
                              as Sunday, so "1/2" is also Sunday for croniter.
  croniter-or-impossible-day  an OR whose day-of-month half never fires (31 November): croniter
                              gives up on the whole schedule (a croniter bug).
  croniter-dom-overshoot      croniter steps to the next listed day of the month without checking
                              the month has it (25 February to "the 31st" lands on 3 March,
                              missing the 1st and 2nd; a croniter bug).
  croniter-dst                a zone other than UTC, with an offset change between the start
                              and the first instant the two differ on, where croniter's
                              own DST adjustment moved a start by the change (to a time that does
                              not match, or past a start that does), or croniter counted the second
                              pass of a repeated time, which the engine does not, or croniter went
                              backwards (one instant again and again, or one before the start).

At least 99% of UTC cases must match croniter exactly. Invalid expressions must be refused.

Run: /usr/bin/python3 -m pytest -q tests/cron   (CRON_PROBE names the probe; default build/).
"""
import datetime as dt
import os
import pathlib
import random
import re
import subprocess
import time
from collections import Counter
from zoneinfo import ZoneInfo

import pytest

croniter_module = pytest.importorskip("croniter", reason="apt-get install -y python3-croniter")
from croniter import croniter, CroniterBadDateError  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("CRON_DIFF_SEED", "20261122"))  # another seed explores more cases
VALID_CASES = 10000
INVALID_CASES = 600
ZONES = ["Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]
UTC = dt.timezone.utc
COUNT = 5

# name, low, high, names (index + low = value)
FIELDS = [
    ("minute", 0, 59, None),
    ("hour", 0, 23, None),
    ("dom", 1, 31, None),
    ("month", 1, 12, ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]),
    ("dow", 0, 6, ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]),
]
DESCRIPTORS = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]


def probe_path():
    path = os.environ.get("CRON_PROBE", str(REPO / "build" / "cron_probe"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no cron_probe at {path}: build it (cmake --build build) or set CRON_PROBE")
    return path


# --- generating expressions ------------------------------------------------------------------

def value(rng, field):
    _, lo, hi, names = field
    v = rng.randint(lo, hi)
    if names and rng.random() < 0.4:
        name = names[v - lo]
        return v, rng.choice([name, name.lower(), name.capitalize()])
    return v, str(v)


def item(rng, field, narrow):
    name, lo, hi, _ = field
    # "N/S" in day-of-week is where croniter differs most (see croniter-dow-step-to-7): rarer there.
    kind = rng.choices(["value", "range", "star_step", "range_step", "start_step", "star"],
                       [30, 25, 20, 12, 2 if name == "dow" else 8, 5])[0]
    if narrow and kind in ("value", "range"):  # the hours around DST changes
        a = rng.randint(0, 3)
        b = rng.randint(a, 3)
        return str(a) if kind == "value" else f"{a}-{b}"
    if kind == "value":
        return value(rng, field)[1]
    if kind == "star":
        return rng.choice(["*", "?"])
    step = rng.choice([2, 2, 3, 4, 5, 6, 7, 10, 15, 20]) if rng.random() < 0.95 else rng.randint(1, hi - lo + 2)
    if kind == "star_step":
        return f"{rng.choice(['*', '?'])}/{step}"
    (a, at), (b, bt) = value(rng, field), value(rng, field)
    if a > b:
        (a, at), (b, bt) = (b, bt), (a, at)
    if name == "dow" and b - a >= 5 and rng.random() < 0.8:
        # Wide weekday ranges mostly cover the week, where croniter differs (croniter-full-range-day).
        b = a + rng.randint(0, 4)
        bt = str(b)
    if kind == "range":
        return f"{at}-{bt}"
    if kind == "range_step":
        return f"{at}-{bt}/{step}"
    return f"{at}/{step}"


def field_text(rng, field, narrow=False):
    if rng.random() < 0.35:
        return "*"
    if field[0] in ("dom", "dow") and rng.random() < 0.1:
        return "?"
    return ",".join(item(rng, field, narrow) for _ in range(rng.choices([1, 2, 3], [60, 30, 10])[0]))


def expression(rng, zone):
    if rng.random() < 0.02:
        return rng.choice(DESCRIPTORS)
    narrow = zone != "UTC" and rng.random() < 0.3
    return " ".join(field_text(rng, f, narrow and f[0] == "hour") for f in FIELDS)


def invalid_expression(rng):
    good = expression(rng, "UTC")
    parts = good.split() if not good.startswith("@") else "0 0 * * *".split()
    i = rng.randrange(5)
    name, lo, hi, _ = FIELDS[i]
    parts[i] = rng.choice([
        str(hi + 1 + rng.randint(0, 3)),        # out of range; 7 for day-of-week
        str(lo - 1) if lo > 0 else "x",
        f"{hi}-{lo}" if hi > lo else "x",        # reversed
        f"*/0", f"{lo}-{hi}/0",                  # step 0
        f"{lo},,{hi}", f",{lo}", f"{lo},",       # empty items
        f"{lo}-{hi}-{lo}", f"*/2/3", f"*-{hi}",  # malformed
        "FOO", "+1", "1.5", "",
    ])
    if parts[i] == "":
        del parts[i]                             # four fields
    return " ".join(parts)


# --- the references --------------------------------------------------------------------------

def number(text, lo, names):
    return int(text) if text.isdigit() else lo + [n.lower() for n in names].index(text.lower())


class Spec:
    """A valid expression read as robfig v3 reads it: value sets and the two star bits."""

    DESCRIPTOR = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                  "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}

    def __init__(self, expr):
        sets, stars = [], []
        for (_, lo, hi, names), text in zip(FIELDS, self.DESCRIPTOR.get(expr, expr).split()):
            values, star = set(), False
            for it in text.split(","):
                rng_part, slash, step_text = it.partition("/")
                step = int(step_text) if slash else 1
                if rng_part in ("*", "?"):
                    a, b = lo, hi
                    star = star or step == 1  # a step above 1 clears robfig's star bit
                else:
                    a_text, dash, b_text = rng_part.partition("-")
                    a = number(a_text, lo, names)
                    b = number(b_text, lo, names) if dash else (hi if slash else a)
                values.update(range(a, b + 1, step))
            sets.append(values)
            stars.append(star)
        self.minutes, self.hours, self.days, self.months, self.weekdays = sets
        self.days_star, self.weekdays_star = stars[2], stars[4]
        self.days_full = self.days == set(range(1, 32))
        self.weekdays_full = self.weekdays == set(range(7))
        self.hm = sorted((h, m) for h in self.hours for m in self.minutes)

    def or_days(self):
        return not self.days_star and not self.weekdays_star

    def day_matches(self, d):
        dom = d.day in self.days
        dow = (d.weekday() + 1) % 7 in self.weekdays
        return dom or dow if self.or_days() else dom and dow

    def possible(self):
        longest = {2: 29, 4: 30, 6: 30, 9: 30, 11: 30}
        return self.or_days() or any(d <= longest.get(m, 31) for m in self.months for d in self.days)

    def walls_after(self, begin):
        """Matching wall-clock minutes strictly after naive `begin`, in order."""
        if not self.possible():
            return
        day = begin.date()
        for _ in range(400 * 366):
            if day.month in self.months and self.day_matches(day):
                for h, m in self.hm:
                    w = dt.datetime(day.year, day.month, day.day, h, m)
                    if w > begin:
                        yield w
            day += dt.timedelta(days=1)


def model_next(expr, zone, start):
    """The documented semantics: wall times in order, each read with fold=0, then sorted."""
    z = ZoneInfo(zone)
    wall = start.astimezone(z).replace(tzinfo=None)
    begin = wall
    # A wall time in a gap just before `start` may have moved past it.
    if (start - dt.timedelta(hours=3)).astimezone(z).utcoffset() != start.astimezone(z).utcoffset():
        begin = wall - dt.timedelta(hours=3)
    found = set()
    for w in Spec(expr).walls_after(begin):
        s = w.replace(tzinfo=z).astimezone(UTC)  # fold=0: first of a repeated time; a gap moves forward
        in_gap = s.astimezone(z).replace(tzinfo=None) != w
        if s > start:
            found.add(s)
        # Past a wall time outside any gap, later ones come later: the first COUNT are known.
        if not in_gap and len(found) >= COUNT and sorted(found)[COUNT - 1] <= s:
            break
    return sorted(found)[:COUNT]


def croniter_next(expr, zone, start):
    it = croniter(expr.replace("?", "*"), start.astimezone(ZoneInfo(zone)))
    out = []
    try:
        for _ in range(COUNT):
            out.append(it.get_next(dt.datetime).astimezone(UTC))
    except CroniterBadDateError:
        pass
    return out


# --- classifying differences from croniter ---------------------------------------------------

DOW_START_STEP = re.compile(r"^([0-9A-Za-z]+)/(\d+)$")


def full_range_day(expr, spec):
    return spec.or_days() and (spec.days_full or spec.weekdays_full)


def dow_step_to_7(expr, spec):
    if expr.startswith("@"):
        return False
    for it in expr.split()[4].split(","):
        m = DOW_START_STEP.match(it)
        if m and (7 - number(m.group(1), 0, FIELDS[4][3])) % int(m.group(2)) == 0:
            return True
    return False


def first_difference(ours, theirs):
    for k in range(max(len(ours), len(theirs))):
        if k >= len(ours) or k >= len(theirs) or ours[k] != theirs[k]:
            return k
    return None


def or_with_impossible_day(spec, zone, start, ours, theirs):
    # croniter evaluates the day-of-month half of an OR on its own and gives up when it never
    # fires, say the 31st of November, losing the day-of-week half.
    alone = Spec.__new__(Spec)
    alone.__dict__.update(spec.__dict__)
    alone.weekdays_star = True
    return spec.or_days() and not alone.possible() and len(theirs) < len(ours)


def dom_overshoot(spec, zone, start, ours, theirs):
    # croniter steps to the next listed day of the month without checking the month has it:
    # from 25 February to "the 31st" is 6 days, to 3 March, missing the 1st and 2nd.
    k = first_difference(ours, theirs)
    if k is None or k >= len(ours) or (k < len(theirs) and theirs[k] < ours[k]):
        return False
    local = ours[k].astimezone(ZoneInfo(zone))
    previous = local.replace(day=1) - dt.timedelta(days=1)
    return any(d > previous.day and local.day < d - previous.day for d in spec.days)


def offset_changes(zone, a, b):
    z = ZoneInfo(zone)
    t, prev = a, a.astimezone(z).utcoffset()
    while t < b:
        t = min(t + dt.timedelta(hours=6), b)
        if t.astimezone(z).utcoffset() != prev:
            return True
    return False


def croniter_dst(spec, zone, start, ours, theirs):
    # After an offset change croniter moves a result by the change, to a time that does not
    # match, or past a start that does; or it counts the second pass of a repeated time; or it
    # goes backwards, returning an instant again or one before the start.
    k = first_difference(ours, theirs)
    if zone == "UTC" or k is None or k >= len(ours) or k >= len(theirs):
        return False
    # croniter compares offsets with the start's, so the change may come before earlier results.
    if not offset_changes(zone, start - dt.timedelta(hours=1), max(ours[k], theirs[k]) + dt.timedelta(hours=1)):
        return False
    wall = theirs[k].astimezone(ZoneInfo(zone))
    matching = (wall.month in spec.months and spec.day_matches(wall.date()) and wall.hour in spec.hours
                and wall.minute in spec.minutes)
    backwards = theirs[k] <= (theirs[k - 1] if k else start)
    return not matching or theirs[k] > ours[k] or wall.fold == 1 or backwards


def classify(expr, zone, start, ours, theirs):
    spec = Spec(expr)
    if full_range_day(expr, spec):
        return "croniter-full-range-day"
    if dow_step_to_7(expr, spec):
        return "croniter-dow-step-to-7"
    for name, check in [("croniter-or-impossible-day", or_with_impossible_day),
                        ("croniter-dom-overshoot", dom_overshoot), ("croniter-dst", croniter_dst)]:
        if check(spec, zone, start, ours, theirs):
            return name
    return "unexplained"


# --- the test --------------------------------------------------------------------------------

def transitions(zone):
    """Offset changes 2000-2040, to the hour, to put some starts next to them."""
    z = ZoneInfo(zone)
    out = []
    t = dt.datetime(2000, 1, 1, tzinfo=UTC)
    prev = t.astimezone(z).utcoffset()
    while t.year < 2041:
        n = t + dt.timedelta(days=1)
        if n.astimezone(z).utcoffset() != prev:
            lo, hi = t, n
            while hi - lo > dt.timedelta(minutes=15):
                mid = lo + (hi - lo) / 2
                if mid.astimezone(z).utcoffset() == prev:
                    lo = mid
                else:
                    hi = mid
            out.append(hi)
            prev = n.astimezone(z).utcoffset()
        t = n
    return out


def random_start(rng, zone, near):
    if near.get(zone) and rng.random() < 0.4:
        base = rng.choice(near[zone])
        return (base + dt.timedelta(seconds=rng.randint(-3 * 86400, 2 * 86400))).replace(microsecond=0)
    lo = dt.datetime(2000, 1, 1, tzinfo=UTC).timestamp()
    hi = dt.datetime(2040, 12, 31, tzinfo=UTC).timestamp()
    return dt.datetime.fromtimestamp(rng.randint(int(lo), int(hi)), UTC)


def rfc3339(t):
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_probe(lines):
    p = subprocess.run([probe_path()], input="".join(lines), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.split("\n")
    assert out[-1] == "" and len(out) == len(lines) + 1, "one output line per input line"
    return out[:-1]


def parse_instants(line):
    return [dt.datetime.fromisoformat(s.replace("Z", "+00:00")) for s in line.split()]


def test_engine_agrees_with_croniter(capsys):
    began = time.monotonic()
    rng = random.Random(SEED)
    near = {z: transitions(z) for z in ZONES if z != "Asia/Kolkata"}
    cases = []
    for _ in range(VALID_CASES):
        zone = "UTC" if rng.random() < 0.5 else rng.choice(ZONES)
        cases.append((expression(rng, zone), zone, random_start(rng, zone, near)))
    invalid = [invalid_expression(rng) for _ in range(INVALID_CASES)]

    lines = [f"{e}\t{z}\t{rfc3339(s)}\n" for e, z, s in cases]
    lines += [f"{e}\tUTC\t2026-01-01T00:00:00Z\n" for e in invalid]
    out = run_probe(lines)

    classes = {"UTC": Counter(), "zones": Counter()}
    model_agrees = 0
    failures = []
    for (expr, zone, start), line in zip(cases, out):
        where = "UTC" if zone == "UTC" else "zones"
        if line.startswith("ERROR"):
            failures.append(f"{expr!r} refused: {line}")
            continue
        ours = parse_instants(line)
        model = model_next(expr, zone, start)
        if ours != model:
            failures.append(f"{expr!r} in {zone} after {rfc3339(start)}: engine {[rfc3339(t) for t in ours]} "
                            f"!= semantics {[rfc3339(t) for t in model]}")
            continue
        model_agrees += 1
        theirs = croniter_next(expr, zone, start)
        cls = "match" if ours == theirs else classify(expr, zone, start, ours, theirs)
        classes[where][cls] += 1
        if cls.startswith("unexplained"):
            failures.append(f"{expr!r} in {zone} after {rfc3339(start)}: engine {[rfc3339(t) for t in ours]} "
                            f"!= croniter {[rfc3339(t) for t in theirs]} ({cls})")

    refused = 0
    for expr, line in zip(invalid, out[len(cases):]):
        if line.startswith(f'ERROR invalid cron "{expr}": '):
            refused += 1
        else:
            failures.append(f"invalid {expr!r} not refused: {line}")

    utc_cases = sum(classes["UTC"].values())
    utc_matches = classes["UTC"]["match"]
    elapsed = time.monotonic() - began
    with capsys.disabled():
        print(f"\ncron differential, seed {SEED}: {len(cases)} cases, engine = documented semantics in "
              f"{model_agrees}; {refused}/{len(invalid)} invalid expressions refused; {elapsed:.1f}s")
        print(f"  {'engine vs croniter':28} {'UTC':>6} {'zones':>6}")
        names = sorted(set(classes["UTC"]) | set(classes["zones"]), key=lambda n: (n != "match", n))
        for name in names:
            print(f"  {name:28} {classes['UTC'][name]:6} {classes['zones'][name]:6}")
        print(f"  UTC exact matches: {utc_matches}/{utc_cases} = {utc_matches / max(utc_cases, 1):.2%}")
    assert not failures, f"{len(failures)} failures, first ones:\n" + "\n".join(failures[:20])
    assert utc_matches >= 0.99 * utc_cases
    assert classes["zones"]["croniter-dst"] > 0, "the zones' DST changes were not exercised"
