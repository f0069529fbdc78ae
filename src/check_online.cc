// The live rules of `windowctl check` (check_online.h): pure, over facts gathered beforehand
// (check_gather.cc).
#include "check_online.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "check_model.h"
#include "json_read.h"
#include "plan.h"

namespace windowctl {

using nlohmann::json;

namespace {

// The leading decimal digits of `s`, or nullopt when it has none or more than 4 (no version has).
std::optional<int> leading_int(std::string_view s) {
  int value = 0;
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0 || n > 4 || std::from_chars(s.data(), s.data() + n, value).ec != std::errc()) return std::nullopt;
  return value;
}

std::string who(const std::string& key) {
  auto slash = key.find('/');
  return slash == std::string::npos ? key : key.substr(0, slash) + " " + key.substr(slash + 1);
}

bool equals_lower(std::string s, std::string_view want) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s == want;
}

}  // namespace

std::optional<std::pair<int, int>> parse_server_version(const json& version) {
  std::string git = string_at(version, "gitVersion");
  std::string_view v = git;
  if (v.starts_with("v")) v.remove_prefix(1);
  auto major = leading_int(v);
  auto dot = v.find('.');
  if (major && dot != std::string_view::npos) {
    if (auto minor = leading_int(v.substr(dot + 1))) return std::pair{*major, *minor};
  }
  // Managed clusters may send a gitVersion of their own; major and minor ("26+") remain.
  auto ma = leading_int(string_at(version, "major"));
  auto mi = leading_int(string_at(version, "minor"));
  if (ma && mi) return std::pair{*ma, *mi};
  return std::nullopt;
}

std::optional<std::pair<bool, std::string>> parse_access_review(const json& review) {
  const json* status = field(review, "status");
  const json* allowed = status ? field(*status, "allowed") : nullptr;
  if (!allowed || !allowed->is_boolean()) return std::nullopt;
  std::string reason = string_at(*status, "reason");
  if (reason.empty()) reason = string_at(*status, "evaluationError");
  return std::pair{allowed->get<bool>(), reason};
}

std::string parent_declaring_suspend(const json& object, const Pause& pause) {
  const std::string pause_key = pause.annotation ? std::string("f:") + pause.annotation : std::string();
  const json* meta = field(object, "metadata");
  const json* managed = meta ? field(*meta, "managedFields") : nullptr;
  if (!managed || !managed->is_array()) return {};
  for (const auto& entry : *managed) {
    if (string_at(entry, "manager") != "kustomize-controller" || !string_at(entry, "subresource").empty()) continue;
    const json* fields = field(entry, "fieldsV1");
    // The pause field: f:spec.f:suspend, or f:metadata.f:annotations.f:KEY for a pause annotation.
    const json* parent = fields ? field(*fields, pause.annotation ? "f:metadata" : "f:spec") : nullptr;
    if (parent && pause.annotation) parent = field(*parent, "f:annotations");
    if (!parent || !field(*parent, pause.annotation ? pause_key : "f:suspend")) continue;
    std::string name = label_or_annotation(object, "kustomize.toolkit.fluxcd.io/name");
    if (name.empty()) return "a parent Kustomization";
    std::string ns = label_or_annotation(object, "kustomize.toolkit.fluxcd.io/namespace");
    return "Kustomization " + (ns.empty() ? namespace_of(object) : ns) + "/" + name;
  }
  return {};
}

