// `windowctl check`: rules that catch setups where a reconciliation window silently fails,
// computed from manifests alone (manifests.h reads them). Pure apart from reading the zoneinfo
// files that windows and CronJob time zones name.
//
// Rule ids are stable: scripts may filter on them; a retired id is never reused. docs/check.md
// has the tables. A window job is a CronJob whose container runs windowctl
// open, close or sync; its targets are the objects its args name, or those its -l/--all select
// among the input's objects of its --kind in its namespace (-n, else FLUX_SYSTEM_NAMESPACE of its
// container, else flux-system; every namespace with -A), each read as the binary reads it
// (check_model.h). A target is windowed when a close or sync job that is not suspended acts on it.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "timefmt.h"

namespace windowctl {

struct Finding {
  std::string id;        // WC001...
  std::string severity;  // error or warning
  std::string object;    // Kind/namespace/name (Kind/name when cluster-scoped)
  std::string message;   // what is wrong and what to change, one line
  bool operator==(const Finding&) const = default;
};

// A window job and what check takes its args to act on: -o json lists them, so that a user (and
// a test) can see which targets check reasoned about, not only what it found wrong.
struct JobTargets {
  std::string object;                // CronJob/namespace/name
  std::string command;               // open, close or sync: an alias reads as its command
  bool windowing = false;            // its targets are windowed (close or sync, not suspended)
  std::vector<std::string> targets;  // Kind/namespace/name, sorted
  bool operator==(const JobTargets&) const = default;
};

// What the objects given to check_objects are. Offline they are manifests, and a kind counts as
// complete when the input holds any object of it (only what the input shows counts). Live they
// are what check read from the cluster, and the gatherer says which reads were complete.
struct CheckScope {
  bool live = false;                   // spec.suspend is state, not a manifest's: WC002 reads managedFields instead
  bool bindings_read = false;          // live: every RoleBinding and ClusterRoleBinding that could bind a job
  bool service_accounts_read = false;  // live: every ServiceAccount in the jobs' namespaces
  std::set<std::string> unread;        // live: objects the jobs mount that check could not read (Kind/ns/name)
};

// Findings sorted by object, then id, then message. `now` anchors the schedule rules, which look
// about a year ahead. With `jobs`, also the window jobs of the input, sorted by object.
std::vector<Finding> check_objects(const std::vector<nlohmann::json>& objects, SysTime now,
                                   std::vector<JobTargets>* jobs = nullptr, const CheckScope& scope = {});

bool has_error(const std::vector<Finding>& findings);

// By object, then id, then message; duplicates dropped.
void sort_findings(std::vector<Finding>& findings);

// Text: "error WC001 Kustomization/flux-system/apps: ..." one line each (nothing when clean);
// JSON: {"command":"check","findings":[{"id","severity","object","message"}...],
// "jobs":[{"object","command","windowing","targets"}...]}. The text has no jobs.
// One finding, one window job, as -o json writes them (check's document and a fleet's alike).
nlohmann::json finding_json(const Finding& finding);
nlohmann::json job_json(const JobTargets& job);
std::string render_findings(const std::vector<Finding>& findings, bool json, const std::vector<JobTargets>& jobs = {});

}  // namespace windowctl
