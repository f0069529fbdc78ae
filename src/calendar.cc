#include "calendar.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <utility>

#include "errors.h"
#include "text.h"

namespace windowctl {

using namespace std::chrono;

namespace {

struct WindowsZone {
  std::string_view windows, iana;
};
constexpr WindowsZone kWindowsZones[] = {
#include "windows_zones.inc"
};

// --- Content lines and components (RFC 5545 3.1, 3.4) -------------------------------------------

struct Param {
  std::string name;  // upper case
  std::vector<std::string> values;
};

struct Prop {
  std::string name;  // upper case
  std::vector<Param> params;
  std::string value;
  int line = 0;
  const Param* param(std::string_view name) const {
    for (const Param& p : params) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }
};

struct Component {
  std::string name;
  int line = 0;
  std::vector<Prop> props;
  std::vector<Component> children;
};

class Fail {
 public:
  explicit Fail(const std::string& path) : path_(path) {}
  [[noreturn]] void at(int line, std::string_view what, const std::string& detail) const {
    std::string text = "calendar " + path_;
    if (line > 0) text += " line " + std::to_string(line);
    text += ": ";
    if (!what.empty()) text += std::string(what) + ": ";
    throw ConfigError(text + detail);
  }
  [[noreturn]] void at(const Prop& p, const std::string& detail) const { at(p.line, p.name, detail); }

 private:
  const std::string& path_;
};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

// "NAME;P=a,\"b\":value" → Prop; nullopt when malformed.
std::optional<Prop> content_line(std::string_view s, int line) {
  Prop p;
  p.line = line;
  std::size_t i = 0;
  while (i < s.size() && name_char(s[i])) ++i;
  if (i == 0) return std::nullopt;
  p.name = upper(s.substr(0, i));
  while (i < s.size() && s[i] == ';') {
    std::size_t b = ++i;
    while (i < s.size() && name_char(s[i])) ++i;
    if (i == b || i >= s.size() || s[i] != '=') return std::nullopt;
    Param param;
    param.name = upper(s.substr(b, i - b));
    do {
      ++i;  // '=' or ','
      if (i < s.size() && s[i] == '"') {
        std::size_t e = s.find('"', i + 1);
        if (e == std::string_view::npos) return std::nullopt;
        param.values.emplace_back(s.substr(i + 1, e - i - 1));
        i = e + 1;
      } else {
        std::size_t e = i;
        while (e < s.size() && s[e] != ';' && s[e] != ':' && s[e] != ',' && s[e] != '"') ++e;
        param.values.emplace_back(s.substr(i, e - i));
        i = e;
      }
    } while (i < s.size() && s[i] == ',');
    p.params.push_back(std::move(param));
  }
  if (i >= s.size() || s[i] != ':') return std::nullopt;
  p.value = std::string(s.substr(i + 1));
  return p;
}

// Unfolds and parses the lines, and nests them into components.
std::vector<Component> components(std::string_view text, const Fail& fail) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (!valid_utf8(text)) fail.at(0, "", "not UTF-8 text");
  std::vector<Component> top;
  std::vector<Component> stack;
  std::string logical;
  int logical_line = 0;
  auto finish = [&] {
    if (logical_line == 0) return;
    auto prop = content_line(logical, logical_line);
    if (!prop) fail.at(logical_line, "", "not a content line (NAME[;PARAM=VALUE...]:VALUE)");
    if (prop->name == "BEGIN") {
      std::string name = upper(prop->value);
      if (stack.size() >= 3) fail.at(*prop, "component " + name + " nested too deeply");
      Component c;
      c.name = name;
      c.line = prop->line;
      stack.push_back(std::move(c));
    } else if (prop->name == "END") {
      if (stack.empty() || stack.back().name != upper(prop->value)) {
        fail.at(*prop, "END:" + prop->value + " does not close " +
                           (stack.empty() ? std::string("any component") : "BEGIN:" + stack.back().name));
      }
      Component c = std::move(stack.back());
      stack.pop_back();
      (stack.empty() ? top : stack.back().children).push_back(std::move(c));
    } else {
      if (stack.empty()) fail.at(*prop, "outside BEGIN:VCALENDAR");
      stack.back().props.push_back(std::move(*prop));
    }
    logical.clear();
    logical_line = 0;
  };
  int line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string_view physical = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line;
    if (!physical.empty() && physical.back() == '\r') physical.remove_suffix(1);
    for (char c : physical) {
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
        fail.at(line, "", "a control character (RFC 5545 allows none but tab)");
      }
    }
    if (!physical.empty() && (physical[0] == ' ' || physical[0] == '\t')) {
      if (logical_line == 0) fail.at(line, "", "a folded line continues nothing");
      logical.append(physical.substr(1));
      continue;
    }
    finish();
    if (physical.empty()) continue;
    logical.assign(physical);
    logical_line = line;
  }
  finish();
  if (!stack.empty())
    fail.at(stack.back().line, "BEGIN", stack.back().name + " is never closed (END:" + stack.back().name + ")");
  if (top.empty()) fail.at(0, "", "no BEGIN:VCALENDAR");
  for (const Component& c : top) {
    if (c.name != "VCALENDAR") fail.at(c.line, "BEGIN", c.name + " outside a VCALENDAR");
  }
  return top;
}

// TEXT values (RFC 5545 3.3.11): \\ \; \, \n \N.
std::string unescape_text(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) {
      char c = v[++i];
      out += (c == 'n' || c == 'N') ? ' ' : c;
    } else {
      out += v[i];
    }
  }
  return out;
}

// --- Values ---------------------------------------------------------------------------------------

struct When {
  bool is_date = false;
  local_seconds local{};  // wall time; a date at 00:00
  int zone = 0;           // index into Data::zones: 0 UTC, 1 floating
  bool operator==(const When&) const = default;
};

