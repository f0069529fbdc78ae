// RFC 3339 timestamps as Kubernetes writes them, and kubectl-style ages.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace windowctl {

using SysTime = std::chrono::system_clock::time_point;

std::string rfc3339(SysTime t);       // 2026-11-22T04:30:00Z (seconds, as metav1.Time)
std::string rfc3339_nano(SysTime t);  // 2026-11-22T04:30:00.123456789Z (flux reconcile token style)
std::optional<SysTime> parse_rfc3339(std::string_view text);
std::string human_duration(std::chrono::seconds d);  // 45s, 5m, 3h12m, 2d4h, as kubectl ages

}  // namespace windowctl

namespace windowctl {
// Go duration syntax as kubectl and Flux accept it: "30s", "1h30m", "500ms", "1.5h"; "0" alone.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);
}  // namespace windowctl

namespace windowctl {
// "2d 4h", "4h 10m", "35m", "45s": how long until the next transition, for people.
std::string human_until(std::chrono::seconds d);
}  // namespace windowctl
