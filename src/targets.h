// Target names from --kustomizations: "name" (in the default namespace) or "namespace/name".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace windowctl {

struct Target {
  std::string ns;
  std::string name;
  std::string id() const { return ns + "/" + name; }
  bool operator==(const Target&) const = default;
};

// Splits comma lists, validates names as Kubernetes does and drops duplicates keeping the
// first order. Throws ConfigError naming the bad entry.
std::vector<Target> parse_targets(const std::vector<std::string>& values, const std::string& default_ns);

bool valid_object_name(std::string_view name);  // DNS-1123 subdomain
bool valid_namespace(std::string_view name);    // DNS-1123 label

}  // namespace windowctl
