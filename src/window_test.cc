#include "window.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

// The random tests run less often unoptimised, where they take ten times as long.
#ifdef NDEBUG
constexpr int kRounds = 60;
#else
constexpr int kRounds = 20;
#endif

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
std::string show(const std::vector<Interval>& intervals) {
  std::string out;
  for (const Interval& i : intervals) {
    out += (i.starts_earlier ? "<" : "") + rfc3339(i.start) + "/" + rfc3339(i.end) + (i.ends_later ? ">" : "") + "\n";
  }
  return out;
}

std::string next(const Schedule& s, const char* at, int count) { return show(next_windows(s, utc(at), count)); }

std::string starts(const char* cron, const char* zone, const char* after, int count) {
  std::string out;
  for (SysTime t : next_starts(parse_cron(cron), TimeZone::load(zone), utc(after), count)) out += rfc3339(t) + " ";
  return out;
}

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string window_error(const char* text) {
  return error_of([&] { parse_window(text); });
}

}  // namespace

TEST_CASE("window expressions") {
  Window w = parse_window("0 8 * * MON for 81h in Europe/Zurich");
  CHECK(w.text == "0 8 * * MON for 81h in Europe/Zurich");
  CHECK(w.cron.text == "0 8 * * MON");
  CHECK(w.duration == hours(81));
  CHECK(w.zone.name() == "Europe/Zurich");

  Window daily = parse_window("@daily for 30m");
  CHECK(daily.cron.text == "@daily");
  CHECK(daily.duration == minutes(30));
  CHECK(daily.zone.name() == "UTC");

  Window spaced = parse_window("  */5   8-17 * *   1-5\tfor 1h30m   in   America/New_York ");
  CHECK(spaced.cron.text == "*/5   8-17 * *   1-5");
  CHECK(spaced.duration == minutes(90));
  CHECK(spaced.zone.name() == "America/New_York");

  CHECK(parse_window("0 0 * * * for 1.5h").duration == minutes(90));
  CHECK(parse_window("0 0 * * * for 90s").duration == seconds(90));
  CHECK(parse_window("0 0 1 1 * for 8784h").duration == hours(8784));
}

TEST_CASE("window errors name the bad part") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"0 8 * * MON",
       "invalid window \"0 8 * * MON\": expected \"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\""},
      {"0 8 * * MON FOR 1h",
       "invalid window \"0 8 * * MON FOR 1h\": expected \"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\""},
      {"", "invalid window \"\": expected \"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\""},
      {"for 1h", "invalid window \"for 1h\": missing the cron expression before \"for\""},
      {"0 8 * * MON for", "invalid window \"0 8 * * MON for\": missing the duration after \"for\""},
      {"0 8 * * MON for 81x",
       "invalid window \"0 8 * * MON for 81x\": duration \"81x\": no unit \"x\" (units: ns, us, ms, s, m, h)"},
      {"0 8 * * MON for 81",
       "invalid window \"0 8 * * MON for 81\": duration \"81\": no unit (units: ns, us, ms, s, m, h)"},
      {"0 8 * * MON for 2d",
       "invalid window \"0 8 * * MON for 2d\": duration \"2d\": no unit \"d\": use 48h (units: ns, us, ms, s, m, h)"},
      {"0 8 * * MON for -1h",
       "invalid window \"0 8 * * MON for -1h\": duration \"-1h\": use a duration like 30s, 5m or 1h30m"},
      {"0 8 * * MON for 0s", "invalid window \"0 8 * * MON for 0s\": duration \"0s\" must be positive"},
      {"0 8 * * MON for 0", "invalid window \"0 8 * * MON for 0\": duration \"0\" must be positive"},
      {"0 8 * * MON for 1500ms",
       "invalid window \"0 8 * * MON for 1500ms\": duration \"1500ms\" must be whole seconds"},
      {"0 8 * * MON for 8785h",
       "invalid window \"0 8 * * MON for 8785h\": duration \"8785h\" is longer than 8784h (366 days)"},
      {"0 8 * * MON for 1h at Europe/Zurich",
       "invalid window \"0 8 * * MON for 1h at Europe/Zurich\": unexpected \"at\" after the duration; expected \"in "
       "ZONE\""},
      {"0 8 * * MON for 1h in", "invalid window \"0 8 * * MON for 1h in\": missing the zone after \"in\""},
      {"0 8 * * MON for 1h in Europe/Zurich now",
       "invalid window \"0 8 * * MON for 1h in Europe/Zurich now\": unexpected \"now\" after the zone"},
      {"0 8 * * MON for 1h in Mars/Base", "unknown time zone \"Mars/Base\": no such file in /usr/share/zoneinfo"},
      {"0 8 * * MON for 1h in ../etc/passwd",
       "invalid time zone name \"../etc/passwd\": use an IANA name such as Europe/Zurich"},
      {"0 25 * * * for 1h", "invalid cron \"0 25 * * *\": hour 25 out of range 0-23"},
      {"0 8 * * FOO for 1h in UTC", "invalid cron \"0 8 * * FOO\": unknown day-of-week \"FOO\""},
      {"0 8 * * for 1h", "invalid cron \"0 8 * *\": expected 5 fields, got 4"},
  };
  for (const Case& c : cases) {
    std::string text = c.text;
    CAPTURE(text);
    CHECK(window_error(c.text) == c.message);
  }
}

