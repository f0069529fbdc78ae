#include "cli.h"

#include <spdlog/spdlog.h>

#include "kinds.h"
#include "notify.h"
#include "selector.h"
#include "text.h"
#include "util.h"

namespace windowctl {
namespace {

constexpr const char* kGlobal = "Global flags (before or after the command)";

// A repeatable option whose values are kept whole (commas are split later, where they mean a list).
CLI::Option* add_list(CLI::App* cmd, const char* name, std::vector<std::string>& into, const std::string& help,
                      const char* type) {
  return cmd->add_option(name, into, help)->type_name(type)->delimiter('\0');
}

CLI::IsMember member_of(std::string_view flag, std::string_view command = {}) {
  return CLI::IsMember(fixed_values(flag, command));
}

void add_globals(CLI::App* cmd, Flags& f) {
  cmd->add_option("-n,--namespace", f.ns,
                  "Namespace of names without one and of -l/--all (default: $FLUX_SYSTEM_NAMESPACE, else flux-system)")
      ->type_name("NS")
      ->group(kGlobal);
  const auto& formats = fixed_values("--output", cmd->get_name());
  cmd->add_option("-o,--output", f.output, formats.size() > 2 ? "Output: text, json or ics" : "Output: text or json")
      ->check(member_of("--output", cmd->get_name()))
      ->group(kGlobal);
  cmd->add_option("--kubeconfig", f.kubeconfig, "Path to a kubeconfig (else $KUBECONFIG, in-cluster, ~/.kube/config)")
      ->type_name("PATH")
      ->group(kGlobal);
  cmd->add_option("--context", f.context, "kubeconfig context to use (default: its current-context)")
      ->type_name("NAME")
      ->group(kGlobal);
  cmd->add_option("--request-timeout", f.request_timeout, "Timeout of one API request, connect included (0: none)")
      ->type_name("DURATION")
      ->group(kGlobal);
  cmd->add_option("--log-format", f.log_format, "Logs and errors on stderr: text or json")
      ->check(member_of("--log-format"))
      ->group(kGlobal);
  cmd->add_flag("-v,--verbose", f.verbose, "Log every request (never its token)")->group(kGlobal);
}

// Many contexts at once, for the commands whose row says fleet.
void add_fleet(CLI::App* cmd, Flags& f) {
  add_list(cmd, "--contexts", f.contexts,
           "kubeconfig contexts to run in, in parallel: names or globs (prod-*), comma-separated, repeatable", "NAMES")
      ->group(kGlobal);
  cmd->add_flag("--all-contexts", f.all_contexts, "Run in every context of the kubeconfig, in parallel")
      ->group(kGlobal);
  cmd->add_option("--max-concurrency", f.max_concurrency, "With --contexts/--all-contexts: contexts run at once")
      ->type_name("N")
      ->check(CLI::Range(1, 1000))
      ->group(kGlobal);
}

void add_targets(CLI::App* cmd, Flags& f, bool writes) {
  cmd->add_option("NAME", f.args, "Targets of --kind: NAME or NAMESPACE/NAME (as --kustomizations)")->type_name("");
  add_list(cmd, "--kustomizations", f.names, "Objects of --kind: NAME or NAMESPACE/NAME, comma-separated, repeatable",
           "NAMES");
  add_list(cmd, "--targets", f.targets,
           "Objects of any kind: KIND/NAME or KIND/NAMESPACE/NAME, comma-separated, repeatable", "TARGETS");
  cmd->add_option("-l,--selector", f.selector, "Label selector, as kubectl's (window=rw,tier in (web,api))")
      ->type_name("SELECTOR");
  cmd->add_flag("--all", f.all, "Every object of --kind in the namespace");
  cmd->add_flag("-A,--all-namespaces", f.all_namespaces,
                "-l, --all (and status) in every namespace (needs cluster-wide RBAC)");
  cmd->add_option(
         "--kind", f.kind,
         "Kind of names, -l and --all: " + kinds_help() + "; also the plural, short names and KIND.GROUP, any case")
      ->type_name("KIND");
  cmd->add_option("--api-version", f.api_version, "API version to use instead of discovering it (v1, v1beta2, v2)")
      ->type_name("VERSION");
  if (writes) {
    cmd->add_flag("--dry-run", f.dry_run, "Print the plan (object, current state, patch) and write nothing");
    cmd->add_option("--reason", f.reason, "Why: recorded on the object (Flux's suspend reason too) and in its Event")
        ->type_name("TEXT");
    cmd->add_option("--notify", f.notify,
                    "Also send each change to Flux's notification-controller, so Alerts announce it (URL default: " +
                        std::string(kDefaultNotifyUrl) + ")")
        ->type_name("[=URL]");
  }
  add_globals(cmd, f);
}

void add_schedule(CLI::App* cmd, Flags& f) {
  const std::string expr = "\"CRON for DURATION [in ZONE]\" or \"CRON to CRON [in ZONE]\", repeatable";
  add_list(cmd, "--window", f.windows, expr + ": when changes may happen", "EXPR");
  add_list(cmd, "--window-calendar", f.window_calendars,
           "iCalendar file (.ics), repeatable: open while one of its events is on, as a --window", "FILE");
  add_list(cmd, "--deny", f.denies, expr + ": never inside these (wins over --window)", "EXPR");
  add_list(cmd, "--deny-calendar", f.deny_calendars,
           "iCalendar file (.ics), repeatable: closed while one of its events is on, as a --deny", "FILE");
  add_list(cmd, "--freeze", f.freezes, "FROM/TO (RFC 3339), repeatable: closed, whatever else says (wins over all)",
           "FROM/TO");
}

// close, sync: the wait for targets Flux is changing right now (docs/windows.md#overrun).
void add_overrun(CLI::App* cmd, Flags& f) {
  cmd->add_option("--overrun", f.overrun,
                  "Close a target Flux is in the middle of changing (an upgrade, its rollback) once it settles, "
                  "or after this long anyway; 0 closes at once")
      ->type_name("DURATION");
}

// sync, open --scheduled: no half-applied change at the end of a window.
void add_cutoff(CLI::App* cmd, Flags& f) {
  cmd->add_option("--cutoff", f.cutoff, "Do not open a window that closes within this long (0: off)")
      ->type_name("DURATION");
}

std::string examples(const std::string& program, std::initializer_list<std::pair<const char*, const char*>> lines) {
  std::string text = "\nExamples:\n";
  for (const auto& [why, args] : lines) text += std::string("  # ") + why + "\n  " + program + " " + args + "\n";
  return text;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string unknown_command(std::string_view word, const std::string& program) {
  std::string out = "unknown command \"" + printable(word, 64) + "\"";
  if (std::string hint = did_you_mean(nearest_names(word, command_names(true))); !hint.empty()) {
    return out.append("; ").append(hint);
  }
  out += " (commands: ";
  for (const auto& name : command_names(false)) out.append(name).append(", ");
  out.resize(out.size() - 2);
  return out.append("; see '").append(program).append(" help')");
}

// A flag's names without their dashes: one letter is a short flag, more a long one.
std::vector<std::string> flag_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options()) {
    names.insert(names.end(), o->get_snames().begin(), o->get_snames().end());
    names.insert(names.end(), o->get_lnames().begin(), o->get_lnames().end());
  }
  return names;
}

std::string dashed(const std::string& name) { return (name.size() == 1 ? "-" : "--") + name; }

// What CLI11 left over, when one of them is a flag: "unknown flag --X" and the flags of `cmd`
// that were probably meant. "" when the leftovers are arguments.
std::string unknown_flag(const CLI::App& app, const CLI::App& cmd, const std::vector<std::string>& leftovers,
                         const std::string& help) {
  auto arg = std::find_if(leftovers.begin(), leftovers.end(),
                          [](const std::string& a) { return a.size() > 1 && a[0] == '-' && a != "--"; });
  if (arg == leftovers.end()) return {};
  const bool is_long = (*arg)[1] == '-';
  const std::string name = is_long ? arg->substr(2, arg->find('=') - 2) : arg->substr(1, 1);
  std::string out = "unknown flag " + printable(dashed(name), 64);
  std::vector<std::string> fixes = nearest_names(name, flag_names(cmd));
  if (fixes.empty()) {
    if (&cmd != &app) out.append(" for ").append(cmd.get_name());
    return out.append(" (see '").append(help).append(" --help')");
  }
  for (auto& n : fixes) n = dashed(n);
  return out.append("; ").append(did_you_mean(fixes));
}

}  // namespace

