// LIST pages, parsed item by item as they stream in (resolve.cc) so that a page costs one
// item, not 500. Invariants against a plain parse of the same text: the page is JSON exactly
// when the plain parse is; every item of its "items" list comes out, in order, and windowctl
// reads the same from each (name, namespace, suspend, its annotations, conditions, revision);
// the page kept holds no items; the continue token is the same. A page with two "items"
// lists, which readers take differently, fails; so does one nested deeper than kMaxJsonDepth.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "json_read.h"
#include "tls.h"
#include "kinds.h"
#include "plan.h"
#include "readiness.h"
#include "resolve.h"

using namespace windowctl;
using nlohmann::json;

namespace {

// What windowctl reads from a listed object, as one comparable string.
std::string seen(const json& item) {
  const KindAdapter& ks = *find_kind("ks");
  const KindAdapter& hr = *find_kind("hr");
  ObjectState s = read_state(item);
  Condition ready = find_condition(item, "Ready");
  return metadata_string(item, "name") + "|" + metadata_string(item, "namespace") + "|" + (s.suspended ? "S" : "-") +
         (s.marked ? "M" : "-") + s.suspended_at + "|" + s.reason + "|" + s.reconcile_label + "|" + s.override_state + "|" +
         s.override_until + "|" + ready.status + ready.reason + ready.message + std::to_string(ready.observed_generation) + "|" +
         ks.revision(item) + "|" + hr.revision(item) + "|" + evaluate_readiness(item, "t").message;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> streamed;
  bool items_ok = true;
  json page;
  try {
    page = parse_list_page(text, [&](json&& item) { streamed.push_back(seen(item)); }, &items_ok);
  } catch (const TransportError& e) {
    FUZZ_CHECK(json_depth(text) > kMaxJsonDepth && streamed.empty(), e.what());
    return 0;
  }
  FUZZ_CHECK(json_depth(text) <= kMaxJsonDepth, "a page nested too deep was parsed");
  json plain = json::parse(text, nullptr, false);
  FUZZ_CHECK(page.is_discarded() == plain.is_discarded());
  if (plain.is_discarded() || !plain.is_object()) return 0;
  auto items = plain.find("items");
  if (items == plain.end() || items->is_null()) return 0;
  // A second "items" (which the plain parse overwrites) makes the page fail as a whole.
  int lists = 0;
  (void)json::parse(text, [&](int depth, json::parse_event_t event, json& key) {
    if (depth == 1 && event == json::parse_event_t::key && key == "items") ++lists;
    return true;
  }, false);
  FUZZ_CHECK(items_ok == (items->is_array() && lists == 1), "items_ok says " + std::to_string(items_ok));
  if (!items_ok) return 0;
  FUZZ_CHECK(streamed.size() == items->size(),
             std::to_string(streamed.size()) + " items streamed, " + std::to_string(items->size()) + " in the page");
  for (std::size_t i = 0; i < streamed.size(); ++i) {
    FUZZ_CHECK(streamed[i] == seen((*items)[i]), "item " + std::to_string(i) + ": " + streamed[i] + " vs " + seen((*items)[i]));
  }
  auto kept = page.find("items");
  FUZZ_CHECK(kept == page.end() || kept->empty(), "the page kept its items");
  auto token = [](const json& p) {
    auto meta = p.find("metadata");
    if (meta == p.end() || !meta->is_object()) return std::string("-");
    auto c = meta->find("continue");
    return c == meta->end() ? std::string("-") : c->dump();
  };
  FUZZ_CHECK(token(page) == token(plain));
  return 0;
}
