#include "util.h"

#include <algorithm>
#include <numeric>

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

namespace {

// Optimal string alignment distance, the Damerau-Levenshtein variant spelling checkers use:
// three rows of the table, as a transposition looks two back.
std::size_t typo_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> two(b.size() + 1), one(b.size() + 1), row(b.size() + 1);
  std::iota(one.begin(), one.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      row[j] = std::min({one[j] + 1, row[j - 1] + 1, one[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        row[j] = std::min(row[j], two[j - 2] + 1);
    }
    std::swap(two, one);
    std::swap(one, row);
  }
  return one[b.size()];
}

}  // namespace

std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& candidates,
                                       std::size_t max) {
  // A word longer than any name is no typo of one, and the table grows with its length.
  if (word.size() > 256) return {};
  const std::size_t reach = word.size() < 3 ? 0 : std::max<std::size_t>(1, word.size() / 3);
  std::vector<std::pair<std::size_t, const std::string*>> typos, prefixed;
  for (const std::string& c : candidates) {
    // Beyond reach by length alone: no need to fill the table.
    if (c.size() <= word.size() + reach && word.size() <= c.size() + reach) {
      if (std::size_t d = typo_distance(word, c); d <= reach) typos.emplace_back(d, &c);
    }
    if (word.size() >= 2 && c.size() > word.size() && iequals_ascii(std::string_view(c).substr(0, word.size()), word))
      prefixed.emplace_back(c.size(), &c);
  }
  auto& found = typos.empty() ? prefixed : typos;
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [score, name] : found) {
    // Of the typos only the nearest: a second one two typos further is a worse guess, not an alternative.
    if (out.size() == max || (&found == &typos && score > found.front().first)) break;
    if (std::find(out.begin(), out.end(), *name) == out.end()) out.push_back(*name);
  }
  return out;
}

std::string did_you_mean(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  std::string out = "did you mean " + names[0];
  for (std::size_t i = 1; i < names.size(); ++i) out += (i + 1 == names.size() ? " or " : ", ") + names[i];
  return out + "?";
}

}  // namespace windowctl