const std::vector<std::string>& fixed_values(std::string_view flag, std::string_view command) {
  static const std::vector<std::string> kFormats = {"text", "json"}, kReconcile = {"enabled", "disabled"},
                                        kShells = {"bash", "zsh", "fish"}, kScheduleFormats = {"text", "json", "ics"},
                                        kNone;
  if (flag == "--output" && command == "schedule") return kScheduleFormats;
  if (flag == "--output" || flag == "--log-format") return kFormats;
  if (flag == "--reconcile") return kReconcile;
  if (flag == "SHELL") return kShells;
  return kNone;
}

bool is_global_flag(std::string_view name, bool* takes_value) {
  static constexpr std::string_view kWithValue[] = {
      "-n",        "--namespace",       "-o",           "--output",   "--kubeconfig",
      "--context", "--request-timeout", "--log-format", "--contexts", "--max-concurrency"};
  static constexpr std::string_view kWithout[] = {"-v", "--verbose", "--all-contexts"};
  for (auto f : kWithValue) {
    if (name == f) return *takes_value = true;
  }
  for (auto f : kWithout) {
    if (name == f) {
      *takes_value = false;
      return true;
    }
  }
  return false;
}

std::vector<std::string> hoist_global_flags(std::vector<std::string> args) {
  std::vector<std::string> before, globals;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || a == "--") break;
    const bool is_short = a[1] != '-';
    // -ojson, -o=json and --output=json carry their value; -o json and --output json do not.
    std::string name = is_short ? a.substr(0, 2) : a.substr(0, a.find('='));
    const bool attached = is_short ? a.size() > 2 : a.find('=') != std::string::npos;
    bool takes_value = false;
    if (!is_global_flag(name, &takes_value)) {
      before.push_back(a);
      continue;
    }
    globals.push_back(a);
    if (takes_value && !attached && i + 1 < args.size()) globals.push_back(args[++i]);
  }
  // No command (or `--` first): nothing to move behind it.
  if (i == args.size() || args[i] == "--" || globals.empty()) return args;
  std::vector<std::string> out = std::move(before);
  out.push_back(args[i]);
  out.insert(out.end(), globals.begin(), globals.end());
  out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  return out;
}

