#include "commands.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "apply.h"
#include "check.h"
#include "check_online.h"
#include "check_owners.h"
#include "cli.h"
#include "completion.h"
#include "config.h"
#include "fleet.h"
#include "ics.h"
#include "kinds.h"
#include "log.h"
#include "manifests.h"
#include "resolve.h"
#include "timefmt.h"

namespace windowctl {

using nlohmann::json;

namespace {

std::chrono::milliseconds duration_flag(const std::string& flag, const std::string& value) {
  auto d = parse_go_duration(value);
  if (!d) throw ConfigError("invalid " + flag + " \"" + value + "\": " + go_duration_problem(value));
  // Durations are added to clocks (deadlines, override ends); a century keeps every sum far
  // from where the nanosecond counts wrap (2262 for the system clock).
  if (*d > std::chrono::hours(876000)) {
    throw ConfigError("invalid " + flag + " \"" + value + "\": at most 876000h (100 years)");
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

// The window columns: the object's own windows (annotation) or the flags', at `now`.
WindowFacts window_facts(const std::string& id, const json& object, const Schedule& flags, SysTime now) {
  WindowFacts facts;
  std::optional<Schedule> schedule;
  try {
    schedule = schedule_for(object, flags);
  } catch (const ConfigError& e) {
    facts.state = "invalid";
    spdlog::warn("{}: {}", id, printable(e.what()));
    return facts;
  }
  if (!schedule) return facts;
  WindowState st = window_state(*schedule, now);
  facts.state = st.open ? "open" : "closed";
  // The edges sync records on the object (windowctl.io/next-open, -close), computed now.
  const Edges edges = next_edges(st);
  facts.next_open = edges.open;
  facts.next_close = edges.close;
  return facts;
}

// Status of every target: named ones first, then the selection a page at a time. A fleet run's
// context keeps its rows `into` its run for the one merged table.
bool status(Client& client, const CommandOptions& opt, Resolution& res, ContextRun* into) {
  StatusWriter writer(std::cout, opt.output);
  auto emit = [&](std::vector<StatusRow>& chunk) {
    if (!into) return writer.add(chunk);
    std::move(chunk.begin(), chunk.end(), std::back_inserter(into->rows));
  };
  std::vector<StatusRow> rows;
  bool ok = true;
  std::size_t shown = 0;
  // One instant for the whole table: every relative time and window verdict counts from it.
  const SysTime now = std::chrono::system_clock::now();
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
      json object =
          w.listed ? *w.listed : client.call("GET", object_path(kind, kv.version, w.target.ns, w.target.name));
      StatusRow r = status_row(kind, object, now, window_facts(w.target.id(), object, opt.schedule, now));
      r.show_kind = w.target.kind != nullptr;
      // The row is about the target asked for, whatever name the answer carries.
      r.ns = w.target.ns;
      r.name = w.target.name;
      if (opt.fail_on_held && r.held) {
        spdlog::error("{}: held: suspended by someone else{}, not windowctl (adopt makes it windowctl's)",
                      w.target.id(), r.holder.detail.empty() ? "" : " (" + printable(r.holder.detail, 512) + ")");
        ok = false;
      }
      rows.push_back(std::move(r));
    } catch (const TransportError& e) {
      if (refused_by_tls(e)) rethrow_verify_as_config(e);
      failed(w, error_summary(e));
    } catch (const std::exception& e) {
      failed(w, error_summary(e));
    }
    ++shown;
    if (rows.size() >= static_cast<std::size_t>(kListPageSize)) {
      emit(rows);
      rows.clear();
    }
  };
  SeenSet seen;
  for (const auto& t : res.named) {
    // The selection is of --kind: an object of another kind by the same name is not in it.
    if (&kind_of(t, opt) == opt.kind) seen.insert(t.ns, t.name);
    row(Work{t, std::nullopt});
  }
  const bool listed = !res.list || for_each_listed(client, opt, res, seen, row);
  emit(rows);
  if (!into) writer.finish();
  // An empty selection is an answer, not a failure; silence would look like a hang or a bug.
  if (listed && res.ok && shown == 0 && opt.output == OutputFormat::kText)
    say(opt.all_namespaces ? "No resources found" : "No resources found in " + opt.ns + " namespace.");
  return ok && listed;
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
bool change(Client& client, const CommandOptions& opt, Resolution& res, ContextRun* into) {
  const PlanInput in = plan_input(opt);
  Applier applier(client, opt, res);
  ResultWriter writer(std::cout, opt.output, std::string(opt.command->name));
  auto emit = [&](const TargetResult& r) {
    if (into) return into->results.push_back(r);
    writer.add(r);
  };
  std::vector<TargetResult> waiting;
  bool ok = true;
  auto handle = [&](const Work& w) {
    TargetResult r = applier.apply(w, in);
    if (r.deferred) return;  // in progress: finish_overrun reports it
    ok = ok && !r.failed();
    if (opt.fail_on_held && r.decision && r.decision->outcome == Outcome::kHeld) ok = false;
    if (opt.wait && !opt.dry_run) {
      waiting.push_back(std::move(r));
    } else {
      emit(r);
    }
  };
  SeenSet seen;
  for (const auto& t : res.named) {
    if (&kind_of(t, opt) == opt.kind) seen.insert(t.ns, t.name);
    handle(Work{t, std::nullopt});
  }
  if (res.list && !for_each_listed(client, opt, res, seen, handle)) ok = false;
  // Every settled target is closed already; those Flux was changing are closed as they settle.
  applier.finish_overrun(in, [&](const TargetResult& r) {
    ok = ok && !r.failed();
    emit(r);
  });
  if (!waiting.empty()) {
    applier.wait(waiting, in.token);
    for (const auto& r : waiting) {
      ok = ok && !r.failed();
      emit(r);
    }
  }
  if (!into) writer.finish();
  spdlog::debug("{} requests, {} TLS handshakes, {} retries", client.stats().requests, client.stats().handshakes,
                client.stats().retries);
  return ok;
}

// A run without the cluster: the command needs none, or check has only -f files to read.
int run_offline(const CommandLine& cli, const Build& build, SysTime at, const Kubeconfig& kubeconfig) {
  const Flags& f = cli.flags();
  const bool json_output = f.output == "json";
  switch (f.command->id) {
    case CommandId::kVersion:
      if (json_output) {
        json doc;
        doc["command"] = std::string(f.command->name);
        doc["version"] = std::string(build.version);
        doc["commit"] = std::string(build.commit);
        std::cout << doc.dump(2) << "\n";
      } else {
        std::cout << "windowctl " << build.version << " (commit " << build.commit << ")\n";
      }
      return kExitOk;
    case CommandId::kCompletion:
      if (f.list_contexts) {
        for (const auto& name : kubeconfig.contexts()) std::cout << name << "\n";
        return kExitOk;
      }
      std::cout << completion_script(cli.app(), f.shell);
      return kExitOk;
    case CommandId::kSchedule: {
      if (std::string problem = cli.flags_problem(); !problem.empty()) throw ConfigError(problem);
      const Schedule schedule =
          parse_schedule({f.windows, f.denies, f.freezes, f.window_calendars, f.deny_calendars, {}});
      SysTime until = SysTime::max();
      int count = f.count;
      if (cli.given("--until")) {
        auto parsed = parse_rfc3339(f.until);
        if (!parsed) throw ConfigError("invalid --until \"" + f.until + "\": it " + rfc3339_problem(f.until));
        if (*parsed <= at) throw ConfigError("--until must be after --at (default now)");
        until = *parsed;
        // --until bounds the list; --count, when given too, still caps it.
        if (!cli.given("--count")) count = 100000;
      }
      if (f.output == "ics") {
        std::cout << render_ics(schedule, std::chrono::floor<std::chrono::seconds>(at),
                                listed_windows(next_windows(schedule, at, count), until));
      } else {
        std::cout << render_schedule(schedule, at, count, json_output ? OutputFormat::kJson : OutputFormat::kText,
                                     until);
      }
      return f.exit_code && !is_open(schedule, at) ? kExitClosed : kExitOk;
    }
    case CommandId::kCheck: {
      const auto objects = parse_manifests(read_manifest_sources(f.files));
      std::vector<JobTargets> jobs;
      auto findings = check_objects(objects, at, &jobs);
      std::cout << render_findings(findings, json_output, jobs);
      if (std::string note = owners_offline_note(jobs); !note.empty()) spdlog::info("{}", note);
      // Silence would not tell a user whether check read what they meant it to read.
      if (findings.empty()) spdlog::info("no findings in {} object{}", objects.size(), objects.size() == 1 ? "" : "s");
      return has_error(findings) ? kExitFailed : kExitOk;
    }
    case CommandId::kHelp: return kExitOk;  // answered by CommandLine::parse
    case CommandId::kClose:
    case CommandId::kOpen:
    case CommandId::kRelabel:
    case CommandId::kAdopt:
    case CommandId::kSync:
    case CommandId::kStatus: break;
  }
  throw std::logic_error(std::string(f.command->name) + " has no run without the cluster");
}

// One context of a fleet run, on its own thread: its own Client (TLS context, connection,
// credentials, retry state), so nothing of one context reaches another's server. Whatever
// happens is kept in `run`; nothing escapes the thread.
void run_context(ContextRun& run, Config config, CommandOptions opt, const std::vector<std::string>& files,
                 SysTime at) {
  LogContext log(run.context);
  try {
    Client client(std::move(config), opt.client);
    opt.identity = client.config().identity;
    run.exit_code = opt.command->id == CommandId::kCheck ? run_check_online(client, opt, files, at, &run)
                                                         : run_command(client, opt, &run);
  } catch (const ConfigError& e) {
    run.exit_code = kExitUsage;
    run.error = e.what();
  } catch (const std::exception& e) {
    run.exit_code = kExitFailed;
    run.error = std::string("internal error: ") + e.what();
  }
  if (run.exit_code != 0 && run.error.empty()) run.error = log.first_error();
}

// --contexts, --all-contexts: every context selected runs the command at once, up to
// --max-concurrency of them; the report is printed once all have ended (docs/fleet.md).
int run_fleet(const CommandLine& cli, const CommandOptions& opt, const Kubeconfig& kubeconfig, SysTime at) {
  const Flags& f = cli.flags();
  // Every selection error is said before any request.
  const std::vector<std::string> names = select_contexts(kubeconfig.contexts(), f.contexts, f.all_contexts);
  std::vector<ContextRun> runs(names.size());
  std::vector<std::optional<Config>> configs(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    runs[i].context = names[i];
    // A context the kubeconfig cannot describe (a missing CA file, no such user) is that
    // context's failure (exit 2), not the others'.
    try {
      configs[i] = kubeconfig.config(names[i]);
    } catch (const ConfigError& e) {
      runs[i].exit_code = kExitUsage;
      runs[i].error = e.what();
    }
  }
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < runs.size();) {
      if (configs[i]) run_context(runs[i], std::move(*configs[i]), opt, f.files, at);
    }
  };
  std::vector<std::thread> threads;
  const std::size_t width = std::min<std::size_t>(static_cast<std::size_t>(f.max_concurrency), runs.size());
  for (std::size_t k = 1; k < width; ++k) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  std::cout << render_fleet(runs, opt.command->name, opt.output) << std::flush;
  for (const auto& r : runs) {
    if (r.exit_code != 0) spdlog::error("{}", context_failure_line(r));
  }
  return worst_exit_code(runs);
}

}  // namespace

