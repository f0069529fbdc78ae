// TZif files and POSIX TZ rules (the zoneinfo directory is mounted from outside, and a footer
// rule decides every instant after the last transition). Invariants, at instants around the
// zone's own transitions: offset_at lies within [min_offset, max_offset]; local_to_utc gives,
// earliest first, instants that show the wall time asked for, among them every instant that
// does (up to two); next_transition changes the offset and nothing changes it before; and the
// window engine's starts in such a zone come out in order.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "config.h"
#include "cron.h"
#include "fuzz_util.h"
#include "window.h"
#include "zone.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

// Instants the engine meets: within SysTime's range and a little beyond, as wall times.
constexpr std::int64_t kReach = 10'000'000'000;  // about 317 years either side of 1970

std::string at(sys_seconds t) { return std::to_string(t.time_since_epoch().count()); }

void check_instant(const TimeZone& z, sys_seconds t) {
  seconds off = z.offset_at(t);
  FUZZ_CHECK(off >= z.min_offset() && off <= z.max_offset(), at(t));
  (void)z.abbreviation(t);
  local_seconds wall{(t + off).time_since_epoch()};
  auto candidates = z.local_to_utc(wall);
  FUZZ_CHECK(candidates.size() <= 2, at(t));
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    FUZZ_CHECK(candidates[i] + z.offset_at(candidates[i]) == t + off,
               "local_to_utc and offset_at disagree at " + at(t));
    if (i > 0) FUZZ_CHECK(candidates[i - 1] < candidates[i], at(t));
  }
  // t shows `wall`, so it is a candidate, unless two earlier ones filled the list.
  bool found = std::find(candidates.begin(), candidates.end(), t) != candidates.end();
  FUZZ_CHECK(found || (candidates.size() == 2 && candidates[1] < t), "local_to_utc misses " + at(t));
  FUZZ_CHECK(z.resolve(wall) == candidates.front(), at(t));
  if (auto next = z.next_transition(t)) {
    FUZZ_CHECK(*next > t, at(t));
    FUZZ_CHECK(z.offset_at(*next - seconds(1)) == off, "next_transition skips a change after " + at(t));
    FUZZ_CHECK(z.offset_at(*next) != off, "next_transition changes nothing at " + at(*next));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool posix = in.ConsumeBool();
  std::int64_t start = in.ConsumeIntegralInRange<std::int64_t>(-kReach, kReach);
  int walks = in.ConsumeIntegralInRange(1, 40);
  std::string spec = posix ? in.ConsumeRandomLengthString(64) : "";
  std::string bytes = in.ConsumeRemainingBytesAsString();
  TimeZone z;
  try {
    z = posix ? TimeZone::from_posix("fuzz", spec) : TimeZone::from_tzif("fuzz", bytes);
  } catch (const ConfigError&) {
    return 0;
  }
  // From `start`, walk the transitions and look at each one and either side of it.
  sys_seconds t{seconds(start)};
  for (int i = 0; i < walks; ++i) {
    check_instant(z, t);
    auto next = z.next_transition(t);
    if (!next || next->time_since_epoch().count() > kReach) break;
    check_instant(z, *next - seconds(1));
    check_instant(z, *next);
    t = *next;
  }
  // Wall times that exist nowhere (gaps) resolve forward, past where they would have been.
  local_seconds wall{seconds(start)};
  auto candidates = z.local_to_utc(wall);
  if (candidates.empty()) {
    sys_seconds r = z.resolve(wall);
    FUZZ_CHECK(r + z.offset_at(r) > sys_seconds{wall.time_since_epoch()}, "a gap resolves backwards at " + at(r));
  }
  // The window engine over the zone: hourly starts, in order and each a real wall time.
  static const CronSchedule hourly = parse_cron("30 * * * *");
  auto starts = next_starts(hourly, z, SysTime(std::clamp(sys_seconds{seconds(start)}, kFirstTime, kLastTime)), 6);
  for (std::size_t i = 1; i < starts.size(); ++i) FUZZ_CHECK(starts[i - 1] < starts[i], at(floor<seconds>(starts[i])));
  return 0;
}