TEST_CASE("freezes") {
  Interval f = parse_freeze("2026-12-20T00:00:00Z/2027-01-04T00:00:00+01:00");
  CHECK(f.start == utc("2026-12-20T00:00:00Z"));
  CHECK(f.end == utc("2027-01-03T23:00:00Z"));
  auto freeze_error = [](const char* text) { return error_of([&] { parse_freeze(text); }); };
  CHECK(freeze_error("2026-12-20T00:00:00Z") ==
        "invalid freeze \"2026-12-20T00:00:00Z\": expected FROM/TO, two RFC 3339 times");
  CHECK(freeze_error("2026-12-20/2027-01-04T00:00:00Z") ==
        "invalid freeze \"2026-12-20/2027-01-04T00:00:00Z\": \"2026-12-20\" is not an RFC 3339 time such as "
        "2026-03-29T01:30:00Z");
  CHECK(freeze_error("2026-12-20T00:00:00Z/tomorrow") ==
        "invalid freeze \"2026-12-20T00:00:00Z/tomorrow\": \"tomorrow\" is not an RFC 3339 time such as "
        "2026-03-29T01:30:00Z");
  CHECK(freeze_error("2026-12-20T00:00:00Z/2026-12-19T00:00:00Z") ==
        "invalid freeze \"2026-12-20T00:00:00Z/2026-12-19T00:00:00Z\": FROM must be before TO");
  CHECK(freeze_error("2026-12-20T00:00:00Z/2026-12-20T01:00:00+01:00") ==
        "invalid freeze \"2026-12-20T00:00:00Z/2026-12-20T01:00:00+01:00\": FROM must be before TO");
}

TEST_CASE("local RFC 3339") {
  TimeZone zurich = TimeZone::load("Europe/Zurich");
  CHECK(format_local(utc("2026-03-29T01:30:00Z"), zurich) == "2026-03-29T03:30:00+02:00");
  CHECK(format_local(utc("2026-03-29T00:30:00Z"), zurich) == "2026-03-29T01:30:00+01:00");
  CHECK(format_local(utc("2026-12-31T23:30:00.9Z"), zurich) == "2027-01-01T00:30:00+01:00");
  CHECK(format_local(utc("2026-11-01T05:30:00Z"), TimeZone::load("America/New_York")) == "2026-11-01T01:30:00-04:00");
  CHECK(format_local(utc("2026-11-01T06:30:00Z"), TimeZone::load("America/New_York")) == "2026-11-01T01:30:00-05:00");
  CHECK(format_local(utc("2026-07-01T00:00:00Z"), TimeZone::load("Asia/Kolkata")) == "2026-07-01T05:30:00+05:30");
  CHECK(format_local(utc("2026-07-01T00:00:00Z"), TimeZone::load("Australia/Lord_Howe")) ==
        "2026-07-01T10:30:00+10:30");
  CHECK(format_local(utc("2026-07-01T00:00:00Z"), TimeZone()) == "2026-07-01T00:00:00Z");
  CHECK(format_local(utc("2026-01-01T00:00:00Z"), TimeZone::load("Europe/London")) == "2026-01-01T00:00:00Z");
  // RFC 3339 has no seconds in offsets: local mean time is written in UTC.
  CHECK(format_local(utc("1800-01-01T00:00:00Z"), zurich) == "1800-01-01T00:00:00Z");
}

TEST_CASE("start instants: gaps move forward, repeated hours count once") {
  CHECK(starts("30 2 * * *", "Europe/Zurich", "2026-03-27T12:00:00Z", 3) ==
        "2026-03-28T01:30:00Z 2026-03-29T01:30:00Z 2026-03-30T00:30:00Z ");
  CHECK(starts("30 2 * * *", "Europe/Zurich", "2026-10-24T12:00:00Z", 3) ==
        "2026-10-25T00:30:00Z 2026-10-26T01:30:00Z 2026-10-27T01:30:00Z ");
  // 02:59 moves to 03:59, after 03:00: starts come out in time order.
  CHECK(starts("0,59 2,3 * * *", "Europe/Zurich", "2026-03-29T00:00:00Z", 4) ==
        "2026-03-29T01:00:00Z 2026-03-29T01:59:00Z 2026-03-30T00:00:00Z 2026-03-30T00:59:00Z ");
  // A moved start that lands on a real one is one start.
  CHECK(starts("*/30 2,3 * * *", "Europe/Zurich", "2026-03-29T00:00:00Z", 3) ==
        "2026-03-29T01:00:00Z 2026-03-29T01:30:00Z 2026-03-30T00:00:00Z ");
  // Strictly after, including a moved start before the wall time of `after`.
  CHECK(starts("30 2 * * *", "Europe/Zurich", "2026-03-29T01:15:00Z", 1) == "2026-03-29T01:30:00Z ");
  CHECK(starts("30 2 * * *", "Europe/Zurich", "2026-03-29T01:30:00Z", 1) == "2026-03-30T00:30:00Z ");
  CHECK(starts("*/15 2 * * *", "America/New_York", "2026-03-08T00:00:00Z", 5) ==
        "2026-03-08T07:00:00Z 2026-03-08T07:15:00Z 2026-03-08T07:30:00Z 2026-03-08T07:45:00Z 2026-03-09T06:00:00Z ");
  CHECK(starts("0 2 * * *", "Australia/Lord_Howe", "2026-10-02T00:00:00Z", 3) ==
        "2026-10-02T15:30:00Z 2026-10-03T15:30:00Z 2026-10-04T15:00:00Z ");
  CHECK(starts("0 0 30 2 *", "UTC", "2026-01-01T00:00:00Z", 3) == "");
  CHECK(starts("0 0 29 2 *", "UTC", "2096-01-01T00:00:00Z", 2) == "2096-02-29T00:00:00Z 2104-02-29T00:00:00Z ");
  CHECK(starts("* * * * *", "UTC", "2026-01-01T00:00:00.5Z", 2) == "2026-01-01T00:01:00Z 2026-01-01T00:02:00Z ");
  CHECK(starts("* * * * *", "UTC", "2026-01-01T00:00:00Z", 0) == "");
}