constexpr int kUtc = 0, kFloating = 1;

std::optional<int> digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

std::optional<local_days> parse_date(std::string_view s) {
  auto y = digits(s, 0, 4), m = digits(s, 4, 2), d = digits(s, 6, 2);
  if (!y || !m || !d || *y < 1) return std::nullopt;
  year_month_day ymd{year(*y), month(static_cast<unsigned>(*m)), day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  return local_days(ymd);
}

// DATE (YYYYMMDD) or DATE-TIME (YYYYMMDDTHHMMSS[Z]); `utc` says whether it ended in Z.
std::optional<When> parse_when(std::string_view s, bool& utc) {
  utc = false;
  When w;
  if (s.size() == 8) {
    auto d = parse_date(s);
    if (!d) return std::nullopt;
    w.is_date = true;
    w.local = local_seconds(*d);
    return w;
  }
  if (s.size() == 16 && s[15] == 'Z') {
    utc = true;
    s.remove_suffix(1);
  }
  if (s.size() != 15 || s[8] != 'T') return std::nullopt;
  auto d = parse_date(s.substr(0, 8));
  auto hh = digits(s, 9, 2), mm = digits(s, 11, 2), ss = digits(s, 13, 2);
  if (!d || !hh || !mm || !ss || *hh > 23 || *mm > 59 || *ss > 59) return std::nullopt;
  w.local = local_seconds(*d) + hours(*hh) + minutes(*mm) + seconds(*ss);
  return w;
}

// RFC 5545 3.3.6 DURATION: [+]P(nW | nD[TnH[nM][nS]] | TnH...). Days and weeks are nominal.
struct Length {
  days nominal{0};
  seconds exact{0};
};

std::optional<Length> parse_duration(std::string_view s) {
  Length out;
  std::size_t i = 0;
  if (i < s.size() && s[i] == '+') ++i;
  if (i >= s.size() || s[i] != 'P') return std::nullopt;
  ++i;
  bool time = false, any = false;
  while (i < s.size()) {
    if (s[i] == 'T') {
      if (time) return std::nullopt;
      time = true;
      ++i;
      continue;
    }
    std::int64_t n = 0;
    std::size_t b = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      n = n * 10 + (s[i] - '0');
      if (n > 100000000) return std::nullopt;
      ++i;
    }
    if (i == b || i >= s.size()) return std::nullopt;
    char unit = s[i++];
    any = true;
    if (!time && unit == 'W') {
      out.nominal += days(7 * n);
    } else if (!time && unit == 'D') {
      out.nominal += days(n);
    } else if (time && unit == 'H') {
      out.exact += hours(n);
    } else if (time && unit == 'M') {
      out.exact += minutes(n);
    } else if (time && unit == 'S') {
      out.exact += seconds(n);
    } else {
      return std::nullopt;
    }
  }
  if (!any) return std::nullopt;
  return out;
}

// --- Recurrence rules (RFC 5545 3.3.10) ------------------------------------------------------------

enum class Freq { kDaily, kWeekly, kMonthly, kYearly };

struct Rule {
  Freq freq = Freq::kDaily;
  int interval = 1;
  std::optional<std::uint64_t> count;
  std::optional<When> until;
  bool until_utc = false;
  std::uint8_t weekdays = 0;                      // plain BYDAY, bit n: weekday n (0 = Monday)
  std::vector<std::pair<int, int>> nth_weekdays;  // BYDAY with an ordinal: (n, weekday)
  std::uint16_t months = 0;                       // bit n: month n
  std::vector<int> monthdays;                     // BYMONTHDAY, negative from the end
  std::vector<int> setpos;
  int week_start = 0;  // WKST, 0 = Monday
};

constexpr std::array<std::string_view, 7> kWeekdays = {"MO", "TU", "WE", "TH", "FR", "SA", "SU"};

int weekday_index(local_days d) {  // 0 = Monday
  return static_cast<int>(weekday(d).iso_encoding()) - 1;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  while (true) {
    std::size_t e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) return out;
    b = e + 1;
  }
}

std::optional<int> signed_int(std::string_view s, int lo, int hi) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 6) return std::nullopt;
  auto v = digits(s, 0, s.size());
  if (!v) return std::nullopt;
  int n = neg ? -*v : *v;
  if (n < lo || n > hi || n == 0) return std::nullopt;
  return n;
}

