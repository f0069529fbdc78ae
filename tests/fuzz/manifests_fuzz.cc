// Manifests as `windowctl check -f` reads them (multi-document YAML from anywhere), and the rules
// run over what parses. Invariants: nothing but ConfigError escapes the parser (no YAML
// exception, no crash, no unbounded expansion); every parsed object is a JSON object with a
// kind; the rules never throw and every finding has an id, a severity and an object; both
// renderings succeed (the JSON one throws on invalid UTF-8, which the parser must refuse).
#include <cstdint>
#include <string>

#include "check.h"
#include "config.h"
#include "fuzz_util.h"
#include "manifests.h"
#include "timefmt.h"

using namespace windowctl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return 0;  // the cap itself is tested in manifests_test.cc
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<nlohmann::json> objects;
  try {
    objects = parse_manifests({{"fuzz.yaml", text}});
  } catch (const ConfigError& e) {
    FUZZ_CHECK(std::string(e.what()).starts_with("fuzz.yaml"), e.what());
    return 0;
  }
  for (const auto& o : objects) FUZZ_CHECK(o.is_object() && o.contains("kind"), o.dump());
  static const SysTime now = *parse_rfc3339("2026-01-05T00:00:00Z");
  auto findings = check_objects(objects, now);
  for (const auto& f : findings) {
    FUZZ_CHECK(f.id.size() == 5 && f.id.starts_with("WC"), f.id);
    FUZZ_CHECK(f.severity == "error" || f.severity == "warning", f.severity);
    FUZZ_CHECK(!f.object.empty() && !f.message.empty());
  }
  (void)render_findings(findings, false);
  (void)render_findings(findings, true);
  return 0;
}
