// RFC 3339 timestamps as Kubernetes writes them, and kubectl-style ages.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace windowctl {

using SysTime = std::chrono::system_clock::time_point;

// SysTime counts nanoseconds since 1970 in 64 bits, so it holds 1677-09-21T00:12:43.145224192Z
// to 2262-04-11T23:47:16.854775807Z and nothing else: a time beyond would wrap around to the
// other end. These are the first and last whole seconds it holds.
inline constexpr std::chrono::sys_seconds kFirstTime = std::chrono::ceil<std::chrono::seconds>(SysTime::min());
inline constexpr std::chrono::sys_seconds kLastTime = std::chrono::floor<std::chrono::seconds>(SysTime::max());

std::string rfc3339(SysTime t);                   // 2026-11-22T04:30:00Z (seconds, as metav1.Time)
std::string rfc3339(std::chrono::sys_seconds t);  // any year from -32767 to 32767
std::string rfc3339_nano(SysTime t);              // 2026-11-22T04:30:00.123456789Z (flux reconcile token style)
// A time a SysTime holds; nullopt when the text is not RFC 3339 or the time lies beyond.
std::optional<SysTime> parse_rfc3339(std::string_view text);
// For deadlines: any RFC 3339 time (years 0000 to 9999), one beyond SysTime's range saturated
// to SysTime::min() or SysTime::max(). A deadline in 9999 is after every instant windowctl
// meets, and so is max(); it must not wrap into the past. nullopt only when not RFC 3339.
std::optional<SysTime> parse_rfc3339_saturated(std::string_view text);
// Why `text` is no SysTime, for a message after its quoted self ("is not an RFC 3339 time
// such as 2026-03-29T01:30:00Z", "is after 2262-04-11T23:47:16Z, the last ..."); "" when it is.
std::string rfc3339_problem(std::string_view text);
std::string human_duration(std::chrono::seconds d);  // 45s, 5m, 3h12m, 2d4h, as kubectl ages

}  // namespace windowctl

namespace windowctl {
// Go duration syntax as kubectl and Flux accept it: "30s", "1h30m", "500ms", "1.5h", ".5s"; "0"
// alone. Exact to the nanosecond (digits past the 19th after a point are dropped) and, as Go,
// at most 2562047h47m16.854775807s; no sign, as no windowctl duration is negative.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);
// Why `text` is no such duration, for a message after its quoted self; the fix when it is a
// unit Go has no word for (`no unit "d": use 24h (units: ns, us, ms, s, m, h)`).
std::string go_duration_problem(std::string_view text);
}  // namespace windowctl

namespace windowctl {
// "2d 4h", "4h 10m", "35m", "45s": how long until the next transition, for people.
std::string human_until(std::chrono::seconds d);
}  // namespace windowctl
