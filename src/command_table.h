// windowctl's commands, one row each, as ninja keeps its tools: the name and alias a user types,
// what the command needs before it can run, whether it writes, its line of help and what it does.
// Code that depends on which command was given reads its row; no other place compares names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "plan.h"

namespace windowctl {

// A row's identity, for the code that belongs to one command: its flags (cli.cc), its path.
enum class CommandId : std::uint8_t {
  kClose,
  kOpen,
  kRelabel,
  kAdopt,
  kSync,
  kSchedule,
  kStatus,
  kCheck,
  kVersion,
  kCompletion,
  kHelp,
};

// What a command reads before it can run. A client is built (kubeconfig read, exec plugin run)
// only for a run that needs the cluster: Flags::needs_cluster.
enum class Needs : std::uint8_t {
  kNothing,    // its command line alone
  kManifests,  // its -f files alone, offline; given targets, or no files, the cluster too (check)
  kCluster,    // a kubeconfig and the API server it names
};

struct Command {
  CommandId id;
  std::string_view name;
  std::string_view alias;  // flux's word for it, also accepted; empty: none
  Needs needs;
  bool writes;  // changes objects, so it takes --dry-run, --reason and --notify
  // Runs over many kubeconfig contexts at once (--contexts, --all-contexts). Not sync: a CronJob's,
  // in the one cluster it runs in.
  bool fleet;
  // What plan.h decides every target toward. None for sync, whose window decides per object
  // (Applier::input_for), nor for a command that writes nothing.
  std::optional<Action> action;
  std::string_view description;  // its line in help; CLI11's subcommand description
};

// In the order help lists them.
inline constexpr std::array<Command, 11> kCommands{{
    {CommandId::kClose, "close", "suspend", Needs::kCluster, true, true, Action::kClose,
     "Suspend the targets (spec.suspend: true) and mark them as suspended by windowctl"},
    {CommandId::kOpen, "open", "resume", Needs::kCluster, true, true, Action::kOpen,
     "Resume what windowctl suspended and request a reconcile now"},
    {CommandId::kRelabel, "relabel", "", Needs::kCluster, true, true, Action::kRelabel,
     "Set only the kustomize.toolkit.fluxcd.io/reconcile label"},
    {CommandId::kAdopt, "adopt", "", Needs::kCluster, true, true, Action::kAdopt,
     "Mark targets someone else suspended (e.g. flux suspend) as closed by windowctl, so the next open resumes them"},
    {CommandId::kSync, "sync", "", Needs::kCluster, true, false, std::nullopt,
     "Open or close each target as its window says now (level-triggered; idempotent)"},
    {CommandId::kSchedule, "schedule", "", Needs::kNothing, false, false, std::nullopt,
     "Say whether the window is open and list the next windows (no cluster needed)"},
    {CommandId::kStatus, "status", "", Needs::kCluster, false, true, std::nullopt,
     "Show suspension, who suspended, readiness and revision (every object of --kind in the namespace by default)"},
    {CommandId::kCheck, "check", "", Needs::kManifests, false, true, std::nullopt,
     "Find setups where a window silently fails: in manifests (-f alone: no cluster needed), "
     "else live, for the targets given or every window CronJob in -n"},
    {CommandId::kVersion, "version", "", Needs::kNothing, false, false, std::nullopt, "Print the version and commit"},
    {CommandId::kCompletion, "completion", "", Needs::kNothing, false, false, std::nullopt,
     "Print a shell completion script: bash, zsh or fish"},
    {CommandId::kHelp, "help", "", Needs::kNothing, false, false, std::nullopt, "Help about any command"},
}};

constexpr const Command& command_row(CommandId id) { return kCommands[static_cast<std::size_t>(id)]; }

// The row a word on the command line names, by its name or alias; nullptr for none.
constexpr const Command* find_command(std::string_view word) {
  for (const Command& c : kCommands) {
    if (word == c.name || (!c.alias.empty() && word == c.alias)) return &c;
  }
  return nullptr;
}

namespace detail {
constexpr bool rows_sound() {
  for (std::size_t i = 0; i < kCommands.size(); ++i) {
    const Command& c = kCommands[i];
    // command_row(id) indexes by id; a word must name one row only.
    if (static_cast<std::size_t>(c.id) != i || c.name.empty() || find_command(c.name) != &c) return false;
    if (!c.alias.empty() && find_command(c.alias) != &c) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (kCommands[j].alias == c.name || (!c.alias.empty() && kCommands[j].alias == c.alias)) return false;
    }
    // A command that writes acts on objects, so on a cluster; a plan action is a write's.
    if (c.writes && c.needs != Needs::kCluster) return false;
    if (c.action && !c.writes) return false;
    if (c.fleet && c.needs == Needs::kNothing) return false;  // contexts are clusters
  }
  return true;
}
}  // namespace detail
static_assert(detail::rows_sound(),
              "kCommands: ids out of order, a word naming two rows, or a write or fleet command off the cluster");

}  // namespace windowctl