CommandOptions command_options(const CommandLine& cli, const Build& build, const Getenv& getenv,
                               const ReadCalendar& read) {
  const Flags& f = cli.flags();
  CommandOptions opt;
  opt.command = f.command;
  opt.schedule = parse_schedule({f.windows, f.denies, f.freezes, f.window_calendars, f.deny_calendars, read});
  opt.kind = find_kind(f.kind);
  if (!opt.kind) throw ConfigError(unknown_kind_flag(f.kind));
  if (std::string problem = cli.flags_problem(); !problem.empty()) throw ConfigError(problem);
  // Names as arguments, as flux and kubectl take them, then --kustomizations.
  opt.names = f.args;
  opt.names.insert(opt.names.end(), f.names.begin(), f.names.end());
  opt.client.request_timeout = duration_flag("--request-timeout", f.request_timeout);
  if (opt.client.request_timeout.count() == 0) opt.client.request_timeout = std::chrono::hours(24);
  opt.client.user_agent = "windowctl/" + std::string(build.version);
  opt.wait_timeout = duration_flag("--timeout", f.timeout);
  opt.poll_interval = duration_flag("--poll-interval", f.poll_interval);
  opt.overrun = duration_flag("--overrun", f.overrun);
  opt.cutoff = duration_flag("--cutoff", f.cutoff);
  opt.all_namespaces = f.all_namespaces;
  opt.kind_targets = f.targets;
  opt.selector = f.selector;
  opt.all = f.all;
  opt.api_version = f.api_version;
  if (!opt.api_version.empty() && !valid_api_version(opt.api_version)) {
    throw ConfigError("invalid --api-version \"" + opt.api_version + "\" (v1, v2, v1beta2, ...)");
  }
  opt.force = f.force;
  opt.relabel = f.relabel;
  opt.label_value = f.reconcile;
  opt.dry_run = f.dry_run;
  opt.scheduled = f.scheduled;
  opt.fail_on_held = f.fail_on_held;
  opt.wait = f.wait;
  opt.reason = f.reason;
  if (!f.override_for.empty()) {
    opt.override_for = duration_flag("--for", f.override_for);
    if (opt.override_for.count() <= 0) throw ConfigError("--for must be longer than 0");
  }
  opt.output = f.output == "json" ? OutputFormat::kJson : OutputFormat::kText;
  if (cli.given("--notify")) {
    std::string problem;
    opt.notify = parse_notify_url(f.notify, &problem);
    if (!opt.notify) throw ConfigError("invalid --notify \"" + f.notify.substr(0, 256) + "\": " + problem);
    // An absent receiver must not hold the job up: a notification waits 10 s at most.
    opt.notify_timeout = std::min<std::chrono::milliseconds>(opt.client.request_timeout, std::chrono::seconds(10));
  }
  opt.ns = default_namespace(f.ns, getenv);
  return opt;
}

