#include "calendar.h"

#include <doctest/doctest.h>

#include <string>

#include "errors.h"
#include "sync.h"
#include "timefmt.h"
#include "window.h"

using namespace windowctl;
using namespace std::chrono;

namespace {

sys_seconds utc(const char* text) { return floor<seconds>(*parse_rfc3339(text)); }

// VEVENT bodies wrapped in a VCALENDAR, CRLF as RFC 5545 writes it.
std::string ics(const std::string& body, const std::string& head = "") {
  std::string text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n" + head + body + "END:VCALENDAR\n";
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

std::string event(const std::string& props) { return "BEGIN:VEVENT\nUID:x\n" + props + "END:VEVENT\n"; }

// The spans over [from, to) as "start/end name" lines.
std::string spans(const Calendar& c, const char* from, const char* to) {
  std::string out;
  for (const auto& s : c.spans(utc(from), utc(to))) {
    out += rfc3339(s.start) + "/" + rfc3339(s.end);
    if (!c.summary(s.event).empty()) out += " " + c.summary(s.event);
    out += "\n";
  }
  return out;
}

std::string starts(const Calendar& c, const char* from, const char* to) {
  std::string out;
  for (const auto& s : c.spans(utc(from), utc(to))) out += rfc3339(s.start) + " ";
  return out;
}

Calendar parse(const std::string& body, std::optional<TimeZone> zone = std::nullopt) {
  return parse_calendar(ics(body), "test.ics", zone);
}

std::string refusal(const std::string& text) {
  try {
    parse_calendar(text, "test.ics", std::nullopt).spans(utc("2026-01-01T00:00:00Z"), utc("2027-01-01T00:00:00Z"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("all-day events are days of the window's zone, timed ones instants") {
  auto zurich = TimeZone::load("Europe/Zurich");
  auto c = parse(event("SUMMARY:Christmas freeze\nDTSTART;VALUE=DATE:20261224\nDTEND;VALUE=DATE:20261227\n") +
                     event("SUMMARY:Patch night\nDTSTART;TZID=Europe/Zurich:20261201T220000\nDURATION:PT4H\n") +
                     event("DTSTART:20261203T080000Z\nDTEND:20261203T090000Z\n"),
                 zurich);
  CHECK(spans(c, "2026-11-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-12-01T21:00:00Z/2026-12-02T01:00:00Z Patch night\n"
        "2026-12-03T08:00:00Z/2026-12-03T09:00:00Z\n"
        "2026-12-23T23:00:00Z/2026-12-26T23:00:00Z Christmas freeze\n");
  // Without a window's zone, in UTC; a date alone lasts the day.
  auto u = parse(event("DTSTART;VALUE=DATE:20261224\n"));
  CHECK(spans(u, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z") == "2026-12-24T00:00:00Z/2026-12-25T00:00:00Z\n");
  // X-WR-TIMEZONE when no window names a zone.
  auto g = parse_calendar(ics(event("DTSTART;VALUE=DATE:20261224\n"), "X-WR-TIMEZONE:America/New_York\n"), "g.ics",
                          std::nullopt);
  CHECK(spans(g, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z") == "2026-12-24T05:00:00Z/2026-12-25T05:00:00Z\n");
  CHECK(g.zone().name() == "America/New_York");
}

TEST_CASE("lines: folded, LF or CRLF, a byte order mark, escaped text") {
  std::string text =
      "\xEF\xBB\xBF"
      "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nSUMMARY:Year-end\n  freeze\\, all\\; teams\nDTSTART:2026122\n"
      "4T000000Z\nDTEND:20261225T000000Z\nBEGIN:VALARM\nTRIGGER:-PT15M\nACTION:DISPLAY\nEND:VALARM\nEND:VEVENT\nEND:"
      "VCALENDAR\n";
  // Folding joins "2026122" and "4T000000Z" only when the second begins with a space: it does not here.
  CHECK(refusal(text).find("line 7: not a content line") != std::string::npos);
  text =
      "\xEF\xBB\xBF"
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Year-end\r\n  freeze\\, all\\; teams\r\nDTSTART:"
      "2026122\r\n 4T000000Z\r\nDTEND:20261225T000000Z\r\nBEGIN:VALARM\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:"
      "VEVENT\r\nEND:VCALENDAR\r\n";
  auto c = parse_calendar(text, "t.ics", std::nullopt);
  CHECK(spans(c, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-12-24T00:00:00Z/2026-12-25T00:00:00Z Year-end freeze, all; teams\n");
}

TEST_CASE("recurrence: ordinals, positions, intervals, COUNT and UNTIL") {
  auto z = TimeZone::load("Europe/Zurich");
  // Patch Tuesday: the second Tuesday of every month, 20:00-23:00 Zurich.
  auto c =
      parse(event("DTSTART;TZID=Europe/Zurich:20260113T200000\nDTEND;TZID=Europe/Zurich:20260113T230000\n"
                  "RRULE:FREQ=MONTHLY;BYDAY=2TU;COUNT=4\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-01-13T19:00:00Z 2026-02-10T19:00:00Z 2026-03-10T19:00:00Z 2026-04-14T18:00:00Z ");
  // The last Friday of each quarter's last month, until the end of 2026.
  c =
      parse(event("DTSTART:20260327T120000Z\nDURATION:PT1H\nRRULE:FREQ=YEARLY;BYMONTH=3,6,9,12;BYDAY=-1FR;UNTIL="
                  "20261231T000000Z\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2028-01-01T00:00:00Z") ==
        "2026-03-27T12:00:00Z 2026-06-26T12:00:00Z 2026-09-25T12:00:00Z 2026-12-25T12:00:00Z ");
  // The last weekday of the month (BYSETPOS=-1).
  c = parse(event("DTSTART:20260130T180000Z\nDURATION:PT2H\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z") ==
        "2026-01-30T18:00:00Z 2026-02-27T18:00:00Z 2026-03-31T18:00:00Z 2026-04-30T18:00:00Z 2026-05-29T18:00:00Z ");
  // Every other week, Monday and Thursday, weeks starting on Sunday.
  c = parse(event("DTSTART:20260105T080000Z\nDURATION:PT1H\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;WKST=SU\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z") ==
        "2026-01-05T08:00:00Z 2026-01-08T08:00:00Z 2026-01-19T08:00:00Z 2026-01-22T08:00:00Z ");
  // The 31st only in months that have one; -1 is the last day.
  c = parse(event("DTSTART:20260131T000000Z\nDURATION:PT1H\nRRULE:FREQ=MONTHLY\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z") ==
        "2026-01-31T00:00:00Z 2026-03-31T00:00:00Z 2026-05-31T00:00:00Z ");
  c = parse(event("DTSTART:20260131T000000Z\nDURATION:PT1H\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-1\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2026-04-01T00:00:00Z") ==
        "2026-01-31T00:00:00Z 2026-02-28T00:00:00Z 2026-03-31T00:00:00Z ");
  // Daily, every third day; yearly on DTSTART's day; far in the future without stepping from 2026.
  c = parse(event("DTSTART:20260101T000000Z\nDURATION:PT1H\nRRULE:FREQ=DAILY;INTERVAL=3\n"));
  CHECK(starts(c, "2100-01-01T00:00:00Z", "2100-01-08T00:00:00Z") == "2100-01-03T00:00:00Z 2100-01-06T00:00:00Z ");
  c = parse(event("DTSTART;VALUE=DATE:20240229\nRRULE:FREQ=YEARLY\n"));
  CHECK(starts(c, "2024-01-01T00:00:00Z", "2030-01-01T00:00:00Z") == "2024-02-29T00:00:00Z 2028-02-29T00:00:00Z ");
}

TEST_CASE("DTSTART is the first occurrence and counts towards COUNT, as RFC 5545 says") {
  // A Wednesday start of a Monday rule: the Wednesday, then two Mondays.
  auto c = parse(event("DTSTART:20260107T080000Z\nDURATION:PT1H\nRRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-01-07T08:00:00Z 2026-01-12T08:00:00Z 2026-01-19T08:00:00Z ");
}

TEST_CASE("EXDATE, RDATE, overrides and cancellations") {
  auto c = parse(
      "BEGIN:VEVENT\nUID:weekly\nSUMMARY:Window\nDTSTART:20260105T080000Z\nDTEND:20260105T100000Z\n"
      "RRULE:FREQ=WEEKLY;COUNT=5\nEXDATE:20260112T080000Z\nRDATE:20260110T080000Z\n"
      "RDATE;VALUE=PERIOD:20260111T080000Z/20260111T090000Z\nEND:VEVENT\n"
      "BEGIN:VEVENT\nUID:weekly\nRECURRENCE-ID:20260119T080000Z\nSUMMARY:Moved\nDTSTART:20260120T120000Z\n"
      "DTEND:20260120T130000Z\nEND:VEVENT\n"
      "BEGIN:VEVENT\nUID:weekly\nRECURRENCE-ID:20260126T080000Z\nSTATUS:CANCELLED\nDTSTART:20260126T080000Z\n"
      "DTEND:20260126T100000Z\nEND:VEVENT\n"
      "BEGIN:VEVENT\nUID:gone\nSTATUS:CANCELLED\nDTSTART:20260106T080000Z\nDTEND:20260106T100000Z\nEND:VEVENT\n");
  CHECK(spans(c, "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z") ==
        "2026-01-05T08:00:00Z/2026-01-05T10:00:00Z Window\n"
        "2026-01-10T08:00:00Z/2026-01-10T10:00:00Z Window\n"
        "2026-01-11T08:00:00Z/2026-01-11T09:00:00Z Window\n"
        "2026-01-20T12:00:00Z/2026-01-20T13:00:00Z Moved\n"
        "2026-02-02T08:00:00Z/2026-02-02T10:00:00Z Window\n");
}

TEST_CASE("zones: IANA, the file's VTIMEZONE, CLDR's Windows names; gaps move forward") {
  // Outlook's export: a Windows name with the rules in force.
  const std::string vtimezone =
      "BEGIN:VTIMEZONE\nTZID:W. Europe Standard Time\nBEGIN:STANDARD\nDTSTART:16010101T030000\n"
      "TZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\nEND:STANDARD\n"
      "BEGIN:DAYLIGHT\nDTSTART:16010101T020000\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\n"
      "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\nEND:DAYLIGHT\nEND:VTIMEZONE\n";
  const std::string weekly = event(
      "DTSTART;TZID=W. Europe Standard Time:20260302T080000\nDTEND;TZID=W. Europe Standard Time:20260302T090000\n"
      "RRULE:FREQ=WEEKLY;COUNT=6\n");
  auto c = parse(vtimezone + weekly);
  const char* expected =
      "2026-03-02T07:00:00Z 2026-03-09T07:00:00Z 2026-03-16T07:00:00Z 2026-03-23T07:00:00Z 2026-03-30T06:00:00Z "
      "2026-04-06T06:00:00Z ";
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") == expected);
  // The same name without a VTIMEZONE: CLDR's table (Europe/Berlin).
  c = parse(weekly);
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") == expected);
  CHECK(std::string(windows_zone_to_iana("W. Europe Standard Time")) == "Europe/Berlin");
  CHECK(std::string(windows_zone_to_iana("Eastern Standard Time")) == "America/New_York");
  CHECK(windows_zone_to_iana("Mars Standard Time") == nullptr);
  // The older Outlook form: BYDAY=SU;BYMONTHDAY=8-14 is the second Sunday (US rules).
  c = parse(
      "BEGIN:VTIMEZONE\nTZID:Custom\nBEGIN:STANDARD\nDTSTART:20071104T020000\nTZOFFSETFROM:-0400\nTZOFFSETTO:-0500\n"
      "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=SU;BYMONTHDAY=1,2,3,4,5,6,7\nEND:STANDARD\nBEGIN:DAYLIGHT\n"
      "DTSTART:20070311T020000\nTZOFFSETFROM:-0500\nTZOFFSETTO:-0400\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=SU;"
      "BYMONTHDAY=8,9,10,11,12,13,14\nEND:DAYLIGHT\nEND:VTIMEZONE\n" +
      event("DTSTART;TZID=Custom:20260307T120000\nDURATION:PT1H\nRRULE:FREQ=DAILY;COUNT=3\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") ==
        "2026-03-07T17:00:00Z 2026-03-08T16:00:00Z 2026-03-09T16:00:00Z ");
  // 02:30 does not exist in Zurich on 2026-03-29: it is 03:30 CEST.
  c = parse(event("DTSTART;TZID=Europe/Zurich:20260328T023000\nDURATION:PT30M\nRRULE:FREQ=DAILY;COUNT=2\n"));
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z") == "2026-03-28T01:30:00Z 2026-03-29T01:30:00Z ");
}

TEST_CASE("what is outside the subset is refused in one line naming the file, the line and the property") {
  auto one = [](const std::string& props) { return refusal(ics(event(props))); };
  CHECK(one("DTSTART:20260101T000000Z\nDURATION:PT1H\nRRULE:FREQ=HOURLY\n") ==
        "calendar test.ics line 8: RRULE: FREQ=HOURLY is not supported (DAILY, WEEKLY, MONTHLY, YEARLY)");
  CHECK(one("DTSTART:20260101T000000Z\nDURATION:PT1H\nRRULE:FREQ=DAILY;BYHOUR=8\n").find("line 8: RRULE: BYHOUR") !=
        std::string::npos);
  CHECK(one("DTSTART:20260101T000000Z\nDURATION:PT1H\nEXRULE:FREQ=DAILY\n").find("line 8: EXRULE") !=
        std::string::npos);
  CHECK(one("DURATION:PT1H\n").find("line 4: VEVENT: no DTSTART") != std::string::npos);
  CHECK(one("DTSTART:20260101T000000Z\n").find("no DTEND or DURATION") != std::string::npos);
  CHECK(one("DTSTART:20260101T000000Z\nDTEND:20251231T000000Z\n").find("DTEND is not after DTSTART") !=
        std::string::npos);
  CHECK(one("DTSTART;TZID=Nowhere/Land:20260101T000000\nDURATION:PT1H\n")
            .find("line 6: DTSTART: TZID \"Nowhere/Land\" is no IANA zone") != std::string::npos);
  CHECK(one("DTSTART:2026-01-01\nDURATION:PT1H\n").find("is not a DATE") != std::string::npos);
  CHECK(refusal(ics("BEGIN:VTODO\nDUE:20260101T000000Z\nEND:VTODO\n")).find("line 4: BEGIN: VTODO is not supported") !=
        std::string::npos);
  CHECK(refusal("BEGIN:VCALENDAR\nBEGIN:VEVENT\n").find("never closed") != std::string::npos);
  CHECK(refusal("BEGIN:VCALENDAR\nVERSION:2.0\nEND:VEVENT\n").find("does not close") != std::string::npos);
  CHECK(refusal("not a calendar\n").find("line 1: not a content line") != std::string::npos);
  CHECK(refusal("").find("no BEGIN:VCALENDAR") != std::string::npos);
  CHECK(refusal("BEGIN:VCALENDAR\nX:\xff\nEND:VCALENDAR\n").find("not UTF-8") != std::string::npos);
  CHECK(refusal("BEGIN:VCALENDAR\nX:a\x1b[31m\nEND:VCALENDAR\n").find("control character") != std::string::npos);
}

TEST_CASE("bounded whatever the file holds") {
  std::string many;
  for (std::size_t i = 0; i <= kCalendarMaxEvents; ++i)
    many += "BEGIN:VEVENT\nDTSTART;VALUE=DATE:20260101\nEND:VEVENT\n";
  CHECK(refusal(ics(many)).find("more than 20000 events (the cap)") != std::string::npos);
  CHECK(refusal(std::string(kCalendarMaxBytes + 1, ' ')).find("larger than 8 MiB") != std::string::npos);
  // A daily rule a century long in one question: within the span cap? No: said, not truncated.
  auto c = parse(event("DTSTART:19000101T000000Z\nDURATION:PT1M\nRRULE:FREQ=DAILY\n") +
                 event("DTSTART:19000101T000100Z\nDURATION:PT1M\nRRULE:FREQ=DAILY\n") +
                 event("DTSTART:19000101T000200Z\nDURATION:PT1M\nRRULE:FREQ=DAILY\n") +
                 event("DTSTART:19000101T000300Z\nDURATION:PT1M\nRRULE:FREQ=DAILY\n") +
                 event("DTSTART:19000101T000400Z\nDURATION:PT1M\nRRULE:FREQ=DAILY\n") +
                 event("DTSTART:19000101T000500Z\nDURATION:PT1M\nRRULE:FREQ=DAILY\n"));
  CHECK_THROWS_WITH_AS(c.spans(utc("1900-01-01T00:00:00Z"), utc("2000-01-01T00:00:00Z")),
                       doctest::Contains("occurrences between 1900-01-01 and 2000-01-01 (the cap)"), ConfigError);
  // A COUNT rule that never matches steps until the question's end, not for ever; six of them
  // from year 1 step past the cap.
  const std::string never =
      event("DTSTART:00010101T000000Z\nDURATION:PT1M\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=2\n");
  c = parse(never);
  CHECK(starts(c, "2026-01-01T00:00:00Z", "2262-01-01T00:00:00Z").empty());
  c = parse(never + never + never + never + never + never);
  CHECK_THROWS_WITH_AS(c.spans(utc("2026-01-01T00:00:00Z"), utc("2262-01-01T00:00:00Z")),
                       doctest::Contains("periods between 2026-01-01 and 2262-01-01 (the cap)"), ConfigError);
}

TEST_CASE("calendars in a schedule: allow and deny, named by their SUMMARY") {
  auto zurich = TimeZone::load("Europe/Zurich");
  Schedule s;
  s.allow.push_back(parse_window("0 8 * * MON to 0 17 * * THU in Europe/Zurich"));
  s.deny_calendars.push_back(
      parse(event("SUMMARY:Christmas freeze\nDTSTART;VALUE=DATE:20261221\nDTEND;VALUE=DATE:20270104\n"), zurich));
  auto at = [](const char* t) { return SysTime(utc(t)); };
  CHECK(is_open(s, at("2026-12-15T09:00:00Z")));
  CHECK_FALSE(is_open(s, at("2026-12-22T09:00:00Z")));
  CHECK(closed_reason(s, at("2026-12-22T09:00:00Z")) == "Christmas freeze");
  auto w = next_windows(s, at("2026-12-16T00:00:00Z"), 2);
  REQUIRE(w.size() == 2);
  CHECK(rfc3339(w[0].start) == "2026-12-14T07:00:00Z");  // open since Monday 08:00 Zurich
  CHECK(rfc3339(w[0].end) == "2026-12-17T16:00:00Z");
  CHECK(rfc3339(w[1].start) == "2027-01-04T07:00:00Z");
  // An allow calendar alone; its zone is the schedule's.
  Schedule only;
  only.allow_calendars.push_back(
      parse(event("SUMMARY:Maintenance\nDTSTART;TZID=Europe/Zurich:20261205T220000\nDURATION:PT6H\n")));
  CHECK(open_reason(only, at("2026-12-05T22:00:00Z")) == "Maintenance");
  CHECK(next_windows(only, at("2026-12-01T00:00:00Z"), 5).size() == 1);
  CHECK(schedule_zone(only).name() == "UTC");
  // parse_schedule reads floating times in the first window's zone, and names a missing file.
  CHECK_THROWS_WITH_AS(parse_schedule({{}, {}, {}, {"/nonexistent/holidays.ics"}, {}, {}}),
                       doctest::Contains("cannot read calendar /nonexistent/holidays.ics"), ConfigError);
  ScheduleFlags flags{{"0 8 * * MON for 81h in Europe/Zurich"}, {}, {}, {}, {"mem.ics"}, {}};
  flags.read = [](const std::string&) { return ics(event("DTSTART;VALUE=DATE:20261225\n")); };
  Schedule p = parse_schedule(flags);
  auto spans = p.deny_calendars.at(0).spans(utc("2026-12-01T00:00:00Z"), utc("2027-01-01T00:00:00Z"));
  REQUIRE(spans.size() == 1);
  CHECK(rfc3339(spans[0].start) == "2026-12-24T23:00:00Z");
}