TEST_CASE("a window over a long weekend, in Zurich") {
  Schedule s = schedule({"0 8 * * MON for 81h in Europe/Zurich"});
  CHECK(next(s, "2026-03-20T00:00:00Z", 3) ==
        "2026-03-23T07:00:00Z/2026-03-26T16:00:00Z\n"  // Monday 08:00 CET to Thursday 17:00 CET
        "2026-03-30T06:00:00Z/2026-04-02T15:00:00Z\n"  // in CEST from now on
        "2026-04-06T06:00:00Z/2026-04-09T15:00:00Z\n");
  // The current interval comes first, started before `at`.
  CHECK(next(s, "2026-03-24T12:00:00Z", 1) == "2026-03-23T07:00:00Z/2026-03-26T16:00:00Z\n");
  CHECK(next(s, "2026-03-26T15:59:59Z", 1) == "2026-03-23T07:00:00Z/2026-03-26T16:00:00Z\n");
  CHECK(next(s, "2026-03-26T16:00:00Z", 1) == "2026-03-30T06:00:00Z/2026-04-02T15:00:00Z\n");
  CHECK_FALSE(is_open(s, utc("2026-03-23T06:59:59Z")));
  CHECK(is_open(s, utc("2026-03-23T07:00:00Z")));
  CHECK(is_open(s, utc("2026-03-26T15:59:59.999Z")));
  CHECK_FALSE(is_open(s, utc("2026-03-26T16:00:00Z")));
}

TEST_CASE("windows over DST changes last their duration in elapsed time") {
  Schedule spring = schedule({"0 0 * * SUN for 4h in Europe/Zurich"});
  auto i = next_windows(spring, utc("2026-03-28T00:00:00Z"), 1);
  REQUIRE(i.size() == 1);
  CHECK(show(i) == "2026-03-28T23:00:00Z/2026-03-29T03:00:00Z\n");
  CHECK(format_local(i[0].start, TimeZone::load("Europe/Zurich")) == "2026-03-29T00:00:00+01:00");
  CHECK(format_local(i[0].end, TimeZone::load("Europe/Zurich")) == "2026-03-29T05:00:00+02:00");

  Schedule fall = schedule({"0 0 * * SUN for 4h in Europe/Zurich"});
  CHECK(next(fall, "2026-10-24T00:00:00Z", 1) == "2026-10-24T22:00:00Z/2026-10-25T02:00:00Z\n");  // to 03:00 CET

  Schedule ny = schedule({"0 0 * * SUN for 4h in America/New_York"});
  CHECK(next(ny, "2026-03-07T00:00:00Z", 1) == "2026-03-08T05:00:00Z/2026-03-08T09:00:00Z\n");  // to 05:00 EDT
  CHECK(next(ny, "2026-10-31T00:00:00Z", 1) == "2026-11-01T04:00:00Z/2026-11-01T08:00:00Z\n");  // to 03:00 EST
}

TEST_CASE("a window starting inside the spring-forward gap starts after it") {
  Schedule s = schedule({"30 2 * * * for 1h in Europe/Zurich"});
  CHECK(next(s, "2026-03-28T12:00:00Z", 2) ==
        "2026-03-29T01:30:00Z/2026-03-29T02:30:00Z\n"  // 03:30-04:30 CEST
        "2026-03-30T00:30:00Z/2026-03-30T01:30:00Z\n");
  Schedule ny = schedule({"*/15 2 * * * for 15m in America/New_York"});
  CHECK(next(ny, "2026-03-07T12:00:00Z", 2) ==
        "2026-03-08T07:00:00Z/2026-03-08T08:00:00Z\n"  // 03:00-04:00 EDT
        "2026-03-09T06:00:00Z/2026-03-09T07:00:00Z\n");
  Schedule lord_howe = schedule({"0 2 * * * for 1h in Australia/Lord_Howe"});
  CHECK(next(lord_howe, "2026-10-02T00:00:00Z", 3) ==
        "2026-10-02T15:30:00Z/2026-10-02T16:30:00Z\n"
        "2026-10-03T15:30:00Z/2026-10-03T16:30:00Z\n"  // 02:00 is 02:30 +11 that night
        "2026-10-04T15:00:00Z/2026-10-04T16:00:00Z\n");
  Schedule far = schedule({"0 2 * * SUN for 2h in Europe/Zurich"});
  CHECK(next(far, "2100-03-27T00:00:00Z", 1) == "2100-03-28T01:00:00Z/2100-03-28T03:00:00Z\n");
}

