#include "output.h"

#include <algorithm>

#include "readiness.h"
#include "util.h"

namespace windowctl {

using nlohmann::json;

namespace {
std::string result_line_raw(const TargetResult& r);
}  // namespace

std::string result_line(const TargetResult& r) { return printable(result_line_raw(r), std::string::npos); }

namespace {

// ", after waiting 12s for Flux to settle (Reconciling: ...)" or ", still in progress after
// --overrun 10m (...)": the wait, whether it settled, and what Flux was doing.
std::string overrun_text(const TargetResult& r) {
  const auto waited = std::chrono::duration_cast<std::chrono::seconds>(*r.overrun_waited);
  std::string text = r.overrun_expired ? ", still in progress after waiting " + human_duration(waited) + " (--overrun)"
                                       : ", after waiting " + human_duration(waited) + " for Flux to settle";
  return text + " (" + r.in_progress + ")";
}

std::string result_line_raw(const TargetResult& r) {
  std::string line = object_label(r.show_kind ? r.kind : "", r.ns, r.name) + " ";
  if (r.failed()) {
    // A failure after the decision was carried out (a failed --wait) still says what was done.
    if (r.decision) return line + describe(*r.decision, r.dry_run) + ", " + r.error;
    return line + "failed: " + r.error;
  }
  line += describe(*r.decision, r.dry_run);
  if (r.dry_run) {
    line += " (" + r.current + ")";
    if (r.decision->patch) line += " patch " + r.decision->patch->dump();
  }
  if (!r.wait.empty()) line += ", " + r.wait;
  if (r.overrun_waited) line += overrun_text(r);
  return line;
}

}  // namespace

namespace {

// Every key of $defs/target, null until the command has a value for it: status and the writes
// print one shape, so a script indexes any key of any element without guarding.
json target_element(const std::string& kind, const std::string& ns, const std::string& name) {
  json j;
  j["kind"] = kind;
  j["namespace"] = ns;
  j["name"] = name;
  j["dryRun"] = false;
  for (const char* key : {"result",    "message",     "error",     "changed", "current", "patch",    "wait",
                          "suspended", "suspendedBy", "since",     "reason",  "held",    "ready",    "revision",
                          "window",    "nextOpen",    "nextClose", "desired", "drift",   "override", "overrun"}) {
    j[key] = nullptr;
  }
  return j;
}

// REASON is one column of a table that should fit 120 columns; JSON has the whole reason.
constexpr std::size_t kTableReasonMax = 40;

// {"command": C, "results": [...]} as the streamed writers print it.
std::string results_document(const std::string& command, json list) {
  json doc;
  doc["command"] = command;
  doc["results"] = std::move(list);
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

json or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

// Times come from annotations (anyone's text) or in a window's zone: JSON has them in UTC, or
// null when the text is no time windowctl can represent.
json utc(const std::string& text) {
  auto t = parse_rfc3339(text);
  return t ? json(rfc3339(*t)) : json(nullptr);
}

}  // namespace

json result_json(const TargetResult& r) {
  json j = target_element(r.kind, r.ns, r.name);
  j["result"] = r.failed() ? "failed" : outcome_code(r.decision->outcome);
  j["message"] = r.failed() ? r.error : describe(*r.decision, r.dry_run);
  j["error"] = or_null(r.error);
  if (r.decision) j["changed"] = r.decision->patch.has_value() && !r.dry_run;
  j["dryRun"] = r.dry_run;
  if (r.dry_run) {
    j["current"] = or_null(r.current);
    if (r.decision && r.decision->patch) j["patch"] = *r.decision->patch;
  }
  j["wait"] = or_null(r.wait);
  if (r.overrun_waited) {
    json& o = j["overrun"];
    o["waitedSeconds"] = static_cast<double>(r.overrun_waited->count()) / 1000;
    o["settled"] = !r.overrun_expired;
    o["inProgress"] = r.in_progress;
  }
  return j;
}

std::string render_results(const std::vector<TargetResult>& results, OutputFormat format, const std::string& command) {
  if (format == OutputFormat::kJson) {
    json list = json::array();
    for (const auto& r : results) list.push_back(result_json(r));
    return results_document(command, std::move(list));
  }
  std::string out;
  for (const auto& r : results) out += result_line(r) + "\n";
  return out;
}

void JsonListWriter::add(const json& element) {
  std::string text = element.dump(2, ' ', false, json::error_handler_t::replace);
  out_ << (any_ ? ",\n    " : head_ + "\n    ");
  for (char c : text) {
    out_ << c;
    if (c == '\n') out_ << "    ";
  }
  any_ = true;
}

void JsonListWriter::finish() { out_ << (any_ ? "\n  ]\n}\n" : head_ + "]\n}\n") << std::flush; }

void ResultWriter::add(const TargetResult& r) {
  if (format_ == OutputFormat::kJson) {
    json_.add(result_json(r));
  } else {
    out_ << result_line(r) << '\n';
  }
}

void ResultWriter::finish() {
  if (format_ == OutputFormat::kJson) json_.finish();
  out_ << std::flush;
}

StatusRow status_row(const KindAdapter& kind, const json& object, SysTime now, const WindowFacts& window) {
  StatusRow row;
  row.kind = std::string(kind.kind);
  row.now = now;
  ObjectState s = read_state(object, kind.pause);
  if (!s.problem.empty()) throw std::runtime_error(s.problem);  // the target fails, named
  row.ns = metadata_string(object, "namespace");
  row.name = metadata_string(object, "name");
  row.suspended = s.suspended;
  row.held = s.suspended && !s.marked;
  row.by = !s.suspended ? "-" : s.marked ? "windowctl" : "someone else";
  if (s.suspended && s.marked) {
    row.since = s.suspended_at;
    row.reason = s.reason;
  } else if (s.suspended) {
    row.holder = s.holder;
    row.since = s.holder.since;
    row.reason = s.flux_reason;
  }
  Condition ready = find_condition(object, "Ready");
  row.ready = ready.status.empty() ? "Unknown" : ready.status;
  row.message = ready.message;
  if (!kind.has_status && ready.status.empty()) {
    row.ready = "True";  // a static object (Alert, Provider): ready once it exists
    row.message = "no status";
  }
  row.revision = kind.revision(object);
  row.override_state = s.override_state;
  row.override_until = s.override_until;
  row.override_by = s.override_by;
  row.override_reason = s.override_reason;
  row.override_expired = override_expired(s, now);
  row.window = window.state;
  if (window.next_open) row.next_open = rfc3339(*window.next_open);
  if (window.next_close) row.next_close = rfc3339(*window.next_close);
  std::optional<bool> open;
  if (window.state == "open" || window.state == "closed") open = window.state == "open";
  row.desired = desired_action(s, open, now);
  // An unexpired override decides over the window, as in sync: the marker goes to its column.
  row.desired_by_override = row.desired && row.override_expired == false;
  return row;
}

std::string status_drift(const StatusRow& r) {
  if (!r.desired || r.suspended == (*r.desired == Action::kClose)) return {};
  return r.suspended ? "suspended" : "running";
}

std::string held_text(const std::string& detail) {
  std::string text = "suspended by someone else";
  if (!detail.empty()) text += " (" + detail + ")";
  return text;
}

std::string describe_state(const json& object, const Pause& pause) {
  ObjectState s = read_state(object, pause);
  if (!s.problem.empty()) return s.problem;
  if (!s.suspended) return "running";
  if (!s.marked)
    return held_text(s.holder.detail) + (s.flux_reason.empty() ? "" : " (reason " + quote_reason(s.flux_reason) + ")");
  std::string text = "suspended by windowctl";
  if (!s.suspended_at.empty()) text += " since " + s.suspended_at;
  if (!s.reason.empty()) text += " (" + s.reason + ")";
  return text;
}

std::vector<Interval> listed_windows(const std::vector<Interval>& next, SysTime until) {
  std::vector<Interval> out;
  for (const auto& w : next) {
    if (w.start < until) out.push_back(w);
  }
  return out;
}

std::string render_schedule(const Schedule& schedule, SysTime at, int count, OutputFormat format, SysTime until) {
  const TimeZone& zone = schedule_zone(schedule);
  const bool open = is_open(schedule, at);
  const auto next = next_windows(schedule, at, count);
  // The state line says when it next opens or closes, whatever --until leaves of the list.
  const auto windows = listed_windows(next, until);
  if (format == OutputFormat::kJson) {
    json list = json::array();
    for (const auto& w : windows) {
      json& e = list.emplace_back();
      e["start"] = rfc3339(w.start);
      e["end"] = rfc3339(w.end);
    }
    json doc;
    doc["command"] = "schedule";
    doc["open"] = open;
    doc["zone"] = zone.name();
    doc["windows"] = std::move(list);
    return doc.dump(2) + "\n";
  }
  auto in = [&](SysTime t) { return human_until(std::chrono::floor<std::chrono::seconds>(t - at)); };
  std::string out;
  if (open && !next.empty() && next.front().start <= at) {
    const auto& w = next.front();
    out +=
        "open: closes in " + in(w.end) + " (" + format_local(w.end, zone) + (w.ends_later ? ", or later" : "") + ")\n";
  } else if (!next.empty()) {
    out += "closed: opens in " + in(next.front().start) + " (" + format_local(next.front().start, zone) + ")\n";
  } else {
    out += "closed: no window opens within the next 5 years\n";
  }
  if (windows.empty()) return out;
  // The local columns name their zone: the same instants read differently elsewhere. A zone
  // that is always UTC would repeat the UTC columns; it has none of its own.
  const bool local_columns = zone.min_offset().count() != 0 || zone.max_offset().count() != 0;
  const std::string local = " (" + zone.name() + ")";
  std::vector<std::vector<std::string>> table = {{"START (UTC)", "END (UTC)", "LENGTH"}};
  if (local_columns) table[0].insert(table[0].begin(), {"START" + local, "END" + local});
  for (const auto& w : windows) {
    table.push_back(
        {rfc3339(w.start), rfc3339(w.end), human_until(std::chrono::floor<std::chrono::seconds>(w.end - w.start))});
    if (local_columns)
      table.back().insert(table.back().begin(), {format_local(w.start, zone), format_local(w.end, zone)});
  }
  out += "\n";
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& line : table)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  for (const auto& line : table) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      text += line[i];
      if (i + 1 < line.size()) text += std::string(width[i] - line[i].size() + 3, ' ');
    }
    out += text + "\n";
  }
  return out;
}

