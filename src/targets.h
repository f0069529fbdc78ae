// Target names from --kustomizations: "name" (in the default namespace) or "namespace/name", of
// the --kind; and from --targets: "KIND/name" or "KIND/namespace/name", each of its own kind.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace windowctl {

struct KindAdapter;

struct Target {
  std::string ns;
  std::string name;
  const KindAdapter* kind = nullptr;  // from --targets; nullptr: the run's --kind
  // "ns/name"; with a kind of its own "kind/ns/name", as --targets spells it.
  std::string id() const;
  bool operator==(const Target&) const = default;
};

// Splits comma lists, validates names as Kubernetes does and drops duplicates keeping the
// first order. Throws ConfigError naming the bad entry.
std::vector<Target> parse_targets(const std::vector<std::string>& values, const std::string& default_ns);

// --targets: KIND/NAME or KIND/NAMESPACE/NAME, comma-separated; KIND is anything find_kind
// knows (kinds.h). Every entry is checked before anything is sent; duplicates are dropped.
// Throws ConfigError naming the bad entry.
std::vector<Target> parse_kind_targets(const std::vector<std::string>& values, const std::string& default_ns);

bool valid_object_name(std::string_view name);  // DNS-1123 subdomain
bool valid_namespace(std::string_view name);    // DNS-1123 label

}  // namespace windowctl
