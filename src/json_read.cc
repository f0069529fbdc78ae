#include "json_read.h"

#include <limits>

namespace windowctl {

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

}  // namespace windowctl
