#include "window.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <queue>
#include <utility>
#include <variant>

#include "errors.h"
#include "occurrence.h"

namespace windowctl {

using namespace std::chrono;

namespace {

constexpr days kLookAhead{1827};  // 5 years, leap days included
constexpr days kLookBack{366};
constexpr days kLongest{366};   // of a "for" duration
constexpr days kCycle{146097};  // 400 Gregorian years

struct Span {
  sys_seconds start, end;
  bool early = false, late = false;
};

struct Later {
  bool operator()(const Span& a, const Span& b) const { return a.start > b.start; }
};

local_seconds as_local(sys_seconds t) { return local_seconds{t.time_since_epoch()}; }

// The starts of one cron schedule in one zone, in time order, each as the span it keeps open.
// Chains of starts at most `duration` apart come out as one span, so a window that is open for
// days costs a step per hour rather than per minute, and no heap traffic at all.
class Starts {
 public:
  // Every start in [first, until) comes out, perhaps with a few before `first`.
  Starts(const CronSchedule& cron, const TimeZone& zone, seconds duration, sys_seconds first, sys_seconds until)
      : cron_(&cron), zone_(&zone), duration_(duration), until_(until) {
    done_ = !can_match(cron);
    // A start s comes from wall time w = s + offset (the offset before the gap, for one moved out
    // of a gap), so w >= s + min_offset and w < until + max_offset.
    cursor_ = floor<minutes>(as_local(first + zone.min_offset())) - minutes(1);
    limit_ = floor<minutes>(as_local(until + zone.max_offset()));
    for (int m = 59; m >= 0; --m) {
      run_end_[m] = m;
      if (!(cron.minutes >> m & 1)) continue;
      for (int n = m + 1; n < 60; ++n) {
        if (cron.minutes >> n & 1) {
          if (minutes(n - m) <= duration) run_end_[m] = run_end_[n];
          break;
        }
      }
    }
    // When each hour is one chain that reaches into the next, consecutive hours are one too.
    int low = std::countr_zero(cron.minutes), high = 63 - std::countl_zero(cron.minutes);
    last_minute_ = high;
    bool hours_chain = cron.minutes && run_end_[low] == high && minutes(60 - high + low) <= duration;
    for (int h = 23; h >= 0; --h) {
      hour_run_end_[h] = h;
      if (hours_chain && h < 23 && (cron.hours >> h & 1) && (cron.hours >> (h + 1) & 1))
        hour_run_end_[h] = hour_run_end_[h + 1];
    }
  }

  // Drops starts whose spans end by `end`: whoever asks has that much covered already.
  void skip_to(sys_seconds end) {
    while (!pending_.empty() && pending_.top().end <= end) pending_.pop();
    // A wall time w starts no later than w - min_offset, so those up to end - duration + min_offset
    // all end by `end`.
    cursor_ = std::max(cursor_, floor<minutes>(as_local(end - duration_ + zone_->min_offset())) - minutes(1));
  }

  std::optional<Span> next() {
    while (true) {
      // Later wall times start no earlier than wall - max_offset, so anything before is final.
      if (!pending_.empty() &&
          (done_ ||
           pending_.top().start <= sys_seconds{(cursor_ + minutes(1)).time_since_epoch()} - zone_->max_offset())) {
        Span s = pending_.top();
        pending_.pop();
        return s;
      }
      if (done_) return std::nullopt;
      produce();
    }
  }

