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

namespace windowctl {

// "Kind/namespace/name", or "Kind/name" for an object without a namespace in a cluster-scoped kind.
std::string object_key(const std::string& kind, const std::string& ns, const std::string& name);

struct WindowJob {
  const nlohmann::json* object = nullptr;  // the CronJob
  std::string key;                         // CronJob/ns/name
  std::string ns, name;
  std::string command;                     // open, close or sync
  std::string kind = "Kustomization";      // --kind, normalised; empty when unknown
  std::string kind_arg = "Kustomization";  // --kind as written
  std::string target_ns;                   // -n, else FLUX_SYSTEM_NAMESPACE, else flux-system
  std::vector<std::string> names;          // --kustomizations items, as written
  std::vector<std::string> kind_targets;   // --targets items (KIND/[NS/]NAME), as written
  std::string selector;                    // -l
  bool has_selector = false, all = false, relabel = false;
  std::vector<std::string> windows, denies, freezes;
  bool suspended = false;
  std::string schedule, time_zone;         // spec.schedule, spec.timeZone
  std::string service_account = "default";
  std::string args_problem;                // non-empty: windowctl refuses the args (exit 2 every run)
  std::set<std::string> targets;           // Kind/ns/name: named, or selected among the input
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

Manifests index_manifests(const std::vector<nlohmann::json>& objects);

// Does `selector` (kubectl syntax: a=b, a==b, a!=b, a, !a, a in (x,y), a notin (x,y); comma = and)
// select an object with these labels? nullopt when it does not parse.
std::optional<bool> selector_matches(const std::string& selector, const nlohmann::json& labels);

}  // namespace windowctl