Rule parse_rule(const Prop& p, const Fail& fail) {
  Rule r;
  bool have_freq = false;
  std::vector<std::string> seen;
  for (std::string_view part : split(p.value, ';')) {
    auto eq = part.find('=');
    if (eq == std::string_view::npos) fail.at(p, "\"" + std::string(part) + "\" is not NAME=VALUE");
    std::string name = upper(part.substr(0, eq));
    std::string_view value = part.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) fail.at(p, name + " appears twice");
    seen.push_back(name);
    auto bad = [&](const std::string& why) { fail.at(p, name + "=" + std::string(value) + ": " + why); };
    if (name == "FREQ") {
      have_freq = true;
      std::string f = upper(value);
      if (f == "DAILY") {
        r.freq = Freq::kDaily;
      } else if (f == "WEEKLY") {
        r.freq = Freq::kWeekly;
      } else if (f == "MONTHLY") {
        r.freq = Freq::kMonthly;
      } else if (f == "YEARLY") {
        r.freq = Freq::kYearly;
      } else {
        fail.at(p, "FREQ=" + std::string(value) + " is not supported (DAILY, WEEKLY, MONTHLY, YEARLY)");
      }
    } else if (name == "INTERVAL") {
      auto v = signed_int(value, 1, 100000);
      if (!v || value[0] == '-' || value[0] == '+') bad("not a positive integer up to 100000");
      r.interval = *v;
    } else if (name == "COUNT") {
      auto v = signed_int(value, 1, 999999);
      if (!v || value[0] == '-' || value[0] == '+') bad("not a positive integer up to 999999");
      r.count = static_cast<std::uint64_t>(*v);
    } else if (name == "UNTIL") {
      bool utc = false;
      auto w = parse_when(value, utc);
      if (!w) bad("not a DATE or DATE-TIME");
      r.until = w;
      r.until_utc = utc;
    } else if (name == "BYDAY") {
      for (std::string_view item : split(value, ',')) {
        std::string u = upper(item);
        if (u.size() < 2) bad("\"" + std::string(item) + "\" is not a weekday such as MO, 2TU or -1FR");
        auto wd = std::find(kWeekdays.begin(), kWeekdays.end(), std::string_view(u).substr(u.size() - 2));
        if (wd == kWeekdays.end()) bad("\"" + std::string(item) + "\" is not a weekday such as MO, 2TU or -1FR");
        int index = static_cast<int>(wd - kWeekdays.begin());
        std::string_view n = std::string_view(u).substr(0, u.size() - 2);
        if (n.empty()) {
          r.weekdays |= static_cast<std::uint8_t>(1u << index);
        } else {
          auto v = signed_int(n, -53, 53);
          if (!v) bad("ordinal \"" + std::string(n) + "\" out of range -53..53 (not 0)");
          r.nth_weekdays.emplace_back(*v, index);
        }
      }
    } else if (name == "BYMONTH") {
      for (std::string_view item : split(value, ',')) {
        auto v = signed_int(item, 1, 12);
        if (!v) bad("\"" + std::string(item) + "\" is not a month 1..12");
        r.months |= static_cast<std::uint16_t>(1u << *v);
      }
    } else if (name == "BYMONTHDAY") {
      for (std::string_view item : split(value, ',')) {
        auto v = signed_int(item, -31, 31);
        if (!v) bad("\"" + std::string(item) + "\" is not a day of the month 1..31 or -31..-1");
        r.monthdays.push_back(*v);
      }
    } else if (name == "BYSETPOS") {
      for (std::string_view item : split(value, ',')) {
        auto v = signed_int(item, -366, 366);
        if (!v) bad("\"" + std::string(item) + "\" is not a position 1..366 or -366..-1");
        r.setpos.push_back(*v);
      }
    } else if (name == "WKST") {
      auto wd = std::find(kWeekdays.begin(), kWeekdays.end(), upper(value));
      if (wd == kWeekdays.end()) bad("not a weekday (MO..SU)");
      r.week_start = static_cast<int>(wd - kWeekdays.begin());
    } else if (name == "BYHOUR" || name == "BYMINUTE" || name == "BYSECOND" || name == "BYWEEKNO" ||
               name == "BYYEARDAY") {
      fail.at(p, name + " is not supported (BYDAY, BYMONTH, BYMONTHDAY, BYSETPOS; times come from DTSTART)");
    } else {
      fail.at(p, "unknown rule part \"" + name + "\"");
    }
  }
  if (!have_freq) fail.at(p, "no FREQ");
  if (r.count && r.until) fail.at(p, "COUNT and UNTIL together (RFC 5545 allows one)");
  if (!r.nth_weekdays.empty() && r.freq != Freq::kMonthly && r.freq != Freq::kYearly) {
    fail.at(p, "BYDAY with an ordinal needs FREQ=MONTHLY or YEARLY");
  }
  if (r.freq == Freq::kWeekly && !r.monthdays.empty()) fail.at(p, "BYMONTHDAY with FREQ=WEEKLY (RFC 5545 forbids it)");
  if (!r.setpos.empty() && r.weekdays == 0 && r.nth_weekdays.empty() && r.monthdays.empty() && r.months == 0) {
    fail.at(p, "BYSETPOS needs another BYxxx part");
  }
  return r;
}

// The days of one period that the rule's BYxxx parts keep, in order (dateutil's and RFC 5545's
// expand-and-limit table for the parts supported).
class Expander {
 public:
  Expander(const Rule& r, local_days first) : r_(r), first_(first) {
    year_month_day ymd(first);
    weekdays_ = r.weekdays;
    monthdays_ = r.monthdays;
    months_ = r.months;
    // With no day part, the day comes from DTSTART.
    if (r.weekdays == 0 && r.nth_weekdays.empty() && r.monthdays.empty()) {
      if (r.freq == Freq::kWeekly) weekdays_ = static_cast<std::uint8_t>(1u << weekday_index(first));
      if (r.freq == Freq::kMonthly || r.freq == Freq::kYearly) monthdays_ = {static_cast<int>(unsigned(ymd.day()))};
      if (r.freq == Freq::kYearly && months_ == 0) months_ = static_cast<std::uint16_t>(1u << unsigned(ymd.month()));
    }
    // Weekly periods begin on WKST.
    int back = (weekday_index(first) - r.week_start + 7) % 7;
    week0_ = first - days(back);
    ym0_ = ymd.year() / ymd.month();
  }

  // The first day of period p.
  local_days begin(std::int64_t p) const {
    switch (r_.freq) {
      case Freq::kDaily: return first_ + days(p * r_.interval);
      case Freq::kWeekly: return week0_ + days(7 * p * r_.interval);
      case Freq::kMonthly: return local_days((ym0_ + months(p * r_.interval)) / 1);
      case Freq::kYearly: return local_days(year_month_day((ym0_.year() + years(p * r_.interval)) / January / 1));
    }
    return first_;
  }