TEST_CASE("a window starting inside the repeated hour starts once") {
  Schedule s = schedule({"30 2 * * * for 1h in Europe/Zurich"});
  CHECK(next(s, "2026-10-24T12:00:00Z", 2) ==
        "2026-10-25T00:30:00Z/2026-10-25T01:30:00Z\n"  // 02:30 CEST to 02:30 CET
        "2026-10-26T01:30:00Z/2026-10-26T02:30:00Z\n");
  CHECK(is_open(s, utc("2026-10-25T01:29:59Z")));
  CHECK_FALSE(is_open(s, utc("2026-10-25T01:45:00Z")));  // 02:45 CET, the second time round
  Schedule ny = schedule({"*/30 1 * * * for 30m in America/New_York"});
  CHECK(next(ny, "2026-10-31T12:00:00Z", 2) ==
        "2026-11-01T05:00:00Z/2026-11-01T06:00:00Z\n"  // 01:00-02:00 EDT; 01:00-02:00 EST stays closed
        "2026-11-02T06:00:00Z/2026-11-02T07:00:00Z\n");
  Schedule lord_howe = schedule({"45 1 * * * for 10m in Australia/Lord_Howe"});
  CHECK(next(lord_howe, "2026-04-04T00:00:00Z", 2) ==
        "2026-04-04T14:45:00Z/2026-04-04T14:55:00Z\n"  // 01:45 +11, not 01:45 +1030
        "2026-04-05T15:15:00Z/2026-04-05T15:25:00Z\n");
}

TEST_CASE("windows across midnight, week, month and year ends and 29 February") {
  CHECK(next(schedule({"0 22 * * * for 4h"}), "2026-01-01T00:00:00Z", 2) ==
        "2025-12-31T22:00:00Z/2026-01-01T02:00:00Z\n2026-01-01T22:00:00Z/2026-01-02T02:00:00Z\n");
  CHECK(next(schedule({"0 22 * * * for 4h"}), "2026-01-01T02:00:00Z", 1) ==
        "2026-01-01T22:00:00Z/2026-01-02T02:00:00Z\n");
  CHECK(next(schedule({"0 20 * * SUN for 12h"}), "2026-03-01T00:00:00Z", 1) ==
        "2026-03-01T20:00:00Z/2026-03-02T08:00:00Z\n");
  CHECK(next(schedule({"0 18 31 * * for 12h"}), "2026-01-15T00:00:00Z", 2) ==
        "2026-01-31T18:00:00Z/2026-02-01T06:00:00Z\n2026-03-31T18:00:00Z/2026-04-01T06:00:00Z\n");
  CHECK(next(schedule({"0 12 31 12 * for 24h"}), "2026-06-01T00:00:00Z", 1) ==
        "2026-12-31T12:00:00Z/2027-01-01T12:00:00Z\n");
  CHECK(next(schedule({"0 23 31 12 * for 2h in Europe/Zurich"}), "2026-06-01T00:00:00Z", 1) ==
        "2026-12-31T22:00:00Z/2027-01-01T00:00:00Z\n");
  // Two 29 Februaries within the horizon of 5 years.
  CHECK(next(schedule({"0 0 29 2 * for 24h"}), "2027-06-01T00:00:00Z", 5) ==
        "2028-02-29T00:00:00Z/2028-03-01T00:00:00Z\n2032-02-29T00:00:00Z/2032-03-01T00:00:00Z\n");
  CHECK(next(schedule({"0 0 29 2 * for 24h in Europe/Zurich"}), "2027-06-01T00:00:00Z", 5) ==
        "2028-02-28T23:00:00Z/2028-02-29T23:00:00Z\n2032-02-28T23:00:00Z/2032-02-29T23:00:00Z\n");
  // More than a year away is found too (it said "no window" when the horizon was a year).
  CHECK(next(schedule({"0 0 29 2 * for 24h"}), "2026-01-01T00:00:00Z", 5) ==
        "2028-02-29T00:00:00Z/2028-03-01T00:00:00Z\n");
  CHECK(is_open(schedule({"0 0 29 2 * for 24h"}), utc("2028-02-29T23:59:59Z")));
  CHECK_FALSE(is_open(schedule({"0 0 29 2 * for 24h"}), utc("2028-03-01T00:00:00Z")));
  CHECK(is_open(schedule({"0 0 28 2 * for 48h"}), utc("2028-03-01T00:00:00Z") - seconds(1)));
  CHECK_FALSE(is_open(schedule({"0 0 28 2 * for 48h"}), utc("2027-03-02T00:00:00Z")));
  CHECK(is_open(schedule({"0 0 28 2 * for 48h"}), utc("2027-03-01T23:59:59Z")));
}

TEST_CASE("a duration longer than the period keeps the window open") {
  auto i = next_windows(schedule({"0 * * * * for 3h"}), utc("2026-03-20T12:34:56Z"), 5);
  CHECK(show(i) == "<2025-03-19T12:34:56Z/2031-03-21T15:34:56Z>\n");
  CHECK(is_open(schedule({"0 * * * * for 3h"}), utc("2026-03-20T12:34:56Z")));
  CHECK(next(schedule({"*/10 * * * * for 10m"}), "2026-03-20T12:00:00Z", 5) ==
        "<2025-03-19T12:00:00Z/2031-03-21T12:10:00Z>\n");
  // Daily for 25h: one long stretch.
  CHECK(next(schedule({"0 0 * * * for 25h in Europe/Zurich"}), "2026-03-20T12:00:00Z", 5) ==
        "<2025-03-19T12:00:00Z/2031-03-22T13:00:00Z>\n");
  // Open since a few days: the start is found.
  CHECK(next(schedule({"0 * 10-20 * * for 2h"}), "2026-03-20T12:00:00Z", 2) ==
        "2026-03-10T00:00:00Z/2026-03-21T01:00:00Z\n2026-04-10T00:00:00Z/2026-04-21T01:00:00Z\n");
}