 private:
  void produce() {
    auto w = next_match(*cron_, cursor_, limit_);
    if (!w) {
      done_ = true;
      return;
    }
    cursor_ = *w;
    sys_seconds a = zone_->resolve(*w);
    Span span{a, a + duration_};
    // Until the next offset change, wall time t is the instant t - offset, so a chain of starts
    // each at most `duration` after the one before is one span. Starts are a minute apart or
    // more; a start moved out of a gap (a != w - offset) stands alone.
    seconds offset = duration_ >= minutes(1) ? zone_->offset_at(a) : seconds(0);
    if (duration_ >= minutes(1) && a == sys_seconds{w->time_since_epoch()} - offset) {
      auto change = zone_->next_transition(a);
      LocalMinute stop = change ? floor<minutes>(as_local(*change + offset)) - minutes(1) : limit_;
      stop = std::min(stop, limit_);
      LocalMinute last = *w;
      while (true) {
        auto m = static_cast<int>((last - floor<hours>(last)).count());
        LocalMinute run = last + minutes(run_end_[m] - m);  // the rest of this hour's chain
        if (run > stop) break;
        last = run;
        if (run_end_[m] == last_minute_) {  // and the following hours'
          auto h = static_cast<int>((floor<hours>(last) - floor<days>(last)).count());
          LocalMinute end = last + hours(hour_run_end_[h] - h);
          if (end <= stop) last = end;
        }
        auto next = next_match(*cron_, last, stop);
        if (!next || *next - last > duration_) break;
        last = *next;
      }
      span.end = sys_seconds{last.time_since_epoch()} - offset + duration_;
      cursor_ = last;
    }
    if (a < until_) pending_.push(span);
  }

  const CronSchedule* cron_;
  const TimeZone* zone_;
  seconds duration_;
  sys_seconds until_;
  LocalMinute cursor_, limit_;
  std::array<int, 60> run_end_{};       // last minute of the chain from each minute, in its hour
  std::array<int, 24> hour_run_end_{};  // last hour of the chain from each hour, in its day
  int last_minute_ = 0;
  std::priority_queue<Span, std::vector<Span>, Later> pending_;
  bool done_ = false;
};

// The spans of a "CRON to CRON" window, each from a start to the first close after it. A start
// inside a span is no new span (the close after it is the same), so spans never overlap and
// each costs two searches. Every span that ends after `first` comes out (the first perhaps
// starting before it), up to `until`; one not closed by then ends there.
class Between {
 public:
  Between(const Window& w, sys_seconds first, sys_seconds until) : w_(&w), until_(until) {
    // Every close is a start too: once open, always open.
    forever_ = covers(w.cron, *w.close);
    // The last start before `first`, so that a span open across `first` begins before it.
    next_ = last_occurrence(w.cron, w.zone, first - seconds(1), first - kCycle);
    if (!next_) next_ = first_occurrence(w.cron, w.zone, first, until);
  }

  void skip_to(sys_seconds) {}  // spans do not overlap: nothing piles up

  std::optional<Span> next() {
    if (!next_ || *next_ >= until_) return std::nullopt;
    Span span{*next_, until_};
    next_.reset();
    if (forever_) return span;
    sys_seconds open = span.start;  // open since at least here
    while (auto close = first_occurrence(*w_->close, w_->zone, open + seconds(1), until_)) {
      auto start = first_occurrence(w_->cron, w_->zone, *close, until_);
      if (start != close) {
        span.end = *close;
        next_ = start;
        break;
      }
      // A close that is also a start keeps the window open: one span, not one per close.
      open = reopened_until(*close);
    }
    return span;
  }

 private:
  // The last close in the half day from `close`, a close that is also a start, up to which every
  // close is a start too; `close` itself near an offset change. Walks wall minutes, not instants.
  sys_seconds reopened_until(sys_seconds close) const {
    auto offset = steady_offset(w_->zone, close);
    if (!offset) return close;
    LocalMinute last = floor<minutes>(as_local(close + *offset));
    if (sys_seconds{last.time_since_epoch()} - *offset != close) return close;
    const LocalMinute limit = last + hours(12);
    while (auto m = next_match(*w_->close, last, limit)) {
      if (!matches(w_->cron, *m)) break;
      last = *m;
    }
    return sys_seconds{last.time_since_epoch()} - *offset;
  }

  const Window* w_;
  sys_seconds until_;
  std::optional<sys_seconds> next_;
  bool forever_ = false;
};

// A calendar's occurrences over the question's range, computed once (calendar.h bounds them).
class Listed {
 public:
  Listed(const Calendar& calendar, sys_seconds from, sys_seconds to) : spans_(calendar.spans(from, to)) {}
  void skip_to(sys_seconds end) {
    while (i_ < spans_.size() && spans_[i_].end <= end) ++i_;
  }
  std::optional<Span> next() {
    if (i_ >= spans_.size()) return std::nullopt;
    const CalendarSpan& c = spans_[i_++];
    return Span{c.start, c.end};
  }

