#include "timefmt.h"

#include <doctest/doctest.h>

using namespace std::chrono;
using namespace windowctl;

TEST_CASE("RFC 3339 round trip") {
  SysTime t = sys_days(year{2026} / 11 / 22) + hours(4) + minutes(5) + seconds(6) + nanoseconds(7);
  CHECK(rfc3339(t) == "2026-11-22T04:05:06Z");
  CHECK(rfc3339_nano(t).substr(0, 20) == "2026-11-22T04:05:06.");
  CHECK(parse_rfc3339("2026-11-22T04:05:06Z") == floor<seconds>(t));
  CHECK(parse_rfc3339("2026-11-22T05:05:06+01:00") == floor<seconds>(t));
  CHECK(parse_rfc3339("2026-11-21T23:35:06-04:30") == floor<seconds>(t));
  CHECK(parse_rfc3339("2026-11-22T04:05:06.5Z") == floor<seconds>(t) + milliseconds(500));
}

TEST_CASE("malformed timestamps are rejected") {
  for (const char* bad :
       {"", "2026-11-22", "2026-11-22T04:05:06", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-22T24:00:00Z",
        "2026-11-22T04:05:06.Z", "2026-11-22T04:05:06Zjunk", "x026-11-22T04:05:06Z"}) {
    CHECK_MESSAGE(!parse_rfc3339(bad).has_value(), bad);
  }
}

TEST_CASE("ages read like kubectl") {
  CHECK(human_duration(seconds(45)) == "45s");
  CHECK(human_duration(seconds(150)) == "2m30s");
  CHECK(human_duration(minutes(42)) == "42m");
  CHECK(human_duration(hours(3) + minutes(12)) == "3h12m");
  CHECK(human_duration(hours(30)) == "30h");
  CHECK(human_duration(hours(52)) == "2d4h");
  CHECK(human_duration(days(40)) == "40d");
  CHECK(human_duration(seconds(-5)) == "0s");
}

TEST_CASE("Go durations") {
  CHECK(parse_go_duration("30s") == seconds(30));
  CHECK(parse_go_duration("1h30m") == minutes(90));
  CHECK(parse_go_duration("81h") == hours(81));
  CHECK(parse_go_duration("500ms") == milliseconds(500));
  CHECK(parse_go_duration("1.5h") == minutes(90));
  CHECK(parse_go_duration("2m3s4ms") == minutes(2) + seconds(3) + milliseconds(4));
  CHECK(parse_go_duration("0") == nanoseconds(0));
  for (const char* bad : {"", "30", "s", "1x", "1.2.3s", "-5s", "1h 2m", "h1"}) {
    CHECK_MESSAGE(!parse_go_duration(bad).has_value(), bad);
  }
}

TEST_CASE("time until, for people") {
  CHECK(human_until(hours(52)) == "2d 4h");
  CHECK(human_until(hours(48)) == "2d");
  CHECK(human_until(hours(4) + minutes(10)) == "4h 10m");
  CHECK(human_until(minutes(35)) == "35m");
  CHECK(human_until(seconds(45)) == "45s");
  CHECK(human_until(seconds(-3)) == "0s");
}

TEST_CASE("RFC 3339 times a SysTime cannot hold are refused, never wrapped (F3)") {
  // Before: 9999-12-31 overflowed the nanosecond count and came out in 1816.
  for (const char* beyond : {"9999-12-31T23:59:59Z", "3000-01-01T00:00:00Z", "2262-04-11T23:47:16.854775808Z",
                             "2262-04-12T00:00:00+00:12", "1677-09-21T00:12:43.145224191Z", "0000-01-01T00:00:00Z"}) {
    CHECK_MESSAGE(!parse_rfc3339(beyond).has_value(), beyond);
  }
  CHECK(parse_rfc3339("2262-04-11T23:47:16.854775807Z") == SysTime::max());
  CHECK(parse_rfc3339("2262-04-12T00:47:16.854775807+01:00") == SysTime::max());
  CHECK(parse_rfc3339("1677-09-21T00:12:43.145224192Z") == SysTime::min());
  CHECK(parse_rfc3339("1677-09-21T00:12:43.9Z") == SysTime::min() + nanoseconds(754775808));
  CHECK(parse_rfc3339(rfc3339_nano(SysTime::max())) == SysTime::max());
  CHECK(parse_rfc3339(rfc3339_nano(SysTime::min())) == SysTime::min());
  CHECK(parse_rfc3339(rfc3339(kLastTime)) == SysTime(kLastTime));
  CHECK(parse_rfc3339(rfc3339(kFirstTime)) == SysTime(kFirstTime));
  CHECK(rfc3339(sys_seconds(sys_days(year{9999} / 12 / 31) + hours(23))) == "9999-12-31T23:00:00Z");

  // Deadlines saturate: one in 9999 is after every time windowctl meets.
  CHECK(parse_rfc3339_saturated("9999-12-31T23:59:59Z") == SysTime::max());
  CHECK(parse_rfc3339_saturated("0001-01-01T00:00:00Z") == SysTime::min());
  CHECK(parse_rfc3339_saturated("2026-11-22T04:05:06Z") == parse_rfc3339("2026-11-22T04:05:06Z"));
  CHECK(!parse_rfc3339_saturated("9999-12-31").has_value());

  CHECK(rfc3339_problem("2026-11-22T04:05:06Z").empty());
  CHECK(rfc3339_problem("soon") == "is not an RFC 3339 time such as 2026-03-29T01:30:00Z");
  CHECK(rfc3339_problem("3000-01-01T00:00:00Z") ==
        "is after 2262-04-11T23:47:16Z, the last time windowctl can represent");
  CHECK(rfc3339_problem("1600-01-01T00:00:00Z") ==
        "is before 1677-09-21T00:12:44Z, the first time windowctl can represent");
}

