#include "zone.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>

#include "errors.h"
#include "util.h"

namespace windowctl {

using namespace std::chrono;

namespace {

constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

struct Type {
  std::int32_t offset = 0;  // seconds east of UTC
  bool dst = false;
  std::string abbr;
};

// When a POSIX TZ rule switches: Jn (1-365, February 29 never counted), n (0-365, counted) or
// Mm.w.d (weekday d of week w of month m, 5 = last), at `time` seconds of local time.
struct Rule {
  enum Kind { kJulian1, kJulian0, kMonthWeek } kind = kMonthWeek;
  int day = 0, week = 0, month = 0;
  std::int64_t time = 7200;  // 02:00, the POSIX default
};

struct Posix {
  Type standard, daylight;
  bool has_dst = false;
  Rule start, end;  // start is read in standard time, end in daylight time
};

std::int64_t days_from_civil(int y, unsigned m, unsigned d) {
  return sys_days(year{y} / month{m} / day{d}).time_since_epoch().count();
}

// POSIX rules are evaluated within years -29000 to 29000 (std::chrono::year ends at 32767); an
// instant beyond is read as that range's first or last, so the rule's answer stays one function.
constexpr std::int64_t kPosixFirst = sys_seconds(sys_days(year{-29000} / 1 / 1)).time_since_epoch().count();
constexpr std::int64_t kPosixLast = sys_seconds(sys_days(year{29000} / 1 / 1)).time_since_epoch().count();

int year_of(std::int64_t t) {
  t = std::clamp(t, kPosixFirst, kPosixLast);
  return static_cast<int>(year_month_day{floor<days>(sys_seconds{seconds{t}})}.year());
}

bool leap(int y) { return year{y}.is_leap(); }

// Days since the epoch of the rule's date in year y.
std::int64_t rule_day(const Rule& r, int y) {
  std::int64_t jan1 = days_from_civil(y, 1, 1);
  switch (r.kind) {
    case Rule::kJulian1: return jan1 + r.day - 1 + (leap(y) && r.day >= 60 ? 1 : 0);
    case Rule::kJulian0: return jan1 + r.day;
    case Rule::kMonthWeek: {
      std::int64_t first = days_from_civil(y, static_cast<unsigned>(r.month), 1);
      unsigned first_wd = weekday{sys_days{days{first}}}.c_encoding();
      int length = static_cast<int>(
          static_cast<unsigned>(year_month_day_last{year{y} / month{static_cast<unsigned>(r.month)} / last}.day()));
      int d = (r.day - static_cast<int>(first_wd) + 7) % 7 + (r.week - 1) * 7;
      while (d >= length) d -= 7;  // week 5 means the last one
      return first + d;
    }
  }
  return jan1;
}

struct Event {
  std::int64_t at;
  bool dst;
};

// The switches of years [from, to], in time order; of switches at one instant the later year's
// comes last, so "DST all year" rules (J365/25 ending as the next year starts) come out as one
// long stretch of daylight time.
struct Events {
  std::array<Event, 12> list;
  std::size_t size = 0;
  void push_back(const Event& e) { list[size++] = e; }
  const Event* begin() const { return list.data(); }
  const Event* end() const { return list.data() + size; }
};

Events events(const Posix& p, int from, int to) {  // at most six years
  Events out;
  for (int y = from; y <= to; ++y) {
    std::int64_t start = rule_day(p.start, y) * 86400 + p.start.time - p.standard.offset;
    std::int64_t end = rule_day(p.end, y) * 86400 + p.end.time - p.daylight.offset;
    if (start <= end) {
      out.push_back({start, true});
      out.push_back({end, false});
    } else {
      out.push_back({end, false});
      out.push_back({start, true});
    }
  }
  std::stable_sort(out.list.begin(), out.list.begin() + static_cast<std::ptrdiff_t>(out.size),
                   [](const Event& a, const Event& b) { return a.at < b.at; });
  return out;
}

// A year's switches lie within ten days of it: rule days run to January 1 of the next year
// (day 365 of a common year), rule times to 167 hours either way, offsets to 26 hours.
constexpr std::int64_t kSwitchReach = 10 * 86400;

// Daylight time is on at t when the latest switch at or before t (of any year) starts it. A
// year's switches can both lie in the next January (J365/100,J365/120), so for an instant of
// year y that latest switch may be year y-2's; year y+1's can come in December of y.
bool posix_dst(const Posix& p, std::int64_t t) {
  t = std::clamp(t, kPosixFirst, kPosixLast);
  int y = year_of(t);
  bool dst = false;
  for (const Event& e : events(p, y - 2, y + 1)) {
    if (e.at > t) break;
    dst = e.dst;
  }
  return dst;
}

const Type& posix_at(const Posix& p, std::int64_t t) { return p.has_dst && posix_dst(p, t) ? p.daylight : p.standard; }

// The first instant after t at which posix_at's offset differs from `prev`, searching until
// year `last`. The state changes only at switches, and each one is read back through
// posix_at, so this agrees with it by construction (ties, overlaps and all).
std::optional<std::pair<std::int64_t, std::int32_t>> posix_change(const Posix& p, std::int64_t t, std::int32_t prev,
                                                                  int last) {
  if (t >= kPosixLast) return std::nullopt;
  // Years [a, a+4] hold every switch before January 1 of a+5 minus kSwitchReach; the next
  // window starts at a+4, whose switches may lie beyond that bound.
  for (int a = year_of(t) - 1; a <= last; a += 4) {
    std::int64_t bound = std::min(days_from_civil(a + 5, 1, 1) * 86400 - kSwitchReach, kPosixLast + 1);
    for (const Event& e : events(p, a, a + 4)) {
      if (e.at <= t || e.at >= bound) continue;
      std::int32_t o = posix_at(p, e.at).offset;
      if (o != prev) return std::pair{e.at, o};
    }
    if (bound > kPosixLast) break;
    t = std::max(t, bound - 1);
  }
  return std::nullopt;
}

// --- POSIX TZ strings ------------------------------------------------------------------------

struct PosixParser {
  std::string_view s;
  std::size_t i = 0;

