#include "util.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "test_util.h"

namespace windowctl {

TEST_CASE("ASCII case, whatever the locale") {
  CHECK(ascii_lower("ImageUpdateAutomation") == "imageupdateautomation");
  CHECK(ascii_lower("MON-Fri") == "mon-fri");
  // Bytes outside ASCII pass unchanged (a UTF-8 name is not lower-cased half way).
  CHECK(ascii_lower("Zürich\xc3\x9c") == "zürich\xc3\x9c");
  CHECK(iequals_ascii("Content-Length", "content-length"));
  CHECK(iequals_ascii("", ""));
  CHECK_FALSE(iequals_ascii("Content-Length", "Content-Lengt"));
  CHECK_FALSE(iequals_ascii("\xc3\x9c", "\xc3\xbc"));
}

TEST_CASE("objects are named as windowctl prints them") {
  CHECK(object_label("", "flux-system", "apps-rw") == "flux-system/apps-rw");
  CHECK(object_label("HelmRelease", "apps", "podinfo") == "helmrelease/apps/podinfo");
}

TEST_CASE("did you mean: the names a word begins, else the nearest within a typo's reach") {
  const std::vector<std::string> commands = {"close", "suspend",  "open",   "resume", "relabel",    "adopt",
                                             "sync",  "schedule", "status", "check",  "completion", "help"};
  // One typo each: a swap of neighbours, a letter left out, one too many, one wrong.
  CHECK(nearest_names("clsoe", commands) == std::vector<std::string>{"close"});
  CHECK(nearest_names("opn", commands) == std::vector<std::string>{"open"});
  CHECK(nearest_names("closee", commands) == std::vector<std::string>{"close"});
  CHECK(nearest_names("stutus", commands) == std::vector<std::string>{"status"});
  CHECK(nearest_names("CLOSE", commands) == std::vector<std::string>{"close"});  // case is no typo
  // Only the nearest: a name two typos away is a worse guess than one a single typo away.
  CHECK(nearest_names("abcdef", {"abcdxy", "abcdeg"}) == std::vector<std::string>{"abcdeg"});
  // A beginning wins over a typo: "helmrel" is HelmRelease cut short, not helmrepo misspelt.
  CHECK(nearest_names("helmrel", {"helmrepo", "HelmRelease"}) == std::vector<std::string>{"HelmRelease"});
  // Nothing near: no guess at all, rather than a wrong one.
  CHECK(nearest_names("frobnicate", commands).empty());
  CHECK(nearest_names("x", commands).empty());
  CHECK(nearest_names("", commands).empty());
  // Short words are held to exact letters (any other one-letter flag is one typo away).
  CHECK(nearest_names("a", {"A", "n", "o"}) == std::vector<std::string>{"A"});
  // A beginning names every name it begins, shortest first.
  CHECK(nearest_names("re", commands) == std::vector<std::string>{"resume", "relabel"});
  CHECK(nearest_names("s", commands).empty());
  CHECK(nearest_names("kustom", {"kustomizations", "kind", "kubeconfig"}) ==
        std::vector<std::string>{"kustomizations"});
  CHECK(nearest_names("c", {"ca", "cb"}).empty());
  CHECK(nearest_names("co", {"close", "completion", "context", "count", "check", "co"}) ==
        std::vector<std::string>{"count", "context", "completion"});
  // Ties keep the candidates' order; a name listed twice is offered once.
  CHECK(nearest_names("hr", {"hc", "hr2", "hc"}) == std::vector<std::string>{"hr2"});
  CHECK(nearest_names("kustomizaton", {"Kustomization", "kustomizations", "Kustomization"}) ==
        std::vector<std::string>{"Kustomization"});
  CHECK(nearest_names("Europe/Zurch", {"Europe/Zagreb", "Europe/Zurich", "Europe/Busingen"}) ==
        std::vector<std::string>{"Europe/Zurich"});
  CHECK(nearest_names(std::string(300, 'a'), {std::string(300, 'a')}).empty());
}

TEST_CASE("did you mean, in words") {
  CHECK(did_you_mean({}) == "");
  CHECK(did_you_mean({"close"}) == "did you mean close?");
  CHECK(did_you_mean({"a", "b"}) == "did you mean a or b?");
  CHECK(did_you_mean({"a", "b", "c"}) == "did you mean a, b or c?");
  CHECK(did_you_mean({"a", "b", "c", "d"}) == "did you mean a, b or c?");
}

TEST_CASE("walk_dir: as recursive_directory_iterator, descending where asked, links to directories not followed") {
  testing::TempDir dir;
  dir.write("a.yaml", "");
  dir.write("sub/b.yaml", "");
  dir.write("sub/deep/c.yaml", "");
  dir.write(".git/d.yaml", "");
  REQUIRE(::symlink((dir.path() + "/a.yaml").c_str(), (dir.path() + "/link.yaml").c_str()) == 0);
  REQUIRE(::symlink((dir.path() + "/sub").c_str(), (dir.path() + "/linkdir").c_str()) == 0);
  std::vector<std::string> seen;
  CHECK(walk_dir(dir.path() + "/", [&](const DirEntry& e) {
          seen.push_back(std::to_string(e.depth) + " " + e.path.substr(dir.path().size() + 1) + (e.dir ? " dir" : "") +
                         (e.file ? " file" : ""));
          return e.name == ".git" || e.name == "deep" ? Walk::kSkip : Walk::kDescend;
        }) == 0);
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{"0 .git dir", "0 a.yaml file", "0 link.yaml file", "0 linkdir", "0 sub dir",
                                         "1 sub/b.yaml file", "1 sub/deep dir"});
  int visits = 0;
  CHECK(walk_dir(dir.path(), [&](const DirEntry&) { return ++visits == 2 ? Walk::kStop : Walk::kDescend; }) == 0);
  CHECK(visits == 2);
  CHECK(walk_dir(dir.path() + "/missing", [](const DirEntry&) { return Walk::kDescend; }) == ENOENT);
}

}  // namespace windowctl