 private:
  std::vector<CalendarSpan> spans_;
  std::size_t i_ = 0;
};

using Source = std::variant<Starts, Between, Listed>;

std::optional<Span> next_of(Source& s) {
  return std::visit([](auto& x) { return x.next(); }, s);
}

// Spans from several sources merged where they overlap or touch, clipped to [from, to).
class Merged {
 public:
  Merged(std::vector<Source> sources, sys_seconds from, sys_seconds to)
      : sources_(std::move(sources)), from_(from), to_(to) {
    for (auto& s : sources_) heads_.push_back(next_of(s));
  }

  std::optional<Span> next() {
    while (!finished_) {
      auto cur = take();
      if (!cur || cur->start >= to_) break;
      while (cur->end < to_) {
        skip_covered(cur->end);
        auto n = take();
        if (!n) break;
        if (n->start > cur->end) {
          held_ = n;
          break;
        }
        cur->end = std::max(cur->end, n->end);
      }
      if (cur->end >= to_) {
        // Everything still to come starts before this ends, or after the horizon.
        finished_ = true;
        cur->end = to_;
        cur->late = true;
      }
      if (cur->end <= from_) continue;
      if (cur->start < from_) {
        cur->start = from_;
        cur->early = true;
      }
      return cur;
    }
    return std::nullopt;
  }

 private:
  // A window open for months merged with a minutely one need not step through every minute.
  void skip_covered(sys_seconds end) {
    for (std::size_t i = 0; i < heads_.size(); ++i) {
      if (!heads_[i] || heads_[i]->end > end) continue;
      std::visit([end](auto& x) { x.skip_to(end); }, sources_[i]);
      do {
        heads_[i] = next_of(sources_[i]);
      } while (heads_[i] && heads_[i]->end <= end);
    }
  }

  std::optional<Span> take() {
    if (held_) return std::exchange(held_, std::nullopt);
    std::optional<Span>* best = nullptr;
    std::size_t which = 0;
    for (std::size_t i = 0; i < heads_.size(); ++i) {
      if (heads_[i] && (!best || heads_[i]->start < (*best)->start)) {
        best = &heads_[i];
        which = i;
      }
    }
    if (!best) return std::nullopt;
    auto out = *best;
    heads_[which] = next_of(sources_[which]);
    return out;
  }

  std::vector<Source> sources_;
  std::vector<std::optional<Span>> heads_;
  std::optional<Span> held_;
  sys_seconds from_, to_;
  bool finished_ = false;
};

std::vector<Source> starts_of(const std::vector<Window>& windows, const std::vector<Calendar>& calendars,
                              sys_seconds from, sys_seconds to) {
  std::vector<Source> out;
  for (const Calendar& c : calendars) out.emplace_back(std::in_place_type<Listed>, c, from, to);
  for (const Window& w : windows) {
    if (w.close) {
      out.emplace_back(std::in_place_type<Between>, w, from, to);
    } else {
      out.emplace_back(std::in_place_type<Starts>, w.cron, w.zone, w.duration, from - w.duration, to);
    }
  }
  return out;
}

// What closes the schedule: deny windows and freezes, merged.
class Blockers {
 public:
  Blockers(const Schedule& s, sys_seconds from, sys_seconds to)
      : deny_(starts_of(s.deny, s.deny_calendars, from, to), from, to) {
    for (const Interval& f : s.freeze) {
      freeze_.push_back({floor<seconds>(f.start), ceil<seconds>(f.end)});
    }
    std::sort(freeze_.begin(), freeze_.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    deny_head_ = deny_.next();
  }

  std::optional<Span> next() {
    auto cur = take();
    if (!cur) return std::nullopt;
    while (true) {
      bool grew = false;
      if (deny_head_ && deny_head_->start <= cur->end) {
        cur->end = std::max(cur->end, deny_head_->end);
        deny_head_ = deny_.next();
        grew = true;
      }
      if (next_freeze_ < freeze_.size() && freeze_[next_freeze_].start <= cur->end) {
        cur->end = std::max(cur->end, freeze_[next_freeze_++].end);
        grew = true;
      }
      if (!grew) return cur;
    }
  }

 private:
  std::optional<Span> take() {
    bool freeze_left = next_freeze_ < freeze_.size();
    if (deny_head_ && (!freeze_left || deny_head_->start <= freeze_[next_freeze_].start)) {
      return std::exchange(deny_head_, deny_.next());
    }
    if (freeze_left) return freeze_[next_freeze_++];
    return std::nullopt;
  }

  Merged deny_;
  std::optional<Span> deny_head_;
  std::vector<Span> freeze_;
  std::size_t next_freeze_ = 0;
};

// Allow spans minus blockers.
class Effective {
 public:
  Effective(const Schedule& s, sys_seconds from, sys_seconds to)
      : allow_(starts_of(s.allow, s.allow_calendars, from, to), from, to), blockers_(s, from, to) {
    blocker_ = blockers_.next();
  }