  bool done() const { return i >= s.size(); }
  char peek() const { return done() ? '\0' : s[i]; }

  bool name(std::string& out) {
    if (peek() == '<') {
      auto close = s.find('>', i);
      if (close == std::string_view::npos) return false;
      out = std::string(s.substr(i + 1, close - i - 1));
      i = close + 1;
      return !out.empty();
    }
    std::size_t start = i;
    while (!done() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    out = std::string(s.substr(start, i - start));
    return out.size() >= 3;
  }

  bool number(int& out, int max) {
    std::size_t start = i;
    out = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 3) out = out * 10 + (s[i++] - '0');
    return i > start && out <= max;
  }

  // [+-]hh[:mm[:ss]], hours up to 167 as RFC 8536 allows for rule times.
  bool hms(std::int64_t& out, int max_hours) {
    int sign = 1;
    if (peek() == '+' || peek() == '-') sign = s[i++] == '-' ? -1 : 1;
    int h, m = 0, sec = 0;
    if (!number(h, max_hours)) return false;
    if (peek() == ':') {
      ++i;
      if (!number(m, 59)) return false;
      if (peek() == ':') {
        ++i;
        if (!number(sec, 59)) return false;
      }
    }
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }

  bool rule(Rule& r) {
    if (peek() == 'J') {
      ++i;
      r.kind = Rule::kJulian1;
      if (!number(r.day, 365) || r.day < 1) return false;
    } else if (peek() == 'M') {
      ++i;
      r.kind = Rule::kMonthWeek;
      if (!number(r.month, 12) || r.month < 1 || peek() != '.') return false;
      ++i;
      if (!number(r.week, 5) || r.week < 1 || peek() != '.') return false;
      ++i;
      if (!number(r.day, 6)) return false;
    } else {
      r.kind = Rule::kJulian0;
      if (!number(r.day, 365)) return false;
    }
    r.time = 7200;
    if (peek() == '/') {
      ++i;
      if (!hms(r.time, 167)) return false;
    }
    return true;
  }

