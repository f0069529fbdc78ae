// Small helpers more than one unit needs, in one home (as ninja's src/util.h): a second copy of
// one of these is how two units come to disagree.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace windowctl {

// ASCII lower case. Kubernetes names, kinds, header names and cron's month and day names are
// ASCII; the C locale's tolower is what every caller means, whatever the process locale is.
std::string ascii_lower(std::string_view text);
// ASCII case-insensitive equality (HTTP header names, Connection tokens).
bool iequals_ascii(std::string_view a, std::string_view b);
// How windowctl names an object to people: "NAMESPACE/NAME", or "kind/NAMESPACE/NAME" with its
// kind in lower case when the kind is given (a run over more than one kind).
std::string object_label(std::string_view kind, std::string_view ns, std::string_view name);

// What a mistyped `word` probably meant, for a "did you mean": the candidates it begins (two
// characters at least: "--kustom"), shortest first; failing that, those fewest typos away
// (Damerau-Levenshtein: a swap of two neighbours is one typo, as in "clsoe") within a third of
// its length. ASCII case is ignored; ties keep the candidates' order. None for a word nothing is
// near, so an unrelated name is never offered.
std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& candidates);
// "did you mean a?", "did you mean a or b?", "did you mean a, b or c?" (the first three); "" for none.
std::string did_you_mean(const std::vector<std::string>& names);

// One entry of a directory walk (walk_dir).
struct DirEntry {
  std::string path;   // the walked directory's path joined with the entry's path below it
  std::string name;   // the last component
  int depth = 0;      // 0 for the walked directory's own entries
  bool dir = false;   // a directory itself, not a symbolic link to one: what a walk descends into
  bool file = false;  // a regular file, or a symbolic link to one
};
enum class Walk { kSkip, kDescend, kStop };
// Walks `dir` depth first, as std::filesystem::recursive_directory_iterator does without options
// (symbolic links to directories are not followed; entries are stat()ed, so a link to a file is a
// file; order is the file system's), calling `visit` on every entry: it says whether to descend
// into a directory (kDescend is kSkip for anything else) or stop. Returns 0, or the errno of the
// first directory that could not be read, where the walk stopped. std::filesystem is not used for
// this: its path and directory code is 25 KB of the static binary (docs/size-and-benchmark.md).
int walk_dir(const std::string& dir, const std::function<Walk(const DirEntry&)>& visit);

}  // namespace windowctl
