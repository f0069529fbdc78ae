// Which schedule governs an object, for `sync` and `status --window`: its own annotations when it
// carries them (so one sync job serves any number of window types, and a schedule change in Git
// lands at the next tick), else the command line's --window/--deny. --freeze always applies.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "window.h"

namespace windowctl {

inline constexpr const char* kWindowAnnotation = "windowctl.io/window";  // allow windows, ';'-separated
inline constexpr const char* kDenyAnnotation = "windowctl.io/deny";      // deny windows, ';'-separated

// A calendar file's text by its path: the file itself when a command runs; check reads the
// job's ConfigMap volume instead. ConfigError when there is none.
using ReadCalendar = std::function<std::string(const std::string& path)>;

struct ScheduleFlags {
  std::vector<std::string> windows, denies, freezes;
  std::vector<std::string> window_calendars, deny_calendars;  // paths
  ReadCalendar read;                                          // empty: the files on this machine
};

// Parses the flags; ConfigError (exit 2) names the bad expression or calendar. Calendars read
// floating times and dates in the zone of the first --window (else of the first --deny), as the
// windows they sit beside; without either, in their own X-WR-TIMEZONE or UTC (calendar.h).
Schedule parse_schedule(const ScheduleFlags& flags);

// "a; b\nc" → {"a", "b", "c"}: cron fields are space-separated, so ';' and newlines are free.
std::vector<std::string> split_expressions(std::string_view text);

// The object's schedule, or nullopt when neither it nor the flags give a window. A malformed
// annotation throws ConfigError naming the annotation (that target fails; the others go on).
std::optional<Schedule> schedule_for(const nlohmann::json& object, const Schedule& flags);

struct WindowState {
  bool open = false;
  std::optional<Interval> current;  // the open interval containing now
  std::optional<Interval> next;     // the next interval that starts after now
  const TimeZone* zone = nullptr;   // for display: the first allow window's zone
};

WindowState window_state(const Schedule& schedule, SysTime now);

// When the schedule next changes, as `status` shows it (NEXT OPEN, NEXT CLOSE) and open, close
// and sync record it on the object (windowctl.io/next-open, -close): the next interval's start,
// and the end of the one open now (else of the next). nullopt for an edge the search does not
// reach (an interval cut at its horizon or look-back bound ends or starts there, not really).
struct Edges {
  std::optional<SysTime> open, close;
};
Edges next_edges(const WindowState& state);

// Flux's suspend reason while the schedule is closed at `now`, as a person would say it:
// "windowctl: window closed until 2026-11-30 08:00 Europe/Zurich (Christmas freeze)", the time
// in the first allow window's zone, the parentheses what closes it (closed_reason; none when
// only no allow window is open). "" when the schedule is open at `now`.
std::string closed_flux_reason(const Schedule& schedule, SysTime now, const WindowState& state);

}  // namespace windowctl
