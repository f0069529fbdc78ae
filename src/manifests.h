// Kubernetes manifests read for `windowctl check`: files, directories and stdin holding
// multi-document YAML (what `kubectl kustomize`, `kustomize build` or `flux build` print),
// turned into JSON objects for the rules in check.h. Outside input: nothing but ConfigError
// escapes, and the input is capped so that a wrong path (a disk image, /dev/zero) fails fast.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace windowctl {

// All sources together; rendered manifests of a whole cluster are a few MiB.
inline constexpr std::size_t kMaxManifestBytes = 64u << 20;

struct ManifestSource {
  std::string name;  // path or "-" (stdin), for messages
  std::string text;
};

// `-f` arguments in order: "-" is stdin, a directory is every *.yaml and *.yml below it (sorted,
// recursively, hidden entries skipped), anything else a file. ConfigError names the path that
// cannot be read, or says the cap is exceeded.
std::vector<ManifestSource> read_manifest_sources(const std::vector<std::string>& args);

// Every object of every document, in order: a `kind: List` (or `kind: FooList`) with `items`
// contributes its items, empty documents nothing. Scalars become JSON as Kubernetes reads them
// (plain true/false, null, integers; quoted ones stay strings). ConfigError, naming the source
// and document, for YAML that does not parse, is not UTF-8, nests too deep, expands (aliases)
// past the cap, or holds a document that is not an object with a kind.
std::vector<nlohmann::json> parse_manifests(const std::vector<ManifestSource>& sources);

}  // namespace windowctl
