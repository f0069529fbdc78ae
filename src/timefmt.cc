#include "timefmt.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "text.h"

namespace windowctl {

using namespace std::chrono;

namespace {

std::string format(sys_seconds secs, std::optional<nanoseconds> nanos) {
  auto day = floor<days>(secs);
  year_month_day ymd{day};
  hh_mm_ss hms{secs - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()));
  std::string out = buf;
  if (nanos) {
    std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(nanos->count()));
    out += buf;
  }
  return out + "Z";
}

bool read_int(std::string_view s, std::size_t pos, std::size_t len, int& out) {
  if (pos + len > s.size()) return false;
  for (std::size_t i = pos; i < pos + len; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return true;
}

// Whole seconds (in 64 bits they span every year RFC 3339 can write) and the fraction.
struct Parsed {
  sys_seconds secs;
  nanoseconds frac;
};

std::optional<Parsed> parse(std::string_view s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!read_int(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !read_int(s, 5, 2, mo) || s[7] != '-' ||
      !read_int(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !read_int(s, 11, 2, h) ||
      s[13] != ':' || !read_int(s, 14, 2, mi) || s[16] != ':' || !read_int(s, 17, 2, se)) {
    return std::nullopt;
  }
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || se > 60) return std::nullopt;
  std::size_t pos = 19;
  nanoseconds frac{0};
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    long long scale = 100000000, ns = 0;
    std::size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      ns += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
    frac = nanoseconds(ns);
  }
  if (pos >= s.size()) return std::nullopt;
  minutes offset{0};
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (!read_int(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !read_int(s, pos + 4, 2, om))
      return std::nullopt;
    if (oh > 23 || om > 59) return std::nullopt;
    offset = hours(oh) + minutes(om);
    if (s[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  return Parsed{sys_days(ymd) + hours(h) + minutes(mi) + seconds(se) - offset, frac};
}

// The SysTime of a parsed time, or nullopt when it lies beyond SysTime's range.
std::optional<SysTime> exact(const Parsed& p) {
  SysTime::rep secs = p.secs.time_since_epoch().count(), frac = p.frac.count();
  // Before 1970 the seconds are borrowed from, so that 1677-09-21T00:12:43.9Z, within the
  // range, does not overflow on its way in.
  if (secs < 0 && frac > 0) {
    secs += 1;
    frac -= 1000000000;
  }
  SysTime::rep ns;
  if (__builtin_mul_overflow(secs, SysTime::rep{1000000000}, &ns) || __builtin_add_overflow(ns, frac, &ns))
    return std::nullopt;
  return SysTime(nanoseconds(ns));
}

}  // namespace

std::string rfc3339(SysTime t) { return format(floor<seconds>(t), std::nullopt); }
std::string rfc3339(sys_seconds t) { return format(t, std::nullopt); }
std::string rfc3339_nano(SysTime t) {
  // In integers: before 1677-09-21T00:12:44Z the whole second lies outside SysTime's range,
  // so t - floor<seconds>(t) would overflow on the way.
  SysTime::rep count = t.time_since_epoch().count(), frac = count % 1000000000;
  SysTime::rep secs = count / 1000000000;
  if (frac < 0) {
    frac += 1000000000;
    secs -= 1;
  }
  return format(sys_seconds(seconds(secs)), nanoseconds(frac));
}

std::optional<SysTime> parse_rfc3339(std::string_view text) {
  auto p = parse(text);
  return p ? exact(*p) : std::nullopt;
}

std::optional<SysTime> parse_rfc3339_saturated(std::string_view text) {
  auto p = parse(text);
  if (!p) return std::nullopt;
  if (auto t = exact(*p)) return t;
  return p->secs < sys_seconds{} ? SysTime::min() : SysTime::max();
}

std::string rfc3339_problem(std::string_view text) {
  auto p = parse(text);
  if (!p) return "is not an RFC 3339 time such as 2026-03-29T01:30:00Z";
  if (exact(*p)) return {};
  return p->secs < sys_seconds{} ? "is before " + rfc3339(kFirstTime) + ", the first time windowctl can represent"
                                 : "is after " + rfc3339(kLastTime) + ", the last time windowctl can represent";
}

std::string human_duration(seconds d) {
  long long s = d.count();
  if (s < 0) s = 0;
  auto str = [](long long v, const char* unit) { return std::to_string(v) + unit; };
  if (s < 120) return str(s, "s");
  long long m = s / 60;
  if (m < 10) return s % 60 ? str(m, "m") + str(s % 60, "s") : str(m, "m");
  if (m < 180) return str(m, "m");
  long long h = m / 60;
  if (h < 8) return m % 60 ? str(h, "h") + str(m % 60, "m") : str(h, "h");
  if (h < 48) return str(h, "h");
  long long days_ = h / 24;
  if (days_ < 8) return h % 24 ? str(days_, "d") + str(h % 24, "h") : str(days_, "d");
  if (days_ < 730) return str(days_, "d");
  return str(days_ / 365, "y");
}

}  // namespace windowctl

namespace windowctl {

namespace {
struct Unit {
  std::string_view name;
  std::uint64_t ns;
};
// "ms" before "m"; U+00B5 (micro sign) and U+03BC (Greek mu) both spell µs, as in Go.
constexpr Unit kUnits[] = {{"ns", 1},       {"us", 1000},      {"\u00b5s", 1000},  {"\u03bcs", 1000},
                           {"ms", 1000000}, {"s", 1000000000}, {"m", 60000000000}, {"h", 3600000000000}};
}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return std::nullopt;
  constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::uint64_t total = 0;
  auto digit = [&](std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  while (!s.empty()) {
    // [digits][.digits]: at least one digit on either side of the point.
    std::size_t i = 0;
    std::uint64_t whole = 0;
    bool overflow = false;
    for (; digit(i); ++i) {
      overflow = overflow || __builtin_mul_overflow(whole, 10u, &whole) ||
                 __builtin_add_overflow(whole, unsigned(s[i] - '0'), &whole);
    }
    bool any = i > 0;
    std::uint64_t frac = 0, scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      for (; digit(i); ++i) {
        any = true;
        if (scale < 10000000000000000000u) {  // 19 digits: finer than a nanosecond of any unit
          frac = frac * 10 + unsigned(s[i] - '0');
          scale *= 10;
        }
      }
    }
    if (!any) return std::nullopt;
    s.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const auto& u : kUnits) {
      if (s.substr(0, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (!unit) return std::nullopt;
    s.remove_prefix(unit->name.size());
    // frac < scale <= 10^19 and a unit is below 2^42: the product needs 128 bits, the
    // quotient (less than one unit) fits in 64.
    __extension__ using u128 = unsigned __int128;
    auto part = static_cast<std::uint64_t>(static_cast<u128>(frac) * unit->ns / scale);
    std::uint64_t value;
    if (overflow || __builtin_mul_overflow(whole, unit->ns, &value) || __builtin_add_overflow(value, part, &value) ||
        __builtin_add_overflow(total, value, &total) || total > kMax) {
      return std::nullopt;
    }
  }
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

std::string go_duration_problem(std::string_view s) {
  constexpr std::string_view kDigits = "0123456789.";
  // The unit as Go reads it: what follows the first number, up to the next one.
  const std::size_t i = s.find_first_not_of(kDigits), end = s.find_first_of(kDigits, i);
  const std::string_view unit = i == std::string_view::npos ? "" : s.substr(i, end - i);
  // No number first, or a unit Go knows: the fault is elsewhere (a sign, a space, the size).
  if (i == 0 || s.empty() ||
      std::any_of(std::begin(kUnits), std::end(kUnits), [&](const Unit& u) { return u.name == unit; })) {
    return "use a duration like 30s, 5m or 1h30m";
  }
  std::string out = "no unit";
  if (!unit.empty()) out.append(" \"").append(printable(unit, 16)).append("\"");
  // Days and weeks are what people write, and what Go (so kubectl, Flux and windowctl) lacks:
  // "2d" is exactly 48h; of "1.5d" or "1d12h" say what a day is.
  if (std::uint64_t hours = unit == "d" ? 24 : unit == "w" ? 168 : 0) {
    std::uint64_t n = 0;
    const bool whole = end == std::string_view::npos && i <= 6 && s.find('.') == std::string_view::npos;
    if (whole) {
      std::from_chars(s.data(), s.data() + i, n);
      hours *= n;
      out += ": use ";
    } else {
      out.append(": 1").append(unit).append(" is ");
    }
    out.append(std::to_string(hours)) += 'h';
  }
  return out.append(" (units: ns, us, ms, s, m, h)");
}

}  // namespace windowctl

namespace windowctl {

std::string human_until(std::chrono::seconds d) {
  long long s = std::max<long long>(d.count(), 0);
  long long days_ = s / 86400, hours_ = s % 86400 / 3600, minutes_ = s % 3600 / 60;
  if (days_ > 0) return std::to_string(days_) + "d" + (hours_ ? " " + std::to_string(hours_) + "h" : "");
  if (hours_ > 0) return std::to_string(hours_) + "h" + (minutes_ ? " " + std::to_string(minutes_) + "m" : "");
  if (minutes_ > 0) return std::to_string(minutes_) + "m";
  return std::to_string(s) + "s";
}

}  // namespace windowctl
