// Names and namespaces from --kustomizations, --targets (with their kinds), -n and the environment, API versions, and
// label selectors, all of which end up in request paths or queries. Invariants: every target is a valid namespace and
// object name, listed once, and its "namespace/name" parses back to it; a path built from valid parts has exactly its
// segments (no "?", "#", "%" or ".."); a selector is percent-encoded to unreserved characters and decodes back to
// itself; a mistyped kind is offered only kinds find_kind knows.
#include <cctype>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config.h"
#include "fuzz_util.h"
#include "http.h"
#include "kinds.h"
#include "targets.h"

using namespace windowctl;

namespace {

bool unreserved(unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    FUZZ_CHECK(i + 2 < s.size(), s);
    out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string ns_flag = in.ConsumeRandomLengthString(80);
  const std::string version = in.ConsumeRandomLengthString(16);
  const std::string selector = in.ConsumeRandomLengthString(200);
  std::vector<std::string> values;
  while (in.remaining_bytes() > 0 && values.size() < 4) values.push_back(in.ConsumeRandomLengthString(300));

  std::string ns;
  try {
    ns = default_namespace(ns_flag, [](const std::string&) { return std::nullopt; });
    FUZZ_CHECK(valid_namespace(ns), ns);
  } catch (const ConfigError&) {
    FUZZ_CHECK(!valid_namespace(ns_flag));
    return 0;
  }
  const KindAdapter& kind = *find_kind("kustomizations");
  try {
    std::vector<Target> targets = parse_targets(values, ns);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const Target& t = targets[i];
      FUZZ_CHECK(valid_namespace(t.ns) && valid_object_name(t.name), t.id());
      for (std::size_t j = 0; j < i; ++j) FUZZ_CHECK(!(targets[j] == t), "listed twice: " + t.id());
      FUZZ_CHECK(parse_targets({t.id()}, "other") == std::vector<Target>{t}, t.id());
      std::string path = object_path(kind, "v1", t.ns, t.name);
      FUZZ_CHECK(path == "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/" + t.ns + "/kustomizations/" + t.name, path);
      FUZZ_CHECK(path.find_first_of("?#%") == std::string::npos && path.find("..") == std::string::npos, path);
    }
  } catch (const ConfigError&) {
  }
  // --targets: the same values as KIND/NAME or KIND/NAMESPACE/NAME entries.
  try {
    std::vector<Target> targets = parse_kind_targets(values, ns);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const Target& t = targets[i];
      FUZZ_CHECK(t.kind != nullptr && valid_namespace(t.ns) && valid_object_name(t.name), t.id());
      for (std::size_t j = 0; j < i; ++j) FUZZ_CHECK(!(targets[j] == t), "listed twice: " + t.id());
      FUZZ_CHECK(parse_kind_targets({t.id()}, "other") == std::vector<Target>{t}, t.id());
      std::string path = object_path(*t.kind, "v1", t.ns, t.name);
      FUZZ_CHECK(path.find_first_of("?#%") == std::string::npos && path.find("..") == std::string::npos, path);
    }
  } catch (const ConfigError&) {
  }
  // A mistyped kind is offered kinds that exist, whatever it is.
  for (const auto& value : values) {
    for (const auto& k : nearest_kinds(value)) FUZZ_CHECK(find_kind(k) && find_kind(k)->kind == k, k);
    (void)unknown_kind_flag(value);
  }
  if (valid_api_version(version)) {
    std::string path = collection_path(kind, version, ns);
    FUZZ_CHECK(path.find_first_of("?#%/.", std::string("/apis/kustomize.toolkit.fluxcd.io/").size()) ==
                   std::string("/apis/kustomize.toolkit.fluxcd.io/").size() + version.size(),
               path);
  } else {
    bool refused = false;
    try {
      (void)collection_path(kind, version, ns);
    } catch (const std::invalid_argument&) {
      refused = true;
    }
    FUZZ_CHECK(refused, version);
  }
  std::string escaped = http::query_escape(selector);
  for (unsigned char c : escaped) FUZZ_CHECK(unreserved(c) || c == '%', escaped);
  FUZZ_CHECK(unescape(escaped) == selector, escaped);
  return 0;
}
