#include "ics.h"

#include <doctest/doctest.h>

#include "sync.h"

namespace windowctl {
namespace {

SysTime at(const char* text) { return *parse_rfc3339(text); }

}  // namespace

TEST_CASE("ics_text escapes what RFC 5545 TEXT reserves") {
  CHECK(ics_text("a,b;c\\d") == "a\\,b\\;c\\\\d");
  CHECK(ics_text("one\ntwo\r\nthree\rfour") == "one\\ntwo\\nthree\\nfour");
  CHECK(ics_text("0 8 * * MON for 81h in Europe/Zurich") == "0 8 * * MON for 81h in Europe/Zurich");
  CHECK(ics_text("Zürich: Weihnachten") == "Zürich: Weihnachten");
}

TEST_CASE("ics_line folds at 75 octets, never inside a character") {
  CHECK(ics_line("VERSION:2.0") == "VERSION:2.0\r\n");
  CHECK(ics_line(std::string(75, 'a')) == std::string(75, 'a') + "\r\n");
  CHECK(ics_line(std::string(76, 'a')) == std::string(75, 'a') + "\r\n a\r\n");
  // 75 + 74 + 74 + 1: a continuation's space counts.
  std::string long_line(224, 'x');
  std::string folded = ics_line(long_line);
  CHECK(folded ==
        std::string(75, 'x') + "\r\n " + std::string(74, 'x') + "\r\n " + std::string(74, 'x') + "\r\n x\r\n");
  // "ü" is two octets at 74 and 75: the first line stops before it.
  std::string umlaut = std::string(74, 'a') + "\xc3\xbc" + "b";
  CHECK(ics_line(umlaut) == std::string(74, 'a') + "\r\n \xc3\xbc" + "b\r\n");
  // Unfolded, every line is what was given; no line is longer than 75 octets.
  for (std::size_t n = 0; n < 400; n += 7) {
    std::string line;
    for (std::size_t i = 0; i < n; ++i) line += i % 3 == 0 ? "\xe2\x82\xac" : "e";  // euro sign, 3 octets
    std::string out = ics_line(line);
    std::string joined;
    std::size_t start = 0;
    while (start < out.size()) {
      std::size_t end = out.find("\r\n", start);
      REQUIRE(end != std::string::npos);
      CHECK(end - start <= 75);
      joined += out.substr(start == 0 ? 0 : start + 1, end - start - (start == 0 ? 0 : 1));
      start = end + 2;
    }
    CHECK(joined == line);
  }
}

TEST_CASE("render_ics: one VEVENT per window, UIDs stable across runs, DTSTAMP from --at") {
  Schedule s =
      parse_schedule({{"0 8 * * MON-FRI for 4h in Europe/Zurich"}, {"0 9 * * WED for 1h in Europe/Zurich"}, {}});
  SysTime now = at("2026-11-23T00:00:00Z");  // Monday
  auto windows = next_windows(s, now, 4);
  REQUIRE(windows.size() == 4);
  std::string ics = render_ics(s, now, windows);
  CHECK(ics.rfind("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//windowctl//schedule//EN\r\n", 0) == 0);
  CHECK(ics.size() >= 15);
  CHECK(ics.substr(ics.size() - 15) == "END:VCALENDAR\r\n");
  // Monday 08:00-12:00 CET is 07:00-11:00Z; Wednesday is cut by the deny at 09:00 local.
  CHECK(ics.find("DTSTART:20261123T070000Z\r\nDTEND:20261123T110000Z\r\n") != std::string::npos);
  CHECK(ics.find("DTSTART:20261125T070000Z\r\nDTEND:20261125T080000Z\r\n") != std::string::npos);
  CHECK(ics.find("DTSTART:20261125T090000Z\r\nDTEND:20261125T110000Z\r\n") != std::string::npos);
  CHECK(ics.find("DTSTAMP:20261123T000000Z\r\n") != std::string::npos);
  CHECK(ics.find("SUMMARY:0 8 * * MON-FRI for 4h in Europe/Zurich\r\n") != std::string::npos);

  // The same window is the same UID from another --at; the part after the deny is another.
  auto uids = [](const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t p = text.find("UID:"); p != std::string::npos; p = text.find("UID:", p + 1))
      out.push_back(text.substr(p, text.find("\r\n", p) - p));
    return out;
  };
  auto first = uids(ics);
  REQUIRE(first.size() == 4);
  CHECK(first[0] != first[1]);
  CHECK(first[2] != first[3]);
  auto later = uids(render_ics(s, at("2026-11-24T00:00:00Z"), next_windows(s, at("2026-11-24T00:00:00Z"), 3)));
  REQUIRE(later.size() == 3);
  CHECK(later[0] == first[1]);
  CHECK(later[1] == first[2]);
  CHECK(later[2] == first[3]);
  CHECK(first[0].find("-20261123T070000Z@windowctl") != std::string::npos);

  // A freeze that cuts the end of Monday's window keeps its UID (a re-import updates it).
  Schedule frozen = s;
  frozen.freeze.push_back(parse_freeze("2026-11-23T10:00:00Z/2026-11-23T12:00:00Z"));
  std::string cut = render_ics(frozen, now, next_windows(frozen, now, 1));
  CHECK(uids(cut)[0] == first[0]);
  CHECK(cut.find("DTEND:20261123T100000Z\r\n") != std::string::npos);

  // Another allow window elsewhere in the week leaves these UIDs alone.
  Schedule more = s;
  more.allow.push_back(parse_window("0 20 * * SAT for 1h"));
  CHECK(uids(render_ics(more, now, next_windows(more, now, 4))) == first);
}

TEST_CASE("render_ics: a summary that needs escaping and folding; no windows is an empty calendar") {
  Schedule s =
      parse_schedule({{"0 8 * * MON,TUE,WED,THU,FRI,SAT,SUN for 1h30m in America/Argentina/ComodRivadavia"}, {}, {}});
  std::string ics = render_ics(s, at("2026-11-23T00:00:00Z"), next_windows(s, at("2026-11-23T00:00:00Z"), 1));
  CHECK(ics.find("SUMMARY:0 8 * * MON\\,TUE\\,WED\\,THU\\,FRI\\,SAT\\,SUN for 1h30m in America/Arge\r\n "
                 "ntina/ComodRivadavia\r\n") != std::string::npos);
  CHECK(render_ics(s, at("2026-11-23T00:00:00Z"), {}) ==
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//windowctl//schedule//EN\r\nCALSCALE:GREGORIAN\r\n"
        "METHOD:PUBLISH\r\nX-WR-CALNAME:windowctl windows\r\nEND:VCALENDAR\r\n");
}

}  // namespace windowctl