  // The period holding day d, rounded down (p may be negative).
  std::int64_t period_of(local_days d) const {
    auto floor_div = [](std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
    year_month_day ymd(d);
    switch (r_.freq) {
      case Freq::kDaily: return floor_div((d - first_).count(), r_.interval);
      case Freq::kWeekly: return floor_div(floor_div((d - week0_).count(), 7), r_.interval);
      case Freq::kMonthly: {
        std::int64_t m =
            (int(ymd.year()) - int(ym0_.year())) * 12 + (int(unsigned(ymd.month())) - int(unsigned(ym0_.month())));
        return floor_div(m, r_.interval);
      }
      case Freq::kYearly: return floor_div(int(ymd.year()) - int(ym0_.year()), r_.interval);
    }
    return 0;
  }

  void days_of(std::int64_t p, std::vector<local_days>& out) const {
    out.clear();
    local_days b = begin(p);
    switch (r_.freq) {
      case Freq::kDaily:
        if (keep(b, b, b + days(1))) out.push_back(b);
        break;
      case Freq::kWeekly:
        for (int i = 0; i < 7; ++i) {
          if (keep(b + days(i), b, b + days(7))) out.push_back(b + days(i));
        }
        break;
      case Freq::kMonthly: month_days(b, out); break;
      case Freq::kYearly: {
        year y = year_month_day(b).year();
        if (months_ == 0 && !r_.nth_weekdays.empty()) {
          // Ordinals count within the year.
          local_days end = local_days((y + years(1)) / January / 1);
          for (local_days d = b; d < end; d += days(1)) {
            if (keep(d, b, end)) out.push_back(d);
          }
        } else {
          for (unsigned m = 1; m <= 12; ++m) {
            if (months_ != 0 && !(months_ >> m & 1)) continue;
            month_days(local_days(y / month(m) / 1), out);
          }
        }
        break;
      }
    }
    if (!r_.setpos.empty() && !out.empty()) {
      std::vector<local_days> picked;
      const auto n = static_cast<int>(out.size());
      for (int pos : r_.setpos) {
        int i = pos > 0 ? pos - 1 : n + pos;
        if (i >= 0 && i < n) picked.push_back(out[static_cast<std::size_t>(i)]);
      }
      std::sort(picked.begin(), picked.end());
      picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
      out = std::move(picked);
    }
  }

 private:
  void month_days(local_days b, std::vector<local_days>& out) const {
    year_month_day ymd(b);
    local_days end = local_days((ymd.year() / ymd.month() + months(1)) / 1);
    for (local_days d = b; d < end; d += days(1)) {
      if (keep(d, b, end)) out.push_back(d);
    }
  }

  // Whether day d of the span [b, e) (the ordinals' span) passes every part.
  bool keep(local_days d, local_days b, local_days e) const {
    year_month_day ymd(d);
    if (months_ != 0 && !(months_ >> unsigned(ymd.month()) & 1)) return false;
    if (!monthdays_.empty()) {
      const int day_of_month = static_cast<int>(unsigned(ymd.day()));
      const int last = static_cast<int>(unsigned((ymd.year() / ymd.month() / std::chrono::last).day()));
      bool hit = false;
      for (int v : monthdays_) hit = hit || v == day_of_month || (v < 0 && last + v + 1 == day_of_month);
      if (!hit) return false;
    }
    if (weekdays_ == 0 && r_.nth_weekdays.empty()) return true;
    const int wd = weekday_index(d);
    if (weekdays_ >> wd & 1) return true;
    for (auto [n, w] : r_.nth_weekdays) {
      if (w != wd) continue;
      if (n > 0 && (d - b).count() / 7 + 1 == n) return true;
      if (n < 0 && (e - d - days(1)).count() / 7 + 1 == -n) return true;
    }
    return false;
  }

  const Rule& r_;
  local_days first_, week0_;
  year_month ym0_{year(1970), January};
  std::uint8_t weekdays_ = 0;
  std::vector<int> monthdays_;
  std::uint16_t months_ = 0;
};

// --- VTIMEZONE ---------------------------------------------------------------------------------

std::string posix_offset(seconds utc_offset) {
  // POSIX counts west of Greenwich as positive.
  long s = -utc_offset.count();
  char sign = s < 0 ? '-' : '+';
  s = s < 0 ? -s : s;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%c%ld:%02ld:%02ld", sign, s / 3600, s / 60 % 60, s % 60);
  return buf;
}

std::string posix_name(seconds utc_offset) {
  long s = utc_offset.count();
  char sign = s < 0 ? '-' : '+';
  s = s < 0 ? -s : s;
  char buf[32];
  std::snprintf(buf, sizeof buf, "<%c%02ld%02ld>", sign, s / 3600, s / 60 % 60);
  return buf;
}

std::optional<seconds> parse_utc_offset(std::string_view s) {
  if (s.size() != 5 && s.size() != 7) return std::nullopt;
  if (s[0] != '+' && s[0] != '-') return std::nullopt;
  auto h = digits(s, 1, 2), m = digits(s, 3, 2);
  auto sec = s.size() == 7 ? digits(s, 5, 2) : std::optional<int>(0);
  if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 59) return std::nullopt;
  seconds v = hours(*h) + minutes(*m) + seconds(*sec);
  return s[0] == '-' ? -v : v;
}

struct Observance {
  int line = 0;
  local_seconds start{};
  seconds to{0};
  std::optional<Rule> rule;
  const Prop* rule_prop = nullptr;
};

