#include "zone.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "config.h"
#include "test_util.h"
#include "timefmt.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

sys_seconds utc(const char* text) {
  auto t = parse_rfc3339(text);
  REQUIRE(t.has_value());
  return floor<seconds>(*t);
}

local_seconds wall(int y, unsigned mo, unsigned d, int h, int mi, int s = 0) {
  return local_days(year{y} / mo / d) + hours(h) + minutes(mi) + seconds(s);
}

std::string str(sys_seconds t) { return rfc3339(t); }

std::string list(const std::vector<sys_seconds>& v) {
  std::string out;
  for (auto t : v) out += (out.empty() ? "" : " ") + str(t);
  return out;
}

std::string error_of(std::string_view name, const std::string& dir = "/usr/share/zoneinfo") {
  try {
    TimeZone::load(name, dir);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Offset changes over [from, to): "2026-03-29T01:00:00Z +7200", one per line.
std::string transitions(const TimeZone& z, const char* from, const char* to) {
  std::string out;
  sys_seconds t = utc(from), end = utc(to);
  while (auto next = z.next_transition(t)) {
    if (*next >= end) break;
    out += str(*next) + " " + std::to_string(z.offset_at(*next).count()) + "\n";
    t = *next;
  }
  return out;
}

}  // namespace

TEST_CASE("UTC is built in") {
  for (const char* name : {"UTC", "Etc/UTC"}) {
    TimeZone z = TimeZone::load(name, "/nonexistent");
    CHECK(z.name() == "UTC");
    CHECK(z.offset_at(utc("2026-03-29T01:00:00Z")) == seconds(0));
    CHECK(z.abbreviation(utc("2026-03-29T01:00:00Z")) == "UTC");
    CHECK(list(z.local_to_utc(wall(2026, 3, 29, 2, 30))) == "2026-03-29T02:30:00Z");
    CHECK_FALSE(z.next_transition(utc("2026-01-01T00:00:00Z")).has_value());
  }
  TimeZone d;
  CHECK(d.name() == "UTC");
  CHECK(d.min_offset() == seconds(0));
  CHECK(d.max_offset() == seconds(0));
}

TEST_CASE("Europe/Zurich in 2026") {
  TimeZone z = TimeZone::load("Europe/Zurich");
  CHECK(z.name() == "Europe/Zurich");
  CHECK(z.offset_at(utc("2026-03-29T00:59:59Z")) == hours(1));
  CHECK(z.abbreviation(utc("2026-03-29T00:59:59Z")) == "CET");
  CHECK(z.offset_at(utc("2026-03-29T01:00:00Z")) == hours(2));
  CHECK(z.abbreviation(utc("2026-03-29T01:00:00Z")) == "CEST");
  CHECK(z.offset_at(utc("2026-10-25T00:59:59Z")) == hours(2));
  CHECK(z.offset_at(utc("2026-10-25T01:00:00Z")) == hours(1));
  CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-03-29T01:00:00Z 7200\n2026-10-25T01:00:00Z 3600\n");

  // 02:00-03:00 does not exist on 29 March; 02:00-03:00 happens twice on 25 October.
  CHECK(list(z.local_to_utc(wall(2026, 3, 29, 1, 59, 59))) == "2026-03-29T00:59:59Z");
  CHECK(list(z.local_to_utc(wall(2026, 3, 29, 2, 0))) == "");
  CHECK(list(z.local_to_utc(wall(2026, 3, 29, 2, 30))) == "");
  CHECK(list(z.local_to_utc(wall(2026, 3, 29, 2, 59, 59))) == "");
  CHECK(list(z.local_to_utc(wall(2026, 3, 29, 3, 0))) == "2026-03-29T01:00:00Z");
  CHECK(str(z.resolve(wall(2026, 3, 29, 2, 30))) == "2026-03-29T01:30:00Z");  // 03:30 CEST
  CHECK(str(z.resolve(wall(2026, 3, 29, 2, 0))) == "2026-03-29T01:00:00Z");   // 03:00 CEST

  CHECK(list(z.local_to_utc(wall(2026, 10, 25, 1, 59, 59))) == "2026-10-24T23:59:59Z");
  CHECK(list(z.local_to_utc(wall(2026, 10, 25, 2, 0))) == "2026-10-25T00:00:00Z 2026-10-25T01:00:00Z");
  CHECK(list(z.local_to_utc(wall(2026, 10, 25, 2, 30))) == "2026-10-25T00:30:00Z 2026-10-25T01:30:00Z");
  CHECK(list(z.local_to_utc(wall(2026, 10, 25, 3, 0))) == "2026-10-25T02:00:00Z");
  CHECK(str(z.resolve(wall(2026, 10, 25, 2, 30))) == "2026-10-25T00:30:00Z");

  CHECK(list(z.local_to_utc(wall(2026, 7, 1, 12, 0))) == "2026-07-01T10:00:00Z");
  CHECK(list(z.local_to_utc(wall(2026, 1, 1, 12, 0))) == "2026-01-01T11:00:00Z");
}

TEST_CASE("America/New_York in 2026") {
  TimeZone z = TimeZone::load("America/New_York");
  CHECK(z.offset_at(utc("2026-03-08T06:59:59Z")) == hours(-5));
  CHECK(z.abbreviation(utc("2026-03-08T06:59:59Z")) == "EST");
  CHECK(z.offset_at(utc("2026-03-08T07:00:00Z")) == hours(-4));
  CHECK(z.abbreviation(utc("2026-03-08T07:00:00Z")) == "EDT");
  CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-03-08T07:00:00Z -14400\n2026-11-01T06:00:00Z -18000\n");
  CHECK(list(z.local_to_utc(wall(2026, 3, 8, 2, 30))) == "");
  CHECK(str(z.resolve(wall(2026, 3, 8, 2, 30))) == "2026-03-08T07:30:00Z");  // 03:30 EDT
  CHECK(list(z.local_to_utc(wall(2026, 11, 1, 1, 30))) == "2026-11-01T05:30:00Z 2026-11-01T06:30:00Z");
  CHECK(str(z.resolve(wall(2026, 11, 1, 1, 30))) == "2026-11-01T05:30:00Z");
  CHECK(list(z.local_to_utc(wall(2026, 11, 1, 2, 30))) == "2026-11-01T07:30:00Z");
}

TEST_CASE("Australia/Lord_Howe shifts by 30 minutes") {
  TimeZone z = TimeZone::load("Australia/Lord_Howe");
  CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-04-04T15:00:00Z 37800\n2026-10-03T15:30:00Z 39600\n");
  CHECK(z.abbreviation(utc("2026-07-01T00:00:00Z")) == "+1030");
  CHECK(z.abbreviation(utc("2026-12-01T00:00:00Z")) == "+11");
  // 5 April: 02:00 +11 becomes 01:30 +1030, so 01:30-02:00 happens twice.
  CHECK(list(z.local_to_utc(wall(2026, 4, 5, 1, 45))) == "2026-04-04T14:45:00Z 2026-04-04T15:15:00Z");
  CHECK(list(z.local_to_utc(wall(2026, 4, 5, 1, 29))) == "2026-04-04T14:29:00Z");
  CHECK(list(z.local_to_utc(wall(2026, 4, 5, 2, 0))) == "2026-04-04T15:30:00Z");
  // 4 October: 02:00 +1030 becomes 02:30 +11.
  CHECK(list(z.local_to_utc(wall(2026, 10, 4, 2, 15))) == "");
  CHECK(str(z.resolve(wall(2026, 10, 4, 2, 15))) == "2026-10-03T15:45:00Z");  // 02:45 +11
  CHECK(list(z.local_to_utc(wall(2026, 10, 4, 2, 30))) == "2026-10-03T15:30:00Z");
}

TEST_CASE("far-future instants follow the footer rule") {
  TimeZone zurich = TimeZone::load("Europe/Zurich");
  CHECK(transitions(zurich, "2100-01-01T00:00:00Z", "2101-01-01T00:00:00Z") ==
        "2100-03-28T01:00:00Z 7200\n2100-10-31T01:00:00Z 3600\n");
  CHECK(list(zurich.local_to_utc(wall(2100, 3, 28, 2, 30))) == "");
  CHECK(list(zurich.local_to_utc(wall(2100, 10, 31, 2, 30))) == "2100-10-31T00:30:00Z 2100-10-31T01:30:00Z");
  TimeZone lord_howe = TimeZone::load("Australia/Lord_Howe");
  CHECK(transitions(lord_howe, "2100-01-01T00:00:00Z", "2101-01-01T00:00:00Z") ==
        "2100-04-03T15:00:00Z 37800\n2100-10-02T15:30:00Z 39600\n");
  TimeZone ny = TimeZone::load("America/New_York");
  CHECK(ny.offset_at(utc("2100-07-04T12:00:00Z")) == hours(-4));
  CHECK(ny.offset_at(utc("2100-12-25T12:00:00Z")) == hours(-5));
  TimeZone kolkata = TimeZone::load("Asia/Kolkata");
  CHECK(kolkata.offset_at(utc("2100-07-04T12:00:00Z")) == hours(5) + minutes(30));
  CHECK(kolkata.abbreviation(utc("2026-07-04T12:00:00Z")) == "IST");
  CHECK_FALSE(kolkata.next_transition(utc("2026-01-01T00:00:00Z")).has_value());
}

TEST_CASE("before the first transition, local mean time") {
  TimeZone z = TimeZone::load("Europe/Zurich");
  CHECK(z.offset_at(utc("1800-01-01T00:00:00Z")) == minutes(34) + seconds(8));
  CHECK(z.abbreviation(utc("1800-01-01T00:00:00Z")) == "LMT");
  CHECK(z.min_offset() == minutes(29) + seconds(46));  // Bern mean time, 1853-1894
  CHECK(z.max_offset() == hours(2));
}

TEST_CASE("POSIX TZ rules") {
  SUBCASE("M form, with and without a time") {
    TimeZone z = TimeZone::from_posix("cet", "CET-1CEST,M3.5.0,M10.5.0/3");
    CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-03-29T01:00:00Z 7200\n2026-10-25T01:00:00Z 3600\n");
    CHECK(z.abbreviation(utc("2026-07-01T00:00:00Z")) == "CEST");
    TimeZone us = TimeZone::from_posix("us", "EST5EDT,M3.2.0,M11.1.0");
    CHECK(transitions(us, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-03-08T07:00:00Z -14400\n2026-11-01T06:00:00Z -18000\n");
    // Without rules POSIX leaves the dates open; the US ones are used.
    TimeZone bare = TimeZone::from_posix("bare", "EST5EDT");
    CHECK(transitions(bare, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-03-08T07:00:00Z -14400\n2026-11-01T06:00:00Z -18000\n");
  }
  SUBCASE("southern hemisphere, quoted names, half hours") {
    TimeZone z = TimeZone::from_posix("lh", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0");
    CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-04-04T15:00:00Z 37800\n2026-10-03T15:30:00Z 39600\n");
    CHECK(z.offset_at(utc("2026-01-01T00:00:00Z")) == hours(11));
    CHECK(z.abbreviation(utc("2026-07-01T00:00:00Z")) == "+1030");
  }
  SUBCASE("week 5 is the last, even in a four-week month") {
    TimeZone z = TimeZone::from_posix("x", "XST0XDT,M2.5.0/12,M10.5.0/12");
    // February 2026 has four Sundays: the last is the 22nd. 2032's fifth is the 29th.
    CHECK(transitions(z, "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z") == "2026-02-22T12:00:00Z 3600\n");
    CHECK(transitions(z, "2032-01-01T00:00:00Z", "2032-03-01T00:00:00Z") == "2032-02-29T12:00:00Z 3600\n");
  }
  SUBCASE("Jn never counts February 29; n does") {
    TimeZone j = TimeZone::from_posix("j", "XST0XDT,J60/0,J300/0");
    CHECK(transitions(j, "2028-01-01T00:00:00Z", "2029-01-01T00:00:00Z") ==
          "2028-03-01T00:00:00Z 3600\n2028-10-26T23:00:00Z 0\n");
    CHECK(transitions(j, "2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z") ==
          "2027-03-01T00:00:00Z 3600\n2027-10-26T23:00:00Z 0\n");
    TimeZone n = TimeZone::from_posix("n", "XST0XDT,59/0,299/0");
    CHECK(transitions(n, "2028-01-01T00:00:00Z", "2029-01-01T00:00:00Z") ==
          "2028-02-29T00:00:00Z 3600\n2028-10-25T23:00:00Z 0\n");
    CHECK(transitions(n, "2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z") ==
          "2027-03-01T00:00:00Z 3600\n2027-10-26T23:00:00Z 0\n");
  }
  SUBCASE("negative and extended rule times") {
    // America/Nuuk since 2023: changes at -01:00 and 00:00 local, i.e. with Europe at 01:00 UTC.
    TimeZone z = TimeZone::from_posix("nuuk", "<-02>2<-01>,M3.5.0/-1,M10.5.0/0");
    CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-03-29T01:00:00Z -3600\n2026-10-25T01:00:00Z -7200\n");
    CHECK(transitions(TimeZone::load("America/Nuuk"), "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-03-29T01:00:00Z -3600\n2026-10-25T01:00:00Z -7200\n");
  }
  SUBCASE("daylight time all year") {
    TimeZone z = TimeZone::from_posix("always", "EST5EDT,0/0,J365/25");
    for (const char* t : {"2026-01-01T00:00:00Z", "2026-01-01T05:00:00Z", "2026-06-01T00:00:00Z",
                          "2026-12-31T23:59:59Z", "2027-01-01T04:59:59Z", "2027-01-01T05:00:00Z"}) {
      CAPTURE(t);
      CHECK(z.offset_at(utc(t)) == hours(-4));
    }
    CHECK_FALSE(z.next_transition(utc("2026-06-01T00:00:00Z")).has_value());
  }
  SUBCASE("no daylight time") {
    TimeZone z = TimeZone::from_posix("ist", "<+0530>-5:30");
    CHECK(z.offset_at(utc("2026-01-01T00:00:00Z")) == hours(5) + minutes(30));
    CHECK(z.abbreviation(utc("2026-01-01T00:00:00Z")) == "+0530");
    CHECK(TimeZone::from_posix("jst", "JST-9").offset_at(utc("2026-01-01T00:00:00Z")) == hours(9));
  }
  SUBCASE("malformed rules") {
    for (const char* bad : {"", "C", "CET", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
                            "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,J0,J300", "CET-1CEST,J366,J300", "<+0530-5:30",
                            "CET-1CEST,M3.5.0,M10.5.0/3x", "CET-25"}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(TimeZone::from_posix("bad", bad), ConfigError);
    }
  }
}

TEST_CASE("zone names are checked before any file is read") {
  for (const char* bad : {"", "/etc/passwd", "../etc/passwd", "Europe/../Zurich", "Europe/./Zurich", "Europe//Zurich",
                          "Europe/Zurich/", "Europe/Zur ich", "Europe\\Zurich", "Europe/Zurich\n"}) {
    CAPTURE(bad);
    CHECK_FALSE(valid_zone_name(bad));
    CHECK(error_of(bad) ==
          "invalid time zone name \"" + std::string(bad) + "\": use an IANA name such as Europe/Zurich");
  }
  for (const char* good :
       {"UTC", "Europe/Zurich", "America/Port-au-Prince", "Etc/GMT+5", "America/Argentina/Buenos_Aires"}) {
    CAPTURE(good);
    CHECK(valid_zone_name(good));
    CHECK(error_of(good) == "");
  }
}

TEST_CASE("unknown zones are errors, never UTC") {
  CHECK(error_of("Mars/Base") == "unknown time zone \"Mars/Base\": no such file in /usr/share/zoneinfo");
  // A region is no zone; some of its zones are offered, the shortest names first.
  CHECK(error_of("Europe").starts_with(
      "unknown time zone \"Europe\": no such file in /usr/share/zoneinfo; did you mean Europe/"));
  CHECK(error_of("Europe/Zurich", "/nonexistent") ==
        "unknown time zone \"Europe/Zurich\": no such file in /nonexistent");
  CHECK(error_of("leapseconds") == "time zone \"leapseconds\": not a usable TZif file: bad header");
  CHECK(error_of("right/Europe/Zurich") ==
        "time zone \"right/Europe/Zurich\": not a usable TZif file: leap-second (\"right/\") zones are not supported");
}

TEST_CASE("an unknown zone says the zone of the tz database it probably meant") {
  CHECK(error_of("Europe/Zurch") ==
        "unknown time zone \"Europe/Zurch\": no such file in /usr/share/zoneinfo; did you mean Europe/Zurich?");
  CHECK(error_of("europe/zurich") ==
        "unknown time zone \"europe/zurich\": no such file in /usr/share/zoneinfo; did you mean Europe/Zurich?");
  CHECK(error_of("America/New_Yrok").ends_with("; did you mean America/New_York?"));
  CHECK(error_of("America/Argentina/Buenos_Aire").ends_with("; did you mean America/Argentina/Buenos_Aires?"));
  // Only zones are offered: not posix/ or right/ (copies), not zone.tab, nothing below three levels.
  testing::TempDir dir;
  const std::string zone = file("/usr/share/zoneinfo/Europe/Zurich");
  for (const char* name : {"Test/Zone", "posix/Test/Zona", "zone.tab", "Test/A/B/Zona", "Test/Dir/Zona/x"})
    dir.write(name, zone);
  CHECK(error_of("Test/Zona", dir.path()) ==
        "unknown time zone \"Test/Zona\": no such file in " + dir.path() + "; did you mean Test/Zone?");
  CHECK(error_of("Test/A/B/Zon", dir.path()) == "unknown time zone \"Test/A/B/Zon\": no such file in " + dir.path());
  CHECK(error_of("Test/Dir/Zon", dir.path()).ends_with("no such file in " + dir.path()));
  CHECK(error_of("zone.ta", dir.path()) ==
        "invalid time zone name \"zone.ta\": use an IANA name such as Europe/Zurich");
}

TEST_CASE("ZONEINFO names the zone directory") {
  testing::TempDir dir;
  dir.write("Test/Zone", file("/usr/share/zoneinfo/America/New_York"));
  ::setenv("ZONEINFO", dir.path().c_str(), 1);
  TimeZone z = TimeZone::load("Test/Zone");
  std::string missing;
  try {
    TimeZone::load("Europe/Zurich");
  } catch (const ConfigError& e) {
    missing = e.what();
  }
  ::unsetenv("ZONEINFO");
  CHECK(z.name() == "Test/Zone");
  CHECK(z.offset_at(utc("2026-07-01T00:00:00Z")) == hours(-4));
  CHECK(missing == "unknown time zone \"Europe/Zurich\": no such file in " + dir.path());
  CHECK(TimeZone::load("Europe/Zurich").offset_at(utc("2026-07-01T00:00:00Z")) == hours(2));
}

TEST_CASE("TZif versions and damage") {
  std::string v2 = file("/usr/share/zoneinfo/Europe/Zurich");
  REQUIRE(v2.size() > 44);
  SUBCASE("a version 1 file uses its 32-bit data and has no footer") {
    auto count = [&](std::size_t at) {
      return static_cast<std::size_t>(
          static_cast<unsigned char>(v2[at]) << 24 | static_cast<unsigned char>(v2[at + 1]) << 16 |
          static_cast<unsigned char>(v2[at + 2]) << 8 | static_cast<unsigned char>(v2[at + 3]));
    };
    std::size_t isut = count(20), isstd = count(24), leap = count(28), time = count(32), type = count(36),
                chars = count(40);
    std::string v1 = v2.substr(0, 44 + time * 5 + type * 6 + chars + leap * 8 + isstd + isut);
    v1[4] = '\0';
    TimeZone z = TimeZone::from_tzif("v1", v1);
    CHECK(transitions(z, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
          "2026-03-29T01:00:00Z 7200\n2026-10-25T01:00:00Z 3600\n");
  }
  SUBCASE("a file with no transitions uses its footer") {
    TimeZone z = TimeZone::load("Etc/GMT-14");
    CHECK(z.offset_at(utc("2026-07-01T00:00:00Z")) == hours(14));
    CHECK(z.abbreviation(utc("2026-07-01T00:00:00Z")) == "+14");
  }
  SUBCASE("damaged files are errors") {
    CHECK_THROWS_WITH_AS(TimeZone::from_tzif("x", "TZif"), "time zone \"x\": not a usable TZif file: bad header",
                         ConfigError);
    CHECK_THROWS_WITH_AS(TimeZone::from_tzif("x", v2.substr(0, 100)),
                         "time zone \"x\": not a usable TZif file: bad second header", ConfigError);
    CHECK_THROWS_WITH_AS(TimeZone::from_tzif("x", v2.substr(0, v2.size() - 1)),
                         "time zone \"x\": not a usable TZif file: unterminated footer", ConfigError);
    std::string bad_footer = v2.substr(0, v2.rfind('\n', v2.size() - 2)) + "\nCET-1CEST,M3\n";
    CHECK_THROWS_WITH_AS(TimeZone::from_tzif("x", bad_footer), "time zone \"x\": bad POSIX TZ rule \"CET-1CEST,M3\"",
                         ConfigError);
  }
}

TEST_CASE("local_to_utc and next_transition agree with offset_at") {
  // Every instant is among the candidates for its own wall time; the offset holds until the
  // next transition. Sampled every few days over two centuries in several zones.
  for (const char* name :
       {"Europe/Zurich", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Apia"}) {
    CAPTURE(name);
    TimeZone z = TimeZone::load(name);
    int failures = 0;
    const sys_seconds end = utc("2101-01-01T00:00:00Z");
#ifdef NDEBUG
    const seconds step(3607 * 37);
#else
    const seconds step(3607 * 160);  // unoptimised builds take ten times as long
#endif
    for (sys_seconds t = utc("1900-01-01T00:00:00Z"); t < end; t += step) {
      auto candidates = z.local_to_utc(local_seconds{(t + z.offset_at(t)).time_since_epoch()});
      if (std::find(candidates.begin(), candidates.end(), t) == candidates.end()) ++failures;
      auto next = z.next_transition(t);
      if (next) {
        if (*next <= t || z.offset_at(*next - seconds(1)) != z.offset_at(t) || z.offset_at(*next) == z.offset_at(t))
          ++failures;
      }
    }
    CHECK(failures == 0);
  }
}

namespace {

// Instants in [from, to) every `step` where offset_at, local_to_utc and next_transition tell
// different stories: each instant is among the candidates for its own wall time, and the offset
// holds until the next transition, which changes it.
int disagreements(const TimeZone& z, sys_seconds from, sys_seconds to, seconds step) {
  int failures = 0;
  for (sys_seconds t = from; t < to; t += step) {
    auto candidates = z.local_to_utc(local_seconds{(t + z.offset_at(t)).time_since_epoch()});
    if (std::find(candidates.begin(), candidates.end(), t) == candidates.end()) ++failures;
    for (sys_seconds c : candidates) {
      if (c + z.offset_at(c) != t + z.offset_at(t)) ++failures;
    }
    if (auto next = z.next_transition(t)) {
      if (*next <= t || z.offset_at(*next - seconds(1)) != z.offset_at(t) || z.offset_at(*next) == z.offset_at(t))
        ++failures;
    }
  }
  return failures;
}

}  // namespace

TEST_CASE("POSIX rules whose switches cross a year boundary") {
  SUBCASE("daylight time that ends in the next January: the latest switch decides") {
    // Each year's daylight time would run from 1 January 01:00 to 3 January 03:00 of the next
    // year; the previous year's end, on 3 January, comes after this year's start.
    TimeZone z = TimeZone::from_posix("x", "EST0EDT,0/1,J365/75");
    CHECK(transitions(z, "2025-12-01T00:00:00Z", "2026-02-01T00:00:00Z") ==
          "2026-01-01T01:00:00Z 3600\n2026-01-03T02:00:00Z 0\n");
    CHECK(z.offset_at(utc("2026-01-01T00:30:00Z")) == seconds(0));
    CHECK(z.offset_at(utc("2026-01-02T00:00:00Z")) == hours(1));
    CHECK(list(z.local_to_utc(wall(2026, 1, 1, 0, 30))) == "2026-01-01T00:30:00Z");
    CHECK(list(z.local_to_utc(wall(2026, 1, 1, 1, 30))).empty());  // the spring-forward gap
    CHECK(list(z.local_to_utc(wall(2026, 1, 3, 2, 30))) == "2026-01-03T01:30:00Z 2026-01-03T02:30:00Z");
  }
  // Rules whose switches leave their year, both ways, and one whose December switch leaves it
  // in some years only (the 4th Saturday plus a week), so years pass without a transition.
  for (const char* rule : {"EST0EDT,0/1,J365/75", "XST0XDT,J365/100,J365/120", "<-03>3<-02>,J1/-100,J200",
                           "XST5XDT,M12.5.0/150,M1.1.0/-150", "XST0XDT,0/0,M12.4.6/167", "EST5EDT,0/0,J365/25",
                           "<+13>-13<+14>,M12.5.0/-167,M1.1.6/167", "XST-12XDT-13,365/1,0/-2"}) {
    std::string text = rule;
    CAPTURE(text);
    TimeZone z = TimeZone::from_posix("x", rule);
    int failures = 0;
    for (int y = 2020; y < 2060; ++y) {
      sys_seconds jan1 = sys_days(year{y} / 1 / 1);
      failures += disagreements(z, jan1 - days(12), jan1 + days(12), minutes(17));
    }
    failures += disagreements(z, utc("2020-01-01T00:00:00Z"), utc("2060-01-01T00:00:00Z"), hours(61));
    CHECK(failures == 0);
  }
}

TEST_CASE("a footer rule that disagrees with the last transition decides from it, in every direction") {
  // From the last transition on, the footer rule decides offset_at; next_transition and
  // local_to_utc took the table's type at that transition instead.
  std::string zurich = file("/usr/share/zoneinfo/Europe/Zurich");
  REQUIRE(zurich.ends_with("\nCET-1CEST,M3.5.0,M10.5.0/3\n"));
  std::string odd = zurich.substr(0, zurich.size() - std::string("CET-1CEST,M3.5.0,M10.5.0/3\n").size()) + "<+05>-5\n";
  TimeZone z = TimeZone::from_tzif("odd", odd);
  sys_seconds last = utc("1900-01-01T00:00:00Z");
  while (auto next = z.next_transition(last)) last = *next;
  CHECK(z.offset_at(last) == hours(5));
  CHECK(disagreements(z, last - days(200), last + days(10), minutes(23)) == 0);
}
