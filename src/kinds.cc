#include "kinds.h"

#include <array>

#include <stdexcept>

#include "http.h"
#include "targets.h"

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
  if (!valid_api_version(version)) throw std::invalid_argument("invalid API version \"" + std::string(version.substr(0, 64)) + "\"");
  if (!ns.empty() && !valid_namespace(ns)) throw std::invalid_argument("invalid namespace \"" + std::string(ns.substr(0, 64)) + "\"");
  std::string path = group_path(kind) + "/" + std::string(version);
  if (!ns.empty()) path += "/namespaces/" + std::string(ns);
  return path + "/" + std::string(kind.plural);
}

std::string object_path(const KindAdapter& kind, std::string_view version, std::string_view ns, std::string_view name) {
  if (!valid_object_name(name)) throw std::invalid_argument("invalid name \"" + std::string(name.substr(0, 254)) + "\"");
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
