// windowctl: suspend, resume and relabel Flux objects for reconciliation windows.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <iostream>

#include "check.h"
#include "check_online.h"
#include "client.h"
#include "commands.h"
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

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct Flags {
  std::string kubeconfig, context, ns, kind = "Kustomization", api_version, selector;
  std::vector<std::string> names, targets;
  bool all = false, force = false, relabel = false, dry_run = false, wait = false, verbose = false;
  bool scheduled = false, fail_on_held = false;
  std::string override_for, at;
  std::vector<std::string> windows, denies, freezes, files;
  int count = 5;
  std::string timeout = "5m", request_timeout = "30s", poll_interval = "1s", reason, reconcile;
  std::string output = "text", log_format = "text";
  std::string notify;  // --notify[=URL]
};

std::chrono::milliseconds duration_flag(const std::string& flag, const std::string& value) {
  auto d = parse_go_duration(value);
  if (!d) throw ConfigError("invalid " + flag + " \"" + value + "\": use a duration like 30s, 5m or 1h30m");
  // Durations are added to clocks (deadlines, override ends); a century keeps every sum far
  // from where the nanosecond counts wrap (2262 for the system clock).
  if (*d > std::chrono::hours(876000)) throw ConfigError("invalid " + flag + " \"" + value + "\": at most 876000h (100 years)");
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

void add_targets(CLI::App* cmd, Flags& f, bool writes) {
  cmd->add_option("--kustomizations", f.names, "Objects to act on: name or namespace/name, comma-separated, repeatable")
      ->type_name("NAMES")
      ->delimiter('\0');
  cmd->add_option("--targets", f.targets, "Objects of any kind: KIND/NAME or KIND/NAMESPACE/NAME, comma-separated, repeatable")
      ->type_name("TARGETS")
      ->delimiter('\0');
  cmd->add_option("-l,--selector", f.selector, "Label selector, as kubectl (app=x,window in (rw))")->type_name("SELECTOR");
  cmd->add_flag("--all", f.all, "Every object of the kind in the namespace");
  cmd->add_option("-n,--namespace", f.ns, "Namespace of names without one and of -l/--all (default: $FLUX_SYSTEM_NAMESPACE, else flux-system)")
      ->type_name("NS");
  cmd->add_option("--kind", f.kind, "Kind of --kustomizations, -l and --all (default Kustomization): " + kinds_help() +
                                        "; also the plural and KIND.GROUP, any case")
      ->type_name("KIND");
  cmd->add_option("--api-version", f.api_version, "API version to use instead of discovering it (v1, v1beta2, v2)")->type_name("VERSION");
  cmd->add_option("--kubeconfig", f.kubeconfig, "Path to a kubeconfig (else KUBECONFIG, in-cluster, ~/.kube/config)")->type_name("PATH");
  cmd->add_option("--context", f.context, "kubeconfig context to use")->type_name("NAME");
  cmd->add_option("--request-timeout", f.request_timeout, "Timeout of one API request (connect included)")->type_name("DURATION");
  cmd->add_option("-o,--output", f.output, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-format", f.log_format, "Logs on stderr: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("-v,--verbose", f.verbose, "Log every request (never its token)");
  if (writes) {
    cmd->add_flag("--dry-run", f.dry_run, "Print the plan (object, current state, patch) and write nothing");
    cmd->add_option("--reason", f.reason, "Why: recorded on the object and in its Event")->type_name("TEXT");
    cmd->add_option("--notify", f.notify,
                    "Also send each change to Flux's notification-controller, so Alerts announce it "
                    "(default URL: " + std::string(kDefaultNotifyUrl) + ")")
        ->type_name("[=URL]")
        ->expected(0, 1);
  }
}

// Under kubectl's plugin discovery the binary is kubectl-windowctl, run as `kubectl windowctl`.
std::string program_name(const char* argv0) {
  std::string_view base = argv0 ? argv0 : "";
  if (auto slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  return base == "kubectl-windowctl" ? "kubectl windowctl" : "windowctl";
}

int run(int argc, char** argv) {
  CLI::App app{"windowctl: open and close Flux reconciliation windows by suspending and resuming Flux objects"};
  app.name(program_name(argc > 0 ? argv[0] : nullptr));
  app.require_subcommand(1);
  Flags f;

  auto* close = app.add_subcommand("close", "Suspend the targets (spec.suspend: true) and mark them as suspended by windowctl");
  add_targets(close, f, true);
  close->add_flag("--relabel", f.relabel, "Also set kustomize.toolkit.fluxcd.io/reconcile=disabled, so a parent Kustomization leaves them alone");
  close->add_option("--for", f.override_for, "Keep them closed this long even if the window says open (sync honours it)")
      ->type_name("DURATION");
  close->add_flag("--scheduled", f.scheduled, "A scheduled run: an unexpired open/close --for override wins, an expired one is dropped");

  auto* open = app.add_subcommand("open", "Resume what windowctl suspended and request a reconcile now");
  add_targets(open, f, true);
  open->add_flag("--relabel", f.relabel, "Also set kustomize.toolkit.fluxcd.io/reconcile=enabled");
  open->add_flag("--force", f.force, "Also resume objects suspended by someone else");
  open->add_option("--for", f.override_for, "Keep them open this long even if the window says closed (sync honours it)")
      ->type_name("DURATION");
  open->add_flag("--scheduled", f.scheduled, "A scheduled run: an unexpired open/close --for override wins, an expired one is dropped");
  open->add_flag("--fail-on-held", f.fail_on_held, "Exit 1 when a target is held (suspended by someone else)");
  open->add_flag("--wait", f.wait, "Wait until Flux has reconciled the targets and they are Ready");
  open->add_option("--timeout", f.timeout, "How long --wait waits")->type_name("DURATION");
  open->add_option("--poll-interval", f.poll_interval, "How often --wait reads the targets")->group("");

  auto* relabel = app.add_subcommand("relabel", "Set only the kustomize.toolkit.fluxcd.io/reconcile label");
  add_targets(relabel, f, true);
  relabel->add_option("--reconcile", f.reconcile, "enabled or disabled")->required()->check(CLI::IsMember({"enabled", "disabled"}));

  auto* adopt = app.add_subcommand("adopt", "Mark targets someone else suspended (e.g. flux suspend) as closed by windowctl, so the next open resumes them");
  add_targets(adopt, f, true);

  auto add_schedule = [&f](CLI::App* cmd, bool required) {
    auto* w = cmd->add_option("--window", f.windows, "\"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\", repeatable: when changes may happen")
                  ->type_name("EXPR")
                  ->delimiter('\0');
    if (required) w->required();
    cmd->add_option("--deny", f.denies, "\"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\", repeatable: never inside these (wins over --window)")
        ->type_name("EXPR")
        ->delimiter('\0');
    cmd->add_option("--freeze", f.freezes, "FROM/TO (RFC 3339), repeatable: closed, whatever else says (wins over all)")
        ->type_name("FROM/TO")
        ->delimiter('\0');
  };

  auto* sync = app.add_subcommand("sync", "Open or close each target as its window says now (level-triggered; idempotent)");
  add_targets(sync, f, true);
  add_schedule(sync, false);
  sync->add_flag("--relabel", f.relabel, "Also set kustomize.toolkit.fluxcd.io/reconcile to enabled/disabled");
  sync->add_flag("--force", f.force, "When opening, also resume objects suspended by someone else");
  sync->add_flag("--fail-on-held", f.fail_on_held, "Exit 1 when a target is held (suspended by someone else)");

  auto* schedule = app.add_subcommand("schedule", "Say whether the window is open and list the next windows (no cluster needed)");
  add_schedule(schedule, true);
  schedule->add_option("--at", f.at, "Evaluate at this RFC 3339 instant instead of now")->type_name("TIME");
  schedule->add_option("--count", f.count, "How many windows to list")->check(CLI::Range(1, 100000));
  schedule->add_option("-o,--output", f.output, "text or json")->check(CLI::IsMember({"text", "json"}));

  auto* status = app.add_subcommand("status", "Show suspension, who suspended, readiness and revision (all in the namespace by default)");
  add_targets(status, f, false);
  add_schedule(status, false);
  status->add_flag("--fail-on-held", f.fail_on_held, "Exit 1 when a target is suspended by someone else (open would hold it)");

  auto* check = app.add_subcommand("check", "Find setups where a window silently fails: in manifests (-f alone: no cluster needed), "
                                             "else live, for the targets given or every window CronJob in -n");
  check->add_option("-f,--filename", f.files, "Manifests: a YAML file, a directory (its *.yaml, *.yml) or - (stdin), repeatable")
      ->type_name("PATH");
  add_targets(check, f, false);

  app.add_subcommand("version", "Print the version and commit");

  const std::vector<std::string> commands = {"open", "close", "relabel", "adopt", "sync", "status", "schedule", "check", "version"};
  if (argc > 1 && argv[1][0] != '-' && std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    std::cerr << "windowctl: unknown command \"" << argv[1] << "\" (commands: open, close, adopt, relabel, sync, status, schedule, check, version)\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "windowctl: " << e.what() << " (see windowctl --help)\n";
    return kExitUsage;
  }
  CLI::App* cmd = app.get_subcommands().front();
  if (cmd->get_name() == "version") {
    std::cout << "windowctl " << kVersion << " (commit " << kCommit << ")\n";
    return 0;
  }

  setup_logging(f.log_format == "json" ? LogFormat::kJson : LogFormat::kText, f.verbose);
  try {
    bool targets_given = !f.names.empty() || !f.targets.empty() || !f.selector.empty() || f.all;
    if (cmd->get_name() == "check" && !f.files.empty() && !targets_given) {
      auto findings = check_objects(parse_manifests(read_manifest_sources(f.files)), std::chrono::system_clock::now());
      std::cout << render_findings(findings, f.output == "json");
      return has_error(findings) ? kExitFailed : 0;
    }
    Schedule schedule_flags = parse_schedule({f.windows, f.denies, f.freezes});
    if (cmd->get_name() == "schedule") {
      SysTime at = std::chrono::system_clock::now();
      if (!f.at.empty()) {
        auto parsed = parse_rfc3339(f.at);
        if (!parsed) throw ConfigError("invalid --at \"" + f.at + "\": it " + rfc3339_problem(f.at));
        at = *parsed;
      }
      std::cout << render_schedule(schedule_flags, at, f.count, f.output == "json" ? OutputFormat::kJson : OutputFormat::kText);
      return 0;
    }
    CommandOptions opt;
    opt.command = cmd->get_name();
    opt.kind = find_kind(f.kind);
    if (!opt.kind) throw ConfigError("unknown --kind \"" + f.kind + "\": use one of " + kinds_help());
    if (opt.command != "status" && opt.command != "check" && !targets_given) {
      throw ConfigError(opt.command + " needs targets: --kustomizations NAMES, --targets KIND/NAME, -l SELECTOR or --all");
    }
    if (f.reason.size() > 1024) throw ConfigError("--reason is longer than 1024 characters");
    // It is written into annotations and Events, which are JSON: UTF-8 only.
    if (!valid_utf8(f.reason)) throw ConfigError("--reason is not valid UTF-8");
    if (f.scheduled && !f.override_for.empty()) {
      throw ConfigError("--scheduled and --for exclude each other: a scheduled run never sets an override");
    }
    ClientOptions client_options;
    client_options.request_timeout = duration_flag("--request-timeout", f.request_timeout);
    if (client_options.request_timeout.count() == 0) client_options.request_timeout = std::chrono::hours(24);
    client_options.user_agent = std::string("windowctl/") + kVersion;
    opt.wait_timeout = duration_flag("--timeout", f.timeout);
    opt.poll_interval = duration_flag("--poll-interval", f.poll_interval);
    opt.names = f.names;
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
    if (const CLI::Option* notify = cmd->get_option_no_throw("--notify"); notify && notify->count() > 0) {
      std::string url = f.notify.empty() ? std::string(kDefaultNotifyUrl) : f.notify;
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
    if (opt.command == "check") return run_check_online(client, opt, f.files);
    return run_command(client, opt);
  } catch (const ConfigError& e) {
    spdlog::error("{}", e.what());
    return kExitUsage;
  }
}

}  // namespace
}  // namespace windowctl

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
    std::cerr << "windowctl: internal error: unexpected JSON shape (nlohmann id " << e.id << "); please report it\n";
    return windowctl::kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "windowctl: internal error: " << e.what() << "\n";
    return windowctl::kExitFailed;
  }
}