  bool parse(Posix& p) {
    std::int64_t off;
    if (!name(p.standard.abbr) || !hms(off, 24)) return false;
    p.standard.offset = static_cast<std::int32_t>(-off);  // POSIX counts west of Greenwich
    if (done()) return true;
    p.has_dst = true;
    p.daylight.dst = true;
    if (!name(p.daylight.abbr)) return false;
    p.daylight.offset = p.standard.offset + 3600;
    if (peek() != ',' && !done()) {
      if (!hms(off, 24)) return false;
      p.daylight.offset = static_cast<std::int32_t>(-off);
    }
    if (done()) {
      // No rule given: POSIX leaves it to the implementation; the US one is the usual choice.
      p.start = {Rule::kMonthWeek, 0, 2, 3, 7200};
      p.end = {Rule::kMonthWeek, 0, 1, 11, 7200};
      return true;
    }
    if (peek() != ',') return false;
    ++i;
    if (!rule(p.start) || peek() != ',') return false;
    ++i;
    return rule(p.end) && done();
  }
};

Posix parse_posix(const std::string& zone, std::string_view text) {
  Posix p;
  PosixParser parser{text};
  if (!parser.parse(p)) {
    throw ConfigError("time zone \"" + zone + "\": bad POSIX TZ rule \"" + std::string(text) + "\"");
  }
  return p;
}

// --- TZif ------------------------------------------------------------------------------------

struct Reader {
  std::string_view data;
  std::size_t pos = 0;
  bool ok = true;

  std::string_view take(std::size_t n) {
    if (!ok || data.size() - pos < n) {
      ok = false;
      return {};
    }
    auto out = data.substr(pos, n);
    pos += n;
    return out;
  }
  std::int64_t be(std::size_t n) {
    auto b = take(n);
    if (!ok) return 0;
    std::uint64_t v = 0;
    for (char c : b) v = v << 8 | static_cast<unsigned char>(c);
    if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    return static_cast<std::int64_t>(v);
  }
};

struct Header {
  char version = 0;
  std::int64_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
};

bool header(Reader& r, Header& h) {
  if (r.take(4) != "TZif") return false;
  auto v = r.take(1);
  if (!r.ok) return false;
  h.version = v[0];
  r.take(15);
  h.isut = r.be(4);
  h.isstd = r.be(4);
  h.leap = r.be(4);
  h.time = r.be(4);
  h.type = r.be(4);
  h.chars = r.be(4);
  return r.ok && h.isut >= 0 && h.isstd >= 0 && h.leap >= 0 && h.time >= 0 && h.type > 0 && h.type <= 256 &&
         h.chars > 0 && h.time < 100000 && h.chars < 100000 && h.isut < 1000 && h.isstd < 1000 && h.leap < 100000;
}

std::size_t block_size(const Header& h, std::size_t time_size) {
  return static_cast<std::size_t>(h.time * time_size + h.time + h.type * 6 + h.chars + h.leap * (time_size + 4) +
                                  h.isstd + h.isut);
}

}  // namespace

struct TimeZone::Data {
  std::string name;
  std::vector<std::int64_t> times;  // transitions, UTC, ascending
  std::vector<std::uint8_t> index;  // type after each transition
  std::vector<Type> types;          // types[0] applies before the first transition
  std::optional<Posix> posix;       // after the last transition
  bool posix_changes = false;       // the rule changes the offset at all
  std::int32_t min_off = 0, max_off = 0;

  const Type& at(std::int64_t t) const {
    if (times.empty()) return posix ? posix_at(*posix, t) : types[0];
    if (t < times.front()) return types[0];
    if (t >= times.back() && posix) return posix_at(*posix, t);
    auto it = std::upper_bound(times.begin(), times.end(), t);
    return types[index[static_cast<std::size_t>(it - times.begin()) - 1]];
  }

  // The first offset change after t: when, and to what.
  std::optional<std::pair<std::int64_t, std::int32_t>> next_change(std::int64_t t) const {
    if (!times.empty() && t < times.back()) {
      auto i = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin());
      std::int32_t prev = at(t).offset;
      for (; i < times.size(); ++i) {
        // Read through at(): from the last transition on, the footer rule decides, and of equal
        // transition times the last does.
        std::int32_t o = at(times[i]).offset;
        if (o != prev) return std::pair{times[i], o};
        prev = o;
      }
      t = times.back();
    }
    if (!posix || !posix_changes) return std::nullopt;
    // The calendar repeats every 400 years, and so does the rule: a change, if there is one,
    // comes within 401 years (a rule can go years without one: "M12.4.6/167" leaves its
    // year only when the fourth Saturday is late).
    return posix_change(*posix, t, at(t).offset, year_of(t) + 401);
  }

