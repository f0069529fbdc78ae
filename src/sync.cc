#include "sync.h"

#include "errors.h"
#include "text.h"

namespace windowctl {

using nlohmann::json;

std::vector<std::string> split_expressions(std::string_view text) {
  std::vector<std::string> out;
  std::string item;
  auto flush = [&] {
    auto b = item.find_first_not_of(" \t\r");
    auto e = item.find_last_not_of(" \t\r");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    item.clear();
  };
  for (char c : text) {
    if (c == ';' || c == '\n') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  return out;
}

Schedule parse_schedule(const ScheduleFlags& flags) {
  Schedule s;
  for (const auto& w : flags.windows) s.allow.push_back(parse_window(w));
  for (const auto& d : flags.denies) s.deny.push_back(parse_window(d));
  for (const auto& f : flags.freezes) s.freeze.push_back(parse_freeze(f));
  std::optional<TimeZone> zone;
  if (!s.allow.empty()) {
    zone = s.allow.front().zone;
  } else if (!s.deny.empty()) {
    zone = s.deny.front().zone;
  }
  auto load = [&](const std::string& path) {
    return flags.read ? parse_calendar(flags.read(path), path, zone) : load_calendar(path, zone);
  };
  for (const auto& path : flags.window_calendars) s.allow_calendars.push_back(load(path));
  for (const auto& path : flags.deny_calendars) s.deny_calendars.push_back(load(path));
  return s;
}

namespace {

std::optional<std::string> annotation(const json& obj, const char* key) {
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return std::nullopt;
  const auto& meta = obj["metadata"];
  if (!meta.contains("annotations") || !meta["annotations"].is_object()) return std::nullopt;
  auto it = meta["annotations"].find(key);
  if (it == meta["annotations"].end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::vector<Window> parse_annotation(const std::string& value, const char* key) {
  std::vector<Window> out;
  try {
    for (const auto& expr : split_expressions(value)) out.push_back(parse_window(expr));
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("annotation ") + key + ": " + e.what());
  }
  if (out.empty()) throw ConfigError(std::string("annotation ") + key + " is empty");
  return out;
}

}  // namespace

std::optional<Schedule> schedule_for(const json& object, const Schedule& flags) {
  Schedule s = flags;
  // The object's windows replace the flags' allow windows, calendars included; deny calendars,
  // like freezes, close every object (a company's holidays are everyone's).
  if (auto w = annotation(object, kWindowAnnotation)) {
    s.allow = parse_annotation(*w, kWindowAnnotation);
    s.allow_calendars.clear();
  }
  if (auto d = annotation(object, kDenyAnnotation)) s.deny = parse_annotation(*d, kDenyAnnotation);
  if (s.allow.empty() && s.allow_calendars.empty()) return std::nullopt;
  return s;
}

WindowState window_state(const Schedule& schedule, SysTime now) {
  WindowState st;
  st.open = is_open(schedule, now);
  if (!schedule.allow.empty() || !schedule.allow_calendars.empty()) st.zone = &schedule_zone(schedule);
  for (const auto& interval : next_windows(schedule, now, 2)) {
    if (interval.start <= now && now < interval.end) {
      st.current = interval;
    } else if (!st.next) {
      st.next = interval;
    }
  }
  return st;
}

Edges next_edges(const WindowState& st) {
  Edges e;
  const std::optional<Interval>& closing = st.open ? st.current : st.next;
  if (st.next && !st.next->starts_earlier) e.open = st.next->start;
  if (closing && !closing->ends_later) e.close = closing->end;
  return e;
}

std::string closed_flux_reason(const Schedule& schedule, SysTime now, const WindowState& st) {
  if (st.open) return {};
  std::string text = "windowctl: window closed";
  if (auto open = next_edges(st).open) {
    const TimeZone utc;
    const TimeZone& zone = st.zone ? *st.zone : utc;
    // 2026-11-30T08:00:00+01:00 as people write it: 2026-11-30 08:00 (seconds only when not 0).
    std::string local = format_local(*open, zone);
    local = local.substr(0, local.compare(17, 2, "00") == 0 ? 16 : 19);
    local[10] = ' ';
    text += " until " + local + " " + zone.name();
  } else {
    text += ", no window opens within 5 years";
  }
  // One line: the name may come from a file (a calendar's SUMMARY) and lands in an annotation.
  const std::string why = printable(closed_reason(schedule, now), 512);
  return why.empty() ? text : text + " (" + why + ")";
}

}  // namespace windowctl