// "M3.5.0/02:00:00" from a yearly rule on a weekday of a month.
std::string posix_date(const Observance& o, const std::string& tzid, const Fail& fail) {
  const Rule& r = *o.rule;
  auto refuse = [&](const std::string& why) {
    fail.at(o.rule_prop->line, "RRULE",
            "VTIMEZONE \"" + tzid + "\": " + why + "; name an IANA zone (TZID=Europe/Zurich) instead");
  };
  if (r.freq != Freq::kYearly || r.interval != 1 || r.count || std::popcount(r.months) != 1) {
    refuse("only a yearly rule in one month can be read as a zone rule");
  }
  if (r.until) refuse("a zone rule that ends (UNTIL) can only be read from the IANA database");
  unsigned month_number = static_cast<unsigned>(std::countr_zero(r.months));
  int week = 0, wd = -1;
  if (r.nth_weekdays.size() == 1 && r.weekdays == 0 && r.monthdays.empty()) {
    auto [n, w] = r.nth_weekdays[0];
    if (n == -1) {
      week = 5;
    } else if (n >= 1 && n <= 4) {
      week = n;
    }
    wd = w;
  } else if (r.nth_weekdays.empty() && std::popcount(r.weekdays) == 1 && r.monthdays.size() == 7) {
    // The older form: BYDAY=SU;BYMONTHDAY=8,9,10,11,12,13,14 is the second Sunday.
    std::vector<int> md = r.monthdays;
    std::sort(md.begin(), md.end());
    if (md.back() - md.front() == 6 && md.front() > 0 && (md.front() - 1) % 7 == 0 && md.front() <= 22) {
      week = (md.front() - 1) / 7 + 1;
    }
    wd = std::countr_zero(r.weekdays);
  }
  if (week == 0) refuse("only BYDAY=nWD (n 1..4 or -1) or BYDAY=WD;BYMONTHDAY=d..d+6 can be read as a zone rule");
  const int posix_weekday = (wd + 1) % 7;  // POSIX counts from Sunday
  auto tod = o.start - floor<days>(o.start);
  long s = static_cast<long>(duration_cast<seconds>(tod).count());
  char buf[64];
  std::snprintf(buf, sizeof buf, "M%u.%d.%d/%ld:%02ld:%02ld", month_number, week, posix_weekday, s / 3600, s / 60 % 60,
                s % 60);
  return buf;
}

TimeZone zone_from_vtimezone(const Component& tz, const std::string& tzid, const Fail& fail) {
  std::optional<Observance> standard, daylight;
  for (const Component& c : tz.children) {
    if (c.name != "STANDARD" && c.name != "DAYLIGHT") {
      fail.at(c.line, "BEGIN", "VTIMEZONE \"" + tzid + "\" holds " + c.name + " (STANDARD and DAYLIGHT only)");
    }
    Observance o;
    o.line = c.line;
    bool have_start = false, have_to = false;
    for (const Prop& p : c.props) {
      if (p.name == "DTSTART") {
        bool utc = false;
        auto w = parse_when(p.value, utc);
        if (!w || w->is_date || utc) fail.at(p, "\"" + p.value + "\" is not a local DATE-TIME");
        o.start = w->local;
        have_start = true;
      } else if (p.name == "TZOFFSETTO") {
        auto v = parse_utc_offset(p.value);
        if (!v) fail.at(p, "\"" + p.value + "\" is not a UTC offset such as +0100");
        o.to = *v;
        have_to = true;
      } else if (p.name == "RRULE") {
        o.rule = parse_rule(p, fail);
        o.rule_prop = &p;
      }
    }
    if (!have_start || !have_to) fail.at(c.line, c.name, "VTIMEZONE \"" + tzid + "\": needs DTSTART and TZOFFSETTO");
    // The latest observance of each kind holds the rules in force now and to come.
    auto& slot = c.name == "STANDARD" ? standard : daylight;
    if (!slot || o.start >= slot->start) slot = o;
  }
  if (!standard) fail.at(tz.line, "VTIMEZONE", "\"" + tzid + "\" has no STANDARD observance");
  std::string rule = posix_name(standard->to) + posix_offset(standard->to);
  // Daylight saving time that ended before the latest standard observance began is history.
  if (daylight && daylight->rule && standard->rule) {
    rule += posix_name(daylight->to) + posix_offset(daylight->to) + "," + posix_date(*daylight, tzid, fail) + "," +
            posix_date(*standard, tzid, fail);
  } else if (daylight && daylight->start > standard->start) {
    fail.at(daylight->line, "DAYLIGHT",
            "VTIMEZONE \"" + tzid +
                "\": a daylight observance without a yearly RRULE cannot be read as a zone rule; name an IANA zone "
                "instead");
  }
  return TimeZone::from_posix(tzid, rule);
}

// --- Events --------------------------------------------------------------------------------------

struct Extra {
  When start;
  std::optional<When> end;  // RDATE;VALUE=PERIOD
};

struct Event {
  int line = 0;
  std::uint32_t summary = 0;  // index into Data::summaries
  std::string uid;
  When start;
  bool has_end = false;
  seconds exact{0};  // DTEND - DTSTART for timed events, DURATION's time part
  days nominal{0};   // dates, DURATION's days
  std::optional<Rule> rule;
  std::vector<Extra> rdates;
  std::vector<When> exdates;
  std::optional<When> recurrence_id;
  bool cancelled = false;
};

}  // namespace

struct Calendar::Data {
  std::string path;
  std::vector<TimeZone> zones;  // 0 UTC, 1 floating, then one per TZID
  std::vector<Event> events;
  std::vector<std::string> summaries;
  // Per event: the original starts its overrides replace (sorted instants).
  std::vector<std::vector<sys_seconds>> overridden;
  seconds longest{0};

  sys_seconds instant(const When& w) const { return zones[static_cast<std::size_t>(w.zone)].resolve(w.local); }
  sys_seconds end_of(const Event& e, const When& start) const {
    if (e.nominal.count() == 0) return instant(start) + e.exact;
    When end = start;
    end.local += e.nominal;
    return instant(end) + e.exact;
  }
};

namespace {

class Reader {
 public:
  Reader(Calendar::Data& d, const Fail& fail) : d_(d), fail_(fail) {}

