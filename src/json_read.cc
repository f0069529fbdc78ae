#include "json_read.h"

#include <algorithm>
#include <limits>

namespace windowctl {

int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

const nlohmann::json* field(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string string_at(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json* v = field(obj, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<long long> int_at(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json* v = field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_number_unsigned()) {
    auto u = v->get<unsigned long long>();
    if (u > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) return std::nullopt;
    return static_cast<long long>(u);
  }
  if (v->is_number_integer()) return v->get<long long>();
  return std::nullopt;
}

const nlohmann::json* field_path(const nlohmann::json& obj, std::initializer_list<std::string_view> path) {
  const nlohmann::json* cur = &obj;
  for (auto key : path) {
    cur = field(*cur, key);
    if (!cur) return nullptr;
  }
  return cur;
}

}  // namespace windowctl