json status_json(const StatusRow& r) {
  json j = target_element(r.kind, r.ns, r.name);
  if (!r.error.empty()) {
    j["result"] = "failed";
    j["message"] = j["error"] = r.error;
    return j;
  }
  j["result"] = "observed";
  j["message"] = r.message;
  j["changed"] = false;
  j["suspended"] = r.suspended;
  j["suspendedBy"] = r.by == "-" ? json(nullptr) : json(r.by);
  j["since"] = utc(r.since);
  j["reason"] = or_null(r.reason);
  j["ready"] = r.ready == "True" ? json(true) : r.ready == "False" ? json(false) : json(nullptr);
  j["revision"] = or_null(r.revision);
  j["window"] = or_null(r.window);
  j["nextOpen"] = utc(r.next_open);
  j["nextClose"] = utc(r.next_close);
  if (!r.override_state.empty()) {
    json& o = j["override"];
    o["state"] = r.override_state;
    o["until"] = utc(r.override_until);
    o["by"] = or_null(r.override_by);
    o["reason"] = or_null(r.override_reason);
    o["expired"] = nullptr;
    if (r.override_expired) o["expired"] = *r.override_expired;
  }
  if (r.held) {
    json& h = j["held"];
    h["by"] = nullptr;
    if (!r.holder.by.empty() || r.holder.via_operator) h["by"] = r.holder.by;
    h["afterWindowctl"] = r.holder.after_windowctl;
    h["message"] = held_text(r.holder.detail);
  }
  if (r.desired) {
    j["desired"] = *r.desired == Action::kOpen ? "open" : "closed";
    j["drift"] = !status_drift(r).empty();
  }
  return j;
}

