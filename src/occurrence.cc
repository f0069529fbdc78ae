#include "occurrence.h"

namespace windowctl {

using namespace std::chrono;

namespace {

local_seconds as_local(sys_seconds t) { return local_seconds{t.time_since_epoch()}; }
sys_seconds as_sys(LocalMinute w) { return sys_seconds{w.time_since_epoch()}; }

}  // namespace

std::optional<seconds> steady_offset(const TimeZone& zone, sys_seconds t) {
  auto change = zone.next_transition(t - days(2));
  if (change && *change <= t + days(2)) return std::nullopt;
  return zone.offset_at(t);
}

std::optional<sys_seconds> first_occurrence(const CronSchedule& cron, const TimeZone& zone, sys_seconds from,
                                            sys_seconds until) {
  if (from >= until) return std::nullopt;
  if (auto offset = steady_offset(zone, from)) {
    LocalMinute w = ceil<minutes>(as_local(from + *offset));
    if (auto m = next_match(cron, w - minutes(1), floor<minutes>(as_local(from + *offset + hours(12))))) {
      sys_seconds a = as_sys(*m) - *offset;
      return a < until ? std::optional(a) : std::nullopt;
    }
  }
  // Wall time w resolves to w - offset for some offset the zone has had, so only wall times in
  // [from + min_offset, until + max_offset) can land in range.
  LocalMinute w = floor<minutes>(as_local(from + zone.min_offset())) - minutes(1);
  const LocalMinute limit = floor<minutes>(as_local(until + zone.max_offset()));
  std::optional<sys_seconds> best;
  while (auto m = next_match(cron, w, limit)) {
    w = *m;
    if (best && as_sys(w) - zone.max_offset() >= *best) break;  // resolves no earlier than that
    sys_seconds a = zone.resolve(local_seconds(w));
    if (a >= from && a < until && (!best || a < *best)) best = a;
  }
  return best;
}

std::optional<sys_seconds> last_occurrence(const CronSchedule& cron, const TimeZone& zone, sys_seconds at,
                                           sys_seconds since) {
  if (since > at) return std::nullopt;
  if (auto offset = steady_offset(zone, at)) {
    LocalMinute w = floor<minutes>(as_local(at + *offset));
    if (auto m = prev_match(cron, w + minutes(1), ceil<minutes>(as_local(at + *offset - hours(12))))) {
      sys_seconds a = as_sys(*m) - *offset;
      return a >= since ? std::optional(a) : std::nullopt;
    }
  }
  LocalMinute w = floor<minutes>(as_local(at + zone.max_offset())) + minutes(1);
  const LocalMinute limit = floor<minutes>(as_local(since + zone.min_offset()));
  std::optional<sys_seconds> best;
  while (auto m = prev_match(cron, w, limit)) {
    w = *m;
    if (best && as_sys(w) - zone.min_offset() <= *best) break;  // resolves no later than that
    sys_seconds a = zone.resolve(local_seconds(w));
    if (a <= at && a >= since && (!best || a > *best)) best = a;
  }
  return best;
}

}  // namespace windowctl
