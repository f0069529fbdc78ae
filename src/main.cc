// windowctl: suspend, resume and relabel Flux objects for reconciliation windows.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include "check.h"
#include "check_online.h"
#include "cli.h"
#include "client.h"
#include "commands.h"
#include "completion.h"
#include "config.h"
#include "kinds.h"
#include "log.h"
#include "manifests.h"
#include "notify.h"
#include "output.h"
#include "sync.h"
#include "timefmt.h"
#include "utf8.h"
#include "version.h"

namespace windowctl {
namespace {

std::chrono::milliseconds duration_flag(const std::string& flag, const std::string& value) {
  auto d = parse_go_duration(value);
  if (!d) throw ConfigError("invalid " + flag + " \"" + value + "\": use a duration like 30s, 5m or 1h30m");
  // Durations are added to clocks (deadlines, override ends); a century keeps every sum far
  // from where the nanosecond counts wrap (2262 for the system clock).
  if (*d > std::chrono::hours(876000)) throw ConfigError("invalid " + flag + " \"" + value + "\": at most 876000h (100 years)");
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  // Errors in the arguments themselves are logged as every other error is, in the format asked.
  setup_logging(log_format_of(args), false);
  CommandLine cli(program_name(argc > 0 ? argv[0] : nullptr));
  if (auto exit_code = cli.parse(std::move(args), std::cout)) return *exit_code;
  const Flags& f = cli.flags();
  const std::string& command = cli.command();
  if (command == "version") {
    if (f.output == "json") {
      std::cout << nlohmann::json{{"command", "version"}, {"version", kVersion}, {"commit", kCommit}}.dump(2) << "\n";
    } else {
      std::cout << "windowctl " << kVersion << " (commit " << kCommit << ")\n";
    }
    return kExitOk;
  }
  if (command == "completion") {
    std::cout << completion_script(cli.app(), f.shell);
    return kExitOk;
  }
  setup_logging(f.log_format == "json" ? LogFormat::kJson : LogFormat::kText, f.verbose);
  try {
    // Manifests alone: offline, nothing sent. With targets, or with neither: live (check_online.h).
    SysTime at = std::chrono::system_clock::now();
    if (!f.at.empty()) {
      auto parsed = parse_rfc3339(f.at);
      if (!parsed) throw ConfigError("invalid --at \"" + f.at + "\": it " + rfc3339_problem(f.at));
      at = *parsed;
    }
    if (command == "check" && !f.files.empty() && !f.selects_targets()) {
      const auto objects = parse_manifests(read_manifest_sources(f.files));
      std::vector<JobTargets> jobs;
      auto findings = check_objects(objects, at, &jobs);
      std::cout << render_findings(findings, f.output == "json", jobs);
      // Silence would not tell a user whether check read what they meant it to read.
      if (findings.empty()) spdlog::info("no findings in {} object{}", objects.size(), objects.size() == 1 ? "" : "s");
      return has_error(findings) ? kExitFailed : 0;
    }
    Schedule schedule_flags = parse_schedule({f.windows, f.denies, f.freezes});
    if (command == "schedule") {
      std::cout << render_schedule(schedule_flags, at, f.count, f.output == "json" ? OutputFormat::kJson : OutputFormat::kText);
      return 0;
    }
    CommandOptions opt;
    opt.command = command;
    opt.kind = find_kind(f.kind);
    if (!opt.kind) throw ConfigError("unknown --kind \"" + f.kind + "\": use one of " + kinds_help());
    if (std::string problem = cli.flags_problem(); !problem.empty()) throw ConfigError(problem);
    // Names as arguments, as flux and kubectl take them, then --kustomizations.
    std::vector<std::string> names = f.args;
    names.insert(names.end(), f.names.begin(), f.names.end());
    ClientOptions client_options;
    client_options.request_timeout = duration_flag("--request-timeout", f.request_timeout);
    if (client_options.request_timeout.count() == 0) client_options.request_timeout = std::chrono::hours(24);
    client_options.user_agent = std::string("windowctl/") + kVersion;
    opt.wait_timeout = duration_flag("--timeout", f.timeout);
    opt.poll_interval = duration_flag("--poll-interval", f.poll_interval);
    opt.names = std::move(names);
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
    opt.schedule = std::move(schedule_flags);
    if (cli.given("--notify")) {
      const std::string& url = f.notify;
      std::string problem;
      opt.notify = parse_notify_url(url, &problem);
      if (!opt.notify) throw ConfigError("invalid --notify \"" + url.substr(0, 256) + "\": " + problem);
      // An absent receiver must not hold the job up: a notification waits 10 s at most.
      opt.notify_timeout = std::min<std::chrono::milliseconds>(client_options.request_timeout, std::chrono::seconds(10));
      opt.user_agent = client_options.user_agent;
    }

    opt.ns = default_namespace(f.ns, process_getenv());
    Config config = infer_config({f.kubeconfig, f.context}, process_getenv());
    spdlog::debug("using {} at {}", config.origin, config.server);
    opt.identity = config.identity;
    Client client(std::move(config), client_options);
    if (opt.command == "check") return run_check_online(client, opt, f.files, at);
    return run_command(client, opt);
  } catch (const ConfigError& e) {
    spdlog::error("{}", e.what());
    return kExitUsage;
  }
}

}  // namespace
}  // namespace windowctl

// libstdc++'s default terminate handler names the escaping exception's type, and for that links
// the whole C++ demangler (about 42 KB of a 4 MiB budget). main catches every exception, so a
// terminate is a bug either way; a fixed line and the abort keep the core dump for it.
namespace __gnu_cxx {
[[gnu::used]] void __verbose_terminate_handler() {
  static const char kLine[] = "windowctl: internal error: terminate called\n";
  (void)!::write(2, kLine, sizeof kLine - 1);
  std::abort();
}
}  // namespace __gnu_cxx

int main(int argc, char** argv) {
  // A server that closes the connection while windowctl writes is an error to report and retry
  // (EPIPE), not a silent death by SIGPIPE halfway through a run.
  std::signal(SIGPIPE, SIG_IGN);
  windowctl::init_openssl();
  try {
    return windowctl::run(argc, argv);
  } catch (const nlohmann::json::exception& e) {
    // Outside JSON is read through type-checked accessors (json_read.h); reaching here is a bug,
    // reported without nlohmann's wording, which names no field a user could act on.
    spdlog::error("internal error: unexpected JSON shape (nlohmann id {}); please report it", e.id);
    return windowctl::kExitFailed;
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return windowctl::kExitFailed;
  }
}
