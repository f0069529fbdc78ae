// The command line as Flux and kubectl users type it: commands and their aliases, target names
// as arguments, global flags before or after the command, help for every command.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command_table.h"
#include "log.h"

namespace windowctl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
// schedule --exit-code: the windows are closed at --at (now). Distinct from a failure (1) and bad
// input (2), so a pipeline tells "not now" from "broken" (docs/cli.md#exit-codes).
inline constexpr int kExitClosed = 3;

struct Flags {
  // The command given, as its row (CommandLine::parse sets it; --version is the version command).
  const Command* command = nullptr;
  // Global: every command takes them, before or after its name.
  std::string kubeconfig, context, ns, output = "text", log_format = "text", request_timeout = "30s";
  bool verbose = false, version = false;
  // Targets.
  std::string kind = "Kustomization", api_version, selector;
  std::vector<std::string> args, names, targets;  // args: the positional NAME or NS/NAME
  bool all = false, all_namespaces = false;
  // Writes.
  bool force = false, relabel = false, dry_run = false, wait = false, scheduled = false, fail_on_held = false;
  std::string override_for, reason, reconcile, notify;
  std::string timeout = "5m", poll_interval = "1s";
  // close, sync: how long a close waits for a target Flux is in the middle of changing
  // (docs/windows.md#overrun); sync, open --scheduled: a window with less left is not opened.
  std::string overrun = "10m", cutoff = "0s";
  // Windows.
  std::vector<std::string> windows, denies, freezes, files;
  std::vector<std::string> window_calendars, deny_calendars;
  std::string at, until;  // schedule --until: list the windows that start before it
  int count = 5;
  bool exit_code = false;  // schedule --exit-code
  // Fleet: many kubeconfig contexts in one run (commands whose row says fleet).
  std::vector<std::string> contexts;  // --contexts: names and globs, comma-separated, repeatable
  bool all_contexts = false;
  int max_concurrency = 8;
  // help, completion.
  std::string topic, shell;
  bool list_contexts = false;  // completion --list-contexts: the names the scripts complete --context to

  // --contexts or --all-contexts: this run is over many contexts.
  bool fleet() const { return !contexts.empty() || all_contexts; }

  // Any of names, --targets, -l or --all.
  bool selects_targets() const {
    return !args.empty() || !names.empty() || !targets.empty() || !selector.empty() || all;
  }
  // This run reads the cluster: its command needs one, or check has more to go on than -f files.
  bool needs_cluster() const {
    return command && (command->needs == Needs::kCluster ||
                       (command->needs == Needs::kManifests && (files.empty() || selects_targets() || fleet())));
  }
};

// The values a flag is restricted to (-o, --log-format, --reconcile, completion's SHELL), for
// its check and for completion; empty for a flag without a fixed set. `command` is the
// subcommand's name: schedule's -o also takes ics.
const std::vector<std::string>& fixed_values(std::string_view flag, std::string_view command = {});

// An option that reads a value (--kind KIND), not a flag (--all): CLI11's own test of it.
inline bool takes_value(const CLI::Option& option) { return option.get_expected_min() > 0; }

// Global flags that take a value, and those that do not; kubectl's set, minus what windowctl
// has no use for.
bool is_global_flag(std::string_view name, bool* takes_value);

// `windowctl --context prod close apps-rw` as `windowctl close --context prod apps-rw`: global
// flags given before the command move behind it, where its parser reads them. Everything else
// keeps its order. `args` excludes the program name.
std::vector<std::string> hoist_global_flags(std::vector<std::string> args);

// The --log-format the arguments ask for, so that even an error in parsing them is logged in it.
LogFormat log_format_of(const std::vector<std::string>& args);

class CommandLine {
 public:
  explicit CommandLine(std::string program = "windowctl");

  // Parses `args` (without the program name). Returns the exit code when the run ends here (help,
  // --version, a usage error: printed or logged already), else nullopt and flags().command is set.
  // With `problem`, a usage error is put there instead of logged (check reading a job's args).
  std::optional<int> parse(std::vector<std::string> args, std::ostream& out, std::string* problem = nullptr);

  // What windowctl refuses in a parsed command line beyond each flag's own syntax (flags that
  // exclude each other, a command without targets, a malformed selector); empty when none.
  // The same words whether a user typed them or `check` reads them from a CronJob's args.
  std::string flags_problem() const;

  // The command's name (an alias such as `suspend` reads `close`), "" when none; also set when
  // the command's flags failed to parse. For check_model.cc, which keeps a job's command by name:
  // decisions read the row, flags().command.
  std::string_view command() const { return flags_.command ? flags_.command->name : std::string_view(); }
  const Flags& flags() const { return flags_; }
  bool given(const std::string& option) const;  // the command's option was on the line
  const CLI::App& app() const { return *app_; }
  const std::string& program() const { return program_; }

 private:
  std::string program_;
  Flags flags_;
  std::unique_ptr<CLI::App> app_;
  CLI::App* selected_ = nullptr;
  std::array<CLI::App*, kCommands.size()> subcommands_{};  // by CommandId

  const Command* row_of(const CLI::App* subcommand) const;
};

// Every command name a user may type, aliases included, in the order help lists them.
std::vector<std::string> command_names(bool with_aliases);

// Under kubectl's plugin discovery the binary is kubectl-windowctl, run as `kubectl windowctl`.
std::string program_name(const char* argv0);

}  // namespace windowctl
