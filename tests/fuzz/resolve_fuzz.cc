// LIST pages, parsed item by item as they stream in (resolve.cc) so that a page costs one
// item, not 500. Invariants against a plain parse of the same text: a page is accepted only when
// the plain parse is JSON of the shape windowctl can act on (one "items" list, which readers
// would otherwise take differently, of objects with a non-empty string metadata.name, ...), and
// refused only when it is not or repeats a key (each occurrence is checked, a plain parse keeps
// the last); a page refused says why and hands over nothing. Of one accepted, every item comes
// out, in order, and windowctl reads the same from each (name, namespace, suspend, its
// annotations, conditions, revision); the page kept holds no items; the continue token is the
// same. A page nested deeper than kMaxJsonDepth is refused before any item.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "json_read.h"
#include "kinds.h"
#include "plan.h"
#include "readiness.h"
#include "resolve.h"
#include "tls.h"

using namespace windowctl;
using nlohmann::json;

namespace {

// What windowctl reads from a listed object, as one comparable string.
std::string seen(const json& item) {
  const KindAdapter& ks = *find_kind("ks");
  const KindAdapter& hr = *find_kind("hr");
  ObjectState s = read_state(item);
  // And as a kind paused by an annotation reads it: the LIST keeps that annotation and its owner.
  ObjectState a = read_state(item, find_kind("rset")->pause);
  Condition ready = find_condition(item, "Ready");
  return metadata_string(item, "name") + "|" + metadata_string(item, "namespace") + "|" + (s.suspended ? "S" : "-") +
         (s.marked ? "M" : "-") + s.suspended_at + "|" + s.reason + "|" + s.reconcile_label + "|" + s.override_state +
         "|" + s.override_until + "|" + ready.status + ready.reason + ready.message +
         std::to_string(ready.observed_generation) + "|" + ks.revision(item) + "|" + hr.revision(item) + "|" +
         evaluate_readiness(item, "t").message + "|" + (a.suspended ? "S" : "-") + (a.marked ? "M" : "-") + a.problem +
         "|" + a.holder.detail;
}

// The shape parse_list_page demands, read from a plain parse (which keeps the last of duplicate
// keys; parse_list_page checks every one, so it may refuse more, never less).
bool sound(const json& page) {
  if (!page.is_object()) return false;
  auto items = page.find("items");
  if (items == page.end() || !items->is_array()) return false;
  for (const auto& item : *items) {
    auto meta = item.is_object() ? item.find("metadata") : item.end();
    if (meta == item.end() || !meta->is_object()) return false;
    auto name = meta->find("name");
    if (name == meta->end() || !name->is_string() || name->get_ref<const std::string&>().empty()) return false;
    auto ns = meta->find("namespace");
    if (ns != meta->end() && !ns->is_string()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> streamed;
  std::string malformed;
  json page;
  try {
    page = parse_list_page(
        text, [&](json&& item) { streamed.push_back(seen(item)); }, &malformed);
  } catch (const TransportError& e) {
    FUZZ_CHECK(json_depth(text) > kMaxJsonDepth && streamed.empty(), e.what());
    return 0;
  }
  FUZZ_CHECK(json_depth(text) <= kMaxJsonDepth, "a page nested too deep was parsed");
  json plain = json::parse(text, nullptr, false);
  // A second "items" (which the plain parse overwrites) makes the page fail as a whole; another
  // repeated key may too (every occurrence is checked, the plain parse sees the last).
  int lists = 0;
  bool repeats = false;
  std::vector<std::vector<std::string>> keys;
  (void)json::parse(
      text,
      [&](int depth, json::parse_event_t event, json& key) {
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        if (event == json::parse_event_t::object_end) keys.pop_back();
        if (event == json::parse_event_t::key) {
          if (depth == 1 && key == "items") ++lists;
          auto& seen_keys = keys.back();
          repeats = repeats || std::find(seen_keys.begin(), seen_keys.end(), key.get<std::string>()) != seen_keys.end();
          seen_keys.push_back(key.get<std::string>());
        }
        return true;
      },
      false);
  const bool good = !plain.is_discarded() && sound(plain) && lists == 1;
  FUZZ_CHECK(!malformed.empty() || good, "a malformed page was accepted");
  FUZZ_CHECK(malformed.empty() || !good || repeats, "a sound page was refused: " + malformed);
  // A page refused hands over nothing, and is refused with a reason.
  FUZZ_CHECK(malformed.empty() || (streamed.empty() && page.is_discarded()), malformed);
  if (!malformed.empty()) return 0;
  auto items = plain.find("items");
  FUZZ_CHECK(streamed.size() == items->size(),
             std::to_string(streamed.size()) + " items streamed, " + std::to_string(items->size()) + " in the page");
  for (std::size_t i = 0; i < streamed.size(); ++i) {
    FUZZ_CHECK(streamed[i] == seen((*items)[i]),
               "item " + std::to_string(i) + ": " + streamed[i] + " vs " + seen((*items)[i]));
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
