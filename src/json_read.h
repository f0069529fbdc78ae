// Reading JSON that comes from outside (API answers, exec plugins): a field of the wrong type is
// treated as absent, never thrown as nlohmann's type_error and never read through const
// operator[] (undefined behaviour on a missing key once NDEBUG compiles JSON_ASSERT out).
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace windowctl {

// Outside JSON nested deeper than this is refused before it is parsed: nlohmann copies,
// compares and prints recursively, so a deep enough value (a 64 MiB LIST page holds 30
// million levels) would overflow the stack where windowctl copies a listed object.
// Kubernetes objects nest a few dozen levels at most.
inline constexpr int kMaxJsonDepth = 256;
// The deepest nesting of arrays and objects in `text`, brackets inside strings not counted;
// counting stops at kMaxJsonDepth + 1. A linear scan, far cheaper than the parse it guards.
int json_depth(std::string_view text);

// obj[key] when obj is an object that has key, else nullptr.
const nlohmann::json* field(const nlohmann::json& obj, std::string_view key);
// obj[key] when it is a string, else "".
std::string string_at(const nlohmann::json& obj, std::string_view key);
// obj[path[0]][path[1]]..., each an object member; nullptr where one is missing or not an object.
const nlohmann::json* field_path(const nlohmann::json& obj, std::initializer_list<std::string_view> path);
// obj[key] when it is an integer (signed or unsigned) that fits, else nullopt.
std::optional<long long> int_at(const nlohmann::json& obj, std::string_view key);

}  // namespace windowctl