TEST_CASE("overlapping and touching windows merge") {
  CHECK(next(schedule({"0 8 * * * for 1h", "0 9 * * * for 1h"}), "2026-03-20T00:00:00Z", 2) ==
        "2026-03-20T08:00:00Z/2026-03-20T10:00:00Z\n2026-03-21T08:00:00Z/2026-03-21T10:00:00Z\n");
  CHECK(next(schedule({"0 8 * * * for 2h", "0 9 * * * for 2h"}), "2026-03-20T00:00:00Z", 1) ==
        "2026-03-20T08:00:00Z/2026-03-20T11:00:00Z\n");
  CHECK(next(schedule({"0 8,9 * * * for 90m"}), "2026-03-20T00:00:00Z", 1) ==
        "2026-03-20T08:00:00Z/2026-03-20T10:30:00Z\n");
  CHECK(next(schedule({"0 8 * * * for 59m", "0 9 * * * for 1h"}), "2026-03-20T00:00:00Z", 2) ==
        "2026-03-20T08:00:00Z/2026-03-20T08:59:00Z\n2026-03-20T09:00:00Z/2026-03-20T10:00:00Z\n");
  // Zones mix: 08:00 in Zurich is 07:00 UTC in winter.
  CHECK(next(schedule({"0 8 * * * for 1h in Europe/Zurich", "0 6 * * * for 1h"}), "2026-03-20T00:00:00Z", 1) ==
        "2026-03-20T06:00:00Z/2026-03-20T08:00:00Z\n");
  CHECK(next(schedule({"*/5 * * * * for 1m"}), "2026-03-20T00:00:30Z", 3) ==
        "2026-03-20T00:00:00Z/2026-03-20T00:01:00Z\n2026-03-20T00:05:00Z/2026-03-20T00:06:00Z\n"
        "2026-03-20T00:10:00Z/2026-03-20T00:11:00Z\n");
}

TEST_CASE("deny windows win over allow windows") {
  Schedule s = schedule({"0 8 * * * for 10h"}, {"0 12 * * * for 1h"});
  CHECK(next(s, "2026-03-20T00:00:00Z", 3) ==
        "2026-03-20T08:00:00Z/2026-03-20T12:00:00Z\n2026-03-20T13:00:00Z/2026-03-20T18:00:00Z\n"
        "2026-03-21T08:00:00Z/2026-03-21T12:00:00Z\n");
  CHECK(is_open(s, utc("2026-03-20T11:59:59Z")));
  CHECK_FALSE(is_open(s, utc("2026-03-20T12:30:00Z")));
  CHECK(is_open(s, utc("2026-03-20T13:00:00Z")));
  // A deny over the weekend, and one that covers an allow window whole.
  Schedule weekdays = schedule({"0 8 * * * for 10h"}, {"0 0 * * SAT for 48h", "0 0 1 * * for 24h"});
  CHECK(next(weekdays, "2026-03-27T00:00:00Z", 3) ==  // Friday
        "2026-03-27T08:00:00Z/2026-03-27T18:00:00Z\n2026-03-30T08:00:00Z/2026-03-30T18:00:00Z\n"
        "2026-03-31T08:00:00Z/2026-03-31T18:00:00Z\n");
  CHECK(next(weekdays, "2026-03-31T18:00:00Z", 1) == "2026-04-02T08:00:00Z/2026-04-02T18:00:00Z\n");
  // A deny started before `at` still counts.
  Schedule long_deny = schedule({"0 * * * * for 30m"}, {"0 0 1 * * for 72h"});
  CHECK(next(long_deny, "2026-04-02T12:00:00Z", 1) == "2026-04-04T00:00:00Z/2026-04-04T00:30:00Z\n");
  CHECK_FALSE(is_open(long_deny, utc("2026-04-02T12:10:00Z")));
  // Cutting into a merged stretch leaves its parts; the deny a year ago bounds the first.
  Schedule cut = schedule({"0 * * * * for 3h"}, {"0 12 20 3 * for 1h"});
  CHECK(next(cut, "2026-03-20T00:00:00Z", 2) ==
        "2025-03-20T13:00:00Z/2026-03-20T12:00:00Z\n2026-03-20T13:00:00Z/2027-03-20T12:00:00Z\n");
  CHECK(next(cut, "2027-03-20T12:30:00Z", 1) == "2027-03-20T13:00:00Z/2028-03-20T12:00:00Z\n");
}

TEST_CASE("freezes win over everything") {
  Schedule s = schedule({"0 8 * * * for 10h"}, {"0 12 * * * for 1h"}, {"2026-03-10T00:00:00Z/2026-03-12T12:30:00Z"});
  CHECK(next(s, "2026-03-09T00:00:00Z", 4) ==
        "2026-03-09T08:00:00Z/2026-03-09T12:00:00Z\n2026-03-09T13:00:00Z/2026-03-09T18:00:00Z\n"
        "2026-03-12T13:00:00Z/2026-03-12T18:00:00Z\n2026-03-13T08:00:00Z/2026-03-13T12:00:00Z\n");
  CHECK_FALSE(is_open(s, utc("2026-03-10T09:00:00Z")));
  CHECK_FALSE(is_open(s, utc("2026-03-12T12:29:59Z")));
  Schedule thaw = schedule({"0 8 * * * for 10h"}, {}, {"2026-03-10T00:00:00Z/2026-03-12T12:30:00Z"});
  CHECK(next(thaw, "2026-03-11T00:00:00Z", 1) == "2026-03-12T12:30:00Z/2026-03-12T18:00:00Z\n");
  CHECK_FALSE(is_open(thaw, utc("2026-03-12T12:29:59Z")));
  CHECK(is_open(thaw, utc("2026-03-12T12:30:00Z")));
  // Overlapping freezes, in any order.
  Schedule two = schedule({"0 8 * * * for 10h"}, {},
                          {"2026-03-10T10:00:00Z/2026-03-10T12:00:00Z", "2026-03-10T09:00:00Z/2026-03-10T11:00:00Z"});
  CHECK(next(two, "2026-03-10T00:00:00Z", 2) ==
        "2026-03-10T08:00:00Z/2026-03-10T09:00:00Z\n2026-03-10T12:00:00Z/2026-03-10T18:00:00Z\n");
}

