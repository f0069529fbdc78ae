#include "targets.h"

#include <algorithm>

#include "errors.h"
#include "kinds.h"
#include "util.h"

namespace windowctl {

namespace {

bool alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool valid_label(std::string_view s) {
  return !s.empty() && s.size() <= 63 && alnum_lower(s.front()) && alnum_lower(s.back()) &&
         std::all_of(s.begin(), s.end(), [](char c) { return alnum_lower(c) || c == '-'; });
}

std::string_view trimmed(std::string_view item) {
  while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
  while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
  return item;
}

// Calls `each` with every comma-separated entry of every value, trimmed; empty ones are refused.
template <typename F>
void for_each_entry(const std::vector<std::string>& values, const char* flag, F&& each) {
  for (const auto& value : values) {
    std::string_view rest = value;
    while (true) {
      auto comma = rest.find(',');
      std::string_view item = trimmed(rest.substr(0, comma));
      if (item.empty()) throw ConfigError(std::string("empty name in ") + flag + " \"" + value + "\"");
      each(item);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
}

void check_name(const Target& t, std::string_view item) {
  if (!valid_namespace(t.ns)) throw ConfigError("invalid namespace \"" + t.ns + "\" in \"" + std::string(item) + "\"");
  if (!valid_object_name(t.name)) {
    throw ConfigError("invalid name \"" + t.name + "\" in \"" + std::string(item) +
                      "\" (lowercase letters, digits, '-' and '.')");
  }
}

}  // namespace

std::string Target::id() const {
  if (!kind) return ns + "/" + name;
  std::string k(kind->kind);
  for (char& c : k) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return k + "/" + ns + "/" + name;
}

std::vector<Target> parse_kind_targets(const std::vector<std::string>& values, const std::string& default_ns) {
  std::vector<Target> out;
  for_each_entry(values, "--targets", [&](std::string_view item) {
    auto first = item.find('/');
    if (first == std::string_view::npos) {
      throw ConfigError("--targets entry \"" + std::string(item) +
                        "\" has no kind: use KIND/NAME or KIND/NAMESPACE/NAME");
    }
    Target t;
    t.kind = find_kind(item.substr(0, first));
    if (!t.kind) {
      std::string hint = did_you_mean(nearest_kinds(item.substr(0, first)));
      throw ConfigError("unknown kind \"" + std::string(item.substr(0, first)) + "\" in --targets entry \"" +
                        std::string(item) + (hint.empty() ? "\" (see --kind in windowctl --help)" : "\"; " + hint));
    }
    std::string_view rest = item.substr(first + 1);
    auto second = rest.find('/');
    if (second == std::string_view::npos) {
      t.ns = default_ns;
      t.name = std::string(rest);
    } else {
      t.ns = std::string(rest.substr(0, second));
      t.name = std::string(rest.substr(second + 1));
    }
    check_name(t, item);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  });
  return out;
}

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
  for_each_entry(values, "--kustomizations", [&](std::string_view item) {
    Target t;
    auto slash = item.find('/');
    if (slash == std::string_view::npos) {
      t = {default_ns, std::string(item)};
    } else {
      t = {std::string(item.substr(0, slash)), std::string(item.substr(slash + 1))};
      if (!valid_namespace(t.ns))
        throw ConfigError("invalid namespace \"" + t.ns + "\" in \"" + std::string(item) + "\"");
    }
    if (!valid_object_name(t.name))
      throw ConfigError("invalid name \"" + t.name + "\" (lowercase letters, digits, '-' and '.')");
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  });
  return out;
}

}  // namespace windowctl
