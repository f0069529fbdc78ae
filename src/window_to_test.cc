// "CRON to CRON [in ZONE]" windows (window.h): parsing, DST, merging with "for" windows, deny
// and freeze, the 5-year horizon, and agreement of is_open with next_windows.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "occurrence.h"
#include "window.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

SysTime utc(const char* text) {
  auto t = parse_rfc3339(text);
  REQUIRE(t.has_value());
  return *t;
}

Schedule schedule(std::vector<const char*> allow, std::vector<const char*> deny = {},
                  std::vector<const char*> freeze = {}) {
  Schedule s;
  for (const char* w : allow) s.allow.push_back(parse_window(w));
  for (const char* w : deny) s.deny.push_back(parse_window(w));
  for (const char* f : freeze) s.freeze.push_back(parse_freeze(f));
  return s;
}

// "FROM/TO" per line; "<" before FROM when it starts earlier, ">" after TO when it ends later.
std::string next(const Schedule& s, const char* at, int count) {
  std::string out;
  for (const Interval& i : next_windows(s, utc(at), count)) {
    out += (i.starts_earlier ? "<" : "") + rfc3339(i.start) + "/" + rfc3339(i.end) + (i.ends_later ? ">" : "") + "\n";
  }
  return out;
}

std::string window_error(const char* text) {
  try {
    parse_window(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("to windows: parsing") {
  Window w = parse_window("0 8 * * MON to 0 17 * * THU in Europe/Zurich");
  CHECK(w.cron.text == "0 8 * * MON");
  REQUIRE(w.close.has_value());
  CHECK(w.close->text == "0 17 * * THU");
  CHECK(w.zone.name() == "Europe/Zurich");
  CHECK(w.duration == seconds(0));
  Window spaced = parse_window("  @daily\tto  30 6 * * *  ");
  CHECK(spaced.cron.text == "@daily");
  CHECK(spaced.close->text == "30 6 * * *");
  CHECK(spaced.zone.name() == "UTC");
  CHECK_FALSE(parse_window("0 8 * * MON for 1h").close.has_value());

  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"0 8 * * * to 0 0 30 2 *",
       "invalid window \"0 8 * * * to 0 0 30 2 *\": the close schedule \"0 0 30 2 *\" never matches"},
      {"0 8 * * * to 0 0 31 4,6,9,11 * in Europe/Zurich",
       "invalid window \"0 8 * * * to 0 0 31 4,6,9,11 * in Europe/Zurich\": the close schedule \"0 0 31 4,6,9,11 *\" "
       "never matches"},
      {"to 0 8 * * *", "invalid window \"to 0 8 * * *\": missing the cron expression before \"to\""},
      {"0 8 * * * to", "invalid window \"0 8 * * * to\": missing the close schedule after \"to\""},
      {"0 8 * * * to in UTC", "invalid window \"0 8 * * * to in UTC\": missing the close schedule after \"to\""},
      {"0 8 * * * to 0 9 * * * in", "invalid window \"0 8 * * * to 0 9 * * * in\": missing the zone after \"in\""},
      {"0 8 * * * to 0 9 * * * in UTC x",
       "invalid window \"0 8 * * * to 0 9 * * * in UTC x\": unexpected \"x\" after the zone"},
      {"0 8 * * * to 0 9 * * * for 1h",
       "invalid window \"0 8 * * * to 0 9 * * * for 1h\": expected one \"for\" or \"to\", not both or twice"},
      {"0 8 * * * for 1h to 0 9 * * *",
       "invalid window \"0 8 * * * for 1h to 0 9 * * *\": expected one \"for\" or \"to\", not both or twice"},
      {"0 8 * * * to 0 25 * * *", "invalid cron \"0 25 * * *\": hour 25 out of range 0-23"},
      {"0 8 * * to 0 9 * * *", "invalid cron \"0 8 * *\": expected 5 fields, got 4"},
      {"0 8 * * * to 0 9 * * * in Mars/Base", "unknown time zone \"Mars/Base\": no such file in /usr/share/zoneinfo"},
      {"0 8 * * * TO 0 9 * * *",
       "invalid window \"0 8 * * * TO 0 9 * * *\": expected \"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in "
       "ZONE]\""},
  };
  for (const Case& c : cases) {
    std::string text = c.text;
    CAPTURE(text);
    CHECK(window_error(c.text) == c.message);
  }
}

TEST_CASE("to windows: Monday 08:00 to Thursday 17:00 on the Zurich clock, DST or not") {
  Schedule s = schedule({"0 8 * * MON to 0 17 * * THU in Europe/Zurich"});
  CHECK(next(s, "2026-03-20T00:00:00Z", 3) ==
        "2026-03-23T07:00:00Z/2026-03-26T16:00:00Z\n"  // CET
        "2026-03-30T06:00:00Z/2026-04-02T15:00:00Z\n"  // CEST
        "2026-04-06T06:00:00Z/2026-04-09T15:00:00Z\n");
  CHECK(next(s, "2026-10-20T00:00:00Z", 2) ==
        "2026-10-19T06:00:00Z/2026-10-22T15:00:00Z\n"
        "2026-10-26T07:00:00Z/2026-10-29T16:00:00Z\n");
  CHECK_FALSE(is_open(s, utc("2026-03-23T06:59:59Z")));
  CHECK(is_open(s, utc("2026-03-23T07:00:00Z")));
  CHECK(is_open(s, utc("2026-03-26T15:59:59.5Z")));
  CHECK_FALSE(is_open(s, utc("2026-03-26T16:00:00Z")));
  // Over the weekends of the changes: 62 and 64 hours of elapsed time, Friday 17:00 to Monday 08:00.
  Schedule weekend = schedule({"0 17 * * FRI to 0 8 * * MON in Europe/Zurich"});
  CHECK(next(weekend, "2026-03-26T00:00:00Z", 1) == "2026-03-27T16:00:00Z/2026-03-30T06:00:00Z\n");
  CHECK(next(weekend, "2026-10-22T00:00:00Z", 1) == "2026-10-23T15:00:00Z/2026-10-26T07:00:00Z\n");
  // A "for" window keeps the elapsed time instead and ends an hour late on the clock.
  CHECK(next(schedule({"0 17 * * FRI for 63h in Europe/Zurich"}), "2026-03-26T00:00:00Z", 1) ==
        "2026-03-27T16:00:00Z/2026-03-30T07:00:00Z\n");
}

TEST_CASE("to windows: the close is strictly after the start") {
  // Both match the same minute: 24 hours, not nothing.
  CHECK(next(schedule({"0 8 * * MON to 0 8 * * *"}), "2026-03-20T00:00:00Z", 2) ==
        "2026-03-23T08:00:00Z/2026-03-24T08:00:00Z\n2026-03-30T08:00:00Z/2026-03-31T08:00:00Z\n");
  // Every day: windows that touch, so one interval, open at every instant.
  Schedule daily = schedule({"0 8 * * * to 0 8 * * *"});
  auto all = next_windows(daily, utc("2026-03-20T12:00:00Z"), 3);
  REQUIRE(all.size() == 1);
  CHECK(all[0].starts_earlier);
  CHECK(all[0].ends_later);
  CHECK(all[0].end > utc("2031-03-20T00:00:00Z"));
  CHECK(is_open(daily, utc("2026-03-21T07:59:59Z")));
  CHECK(is_open(daily, utc("2026-03-21T08:00:00Z")));
  // A start while open changes nothing: the close after it is the same.
  CHECK(next(schedule({"0 0-12 * * MON to 0 17 * * MON"}), "2026-03-20T00:00:00Z", 2) ==
        "2026-03-23T00:00:00Z/2026-03-23T17:00:00Z\n2026-03-30T00:00:00Z/2026-03-30T17:00:00Z\n");
  // A close with no start since changes nothing either.
  CHECK(next(schedule({"0 8 * * MON to 0 * * * *"}), "2026-03-20T00:00:00Z", 1) ==
        "2026-03-23T08:00:00Z/2026-03-23T09:00:00Z\n");
}

TEST_CASE("to windows: starts and closes in the gap move forward, in the repeated hour count once") {
  // 29 March: 02:30 is 03:30 CEST (01:30Z), after that night's 03:00 (01:00Z), so it closes a day later.
  CHECK(next(schedule({"30 2 * * * to 0 3 * * * in Europe/Zurich"}), "2026-03-27T12:00:00Z", 3) ==
        "2026-03-28T01:30:00Z/2026-03-28T02:00:00Z\n"
        "2026-03-29T01:30:00Z/2026-03-30T01:00:00Z\n"
        "2026-03-31T00:30:00Z/2026-03-31T01:00:00Z\n");
  // A close at 02:30 that night is at 03:30 CEST.
  CHECK(next(schedule({"0 1 * * * to 30 2 * * * in Europe/Zurich"}), "2026-03-28T12:00:00Z", 2) ==
        "2026-03-29T00:00:00Z/2026-03-29T01:30:00Z\n"
        "2026-03-29T23:00:00Z/2026-03-30T00:30:00Z\n");
  // 25 October: 02:30 is the first 02:30 (CEST); 03:00 comes once, in CET: 90 minutes open.
  Schedule fall = schedule({"30 2 * * * to 0 3 * * * in Europe/Zurich"});
  CHECK(next(fall, "2026-10-24T12:00:00Z", 2) ==
        "2026-10-25T00:30:00Z/2026-10-25T02:00:00Z\n"
        "2026-10-26T01:30:00Z/2026-10-26T02:00:00Z\n");
  CHECK(is_open(fall, utc("2026-10-25T01:45:00Z")));  // 02:45 CET, the second time round
  // A close in the repeated hour closes at its first occurrence.
  CHECK(next(schedule({"0 1 * * * to 45 2 * * * in Europe/Zurich"}), "2026-10-24T12:00:00Z", 1) ==
        "2026-10-24T23:00:00Z/2026-10-25T00:45:00Z\n");
  CHECK(next(schedule({"0 0 * * * to 30 1 * * * in America/New_York"}), "2026-10-31T12:00:00Z", 1) ==
        "2026-11-01T04:00:00Z/2026-11-01T05:30:00Z\n");
}

TEST_CASE("to windows merge with for windows; deny and freeze win as before") {
  CHECK(next(schedule({"0 8 * * MON to 0 12 * * MON", "0 11 * * MON for 2h"}), "2026-03-20T00:00:00Z", 1) ==
        "2026-03-23T08:00:00Z/2026-03-23T13:00:00Z\n");
  CHECK(next(schedule({"0 8 * * MON to 0 12 * * MON", "0 12 * * MON to 0 14 * * *"}), "2026-03-20T00:00:00Z", 1) ==
        "2026-03-23T08:00:00Z/2026-03-23T14:00:00Z\n");
  CHECK(next(schedule({"0 8 * * MON to 0 12 * * MON", "0 14 * * MON for 1h"}), "2026-03-20T00:00:00Z", 2) ==
        "2026-03-23T08:00:00Z/2026-03-23T12:00:00Z\n2026-03-23T14:00:00Z/2026-03-23T15:00:00Z\n");
  CHECK(next(schedule({"0 8 * * MON to 0 17 * * MON"}, {"30 9 * * MON for 30m"}), "2026-03-20T00:00:00Z", 2) ==
        "2026-03-23T08:00:00Z/2026-03-23T09:30:00Z\n2026-03-23T10:00:00Z/2026-03-23T17:00:00Z\n");
  // A "to" deny window: no weekends.
  Schedule weekdays = schedule({"0 * * * * for 1h"}, {"0 12 * * FRI to 0 8 * * MON"});
  CHECK(next(weekdays, "2026-03-21T00:00:00Z", 2).find("2026-03-23T08:00:00Z/2026-03-27T12:00:00Z\n") !=
        std::string::npos);
  CHECK_FALSE(is_open(weekdays, utc("2026-03-22T12:00:00Z")));
  CHECK(is_open(weekdays, utc("2026-03-23T08:00:00Z")));
  CHECK(next(schedule({"0 8 * * MON to 0 17 * * THU"}, {}, {"2026-03-24T00:00:00Z/2026-03-25T00:00:00Z"}),
             "2026-03-20T00:00:00Z",
             2) == "2026-03-23T08:00:00Z/2026-03-24T00:00:00Z\n2026-03-25T00:00:00Z/2026-03-26T17:00:00Z\n");
}

TEST_CASE("rare schedules: the search looks 5 years ahead") {
  CHECK(next(schedule({"0 0 29 2 * for 24h"}), "2026-11-24T00:00:00Z", 3) ==
        "2028-02-29T00:00:00Z/2028-03-01T00:00:00Z\n");
  // The next 29 February after 2096 is in 2104: beyond the horizon.
  CHECK(next(schedule({"0 0 29 2 * for 24h"}), "2096-03-01T00:00:00Z", 3) == "");
  // A close years away: open from 1 January to the next 29 February, so since 1 January 2025,
  // further back than the look-back of 366 days.
  CHECK(next(schedule({"0 0 1 1 * to 0 0 29 2 *"}), "2026-11-24T00:00:00Z", 3) ==
        "<2025-11-23T00:00:00Z/2028-02-29T00:00:00Z\n2029-01-01T00:00:00Z/2031-11-25T00:00:00Z>\n");
  CHECK(is_open(schedule({"0 0 1 1 * to 0 0 29 2 *"}), utc("2027-06-01T00:00:00Z")));
  CHECK_FALSE(is_open(schedule({"0 0 1 1 * to 0 0 29 2 *"}), utc("2028-06-01T00:00:00Z")));
  // A daily window: five years of intervals, the last one whole.
  auto daily = next_windows(schedule({"0 8 * * * for 1h"}), utc("2026-01-01T00:00:00Z"), 3000);
  CHECK(daily.size() == 1827);
  CHECK(rfc3339(daily.back().start) == "2031-01-01T08:00:00Z");
}

TEST_CASE("to windows are fast") {
#ifdef NDEBUG
  constexpr milliseconds kFast{200};
#else
  constexpr milliseconds kFast{3000};  // unoptimised, perhaps under sanitizers
#endif
  auto time = [](const Schedule& s, int count) {
    auto t0 = steady_clock::now();
    auto out = next_windows(s, utc("2026-03-20T12:00:00Z"), count);
    return std::pair{out.size(), duration_cast<milliseconds>(steady_clock::now() - t0)};
  };
  auto [n1, t1] = time(schedule({"* * * * * to * * * * * in Europe/Zurich"}), 10);
  CHECK(n1 == 1);
  CHECK(t1 < kFast);
  auto [n2, t2] = time(schedule({"*/2 * * * * to * * * * * in Europe/Zurich"}), 1000);
  CHECK(n2 == 1000);
  CHECK(t2 < kFast);
  auto [n3, t3] = time(schedule({"0-30 * * * * to * * * * * in America/New_York"}), 300);
  CHECK(n3 == 300);
  CHECK(t3 < kFast);
  auto [n4, t4] = time(schedule({"0 0 29 2 * to 0 0 1 3 * in Europe/Zurich"}, {"0 12 * * * to 0 13 * * *"}), 100);
  CHECK(n4 == 2);
  CHECK(t4 < kFast);
}

TEST_CASE("to windows: is_open agrees with next_windows") {
  std::uint64_t state = 17;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  const char* crons[] = {"*/20 * * * *", "0 2 * * *",  "30 1-3 * * SUN", "0 0 * * MON",    "15 */4 * * *",
                         "0 8 * * 1-5",  "30 2 * * *", "0 3 * * *",      "0,59 2,3 * * *", "45 1 * * *"};
  const char* zones[] = {"UTC", "Europe/Zurich", "America/New_York", "Australia/Lord_Howe"};
  auto window = [&] {
    std::string zone = std::string(" in ") + zones[rnd(4)];
    if (rnd(3) == 0) return std::string(crons[rnd(10)]) + " for " + std::to_string(1 + rnd(30)) + "h" + zone;
    return std::string(crons[rnd(10)]) + " to " + crons[rnd(10)] + zone;
  };
  int inside = 0, outside = 0;
  for (int i = 0; i < 40; ++i) {
    Schedule s;
    for (unsigned k = 0, n = 1 + rnd(2); k < n; ++k) s.allow.push_back(parse_window(window()));
    for (unsigned k = 0, n = rnd(2); k < n; ++k) s.deny.push_back(parse_window(window()));
    std::string what;
    for (const Window& w : s.allow) what += "allow " + w.text + "; ";
    for (const Window& w : s.deny) what += "deny " + w.text + "; ";
    CAPTURE(what);
    SysTime at = utc(rnd(2) ? "2026-03-25T00:00:00Z" : "2026-10-20T00:00:00Z") + minutes(rnd(60 * 24 * 10));
    std::string at_text = rfc3339(at);
    CAPTURE(at_text);
    auto intervals = next_windows(s, at, 20);
    for (std::size_t k = 0; k < intervals.size(); ++k) {
      CHECK(intervals[k].start < intervals[k].end);
      if (k > 0) CHECK(intervals[k - 1].end < intervals[k].start);
      if (!intervals[k].starts_earlier) CHECK_FALSE(is_open(s, intervals[k].start - seconds(1)));
      CHECK(is_open(s, intervals[k].start));
      CHECK(is_open(s, intervals[k].end - seconds(1)));
      if (!intervals[k].ends_later) CHECK_FALSE(is_open(s, intervals[k].end));
    }
    if (intervals.empty()) continue;
    SysTime end = intervals.back().end;
    for (int j = 0; j < 60; ++j) {
      SysTime t = at + seconds(rnd(static_cast<unsigned>(duration_cast<seconds>(end - at).count())));
      bool in =
          std::any_of(intervals.begin(), intervals.end(), [&](const Interval& v) { return v.start <= t && t < v.end; });
      (in ? inside : outside)++;
      CHECK_MESSAGE(is_open(s, t) == in, rfc3339(t));
    }
  }
  CHECK(inside > 100);
  CHECK(outside > 100);
}

TEST_CASE("a close is the next start of the close schedule, as next_starts (which tests/cron checks) finds it") {
  std::uint64_t state = 23;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  const char* crons[] = {"*/20 * * * *",   "30 2 * * *", "0,59 1-3 * * *", "45 1 * * SUN", "0 3 * * *",
                         "*/7 2 * 3,10 *", "0 0 29 2 *", "0 8 * * MON",    "15 10 31 * *", "0 0 1 1 *"};
  const char* zones[] = {"UTC", "Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"};
  const char* around[] = {"2026-03-28T00:00:00Z", "2026-10-24T00:00:00Z", "2026-03-07T00:00:00Z",
                          "2026-10-31T00:00:00Z", "2026-04-04T00:00:00Z", "2026-10-03T00:00:00Z"};
  for (int i = 0; i < 400; ++i) {
    CronSchedule c = parse_cron(crons[rnd(10)]);
    TimeZone z = TimeZone::load(zones[rnd(5)]);
    sys_seconds t = floor<seconds>(utc(around[rnd(6)])) + seconds(rnd(3 * 86400));
    CAPTURE(c.text);
    CAPTURE(z.name());
    std::string when = rfc3339(t);
    CAPTURE(when);
    auto starts = next_starts(c, z, t, 2);
    auto first = first_occurrence(c, z, t + seconds(1), t + days(3000));
    REQUIRE(!starts.empty());
    REQUIRE(first.has_value());
    CHECK(SysTime(*first) == starts[0]);
    // And backwards: the last occurrence at or before a start is that start.
    CHECK(last_occurrence(c, z, *first, t) == first);
    CHECK(last_occurrence(c, z, *first - seconds(1), t - days(3000)) < first);
  }
}