TEST_CASE("edge cases of next_windows") {
  CHECK(next(schedule({}), "2026-03-20T00:00:00Z", 5) == "");
  CHECK_FALSE(is_open(schedule({}, {"0 0 * * * for 1h"}), utc("2026-03-20T00:30:00Z")));
  CHECK(next(schedule({"0 8 * * * for 1h"}), "2026-03-20T00:00:00Z", 0) == "");
  CHECK(next(schedule({"0 0 30 2 * for 1h"}), "2026-03-20T00:00:00Z", 5) == "");
  // The horizon: a daily window gives 1827 intervals (5 years), the last one whole.
  auto daily = next_windows(schedule({"0 8 * * * for 1h"}), utc("2026-01-01T00:00:00Z"), 3000);
  CHECK(daily.size() == 1827);
  CHECK(show({daily.back()}) == "2031-01-01T08:00:00Z/2031-01-01T09:00:00Z\n");
  // One that reaches the horizon is cut there.
  auto cut = next_windows(schedule({"0 0 1 1 * for 48h"}), utc("2026-01-01T12:00:00Z"), 10);
  CHECK(show(cut) ==
        "2026-01-01T00:00:00Z/2026-01-03T00:00:00Z\n2027-01-01T00:00:00Z/2027-01-03T00:00:00Z\n"
        "2028-01-01T00:00:00Z/2028-01-03T00:00:00Z\n2029-01-01T00:00:00Z/2029-01-03T00:00:00Z\n"
        "2030-01-01T00:00:00Z/2030-01-03T00:00:00Z\n2031-01-01T00:00:00Z/2031-01-03T00:00:00Z\n");
  auto late = next_windows(schedule({"0 0 2 1 * for 48h"}), utc("2026-01-01T00:00:00Z"), 10);
  CHECK(show(late) ==
        "2026-01-02T00:00:00Z/2026-01-04T00:00:00Z\n2027-01-02T00:00:00Z/2027-01-04T00:00:00Z\n"
        "2028-01-02T00:00:00Z/2028-01-04T00:00:00Z\n2029-01-02T00:00:00Z/2029-01-04T00:00:00Z\n"
        "2030-01-02T00:00:00Z/2030-01-04T00:00:00Z\n2031-01-02T00:00:00Z/2031-01-04T00:00:00Z>\n");
}

TEST_CASE("next_windows is fast") {
#ifdef NDEBUG
  constexpr milliseconds kFast{200};
#else
  constexpr milliseconds kFast{2000};  // unoptimised, perhaps under sanitizers
#endif
  auto time = [](const Schedule& s, int count) {
    auto t0 = steady_clock::now();
    auto out = next_windows(s, utc("2026-03-20T12:00:00Z"), count);
    return std::pair{out.size(), duration_cast<milliseconds>(steady_clock::now() - t0)};
  };
  auto [n1, t1] = time(schedule({"* * * * * for 30s"}), 1000);
  CHECK(n1 == 1000);
  CHECK(t1 < kFast);
  // Always open but for the second pass of the repeated hour, where nothing starts.
  auto [n2, t2] = time(schedule({"* * * * * for 1m in Europe/Zurich"}), 1000);
  CHECK(n2 == 6);
  CHECK(next(schedule({"* * * * * for 1m in Europe/Zurich"}), "2026-03-20T12:00:00Z", 7) ==
        "2025-10-26T02:00:00Z/2026-10-25T01:00:00Z\n2026-10-25T02:00:00Z/2027-10-31T01:00:00Z\n"
        "2027-10-31T02:00:00Z/2028-10-29T01:00:00Z\n2028-10-29T02:00:00Z/2029-10-28T01:00:00Z\n"
        "2029-10-28T02:00:00Z/2030-10-27T01:00:00Z\n2030-10-27T02:00:00Z/2031-03-21T12:01:00Z>\n");
  CHECK(t2 < kFast);
  auto [n3, t3] = time(schedule({"*/2 * * * * for 1m in America/New_York"}, {"*/7 * * * * for 3m"}), 1000);
  CHECK(n3 == 1000);
  CHECK(t3 < kFast);
  auto [n4, t4] = time(schedule({"* 8-17 * * 1-5 for 1m in Europe/Zurich"}), 1000);
  CHECK(n4 == 1000);  // of 1305 weekdays in 5 years
  CHECK(t4 < kFast);
}

