#include "resolve.h"

#include <doctest/doctest.h>

using namespace windowctl;
using nlohmann::json;

TEST_CASE("list pages keep what windowctl reads and drop the bulk") {
  const std::string page = R"({
    "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "KustomizationList",
    "metadata": {"continue": "abc", "resourceVersion": "77"},
    "items": [{
      "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
      "metadata": {"name": "apps-rw", "namespace": "flux-system", "uid": "u1", "resourceVersion": "5",
                   "labels": {"kustomize.toolkit.fluxcd.io/reconcile": "disabled", "team": "a"},
                   "annotations": {"windowctl.io/suspended-by": "windowctl", "windowctl.io/window": "0 8 * * MON for 8h",
                                   "reconcile.fluxcd.io/requestedAt": "t", "suspend.toolkit.fluxcd.io/reason": "r",
                                   "kubectl.kubernetes.io/last-applied-configuration": "{huge}"},
                   "managedFields": [{"manager": "kustomize-controller"}]},
      "spec": {"suspend": true, "path": "./apps", "patches": [{"patch": "huge"}]},
      "status": {"conditions": [{"type": "Ready", "status": "True"}], "lastAppliedRevision": "main@sha1:1",
                 "lastHandledReconcileAt": "t", "inventory": {"entries": [{"id": "huge"}]},
                 "history": [{"chartVersion": "1.2.3"}]}
    }]})";
  std::vector<json> items;
  bool items_ok = false;
  json j = parse_list_page(page, [&](json&& item) { items.push_back(std::move(item)); }, &items_ok);
  CHECK(items_ok);
  CHECK(j["metadata"]["continue"] == "abc");  // the list's own metadata is untouched
  CHECK(j["items"].empty());                  // handed over, not kept
  REQUIRE(items.size() == 1);
  const json& item = items[0];
  CHECK(item["metadata"]["name"] == "apps-rw");
  CHECK(item["metadata"]["uid"] == "u1");
  CHECK(item["metadata"]["resourceVersion"] == "5");
  CHECK(item["metadata"]["labels"].size() == 2);
  CHECK_FALSE(item["metadata"].contains("managedFields"));
  const json& ann = item["metadata"]["annotations"];
  CHECK(ann.size() == 4);
  CHECK_FALSE(ann.contains("kubectl.kubernetes.io/last-applied-configuration"));
  CHECK(item["spec"] == json{{"suspend", true}});
  CHECK(item["status"].contains("conditions"));
  CHECK(item["status"]["lastAppliedRevision"] == "main@sha1:1");
  CHECK(item["status"]["lastHandledReconcileAt"] == "t");
  CHECK(item["status"]["history"][0]["chartVersion"] == "1.2.3");
  CHECK_FALSE(item["status"].contains("inventory"));
}

TEST_CASE("list pages: every item handed over in order, any shape") {
  auto parse = [](const char* text, std::vector<json>& items, bool& items_ok) {
    return parse_list_page(text, [&](json&& item) { items.push_back(std::move(item)); }, &items_ok);
  };
  std::vector<json> items;
  bool ok = false;
  json page = parse(R"({"items": [{"metadata": {"name": "a"}}, 1, "s", null, [], {"metadata": {"name": "b"}}]})", items, ok);
  CHECK(ok);
  REQUIRE(items.size() == 6);
  CHECK(items[0]["metadata"]["name"] == "a");
  CHECK(items[1] == 1);
  CHECK(items[5]["metadata"]["name"] == "b");
  items.clear();
  parse(R"({"items": {"spec": {"x": 1}}})", items, ok);
  CHECK_FALSE(ok);
  CHECK(items.empty());
  parse(R"({"items": "many"})", items, ok);
  CHECK_FALSE(ok);
  parse(R"({"items": null, "metadata": {}})", items, ok);
  CHECK(ok);
  CHECK(parse(R"([{"metadata": {"name": "a"}}])", items, ok).is_array());
  CHECK(items.empty());
  CHECK(parse(R"({"items": [{"metadata": {"name": "a"}}, )", items, ok).is_discarded());
  CHECK(items.size() == 1);  // handled before the page turned out truncated
  items.clear();
  // Outside items nothing is dropped; nested lists inside an item stay inside it.
  json other = parse(R"({"spec": {"keep": 1}, "metadata": {"managedFields": 1}})", items, ok);
  CHECK(other["spec"]["keep"] == 1);
  CHECK(other["metadata"]["managedFields"] == 1);
  parse(R"({"items": [{"status": {"conditions": [{"type": "Ready"}, {"type": "Healthy"}]}}]})", items, ok);
  REQUIRE(items.size() == 1);
  CHECK(items[0]["status"]["conditions"].size() == 2);
}

TEST_CASE("a page with two \"items\" lists is refused: a plain JSON reading keeps only the last (found by resolve_fuzz)") {
  std::vector<std::string> names;
  bool items_ok = true;
  parse_list_page(R"({"items":[{"metadata":{"name":"a"}}],"items":[{"metadata":{"name":"b"}}]})",
                  [&](json&& item) { names.push_back(item["metadata"]["name"]); }, &items_ok);
  CHECK_FALSE(items_ok);
  parse_list_page(R"({"items":[{"metadata":{"name":"a"}}],"metadata":{"continue":"x"}})", [&](json&&) {}, &items_ok);
  CHECK(items_ok);
}

TEST_CASE("a page nested deeper than kMaxJsonDepth is refused before any item: copies of it would overflow the stack") {
  // A label a million levels deep fits in a 64 MiB page; copying the listed object recursed
  // once per level.
  std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  std::string page = R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b","labels":{"x":)" + deep + "}}}]}";
  int items = 0;
  CHECK_THROWS_WITH_AS(parse_list_page(page, [&](json&&) { ++items; }), "the LIST answer nests deeper than 256 levels",
                       TransportError);
  CHECK(items == 0);
  std::string shallow = std::string(200, '[') + std::string(200, ']');
  parse_list_page(R"({"items":[{"metadata":{"name":"a","labels":{"x":)" + shallow + "}}}]}", [&](json&&) { ++items; });
  CHECK(items == 1);
}
