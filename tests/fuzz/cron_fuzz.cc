// Cron expressions (flags, and the windowctl.io/window annotations sync reads from objects).
// Invariants: a canonical spelling of a parsed schedule (every value listed, "*" for a star
// field) parses to the same schedule; next_match finds exactly the first matching minute, as a
// minute-by-minute walk does; a schedule can_match rejects never matches, one it accepts
// matches within 400 years.
#include <chrono>
#include <cstdint>
#include <string>

#include "config.h"
#include "cron.h"
#include "fuzz_util.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

std::string field(std::uint64_t bits, unsigned lo, unsigned hi, bool star) {
  if (star) return "*";
  std::string out;
  for (unsigned v = lo; v <= hi; ++v) {
    if (bits >> v & 1) out += (out.empty() ? "" : ",") + std::to_string(v);
  }
  return out;
}

std::string canonical(const CronSchedule& c) {
  return field(c.minutes, 0, 59, false) + " " + field(c.hours, 0, 23, false) + " " + field(c.days, 1, 31, c.days_star) +
         " " + field(c.months, 1, 12, false) + " " + field(c.weekdays, 0, 6, c.weekdays_star);
}

bool same(const CronSchedule& a, const CronSchedule& b) {
  return a.minutes == b.minutes && a.hours == b.hours && a.days == b.days && a.months == b.months &&
         a.weekdays == b.weekdays && a.days_star == b.days_star && a.weekdays_star == b.weekdays_star;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // A minute between 1900 and 2300, and how far to walk from it.
  const LocalMinute after{minutes(in.ConsumeIntegralInRange<std::int64_t>(-36'000'000, 173'000'000))};
  const int walk = in.ConsumeIntegralInRange(1, 3000);
  const std::string text = in.ConsumeRemainingBytesAsString();
  CronSchedule c;
  try {
    c = parse_cron(text);
  } catch (const ConfigError&) {
    return 0;
  }
  FUZZ_CHECK(c.text == text);
  FUZZ_CHECK(!(c.minutes >> 60) && !(c.hours >> 24) && !(c.days & 1) && !(c.months & 1) && !(c.months >> 13) &&
                 !(c.weekdays >> 7),
             "a value out of its field's range");
  // A star field holds the whole range.
  FUZZ_CHECK(!c.days_star || c.days == 0xfffffffe);
  FUZZ_CHECK(!c.weekdays_star || c.weekdays == 0x7f);
  std::string again = canonical(c);
  CronSchedule d;
  try {
    d = parse_cron(again);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(false, again + ": " + e.what());
  }
  FUZZ_CHECK(same(c, d), text + " -> " + again);

  const LocalMinute limit = after + minutes(walk);
  auto found = next_match(c, after, limit);
  std::optional<LocalMinute> walked;
  for (LocalMinute t = after + minutes(1); t <= limit; t += minutes(1)) {
    if (matches(c, t)) {
      walked = t;
      break;
    }
  }
  FUZZ_CHECK(found == walked, again);
  if (!can_match(c)) {
    FUZZ_CHECK(!next_match(c, after).has_value(), again);
  } else if (!found) {
    auto far = next_match(c, after);
    FUZZ_CHECK(far && *far > limit && matches(c, *far), again);
  }
  return 0;
}