  void calendar(const Component& cal, const std::optional<TimeZone>& floating) {
    for (const Prop& p : cal.props) {
      if (p.name == "VERSION" && p.value != "2.0") fail_.at(p, "\"" + p.value + "\" (only 2.0 is iCalendar)");
      if (p.name == "CALSCALE" && upper(p.value) != "GREGORIAN") fail_.at(p, "only GREGORIAN is supported");
    }
    if (d_.zones.size() < 2) {
      d_.zones.emplace_back();  // UTC
      std::optional<TimeZone> zone = floating;
      if (!zone) {
        for (const Prop& p : cal.props) {
          if (p.name != "X-WR-TIMEZONE") continue;
          try {
            zone = TimeZone::load(p.value);
          } catch (const ConfigError& e) {
            fail_.at(p, e.what());
          }
        }
      }
      d_.zones.push_back(zone.value_or(TimeZone()));
    }
    for (const Component& c : cal.children) {
      if (c.name == "VTIMEZONE") {
        const Prop* tzid = nullptr;
        for (const Prop& p : c.props) {
          if (p.name == "TZID") tzid = &p;
        }
        if (!tzid) fail_.at(c.line, "VTIMEZONE", "no TZID");
        vtimezones_[tzid->value] = &c;
      } else if (c.name != "VEVENT") {
        fail_.at(c.line, "BEGIN",
                 c.name + " is not supported: a window calendar holds VEVENTs (and the VTIMEZONEs they name)");
      }
    }
    for (const Component& c : cal.children) {
      if (c.name == "VEVENT") event(c);
    }
  }

  void finish() {
    // Overrides replace the occurrence of their series that RECURRENCE-ID names.
    std::map<std::string, std::size_t> series;
    for (std::size_t i = 0; i < d_.events.size(); ++i) {
      if (!d_.events[i].recurrence_id) series.emplace(d_.events[i].uid, i);
    }
    d_.overridden.assign(d_.events.size(), {});
    std::vector<Event> kept;
    for (std::size_t i = 0; i < d_.events.size(); ++i) {
      const Event& e = d_.events[i];
      if (!e.recurrence_id) continue;
      auto it = series.find(e.uid);
      if (it != series.end()) d_.overridden[it->second].push_back(d_.instant(*e.recurrence_id));
    }
    // Cancelled events and overrides take nothing; the others keep their place.
    std::vector<std::vector<sys_seconds>> overridden;
    for (std::size_t i = 0; i < d_.events.size(); ++i) {
      if (d_.events[i].cancelled) continue;
      overridden.push_back(std::move(d_.overridden[i]));
      std::sort(overridden.back().begin(), overridden.back().end());
      kept.push_back(std::move(d_.events[i]));
    }
    d_.events = std::move(kept);
    d_.overridden = std::move(overridden);
    for (const Event& e : d_.events) {
      seconds len = e.exact + duration_cast<seconds>(e.nominal) + hours(e.nominal.count() ? 3 : 0);
      d_.longest = std::max(d_.longest, len);
      for (const Extra& x : e.rdates) {
        if (x.end) d_.longest = std::max(d_.longest, d_.instant(*x.end) - d_.instant(x.start));
      }
    }
  }

 private:
  int zone_index(const Prop& p) {
    const Param* tzid = p.param("TZID");
    if (!tzid) return kFloating;
    if (tzid->values.size() != 1) fail_.at(p, "TZID with more than one value");
    std::string name = tzid->values[0];
    auto known = zone_ids_.find(name);
    if (known != zone_ids_.end()) return known->second;
    std::optional<TimeZone> zone;
    std::string lookup = !name.empty() && name[0] == '/' ? name.substr(1) : name;
    if (valid_zone_name(lookup)) {
      try {
        zone = TimeZone::load(lookup);
      } catch (const ConfigError&) {
      }
    }
    if (!zone) {
      auto tz = vtimezones_.find(name);
      if (tz != vtimezones_.end()) {
        zone = zone_from_vtimezone(*tz->second, name, fail_);
      } else if (const char* iana = windows_zone_to_iana(name)) {
        try {
          zone = TimeZone::load(iana);
        } catch (const ConfigError& e) {
          fail_.at(p, "TZID \"" + name + "\" is the Windows name of " + iana + ": " + e.what());
        }
      } else {
        fail_.at(
            p, "TZID \"" + name + "\" is no IANA zone, no VTIMEZONE of this file and no Windows zone name CLDR knows");
      }
    }
    d_.zones.push_back(*zone);
    int index = static_cast<int>(d_.zones.size() - 1);
    zone_ids_.emplace(name, index);
    return index;
  }

  When when(const Prop& p) {
    const Param* value = p.param("VALUE");
    bool utc = false;
    auto w = parse_when(p.value, utc);
    std::string type = value && !value->values.empty() ? upper(value->values[0]) : "";
    if (!w || (type == "DATE" && !w->is_date) || (type == "DATE-TIME" && w->is_date) ||
        (!type.empty() && type != "DATE" && type != "DATE-TIME")) {
      fail_.at(p, "\"" + p.value + "\" is not a DATE (20261224) or DATE-TIME (20261224T080000[Z])");
    }
    if (utc && p.param("TZID")) fail_.at(p, "a UTC time (Z) with a TZID");
    w->zone = utc ? kUtc : w->is_date ? kFloating : zone_index(p);
    return *w;
  }

  // Comma-separated values of RDATE and EXDATE, each with the property's parameters.
  template <typename F>
  void each_value(const Prop& p, F&& f) {
    for (std::string_view v : split(p.value, ',')) {
      Prop one = p;
      one.value = std::string(v);
      f(one);
    }
  }