LogFormat log_format_of(const std::vector<std::string>& args) {
  LogFormat format = LogFormat::kText;
  for (std::size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--log-format" && i + 1 < args.size()) {
      format = args[i + 1] == "json" ? LogFormat::kJson : LogFormat::kText;
    } else if (starts_with(args[i], "--log-format=")) {
      format = args[i] == "--log-format=json" ? LogFormat::kJson : LogFormat::kText;
    }
  }
  return format;
}

std::string program_name(const char* argv0) {
  std::string_view base = argv0 ? argv0 : "";
  if (auto slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  return base == "kubectl-windowctl" ? "kubectl windowctl" : "windowctl";
}

std::vector<std::string> command_names(bool with_aliases) {
  std::vector<std::string> names;
  for (const Command& c : kCommands) {
    names.emplace_back(c.name);
    if (with_aliases && !c.alias.empty()) names.emplace_back(c.alias);
  }
  return names;
}

CommandLine::CommandLine(std::string program) : program_(std::move(program)), app_(std::make_unique<CLI::App>()) {
  CLI::App& app = *app_;
  Flags& f = flags_;
  const std::string& p = program_;
  app.name(p);
  app.description("Open and close Flux reconciliation windows by suspending and resuming Flux objects");
  app.require_subcommand(0, 1);
  app.get_formatter()->label("Subcommands", "Commands");
  app.get_formatter()->label("SUBCOMMAND", "COMMAND");
  app.option_defaults()->always_capture_default();
  app.add_flag("--version", f.version, "Print the version and commit");
  app.footer("\nRun '" + p + " help COMMAND' for a command's flags and examples.");

  // Help lists the commands in the table's order; each one's own flags follow.
  for (const Command& c : kCommands) {
    CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.description));
    if (!c.alias.empty()) sub->alias(std::string(c.alias));
    subcommands_[static_cast<std::size_t>(c.id)] = sub;
  }
  auto subcommand = [&](CommandId id) { return subcommands_[static_cast<std::size_t>(id)]; };
  for (const Command& c : kCommands) {
    if (c.fleet) add_fleet(subcommand(c.id), f);
  }
  auto writes = [](CommandId id) { return command_row(id).writes; };

  auto* close = subcommand(CommandId::kClose);
  add_targets(close, f, writes(CommandId::kClose));
  close->add_flag(
      "--relabel", f.relabel,
      "Also set kustomize.toolkit.fluxcd.io/reconcile=disabled, so a parent Kustomization leaves them alone");
  close
      ->add_option("--for", f.override_for, "Keep them closed this long even if the window says open (sync honours it)")
      ->type_name("DURATION");
  close->add_flag("--scheduled", f.scheduled,
                  "A scheduled run: an unexpired open/close --for override wins, an expired one is dropped");
  add_overrun(close, f);
  close->add_option("--poll-interval", f.poll_interval, "How often --overrun reads the targets")->group("");
  close->footer(examples(
      p, {{"Close the window of the Kustomization apps-rw in flux-system", "close apps-rw"},
          {"Mixed kinds, with a reason flux get shows",
           "close --targets helmrelease/apps/podinfo,imageupdateautomation/flux-system --reason \"release freeze\""},
          {"Every Kustomization labelled window=rw, in every namespace", "close -A -l window=rw"}}));

  auto* open = subcommand(CommandId::kOpen);
  add_targets(open, f, writes(CommandId::kOpen));
  open->add_flag("--relabel", f.relabel, "Also set kustomize.toolkit.fluxcd.io/reconcile=enabled");
  open->add_flag("--force", f.force, "Also resume objects suspended by someone else");
  open->add_option("--for", f.override_for, "Keep them open this long even if the window says closed (sync honours it)")
      ->type_name("DURATION");
  open->add_flag("--scheduled", f.scheduled,
                 "A scheduled run: an unexpired open/close --for override wins, an expired one is dropped");
  open->add_flag("--fail-on-held", f.fail_on_held, "Exit 1 when a target is held (suspended by someone else)");
  add_cutoff(open, f);
  open->add_flag("--wait", f.wait, "Wait until Flux has reconciled the targets and they are Ready");
  open->add_option("--timeout", f.timeout, "How long --wait waits")->type_name("DURATION");
  open->add_option("--poll-interval", f.poll_interval, "How often --wait reads the targets")->group("");
  open->footer(examples(p, {{"Open the window of apps-rw and wait until Flux has applied it", "open apps-rw --wait"},
                            {"Emergency open for 2 hours (the scheduled jobs leave it open)",
                             "open apps-rw --for 2h --reason \"INC-1234 hotfix\""}}));

  auto* relabel = subcommand(CommandId::kRelabel);
  add_targets(relabel, f, writes(CommandId::kRelabel));
  relabel->add_option("--reconcile", f.reconcile, "enabled or disabled")->required()->check(member_of("--reconcile"));
  relabel->footer(
      examples(p, {{"Let a parent Kustomization leave apps-rw alone", "relabel apps-rw --reconcile disabled"}}));

  auto* adopt = subcommand(CommandId::kAdopt);
  add_targets(adopt, f, writes(CommandId::kAdopt));
  adopt->footer(examples(p, {{"Take over a suspension made by flux suspend", "adopt apps-rw"}}));

  auto* sync = subcommand(CommandId::kSync);
  add_targets(sync, f, writes(CommandId::kSync));
  add_schedule(sync, f);
  sync->add_flag("--relabel", f.relabel, "Also set kustomize.toolkit.fluxcd.io/reconcile to enabled/disabled");
  sync->add_flag("--force", f.force, "When opening, also resume objects suspended by someone else");
  sync->add_flag("--fail-on-held", f.fail_on_held, "Exit 1 when a target is held (suspended by someone else)");
  add_overrun(sync, f);
  add_cutoff(sync, f);
  sync->add_option("--poll-interval", f.poll_interval, "How often --overrun reads the targets")->group("");
  sync->footer(examples(p, {{"Monday 08:00 to Thursday 17:00, Zurich wall clock",
                             "sync apps-rw --window \"0 8 * * MON to 0 17 * * THU in Europe/Zurich\""},
                            {"Each object's own windowctl.io/window annotation, every Kustomization labelled window=rw",
                             "sync -l window=rw"}}));

  auto* schedule = subcommand(CommandId::kSchedule);
  add_schedule(schedule, f);
  schedule->add_option("--at", f.at, "Evaluate at this RFC 3339 instant instead of now")->type_name("TIME");
  schedule->add_option("--count", f.count, "How many windows to list (with --until: at most; default then 100000)")
      ->check(CLI::Range(1, 100000));
  schedule->add_option("--until", f.until, "List the windows that start before this RFC 3339 instant")
      ->type_name("TIME");
  schedule->add_flag("--exit-code", f.exit_code,
                     "Exit 0 when the windows are open at --at (now), 3 when closed: a gate for pipelines");
  add_globals(schedule, f);
  schedule->footer(
      examples(p, {{"The next 3 windows of a weekday morning window",
                    "schedule --window \"0 8 * * MON-FRI for 4h in Europe/Zurich\" --count 3"},
                   {"The windows of the next 90 days, for a calendar to import",
                    "schedule --window \"0 8 * * MON-FRI for 4h in Europe/Zurich\" --until \"$(date -u -d +90days "
                    "+%FT%TZ)\" -o ics > windows.ics"},
                   {"A pipeline step that merges only inside the window",
                    "schedule --window \"0 8 * * MON-FRI for 4h in Europe/Zurich\" --exit-code && git push"}}));

  auto* status = subcommand(CommandId::kStatus);
  add_targets(status, f, writes(CommandId::kStatus));
  add_schedule(status, f);
  status->add_flag("--fail-on-held", f.fail_on_held,
                   "Exit 1 when a target is suspended by someone else (open would hold it)");
  status->footer(examples(p, {{"Every Kustomization in flux-system", "status"},
                              {"Every HelmRelease in the cluster", "status -A --kind hr"}}));

  auto* check = subcommand(CommandId::kCheck);
  check
      ->add_option("-f,--filename", f.files,
                   "Manifests: a YAML file, a directory (its *.yaml, *.yml) or - (stdin), repeatable")
      ->type_name("PATH");
  add_targets(check, f, writes(CommandId::kCheck));
  check
      ->add_option("--at", f.at,
                   "Evaluate windows from this RFC 3339 instant instead of now (the same findings every run)")
      ->type_name("TIME");
  check->footer(examples(p, {{"What flux build would apply (offline)",
                              "check -f <(flux build kustomization flux-system --path ./clusters/prod)"},
                             {"A kustomize overlay (offline)", "check -f <(kubectl kustomize clusters/prod)"},
                             {"Every window CronJob in flux-system, against the cluster", "check"},
                             {"Live targets, as the job's ServiceAccount would act on them",
                              "check apps-rw --targets helmrelease/apps/podinfo"}}));

  auto* version = subcommand(CommandId::kVersion);
  add_globals(version, f);
  version->footer(examples(p, {{"For a script", "version -o json"}}));

  auto* completion = subcommand(CommandId::kCompletion);
  completion->add_option("SHELL", f.shell, "bash, zsh or fish")->required()->check(member_of("SHELL"));
  // What the scripts run to complete --context and --contexts: the kubeconfig's context names.
  completion->add_flag("--list-contexts", f.list_contexts)->group("");
  completion->footer(examples(p, {{"bash, this shell", "completion bash > /tmp/c && . /tmp/c"},
                                  {"bash, every new shell", "completion bash > /etc/bash_completion.d/windowctl"},
                                  {"zsh (a directory on $fpath)", "completion zsh > \"${fpath[1]}/_windowctl\""},
                                  {"fish", "completion fish > ~/.config/fish/completions/windowctl.fish"}}));

  auto* help = subcommand(CommandId::kHelp);
  help->add_option("COMMAND", f.topic, "The command to explain")->type_name("");
  help->footer(examples(p, {{"close's flags, their defaults and examples", "help close"}}));

  // A list's captured default is "[]", which says nothing; only defaults with a value show.
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options([](CLI::Option* o) { return o->get_default_str() == "[]"; }))
      o->default_str("");
  }
}