TEST_CASE("RFC 3339 offsets are hours 00-23 and minutes 00-59") {
  for (const char* bad : {"2026-11-22T04:05:06+24:00", "2026-11-22T04:05:06+01:60", "2026-11-22T04:05:06-99:99"}) {
    CHECK_MESSAGE(!parse_rfc3339(bad).has_value(), bad);
  }
  CHECK(parse_rfc3339("2026-11-22T04:05:06+23:59").has_value());
}

TEST_CASE("Go durations are exact to the nanosecond and end where Go's do") {
  // Before: a double lost the last digits and rounded sums.
  CHECK(parse_go_duration("9007199254740993ns") == nanoseconds(9007199254740993));
  CHECK(parse_go_duration("2562047h47m16.854775807s") == nanoseconds::max());
  CHECK(parse_go_duration("9223372036854775807ns") == nanoseconds::max());
  CHECK(!parse_go_duration("2562047h47m16.854775808s").has_value());
  CHECK(!parse_go_duration("9223372036854775808ns").has_value());
  CHECK(!parse_go_duration("99999999999999999999h").has_value());
  CHECK(parse_go_duration("0.1s") == milliseconds(100));
  CHECK(parse_go_duration("0.3s") == milliseconds(300));
  CHECK(parse_go_duration(".5s") == milliseconds(500));
  CHECK(parse_go_duration("1.s") == seconds(1));
  CHECK(parse_go_duration("1.0000000001s") == seconds(1));  // below a nanosecond: dropped, as Go
  CHECK(parse_go_duration("0.000000000000000000001h") == nanoseconds(0));
  CHECK(parse_go_duration("1.123456789123s") == nanoseconds(1123456789));
  CHECK(parse_go_duration("3\u00b5s") == microseconds(3));
  CHECK(parse_go_duration("3\u03bcs") == microseconds(3));
  for (const char* bad : {".s", "1..2s", "1.2.3s", "+5s", "5", "5 s", "1hh"}) {
    CHECK_MESSAGE(!parse_go_duration(bad).has_value(), bad);
  }
}

TEST_CASE("a refused duration says why, and days and weeks say their hours") {
  const std::string units = " (units: ns, us, ms, s, m, h)";
  CHECK(go_duration_problem("1d") == "no unit \"d\": use 24h" + units);
  CHECK(go_duration_problem("2d") == "no unit \"d\": use 48h" + units);
  CHECK(go_duration_problem("1w") == "no unit \"w\": use 168h" + units);
  CHECK(go_duration_problem("1.5d") == "no unit \"d\": 1d is 24h" + units);
  CHECK(go_duration_problem("1d12h") == "no unit \"d\": 1d is 24h" + units);
  CHECK(go_duration_problem("3w2d") == "no unit \"w\": 1w is 168h" + units);
  CHECK(go_duration_problem("5min") == "no unit \"min\"" + units);
  CHECK(go_duration_problem("1H") == "no unit \"H\"" + units);
  CHECK(go_duration_problem("30") == "no unit" + units);
  CHECK(go_duration_problem("1\x1b[2J") == "no unit \"\\x1b[\"" + units);  // never an escape to the terminal
  // A known unit, or no number: the fault is elsewhere.
  for (const char* other : {"-5m", "soon", "", "99999999999999999999h", ".s"}) {
    CAPTURE(other);
    CHECK(go_duration_problem(other) == "use a duration like 30s, 5m or 1h30m");
  }
}