  void finish() {
    min_off = max_off = types[0].offset;
    auto widen = [&](std::int32_t o) {
      min_off = std::min(min_off, o);
      max_off = std::max(max_off, o);
    };
    for (const Type& t : types) widen(t.offset);
    if (posix) {
      widen(posix->standard.offset);
      if (posix->has_dst) widen(posix->daylight.offset);
      // "DST all year" never changes; one 400-year cycle from 2000 shows whether a rule does.
      posix_changes = posix->has_dst && posix->standard.offset != posix->daylight.offset &&
                      posix_change(*posix, days_from_civil(2000, 1, 1) * 86400,
                                   posix_at(*posix, days_from_civil(2000, 1, 1) * 86400).offset, 2401);
    }
  }
};

namespace {

std::shared_ptr<const TimeZone::Data> utc_data() {
  static const auto data = [] {
    auto d = std::make_shared<TimeZone::Data>();
    d->name = "UTC";
    d->types.push_back({0, false, "UTC"});
    d->finish();
    return d;
  }();
  return data;
}

// The zones under `dir`, for a "did you mean": the files of its first three levels whose names
// begin with a capital, as every zone's does (posix/, right/, zone.tab and posixrules do not).
// At most 4096 entries are looked at, so a ZONEINFO that is no tz database costs little.
std::vector<std::string> zone_names(const std::string& dir) {
  std::vector<std::string> names;
  int seen = 0;
  walk_dir(dir, [&](const DirEntry& e) {
    if (seen++ >= 4096) return Walk::kStop;
    const bool zone = e.name[0] >= 'A' && e.name[0] <= 'Z';
    if (zone && e.file) names.push_back(e.path.substr(e.path.find_first_not_of('/', dir.size())));
    return zone && e.depth < 2 ? Walk::kDescend : Walk::kSkip;
  });
  // Directory order is the file system's: sorted, the same name wins a tie everywhere.
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TimeZone::TimeZone() : data_(utc_data()) {}

bool valid_zone_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.back() == '/' || name.find("//") != std::string_view::npos ||
      name.size() > 255) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '+' && c != '-' && c != '/') return false;
  }
  return true;  // without "." there can be no ".." either
}

TimeZone TimeZone::load(std::string_view name) {
  const char* dir = std::getenv("ZONEINFO");
  return load(name, dir && *dir ? dir : "/usr/share/zoneinfo");
}

TimeZone TimeZone::load(std::string_view name, const std::string& dir) {
  if (!valid_zone_name(name)) {
    throw ConfigError("invalid time zone name \"" + std::string(name) + "\": use an IANA name such as Europe/Zurich");
  }
  if (name == "UTC" || name == "Etc/UTC") return TimeZone();
  std::string path = dir + "/" + std::string(name);
  struct stat st {};
  std::ifstream in;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) in.open(path, std::ios::binary);
  if (!in.is_open()) {
    std::string message = "unknown time zone \"" + std::string(name) + "\": no such file in " + dir;
    if (std::string hint = did_you_mean(nearest_names(name, zone_names(dir))); !hint.empty()) message += "; " + hint;
    throw ConfigError(message);
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return from_tzif(std::string(name), data);
}

