#include "util.h"

#include <algorithm>

namespace windowctl {

namespace {
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

bool iequals_ascii(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string object_label(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string out;
  if (!kind.empty()) out = ascii_lower(kind) + "/";
  out.append(ns).append("/").append(name);
  return out;
}

}  // namespace windowctl
