// The instants at which a cron schedule fires in a zone, found from either side: each matching
// wall-clock minute read as TimeZone::resolve does (a time in a spring-forward gap moves forward
// by the gap's length, a repeated time counts once, at its first occurrence). Two wall times can
// resolve to one instant, and a time moved out of a gap can come after a later wall time, so the
// searches look at every wall time that could resolve into range, not only the nearest one.
#pragma once

#include <chrono>
#include <optional>

#include "cron.h"
#include "zone.h"

namespace windowctl {

// Gaps last at most a day (Samoa skipped one), so an instant with no offset change within two
// days of it is read with the offset in effect there, whatever wall time it comes from: around
// such an instant t, wall time w is the instant w - offset_at(t), in order, for half a day either
// way. That offset, or nullopt near a change.
std::optional<std::chrono::seconds> steady_offset(const TimeZone& zone, sys_seconds t);

// The earliest instant in [from, until) at which `cron` fires in `zone`.
std::optional<sys_seconds> first_occurrence(const CronSchedule& cron, const TimeZone& zone, sys_seconds from,
                                            sys_seconds until);

// The latest instant in [since, at] at which `cron` fires in `zone`.
std::optional<sys_seconds> last_occurrence(const CronSchedule& cron, const TimeZone& zone, sys_seconds at,
                                           sys_seconds since);

}  // namespace windowctl
