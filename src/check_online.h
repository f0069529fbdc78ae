// `windowctl check` against the cluster: the rules that need live facts (the server's version,
// the live targets, the caller's own permissions). Gathering (I/O, check_online.cc's
// gather_live) fills a LiveFacts; check_live computes the findings from it alone, so every rule
// is tested without a server. Rule ids continue check.h's (WC011...); WC002 is shared with the
// offline rule it mirrors.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "client.h"
#include "commands.h"

namespace windowctl {

enum class LiveRead { kFound, kNotFound, kForbidden, kFailed };

struct LiveTarget {
  std::string key;  // Kind/ns/name
  LiveRead read = LiveRead::kFound;
  std::string error;      // kForbidden, kFailed: one line from the server or the transport
  nlohmann::json object;  // kFound
  Pause pause;            // how its kind pauses (kinds.h)
};

// A window job as found in the cluster, or the target flags of the check itself (key "").
struct LiveJob {
  std::string key;         // CronJob/ns/name, or "" for the flags
  bool windowing = false;  // close or sync, not suspended: its targets are windowed
  bool relabel = false;
  std::string time_zone;             // spec.timeZone
  std::vector<std::string> targets;  // keys into LiveFacts::targets
  std::string command;               // open, close or sync
};

// One SelfSubjectAccessReview: may the caller do `verb` on it?
struct AccessReview {
  std::string object;  // of the finding: the job's key; for the flags the target's key, or Namespace/NS
  std::string verb, group, resource, ns, name;
  std::optional<bool> allowed;  // nullopt: the review itself failed (error says why)
  std::string reason, error;
};

// Something the rules need that check could not read: the rules it feeds were not run on it.
struct Unread {
  std::string object;              // of the finding: Namespace/NS, or "cluster" for cluster-scoped kinds
  std::string what;                // "rolebindings.rbac.authorization.k8s.io in flux-system"
  std::vector<std::string> rules;  // WC009, WC018
  std::string error;
};

struct LiveFacts {
  std::optional<std::pair<int, int>> server;  // major, minor; nullopt: unknown
  std::string server_text;                    // gitVersion as sent, for messages
  std::vector<LiveJob> jobs;
  std::vector<LiveTarget> targets;
  std::vector<AccessReview> reviews;
  // Without targets as flags: what the offline rules read, as the cluster has it (the window
  // CronJobs, their targets, the Kustomizations and HelmReleases beside them, the RBAC objects
  // and ServiceAccounts that check may read), for check_objects with `scope`.
  std::vector<nlohmann::json> model;
  CheckScope scope;
  std::vector<Unread> unread;    // WC017
  std::string no_window_job_in;  // WC022: the namespace whose CronJobs run no windowctl
};

// major.minor of a /version answer: gitVersion "v1.26.3+k3s1", else major/minor ("1", "26+",
// as GKE and EKS send them). nullopt when neither reads.
std::optional<std::pair<int, int>> parse_server_version(const nlohmann::json& version);

// status.allowed of a SelfSubjectAccessReview answer and its status.reason; nullopt when the
// answer has no boolean status.allowed.
std::optional<std::pair<bool, std::string>> parse_access_review(const nlohmann::json& review);

// The kustomize-controller managedFields entry that owns the pause field (spec.suspend, or the
// kind's pause annotation), i.e. the parent applies it from its source: "Kustomization/ns/name"
// of the parent (from its labels; "a parent" when unlabelled), or "" when no such entry.
std::string parent_declaring_suspend(const nlohmann::json& object, const Pause& pause = kSpecSuspend);

// Findings of the live rules, sorted as check_objects sorts them.
std::vector<Finding> check_live(const LiveFacts& facts);

// The window CronJobs among the facts (not the check's own flags) and their targets, for -o json.
std::vector<JobTargets> live_job_targets(const LiveFacts& facts);

// The check command: offline rules over `files` (if any) plus the live rules over the targets
// the options name, or, without targets, over every window CronJob in options.ns. Prints the
// findings; returns the exit code (1 when any error, else 0).
// `at`: the instant the offline rules over `files` evaluate windows from (check --at).
// With `into` (a context of a fleet run), the findings and jobs are kept there instead of printed.
int run_check_online(Client& client, const CommandOptions& options, const std::vector<std::string>& files, SysTime at,
                     ContextRun* into = nullptr);

}  // namespace windowctl
