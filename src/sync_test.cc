#include "sync.h"

#include <doctest/doctest.h>

#include "config.h"

using namespace windowctl;
using nlohmann::json;

namespace {
SysTime at(const char* text) { return *parse_rfc3339(text); }
}  // namespace

TEST_CASE("expressions split on ';' and newlines") {
  CHECK(split_expressions("0 8 * * MON for 81h in Europe/Zurich; 0 9 * * SAT for 2h\n\n  0 0 1 1 * for 1h ") ==
        std::vector<std::string>{"0 8 * * MON for 81h in Europe/Zurich", "0 9 * * SAT for 2h", "0 0 1 1 * for 1h"});
  CHECK(split_expressions(" ; \n").empty());
}

TEST_CASE("an object's annotations replace the flags; freezes always apply") {
  Schedule flags =
      parse_schedule({{"0 8 * * MON for 81h in Europe/Zurich"}, {}, {"2026-12-24T00:00:00Z/2026-12-27T00:00:00Z"}});
  json plain = {{"metadata", {{"name", "a"}}}};
  auto s = schedule_for(plain, flags);
  REQUIRE(s);
  CHECK(s->allow.front().text == "0 8 * * MON for 81h in Europe/Zurich");
  json annotated = {
      {"metadata",
       {{"annotations", {{kWindowAnnotation, "0 22 * * * for 2h"}, {kDenyAnnotation, "0 23 * * * for 10m"}}}}}};
  auto own = schedule_for(annotated, flags);
  REQUIRE(own);
  CHECK(own->allow.size() == 1);
  CHECK(own->allow.front().text == "0 22 * * * for 2h");
  CHECK(own->deny.size() == 1);
  CHECK(own->freeze.size() == 1);
  CHECK(is_open(*own, at("2026-11-22T22:30:00Z")));
  CHECK_FALSE(is_open(*own, at("2026-11-22T23:05:00Z")));
  CHECK_FALSE(is_open(*own, at("2026-12-25T22:30:00Z")));  // frozen
}

TEST_CASE("no window anywhere, or a bad annotation") {
  CHECK_FALSE(schedule_for(json{{"metadata", json::object()}}, Schedule{}).has_value());
  json bad = {{"metadata", {{"annotations", {{kWindowAnnotation, "0 8 * * FOO for 1h"}}}}}};
  CHECK_THROWS_WITH_AS(schedule_for(bad, Schedule{}), doctest::Contains("annotation windowctl.io/window: invalid"),
                       ConfigError);
  json empty = {{"metadata", {{"annotations", {{kWindowAnnotation, " ; "}}}}}};
  CHECK_THROWS_WITH_AS(schedule_for(empty, Schedule{}), "annotation windowctl.io/window is empty", ConfigError);
  CHECK_THROWS_AS(parse_schedule({{"nonsense"}, {}, {}}), ConfigError);
}

TEST_CASE("window state: current and next interval") {
  Schedule s = parse_schedule({{"0 8 * * MON for 81h in Europe/Zurich"}, {}, {}});
  // Tuesday 2026-11-24 12:00 UTC: inside Mon 07:00Z - Thu 16:00Z (CET = UTC+1).
  auto open = window_state(s, at("2026-11-24T12:00:00Z"));
  CHECK(open.open);
  REQUIRE(open.current);
  CHECK(rfc3339(open.current->start) == "2026-11-23T07:00:00Z");
  CHECK(rfc3339(open.current->end) == "2026-11-26T16:00:00Z");
  REQUIRE(open.next);
  CHECK(rfc3339(open.next->start) == "2026-11-30T07:00:00Z");
  auto closed = window_state(s, at("2026-11-27T12:00:00Z"));
  CHECK_FALSE(closed.open);
  CHECK_FALSE(closed.current);
  CHECK(rfc3339(closed.next->start) == "2026-11-30T07:00:00Z");
  CHECK(closed.zone->name() == "Europe/Zurich");
}

TEST_CASE("next edges: what status shows and sync records") {
  Schedule s = parse_schedule({{"0 8 * * MON for 81h in Europe/Zurich"}, {}, {}});
  Edges open = next_edges(window_state(s, at("2026-11-24T12:00:00Z")));
  REQUIRE(open.open);
  REQUIRE(open.close);
  CHECK(rfc3339(*open.open) == "2026-11-30T07:00:00Z");
  CHECK(rfc3339(*open.close) == "2026-11-26T16:00:00Z");
  Edges closed = next_edges(window_state(s, at("2026-11-27T12:00:00Z")));
  CHECK(rfc3339(*closed.open) == "2026-11-30T07:00:00Z");
  CHECK(rfc3339(*closed.close) == "2026-12-03T16:00:00Z");
  // Always open: no edge within the search, none said.
  Schedule always = parse_schedule({{"* * * * * for 1m"}, {}, {}});
  Edges none = next_edges(window_state(always, at("2026-11-27T12:00:00Z")));
  CHECK_FALSE(none.open);
  CHECK_FALSE(none.close);
  // Never open again within 5 years.
  Schedule rare = parse_schedule({{"0 0 29 2 * for 24h"}, {}, {}});
  CHECK_FALSE(next_edges(window_state(rare, at("2096-03-01T00:00:00Z"))).open);
}

TEST_CASE("closed_flux_reason: until the next open in the window's zone, and what closes it") {
  Schedule s = parse_schedule({{"0 8 * * MON-FRI for 9h in Europe/Zurich"},
                               {"0 8 * * WED for 2h in Europe/Zurich"},
                               {"2026-12-24T00:00:00Z/2026-12-28T07:00:30Z"}});
  auto reason = [&](const char* t) { return closed_flux_reason(s, at(t), window_state(s, at(t))); };
  CHECK(reason("2026-11-24T12:00:00Z") == "");  // open
  CHECK(reason("2026-11-24T20:00:00Z") == "windowctl: window closed until 2026-11-25 10:00 Europe/Zurich");
  CHECK(reason("2026-11-25T07:30:00Z") ==
        "windowctl: window closed until 2026-11-25 10:00 Europe/Zurich (0 8 * * WED for 2h in Europe/Zurich)");
  // A freeze names itself, and its end to the second.
  CHECK(reason("2026-12-24T12:00:00Z") ==
        "windowctl: window closed until 2026-12-28 08:00:30 Europe/Zurich (freeze "
        "2026-12-24T00:00:00Z/2026-12-28T07:00:30Z)");
  Schedule utc = parse_schedule({{"0 8 * * * for 1h"}, {}, {}});
  CHECK(closed_flux_reason(utc, at("2026-11-24T12:00:00Z"), window_state(utc, at("2026-11-24T12:00:00Z"))) ==
        "windowctl: window closed until 2026-11-25 08:00 UTC");
  Schedule rare = parse_schedule({{"0 0 29 2 * for 24h"}, {}, {}});
  CHECK(closed_flux_reason(rare, at("2096-03-01T00:00:00Z"), window_state(rare, at("2096-03-01T00:00:00Z"))) ==
        "windowctl: window closed, no window opens within 5 years");
}
