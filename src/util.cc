#include "util.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <memory>
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

// Optimal string alignment distance, the Damerau-Levenshtein variant spelling checkers use, of
// two lower-cased words: three rows of the table in one buffer, as a transposition looks two back.
std::size_t typo_distance(const std::string& a, const std::string& b) {
  const std::size_t w = b.size() + 1;
  std::vector<std::size_t> t(3 * w);
  for (std::size_t i = 0; i <= a.size(); ++i) {
    std::size_t* row = &t[i % 3 * w];
    const std::size_t* up = &t[(i + 2) % 3 * w];
    const std::size_t* up2 = &t[(i + 1) % 3 * w];
    for (std::size_t j = 0; j <= b.size(); ++j) {
      if (i == 0 || j == 0) {
        row[j] = i + j;
        continue;
      }
      row[j] = std::min(std::min(up[j], row[j - 1]) + 1, up[j - 1] + (a[i - 1] != b[j - 1]));
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], up2[j - 2] + 1);
    }
  }
  return t[a.size() % 3 * w + b.size()];
}

}  // namespace

std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& candidates) {
  std::vector<std::string> out;
  // A word longer than any name is no typo of one, and the table grows with its length.
  if (word.size() > 256) return out;
  const std::string low = ascii_lower(word);
  const std::size_t reach = low.size() < 3 ? 0 : std::max<std::size_t>(1, low.size() / 3);
  // Lower is better: the length of a name the word begins, else (from kTypo on) the typo
  // distance when within reach, else kFar.
  constexpr std::size_t kTypo = 1000, kFar = ~std::size_t{0};
  auto score = [&](const std::string& name) {
    const std::string c = ascii_lower(name);
    if (low.size() >= 2 && c.size() > low.size() && c.compare(0, low.size(), low) == 0) return c.size();
    // Beyond reach by length alone: no need to fill the table.
    if (c.size() > low.size() + reach || low.size() > c.size() + reach) return kFar;
    const std::size_t d = typo_distance(low, c);
    return d <= reach ? kTypo + d : kFar;
  };
  std::size_t best = kFar;
  for (const auto& c : candidates) best = std::min(best, score(c));
  // Level by level, ties in the candidates' order: of the beginnings the shortest first, of the
  // typos only the nearest (a name two typos away is a worse guess, not an alternative).
  while (best != kFar) {
    std::size_t next = kFar;
    for (const auto& c : candidates) {
      const std::size_t s = score(c);
      if (s > best) next = std::min(next, s);
      if (s == best && std::find(out.cbegin(), out.cend(), c) == out.cend()) out.push_back(c);
    }
    if (next >= kTypo) break;
    best = next;
  }
  return out;
}

std::string did_you_mean(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  // Three at most: more is a list to read, not a guess.
  const std::size_t n = std::min<std::size_t>(names.size(), 3);
  std::string out = "did you mean " + names[0];
  for (std::size_t i = 1; i < n; ++i) out += (i + 1 == n ? " or " : ", ") + names[i];
  return out + "?";
}

namespace {

// kStop once `visit` said so; errno as for walk_dir otherwise.
int walk_below(const std::string& dir, int depth, const std::function<Walk(const DirEntry&)>& visit, bool& stop) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return errno;
  const std::string prefix = dir.ends_with('/') ? dir : dir + "/";
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d.get());
    if (!e) return errno;
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    DirEntry entry{prefix + std::string(name), std::string(name), depth};
    struct stat st {};
    if (::lstat(entry.path.c_str(), &st) == 0) {
      entry.dir = S_ISDIR(st.st_mode);
      entry.file =
          S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && ::stat(entry.path.c_str(), &st) == 0 && S_ISREG(st.st_mode));
    }
    const Walk next = visit(entry);
    if (next == Walk::kStop) {
      stop = true;
      return 0;
    }
    if (next == Walk::kDescend && entry.dir) {
      if (int error = walk_below(entry.path, depth + 1, visit, stop); error != 0 || stop) return error;
    }
  }
}

}  // namespace

int walk_dir(const std::string& dir, const std::function<Walk(const DirEntry&)>& visit) {
  bool stop = false;
  return walk_below(dir, 0, visit, stop);
}

}  // namespace windowctl