int dispatch(const CommandLine& cli, const Build& build, const Connect& connect, const Kubeconfig& kubeconfig) {
  const Flags& f = cli.flags();
  SysTime at = std::chrono::system_clock::now();
  if (!f.at.empty()) {
    auto parsed = parse_rfc3339(f.at);
    if (!parsed) throw ConfigError("invalid --at \"" + f.at + "\": it " + rfc3339_problem(f.at));
    at = *parsed;
  }
  if (!f.needs_cluster()) return run_offline(cli, build, at, kubeconfig);
  CommandOptions opt = command_options(cli, build);
  if (f.fleet()) return run_fleet(cli, opt, kubeconfig, at);
  std::unique_ptr<Client> client = connect(opt.client);
  opt.identity = client->config().identity;
  // check: offline rules over its -f files too, then the live ones (check_online.h).
  if (opt.command->id == CommandId::kCheck) return run_check_online(*client, opt, f.files, at);
  return run_command(*client, opt);
}

int run_command(Client& client, const CommandOptions& options, ContextRun* into) {
  Resolution res = resolve(client, options);
  bool ok = options.command->id == CommandId::kStatus ? status(client, options, res, into)
                                                      : change(client, options, res, into);
  return ok && res.ok ? 0 : 1;
}

}  // namespace windowctl