namespace {

// "2026-11-20T17:00:00Z (3h ago)": one zone, UTC, and how far from now. Text that is no time
// (anyone may write an annotation) is shown as it is.
std::string table_time(const std::string& text, SysTime now, const char* expired = nullptr) {
  auto t = parse_rfc3339(text);
  if (!t) return text;
  auto d = std::chrono::floor<std::chrono::seconds>(now) - std::chrono::floor<std::chrono::seconds>(*t);
  std::string when = d.count() > 0 ? human_until(d) + " ago" : d.count() < 0 ? "in " + human_until(-d) : "now";
  if (expired) when = expired + (" " + when);
  return rfc3339(*t) + " (" + when + ")";
}

std::string by_cell(const StatusRow& r) {
  if (!r.held) return r.by;
  std::string who = r.holder.who();
  if (r.holder.after_windowctl) who += (who.empty() ? "" : ", ") + std::string("after windowctl");
  return who.empty() ? r.by : r.by + " (" + who + ")";
}

std::string override_cell(const StatusRow& r) {
  if (r.override_state.empty()) return "-";
  std::string until = r.override_expired
                          ? table_time(r.override_until, r.now, *r.override_expired ? "expired" : nullptr)
                          : r.override_until + " (unreadable)";
  std::string cell = r.override_state + " until " + until + (r.override_by.empty() ? "" : " by " + r.override_by);
  if (r.desired_by_override && !status_drift(r).empty()) cell += ", but " + status_drift(r);
  return cell;
}

std::string window_cell(const StatusRow& r) {
  if (r.window.empty()) return "-";
  if (!r.desired_by_override && !status_drift(r).empty()) return r.window + ", but " + status_drift(r);
  return r.window;
}

bool any_window(const std::vector<StatusRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const StatusRow& r) { return !r.window.empty(); });
}

