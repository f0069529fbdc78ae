// iCalendar files (RFC 5545) as window sources: `--window-calendar FILE` opens while an event is
// on, `--deny-calendar FILE` closes. Pure but for load_calendar's read and the zoneinfo files a
// TZID names.
//
// The subset is the one real exports use (Outlook, Google, Apple, holiday feeds); the reference
// with examples is docs/windows.md#calendars:
// - VCALENDAR (one or more per file) holding VEVENTs and VTIMEZONEs; VALARMs (reminders) inside an
//   event carry no window and are not read. Any other component (VTODO, VJOURNAL, VFREEBUSY, ...)
//   is refused.
// - Every property that decides when an event happens is read or refused: DTSTART; DTEND or
//   DURATION; RRULE (FREQ DAILY, WEEKLY, MONTHLY, YEARLY; INTERVAL, COUNT, UNTIL, BYDAY with
//   ordinals such as 2TU and -1FR, BYMONTH, BYMONTHDAY, BYSETPOS, WKST); RDATE (DATE, DATE-TIME,
//   PERIOD); EXDATE; RECURRENCE-ID (without RANGE); STATUS:CANCELLED (the event, or one
//   occurrence through an override, is skipped). EXRULE, BYHOUR, BYWEEKNO and the like are
//   refused. Properties that carry no time (DESCRIPTION, LOCATION, ATTENDEE, X-...) are not read.
// - SUMMARY names the window in output, Events and the reason annotation.
// - Times: UTC ("Z"), TZID=<zone>, floating (no zone) and all-day (VALUE=DATE). Floating times
//   and dates are read in the calendar's zone (see parse_calendar). A TZID is, in this order, an
//   IANA zone from the zoneinfo directory, the file's own VTIMEZONE of that name (its latest
//   STANDARD and DAYLIGHT observances as a yearly rule: what Outlook writes for "W. Europe
//   Standard Time"), or a Windows zone name mapped through CLDR's windowsZones table when the
//   file has no VTIMEZONE for it. Anything else is refused.
// - A wall time that does not exist (spring-forward gap) moves forward by the gap's length; one
//   that happens twice happens at its first occurrence (RFC 5545 3.3.5, and TimeZone::resolve).
// - DTSTART is always the first occurrence, as RFC 5545 says, and counts towards COUNT. An
//   event's length is exact (DTEND - DTSTART) for timed events and nominal days for all-day ones
//   (Christmas is a day long in every zone); DURATION's days and weeks are nominal, its hours,
//   minutes and seconds exact.
// - Lines: CRLF or LF, folded (a line that begins with a space or tab continues the one before),
//   UTF-8 with or without a byte order mark.
//
// Every refusal is a ConfigError (exit 2) of one line naming the file, the line and the property:
//   calendar holidays.ics line 12: RRULE: FREQ=HOURLY is not supported (DAILY, WEEKLY, MONTHLY, YEARLY)
//
// Bounded whatever the file holds: at most kCalendarMaxBytes read, kCalendarMaxEvents events,
// kCalendarMaxSpans occurrences per question (spans), kCalendarMaxSteps recurrence periods
// stepped through per question; past a bound, a ConfigError says which.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zone.h"

namespace windowctl {

inline constexpr std::size_t kCalendarMaxBytes = 8u << 20;
inline constexpr std::size_t kCalendarMaxEvents = 20000;
inline constexpr std::size_t kCalendarMaxSpans = 200000;
inline constexpr std::uint64_t kCalendarMaxSteps = 4000000;

// One occurrence: [start, end), and which event it is (for summary()).
struct CalendarSpan {
  sys_seconds start, end;
  std::uint32_t event = 0;
  bool operator==(const CalendarSpan&) const = default;
};

class Calendar {
 public:
  struct Data;
  explicit Calendar(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

  const std::string& path() const;
  // The zone of the calendar's floating times and dates.
  const TimeZone& zone() const;
  // The events read (overrides included, cancelled ones not).
  std::size_t size() const;
  // At least as long as any occurrence: how far back a question must look.
  std::chrono::seconds longest() const;
  // Every occurrence that overlaps [from, to), ordered by start. ConfigError past a bound.
  std::vector<CalendarSpan> spans(sys_seconds from, sys_seconds to) const;
  // The event's SUMMARY, unescaped and printable; "" when it has none.
  const std::string& summary(std::uint32_t event) const;

 private:
  std::shared_ptr<const Data> data_;
};

// `path` names the file in messages. Floating times and dates are read in `floating` when given
// (the window's zone), else in the calendar's X-WR-TIMEZONE (Google's calendar-wide zone) when it
// has one, else in UTC.
Calendar parse_calendar(std::string_view text, const std::string& path, const std::optional<TimeZone>& floating);
// Reads the file (ConfigError when it cannot, or when it is larger than kCalendarMaxBytes).
Calendar load_calendar(const std::string& path, const std::optional<TimeZone>& floating);

// The IANA zone CLDR maps a Windows zone name to (its territory "001" entry), or nullptr.
const char* windows_zone_to_iana(std::string_view windows_name);

}  // namespace windowctl