  std::optional<Span> next() {
    while (true) {
      if (!allow_head_) {
        allow_head_ = allow_.next();
        if (!allow_head_) return std::nullopt;
      }
      Span& a = *allow_head_;
      while (blocker_ && blocker_->end <= a.start) blocker_ = blockers_.next();
      if (!blocker_ || blocker_->start >= a.end) return std::exchange(allow_head_, std::nullopt);
      Span out = a;
      out.end = blocker_->start;
      out.late = false;
      a.start = blocker_->end;
      a.early = false;
      if (a.start >= a.end) allow_head_.reset();
      if (out.start < out.end) return out;
    }
  }

 private:
  Merged allow_;
  Blockers blockers_;
  std::optional<Span> allow_head_, blocker_;
};

bool window_open(const Window& w, sys_seconds t) {
  if (w.close) {
    // Open since the last start unless a close came after it (a close at that start closed the
    // span before it).
    auto start = last_occurrence(w.cron, w.zone, t, t - kCycle);
    return start && !last_occurrence(*w.close, w.zone, t, *start + seconds(1));
  }
  Starts starts(w.cron, w.zone, w.duration, t - w.duration + seconds(1), t + seconds(1));
  while (auto s = starts.next()) {
    if (s->start > t) break;
    if (s->end > t) return true;
  }
  return false;
}

[[noreturn]] void bad_window(std::string_view text, const std::string& detail) {
  throw ConfigError("invalid window \"" + std::string(text) + "\": " + detail);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

Window parse_window(std::string_view text) {
  struct Token {
    std::string_view text;
    std::size_t pos;
  };
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < text.size();) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    tokens.push_back({text.substr(i, j - i), i});
    i = j;
  }
  auto is_keyword = [](const Token& t) { return t.text == "for" || t.text == "to"; };
  auto it = std::find_if(tokens.begin(), tokens.end(), is_keyword);
  if (it == tokens.end()) bad_window(text, "expected \"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\"");
  const std::string keyword(it->text);
  if (it == tokens.begin()) bad_window(text, "missing the cron expression before \"" + keyword + "\"");
  if (std::find_if(it + 1, tokens.end(), is_keyword) != tokens.end()) {
    bad_window(text, "expected one \"for\" or \"to\", not both or twice");
  }
  std::size_t i = static_cast<std::size_t>(it - tokens.begin()) + 1;
  // Where "in ZONE" begins: after the duration, or at the first "in" after "to".
  std::size_t in = tokens.size();

