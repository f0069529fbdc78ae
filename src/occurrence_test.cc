#include "occurrence.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "timefmt.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

sys_seconds utc(const char* text) {
  auto t = parse_rfc3339(text);
  REQUIRE(t.has_value());
  return floor<seconds>(*t);
}

std::string first_at(const char* cron, const char* zone, const char* from, const char* until) {
  auto t = first_occurrence(parse_cron(cron), TimeZone::load(zone), utc(from), utc(until));
  return t ? rfc3339(*t) : "none";
}

std::string last_at(const char* cron, const char* zone, const char* at, const char* since) {
  auto t = last_occurrence(parse_cron(cron), TimeZone::load(zone), utc(at), utc(since));
  return t ? rfc3339(*t) : "none";
}

}  // namespace

TEST_CASE("occurrences are inclusive at the near end and bounded at the far end") {
  CHECK(first_at("0 8 * * *", "UTC", "2026-03-02T08:00:00Z", "2026-03-10T00:00:00Z") == "2026-03-02T08:00:00Z");
  CHECK(first_at("0 8 * * *", "UTC", "2026-03-02T08:00:01Z", "2026-03-10T00:00:00Z") == "2026-03-03T08:00:00Z");
  CHECK(first_at("0 8 * * *", "UTC", "2026-03-02T08:00:01Z", "2026-03-03T08:00:00Z") == "none");  // until is exclusive
  CHECK(last_at("0 8 * * *", "UTC", "2026-03-02T08:00:00Z", "2026-01-01T00:00:00Z") == "2026-03-02T08:00:00Z");
  CHECK(last_at("0 8 * * *", "UTC", "2026-03-02T07:59:59Z", "2026-01-01T00:00:00Z") == "2026-03-01T08:00:00Z");
  CHECK(last_at("0 8 * * *", "UTC", "2026-03-02T07:59:59Z", "2026-03-01T08:00:01Z") == "none");
  CHECK(first_at("0 0 29 2 *", "UTC", "2026-11-24T00:00:00Z", "2031-11-24T00:00:00Z") == "2028-02-29T00:00:00Z");
  CHECK(last_at("0 0 29 2 *", "UTC", "2026-11-24T00:00:00Z", "2000-01-01T00:00:00Z") == "2024-02-29T00:00:00Z");
  CHECK(first_at("0 0 30 2 *", "UTC", "2026-01-01T00:00:00Z", "2261-01-01T00:00:00Z") == "none");
  CHECK(first_at("0 8 * * *", "UTC", "2026-03-02T09:00:00Z", "2026-03-02T09:00:00Z") == "none");
}

TEST_CASE("occurrences: a time in the gap moves forward, a repeated time counts once") {
  // 02:30 on 29 March 2026 in Zurich is 03:30 CEST (01:30Z), after 03:00 CEST (01:00Z).
  CHECK(first_at("30 2 * * *", "Europe/Zurich", "2026-03-29T00:00:00Z", "2026-04-01T00:00:00Z") ==
        "2026-03-29T01:30:00Z");
  CHECK(first_at("0,30 2,3 * * *", "Europe/Zurich", "2026-03-29T01:00:01Z", "2026-04-01T00:00:00Z") ==
        "2026-03-29T01:30:00Z");
  CHECK(last_at("0 3 * * *", "Europe/Zurich", "2026-03-29T01:29:00Z", "2026-03-01T00:00:00Z") ==
        "2026-03-29T01:00:00Z");
  // The wall time 02:30 comes before 03:00, its instant after: the latest instant wins.
  CHECK(last_at("0,30 2,3 * * *", "Europe/Zurich", "2026-03-29T01:45:00Z", "2026-03-01T00:00:00Z") ==
        "2026-03-29T01:30:00Z");
  // 02:30 on 25 October 2026 happens at 00:30Z (CEST), not again at 01:30Z (CET).
  CHECK(first_at("30 2 * * *", "Europe/Zurich", "2026-10-25T00:31:00Z", "2026-10-27T00:00:00Z") ==
        "2026-10-26T01:30:00Z");
  CHECK(last_at("30 2 * * *", "Europe/Zurich", "2026-10-25T01:45:00Z", "2026-10-01T00:00:00Z") ==
        "2026-10-25T00:30:00Z");
}

TEST_CASE("occurrences agree with next_match read through the zone") {
  // Random instants around DST changes: the first occurrence at or after t, and the last at or
  // before it, against every wall minute of four days resolved one by one.
  std::uint64_t state = 5;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  const char* crons[] = {"*/20 * * * *", "30 2 * * *", "0,59 1-3 * * *", "45 1 * * *", "0 3 * * SUN", "*/7 2 * * *"};
  const char* zones[] = {"UTC", "Europe/Zurich", "America/New_York", "Australia/Lord_Howe"};
  const char* around[] = {"2026-03-28T00:00:00Z", "2026-10-24T00:00:00Z", "2026-03-07T00:00:00Z",
                          "2026-10-31T00:00:00Z", "2026-04-04T00:00:00Z", "2026-10-03T00:00:00Z"};
  for (int i = 0; i < 300; ++i) {
    CronSchedule c = parse_cron(crons[rnd(6)]);
    TimeZone z = TimeZone::load(zones[rnd(4)]);
    sys_seconds base = utc(around[rnd(6)]);
    sys_seconds t = base + days(1) + seconds(rnd(2 * 86400));
    CAPTURE(c.text);
    CAPTURE(z.name());
    std::string when = rfc3339(t);
    CAPTURE(when);
    std::optional<sys_seconds> want_first, want_last;
    for (LocalMinute w = floor<minutes>(local_seconds{(base - days(1)).time_since_epoch()});
         w < local_seconds{(base + days(5)).time_since_epoch()}; w += minutes(1)) {
      if (!matches(c, w)) continue;
      sys_seconds a = z.resolve(local_seconds(w));
      if (a >= t && a < base + days(4) && (!want_first || a < *want_first)) want_first = a;
      if (a <= t && a >= base && (!want_last || a > *want_last)) want_last = a;
    }
    CHECK(first_occurrence(c, z, t, base + days(4)) == want_first);
    CHECK(last_occurrence(c, z, t, base) == want_last);
  }
}
