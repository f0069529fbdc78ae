#include "apply.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "api_error.h"
#include "errors.h"
#include "event.h"
#include "readiness.h"
#include "sync.h"
#include "util.h"

namespace windowctl {

using nlohmann::json;

namespace {

// What an Alert shows as the change, from what was done.
const char* window_word(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOpened: return "opened";
    case Outcome::kClosed: return "closed";
    case Outcome::kHeld: return "held";
    case Outcome::kRelabeled: return "relabeled";
    case Outcome::kAdopted: return "adopted";
    default: return "unchanged";
  }
}

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "windowctl";
  return buf;
}

// How logs name a result: as its target's id() does.
std::string label(const TargetResult& r) { return object_label(r.show_kind ? r.kind : "", r.ns, r.name); }

}  // namespace

// sync asks the object's window; --scheduled lets an active override win over the job's edge.
// Whenever a schedule governs the object (sync's, or the object's own window annotations for
// open and close), the decision also keeps its next edges on the object and, closing while the
// window is closed, says so in Flux's reason.
PlanInput Applier::input_for(const KindAdapter& kind, const json& object, const PlanInput& in, Opening* opening) const {
  auto now = std::chrono::system_clock::now();
  opening->now = now;
  const CommandId id = opt_.command->id;
  std::optional<Schedule> schedule;
  if (id == CommandId::kSync) {
    schedule = schedule_for(object, opt_.schedule);
    if (!schedule)
      throw std::runtime_error(std::string("no window: pass --window or annotate the object with ") +
                               kWindowAnnotation);
  } else if (id == CommandId::kOpen || id == CommandId::kClose) {
    // A malformed annotation is sync's error to report (and status's); an operator's open or
    // close does what it was asked, only without the edges.
    try {
      schedule = schedule_for(object, opt_.schedule);
    } catch (const ConfigError& e) {
      spdlog::debug("{}: no window edges: {}", metadata_string(object, "name"), e.what());
    }
  }
  std::optional<WindowState> window;
  if (schedule) window = window_state(*schedule, now);
  PlanInput out = in;
  bool by_override = in.override_mode == OverrideMode::kSet;
  if (id == CommandId::kSync) {
    const bool open = window->open;
    const ObjectState state = read_state(object, kind.pause);
    SyncVerdict v = sync_verdict(state, open, now);
    out.action = v.action;
    out.override_mode = v.override_mode;
    out.cause = v.cause;
    by_override = v.override_active;
    if (v.override_active) {
      // The precedence (docs/windows.md): an unexpired override beats the schedule, a freeze
      // included; the output says which decided, and over what.
      PlanInput asked = in;
      asked.action = open ? Action::kOpen : Action::kClose;
      out.override_note = scheduled_input(state, asked, now).override_note;
      bool frozen = std::any_of(schedule->freeze.begin(), schedule->freeze.end(),
                                [&](const Interval& f) { return f.start <= now && now < f.end; });
      if ((v.action == Action::kOpen) != open) out.override_note += frozen ? ", over a freeze" : ", over the window";
    }
  } else if (opt_.scheduled) {
    const ObjectState state = read_state(object, kind.pause);
    out = scheduled_input(state, in, now);
    by_override = override_expired(state, now) == false;
  }
  if (window) {
    const Edges edges = next_edges(*window);
    out.edges = true;
    out.next_open = edges.open ? rfc3339(*edges.open) : "";
    out.next_close = edges.close ? rfc3339(*edges.close) : "";
    if (out.action == Action::kClose && !by_override) out.window_reason = closed_flux_reason(*schedule, now, *window);
    // --cutoff measures the window being opened: sync's, or a scheduled open's object window.
    opening->by_window =
        window->open && out.action == Action::kOpen && !by_override && (id == CommandId::kSync || opt_.scheduled);
    opening->closes = edges.close;
  } else if (opt_.cutoff.count() > 0 && out.action == Action::kOpen) {
    spdlog::warn("{}: --cutoff: the object has no window ({}), so nothing says when it closes: opened as scheduled",
                 metadata_string(object, "name"), kWindowAnnotation);
  }
  return out;
}

// The Event is about the target windowctl asked for, in its namespace: never about whatever
// name or namespace the server's answer carries (another object, a number, a path). The uid and
// resourceVersion are taken only from an answer that names the target.
json event_subject(const Target& t, const json& answer) {
  json subject;
  json& meta = subject["metadata"];
  meta["name"] = t.name;
  meta["namespace"] = t.ns;
  if (metadata_string(answer, "name") == t.name && metadata_string(answer, "namespace") == t.ns) {
    for (const char* key : {"uid", "resourceVersion"}) {
      std::string value = metadata_string(answer, key);
      if (!value.empty()) meta[key] = value;
    }
  }
  return subject;
}