TEST_CASE("is_open agrees with next_windows") {
  // Random schedules in several zones: every instant sampled is open exactly when it lies in
  // one of the intervals, and the intervals are ordered, disjoint and not touching.
  std::uint64_t state = 7;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  const char* crons[] = {"*/20 * * * *", "0 2 * * *",       "30 1-3 * * SUN", "0 0 * * MON",   "15 */4 * * *",
                         "0 8 * * 1-5",  "*/30 2 * 3,10 *", "0 0 1 * *",      "45 23 * * SAT", "0,59 2,3 * * *"};
  const char* durations[] = {"10m", "20m", "1h", "90m", "3h", "25h", "81h"};
  const char* zones[] = {"UTC", "Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"};
  auto window = [&] { return std::string(crons[rnd(10)]) + " for " + durations[rnd(7)] + " in " + zones[rnd(5)]; };
  int inside = 0, outside = 0;
  for (int i = 0; i < kRounds; ++i) {
    Schedule s;
    for (unsigned k = 0, n = 1 + rnd(2); k < n; ++k) s.allow.push_back(parse_window(window()));
    for (unsigned k = 0, n = rnd(3); k < n; ++k) s.deny.push_back(parse_window(window()));
    if (rnd(3) == 0) {
      SysTime f = utc("2026-03-01T00:00:00Z") + minutes(rnd(60 * 24 * 60));
      s.freeze.push_back({f, f + minutes(1 + rnd(60 * 48))});
    }
    std::string what;
    for (const Window& w : s.allow) what += "allow " + w.text + "; ";
    for (const Window& w : s.deny) what += "deny " + w.text + "; ";
    CAPTURE(what);
    // Around the March and October changes.
    SysTime at = utc(rnd(2) ? "2026-03-25T00:00:00Z" : "2026-10-20T00:00:00Z") + minutes(rnd(60 * 24 * 10));
    std::string at_text = rfc3339(at);
    CAPTURE(at_text);
    auto intervals = next_windows(s, at, 40);
    for (std::size_t k = 0; k < intervals.size(); ++k) {
      CHECK(intervals[k].start < intervals[k].end);
      if (k > 0) CHECK(intervals[k - 1].end < intervals[k].start);
    }
    if (intervals.empty()) continue;
    CHECK(intervals[0].end > at);
    // Past the horizon the intervals say nothing.
    SysTime end = intervals.back().end + (intervals.back().ends_later ? seconds(0) : seconds(1));
    for (int j = 0; j < 100; ++j) {
      SysTime t = at + seconds(rnd(static_cast<unsigned>(duration_cast<seconds>(end - at).count())));
      if (j % 3 == 0) {  // edges
        const Interval& near = intervals[rnd(static_cast<unsigned>(intervals.size()))];
        t = (rnd(2) ? near.start : near.end) - seconds(rnd(2));
        if (t < at || t >= end) continue;
      }
      bool in =
          std::any_of(intervals.begin(), intervals.end(), [&](const Interval& v) { return v.start <= t && t < v.end; });
      (in ? inside : outside)++;
      CHECK_MESSAGE(is_open(s, t) == in, rfc3339(t));
      // Asked from t, the first interval is the one t is in, if any.
      if (j % 50 == 0) {
        auto from_t = next_windows(s, t, 1);
        if (in) {
          REQUIRE(from_t.size() == 1);
          CHECK(from_t[0].start <= t);
          CHECK(t < from_t[0].end);
        } else if (!from_t.empty()) {
          CHECK(from_t[0].start > t);
        }
      }
    }
  }
  CHECK(inside > kRounds * 10);
  CHECK(outside > kRounds * 10);
}

TEST_CASE("intervals are the merged spans of the start instants") {
  // next_windows skips through runs of starts and merges as it goes; rebuild its intervals the
  // slow way, from every start instant, and compare them over two days around DST changes.
  std::uint64_t state = 11;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  const char* crons[] = {"* * * * *", "*/2 * * * *",     "0-30 * * * *", "*/15 1-3 * * *", "0,1,2,58,59 * * * *",
                         "* 2 * * *", "*/5 0-4 * * SUN", "30 * * * *",   "0 */3 * * *",    "10-20/5 22-23,0-2 * * *"};
  const char* durations[] = {"30s", "1m", "2m", "5m", "15m", "1h", "3h", "25h"};
  const char* zones[] = {"UTC", "Europe/Zurich", "America/New_York", "Australia/Lord_Howe"};
  const char* around[] = {"2026-03-27T00:00:00Z", "2026-10-23T00:00:00Z", "2026-03-06T00:00:00Z",
                          "2026-10-30T00:00:00Z", "2026-04-02T00:00:00Z", "2026-10-01T00:00:00Z"};
  for (int i = 0; i < kRounds; ++i) {
    Schedule s;
    for (unsigned k = 0, n = 1 + rnd(2); k < n; ++k) {
      s.allow.push_back(
          parse_window(std::string(crons[rnd(10)]) + " for " + durations[rnd(8)] + " in " + zones[rnd(4)]));
    }
    std::string what;
    for (const Window& w : s.allow) what += w.text + "; ";
    CAPTURE(what);
    SysTime at = utc(around[rnd(6)]) + minutes(rnd(60 * 24 * 2));
    SysTime end = at + days(2);
    // Every start whose span reaches `at` or later, as spans, merged.
    std::vector<Interval> spans;
    for (const Window& w : s.allow) {
      for (SysTime from = at - w.duration - seconds(1); from < end;) {
        auto starts = next_starts(w.cron, w.zone, from, 200);
        if (starts.empty()) break;
        for (SysTime t : starts) {
          if (t < end) spans.push_back({t, t + w.duration});
        }
        from = starts.back();
      }
    }
    std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<Interval> slow;
    for (const Interval& v : spans) {
      if (!slow.empty() && v.start <= slow.back().end) {
        slow.back().end = std::max(slow.back().end, v.end);
      } else {
        slow.push_back(v);
      }
    }
    auto clip = [&](std::vector<Interval> v) {
      std::vector<Interval> out;
      for (Interval i : v) {
        if (i.end <= at || i.start >= end) continue;
        out.push_back({std::max(i.start, at), std::min(i.end, end)});
      }
      return show(out);
    };
    CHECK(clip(next_windows(s, at, static_cast<int>(slow.size()) + 1)) == clip(slow));
  }
}