std::string CommandLine::flags_problem() const {
  const Flags& f = flags_;
  if (!f.command) return {};
  const CommandId id = f.command->id;
  if (id == CommandId::kSchedule) {
    if (f.windows.empty() && f.window_calendars.empty())
      return "schedule needs --window EXPR or --window-calendar FILE: without an allow window it is never open";
    return {};
  }
  const bool named = !f.args.empty() || !f.names.empty() || !f.targets.empty();
  // status shows every object of --kind by default; check, every window CronJob.
  const bool targets_optional = id == CommandId::kStatus || id == CommandId::kCheck;
  if (!targets_optional && !f.selects_targets()) {
    return std::string(f.command->name) + " needs targets: NAME..., --targets KIND/NAME, -l SELECTOR or --all";
  }
  // flux ignores --all when names are given; a union with every object is the dangerous reading.
  if (f.all && (named || !f.selector.empty())) {
    return "--all selects every object of the kind: give names, --targets or -l instead, not with it";
  }
  if (std::string problem = selector_problem(f.selector); !problem.empty()) {
    return "invalid -l/--selector \"" + f.selector.substr(0, 256) + "\": " + problem;
  }
  if (f.all_namespaces) {
    if (named) return "-A/--all-namespaces selects by -l or --all; a name takes its namespace instead (NAMESPACE/NAME)";
    if (given("--namespace")) return "-A/--all-namespaces and -n/--namespace exclude each other";
    if (id != CommandId::kStatus && f.selector.empty() && !f.all) {
      return "-A/--all-namespaces needs -l SELECTOR or --all";
    }
  }
  if (f.reason.size() > 1024) return "--reason is longer than 1024 characters";
  // It is written into annotations and Events, which are JSON: UTF-8 only.
  if (!valid_utf8(f.reason)) return "--reason is not valid UTF-8";
  // One line, as annotations and Events are shown (kubectl, flux get, notification Alerts): a
  // newline would forge another line there, an escape sequence would reach a terminal. printable
  // changes exactly those characters (C0 with tab and newline, DEL, C1).
  if (printable(f.reason) != f.reason)
    return "--reason has a control character (tab, newline, ESC, ...): give one line";
  if (id == CommandId::kOpen && given("--cutoff") && !f.scheduled)
    return "--cutoff is for a scheduled open (--scheduled): an operator's open opens now";
  if (f.scheduled && !f.override_for.empty())
    return "--scheduled and --for exclude each other: a scheduled run never sets an override";
  if (f.fleet() && !f.context.empty())
    return "--context names one context; --contexts and --all-contexts many: give one of them";
  if (!f.contexts.empty() && f.all_contexts) return "--contexts and --all-contexts exclude each other";
  return {};
}