void Applier::record_event(const KindVersion& kv, const Target& t, const json& object, const Decision& d) {
  if (d.event_reason.empty()) return;
  if (instance_.empty()) instance_ = hostname();
  json event = make_event(*kv.kind, kv.version, event_subject(t, object),
                          {d.event_reason, d.event_type, d.event_message, instance_}, std::chrono::system_clock::now());
  // Flux's alerts hear of it whether or not the core Event could be recorded.
  if (notifier_) notifier_->send(flux_event(event, window_word(d.outcome)));
  try {
    client_.call("POST", "/api/v1/namespaces/" + t.ns + "/events", &event);
  } catch (const ApiError& e) {
    // The name is the object's plus a nanosecond stamp: one that exists already is this very
    // Event, posted by an attempt whose answer was lost.
    if (e.reason() == Reason::kAlreadyExists) {
      spdlog::debug("{}: Event {} was recorded by an attempt whose answer was lost", t.id(), d.event_reason);
      return;
    }
    spdlog::warn("{}: could not record Event {}: {}", t.id(), d.event_reason, error_summary(e));
  } catch (const std::exception& e) {
    spdlog::warn("{}: could not record Event {}: {}", t.id(), d.event_reason, error_summary(e));
  }
}

void Applier::notify_failed(const KindVersion& kv, const Target& t, const std::string& error) {
  if (!notifier_) return;
  if (instance_.empty()) instance_ = hostname();
  const std::string name(opt_.command->name);
  std::string verb = name;
  verb[0] = static_cast<char>(verb[0] - 'a' + 'A');
  json event = make_event(*kv.kind, kv.version, event_subject(t, json::object()),
                          {"Window" + verb + "Failed", "Warning", name + " failed: " + error, instance_},
                          std::chrono::system_clock::now());
  notifier_->send(flux_event(event, "failed"));
}

TargetResult Applier::apply(const Work& w, const PlanInput& in) {
  const KindVersion kv = res_.version_for(kind_of(w.target, opt_), opt_);
  const KindAdapter& kind = *kv.kind;
  const std::string& version = kv.version;
  TargetResult r{w.target.ns, w.target.name, std::string(kind.kind)};
  r.show_kind = w.target.kind != nullptr;
  r.dry_run = opt_.dry_run;
  // The decision whose PATCH went out without a success coming back (the answer lost, or a 409
  // from the client's own retry of it): the next read tells whether it landed.
  std::optional<Decision> sent;
  auto landed = [&](const json& object) {
    spdlog::warn("{}: the answer to windowctl's PATCH was lost, but the object shows it: it landed", w.target.id());
    r.decision = *sent;
    ++writes_;
    record_event(kv, w.target, object, *sent);
    return r;
  };
  constexpr int kMaxConflicts = 3;
  for (int attempt = 0;; ++attempt) {
    try {
      if (!kv.discovery_error.empty()) throw std::runtime_error(kv.discovery_error);
      json object = attempt == 0 && w.listed
                        ? *w.listed
                        : client_.call("GET", object_path(kind, version, w.target.ns, w.target.name));
      if (sent && patch_visible(object, *sent->patch)) return landed(object);
      sent.reset();
      Opening opening;
      const PlanInput input = input_for(kind, object, in, &opening);
      Decision d =
          apply_cutoff(decide(object, input, kind.pause), opening.by_window, opening.now, opening.closes, opt_.cutoff);
      if (d.outcome == Outcome::kClosed && !opt_.dry_run && opt_.overrun.count() > 0) {
        if (!finishing_) {
          // Suspending now would stop Flux half-way (a failed upgrade's rollback would wait for
          // the window to open): close it once it settles, in finish_overrun.
          if (InProgress p = in_progress(object); p.active) {
            spdlog::info("{}: in progress ({}): closing it once it settles, within --overrun {}", w.target.id(),
                         printable(p.reason, 512),
                         human_duration(std::chrono::duration_cast<std::chrono::seconds>(opt_.overrun)));
            deferred_.push_back({w.target, p.reason, Clock::now()});
            r.deferred = true;
            return r;
          }
        } else if (finishing_expired_) {
          d.event_type = "Warning";
          d.event_message += "; closed while still in progress after --overrun " +
                             human_duration(std::chrono::duration_cast<std::chrono::seconds>(opt_.overrun)) + " (" +
                             printable(finishing_->reason, 512) + ")";
        }
      }
      r.decision = d;
      r.current = describe_state(object, kind.pause);
      if (opt_.dry_run) return r;
      if (d.patch) {
        // Every write is conditional on the state it was decided on. An object without a
        // resourceVersion is not one the API server sent: deciding on it and writing without the
        // precondition could overwrite what someone else just did.
        if (!d.patch->contains("/metadata/resourceVersion"_json_pointer)) {
          throw std::runtime_error(
              "the object as read has no resourceVersion, so no write can be conditional on it; nothing changed");
        }
        std::string path = object_path(kind, version, w.target.ns, w.target.name) + "?fieldManager=windowctl";
        sent = d;
        object = client_.call("PATCH", path, &*d.patch, "application/merge-patch+json");
        sent.reset();
        ++writes_;
      }
      if (d.outcome == Outcome::kHeld) {
        auto level = opt_.fail_on_held ? spdlog::level::err : spdlog::level::warn;
        spdlog::log(level, "{}: held: suspended by someone else{}, not windowctl; left suspended ({})", w.target.id(),
                    d.held.empty() ? "" : " (" + printable(d.held, 512) + ")",
                    opt_.command->id == CommandId::kSync ? "sync --force resumes it; adopt makes it windowctl's"
                                                         : "open --force resumes it; adopt makes it windowctl's");
      }
      record_event(kv, w.target, object, d);
      return r;
    } catch (const ApiError& e) {
      if (e.reason() == Reason::kConflict && attempt + 1 < kMaxConflicts) {
        spdlog::info("{}: changed while windowctl was deciding; reading it again", w.target.id());
        continue;
      }
      r.error = error_summary(e);
    } catch (const TransportError& e) {
      if (refused_by_tls(e) && writes_ == 0 && !sent) rethrow_verify_as_config(e);
      std::string error = error_summary(e);
      if (sent) {
        // Said plainly either way: a write that landed is reported as landed, never as failed.
        try {
          json object = client_.call("GET", object_path(kind, version, w.target.ns, w.target.name));
          if (patch_visible(object, *sent->patch)) return landed(object);
          error += " (the PATCH did not land: nothing changed)";
        } catch (const std::exception& again) {
          error += " (the PATCH was sent; whether it landed is unknown: reading the object failed too: " +
                   error_summary(again) + ")";
        }
      }
      r.error = error;
    } catch (const std::exception& e) {
      r.error = error_summary(e);
    }
    r.decision.reset();  // decided, but not carried out: report the failure alone
    spdlog::error("{}: {}", w.target.id(), r.error);
    if (!opt_.dry_run) notify_failed(kv, w.target, r.error);
    return r;
  }
}