TimeZone TimeZone::from_tzif(std::string name, std::string_view bytes) {
  auto bad = [zone = name](const std::string& why) {
    return ConfigError("time zone \"" + zone + "\": not a usable TZif file: " + why);
  };
  Reader r{bytes};
  Header h;
  if (!header(r, h)) throw bad("bad header");
  std::size_t time_size = 4;
  if (h.version >= '2') {
    // The 32-bit block is only for old readers; skip to the 64-bit one and its footer.
    r.take(block_size(h, 4));
    if (!header(r, h)) throw bad("bad second header");
    time_size = 8;
  }
  if (h.leap > 0) throw bad("leap-second (\"right/\") zones are not supported");
  auto d = std::make_shared<Data>();
  d->name = std::move(name);
  for (std::int64_t i = 0; i < h.time; ++i) d->times.push_back(r.be(time_size));
  for (std::int64_t i = 0; i < h.time; ++i) d->index.push_back(static_cast<std::uint8_t>(r.be(1)));
  struct RawType {
    std::int64_t offset, dst, abbr;
  };
  std::vector<RawType> raw;
  for (std::int64_t i = 0; i < h.type; ++i) raw.push_back({r.be(4), r.be(1), r.be(1)});
  std::string_view chars = r.take(static_cast<std::size_t>(h.chars));
  r.take(static_cast<std::size_t>(h.isstd + h.isut));
  if (!r.ok) throw bad("truncated");
  if (!std::is_sorted(d->times.begin(), d->times.end())) throw bad("transitions out of order");
  for (auto i : d->index) {
    if (i >= h.type) throw bad("transition to a missing type");
  }
  for (const RawType& t : raw) {
    if (t.abbr >= h.chars || t.offset < -89999 || t.offset > 93599) throw bad("bad time type");
    std::string_view abbr = chars.substr(static_cast<std::size_t>(t.abbr));
    abbr = abbr.substr(0, abbr.find('\0'));
    d->types.push_back({static_cast<std::int32_t>(t.offset), t.dst != 0, std::string(abbr)});
  }
  if (time_size == 8) {
    std::string_view rest = bytes.substr(r.pos);
    if (rest.empty() || rest.front() != '\n') throw bad("missing footer");
    auto end = rest.find('\n', 1);
    if (end == std::string_view::npos) throw bad("unterminated footer");
    std::string_view footer = rest.substr(1, end - 1);
    if (!footer.empty()) d->posix = parse_posix(d->name, footer);
  }
  d->finish();
  return TimeZone(std::move(d));
}

TimeZone TimeZone::from_posix(std::string name, std::string_view rule) {
  auto d = std::make_shared<Data>();
  d->name = std::move(name);
  d->posix = parse_posix(d->name, rule);
  d->types.push_back(d->posix->standard);
  d->finish();
  return TimeZone(std::move(d));
}

const std::string& TimeZone::name() const { return data_->name; }

seconds TimeZone::offset_at(sys_seconds t) const { return seconds(data_->at(t.time_since_epoch().count()).offset); }

std::string TimeZone::abbreviation(sys_seconds t) const { return data_->at(t.time_since_epoch().count()).abbr; }

namespace {

struct Found {
  int count = 0;
  std::int64_t at[2] = {0, 0};
  std::int64_t shifted = 0;  // in a gap: the wall time read with the offset before it
};

Found find_local(const TimeZone::Data& d, std::int64_t wall) {
  // Every instant showing `wall` lies in [lo, hi]; walk the stretches of constant offset there.
  std::int64_t lo = wall - d.max_off, hi = wall - d.min_off;
  std::int64_t begin = lo;
  std::int32_t off = d.at(lo).offset;
  Found f;
  f.shifted = wall - off;
  while (true) {
    auto change = d.next_change(begin);
    std::int64_t end = change ? change->first : kForever;
    std::int64_t candidate = wall - off;
    if (candidate >= begin && candidate < end && f.count < 2) f.at[f.count++] = candidate;
    if (!change || change->first > hi) break;
    if (change->second > off && wall >= change->first + off && wall < change->first + change->second) {
      f.shifted = wall - off;
    }
    begin = change->first;
    off = change->second;
  }
  return f;
}

}  // namespace

std::vector<sys_seconds> TimeZone::local_to_utc(local_seconds t) const {
  Found f = find_local(*data_, t.time_since_epoch().count());
  std::vector<sys_seconds> out;
  for (int i = 0; i < f.count; ++i) out.push_back(sys_seconds{seconds{f.at[i]}});
  return out;
}

sys_seconds TimeZone::resolve(local_seconds t) const {
  Found f = find_local(*data_, t.time_since_epoch().count());
  return sys_seconds{seconds{f.count ? f.at[0] : f.shifted}};
}

std::optional<sys_seconds> TimeZone::next_transition(sys_seconds t) const {
  auto change = data_->next_change(t.time_since_epoch().count());
  if (!change) return std::nullopt;
  return sys_seconds{seconds{change->first}};
}

seconds TimeZone::min_offset() const { return seconds(data_->min_off); }
seconds TimeZone::max_offset() const { return seconds(data_->max_off); }

}  // namespace windowctl
