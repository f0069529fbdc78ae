// The commands over the cluster, along one flow: resolve the targets (resolve.h), decide per
// object (plan.h), apply with Events and --wait (apply.h), report (output.h).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "command_table.h"
#include "notify.h"
#include "output.h"
#include "plan.h"
#include "sync.h"

namespace windowctl {

struct CommandOptions {
  const Command* command = nullptr;       // its row: a write, status or check
  std::vector<std::string> names;         // --kustomizations: of `kind`
  std::vector<std::string> kind_targets;  // --targets: KIND/[NAMESPACE/]NAME, each of its own kind
  std::string selector;
  bool all = false;
  bool all_namespaces = false;  // -A: -l, --all and status list every namespace
  std::string ns;  // resolved default namespace
  const KindAdapter* kind = nullptr;  // --kind: of --kustomizations, -l and --all
  std::string api_version;  // --api-version (of `kind`); empty: discover
  bool force = false;
  bool relabel = false;
  std::string label_value;  // relabel --reconcile
  bool dry_run = false;
  bool scheduled = false;     // open/close --scheduled: an active override wins over the job
  bool fail_on_held = false;  // a held target makes the exit code 1
  bool wait = false;
  std::chrono::milliseconds wait_timeout{std::chrono::minutes(5)};
  std::chrono::milliseconds poll_interval{std::chrono::seconds(1)};
  std::string reason;
  std::chrono::milliseconds override_for{0};  // open/close --for: keep that state until now + this
  std::string identity;                        // recorded as override-by
  OutputFormat output = OutputFormat::kText;
  Schedule schedule;  // sync, status: --window/--deny/--freeze (objects' annotations win)
  std::optional<NotifyEndpoint> notify;         // --notify: changes also go to Flux's alerts
  std::chrono::milliseconds notify_timeout{5000};
  std::string user_agent;
};

// Exit code 0 or 1. Configuration errors surface as ConfigError before anything is written.
int run_command(Client& client, const CommandOptions& options);

}  // namespace windowctl
