#include "commands.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "api_error.h"
#include "event.h"
#include "http.h"
#include "readiness.h"
#include "targets.h"
#include "timefmt.h"

namespace windowctl {

using nlohmann::json;

namespace {

std::string error_summary(const std::exception& e) {
  if (auto* api = dynamic_cast<const ApiError*>(&e)) return api->summary();
  if (auto* t = dynamic_cast<const TransportError*>(&e)) {
    switch (t->kind) {
      case TransportError::Kind::kTimeout: return std::string("timeout: ") + t->what();
      case TransportError::Kind::kProtocol: return std::string("bad response: ") + t->what();
      default: return std::string("unreachable: ") + t->what();
    }
  }
  return e.what();
}

// A certificate the CA does not vouch for is a configuration error, not a flaky network.
[[noreturn]] void rethrow_verify_as_config(const TransportError& e) { throw ConfigError(e.what()); }

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "windowctl";
  return buf;
}

struct Work {
  Target target;
  std::optional<json> listed;  // the object as a LIST returned it, saving a GET
};

class Runner {
 public:
  Runner(Client& client, const CommandOptions& options) : client_(client), opt_(options), kind_(*options.kind) {}

  int run() {
    std::vector<Work> work;
    bool failed = !resolve(work);
    if (opt_.command == "status") return status(work) && !failed ? 0 : 1;
    return change(work) && !failed ? 0 : 1;
  }

 private:
  // Picks the API version and the targets. Returns false when part of that failed.
  bool resolve(std::vector<Work>& work) {
    bool ok = true;
    version_ = opt_.api_version;
    if (version_.empty()) {
      try {
        version_ = choose_version(kind_, client_.call("GET", group_path(kind_)));
        if (version_.empty()) discovery_error_ = "the server serves no version of " + std::string(kind_.group);
      } catch (const ApiError& e) {
        discovery_error_ = e.reason() == Reason::kNotFound
                               ? "the server does not serve " + std::string(kind_.group) + " (is Flux installed?)"
                               : error_summary(e);
      } catch (const TransportError& e) {
        if (e.kind == TransportError::Kind::kVerify) rethrow_verify_as_config(e);
        discovery_error_ = error_summary(e);
      }
      if (!discovery_error_.empty()) spdlog::error("discovery of {}: {}", kind_.group, discovery_error_);
    }
    for (const auto& t : parse_targets(opt_.names, opt_.ns)) work.push_back({t, std::nullopt});
    bool list_all = opt_.all || (opt_.command == "status" && opt_.names.empty() && opt_.selector.empty());
    if ((list_all || !opt_.selector.empty()) && discovery_error_.empty()) {
      std::string path = collection_path(kind_, version_, opt_.ns);
      if (!opt_.selector.empty()) path += "?labelSelector=" + http::query_escape(opt_.selector);
      try {
        json list = client_.call("GET", path);
        std::size_t before = work.size();
        for (const auto& item : list.value("items", json::array())) {
          Target t{item["metadata"].value("namespace", opt_.ns), item["metadata"].value("name", "")};
          bool dup = false;
          for (auto& w : work) {
            if (w.target == t) {
              w.listed = item;
              dup = true;
            }
          }
          if (!dup) work.push_back({t, item});
        }
        if (work.size() == before && opt_.command != "status" && opt_.names.empty()) {
          // An empty selection is almost always a typo; a green job that did nothing is the trap to avoid.
          spdlog::error("no {} in namespace {} matches {}", kind_.plural, opt_.ns,
                        opt_.selector.empty() ? std::string("--all") : "selector \"" + opt_.selector + "\"");
          ok = false;
        }
      } catch (const ApiError& e) {
        spdlog::error("listing {} in namespace {}: {}", kind_.plural, opt_.ns, error_summary(e));
        ok = false;
      } catch (const TransportError& e) {
        if (e.kind == TransportError::Kind::kVerify) rethrow_verify_as_config(e);
        spdlog::error("listing {} in namespace {}: {}", kind_.plural, opt_.ns, error_summary(e));
        ok = false;
      }
    } else if (!discovery_error_.empty() && (list_all || !opt_.selector.empty())) {
      ok = false;
    }
    return ok;
  }

