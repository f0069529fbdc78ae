#include "cron.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "config.h"

using namespace std::chrono;
using namespace windowctl;

namespace {

LocalMinute at(int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  return local_days(year{y} / mo / d) + hours(h) + minutes(mi);
}

// "0,15,30" for the set bits; "*" when every value from lo to hi is set.
std::string list(std::uint64_t bits, unsigned lo, unsigned hi) {
  std::string out;
  bool all = true;
  for (unsigned v = lo; v <= hi; ++v) {
    if (bits >> v & 1) {
      out += (out.empty() ? "" : ",") + std::to_string(v);
    } else {
      all = false;
    }
  }
  if ((bits & ~((std::uint64_t{2} << hi) - (std::uint64_t{1} << lo))) != 0) return "stray bits";
  return all ? "*" : out;
}

std::string str(LocalMinute t) {
  local_days d = floor<days>(t);
  year_month_day ymd{d};
  auto m = (t - d).count();
  return std::to_string(static_cast<int>(ymd.year())) + "-" + std::to_string(static_cast<unsigned>(ymd.month())) + "-" +
         std::to_string(static_cast<unsigned>(ymd.day())) + " " + std::to_string(m / 60) + ":" + std::to_string(m % 60);
}

std::string error_of(std::string_view expr) {
  try {
    parse_cron(expr);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cron fields: every syntax") {
  struct Case {
    const char* expr;
    const char *minutes, *hours, *days, *months, *weekdays;
  };
  const Case cases[] = {
      {"* * * * *", "*", "*", "*", "*", "*"},
      {"? ? ? ? ?", "*", "*", "*", "*", "*"},
      {"0 8 * * MON", "0", "8", "*", "*", "1"},
      {"5 4 3 2 1", "5", "4", "3", "2", "1"},
      {"0,30 8,12,17 1,15 1,7 0,6", "0,30", "8,12,17", "1,15", "1,7", "0,6"},
      {"10-12 8-17 1-3 3-5 1-5", "10,11,12", "8,9,10,11,12,13,14,15,16,17", "1,2,3", "3,4,5", "1,2,3,4,5"},
      {"*/15 */6 */10 */4 */2", "0,15,30,45", "0,6,12,18", "1,11,21,31", "1,5,9", "0,2,4,6"},
      {"10-40/10 8-20/4 5-25/10 2-12/5 1-5/2", "10,20,30,40", "8,12,16,20", "5,15,25", "2,7,12", "1,3,5"},
      {"50/3 20/2 28/2 11/1 5/1", "50,53,56,59", "20,22", "28,30", "11,12", "5,6"},
      {"0 0 1 JAN,jul,Dec SUN,sat", "0", "0", "1", "1,7,12", "0,6"},
      {"0 0 1 jan-MAR mon-FRI", "0", "0", "1", "1,2,3", "1,2,3,4,5"},
      {"0 0 1 FEB/3 TUE/2", "0", "0", "1", "2,5,8,11", "2,4,6"},
      {"0 0 1 * sun-sat", "0", "0", "1", "*", "*"},
      {"0 0 1 * 0-6", "0", "0", "1", "*", "*"},
      {"1-5,30,*/20 0 1 * *", "0,1,2,3,4,5,20,30,40", "0", "1", "*", "*"},
      {"59 23 31 12 6", "59", "23", "31", "12", "6"},
      {"07 08 09 01 00", "7", "8", "9", "1", "0"},
      {"*/1 */1 */1 */1 */1", "*", "*", "*", "*", "*"},
      {"*/90 */25 */40 */13 */7", "0", "0", "1", "1", "0"},
      {"  0\t8  *   * \t MON  ", "0", "8", "*", "*", "1"},
      {"@yearly", "0", "0", "1", "1", "*"},
      {"@annually", "0", "0", "1", "1", "*"},
      {"@monthly", "0", "0", "1", "*", "*"},
      {"@weekly", "0", "0", "*", "*", "0"},
      {"@daily", "0", "0", "*", "*", "*"},
      {"@midnight", "0", "0", "*", "*", "*"},
      {"@hourly", "0", "*", "*", "*", "*"},
  };
  for (const Case& c : cases) {
    std::string expr = c.expr;
    CAPTURE(expr);
    CronSchedule s = parse_cron(c.expr);
    CHECK(s.text == c.expr);
    CHECK(list(s.minutes, 0, 59) == c.minutes);
    CHECK(list(s.hours, 0, 23) == c.hours);
    CHECK(list(s.days, 1, 31) == c.days);
    CHECK(list(s.months, 1, 12) == c.months);
    CHECK(list(s.weekdays, 0, 6) == c.weekdays);
  }
}

TEST_CASE("cron star bit follows robfig v3: * and ? with no step or step 1, in any list item") {
  struct Case {
    const char* expr;
    bool days_star, weekdays_star;
  };
  const Case cases[] = {
      {"0 0 * * *", true, true},       {"0 0 ? * ?", true, true},         {"0 0 */1 * */1", true, true},
      {"0 0 */2 * */2", false, false}, {"0 0 ?/2 * ?/3", false, false},   {"0 0 1-31 * 0-6", false, false},
      {"0 0 *,5 * MON,*", true, true}, {"0 0 1 * SUN-SAT", false, false}, {"0 0 13 * FRI", false, false},
      {"@monthly", false, true},       {"@weekly", true, false},          {"@daily", true, true},
  };
  for (const Case& c : cases) {
    std::string expr = c.expr;
    CAPTURE(expr);
    CronSchedule s = parse_cron(c.expr);
    CHECK(s.days_star == c.days_star);
    CHECK(s.weekdays_star == c.weekdays_star);
  }
}

TEST_CASE("cron errors name the bad part") {
  struct Case {
    const char* expr;
    const char* message;
  };
  const Case cases[] = {
      {"", "invalid cron \"\": empty expression"},
      {"   ", "invalid cron \"   \": empty expression"},
      {"* * *", "invalid cron \"* * *\": expected 5 fields, got 3"},
      {"0 0 * * * *", "invalid cron \"0 0 * * * *\": expected 5 fields, got 6"},
      {"0 25 * * *", "invalid cron \"0 25 * * *\": hour 25 out of range 0-23"},
      {"60 * * * *", "invalid cron \"60 * * * *\": minute 60 out of range 0-59"},
      {"* * 0 * *", "invalid cron \"* * 0 * *\": day-of-month 0 out of range 1-31"},
      {"* * 32 * *", "invalid cron \"* * 32 * *\": day-of-month 32 out of range 1-31"},
      {"* * * 0 *", "invalid cron \"* * * 0 *\": month 0 out of range 1-12"},
      {"* * * 13 *", "invalid cron \"* * * 13 *\": month 13 out of range 1-12"},
      {"* * * * 7", "invalid cron \"* * * * 7\": day-of-week 7 out of range 0-6 (Sunday is 0)"},
      {"* * * * 1-7", "invalid cron \"* * * * 1-7\": day-of-week 7 out of range 0-6 (Sunday is 0)"},
      {"* * 99999999999999 * *",
       "invalid cron \"* * 99999999999999 * *\": day-of-month 99999999999999 out of range 1-31"},
      {"0 8 * * FOO", "invalid cron \"0 8 * * FOO\": unknown day-of-week \"FOO\""},
      {"0 8 * * MONDAY", "invalid cron \"0 8 * * MONDAY\": unknown day-of-week \"MONDAY\""},
      {"0 8 * JANUARY *", "invalid cron \"0 8 * JANUARY *\": unknown month \"JANUARY\""},
      {"0 8 * * MON-FOO", "invalid cron \"0 8 * * MON-FOO\": unknown day-of-week \"FOO\""},
      {"x * * * *", "invalid cron \"x * * * *\": minute \"x\" is not a number"},
      {"* MON * * *", "invalid cron \"* MON * * *\": hour \"MON\" is not a number"},
      {"* * JAN * *", "invalid cron \"* * JAN * *\": day-of-month \"JAN\" is not a number"},
      {"+5 * * * *", "invalid cron \"+5 * * * *\": minute \"+5\" is not a number"},
      {"1.5 * * * *", "invalid cron \"1.5 * * * *\": minute \"1.5\" is not a number"},
      {"*/0 * * * *", "invalid cron \"*/0 * * * *\": minute step 0 in \"*/0\" must be at least 1"},
      {"* 1-5/0 * * *", "invalid cron \"* 1-5/0 * * *\": hour step 0 in \"1-5/0\" must be at least 1"},
      {"*/x * * * *", "invalid cron \"*/x * * * *\": minute step \"x\" in \"*/x\" is not a number"},
      {"*/-1 * * * *", "invalid cron \"*/-1 * * * *\": minute step \"-1\" in \"*/-1\" is not a number"},
      {"5/ * * * *", "invalid cron \"5/ * * * *\": minute step \"\" in \"5/\" is not a number"},
      {"* * * * MON/TUE", "invalid cron \"* * * * MON/TUE\": day-of-week step \"TUE\" in \"MON/TUE\" is not a number"},
      {"*/2/3 * * * *", "invalid cron \"*/2/3 * * * *\": malformed minute \"*/2/3\": more than one \"/\""},
      {"1-2-3 * * * *", "invalid cron \"1-2-3 * * * *\": malformed minute \"1-2-3\": more than one \"-\""},
      {"-1 * * * *", "invalid cron \"-1 * * * *\": malformed minute \"-1\": missing number"},
      {"5- * * * *", "invalid cron \"5- * * * *\": malformed minute \"5-\": missing number"},
      {"/5 * * * *", "invalid cron \"/5 * * * *\": malformed minute \"/5\": missing number"},
      {"*-5 * * * *", "invalid cron \"*-5 * * * *\": malformed minute \"*-5\": \"*\" and \"?\" stand alone"},
      {"* 1-? * * *", "invalid cron \"* 1-? * * *\": malformed hour \"1-?\": \"*\" and \"?\" stand alone"},
      {"** * * * *", "invalid cron \"** * * * *\": malformed minute \"**\": \"*\" and \"?\" stand alone"},
      {"* 17-8 * * *", "invalid cron \"* 17-8 * * *\": hour range \"17-8\" is reversed (ranges cannot wrap around)"},
      {"* * * * FRI-MON",
       "invalid cron \"* * * * FRI-MON\": day-of-week range \"FRI-MON\" is reversed (ranges cannot wrap around)"},
      {"1,,2 * * * *", "invalid cron \"1,,2 * * * *\": empty item in minute list \"1,,2\""},
      {"* * * * 1,", "invalid cron \"* * * * 1,\": empty item in day-of-week list \"1,\""},
      {"* * , * *", "invalid cron \"* * , * *\": empty item in day-of-month list \",\""},
      {"@every 1h", "invalid cron \"@every 1h\": @every is not supported; a window needs wall-clock times"},
      {"@reboot", "invalid cron \"@reboot\": unknown descriptor \"@reboot\""},
      {"@DAILY", "invalid cron \"@DAILY\": unknown descriptor \"@DAILY\""},
      {"@daily 5", "invalid cron \"@daily 5\": unknown descriptor \"@daily 5\""},
      {"TZ=UTC 0 8 * * *",
       "invalid cron \"TZ=UTC 0 8 * * *\": TZ= and CRON_TZ= are not supported; name the zone after \"in\""},
      {"CRON_TZ=Europe/Zurich 0 8 * * *",
       "invalid cron \"CRON_TZ=Europe/Zurich 0 8 * * *\": TZ= and CRON_TZ= are not supported; name the zone after "
       "\"in\""},
  };
  for (const Case& c : cases) {
    std::string expr = c.expr;
    CAPTURE(expr);
    CHECK(error_of(c.expr) == c.message);
  }
}

TEST_CASE("cron day-of-month and day-of-week: AND when either is starred, else OR") {
  // 2026-03-02 is a Monday.
  CronSchedule mondays = parse_cron("0 0 * * MON");
  CHECK(matches(mondays, at(2026, 3, 2)));
  CHECK_FALSE(matches(mondays, at(2026, 3, 3)));

  CronSchedule fifteenth = parse_cron("0 0 15 * *");
  CHECK(matches(fifteenth, at(2026, 3, 15)));
  CHECK_FALSE(matches(fifteenth, at(2026, 3, 16)));

  // Both restricted: the 13th, and every Friday.
  CronSchedule friday13 = parse_cron("0 0 13 * FRI");
  CHECK(matches(friday13, at(2026, 3, 13)));  // Friday the 13th
  CHECK(matches(friday13, at(2026, 4, 13)));  // a Monday
  CHECK(matches(friday13, at(2026, 3, 6)));   // a Friday
  CHECK_FALSE(matches(friday13, at(2026, 3, 7)));

  // */2 carries no star bit: odd days or Mondays.
  CronSchedule odd = parse_cron("0 0 */2 * MON");
  CHECK(matches(odd, at(2026, 3, 2)));        // even, Monday
  CHECK(matches(odd, at(2026, 3, 3)));        // odd, Tuesday
  CHECK_FALSE(matches(odd, at(2026, 3, 4)));  // even, Wednesday

  // */1 keeps the star bit: every day AND Monday.
  CronSchedule star1 = parse_cron("0 0 */1 * MON");
  CHECK(matches(star1, at(2026, 3, 2)));
  CHECK_FALSE(matches(star1, at(2026, 3, 3)));

  // A written-out full range is restricted, so OR makes it every day.
  CronSchedule full = parse_cron("0 0 1-31 * MON");
  CHECK(matches(full, at(2026, 3, 3)));
  CronSchedule full_dow = parse_cron("0 0 15 * SUN-SAT");
  CHECK(matches(full_dow, at(2026, 3, 3)));

  // ? is *.
  CronSchedule question = parse_cron("0 0 ? * MON");
  CHECK_FALSE(matches(question, at(2026, 3, 3)));
}

TEST_CASE("cron matches minutes, hours and months") {
  CronSchedule s = parse_cron("*/15 8-17 * MAR-MAY *");
  CHECK(matches(s, at(2026, 3, 1, 8, 0)));
  CHECK(matches(s, at(2026, 5, 31, 17, 45)));
  CHECK_FALSE(matches(s, at(2026, 5, 31, 17, 50)));
  CHECK_FALSE(matches(s, at(2026, 5, 31, 18, 0)));
  CHECK_FALSE(matches(s, at(2026, 6, 1, 8, 0)));
  CHECK_FALSE(matches(s, at(2026, 2, 28, 8, 0)));
}

TEST_CASE("cron next_match is strictly after and skips by field") {
  struct Case {
    const char* expr;
    LocalMinute after, expected;
  };
  const Case cases[] = {
      {"* * * * *", at(2026, 3, 1, 8, 0), at(2026, 3, 1, 8, 1)},
      {"0 8 * * MON", at(2026, 3, 2, 8, 0), at(2026, 3, 9, 8, 0)},
      {"0 8 * * MON", at(2026, 3, 2, 7, 59), at(2026, 3, 2, 8, 0)},
      {"30 23 31 12 *", at(2026, 1, 1), at(2026, 12, 31, 23, 30)},
      {"0 0 1 1 *", at(2026, 12, 31, 23, 59), at(2027, 1, 1)},
      {"59 23 * * *", at(2026, 12, 31, 23, 59), at(2027, 1, 1, 23, 59)},
      {"0 0 31 * *", at(2026, 1, 31), at(2026, 3, 31)},
      {"0 0 31 * *", at(2026, 5, 31), at(2026, 7, 31)},
      {"0 0 29 2 *", at(2026, 1, 1), at(2028, 2, 29)},
      {"0 0 29 2 *", at(2096, 3, 1), at(2104, 2, 29)},     // 2100 is not a leap year
      {"0 0 29 2 MON", at(2027, 2, 15), at(2027, 2, 22)},  // OR: a Monday in February
      {"0 0 29 2 MON", at(2028, 2, 28), at(2028, 2, 29)},  // or the 29th
      {"0 0 * 2 MON", at(2026, 3, 1), at(2027, 2, 1)},
      {"*/20 9-10 * * *", at(2026, 3, 1, 10, 40), at(2026, 3, 2, 9, 0)},
      {"15 */6 * * *", at(2026, 3, 1, 18, 15), at(2026, 3, 2, 0, 15)},
      {"@yearly", at(2026, 6, 1), at(2027, 1, 1)},
      {"@weekly", at(2026, 3, 2), at(2026, 3, 8)},  // Sunday
      {"@monthly", at(2026, 12, 1), at(2027, 1, 1)},
      {"0 12 * * 1-5", at(2026, 3, 6, 12, 0), at(2026, 3, 9, 12, 0)},  // Friday noon to Monday
  };
  for (const Case& c : cases) {
    std::string expr = c.expr;
    CAPTURE(expr);
    auto next = next_match(parse_cron(c.expr), c.after);
    REQUIRE(next.has_value());
    CHECK(str(*next) == str(c.expected));
  }
}

TEST_CASE("cron schedules that never fire") {
  for (std::string expr : {"0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 30,31 FEB ?", "0 0 31 2 */1"}) {
    CAPTURE(expr);
    CronSchedule s = parse_cron(expr);
    CHECK_FALSE(can_match(s));
    CHECK_FALSE(next_match(s, at(2026, 1, 1)).has_value());
  }
  // The same days are fine when day-of-week is restricted too: then it is OR.
  CHECK(can_match(parse_cron("0 0 30 2 MON")));
  CHECK(can_match(parse_cron("0 0 29 2 *")));
  CHECK(can_match(parse_cron("0 0 31 1-4 *")));
  // A limit bounds the search.
  CHECK_FALSE(next_match(parse_cron("0 0 29 2 *"), at(2026, 1, 1), at(2028, 2, 28)).has_value());
  CHECK(next_match(parse_cron("0 0 29 2 *"), at(2026, 1, 1), at(2028, 2, 29)) == at(2028, 2, 29));
}

TEST_CASE("cron next_match agrees with a minute-by-minute scan") {
  // Dense random schedules, each checked from several starting points against matches().
  std::uint64_t state = 42;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  auto field = [&](unsigned lo, unsigned hi) -> std::string {
    switch (rnd(5)) {
      case 0: return "*";
      case 1: return std::to_string(lo + rnd(hi - lo + 1));
      case 2: {
        unsigned a = lo + rnd(hi - lo + 1), b = lo + rnd(hi - lo + 1);
        return std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b));
      }
      case 3: return "*/" + std::to_string(1 + rnd(hi - lo + 1));
      default: return std::to_string(lo + rnd(hi - lo + 1)) + "," + std::to_string(lo + rnd(hi - lo + 1));
    }
  };
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    std::string expr = field(0, 59) + " " + field(0, 23) + " " + field(1, 31) + " " + field(1, 12) + " " + field(0, 6);
    CAPTURE(expr);
    CronSchedule s = parse_cron(expr);
    for (int j = 0; j < 3; ++j) {
      LocalMinute from = at(2026 + static_cast<int>(rnd(3)), 1 + rnd(12), 1 + rnd(28), static_cast<int>(rnd(24)),
                            static_cast<int>(rnd(60)));
      auto next = next_match(s, from);
      LocalMinute t = from + minutes(1);
      LocalMinute scan_end = from + days(3);
      while (t <= scan_end && !matches(s, t)) t += minutes(1);
      if (t <= scan_end) {
        CHECK(next == t);
        ++checked;
      } else {
        CHECK((!next || *next > scan_end));
      }
      if (next) CHECK(matches(s, *next));
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("cron prev_match is strictly before, skips by field and mirrors next_match") {
  CHECK(prev_match(parse_cron("0 8 * * MON"), at(2026, 3, 9, 8, 0), at(2000, 1, 1)) == at(2026, 3, 2, 8, 0));
  CHECK(prev_match(parse_cron("0 8 * * MON"), at(2026, 3, 9, 8, 1), at(2000, 1, 1)) == at(2026, 3, 9, 8, 0));
  CHECK(prev_match(parse_cron("0 0 29 2 *"), at(2104, 1, 1), at(2000, 1, 1)) == at(2096, 2, 29));
  CHECK(prev_match(parse_cron("0 0 31 * *"), at(2026, 3, 1), at(2000, 1, 1)) == at(2026, 1, 31));
  CHECK(prev_match(parse_cron("59 23 31 12 *"), at(2027, 1, 1), at(2000, 1, 1)) == at(2026, 12, 31, 23, 59));
  CHECK(prev_match(parse_cron("*/20 9-10 * * *"), at(2026, 3, 2, 9, 0), at(2000, 1, 1)) == at(2026, 3, 1, 10, 40));
  CHECK_FALSE(prev_match(parse_cron("0 0 29 2 *"), at(2028, 2, 28), at(2024, 3, 1)).has_value());
  CHECK(prev_match(parse_cron("0 0 29 2 *"), at(2028, 2, 28), at(2024, 2, 29)) == at(2024, 2, 29));
  CHECK_FALSE(prev_match(parse_cron("0 0 30 2 *"), at(2026, 1, 1), at(1900, 1, 1)).has_value());

  // Random schedules: the previous match p of t matches, and the next match after p is t or later.
  std::uint64_t state = 43;
  auto rnd = [&](unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  };
  const char* crons[] = {"* * * * *",     "*/7 3-5 * * *", "0 0 29 2 *",
                         "15 10 31 * *",  "0 12 * 2 MON",  "0 0 13 * FRI",
                         "59 23 * * SUN", "@monthly",      "0-5,50-55 */5 1,15 JAN,JUL *",
                         "30 2 * 3 0"};
  for (int i = 0; i < 400; ++i) {
    CronSchedule c = parse_cron(crons[rnd(10)]);
    LocalMinute t = at(2000 + static_cast<int>(rnd(60)), 1 + rnd(12), 1 + rnd(28), static_cast<int>(rnd(24)),
                       static_cast<int>(rnd(60)));
    CAPTURE(c.text);
    CAPTURE(str(t));
    auto p = prev_match(c, t, t - days(3000));
    REQUIRE(p.has_value());
    CHECK(*p < t);
    CHECK(matches(c, *p));
    CHECK(*next_match(c, *p) >= t);
  }
}

TEST_CASE("cron covers: every minute of one schedule is a minute of the other") {
  CHECK(covers(parse_cron("* * * * *"), parse_cron("0 17 * * THU")));
  CHECK(covers(parse_cron("0 8 * * *"), parse_cron("0 8 * * *")));
  CHECK(covers(parse_cron("0 8 * * *"), parse_cron("0 8 * * MON")));
  CHECK(covers(parse_cron("0 8 1 * MON"), parse_cron("0 8 1 * *")));  // OR: every 1st
  CHECK_FALSE(covers(parse_cron("0 8 * * MON"), parse_cron("0 8 * * *")));
  CHECK_FALSE(covers(parse_cron("0 8 1 * MON"), parse_cron("0 8 * * TUE")));
  CHECK_FALSE(covers(parse_cron("0 8 * * *"), parse_cron("0 9 * * *")));
  CHECK_FALSE(covers(parse_cron("0 8 * 1-6 *"), parse_cron("0 8 * * *")));
}
