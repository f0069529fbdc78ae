// Cron expressions in the dialect of a Kubernetes CronJob `schedule`, which is robfig/cron v3's
// standard parser, so a window can be copied to and from a CronJob unchanged. Matching is on
// wall-clock (civil) minutes; zone.h and window.h turn those into instants.
//
// Accepted: five fields (minute hour day-of-month month day-of-week) of comma lists whose items
// are `*` or `?`, N, A-B, */S, A-B/S or N/S (= N-max/S); JAN-DEC and SUN-SAT in any case;
// the descriptors @yearly @annually @monthly @weekly @daily @midnight @hourly (lower case, as
// robfig). Day-of-week is 0-6 with Sunday 0: robfig v3 rejects 7, and so do we.
//
// Day-of-month and day-of-week combine as robfig does: if either field carries the "star bit"
// the day must match both (AND), otherwise either (OR). The star bit is set by an item that is
// `*` or `?` with no step or step 1. `*/2` does not set it, so `0 0 */2 * MON` runs on odd days
// and on Mondays; a full range written out (`1-31`, `0-6`, `SUN-SAT`) does not set it either.
//
// Rejected although robfig accepts them, because they are almost certainly mistakes: empty list
// items (`1,,2`), signs (`+5`), `*` with a range (`*-5`, which robfig reads as `*`). Rejected
// by design: `@every`, whose instants are not wall-clock times, and TZ=/CRON_TZ= prefixes
// (Kubernetes refuses them in new CronJobs in favour of spec.timeZone; a window names its zone
// after "in").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace windowctl {

// A wall-clock minute with no zone attached.
using LocalMinute = std::chrono::local_time<std::chrono::minutes>;

struct CronSchedule {
  std::string text;            // as written, for messages
  std::uint64_t minutes = 0;   // bit n: minute n (0-59)
  std::uint32_t hours = 0;     // bit n: hour n (0-23)
  std::uint32_t days = 0;      // bit n: day of month n (1-31)
  std::uint16_t months = 0;    // bit n: month n (1-12)
  std::uint8_t weekdays = 0;   // bit n: weekday n (0 = Sunday)
  bool days_star = false;      // robfig's star bit of the day-of-month field
  bool weekdays_star = false;  // and of the day-of-week field
};

// Throws ConfigError: `invalid cron "0 25 * * *": hour 25 out of range 0-23`.
CronSchedule parse_cron(std::string_view text);

bool matches(const CronSchedule& cron, LocalMinute t);

// False for schedules such as `0 0 30 2 *` that name no date in any year.
bool can_match(const CronSchedule& cron);

// The first matching minute strictly after `after` and not after `limit` (default: 400 years,
// a whole Gregorian cycle, after which every possible date has come round). Skips whole months,
// days and hours, so a sparse schedule costs about as much as a dense one.
std::optional<LocalMinute> next_match(const CronSchedule& cron, LocalMinute after);
std::optional<LocalMinute> next_match(const CronSchedule& cron, LocalMinute after, LocalMinute limit);

// The last matching minute strictly before `before` and not before `limit`; skips as next_match.
std::optional<LocalMinute> prev_match(const CronSchedule& cron, LocalMinute before, LocalMinute limit);

// True when every minute `inner` matches, `outer` matches too.
bool covers(const CronSchedule& outer, const CronSchedule& inner);

}  // namespace windowctl