// The OVERRIDE column appears only when some row has one, so the usual table stays as flux's.
bool any_override(const std::vector<StatusRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const StatusRow& r) { return !r.override_state.empty(); });
}

// Cells are made per row when needed, twice (widths, then text), so a chunk of rows is not
// copied into a table of strings on its way out.
std::string status_table(const std::vector<StatusRow>& rows, bool header, bool windows, bool overrides) {
  std::vector<std::string> head = {"NAMESPACE", "NAME", "SUSPENDED", "BY", "SINCE", "REASON", "READY", "REVISION"};
  // A fleet run's one table: the context in front, so a row reads which cluster it is of.
  const bool contexts = std::any_of(rows.begin(), rows.end(), [](const StatusRow& r) { return !r.context.empty(); });
  if (contexts) head.insert(head.begin(), "CONTEXT");
  if (windows) head.insert(head.end(), {"WINDOW", "NEXT OPEN", "NEXT CLOSE"});
  if (overrides) head.push_back("OVERRIDE");
  head.push_back("MESSAGE");
  auto cells = [&](const StatusRow& r) {
    std::vector<std::string> line = {r.ns,
                                     r.show_kind ? ascii_lower(r.kind) + "/" + r.name : r.name,
                                     r.suspended ? "True" : "False",
                                     by_cell(r),
                                     r.since.empty() ? "-" : table_time(r.since, r.now),
                                     r.reason.empty() ? "-" : quote_reason(r.reason, kTableReasonMax),
                                     r.ready,
                                     r.revision.empty() ? "-" : r.revision};
    if (contexts) line.insert(line.begin(), r.context);
    if (windows) {
      line.push_back(window_cell(r));
      for (const std::string* v : {&r.next_open, &r.next_close})
        line.push_back(v->empty() ? "-" : table_time(*v, r.now));
    }
    if (overrides) line.push_back(override_cell(r));
    line.push_back(r.message);
    // Every cell may carry an object's text (annotations, conditions): one terminal-safe line.
    for (auto& cell : line) cell = printable(cell, 1024);
    return line;
  };
  std::vector<std::size_t> width(head.size(), 0);
  auto measure = [&](const std::vector<std::string>& line) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  };
  measure(head);
  // A target that could not be read is said on stderr; the table has no row for it.
  for (const auto& r : rows)
    if (r.error.empty()) measure(cells(r));
  std::string out;
  auto emit = [&](const std::vector<std::string>& line) {
    const std::size_t start = out.size();
    for (std::size_t i = 0; i < line.size(); ++i) {
      out += line[i];
      if (i + 1 < line.size()) out.append(width[i] - line[i].size() + 3, ' ');
    }
    while (out.size() > start && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  // A chunk of failed targets only is no table: stderr says why, as kubectl's does.
  const bool any = std::any_of(rows.begin(), rows.end(), [](const StatusRow& r) { return r.error.empty(); });
  if (!any) return out;
  if (header) emit(head);
  for (const auto& r : rows)
    if (r.error.empty()) emit(cells(r));
  return out;
}

}  // namespace

std::string render_status(const std::vector<StatusRow>& rows, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    json list = json::array();
    for (const auto& r : rows) list.push_back(status_json(r));
    return results_document("status", std::move(list));
  }
  return status_table(rows, true, any_window(rows), any_override(rows));
}

void StatusWriter::add(const std::vector<StatusRow>& rows) {
  if (format_ == OutputFormat::kJson) {
    for (const auto& r : rows) json_.add(status_json(r));
    return;
  }
  if (std::none_of(rows.begin(), rows.end(), [](const StatusRow& r) { return r.error.empty(); })) return;
  const bool windows = windows_ || any_window(rows), overrides = overrides_ || any_override(rows);
  const bool header = !header_ || windows != windows_ || overrides != overrides_;
  out_ << status_table(rows, header, windows, overrides);
  header_ = true;
  windows_ = windows;
  overrides_ = overrides;
}

void StatusWriter::finish() {
  if (format_ == OutputFormat::kJson) {
    json_.finish();
  }
  // No rows at all: nothing on stdout, as kubectl get (the caller says so on stderr).
  out_ << std::flush;
}

}  // namespace windowctl
