#include "kinds.h"

#include <array>

#include "http.h"

namespace windowctl {

namespace {

std::string str_at(const nlohmann::json& obj, const nlohmann::json::json_pointer& ptr) {
  if (!obj.contains(ptr)) return {};
  const auto& v = obj.at(ptr);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string kustomization_revision(const nlohmann::json& obj) {
  return str_at(obj, "/status/lastAppliedRevision"_json_pointer);
}

std::string helmrelease_revision(const nlohmann::json& obj) {
  // v2 keeps the release history newest first; lastAttemptedRevision is the chart version tried.
  std::string chart = str_at(obj, "/status/history/0/chartVersion"_json_pointer);
  return chart.empty() ? str_at(obj, "/status/lastAttemptedRevision"_json_pointer) : chart;
}

struct Named {
  std::string_view alias;
  const KindAdapter* kind;
};

constexpr KindAdapter kKustomization{"Kustomization", "kustomize.toolkit.fluxcd.io", "kustomizations", "v1", kustomization_revision};
constexpr KindAdapter kHelmRelease{"HelmRelease", "helm.toolkit.fluxcd.io", "helmreleases", "v2", helmrelease_revision};

constexpr std::array<Named, 8> kAliases{{
    {"kustomization", &kKustomization},
    {"kustomizations", &kKustomization},
    {"ks", &kKustomization},
    {"kustomization.kustomize.toolkit.fluxcd.io", &kKustomization},
    {"helmrelease", &kHelmRelease},
    {"helmreleases", &kHelmRelease},
    {"hr", &kHelmRelease},
    {"helmrelease.helm.toolkit.fluxcd.io", &kHelmRelease},
}};

}  // namespace

const KindAdapter* find_kind(std::string_view name) {
  for (const auto& a : kAliases) {
    if (http::iequals(a.alias, name)) return a.kind;
  }
  return nullptr;
}

std::string group_path(const KindAdapter& kind) { return "/apis/" + std::string(kind.group); }

std::string collection_path(const KindAdapter& kind, std::string_view version, std::string_view ns) {
  std::string path = group_path(kind) + "/" + std::string(version);
  if (!ns.empty()) path += "/namespaces/" + std::string(ns);
  return path + "/" + std::string(kind.plural);
}

std::string object_path(const KindAdapter& kind, std::string_view version, std::string_view ns, std::string_view name) {
  return collection_path(kind, version, ns) + "/" + std::string(name);
}

std::string choose_version(const KindAdapter& kind, const nlohmann::json& api_group) {
  if (!api_group.is_object() || !api_group.contains("versions") || !api_group["versions"].is_array()) return {};
  for (const auto& v : api_group["versions"]) {
    if (v.is_object() && v.value("version", "") == kind.preferred) return std::string(kind.preferred);
  }
  if (api_group.contains("preferredVersion") && api_group["preferredVersion"].is_object()) {
    return api_group["preferredVersion"].value("version", "");
  }
  return {};
}

std::string metadata_string(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  auto v = meta->find(key);
  return v != meta->end() && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace windowctl