  json get(const Target& t) { return client_.call("GET", object_path(kind_, version_, t.ns, t.name)); }

  void add_window_columns(StatusRow& row, const json& object) const {
    std::optional<Schedule> schedule;
    try {
      schedule = schedule_for(object, opt_.schedule);
    } catch (const ConfigError& e) {
      row.window = "invalid";
      spdlog::warn("{}/{}: {}", row.ns, row.name, e.what());
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

  bool status(const std::vector<Work>& work) {
    std::vector<StatusRow> rows;
    bool ok = true;
    for (const auto& w : work) {
      try {
        if (!discovery_error_.empty()) throw std::runtime_error(discovery_error_);
        json object = w.listed ? *w.listed : get(w.target);
        rows.push_back(status_row(kind_, object));
        add_window_columns(rows.back(), object);
      } catch (const TransportError& e) {
        if (e.kind == TransportError::Kind::kVerify) rethrow_verify_as_config(e);
        spdlog::error("{}: {}", w.target.id(), error_summary(e));
        ok = false;
      } catch (const std::exception& e) {
        spdlog::error("{}: {}", w.target.id(), error_summary(e));
        ok = false;
      }
    }
    std::cout << render_status(rows, opt_.output) << std::flush;
    return ok;
  }

  // sync: the schedule (the object's own or the flags') or an active override picks the action.
  PlanInput sync_input(const json& object, PlanInput in) const {
    auto schedule = schedule_for(object, opt_.schedule);
    if (!schedule) throw std::runtime_error(std::string("no window: pass --window or annotate the object with ") + kWindowAnnotation);
    auto now = std::chrono::system_clock::now();
    SyncVerdict v = sync_verdict(read_state(object), is_open(*schedule, now), now);
    in.action = v.action;
    in.override_mode = v.override_mode;
    in.cause = v.cause;
    return in;
  }

  PlanInput plan_input() const {
    PlanInput in;
    in.action = opt_.command == "open" ? Action::kOpen : opt_.command == "close" ? Action::kClose : Action::kRelabel;
    in.force = opt_.force;
    in.relabel = opt_.relabel;
    in.label_value = opt_.label_value;
    in.reason = opt_.reason;
    auto now = std::chrono::system_clock::now();
    in.now = rfc3339(now);
    in.token = rfc3339_nano(now);
    if (opt_.override_for.count() > 0) {
      in.override_mode = OverrideMode::kSet;
      in.override_until = rfc3339(std::chrono::floor<std::chrono::seconds>(now + opt_.override_for));
      in.override_by = opt_.identity;
    }
    return in;
  }

  void record_event(const json& object, const Decision& d) {
    if (d.event_reason.empty()) return;
    try {
      json event = make_event(kind_, version_, object, {d.event_reason, d.event_type, d.event_message, instance_},
                              std::chrono::system_clock::now());
      std::string ns = object["metadata"].value("namespace", "");
      client_.call("POST", "/api/v1/namespaces/" + ns + "/events", &event);
    } catch (const std::exception& e) {
      spdlog::warn("{}/{}: could not record Event {}: {}", object["metadata"].value("namespace", ""),
                   object["metadata"].value("name", ""), d.event_reason, error_summary(e));
    }
  }

  // Applies one target; on a conflict (the object changed after it was read) decides again.
  TargetResult apply(const Work& w, const PlanInput& in) {
    TargetResult r{w.target.ns, w.target.name, std::string(kind_.kind)};
    r.dry_run = opt_.dry_run;
    constexpr int kMaxConflicts = 3;
    for (int attempt = 0;; ++attempt) {
      try {
        if (!discovery_error_.empty()) throw std::runtime_error(discovery_error_);
        json object = attempt == 0 && w.listed ? *w.listed : get(w.target);
        Decision d = decide(object, opt_.command == "sync" ? sync_input(object, in) : in);
        r.decision = d;
        r.current = describe_state(object);
        if (opt_.dry_run) return r;
        if (d.patch) {
          std::string path = object_path(kind_, version_, w.target.ns, w.target.name) + "?fieldManager=windowctl";
          object = client_.call("PATCH", path, &*d.patch, "application/merge-patch+json");
          ++writes_;
        }
        if (d.outcome == Outcome::kHeld) {
          spdlog::warn("{}: held: suspended by someone else, not windowctl; left suspended (open --force resumes it)", w.target.id());
        }
        record_event(object, d);
        return r;
      } catch (const ApiError& e) {
        if (e.reason() == Reason::kConflict && attempt + 1 < kMaxConflicts) {
          spdlog::info("{}: changed while windowctl was deciding; reading it again", w.target.id());
          continue;
        }
        r.error = error_summary(e);
      } catch (const TransportError& e) {
        if (e.kind == TransportError::Kind::kVerify && writes_ == 0) rethrow_verify_as_config(e);
        r.error = error_summary(e);
      } catch (const std::exception& e) {
        r.error = error_summary(e);
      }
      r.decision.reset();  // decided, but not carried out: report the failure alone
      spdlog::error("{}: {}", w.target.id(), r.error);
      return r;
    }
  }

  void wait(std::vector<TargetResult>& results, const PlanInput& in) {
    std::vector<TargetResult*> pending;
    for (auto& r : results) {
      if (r.failed() || !r.decision) continue;
      if (r.decision->outcome == Outcome::kOpened || r.decision->outcome == Outcome::kAlreadyOpen) pending.push_back(&r);
    }
    const auto deadline = Clock::now() + opt_.wait_timeout;
    while (!pending.empty()) {
      for (auto it = pending.begin(); it != pending.end();) {
        TargetResult& r = **it;
        ReadyVerdict v;
        try {
          v = evaluate_readiness(get({r.ns, r.name}), r.decision->wait_for_token ? in.token : std::string());
        } catch (const std::exception& e) {
          v = {Readiness::kFailed, error_summary(e)};
        }
        if (v.state == Readiness::kPending) {
          ++it;
          continue;
        }
        if (v.state == Readiness::kReady) {
          r.wait = "ready";
        } else {
          r.error = "wait failed: " + v.message;
          spdlog::error("{}/{}: {}", r.ns, r.name, r.error);
        }
        it = pending.erase(it);
      }
      if (pending.empty()) break;
      if (Clock::now() + opt_.poll_interval > deadline) {
        for (TargetResult* r : pending) {
          r->error = "wait failed: not ready within " + std::to_string(opt_.wait_timeout.count() / 1000) + "s";
          spdlog::error("{}/{}: {}", r->ns, r->name, r->error);
        }
        break;
      }
      std::this_thread::sleep_for(opt_.poll_interval);
    }
  }

  bool change(const std::vector<Work>& work) {
    PlanInput in = plan_input();
    std::vector<TargetResult> results;
    for (const auto& w : work) results.push_back(apply(w, in));
    if (opt_.wait && !opt_.dry_run) wait(results, in);
    std::cout << render_results(results, opt_.output) << std::flush;
    bool ok = true;
    for (const auto& r : results) ok = ok && !r.failed();
    spdlog::debug("{} requests, {} TLS handshakes, {} retries", client_.stats().requests, client_.stats().handshakes,
                  client_.stats().retries);
    return ok;
  }

  Client& client_;
  const CommandOptions& opt_;
  const KindAdapter& kind_;
  std::string version_;
  std::string discovery_error_;
  std::string instance_ = hostname();
  int writes_ = 0;
};

}  // namespace

int run_command(Client& client, const CommandOptions& options) { return Runner(client, options).run(); }

}  // namespace windowctl
