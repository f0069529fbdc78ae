#include "targets.h"

#include <algorithm>

#include "config.h"

namespace windowctl {

namespace {

bool alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool valid_label(std::string_view s) {
  return !s.empty() && s.size() <= 63 && alnum_lower(s.front()) && alnum_lower(s.back()) &&
         std::all_of(s.begin(), s.end(), [](char c) { return alnum_lower(c) || c == '-'; });
}

}  // namespace

bool valid_namespace(std::string_view name) { return valid_label(name); }

bool valid_object_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  while (true) {
    auto dot = name.find('.');
    if (!valid_label(name.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    name.remove_prefix(dot + 1);
  }
}

std::vector<Target> parse_targets(const std::vector<std::string>& values, const std::string& default_ns) {
  std::vector<Target> out;
  for (const auto& value : values) {
    std::string_view rest = value;
    while (true) {
      auto comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (item.empty()) throw ConfigError("empty name in --kustomizations \"" + value + "\"");
      Target t;
      auto slash = item.find('/');
      if (slash == std::string_view::npos) {
        t = {default_ns, std::string(item)};
      } else {
        t = {std::string(item.substr(0, slash)), std::string(item.substr(slash + 1))};
        if (!valid_namespace(t.ns)) throw ConfigError("invalid namespace \"" + t.ns + "\" in \"" + std::string(item) + "\"");
      }
      if (!valid_object_name(t.name)) throw ConfigError("invalid name \"" + t.name + "\" (lowercase letters, digits, '-' and '.')");
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return out;
}

}  // namespace windowctl