const Command* CommandLine::row_of(const CLI::App* subcommand) const {
  for (const Command& c : kCommands) {
    if (subcommands_[static_cast<std::size_t>(c.id)] == subcommand) return &c;
  }
  return nullptr;
}

bool CommandLine::given(const std::string& option) const {
  const CLI::Option* o = selected_ ? selected_->get_option_no_throw(option) : nullptr;
  return o && o->count() > 0;
}

std::optional<int> CommandLine::parse(std::vector<std::string> args, std::ostream& out, std::string* problem) {
  auto usage_error = [&](const std::string& message) {
    if (problem) {
      *problem = message;
    } else {
      spdlog::error("{}", message);
    }
    return kExitUsage;
  };
  args = hoist_global_flags(std::move(args));
  std::size_t first = 0;
  while (first < args.size() && !args[first].empty() && args[first][0] == '-' && args[first] != "--") ++first;
  if (first < args.size() && args[first] != "--" && !find_command(args[first])) {
    return usage_error(unknown_command(args[first], program_));
  }
  // `--notify` alone asks for the default receiver. The next argument is its URL only when it
  // is one ("://" cannot be in a Kubernetes name); otherwise it is a target name.
  for (std::size_t i = first; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] != "--notify") continue;
    if (i + 1 < args.size() && args[i + 1].find("://") != std::string::npos) {
      args[i] = "--notify=" + args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    } else {
      args[i] = "--notify=" + std::string(kDefaultNotifyUrl);
    }
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    app_->exit(e, out, out);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    const auto subs = app_->get_subcommands();
    if (!subs.empty()) flags_.command = row_of(subs.front());
    std::string where = subs.empty() ? program_ : program_ + " " + subs.front()->get_name();
    // An unknown flag first, whatever else CLI11 found: a flag it did not know is often the
    // value it then misses (schedule --windw EXPR: "--window is required").
    if (std::string flag = unknown_flag(*app_, subs.empty() ? *app_ : *subs.front(), app_->remaining(true), where);
        !flag.empty()) {
      return usage_error(flag);
    }
    return usage_error(std::string(e.what()) + " (see '" + where + " --help')");
  }
  if (app_->get_subcommands().empty()) {
    if (!flags_.version) return usage_error("a command is required (see '" + program_ + " help')");
    flags_.command = &command_row(CommandId::kVersion);  // --version reads as the version command
    return std::nullopt;
  }
  selected_ = app_->get_subcommands().front();
  flags_.command = row_of(selected_);
  if (flags_.command->id == CommandId::kHelp) {
    if (flags_.topic.empty()) {
      app_->clear();  // else the help of the selected `help` command
      out << app_->help();
      return kExitOk;
    }
    CLI::App* topic = nullptr;
    try {
      topic = app_->get_subcommand(flags_.topic);
    } catch (const CLI::OptionNotFound&) {
    }
    if (!topic) return usage_error(unknown_command(flags_.topic, program_));
    out << topic->help(program_);
    return kExitOk;
  }
  return std::nullopt;
}

}  // namespace windowctl
