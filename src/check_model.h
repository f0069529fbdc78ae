// What `windowctl check` reads from manifests (check.h): the window jobs (CronJobs running
// windowctl open/close/sync) with their arguments parsed as windowctl parses them, their
// targets, and the input's objects by kind/namespace/name. Pure.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "selector.h"
#include "targets.h"
#include "window.h"

namespace windowctl {

// "Kind/namespace/name", or "Kind/name" for an object without a namespace in a cluster-scoped kind.
std::string object_key(const std::string& kind, const std::string& ns, const std::string& name);

// A window job and what the binary does with its args in its pod: each read by the function the
// binary runs (the command line, default_namespace, parse_targets, parse_selector), none again here.
struct WindowJob {
  const nlohmann::json* object = nullptr;  // the CronJob
  std::string key;                         // CronJob/ns/name
  std::string ns, name;
  std::string command;                    // open, close or sync: an alias reads as its command
  Flags flags;                            // its args
  std::string args_problem;               // non-empty: windowctl refuses the args (exit 2 every run)
  bool args_unread = false;               // args_problem is a ConfigMap check could not read (WC017)
  const KindAdapter* kind = nullptr;      // --kind
  std::string target_ns;                  // of names without one and of -l/--all
  std::vector<Target> named;              // names then --targets; Target::kind nullptr: --kind
  std::optional<LabelSelector> selector;  // -l (--all: the empty one); nullopt: it lists nothing
  bool suspended = false;
  std::string schedule, time_zone;  // spec.schedule, spec.timeZone
  std::string service_account = "default";
  std::string image;              // of the windowctl container
  std::set<std::string> targets;  // Kind/ns/name: named, or selected among the input
  Schedule windows;               // --window, --deny, --freeze and the calendars its pod reads
  // As command_options converts them: --overrun of a close or sync (0 for open), --cutoff of a
  // sync or open --scheduled (0 when off).
  std::chrono::milliseconds overrun{0}, cutoff{0};
  std::optional<long long> active_deadline;  // spec.jobTemplate.spec.activeDeadlineSeconds
  bool windowing() const { return !suspended && args_problem.empty() && (command == "close" || command == "sync"); }
};

struct Manifests {
  std::vector<const nlohmann::json*> all;
  std::map<std::string, const nlohmann::json*> by_key;  // Kind/ns/name; the last one wins
  std::vector<WindowJob> jobs;
  std::set<std::string> windowed;  // targets of windowing jobs

  const nlohmann::json* find(const std::string& key) const;
};

// Namespace of an object as kubectl applies it: metadata.namespace, else "default".
std::string namespace_of(const nlohmann::json& object);
std::string name_of(const nlohmann::json& object);
// metadata.labels[key], else metadata.annotations[key], else "".
std::string label_or_annotation(const nlohmann::json& object, const std::string& key);

// `unread`: keys (Kind/ns/name) of objects check could not read (live), which a job's args may name.
Manifests index_manifests(const std::vector<nlohmann::json>& objects, const std::set<std::string>& unread = {});

}  // namespace windowctl