  Window w;
  w.text = std::string(text);
  auto trimmed = [](std::string_view part) {
    while (!part.empty() && is_space(part.back())) part.remove_suffix(1);
    while (!part.empty() && is_space(part.front())) part.remove_prefix(1);
    return part;
  };
  if (keyword == "for") {
    if (i >= tokens.size()) bad_window(text, "missing the duration after \"for\"");
    std::string_view duration = tokens[i].text;
    auto d = parse_go_duration(duration);
    std::string quoted = "duration \"" + std::string(duration) + "\"";
    if (!d) bad_window(text, quoted + ": " + go_duration_problem(duration));
    if (*d <= nanoseconds(0)) bad_window(text, quoted + " must be positive");
    if (*d % seconds(1) != nanoseconds(0)) bad_window(text, quoted + " must be whole seconds");
    if (*d > kLongest) bad_window(text, quoted + " is longer than 8784h (366 days)");
    w.duration = duration_cast<seconds>(*d);
    if (++i < tokens.size()) {
      if (tokens[i].text != "in") {
        bad_window(text, "unexpected \"" + std::string(tokens[i].text) + "\" after the duration; expected \"in ZONE\"");
      }
      in = i;
    }
  } else {
    in = static_cast<std::size_t>(std::find_if(it + 1, tokens.end(), [](const Token& t) { return t.text == "in"; }) -
                                  tokens.begin());
    if (i >= in) bad_window(text, "missing the close schedule after \"to\"");
    const Token& last = tokens[in - 1];
    w.close = parse_cron(text.substr(tokens[i].pos, last.pos + last.text.size() - tokens[i].pos));
    if (!can_match(*w.close)) bad_window(text, "the close schedule \"" + w.close->text + "\" never matches");
  }
  if (in < tokens.size()) {
    if (in + 1 >= tokens.size()) bad_window(text, "missing the zone after \"in\"");
    if (in + 2 < tokens.size())
      bad_window(text, "unexpected \"" + std::string(tokens[in + 2].text) + "\" after the zone");
    w.zone = TimeZone::load(tokens[in + 1].text);
  }
  // The crons are parsed from the text as written, so their own messages quote it.
  w.cron = parse_cron(trimmed(text.substr(0, it->pos)));
  return w;
}

Interval parse_freeze(std::string_view text) {
  auto bad = [&](const std::string& detail) {
    return ConfigError("invalid freeze \"" + std::string(text) + "\": " + detail);
  };
  auto slash = text.find('/');
  if (slash == std::string_view::npos) throw bad("expected FROM/TO, two RFC 3339 times");
  auto time = [&](std::string_view part) {
    auto t = parse_rfc3339(part);
    if (!t) throw bad("\"" + std::string(part) + "\" " + rfc3339_problem(part));
    return *t;
  };
  SysTime from = time(text.substr(0, slash)), to = time(text.substr(slash + 1));
  if (from >= to) throw bad("FROM must be before TO");
  return {from, to};
}

// The event of `calendar` that is on at `at`, by name; nullopt when none is.
std::optional<std::string> calendar_on(const Calendar& calendar, sys_seconds at) {
  auto spans = calendar.spans(at, at + seconds(1));
  if (spans.empty()) return std::nullopt;
  const std::string& name = calendar.summary(spans.front().event);
  return name.empty() ? "calendar " + calendar.path() : name;
}

bool is_open(const Schedule& s, SysTime t) {
  // Starts are whole seconds, so s <= t < s + d holds for t exactly when it does for floor(t).
  sys_seconds at = floor<seconds>(t);
  // A freeze closes every second it touches, as next_windows counts it (in whole seconds, so
  // nothing near SysTime's ends is converted back).
  for (const Interval& f : s.freeze) {
    if (floor<seconds>(f.start) <= at && at < ceil<seconds>(f.end)) return false;
  }
  for (const Window& w : s.deny) {
    if (window_open(w, at)) return false;
  }
  for (const Calendar& c : s.deny_calendars) {
    if (calendar_on(c, at)) return false;
  }
  return std::any_of(s.allow.begin(), s.allow.end(), [&](const Window& w) { return window_open(w, at); }) ||
         std::any_of(s.allow_calendars.begin(), s.allow_calendars.end(),
                     [&](const Calendar& c) { return calendar_on(c, at).has_value(); });
}

const TimeZone& schedule_zone(const Schedule& s) {
  static const TimeZone utc;
  if (!s.allow.empty()) return s.allow.front().zone;
  if (!s.allow_calendars.empty()) return s.allow_calendars.front().zone();
  return utc;
}

std::string open_reason(const Schedule& s, SysTime t) {
  if (!is_open(s, t)) return "";
  sys_seconds at = floor<seconds>(t);
  for (const Calendar& c : s.allow_calendars) {
    if (auto name = calendar_on(c, at)) return *name;
  }
  for (const Window& w : s.allow) {
    if (window_open(w, at)) return w.text;
  }
  return "";
}

std::string closed_reason(const Schedule& s, SysTime t) {
  sys_seconds at = floor<seconds>(t);
  for (const Interval& f : s.freeze) {
    if (floor<seconds>(f.start) <= at && at < ceil<seconds>(f.end))
      return "freeze " + rfc3339(f.start) + "/" + rfc3339(f.end);
  }
  for (const Calendar& c : s.deny_calendars) {
    if (auto name = calendar_on(c, at)) return *name;
  }
  for (const Window& w : s.deny) {
    if (window_open(w, at)) return w.text;
  }
  return "";
}

std::vector<Interval> next_windows(const Schedule& s, SysTime at, int count) {
  if (count <= 0 || (s.allow.empty() && s.allow_calendars.empty())) return {};
  seconds longest{0};
  for (const Window& w : s.allow) longest = std::max(longest, w.duration);
  for (const Calendar& c : s.allow_calendars) longest = std::max(longest, c.longest());
  sys_seconds now = floor<seconds>(at);
  // The bounds stop where SysTime does (timefmt.h), so nothing near 2262 wraps around; an
  // interval cut there says so, as at any other bound. They lie a second beyond its whole
  // seconds, so the fractions of a second at either end are inside a bound too, and an edge
  // there becomes SysTime::min() or max().
  auto bound = [](sys_seconds t) { return std::clamp(t, kFirstTime - seconds(1), kLastTime + seconds(1)); };
  auto held = [](sys_seconds t) {
    return t < kFirstTime ? SysTime::min() : t > kLastTime ? SysTime::max() : SysTime(t);
  };
  // Look back only as far as the allow interval open now needs: usually one duration. Finding
  // that out looks no further ahead than now, so the doubling stays cheap.
  seconds back = longest + hours(1);
  while (back < kLookBack) {
    sys_seconds from = bound(now - back), to = bound(now + seconds(1));
    Merged allow(starts_of(s.allow, s.allow_calendars, from, to), from, to);
    auto span = allow.next();
    while (span && held(span->end) <= at) span = allow.next();
    if (!span || !span->early || from < kFirstTime) break;
    back = std::min<seconds>(back * 2, kLookBack);
  }
  Effective effective(s, bound(now - back), bound(now + kLookAhead + longest));
  std::vector<Interval> out;
  while (out.size() < static_cast<std::size_t>(count)) {
    auto span = effective.next();
    if (!span) break;
    if (held(span->end) > at) out.push_back({held(span->start), held(span->end), span->early, span->late});
  }
  return out;
}

std::vector<SysTime> next_starts(const CronSchedule& cron, const TimeZone& zone, SysTime after, int count) {
  std::vector<SysTime> out;
  if (count <= 0) return out;
  sys_seconds from = floor<seconds>(after);
  // SysTime counts nanoseconds and ends in 2262.
  Starts starts(cron, zone, seconds(0), from + seconds(1), std::min(from + kCycle, kLastTime + seconds(1)));
  while (out.size() < static_cast<std::size_t>(count)) {
    auto s = starts.next();
    if (!s) break;
    // A start moved out of a gap can land on a real one; they are one start.
    if (s->start > from && (out.empty() || out.back() != SysTime(s->start))) out.push_back(s->start);
  }
  return out;
}

std::string format_local(SysTime t, const TimeZone& zone) {
  sys_seconds s = floor<seconds>(t);
  seconds offset = zone.offset_at(s);
  if (offset == seconds(0) || offset % minutes(1) != seconds(0)) return rfc3339(s);
  std::string out = rfc3339(s + offset);
  out.pop_back();  // the "Z"
  auto m = std::abs(offset.count()) / 60;
  char buf[24];
  std::snprintf(buf, sizeof buf, "%c%02ld:%02ld", offset < seconds(0) ? '-' : '+', static_cast<long>(m / 60),
                static_cast<long>(m % 60));
  return out + buf;
}

}  // namespace windowctl