  void event(const Component& c) {
    if (d_.events.size() >= kCalendarMaxEvents) {
      fail_.at(c.line, "VEVENT", "more than " + std::to_string(kCalendarMaxEvents) + " events (the cap)");
    }
    for (const Component& child : c.children) {
      if (child.name != "VALARM") fail_.at(child.line, "BEGIN", child.name + " inside a VEVENT is not supported");
    }
    Event e;
    e.line = c.line;
    const Prop *start = nullptr, *end = nullptr, *duration = nullptr, *rule = nullptr, *summary = nullptr;
    auto once = [&](const Prop*& slot, const Prop& p) {
      if (slot) fail_.at(p, "appears twice in one event (first on line " + std::to_string(slot->line) + ")");
      slot = &p;
    };
    for (const Prop& p : c.props) {
      if (p.name == "DTSTART") {
        once(start, p);
      } else if (p.name == "DTEND") {
        once(end, p);
      } else if (p.name == "DURATION") {
        once(duration, p);
      } else if (p.name == "RRULE") {
        once(rule, p);
      } else if (p.name == "SUMMARY") {
        once(summary, p);
      } else if (p.name == "UID") {
        e.uid = p.value;
      } else if (p.name == "STATUS") {
        e.cancelled = upper(p.value) == "CANCELLED";
      } else if (p.name == "EXRULE") {
        fail_.at(p, "not supported (RFC 5545 deprecates it): list the dates in EXDATE");
      } else if (p.name == "RECURRENCE-ID") {
        if (p.param("RANGE")) fail_.at(p, "RANGE is not supported: override each occurrence");
        if (e.recurrence_id) fail_.at(p, "appears twice in one event");
        e.recurrence_id = when(p);
      }
    }
    if (!start) fail_.at(c.line, "VEVENT", "no DTSTART");
    e.start = when(*start);
    if (end && duration) fail_.at(*duration, "DTEND and DURATION together (RFC 5545 allows one)");
    if (end) {
      When w = when(*end);
      if (w.is_date != e.start.is_date)
        fail_.at(*end, "DTEND is a " + std::string(w.is_date ? "DATE" : "DATE-TIME") + " and DTSTART is not");
      if (e.start.is_date) {
        e.nominal = floor<days>(w.local) - floor<days>(e.start.local);
        if (e.nominal <= days(0)) fail_.at(*end, "DTEND is not after DTSTART");
      } else {
        e.exact = d_.instant(w) - d_.instant(e.start);
        if (e.exact <= seconds(0)) fail_.at(*end, "DTEND is not after DTSTART");
      }
    } else if (duration) {
      auto len = parse_duration(duration->value);
      if (!len) fail_.at(*duration, "\"" + duration->value + "\" is not a positive duration such as PT1H or P1D");
      if (e.start.is_date && len->exact.count() != 0) fail_.at(*duration, "an all-day event lasts whole days");
      e.nominal = len->nominal;
      e.exact = len->exact;
      if (e.nominal.count() == 0 && e.exact.count() == 0) fail_.at(*duration, "the event takes no time");
    } else if (e.start.is_date) {
      e.nominal = days(1);  // RFC 5545 3.6.1: an all-day event without an end lasts the day
    } else {
      fail_.at(start->line, "VEVENT", "no DTEND or DURATION: a timed event without one takes no time");
    }
    if (e.exact > hours(24 * 3660) || e.nominal > days(3660)) fail_.at(c.line, "VEVENT", "longer than 10 years");
    if (rule) {
      if (e.recurrence_id) fail_.at(*rule, "an override (RECURRENCE-ID) with its own RRULE is not supported");
      e.rule = parse_rule(*rule, fail_);
      if (e.rule->until && e.rule->until->is_date != e.start.is_date && e.start.is_date) {
        fail_.at(*rule, "UNTIL is a DATE-TIME and DTSTART a DATE");
      }
      if (e.rule->until) {
        if (e.rule->until_utc) {
          e.rule->until->zone = kUtc;
        } else {
          e.rule->until->zone = e.start.zone;
        }
      }
    }
    for (const Prop& p : c.props) {
      if (p.name == "RDATE") {
        const Param* value = p.param("VALUE");
        bool period = value && !value->values.empty() && upper(value->values[0]) == "PERIOD";
        each_value(p, [&](Prop& one) {
          if (!period) {
            e.rdates.push_back({when(one), std::nullopt});
            return;
          }
          auto slash = one.value.find('/');
          if (slash == std::string::npos)
            fail_.at(p, "\"" + one.value + "\" is not a PERIOD (START/END or START/DURATION)");
          Prop first = one;
          first.value = one.value.substr(0, slash);
          first.params.clear();
          if (const Param* tz = p.param("TZID")) first.params.push_back(*tz);
          Extra x{when(first), std::nullopt};
          std::string second = one.value.substr(slash + 1);
          if (!second.empty() && (second[0] == 'P' || second[0] == '+')) {
            auto len = parse_duration(second);
            if (!len) fail_.at(p, "\"" + second + "\" is not a duration");
            When w = x.start;
            w.local += len->nominal;
            w.local += len->exact;  // as wall time; resolved below
            x.end = w;
          } else {
            Prop last = first;
            last.value = second;
            x.end = when(last);
          }
          if (x.start.is_date || d_.instant(*x.end) <= d_.instant(x.start)) {
            fail_.at(p, "\"" + one.value + "\" is not a PERIOD of two DATE-TIMEs, the end after the start");
          }
          e.rdates.push_back(x);
        });
      } else if (p.name == "EXDATE") {
        each_value(p, [&](Prop& one) { e.exdates.push_back(when(one)); });
      }
    }
    if (e.recurrence_id && e.uid.empty()) fail_.at(c.line, "VEVENT", "an override (RECURRENCE-ID) without a UID");
    std::string name = summary ? printable(utf8_prefix(unescape_text(summary->value), 200), 200) : "";
    e.summary = static_cast<std::uint32_t>(d_.summaries.size());
    d_.summaries.push_back(std::move(name));
    d_.events.push_back(std::move(e));
  }

  Calendar::Data& d_;
  const Fail& fail_;
  std::map<std::string, const Component*> vtimezones_;
  std::map<std::string, int> zone_ids_;
};

class Spans {
 public:
  Spans(const Calendar::Data& d, sys_seconds from, sys_seconds to) : d_(d), from_(from), to_(to) {}

