// Window expressions ("CRON for DURATION [in ZONE]", "CRON to CRON [in ZONE]") and freezes, as flags and as the
// annotations sync reads. Invariants over schedules built from them: intervals are ordered,
// non-empty, disjoint and not touching, the first ends after the instant asked about;
// is_open agrees with them at that instant and at their edges; an interval's edges are exact
// (open at its start, closed just before it unless cut by the look-back bound, closed at its
// end unless cut by the horizon).
#include <chrono>
#include <cstdint>
#include <string>

#include "config.h"
#include "fuzz_util.h"
#include "window.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

std::string show(SysTime t) { return rfc3339(t); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // Mostly this century; sometimes near either end of what SysTime holds.
  SysTime at;
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0: at = SysTime(kFirstTime) + seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 5'000'000'000)); break;
    case 1: at = SysTime(kLastTime) - seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 100'000'000)); break;
    default: at = SysTime(seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 4'100'000'000))); break;
  }
  const nanoseconds frac(in.ConsumeIntegralInRange(0, 999'999'999));
  at = at <= SysTime::max() - frac ? at + frac : SysTime::max();
  Schedule s;
  int allow = in.ConsumeIntegralInRange(1, 2), deny = in.ConsumeIntegralInRange(0, 1),
      freeze = in.ConsumeIntegralInRange(0, 1);
  try {
    for (int i = 0; i < allow; ++i) s.allow.push_back(parse_window(in.ConsumeRandomLengthString(80)));
    for (int i = 0; i < deny; ++i) s.deny.push_back(parse_window(in.ConsumeRandomLengthString(80)));
    for (int i = 0; i < freeze; ++i) s.freeze.push_back(parse_freeze(in.ConsumeRandomLengthString(80)));
  } catch (const ConfigError&) {
    return 0;
  }
  for (const auto* list : {&s.allow, &s.deny}) {
    for (const Window& w : *list) {
      if (w.close) {
        FUZZ_CHECK(w.duration == seconds(0) && can_match(*w.close), w.text);  // a close that never comes is refused
      } else {
        FUZZ_CHECK(w.duration > seconds(0) && w.duration <= days(366), w.text);
      }
    }
  }
  for (const Interval& f : s.freeze) FUZZ_CHECK(f.start < f.end);

  auto intervals = next_windows(s, at, 3);
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const Interval& v = intervals[i];
    std::string what = show(v.start) + "/" + show(v.end) + " at " + show(at);
    FUZZ_CHECK(v.start < v.end, what);
    if (i > 0) FUZZ_CHECK(intervals[i - 1].end < v.start, what);
    FUZZ_CHECK(is_open(s, v.start), "closed at the start of " + what);
    if (!v.starts_earlier) FUZZ_CHECK(!is_open(s, v.start - seconds(1)), "open before " + what);
    FUZZ_CHECK(is_open(s, v.end - seconds(1)), "closed at the end of " + what);
    if (!v.ends_later) FUZZ_CHECK(!is_open(s, v.end), "open after " + what);
  }
  bool inside = !intervals.empty() && intervals[0].start <= at && at < intervals[0].end;
  FUZZ_CHECK(intervals.empty() || intervals[0].end > at);
  // As an end is exclusive, no interval can hold SysTime::max() itself (window.h).
  if (at < SysTime::max()) FUZZ_CHECK(is_open(s, at) == inside, "is_open and next_windows disagree at " + show(at));
  return 0;
}
