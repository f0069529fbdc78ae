#include "kinds.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "http.h"
#include "json_read.h"
#include "targets.h"
#include "text.h"
#include "util.h"

namespace windowctl {

namespace {

std::string str_at(const nlohmann::json& obj, const nlohmann::json::json_pointer& ptr) {
  if (!obj.contains(ptr)) return {};
  const auto& v = obj.at(ptr);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// Kustomization, ResourceSet: the source revision last applied.
std::string applied_revision(const nlohmann::json& obj) {
  return str_at(obj, "/status/lastAppliedRevision"_json_pointer);
}

// FluxInstance: the distribution it applied (v2.7.0@sha256:...), else the one it last tried.
std::string flux_instance_revision(const nlohmann::json& obj) {
  std::string applied = applied_revision(obj);
  return applied.empty() ? str_at(obj, "/status/lastAttemptedRevision"_json_pointer) : applied;
}

// ResourceSetInputProvider: the digest of the inputs it last exported.
std::string input_provider_revision(const nlohmann::json& obj) {
  return str_at(obj, "/status/lastExportedRevision"_json_pointer);
}

// ArtifactGenerator: the digest of its sources' state it last built from.
std::string artifact_generator_revision(const nlohmann::json& obj) {
  return str_at(obj, "/status/observedSourcesDigest"_json_pointer);
}

std::string helmrelease_revision(const nlohmann::json& obj) {
  // v2 keeps the release history newest first; lastAttemptedRevision is the chart version tried.
  std::string chart = str_at(obj, "/status/history/0/chartVersion"_json_pointer);
  return chart.empty() ? str_at(obj, "/status/lastAttemptedRevision"_json_pointer) : chart;
}

// Sources: the revision of the artifact they serve (main@sha1:..., 6.7.1@sha256:...).
std::string artifact_revision(const nlohmann::json& obj) {
  return str_at(obj, "/status/artifact/revision"_json_pointer);
}

// The last scan: its revision (a digest of the tag list), else how many tags it found.
std::string image_repository_revision(const nlohmann::json& obj) {
  std::string rev = str_at(obj, "/status/lastScanResult/revision"_json_pointer);
  if (!rev.empty() || !obj.contains("/status/lastScanResult"_json_pointer)) return rev;
  auto count = int_at(obj.at("/status/lastScanResult"_json_pointer), "tagCount");
  return count ? std::to_string(*count) + " tags" : std::string();
}

// The image the policy selected: name:tag, with @digest when it has one.
std::string image_policy_revision(const nlohmann::json& obj) {
  std::string name = str_at(obj, "/status/latestRef/name"_json_pointer);
  std::string tag = str_at(obj, "/status/latestRef/tag"_json_pointer);
  std::string digest = str_at(obj, "/status/latestRef/digest"_json_pointer);
  if (name.empty() && tag.empty()) return {};
  return name + ":" + tag + (digest.empty() ? "" : "@" + digest);
}

std::string image_update_revision(const nlohmann::json& obj) {
  return str_at(obj, "/status/lastPushCommit"_json_pointer);
}

// Alert, Provider, Receiver carry no revision.
std::string no_revision(const nlohmann::json&) { return {}; }

constexpr std::string_view kSource = "source.toolkit.fluxcd.io";
constexpr std::string_view kImage = "image.toolkit.fluxcd.io";
constexpr std::string_view kNotification = "notification.toolkit.fluxcd.io";
constexpr std::string_view kOperator = "fluxcd.controlplane.io";

// The Flux Operator pauses ResourceSet, ResourceSetInputProvider and FluxInstance (and no other
// kind of its group windowctl windows) on an annotation, read by IsDisabled() in
// controlplaneio-fluxcd/flux-operator api/v1/{resourceset,resourcesetinputprovider,fluxinstance}_types.go:
// present and strings.ToLower(value) == DisabledValue ("disabled"), with ReconcileAnnotation =
// GroupVersion.Group + "/reconcile" and DisabledValue/EnabledValue in api/v1/common_types.go.
// Its reconcilers (internal/controller/*_controller.go) return before reconciling while it is
// disabled. Its own resume writes EnabledValue, not a removal (cmd/cli/client.go
// toggleSuspension, internal/web/resource_action.go setSuspension, which also writes and removes
// SuspendedByAnnotation), so open does the same. Each echoes reconcile.fluxcd.io/requestedAt in
// status.lastHandledReconcileAt (finalizeObjectStatus in internal/controller/common.go, through
// fluxcd/pkg meta.ReconcileAnnotationValue), so open --wait waits for the token.
constexpr Pause kOperatorPause{"fluxcd.controlplane.io/reconcile", "disabled", "enabled"};
// fluxcd/source-watcher api/v1beta1/artifactgenerator_types.go: ReconcileAnnotation
// "source.extensions.fluxcd.io/reconcile", IsDisabled() (present and lowercased == DisabledValue
// "disabled"), checked first in internal/controller/artifactgenerator_controller.go Reconcile.
// docs/spec/v1beta1/artifactgenerators.md: "To resume reconciliation, remove the annotation or set
// its value to `Enabled`"; open removes it (no tool of theirs writes EnabledValue). summarizeStatus
// (internal/controller/artifactgenerator_status.go) echoes requestedAt as lastHandledReconcileAt.
constexpr Pause kArtifactGeneratorPause{"source.extensions.fluxcd.io/reconcile", "disabled", nullptr};

// Preferred versions are the storage versions of Flux v2.9's CRDs, of the Flux Operator v0.58's
// (config/crd/bases: v1 only, served and stored) and source-watcher v2.2's (v1beta1 only); an
// older server's own preference is used when it does not serve them (choose_version). Aliases are
// the CRDs' shortNames and the flux and flux-operator CLIs' names (flux-operator cmd/cli/suspend_*.go).
constexpr KindAdapter kTable[] = {
    {"Kustomization", "kustomize.toolkit.fluxcd.io", "kustomizations", "v1", "ks", applied_revision,
     "lastAppliedRevision"},
    {"HelmRelease", "helm.toolkit.fluxcd.io", "helmreleases", "v2", "hr", helmrelease_revision,
     "history lastAttemptedRevision"},
    {"GitRepository", kSource, "gitrepositories", "v1", "gitrepo", artifact_revision, "artifact"},
    {"OCIRepository", kSource, "ocirepositories", "v1", "ocirepo", artifact_revision, "artifact"},
    {"HelmRepository", kSource, "helmrepositories", "v1", "helmrepo", artifact_revision, "artifact"},
    {"HelmChart", kSource, "helmcharts", "v1", "hc", artifact_revision, "artifact"},
    {"Bucket", kSource, "buckets", "v1", "", artifact_revision, "artifact"},
    {"ImageRepository", kImage, "imagerepositories", "v1", "imgrepo imagerepo", image_repository_revision,
     "lastScanResult"},
    {"ImagePolicy", kImage, "imagepolicies", "v1", "imgpol imagepol", image_policy_revision, "latestRef"},
    {"ImageUpdateAutomation", kImage, "imageupdateautomations", "v1", "iua imgupd imgauto imageupdate image-update",
     image_update_revision, "lastPushCommit"},
    {"Alert", kNotification, "alerts", "v1beta3", "", no_revision, "", false},
    {"Provider", kNotification, "providers", "v1beta3", "alert-provider", no_revision, "", false},
    {"Receiver", kNotification, "receivers", "v1", "", no_revision, ""},
    {"ResourceSet", kOperator, "resourcesets", "v1", "rset", applied_revision, "lastAppliedRevision", true,
     kOperatorPause},
    {"ResourceSetInputProvider", kOperator, "resourcesetinputproviders", "v1", "rsip inputprovider",
     input_provider_revision, "lastExportedRevision", true, kOperatorPause},
    {"FluxInstance", kOperator, "fluxinstances", "v1", "instance", flux_instance_revision,
     "lastAppliedRevision lastAttemptedRevision", true, kOperatorPause},
    {"ArtifactGenerator", "source.extensions.fluxcd.io", "artifactgenerators", "v1beta1", "ag",
     artifact_generator_revision, "observedSourcesDigest", true, kArtifactGeneratorPause},
};

// Calls `each` with every word of a space-separated list.
template <typename F>
bool any_word(std::string_view list, F&& each) {
  while (!list.empty()) {
    auto space = list.find(' ');
    if (each(list.substr(0, space))) return true;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return false;
}

bool qualified_is(std::string_view name, std::string_view word, std::string_view group) {
  return name.size() == word.size() + 1 + group.size() && iequals_ascii(name.substr(0, word.size()), word) &&
         name[word.size()] == '.' && iequals_ascii(name.substr(word.size() + 1), group);
}

bool matches(const KindAdapter& k, std::string_view name) {
  if (iequals_ascii(name, k.kind) || iequals_ascii(name, k.plural)) return true;
  if (qualified_is(name, k.kind, k.group) || qualified_is(name, k.plural, k.group)) return true;
  return any_word(k.aliases, [&](std::string_view alias) { return iequals_ascii(alias, name); });
}

}  // namespace

const std::vector<const KindAdapter*>& all_kinds() {
  static const std::vector<const KindAdapter*> kinds = [] {
    std::vector<const KindAdapter*> v;
    for (const auto& k : kTable) v.push_back(&k);
    return v;
  }();
  return kinds;
}

std::string kinds_help() {
  std::string out;
  for (const auto& k : kTable) {
    if (!out.empty()) out += ", ";
    out += std::string(k.kind);
    if (k.aliases.empty()) continue;
    std::string aliases(k.aliases);
    for (char& c : aliases) c = c == ' ' ? ',' : c;
    out += " (" + aliases + ")";
  }
  return out;
}

bool reads_status_field(std::string_view field) {
  auto is_it = [&](std::string_view declared) { return declared == field; };
  if (any_word(kReadinessStatusFields, is_it)) return true;
  for (const auto& k : kTable) {
    if (any_word(k.revision_fields, is_it)) return true;
  }
  return false;
}

bool is_pause_annotation(std::string_view key) {
  for (const auto& k : kTable) {
    if (k.pause.annotation && key == k.pause.annotation) return true;
  }
  return false;
}

const KindAdapter* find_kind(std::string_view name) {
  for (const auto& k : kTable) {
    if (matches(k, name)) return &k;
  }
  return nullptr;
}

std::vector<std::string> nearest_kinds(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& k : kTable) {
    names.emplace_back(k.kind);
    names.emplace_back(k.plural);
    any_word(k.aliases, [&](std::string_view alias) {
      names.emplace_back(alias);
      return false;
    });
  }
  std::vector<std::string> out;
  // By the kind's own name, once: "helmrel" begins both HelmRelease and helmreleases.
  for (const auto& n : nearest_names(name, names)) {
    std::string kind(find_kind(n)->kind);
    if (std::find(out.cbegin(), out.cend(), kind) == out.cend()) out.push_back(std::move(kind));
  }
  return out;
}

std::string unknown_kind_flag(std::string_view value) {
  std::string out = "unknown --kind \"" + printable(value, 64);
  std::string hint = did_you_mean(nearest_kinds(value));
  return hint.empty() ? out.append("\": use one of ").append(kinds_help()) : out.append("\"; ").append(hint);
}

ReadyVerdict kind_readiness(const KindAdapter& kind, const nlohmann::json& object, const std::string& token) {
  if (kind.has_status) return evaluate_readiness(object, token);
  if (find_condition(object, "Ready").status.empty()) return {Readiness::kReady, "no status: ready once it exists"};
  return evaluate_readiness(object, std::string());
}

std::string group_path(const KindAdapter& kind) { return "/apis/" + std::string(kind.group); }

bool valid_api_version(std::string_view v) {
  // v<major>[(alpha|beta)<minor>], as k8s.io/apimachinery/pkg/version parses them.
  auto digits = [&](std::size_t& i) {
    std::size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    return i > start && i - start <= 9 && v[start] != '0';
  };
  std::size_t i = 1;
  if (v.empty() || v[0] != 'v' || !digits(i)) return false;
  if (i == v.size()) return true;
  for (std::string_view stage : {"alpha", "beta"}) {
    if (v.substr(i, stage.size()) == stage) {
      i += stage.size();
      return digits(i) && i == v.size();
    }
  }
  return false;
}

std::string collection_path(const KindAdapter& kind, std::string_view version, std::string_view ns) {
  if (!valid_api_version(version))
    throw std::invalid_argument("invalid API version \"" + std::string(version.substr(0, 64)) + "\"");
  if (!ns.empty() && !valid_namespace(ns))
    throw std::invalid_argument("invalid namespace \"" + std::string(ns.substr(0, 64)) + "\"");
  std::string path = group_path(kind) + "/" + std::string(version);
  if (!ns.empty()) path += "/namespaces/" + std::string(ns);
  return path + "/" + std::string(kind.plural);
}

std::string object_path(const KindAdapter& kind, std::string_view version, std::string_view ns, std::string_view name) {
  if (!valid_object_name(name))
    throw std::invalid_argument("invalid name \"" + std::string(name.substr(0, 254)) + "\"");
  return collection_path(kind, version, ns) + "/" + std::string(name);
}

std::string choose_version(const KindAdapter& kind, const nlohmann::json& api_group) {
  // Every field is checked for its type: a number where a string belongs means "absent".
  auto str = [](const nlohmann::json& obj, const char* key) {
    if (!obj.is_object()) return std::string();
    auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!api_group.is_object()) return {};
  auto versions = api_group.find("versions");
  if (versions != api_group.end() && versions->is_array()) {
    for (const auto& v : *versions) {
      if (str(v, "version") == kind.preferred) return std::string(kind.preferred);
    }
  }
  auto preferred = api_group.find("preferredVersion");
  std::string version = preferred != api_group.end() ? str(*preferred, "version") : std::string();
  return valid_api_version(version) ? version : std::string();
}

std::string metadata_string(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  auto v = meta->find(key);
  return v != meta->end() && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace windowctl