TEST_CASE("windows near the ends of SysTime's range stop there, never wrapped (F3)") {
  // SysTime ends at 2262-04-11T23:47:16Z; the look-ahead from March 2262 reaches beyond it.
  const SysTime last(kLastTime), first(kFirstTime);
  Schedule weekly = schedule({"0 8 * * MON for 81h in Europe/Zurich"});
  auto w = next_windows(weekly, utc("2262-03-01T00:00:00Z"), 100);
  REQUIRE(w.size() == 6);
  CHECK(show({w.front()}) == "2262-03-03T07:00:00Z/2262-03-06T16:00:00Z\n");
  CHECK(show({w.back()}) == "2262-04-07T06:00:00Z/2262-04-10T15:00:00Z\n");
  for (std::size_t i = 1; i < w.size(); ++i) CHECK(w[i - 1].end < w[i].start);
  // 2262-04-11 is a Friday: a window open then is cut where SysTime ends, and says so.
  Schedule fridays = schedule({"0 8 * * FRI for 81h in Europe/Zurich"});
  CHECK(show(next_windows(fridays, utc("2262-04-01T00:00:00Z"), 5)) ==
        "2262-04-04T06:00:00Z/2262-04-07T15:00:00Z\n2262-04-11T06:00:00Z/2262-04-11T23:47:16Z>\n");
  CHECK(is_open(fridays, last));
  CHECK(next_windows(fridays, SysTime::max(), 3).empty());
  CHECK(show(next_windows(schedule({"* * * * * for 1h"}), first + hours(5), 1)) ==
        "<1677-09-21T00:12:43Z/1682-09-22T06:12:44Z>\n");
  // The fraction of a second before the first whole one, and after the last, are inside too.
  auto earliest = next_windows(schedule({"* * * * * for 1h"}), SysTime::min(), 1);
  REQUIRE(earliest.size() == 1);
  CHECK(earliest[0].start == SysTime::min());
  CHECK(is_open(fridays, SysTime::max() - nanoseconds(1)));
  auto latest = next_windows(fridays, SysTime::max() - nanoseconds(1), 1);
  REQUIRE(latest.size() == 1);
  CHECK(latest[0].end == SysTime::max());
  CHECK(latest[0].ends_later);
  CHECK(starts("0 0 * * *", "UTC", "2262-04-09T12:00:00Z", 5) == "2262-04-10T00:00:00Z 2262-04-11T00:00:00Z ");
  CHECK(error_of([] { parse_freeze("2026-01-01T00:00:00Z/9999-12-31T23:59:59Z"); }) ==
        "invalid freeze \"2026-01-01T00:00:00Z/9999-12-31T23:59:59Z\": \"9999-12-31T23:59:59Z\" is after "
        "2262-04-11T23:47:16Z, the last time windowctl can represent");
}

TEST_CASE("a freeze closes every whole second it touches, in is_open as in next_windows (found by window_fuzz)") {
  // next_windows rounds a freeze out to whole seconds; is_open read it exactly and said open
  // at 00:00:00, the second an interval had just ended.
  Schedule s = schedule({"* * * * * for 2h"}, {}, {"2026-03-27T00:00:00.5Z/2026-03-30T12:00:00.25Z"});
  auto w = next_windows(s, utc("2026-03-26T12:00:00Z"), 2);
  CHECK(show(w) == "<2025-03-25T12:00:00Z/2026-03-27T00:00:00Z\n2026-03-30T12:00:01Z/2031-03-27T14:00:00Z>\n");
  CHECK(is_open(s, utc("2026-03-26T23:59:59.999Z")));
  CHECK_FALSE(is_open(s, utc("2026-03-27T00:00:00Z")));
  CHECK_FALSE(is_open(s, utc("2026-03-30T12:00:00.5Z")));
  CHECK(is_open(s, utc("2026-03-30T12:00:01Z")));
}

TEST_CASE("open_reason and closed_reason name what decides") {
  Schedule s;
  s.allow.push_back(parse_window("0 8 * * MON for 81h"));
  s.deny.push_back(parse_window("0 12 * * TUE for 1h"));
  s.freeze.push_back(parse_freeze("2026-12-01T00:00:00Z/2026-12-02T00:00:00Z"));
  CHECK(open_reason(s, utc("2026-11-23T09:00:00Z")) == "0 8 * * MON for 81h");
  CHECK(closed_reason(s, utc("2026-11-23T09:00:00Z")).empty());
  CHECK(open_reason(s, utc("2026-11-24T12:30:00Z")).empty());
  CHECK(closed_reason(s, utc("2026-11-24T12:30:00Z")) == "0 12 * * TUE for 1h");
  CHECK(closed_reason(s, utc("2026-12-01T09:00:00Z")) == "freeze 2026-12-01T00:00:00Z/2026-12-02T00:00:00Z");
  // Closed only because no allow window is open: nothing to name.
  CHECK(closed_reason(s, utc("2026-11-28T09:00:00Z")).empty());
  CHECK(open_reason(s, utc("2026-11-28T09:00:00Z")).empty());
}
