// RFC 3339 times and Go durations. Invariants: whatever parses prints and parses back to the
// same value (RFC 3339 to the nanosecond, Go durations as Go prints them); every SysTime
// prints as a time that parses back to itself; a time beyond SysTime's range is refused by
// parse_rfc3339, saturated to its side by parse_rfc3339_saturated and named by rfc3339_problem;
// a refused duration is named by go_duration_problem in one printable line.
#include <chrono>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "text.h"
#include "timefmt.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

// As Go's Duration.String: "1h2m3.5s", "1.5ms", "250ns", "0s".
std::string go_string(std::int64_t d) {
  auto frac = [](std::int64_t v, std::int64_t unit) {
    std::string out = std::to_string(v / unit);
    std::string digits = std::to_string(unit + v % unit).substr(1);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    return digits.empty() ? out : out + "." + digits;
  };
  if (d == 0) return "0s";
  if (d < 1000) return std::to_string(d) + "ns";
  if (d < 1000000) return frac(d, 1000) + "\u00b5s";
  if (d < 1000000000) return frac(d, 1000000) + "ms";
  std::int64_t h = d / 3600000000000, m = d / 60000000000 % 60;
  std::string out;
  if (h) out += std::to_string(h) + "h";
  if (h || m) out += std::to_string(m) + "m";
  return out + frac(d % 60000000000, 1000000000) + "s";
}

void check_time(SysTime t) {
  std::string nano = rfc3339_nano(t), whole = rfc3339(t);
  FUZZ_CHECK(parse_rfc3339(nano) == t, nano);
  // The whole second of a time before kFirstTime lies outside the range.
  if (floor<seconds>(t) >= kFirstTime) FUZZ_CHECK(parse_rfc3339(whole) == SysTime(floor<seconds>(t)), whole);
  FUZZ_CHECK(parse_rfc3339_saturated(nano) == t, nano);
  FUZZ_CHECK(rfc3339_problem(nano).empty(), nano);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange(0, 4)) {
    case 0: {  // a time as text
      std::string text = in.ConsumeRemainingBytesAsString();
      auto t = parse_rfc3339(text);
      auto saturated = parse_rfc3339_saturated(text);
      std::string problem = rfc3339_problem(text);
      if (t) {
        check_time(*t);
        FUZZ_CHECK(saturated == t && problem.empty(), text);
      } else if (saturated) {
        // Well-formed but beyond: saturated to the side rfc3339_problem names.
        bool after = problem.starts_with("is after ");
        FUZZ_CHECK(after || problem.starts_with("is before "), problem);
        FUZZ_CHECK(*saturated == (after ? SysTime::max() : SysTime::min()), text);
      } else {
        FUZZ_CHECK(problem.starts_with("is not an RFC 3339 time"), problem);
      }
      break;
    }
    case 1: {  // any SysTime
      check_time(SysTime(nanoseconds(in.ConsumeIntegral<std::int64_t>())));
      break;
    }
    case 2: {  // whole seconds of any year RFC 3339 can write
      const std::int64_t lo = sys_seconds(sys_days(year{0} / 1 / 1)).time_since_epoch().count();
      const std::int64_t hi = sys_seconds(sys_days(year{9999} / 12 / 31) + hours(24)).time_since_epoch().count() - 1;
      sys_seconds s{seconds(in.ConsumeIntegralInRange(lo, hi))};
      std::string text = rfc3339(s);
      auto t = parse_rfc3339(text);
      FUZZ_CHECK(t.has_value() == (s >= kFirstTime && s <= kLastTime), text);
      if (t) FUZZ_CHECK(*t == SysTime(s), text);
      auto saturated = parse_rfc3339_saturated(text);
      FUZZ_CHECK(saturated.has_value(), text);
      FUZZ_CHECK(*saturated == (s < kFirstTime ? SysTime::min() : s > kLastTime ? SysTime::max() : SysTime(s)), text);
      break;
    }
    case 3: {  // a duration as text
      std::string text = in.ConsumeRemainingBytesAsString();
      if (auto d = parse_go_duration(text)) {
        FUZZ_CHECK(d->count() >= 0, text);
        FUZZ_CHECK(parse_go_duration(go_string(d->count())) == *d, text + " -> " + go_string(d->count()));
        (void)human_until(floor<seconds>(*d));
        (void)human_duration(floor<seconds>(*d));
      } else {
        // Why it is refused: one short line a terminal shows as it is, whatever the bytes.
        std::string problem = go_duration_problem(text);
        FUZZ_CHECK(!problem.empty() && problem.size() < 200 && printable(problem) == problem, problem);
      }
      break;
    }
    default: {  // any duration Go can write
      std::int64_t d = in.ConsumeIntegralInRange<std::int64_t>(0, std::numeric_limits<std::int64_t>::max());
      FUZZ_CHECK(parse_go_duration(go_string(d)) == nanoseconds(d), go_string(d));
      FUZZ_CHECK(parse_go_duration(std::to_string(d) + "ns") == nanoseconds(d), std::to_string(d));
      std::string s =
          std::to_string(d / 1000000000) + "." + std::to_string(1000000000 + d % 1000000000).substr(1) + "s";
      FUZZ_CHECK(parse_go_duration(s) == nanoseconds(d), s);
      seconds any(in.ConsumeIntegral<std::int64_t>());
      FUZZ_CHECK(!human_until(any).empty() && !human_duration(any).empty());
      break;
    }
  }
  return 0;
}
