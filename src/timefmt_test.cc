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
  for (const char* bad : {"", "2026-11-22", "2026-11-22T04:05:06", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                          "2026-11-22T24:00:00Z", "2026-11-22T04:05:06.Z", "2026-11-22T04:05:06Zjunk", "x026-11-22T04:05:06Z"}) {
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
