#include "timefmt.h"

#include <cctype>
#include <charconv>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace windowctl {

using namespace std::chrono;

namespace {

std::string format(SysTime t, bool nanos) {
  auto secs = floor<seconds>(t);
  auto day = floor<days>(secs);
  year_month_day ymd{day};
  hh_mm_ss hms{secs - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), static_cast<long>(hms.hours().count()),
                static_cast<long>(hms.minutes().count()), static_cast<long>(hms.seconds().count()));
  std::string out = buf;
  if (nanos) {
    auto ns = duration_cast<nanoseconds>(t - secs).count();
    std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(ns));
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

}  // namespace

std::string rfc3339(SysTime t) { return format(t, false); }
std::string rfc3339_nano(SysTime t) { return format(t, true); }

std::optional<SysTime> parse_rfc3339(std::string_view s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!read_int(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !read_int(s, 5, 2, mo) || s[7] != '-' ||
      !read_int(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !read_int(s, 11, 2, h) || s[13] != ':' ||
      !read_int(s, 14, 2, mi) || s[16] != ':' || !read_int(s, 17, 2, se)) {
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
    if (!read_int(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !read_int(s, pos + 4, 2, om)) return std::nullopt;
    offset = hours(oh) + minutes(om);
    if (s[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  auto t = sys_days(ymd) + hours(h) + minutes(mi) + seconds(se) + frac - offset;
  return time_point_cast<system_clock::duration>(t);
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

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return std::nullopt;
  struct Unit {
    std::string_view name;
    double ns;
  };
  static constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
  double total = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (i == 0) return std::nullopt;
    std::string number(s.substr(0, i));
    if (std::count(number.begin(), number.end(), '.') > 1 || number == ".") return std::nullopt;
    double value = std::strtod(number.c_str(), nullptr);
    s.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const auto& u : kUnits) {
      // Longest match first matters only for "ms" vs "m"; the table lists "ms" before "m".
      if (s.substr(0, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (!unit) return std::nullopt;
    s.remove_prefix(unit->name.size());
    total += value * unit->ns;
    if (total > 9.2e18) return std::nullopt;
  }
  return std::chrono::nanoseconds(static_cast<long long>(total));
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