std::vector<Finding> check_live(const LiveFacts& facts) {
  std::vector<Finding> out;
  auto add = [&](const char* id, const char* severity, const std::string& object, std::string message) {
    out.push_back({id, severity, object, std::move(message)});
  };
  auto target = [&](const std::string& key) -> const LiveTarget* {
    for (const auto& t : facts.targets)
      if (t.key == key) return &t;
    return nullptr;
  };

  for (const auto& t : facts.targets) {
    std::string named_by;
    for (const auto& j : facts.jobs) {
      if (!j.key.empty() && std::count(j.targets.begin(), j.targets.end(), t.key))
        named_by += (named_by.empty() ? "" : ", ") + j.key;
    }
    std::string by = named_by.empty() ? "" : " (a target of " + named_by + ")";
    switch (t.read) {
      case LiveRead::kNotFound:
        add("WC012", "error", t.key, "does not exist" + by + ": fix the name in the job's args, or create it");
        continue;
      case LiveRead::kForbidden:
        add("WC013", "error", t.key,
            "cannot be read" + by + ", so nothing else about it was checked: " + t.error +
                "; grant read access (get, list) to whoever runs check");
        continue;
      case LiveRead::kFailed:
        add("WC013", "error", t.key, "cannot be read" + by + ": " + t.error + "; run check again");
        continue;
      case LiveRead::kFound: break;
    }
    ObjectState st = read_state(t.object, t.pause);
    if (!st.problem.empty()) {
      add("WC013", "error", t.key, "cannot be read" + by + ": " + st.problem);
      continue;
    }
    if (st.suspended && !st.marked) {
      std::string quoted =
          st.flux_reason.empty() ? "" : " (reason: \"" + st.flux_reason.substr(0, kQuotedReasonMax) + "\")";
      add("WC014", "warning", t.key,
          "held: suspended by someone else, not windowctl" + quoted + by +
              ", so open leaves it suspended: run `windowctl adopt --targets " + t.key +
              "` to hand it to the window, or resume it");
    }
  }

  for (const auto& job : facts.jobs) {
    if (!job.time_zone.empty() && facts.server && *facts.server < std::pair{1, 27}) {
      add("WC011", "error", job.key,
          "spec.timeZone \"" + job.time_zone + "\" needs Kubernetes 1.27 (the server is " + facts.server_text +
              "): older servers drop the field or gate it, and the job runs in the controller's zone; remove timeZone "
              "and write "
              "the schedule in UTC, or upgrade");
    }
    if (job.key.empty() || !job.windowing || job.relabel) continue;
    for (const auto& key : job.targets) {
      const LiveTarget* t = target(key);
      if (!t || t->read != LiveRead::kFound) continue;
      std::string parent = parent_declaring_suspend(t->object, t->pause);
      if (parent.empty() || equals_lower(label_or_annotation(t->object, kReconcileLabel), "disabled")) continue;
      const std::string pause_field = t->pause.field();
      add("WC002", "error", job.key,
          "its target " + who(key) + " has " + pause_field + " applied by " + parent +
              " (kustomize-controller owns the field), which undoes every close: add --relabel to this job (or "
              "remove " +
              pause_field + " from that manifest)");
    }
  }

  // One finding per place: what could not be read there and which rules went without it.
  std::map<std::string, std::pair<std::vector<std::string>, std::set<std::string>>> unread;
  std::map<std::string, std::string> first_error;
  for (const auto& u : facts.unread) {
    auto& [what, rules] = unread[u.object];
    what.push_back(u.what);
    rules.insert(u.rules.begin(), u.rules.end());
    first_error.try_emplace(u.object, u.error);
  }
  for (const auto& [object, entry] : unread) {
    const auto& [what, ids] = entry;
    std::string rules;
    for (const auto& id : ids) rules += (rules.empty() ? "" : ", ") + id;
    std::string things;
    for (const auto& w : what) things += (things.empty() ? "" : ", ") + w;
    add("WC017", "warning", object,
        "cannot read " + things + ", so " + rules + (ids.size() == 1 ? " was" : " were") +
            " not checked: " + first_error[object] + "; grant list on them to whoever runs check");
  }
  if (!facts.no_window_job_in.empty()) {
    add("WC022", "warning", object_key("Namespace", "", facts.no_window_job_in),
        "no window job: no CronJob in namespace " + facts.no_window_job_in +
            " runs windowctl open, close or sync, so nothing was checked; give the jobs' namespace with -n, or "
            "targets");
  }

  for (const auto& r : facts.reviews) {
    std::string what = r.verb + " " + r.resource + (r.group.empty() ? "" : "." + r.group) +
                       (r.name.empty() ? "" : " named " + r.name) + " in namespace " + r.ns;
    const std::string& object = r.object;
    if (!r.allowed) {
      add("WC015", "warning", object, "could not ask the server whether the caller may " + what + ": " + r.error);
    } else if (!*r.allowed) {
      add("WC015", "error", object,
          "the caller may not " + what + (r.reason.empty() ? "" : " (" + r.reason + ")") +
              ", which the job needs: grant it in the Role bound to the job's ServiceAccount");
    }
  }

  sort_findings(out);
  return out;
}

std::vector<JobTargets> live_job_targets(const LiveFacts& facts) {
  std::vector<JobTargets> out;
  for (const auto& job : facts.jobs) {
    if (job.key.empty()) continue;
    JobTargets j{job.key, job.command, job.windowing, {}};
    // A LIST that failed is kept among the targets under the collection's name ("Kustomizations
    // in NS"), which names no object.
    std::copy_if(job.targets.begin(), job.targets.end(), std::back_inserter(j.targets),
                 [](const std::string& key) { return std::count(key.begin(), key.end(), '/') == 2; });
    std::sort(j.targets.begin(), j.targets.end());
    j.targets.erase(std::unique(j.targets.begin(), j.targets.end()), j.targets.end());
    out.push_back(std::move(j));
  }
  std::sort(out.begin(), out.end(), [](const JobTargets& a, const JobTargets& b) { return a.object < b.object; });
  return out;
}

}  // namespace windowctl
