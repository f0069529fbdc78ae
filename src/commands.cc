#include "commands.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "apply.h"
#include "resolve.h"
#include "timefmt.h"

namespace windowctl {

using nlohmann::json;

namespace {

void add_window_columns(StatusRow& row, const json& object, const Schedule& flags) {
  std::optional<Schedule> schedule;
  try {
    schedule = schedule_for(object, flags);
  } catch (const ConfigError& e) {
    row.window = "invalid";
    spdlog::warn("{}/{}: {}", row.ns, row.name, printable(e.what()));
    return;
  }
  if (!schedule) return;
  WindowState st = window_state(*schedule, std::chrono::system_clock::now());
  row.window = st.open ? "open" : "closed";
  std::optional<Interval> opening = st.next;
  std::optional<Interval> closing = st.open ? st.current : st.next;
  if (opening && !opening->starts_earlier) row.next_open = format_local(opening->start, *st.zone);
  if (closing && !closing->ends_later) row.next_close = format_local(closing->end, *st.zone);
}

// Status of every target: named ones first, then the selection a page at a time.
bool status(Client& client, const CommandOptions& opt, Resolution& res) {
  StatusWriter writer(std::cout, opt.output);
  std::vector<StatusRow> rows;
  bool ok = true;
  // A target that cannot be read is said on stderr, and -o json lists it with its error.
  auto failed = [&](const Work& w, std::string error) {
    spdlog::error("{}: {}", w.target.id(), error);
    StatusRow r;
    r.kind = std::string(kind_of(w.target, opt).kind);
    r.ns = w.target.ns;
    r.name = w.target.name;
    r.error = std::move(error);
    rows.push_back(std::move(r));
    ok = false;
  };
  auto row = [&](const Work& w) {
    try {
      const KindAdapter& kind = kind_of(w.target, opt);
      const KindVersion kv = res.version_for(kind, opt);
      if (!kv.discovery_error.empty()) throw std::runtime_error(kv.discovery_error);
      json object = w.listed ? *w.listed : client.call("GET", object_path(kind, kv.version, w.target.ns, w.target.name));
      StatusRow r = status_row(kind, object);
      r.show_kind = w.target.kind != nullptr;
      // The row is about the target asked for, whatever name the answer carries.
      r.ns = w.target.ns;
      r.name = w.target.name;
      add_window_columns(r, object, opt.schedule);
      if (opt.fail_on_held && r.by == "someone else") {
        spdlog::error("{}: held: suspended by someone else, not windowctl (adopt makes it windowctl's)", w.target.id());
        ok = false;
      }
      rows.push_back(std::move(r));
    } catch (const TransportError& e) {
      if (refused_by_tls(e)) rethrow_verify_as_config(e);
      failed(w, error_summary(e));
    } catch (const std::exception& e) {
      failed(w, error_summary(e));
    }
    if (rows.size() >= static_cast<std::size_t>(kListPageSize)) {
      writer.add(rows);
      rows.clear();
    }
  };
  SeenSet seen;
  for (const auto& t : res.named) {
    // The selection is of --kind: an object of another kind by the same name is not in it.
    if (&kind_of(t, opt) == opt.kind) seen.insert(t.ns, t.name);
    row(Work{t, std::nullopt});
  }
  if (res.list && !for_each_listed(client, opt, res, seen, row)) ok = false;
  writer.add(rows);
  writer.finish();
  return ok;
}

PlanInput plan_input(const CommandOptions& opt) {
  PlanInput in;
  // sync has no action of its own: Applier::input_for takes each object's from its window.
  if (opt.command->action) in.action = *opt.command->action;
  in.force = opt.force;
  in.relabel = opt.relabel;
  in.label_value = opt.label_value;
  in.reason = opt.reason;
  auto now = std::chrono::system_clock::now();
  in.now = rfc3339(now);
  in.token = rfc3339_nano(now);
  if (opt.override_for.count() > 0) {
    in.override_mode = OverrideMode::kSet;
    in.override_until = rfc3339(std::chrono::floor<std::chrono::seconds>(now + opt.override_for));
    in.override_by = opt.identity;
  }
  return in;
}

// Each target is decided, written and reported before the next: results stream out, so a run
// over a whole cluster holds one LIST page, not the cluster. --wait keeps what it waits for.
bool change(Client& client, const CommandOptions& opt, Resolution& res) {
  const PlanInput in = plan_input(opt);
  Applier applier(client, opt, res);
  ResultWriter writer(std::cout, opt.output, std::string(opt.command->name));
  std::vector<TargetResult> waiting;
  bool ok = true;
  auto handle = [&](const Work& w) {
    TargetResult r = applier.apply(w, in);
    ok = ok && !r.failed();
    if (opt.fail_on_held && r.decision && r.decision->outcome == Outcome::kHeld) ok = false;
    if (opt.wait && !opt.dry_run) {
      waiting.push_back(std::move(r));
    } else {
      writer.add(r);
    }
  };
  SeenSet seen;
  for (const auto& t : res.named) {
    if (&kind_of(t, opt) == opt.kind) seen.insert(t.ns, t.name);
    handle(Work{t, std::nullopt});
  }
  if (res.list && !for_each_listed(client, opt, res, seen, handle)) ok = false;
  if (!waiting.empty()) {
    applier.wait(waiting, in.token);
    for (const auto& r : waiting) {
      ok = ok && !r.failed();
      writer.add(r);
    }
  }
  writer.finish();
  spdlog::debug("{} requests, {} TLS handshakes, {} retries", client.stats().requests, client.stats().handshakes,
                client.stats().retries);
  return ok;
}

}  // namespace

int run_command(Client& client, const CommandOptions& options) {
  Resolution res = resolve(client, options);
  bool ok = options.command->id == CommandId::kStatus ? status(client, options, res) : change(client, options, res);
  return ok && res.ok ? 0 : 1;
}

}  // namespace windowctl