void Applier::wait(std::vector<TargetResult>& results, const std::string& token) {
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
        const KindAdapter* kind = find_kind(r.kind);
        if (!kind) throw std::runtime_error("internal error: unknown kind " + r.kind);
        const KindVersion kv = res_.version_for(*kind, opt_);
        // Static kinds (Alert, Provider) have no status to echo the token in.
        v = kind_readiness(*kind, client_.call("GET", object_path(*kind, kv.version, r.ns, r.name)),
                           r.decision->wait_for_token && kind->has_status ? token : std::string());
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
        spdlog::error("{}: {}", label(r), r.error);
      }
      it = pending.erase(it);
    }
    if (pending.empty()) break;
    if (Clock::now() + opt_.poll_interval > deadline) {
      for (TargetResult* r : pending) {
        r->error = "wait failed: not ready within " + std::to_string(opt_.wait_timeout.count() / 1000) + "s";
        spdlog::error("{}: {}", label(*r), r->error);
      }
      break;
    }
    std::this_thread::sleep_for(opt_.poll_interval);
  }
}

void Applier::finish_overrun(const PlanInput& in, const std::function<void(const TargetResult&)>& done) {
  PlanInput input = in;
  while (!deferred_.empty()) {
    // Read each target every poll interval, and at its own deadline: none waits longer than asked.
    auto wake = Clock::now() + opt_.poll_interval;
    for (const Deferred& d : deferred_) wake = std::min(wake, d.since + opt_.overrun);
    std::this_thread::sleep_until(wake);
    input.now = rfc3339(std::chrono::system_clock::now());  // suspended-at: when it was closed
    for (std::size_t i = 0; i < deferred_.size();) {
      Deferred& d = deferred_[i];
      std::optional<json> object;
      InProgress p;
      try {
        const KindVersion kv = res_.version_for(kind_of(d.target, opt_), opt_);
        object = client_.call("GET", object_path(*kv.kind, kv.version, d.target.ns, d.target.name));
        p = in_progress(*object);
      } catch (const std::exception& e) {
        // apply() reads it again and reports what fails.
        spdlog::debug("{}: reading it during --overrun failed: {}", d.target.id(), error_summary(e));
      }
      const auto waited = Clock::now() - d.since;
      if (p.active && waited < opt_.overrun) {
        d.reason = p.reason;
        ++i;
        continue;
      }
      if (p.active) d.reason = p.reason;
      finishing_ = &d;
      finishing_expired_ = p.active;
      TargetResult r = apply(Work{d.target, std::move(object)}, input);
      finishing_ = nullptr;
      r.in_progress = d.reason;
      r.overrun_waited = std::chrono::duration_cast<std::chrono::milliseconds>(waited);
      r.overrun_expired = p.active;
      if (p.active && r.decision && r.decision->outcome == Outcome::kClosed) {
        spdlog::warn("{}: closed while still in progress after --overrun {}: {}", d.target.id(),
                     human_duration(std::chrono::duration_cast<std::chrono::seconds>(opt_.overrun)),
                     printable(d.reason, 512));
      }
      deferred_.erase(deferred_.begin() + static_cast<std::ptrdiff_t>(i));
      done(r);
    }
  }
}

}  // namespace windowctl
