// The commands, run as their rows say (command_table.h). Those over the cluster go along one
// flow: resolve the targets (resolve.h), decide per object (plan.h), apply with Events and --wait
// (apply.h), report (output.h).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client.h"
#include "command_table.h"
#include "config.h"
#include "notify.h"
#include "output.h"
#include "plan.h"
#include "sync.h"

namespace windowctl {

class CommandLine;
struct ContextRun;

struct CommandOptions {
  const Command* command = nullptr;       // its row: a write, status or check
  std::vector<std::string> names;         // --kustomizations: of `kind`
  std::vector<std::string> kind_targets;  // --targets: KIND/[NAMESPACE/]NAME, each of its own kind
  std::string selector;
  bool all = false;
  bool all_namespaces = false;        // -A: -l, --all and status list every namespace
  std::string ns;                     // resolved default namespace
  const KindAdapter* kind = nullptr;  // --kind: of --kustomizations, -l and --all
  std::string api_version;            // --api-version (of `kind`); empty: discover
  bool force = false;
  bool relabel = false;
  std::string label_value;  // relabel --reconcile
  bool dry_run = false;
  bool scheduled = false;     // open/close --scheduled: an active override wins over the job
  bool fail_on_held = false;  // a held target makes the exit code 1
  bool wait = false;
  std::chrono::milliseconds wait_timeout{std::chrono::minutes(5)};
  std::chrono::milliseconds poll_interval{std::chrono::seconds(1)};
  // close, sync: how long a close waits for a target Flux is changing (in_progress); 0: at once.
  std::chrono::milliseconds overrun{std::chrono::minutes(10)};
  // sync, open --scheduled: a window that closes within this long is not opened; 0: off.
  std::chrono::milliseconds cutoff{0};
  std::string reason;
  std::chrono::milliseconds override_for{0};  // open/close --for: keep that state until now + this
  std::string identity;                       // recorded as override-by
  OutputFormat output = OutputFormat::kText;
  Schedule schedule;                     // sync, status: --window/--deny/--freeze (objects' annotations win)
  std::optional<NotifyEndpoint> notify;  // --notify: changes also go to Flux's alerts
  std::chrono::milliseconds notify_timeout{5000};
  ClientOptions client;  // --request-timeout, the User-Agent (notifications carry it too)
};

// What only main knows of the binary: the version command prints it, the User-Agent carries it.
struct Build {
  std::string_view version, commit;
};

// A command's options from its parsed command line: every flag checked and converted here, once.
// Throws ConfigError for the first one windowctl refuses, before anything is sent. `getenv` is the
// environment the run sees (FLUX_SYSTEM_NAMESPACE): check passes a job's pod environment, so that a
// job's args are judged by this very function.
CommandOptions command_options(const CommandLine& cli, const Build& build, const Getenv& getenv = process_getenv(),
                               const ReadCalendar& read = {});

// How a run reaches the cluster (main's reads the kubeconfig). Called once, after every flag has
// been checked, and only for a run that needs the cluster (Flags::needs_cluster).
using Connect = std::function<std::unique_ptr<Client>(const ClientOptions& options)>;

// What a fleet run (--contexts, --all-contexts) reads of the kubeconfig (main's reads the files
// through config.h, as for one context): the context names to select from, and the
// configuration of each one selected.
struct Kubeconfig {
  std::function<std::vector<std::string>()> contexts;
  std::function<Config(const std::string& context)> config;
};

// The parsed command, run as its row says; results on stdout. Returns the exit code; usage
// errors surface as ConfigError (exit 2).
int dispatch(const CommandLine& cli, const Build& build, const Connect& connect, const Kubeconfig& kubeconfig = {});

// A write or status. Exit code 0 or 1. Configuration errors surface as ConfigError before
// anything is written. With `into` (a context of a fleet run), the results are kept there for
// the merged report instead of printed.
int run_command(Client& client, const CommandOptions& options, ContextRun* into = nullptr);

}  // namespace windowctl