  void event(const Event& e, const std::vector<sys_seconds>& overridden) {
    const sys_seconds first = d_.instant(e.start);
    std::vector<sys_seconds> excluded;
    for (const When& x : e.exdates) excluded.push_back(d_.instant(x));
    std::sort(excluded.begin(), excluded.end());
    auto skip = [&](sys_seconds s) {
      return std::binary_search(excluded.begin(), excluded.end(), s) ||
             std::binary_search(overridden.begin(), overridden.end(), s);
    };
    auto add = [&](sys_seconds s, sys_seconds end) {
      if (end <= from_ || s >= to_ || skip(s)) return;
      if (out_.size() >= kCalendarMaxSpans) {
        fail("more than " + std::to_string(kCalendarMaxSpans) + " occurrences between " + text(from_) + " and " +
             text(to_) + " (the cap)");
      }
      out_.push_back({s, end, e.summary});
    };
    add(first, d_.end_of(e, e.start));
    for (const Extra& x : e.rdates) {
      sys_seconds s = d_.instant(x.start);
      add(s, x.end ? d_.instant(*x.end) : d_.end_of(e, x.start));
    }
    if (!e.rule) return;
    const Rule& r = *e.rule;
    const local_days day0 = floor<days>(e.start.local);
    const auto tod = e.start.local - day0;
    Expander expander(r, day0);
    std::optional<sys_seconds> until;
    if (r.until) until = d_.instant(*r.until);
    // Without COUNT, periods before the question cannot matter: start a little before it. The
    // margin covers the event's length and any offset between wall time and UTC.
    std::int64_t p = 0;
    if (!r.count) {
      sys_seconds early = from_ - d_.longest - days(3);
      if (early > first)
        p = std::max<std::int64_t>(0, expander.period_of(local_days(floor<days>(early).time_since_epoch())) - 1);
    }
    std::uint64_t produced = 1;  // DTSTART
    std::vector<local_days> days_in;
    for (;; ++p) {
      if (++steps_ > kCalendarMaxSteps) {
        fail("the recurrence rules step through more than " + std::to_string(kCalendarMaxSteps) + " periods between " +
             text(from_) + " and " + text(to_) + " (the cap), at the event on line " + std::to_string(e.line));
      }
      local_days b = expander.begin(p);
      if (sys_seconds(b.time_since_epoch()) - days(2) >= to_) return;
      expander.days_of(p, days_in);
      for (local_days d : days_in) {
        When w = e.start;
        w.local = d + tod;
        sys_seconds s = d_.instant(w);
        if (s <= first) continue;
        if (until && s > *until) return;
        if (r.count && produced >= *r.count) return;
        ++produced;
        add(s, d_.end_of(e, w));
      }
    }
  }

  std::vector<CalendarSpan> take() {
    std::sort(out_.begin(), out_.end(), [](const CalendarSpan& a, const CalendarSpan& b) {
      // Fully ordered, so one question asked twice, or over a part of its range, lists ties alike.
      if (a.start != b.start) return a.start < b.start;
      return a.end != b.end ? a.end < b.end : a.event < b.event;
    });
    return std::move(out_);
  }

 private:
  static std::string text(sys_seconds t) {
    year_month_day ymd(floor<days>(t));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", int(ymd.year()), unsigned(ymd.month()), unsigned(ymd.day()));
    return buf;
  }
  [[noreturn]] void fail(const std::string& detail) const { throw ConfigError("calendar " + d_.path + ": " + detail); }

  const Calendar::Data& d_;
  sys_seconds from_, to_;
  std::vector<CalendarSpan> out_;
  std::uint64_t steps_ = 0;
};

}  // namespace

const std::string& Calendar::path() const { return data_->path; }
const TimeZone& Calendar::zone() const { return data_->zones[kFloating]; }
std::size_t Calendar::size() const { return data_->events.size(); }
seconds Calendar::longest() const { return data_->longest; }
const std::string& Calendar::summary(std::uint32_t event) const { return data_->summaries.at(event); }

std::vector<CalendarSpan> Calendar::spans(sys_seconds from, sys_seconds to) const {
  Spans spans(*data_, from, to);
  for (std::size_t i = 0; i < data_->events.size(); ++i) spans.event(data_->events[i], data_->overridden[i]);
  return spans.take();
}

Calendar parse_calendar(std::string_view text, const std::string& path, const std::optional<TimeZone>& floating) {
  auto d = std::make_shared<Calendar::Data>();
  d->path = path;
  Fail fail(d->path);
  if (text.size() > kCalendarMaxBytes) {
    fail.at(0, "", "larger than " + std::to_string(kCalendarMaxBytes >> 20) + " MiB (the cap)");
  }
  auto tree = components(text, fail);
  Reader reader(*d, fail);
  for (const Component& cal : tree) reader.calendar(cal, floating);
  reader.finish();
  return Calendar(std::move(d));
}

Calendar load_calendar(const std::string& path, const std::optional<TimeZone>& floating) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read calendar " + path + ": " + std::strerror(errno));
  // In pieces, so a small file costs little and a huge one (or a pipe) no more than the cap.
  std::string text;
  char buf[65536];
  while (text.size() <= kCalendarMaxBytes && in.read(buf, sizeof buf).gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw ConfigError("cannot read calendar " + path + ": " + std::strerror(errno));
  return parse_calendar(text, path, floating);
}

const char* windows_zone_to_iana(std::string_view windows_name) {
  auto it = std::lower_bound(std::begin(kWindowsZones), std::end(kWindowsZones), windows_name,
                             [](const WindowsZone& z, std::string_view n) { return z.windows < n; });
  if (it == std::end(kWindowsZones) || it->windows != windows_name) return nullptr;
  return it->iana.data();
}

}  // namespace windowctl
