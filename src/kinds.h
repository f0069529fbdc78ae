// Per-kind adapters: everything that differs between Flux kinds is here, so close/open/relabel
// run one generic path (as the flux CLI's suspend/resume do).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "plan.h"
#include "readiness.h"

namespace windowctl {

// One row per Flux kind windowctl windows: the 13 with spec.suspend (those `flux suspend` covers),
// and the 4 whose controller pauses on an annotation (the Flux Operator's ResourceSet,
// ResourceSetInputProvider and FluxInstance; source-watcher's ArtifactGenerator). Every kind is
// suspended, resumed and asked to reconcile (reconcile.fluxcd.io/requestedAt) the same way; what
// differs is here.
struct KindAdapter {
  std::string_view kind;       // Kustomization
  std::string_view group;      // kustomize.toolkit.fluxcd.io
  std::string_view plural;     // kustomizations
  std::string_view preferred;  // the version windowctl speaks when the server serves it
  std::string_view aliases;    // space-separated: kubectl short names (CRD shortNames) and flux CLI names
  std::string (*revision)(const nlohmann::json& object);  // what `status` shows in REVISION
  // The fields of `status` that `revision` reads, space-separated; it reads no other. A LIST
  // keeps only what some row declares (reads_status_field), so a field missing here is a
  // revision that status shows from a GET and not from -l/--all.
  std::string_view revision_fields;
  // False for Alert and Provider (notification v1beta3): static objects with no status, so no
  // Ready condition and no lastHandledReconcileAt to wait for; they are ready once they exist.
  bool has_status = true;
  Pause pause;  // spec.suspend, or the annotation its controller reads (plan.h)
};

// The fields of `status` that kind_readiness and in_progress (close --overrun) read, for every kind.
inline constexpr std::string_view kReadinessStatusFields = "conditions lastHandledReconcileAt history";

// Whether windowctl reads status.FIELD of some kind: a row's revision_fields, or readiness's.
bool reads_status_field(std::string_view field);

// Whether KEY is the pause annotation of some row: a LIST keeps it (and who owns it in
// managedFields), as it keeps the status fields rows declare.
bool is_pause_annotation(std::string_view key);

// Every kind in the table, in the order `--kind` help lists them.
const std::vector<const KindAdapter*>& all_kinds();

// "Kustomization (ks), HelmRelease (hr), ...": every kind and its aliases, for help and errors.
std::string kinds_help();

// Case-insensitive: the kind, the plural, KIND.GROUP, PLURAL.GROUP and each alias.
const KindAdapter* find_kind(std::string_view name);

// The kinds a mistyped kind probably meant (nearest_names over every kind, plural and alias), by
// their own names; empty when no kind is near.
std::vector<std::string> nearest_kinds(std::string_view name);
// Why --kind VALUE is refused: the kind it probably meant, else every kind there is.
std::string unknown_kind_flag(std::string_view value);

// Readiness after open as the kind defines it: Flux's Ready condition (readiness.h) for kinds
// with a status; for a static kind, ready as soon as it exists unless it does report a Ready
// condition (an older served version), which then counts. A token is waited for only on kinds
// whose controller echoes it.
ReadyVerdict kind_readiness(const KindAdapter& kind, const nlohmann::json& object, const std::string& token);

// An API version as Kubernetes spells them (v1, v2beta1, v1alpha3): it goes into request paths,
// from --api-version or from a server's discovery document, so nothing else may.
bool valid_api_version(std::string_view version);

std::string group_path(const KindAdapter& kind);  // /apis/GROUP
// The path builders refuse (std::invalid_argument) a version, namespace or name that is not
// valid: the last line of defence against a segment steering a request elsewhere.
std::string collection_path(const KindAdapter& kind, std::string_view version, std::string_view ns);
std::string object_path(const KindAdapter& kind, std::string_view version, std::string_view ns, std::string_view name);

// metadata.KEY of an object as the server sent it, or "" when absent or not a string (never
// operator[] on a missing key: the release build has no JSON_ASSERT to stop it).
std::string metadata_string(const nlohmann::json& object, const char* key);

// The version to use from an APIGroup discovery document: the preferred one of the adapter when
// served, else the group's preferredVersion. Empty when the group serves nothing.
std::string choose_version(const KindAdapter& kind, const nlohmann::json& api_group);

}  // namespace windowctl
