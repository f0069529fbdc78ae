// iCalendar files (--window-calendar, --deny-calendar, and the ConfigMaps check reads them from).
// Invariants: a refusal is a ConfigError, never another exception or a crash; the occurrences over
// a range are ordered by start, each non-empty and overlapping the range, at most the cap, each
// naming an event that has a printable summary; the same question gives the same answer; and
// a range split in two gives, on each half, exactly the occurrences of the whole that overlap it
// (which checks the expansion's jump to the range against stepping through it).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "calendar.h"
#include "errors.h"
#include "fuzz_util.h"
#include "text.h"
#include "timefmt.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

std::string show(const std::vector<CalendarSpan>& spans) {
  std::string out;
  for (const auto& s : spans) out += rfc3339(s.start) + "/" + rfc3339(s.end) + " ";
  return out;
}

std::vector<CalendarSpan> overlapping(const std::vector<CalendarSpan>& all, sys_seconds from, sys_seconds to) {
  std::vector<CalendarSpan> out;
  for (const auto& s : all) {
    if (s.end > from && s.start < to) out.push_back(s);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // A range from 1906 to 2286 of up to three years, split somewhere; the zone of floating times.
  const sys_seconds from{seconds(in.ConsumeIntegralInRange<std::int64_t>(-2'000'000'000, 10'000'000'000))};
  const sys_seconds to = from + days(in.ConsumeIntegralInRange(1, 1100));
  const sys_seconds mid = from + (to - from) * in.ConsumeIntegralInRange(1, 99) / 100;
  const int zone = in.ConsumeIntegralInRange(0, 2);
  const std::string text = in.ConsumeRemainingBytesAsString();
  std::optional<TimeZone> floating;
  if (zone == 1) floating = TimeZone::load("Europe/Zurich");
  std::optional<Calendar> c;
  try {
    c = parse_calendar(text, "fuzz.ics", floating);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(std::string(e.what()).rfind("calendar fuzz.ics", 0) == 0, e.what());
    return 0;
  }
  std::vector<CalendarSpan> all;
  try {
    all = c->spans(from, to);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(std::string(e.what()).find("(the cap)") != std::string::npos, e.what());
    return 0;
  }
  FUZZ_CHECK(all.size() <= kCalendarMaxSpans);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& s = all[i];
    FUZZ_CHECK(s.start < s.end, rfc3339(s.start) + "/" + rfc3339(s.end));
    FUZZ_CHECK(s.end > from && s.start < to, "an occurrence outside the range: " + rfc3339(s.start));
    FUZZ_CHECK(i == 0 || all[i - 1].start <= s.start, "out of order");
    FUZZ_CHECK(s.end - s.start <= c->longest(), "longer than longest()");
    const std::string& name = c->summary(s.event);
    FUZZ_CHECK(printable(name) == name && name.size() <= 200 + 3, name);
  }
  FUZZ_CHECK(c->spans(from, to) == all, "the same question, another answer");
  try {
    const std::string range = rfc3339(from) + " " + rfc3339(mid) + " " + rfc3339(to) + "\n";
    auto first = c->spans(from, mid), second = c->spans(mid, to);
    FUZZ_CHECK(first == overlapping(all, from, mid),
               "the first half differs from the whole: " + range + show(first) + "\nwhole: " + show(all));
    FUZZ_CHECK(second == overlapping(all, mid, to),
               "the second half differs from the whole: " + range + show(second) + "\nwhole: " + show(all));
  } catch (const ConfigError& e) {
    // A half steps through no more than the whole did.
    FUZZ_CHECK(false, e.what());
  }
  return 0;
}
