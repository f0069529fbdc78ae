#include "cron.h"

#include <bit>
#include <cctype>
#include <span>
#include <vector>

#include "errors.h"
#include "util.h"

namespace windowctl {

using namespace std::chrono;

namespace {

struct Field {
  const char* name;
  unsigned min, max;
  std::span<const std::string_view> names;  // names[i] is value min + i
};

constexpr std::string_view kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                            "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr Field kFields[] = {
    {"minute", 0, 59, {}},
    {"hour", 0, 23, {}},
    {"day-of-month", 1, 31, {}},
    {"month", 1, 12, kMonthNames},
    {"day-of-week", 0, 6, kDayNames},
};

struct Bits {
  std::uint64_t bits = 0;
  bool star = false;
};

[[noreturn]] void fail(std::string_view text, const std::string& detail) {
  throw ConfigError("invalid cron \"" + std::string(text) + "\": " + detail);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Digits only: robfig's strconv.Atoi would also take "+5", which no one means.
unsigned number(std::string_view s) {
  unsigned long v = 0;
  for (char c : s) {
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > 1000000) return 1000000;  // out of every range; keeps the message's text as written
  }
  return static_cast<unsigned>(v);
}

unsigned value(std::string_view text, const Field& f, std::string_view item, std::string_view part) {
  if (part.empty()) fail(text, std::string("malformed ") + f.name + " " + quoted(item) + ": missing number");
  if (all_digits(part)) {
    unsigned v = number(part);
    if (v < f.min || v > f.max) {
      std::string msg = std::string(f.name) + " " + std::string(part) + " out of range " + std::to_string(f.min) + "-" +
                        std::to_string(f.max);
      if (f.min == 0 && f.max == 6) msg += " (Sunday is 0)";
      fail(text, msg);
    }
    return v;
  }
  if (!f.names.empty()) {
    std::string lower = ascii_lower(part);
    for (unsigned i = 0; i < f.names.size(); ++i) {
      if (f.names[i] == lower) return f.min + i;
    }
    fail(text, std::string("unknown ") + f.name + " " + quoted(part));
  }
  fail(text, std::string(f.name) + " " + quoted(part) + " is not a number");
}

Bits parse_item(std::string_view text, const Field& f, std::string_view item) {
  auto slash = item.find('/');
  std::string_view range = item.substr(0, slash);
  if (slash != std::string_view::npos && item.find('/', slash + 1) != std::string_view::npos) {
    fail(text, std::string("malformed ") + f.name + " " + quoted(item) + ": more than one \"/\"");
  }
  Bits out;
  unsigned lo, hi;
  if (range == "*" || range == "?") {
    lo = f.min;
    hi = f.max;
    out.star = true;
  } else if (range.find_first_of("*?") != std::string_view::npos) {
    // robfig reads "*-5" as "*"; refuse rather than guess what was meant.
    fail(text, std::string("malformed ") + f.name + " " + quoted(item) + ": \"*\" and \"?\" stand alone");
  } else {
    auto dash = range.find('-');
    if (dash != std::string_view::npos && range.find('-', dash + 1) != std::string_view::npos) {
      fail(text, std::string("malformed ") + f.name + " " + quoted(item) + ": more than one \"-\"");
    }
    lo = value(text, f, item, range.substr(0, dash));
    hi = dash == std::string_view::npos ? lo : value(text, f, item, range.substr(dash + 1));
    if (lo > hi) {
      fail(text, std::string(f.name) + " range " + quoted(range) + " is reversed (ranges cannot wrap around)");
    }
  }
  unsigned step = 1;
  if (slash != std::string_view::npos) {
    std::string_view s = item.substr(slash + 1);
    if (!all_digits(s))
      fail(text, std::string(f.name) + " step " + quoted(s) + " in " + quoted(item) + " is not a number");
    step = number(s);
    if (step == 0) fail(text, std::string(f.name) + " step 0 in " + quoted(item) + " must be at least 1");
    // "N/S" means N-max/S.
    if (range.find('-') == std::string_view::npos) hi = f.max;
    // As robfig v3: a step above 1 clears the star bit, so "*/2" restricts the day.
    if (step > 1) out.star = false;
  }
  for (unsigned v = lo; v <= hi; v += step) out.bits |= std::uint64_t{1} << v;
  return out;
}

Bits parse_field(std::string_view text, const Field& f, std::string_view field) {
  Bits out;
  std::size_t pos = 0;
  while (true) {
    auto comma = field.find(',', pos);
    std::string_view item = field.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    // robfig drops empty items silently; "1,,2" is more likely a typo than a wish.
    if (item.empty()) fail(text, std::string("empty item in ") + f.name + " list " + quoted(field));
    Bits b = parse_item(text, f, item);
    out.bits |= b.bits;
    out.star = out.star || b.star;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

constexpr std::uint64_t range_bits(unsigned lo, unsigned hi) {
  std::uint64_t b = 0;
  for (unsigned v = lo; v <= hi; ++v) b |= std::uint64_t{1} << v;
  return b;
}

bool descriptor(std::string_view text, CronSchedule& c) {
  // Field values as robfig's parseDescriptor sets them, star bits included.
  c.minutes = 1;
  c.hours = 1;
  c.days = static_cast<std::uint32_t>(range_bits(1, 31));
  c.months = static_cast<std::uint16_t>(range_bits(1, 12));
  c.weekdays = static_cast<std::uint8_t>(range_bits(0, 6));
  c.days_star = c.weekdays_star = true;
  if (text == "@yearly" || text == "@annually") {
    c.days = 1u << 1;
    c.months = 1u << 1;
    c.days_star = false;
  } else if (text == "@monthly") {
    c.days = 1u << 1;
    c.days_star = false;
  } else if (text == "@weekly") {
    c.weekdays = 1;
    c.weekdays_star = false;
  } else if (text == "@hourly") {
    c.hours = static_cast<std::uint32_t>(range_bits(0, 23));
  } else if (text != "@daily" && text != "@midnight") {
    return false;
  }
  return true;
}

// Lowest set bit at or above `from`, or -1.
int next_bit(std::uint64_t bits, unsigned from) {
  if (from >= 64) return -1;
  bits >>= from;
  return bits ? static_cast<int>(from) + std::countr_zero(bits) : -1;
}

// Highest set bit at or below `from`, or -1.
int prev_bit(std::uint64_t bits, int from) {
  if (from < 0) return -1;
  if (from < 63) bits &= (std::uint64_t{1} << (from + 1)) - 1;
  return bits ? 63 - std::countl_zero(bits) : -1;
}

bool day_matches(const CronSchedule& c, unsigned day, unsigned weekday) {
  bool dom = c.days >> day & 1;
  bool dow = c.weekdays >> weekday & 1;
  return c.days_star || c.weekdays_star ? dom && dow : dom || dow;
}

}  // namespace

CronSchedule parse_cron(std::string_view text) {
  CronSchedule c;
  c.text = std::string(text);
  std::string_view spec = trim(text);
  if (spec.empty()) fail(text, "empty expression");
  if (spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
    fail(text, "TZ= and CRON_TZ= are not supported; name the zone after \"in\"");
  }
  if (spec.front() == '@') {
    if (spec.starts_with("@every")) fail(text, "@every is not supported; a window needs wall-clock times");
    if (!descriptor(spec, c)) fail(text, "unknown descriptor " + quoted(spec));
    return c;
  }
  std::vector<std::string_view> fields;
  for (std::size_t i = 0; i < spec.size();) {
    if (is_space(spec[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < spec.size() && !is_space(spec[j])) ++j;
    fields.push_back(spec.substr(i, j - i));
    i = j;
  }
  if (fields.size() != 5) fail(text, "expected 5 fields, got " + std::to_string(fields.size()));
  Bits b[5];
  for (int i = 0; i < 5; ++i) b[i] = parse_field(text, kFields[i], fields[i]);
  c.minutes = b[0].bits;
  c.hours = static_cast<std::uint32_t>(b[1].bits);
  c.days = static_cast<std::uint32_t>(b[2].bits);
  c.months = static_cast<std::uint16_t>(b[3].bits);
  c.weekdays = static_cast<std::uint8_t>(b[4].bits);
  c.days_star = b[2].star;
  c.weekdays_star = b[4].star;
  return c;
}

bool matches(const CronSchedule& c, LocalMinute t) {
  local_days day = floor<days>(t);
  year_month_day ymd{day};
  auto since = (t - day).count();
  return (c.minutes >> (since % 60) & 1) && (c.hours >> (since / 60) & 1) &&
         (c.months >> static_cast<unsigned>(ymd.month()) & 1) &&
         day_matches(c, static_cast<unsigned>(ymd.day()), weekday{day}.c_encoding());
}

bool can_match(const CronSchedule& c) {
  if (!c.minutes || !c.hours || !c.months || !c.weekdays || !c.days) return false;
  // OR, or AND with day-of-month unrestricted: every month has every weekday.
  if (!c.weekdays_star || c.days_star) return true;
  static constexpr unsigned kLongest[] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (unsigned m = 1; m <= 12; ++m) {
    if ((c.months >> m & 1) && (c.days & range_bits(1, kLongest[m]))) return true;
  }
  return false;
}

std::optional<LocalMinute> next_match(const CronSchedule& c, LocalMinute after) {
  return next_match(c, after, after + days(146097));
}

std::optional<LocalMinute> next_match(const CronSchedule& c, LocalMinute after, LocalMinute limit) {
  if (!can_match(c)) return std::nullopt;
  LocalMinute t = after + minutes(1);
  while (t <= limit) {
    local_days day = floor<days>(t);
    year_month_day ymd{day};
    unsigned mon = static_cast<unsigned>(ymd.month());
    if (!(c.months >> mon & 1)) {
      int next = next_bit(c.months, mon + 1);
      year y = ymd.year();
      if (next < 0) {
        y += years(1);
        next = next_bit(c.months, 1);
      }
      t = local_days(y / month(static_cast<unsigned>(next)) / 1);
      continue;
    }
    if (!day_matches(c, static_cast<unsigned>(ymd.day()), weekday{day}.c_encoding())) {
      t = day + days(1);
      continue;
    }
    auto since = static_cast<unsigned>((t - day).count());
    unsigned h = since / 60, m = since % 60;
    if (!(c.hours >> h & 1)) {
      int next = next_bit(c.hours, h + 1);
      t = next < 0 ? day + days(1) : day + hours(next);
      continue;
    }
    if (!(c.minutes >> m & 1)) {
      int next = next_bit(c.minutes, m + 1);
      t = next < 0 ? day + hours(h + 1) : day + hours(h) + minutes(next);
      continue;
    }
    return t;
  }
  return std::nullopt;
}

std::optional<LocalMinute> prev_match(const CronSchedule& c, LocalMinute before, LocalMinute limit) {
  if (!can_match(c)) return std::nullopt;
  LocalMinute t = before - minutes(1);
  while (t >= limit) {
    local_days day = floor<days>(t);
    year_month_day ymd{day};
    auto mon = static_cast<int>(static_cast<unsigned>(ymd.month()));
    if (!(c.months >> mon & 1)) {
      int prev = prev_bit(c.months, mon - 1);
      year y = ymd.year();
      if (prev < 1) {
        y -= years(1);
        prev = prev_bit(c.months, 12);
      }
      t = local_days(y / month(static_cast<unsigned>(prev)) / last) + days(1) - minutes(1);
      continue;
    }
    if (!day_matches(c, static_cast<unsigned>(ymd.day()), weekday{day}.c_encoding())) {
      t = day - minutes(1);
      continue;
    }
    auto since = static_cast<int>((t - day).count());
    int h = since / 60, m = since % 60;
    if (!(c.hours >> h & 1)) {
      int prev = prev_bit(c.hours, h - 1);
      t = prev < 0 ? day - minutes(1) : day + hours(prev) + minutes(59);
      continue;
    }
    if (!(c.minutes >> m & 1)) {
      int prev = prev_bit(c.minutes, m - 1);
      t = prev < 0 ? day + hours(h) - minutes(1) : day + hours(h) + minutes(prev);
      continue;
    }
    return t;
  }
  return std::nullopt;
}

bool covers(const CronSchedule& outer, const CronSchedule& inner) {
  auto within = [](std::uint64_t a, std::uint64_t b) { return (a & ~b) == 0; };
  if (!within(inner.minutes, outer.minutes) || !within(inner.hours, outer.hours) ||
      !within(inner.months, outer.months)) {
    return false;
  }
  // Every pairing of day of month and weekday occurs in some month.
  for (unsigned d = 1; d <= 31; ++d) {
    for (unsigned wd = 0; wd < 7; ++wd) {
      if (day_matches(inner, d, wd) && !day_matches(outer, d, wd)) return false;
    }
  }
  return true;
}

}  // namespace windowctl
