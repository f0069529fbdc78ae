// Maintenance windows as code, in two forms:
//   "CRON for DURATION [in ZONE]": `0 8 * * MON for 81h in Europe/Zurich` is open from Monday
//     08:00 Zurich time for 81 hours of elapsed time.
//   "CRON to CRON [in ZONE]": `0 8 * * MON to 0 17 * * THU in Europe/Zurich` opens at each match
//     of the first cron and closes at the next match of the second strictly after it: Monday
//     08:00 to Thursday 17:00 on the clock, DST or not (the schedules of an open/close CronJob pair).
// Pure: the only I/O is reading a zoneinfo file when a window names a zone.
//
// Semantics:
// - A window is open at instant t iff some start s has s <= t < s + DURATION, or for "to",
//   s <= t < the first close instant after s. The starts (and closes) are the wall-clock minutes
//   matching CRON (cron.h) in ZONE; DURATION is elapsed time, so a window over a DST change is
//   an hour shorter or longer on the clock, never in length.
// - A start (or close) whose wall time does not exist (spring-forward gap) moves forward by the
//   gap's length: 02:30 becomes 03:30. One in a repeated (fall-back) hour happens once, at its
//   first occurrence. This is Python's zoneinfo with fold=0; see TimeZone::resolve. So nothing
//   starts during the second pass, and `* * * * * for 1m` is closed then; `0 * * * * for 2h` is not.
// - "to": a start while the window is open changes nothing (the close after it is the same). The
//   close is strictly after the start, so `0 8 * * * to 0 8 * * *` is 24 hours from each 08:00:
//   windows that touch, so always open once begun. A close schedule that never matches
//   (`0 0 30 2 *`) is a configuration error.
// - DURATION is whole seconds, more than 0 and at most 8784h (366 days).
// - Overlapping or touching windows merge: [8:00, 9:00) and [9:00, 10:00) are one interval.
// - A schedule is open iff inside an allow window, outside every deny window and outside every
//   freeze: deny wins over allow, freeze over everything. With no allow window it is never open.
// - Searches are bounded: next_windows looks 5 years (1827 days, as robfig/cron gives up after
//   5 years) plus the longest allow duration past `at` (the horizon) and at most 366 days back
//   for the start of an interval open at `at`. An interval cut by either bound ends (starts)
//   there and says so in Interval's flags.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calendar.h"
#include "cron.h"
#include "timefmt.h"
#include "zone.h"

namespace windowctl {

struct Window {
  std::string text;  // as written, for messages
  CronSchedule cron;
  std::chrono::seconds duration{0};   // "for"; 0 for "to"
  std::optional<CronSchedule> close;  // "to"
  TimeZone zone;                      // UTC unless the window says "in ZONE"
};

// Throws ConfigError naming the bad part: `invalid window "0 8 * * MON for 1d": duration "1d": no
// unit "d": use 24h (units: ns, us, ms, s, m, h)`, or the cron or zone error unchanged.
// "to" with a close schedule that never matches names it: `invalid window "...": the close
// schedule "0 0 30 2 *" never matches`.
Window parse_window(std::string_view text);

struct Interval {
  SysTime start, end;           // [start, end)
  bool starts_earlier = false;  // open since before the look-back bound, which `start` is
  bool ends_later = false;      // still open at the horizon, which `end` is
  bool operator==(const Interval&) const = default;
};

// `--freeze FROM/TO`, both RFC 3339, FROM before TO. A freeze closes every whole second it
// touches: FROM is rounded down, TO up.
Interval parse_freeze(std::string_view text);

// Calendars (calendar.h) are allow and deny sources beside the windows: an event that is on
// opens (--window-calendar) or closes (--deny-calendar) as a window that is open does.
struct Schedule {
  std::vector<Window> allow, deny;
  std::vector<Interval> freeze;
  std::vector<Calendar> allow_calendars, deny_calendars;
};

// The zone a schedule is shown in: the first allow window's, else the first allow calendar's (the
// zone of its floating times), else UTC.
const TimeZone& schedule_zone(const Schedule& schedule);

bool is_open(const Schedule& schedule, SysTime t);

// Why the schedule is open or closed at `t`, as a person would name it, for output, Events and
// the reason annotation. open_reason: the name of the allow window open at `t` (a calendar
// event's SUMMARY, else the window's text); "" when closed. A calendar event without a SUMMARY
// is named after its file ("calendar holidays.ics"). closed_reason: what closes it
// although an allow window may be open, in precedence order: a freeze ("freeze FROM/TO"), then a
// deny calendar event's SUMMARY or a deny window's text; "" when it is closed only because no
// allow window is open (or when it is open).
std::string open_reason(const Schedule& schedule, SysTime t);
std::string closed_reason(const Schedule& schedule, SysTime t);

// The next `count` intervals during which the schedule is open (allow minus deny minus freeze,
// merged) that end after `at`, earliest first; the first may have begun before `at`. Fewer when
// the horizon comes first. Bounds also lie where SysTime ends (SysTime::min() and max()): as
// an end is exclusive, no interval holds SysTime::max() itself.
std::vector<Interval> next_windows(const Schedule& schedule, SysTime at, int count);

// The window engine's start instants strictly after `after`, at most `count`, within 400 years:
// what `cron` in `zone` starts, with the gap and repeated-hour rules above.
std::vector<SysTime> next_starts(const CronSchedule& cron, const TimeZone& zone, SysTime after, int count);

// RFC 3339 in the zone's offset at that instant: 2026-03-29T03:30:00+02:00; "Z" for offset 0, as
// Go writes it. Offsets with seconds (local mean time before ~1900) are written in UTC.
std::string format_local(SysTime t, const TimeZone& zone);

}  // namespace windowctl
