#include "manifests.h"

#include <doctest/doctest.h>

#include "config.h"
#include "test_util.h"

using namespace windowctl;
using nlohmann::json;

namespace {
std::vector<json> parse(const std::string& text) { return parse_manifests({{"in.yaml", text}}); }
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("manifests: documents, lists and scalar types") {
  auto objs = parse(
      "---\n# empty\n---\nkind: A\nmetadata: {name: a}\nspec:\n  suspend: true\n  n: 3\n  s: \"true\"\n  z: ~\n  v: "
      "1.5\n---\n"
      "kind: List\nitems:\n- {kind: B, spec: {suspend: no}}\n- kind: C\n...\n");
  REQUIRE(objs.size() == 3);
  CHECK(objs[0]["spec"] == json{{"suspend", true}, {"n", 3}, {"s", "true"}, {"z", nullptr}, {"v", "1.5"}});
  CHECK(objs[1]["spec"]["suspend"] == false);
  CHECK(objs[2]["kind"] == "C");
  CHECK(parse("").empty());
}

TEST_CASE("manifests: bad input is one ConfigError naming where") {
  CHECK(error_of("kind: A\n  b: [\n").starts_with("in.yaml: invalid YAML at line"));
  CHECK(error_of("---\nkind: A\n---\n- 1\n") == "in.yaml, document 2 is not a Kubernetes object (a YAML mapping)");
  CHECK(error_of("metadata: {}\n") == "in.yaml, document 1 has no kind");
  CHECK(error_of("kind: List\nitems: 3\n") == "in.yaml, document 1: items of the List is not a list");
  CHECK(error_of("kind: A\nx: \"\xff\"\n") == "in.yaml is not valid UTF-8");
  CHECK(error_of("kind: A\n? [a]\n: b\n").find("key that is not a string") != std::string::npos);
  CHECK(error_of("kind: A\nx: " + std::string(300, '[') + std::string(300, ']') + "\n").find("nests deeper") !=
        std::string::npos);
  // Aliases that expand exponentially stop at the node cap.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 8; ++k) bomb += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  CHECK(error_of("kind: A\n" + bomb).find("expands to more than") != std::string::npos);
}

TEST_CASE("manifests: files, directories (sorted, *.yaml and *.yml) and errors") {
  testing::TempDir dir;
  dir.write("d/b.yml", "kind: B\n");
  dir.write("d/a/z.yaml", "kind: A\n");
  dir.write("d/notes.txt", "not yaml");
  dir.write("d/.hidden/x.yaml", "kind: Hidden\n");
  auto f = dir.write("one.yaml", "kind: One\n");
  auto sources = read_manifest_sources({f, dir.path() + "/d"});
  REQUIRE(sources.size() == 3);
  CHECK(sources[0].name == f);
  CHECK(sources[1].name == dir.path() + "/d/a/z.yaml");
  CHECK(sources[2].name == dir.path() + "/d/b.yml");
  CHECK_THROWS_AS(read_manifest_sources({dir.path() + "/missing.yaml"}), ConfigError);
  std::string big(kMaxManifestBytes / 2 + 1, '#');
  auto b = dir.write("big.yaml", big);
  CHECK_THROWS_WITH_AS(read_manifest_sources({b, b}), "the manifests are larger than 64 MiB in total", ConfigError);
}

TEST_CASE("manifests: a stream yaml-cpp's LoadAll never finishes is one error, at once") {
  // LoadAll made empty documents forever from a leading ",": found by manifests_fuzz.
  CHECK(error_of(",a: b\n") == "in.yaml, document 1 (from line 1) is not YAML this reader can read");
  CHECK(error_of("kind: A\n---\n,c: d\n") == "in.yaml, document 2 (from line 3) is not YAML this reader can read");
  // Documents are split at "---" lines as kubectl splits them; errors count lines of the whole input.
  CHECK(error_of("kind: A\n---\nkind: B\n  x: [\n").starts_with("in.yaml: invalid YAML at line 4"));
  CHECK(parse("kind: A\r\n---  \r\nkind: B\r\n").size() == 2);
  CHECK(parse("null\n---\n~\n---\n# only a comment\n").empty());
}
