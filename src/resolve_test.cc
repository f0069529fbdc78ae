#include "resolve.h"

#include <doctest/doctest.h>

#include "plan.h"

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
                                   "kubectl.kubernetes.io/last-applied-configuration": "{huge}",
                                   "fluxcd.controlplane.io/suspendedBy": "alice", "fluxcd.controlplane.io/other": "x"},
                   "managedFields": [{"manager": "kustomize-controller", "operation": "Apply", "time": "T1",
                                      "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {"f:team": {}}},
                                      "f:spec": {"f:path": {}, "f:patches": {}, "f:suspend": {}}}},
                                     {"manager": "flux", "time": "T2", "fieldsV1": {"f:metadata": {"f:annotations": {
                                      "f:suspend.toolkit.fluxcd.io/reason": {".": {}}, "f:other": {}}}}},
                                     {"manager": "kustomize-controller", "subresource": "status", "time": "T3",
                                      "fieldsV1": {"f:status": {"f:conditions": {}}}}]},
      "spec": {"suspend": true, "path": "./apps", "patches": [{"patch": "huge"}]},
      "status": {"conditions": [{"type": "Ready", "status": "True"}], "lastAppliedRevision": "main@sha1:1",
                 "lastHandledReconcileAt": "t", "inventory": {"entries": [{"id": "huge"}]},
                 "history": [{"chartVersion": "1.2.3"}]}
    }]})";
  std::vector<json> items;
  std::string malformed = "not set";
  json j = parse_list_page(
      page, [&](json&& item) { items.push_back(std::move(item)); }, &malformed);
  CHECK(malformed == "");
  CHECK(j["metadata"]["continue"] == "abc");  // the list's own metadata is untouched
  CHECK(j["items"].empty());                  // handed over, not kept
  REQUIRE(items.size() == 1);
  const json& item = items[0];
  CHECK(item["metadata"]["name"] == "apps-rw");
  CHECK(item["metadata"]["uid"] == "u1");
  CHECK(item["metadata"]["resourceVersion"] == "5");
  CHECK(item["metadata"]["labels"].size() == 2);
  // managedFields: who wrote spec.suspend and Flux's reason, when; nothing else.
  CHECK(item["metadata"]["managedFields"] == json::parse(R"([
      {"manager": "kustomize-controller", "time": "T1", "fieldsV1": {"f:metadata": {}, "f:spec": {"f:suspend": {}}}},
      {"manager": "flux", "time": "T2", "fieldsV1": {"f:metadata": {"f:annotations": {
          "f:suspend.toolkit.fluxcd.io/reason": {".": {}}}}}},
      {"manager": "kustomize-controller", "subresource": "status", "time": "T3", "fieldsV1": {}}])"));
  CHECK(read_state(item).writers.size() == 2);
  const json& ann = item["metadata"]["annotations"];
  CHECK(ann.size() == 5);
  CHECK(ann["fluxcd.controlplane.io/suspendedBy"] == "alice");
  CHECK_FALSE(ann.contains("kubectl.kubernetes.io/last-applied-configuration"));
  CHECK(item["spec"] == json{{"suspend", true}});
  CHECK(item["status"].contains("conditions"));
  CHECK(item["status"]["lastAppliedRevision"] == "main@sha1:1");
  CHECK(item["status"]["lastHandledReconcileAt"] == "t");
  CHECK(item["status"]["history"][0]["chartVersion"] == "1.2.3");
  CHECK_FALSE(item["status"].contains("inventory"));
}

TEST_CASE("list pages keep a kind's pause annotation and who owns it, so a listed object reads as a fetched one") {
  const Pause& pause = find_kind("ResourceSet")->pause;
  const json original = json::parse(R"({
      "metadata": {"name": "apps", "namespace": "flux-system", "resourceVersion": "5",
                   "annotations": {"fluxcd.controlplane.io/reconcile": "disabled", "fluxcd.controlplane.io/suspendedBy": "alice",
                                   "fluxcd.controlplane.io/reconcileEvery": "1h", "source.extensions.fluxcd.io/reconcile": "x"},
                   "managedFields": [{"manager": "flux-operator-web", "time": "2026-11-23T09:00:00Z", "fieldsV1": {
                       "f:metadata": {"f:annotations": {"f:fluxcd.controlplane.io/reconcile": {},
                                                        "f:fluxcd.controlplane.io/reconcileEvery": {}}}}}]},
      "spec": {"inputs": [{"huge": true}]}})");
  std::vector<json> items;
  parse_list_page(json{{"items", {original}}}.dump(), [&](json&& item) { items.push_back(std::move(item)); });
  REQUIRE(items.size() == 1);
  const json& ann = items[0]["metadata"]["annotations"];
  CHECK(ann.size() == 3);  // the pause annotations of every kind, the Flux Operator's suspendedBy
  CHECK_FALSE(ann.contains("fluxcd.controlplane.io/reconcileEvery"));
  CHECK(items[0]["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"]["f:annotations"] ==
        json{{"f:fluxcd.controlplane.io/reconcile", json::object()}});
  CHECK_FALSE((items[0].contains("spec") && items[0]["spec"].contains("inputs")));
  const ObjectState listed = read_state(items[0], pause), fetched = read_state(original, pause);
  CHECK(listed.suspended);
  CHECK(listed.holder.detail == fetched.holder.detail);
  CHECK(listed.holder.detail == "alice via Flux Operator");
  CHECK(listed.writers.size() == 1);
  CHECK(listed.writers[0].suspend);
}

TEST_CASE("list pages: every item handed over in order") {
  std::vector<std::string> names;
  std::string malformed = "not set";
  json page = parse_list_page(
      R"({"items": [{"metadata": {"name": "a", "namespace": "x"}},
                    {"metadata": {"name": "b"}, "spec": [1, {"items": 5}]}],
          "metadata": {"continue": "t"}})",
      [&](json&& item) { names.push_back(item["metadata"]["name"]); }, &malformed);
  CHECK(malformed == "");
  CHECK(names == std::vector<std::string>{"a", "b"});
  CHECK(page["metadata"]["continue"] == "t");
  // An empty list is a list: the API server sends "items": [] when nothing matches.
  CHECK(parse_list_page(R"({"kind": "KustomizationList", "items": []})", [&](json&&) { FAIL("no item"); }, &malformed)
            .is_object());
  CHECK(malformed == "");
  // Outside items nothing is dropped; nested lists inside an item stay inside it.
  std::vector<json> items;
  json other = parse_list_page(R"({"items": [{"metadata": {"name": "a"}, "status": {"conditions": [{"type": "Ready"},
                                   {"type": "Healthy"}]}}], "spec": {"keep": 1}, "metadata": {"managedFields": 1}})",
                               [&](json&& item) { items.push_back(std::move(item)); }, &malformed);
  REQUIRE(items.size() == 1);
  CHECK(items[0]["status"]["conditions"].size() == 2);
  CHECK(other["spec"]["keep"] == 1);
  CHECK(other["metadata"]["managedFields"] == 1);
}

// Of these windowctl said "no kustomizations ... matches --all", or acted on the items before
// the bad one: a malformed answer is named, and none of its items is acted on.
TEST_CASE("a malformed list page hands over no item and says what is wrong") {
  const std::string good = R"({"metadata": {"name": "good", "namespace": "flux-system"}})";
  auto refused = [&](const std::string& items_json) {
    std::string text = R"({"kind": "KustomizationList", "metadata": {}, )" + items_json + "}";
    std::string malformed;
    int handed = 0;
    json page = parse_list_page(
        text, [&](json&&) { ++handed; }, &malformed);
    CHECK_MESSAGE(handed == 0, text);
    CHECK_MESSAGE(page.is_discarded(), text);
    return malformed;
  };
  auto with = [&](const std::string& bad) { return refused(R"("items": [)" + good + ", " + bad + "]"); };
  CHECK(refused(R"("items": {"a": 1})") == "the LIST answer's items is an object, not a list");
  CHECK(refused(R"("items": "apps-rw")") == "the LIST answer's items is a string, not a list");
  CHECK(refused(R"("items": null)") == "the LIST answer's items is null, not a list");
  CHECK(refused(R"("items": 3)") == "the LIST answer's items is a number, not a list");
  CHECK(refused(R"("itemz": [])") == "the LIST answer has no items");
  CHECK(refused(R"("items": [)" + good + R"(], "items": [])") == "the LIST answer has more than one items list");
  CHECK(with("5") == "the LIST answer's item 2 is a number, not an object");
  CHECK(with("null") == "the LIST answer's item 2 is null, not an object");
  CHECK(with("[]") == "the LIST answer's item 2 is a list, not an object");
  CHECK(with("{}") == "the LIST answer's item 2 has no metadata");
  CHECK(with(R"({"spec": {"metadata": {"name": "x"}}})") == "the LIST answer's item 2 has no metadata");
  CHECK(with(R"({"metadata": "x"})") == "the LIST answer's item 2 has a metadata that is a string, not an object");
  CHECK(with(R"({"metadata": {"namespace": "flux-system"}})") == "the LIST answer's item 2 has no metadata.name");
  CHECK(with(R"({"metadata": {"labels": {"name": "x"}}})") == "the LIST answer's item 2 has no metadata.name");
  CHECK(with(R"({"metadata": {"name": 7}})") ==
        "the LIST answer's item 2 has a metadata.name that is a number, not a string");
  CHECK(with(R"({"metadata": {"name": null}})") ==
        "the LIST answer's item 2 has a metadata.name that is null, not a string");
  CHECK(with(R"({"metadata": {"name": ["a"]}})") ==
        "the LIST answer's item 2 has a metadata.name that is a list, not a string");
  CHECK(with(R"({"metadata": {"name": ""}})") == "the LIST answer's item 2 has an empty metadata.name");
  CHECK(with(R"({"metadata": {"name": "a", "namespace": 1}})") ==
        "the LIST answer's item 2 has a metadata.namespace that is a number, not a string");
  // A duplicate key cannot hide a bad value behind a good one, nor the other way round.
  CHECK(with(R"({"metadata": {"name": 7, "name": "a"}})") ==
        "the LIST answer's item 2 has a metadata.name that is a number, not a string");
  CHECK(with(R"({"metadata": {"name": "a"}, "metadata": 5})") ==
        "the LIST answer's item 2 has a metadata that is a number, not an object");
  // The first problem is the one said.
  CHECK(refused(R"("items": [{}, 5])") == "the LIST answer's item 1 has no metadata");
  // Not JSON, or not an object: the same refusal, and a page cut short hands over not even the
  // items before the cut.
  std::string malformed;
  int handed = 0;
  CHECK(parse_list_page(R"({"items": [)" + good + ", ", [&](json&&) { ++handed; }, &malformed).is_discarded());
  CHECK(malformed == "the LIST answer is not JSON");
  parse_list_page(
      "[" + good + "]", [&](json&&) { ++handed; }, &malformed);
  CHECK(malformed == "the LIST answer is not an object");
  parse_list_page(R"("items")", [&](json&&) { ++handed; }, &malformed);
  CHECK(malformed == "the LIST answer is not an object");
  CHECK(handed == 0);
}

TEST_CASE(
    "a page with two \"items\" lists is refused: a plain JSON reading keeps only the last (found by resolve_fuzz)") {
  std::vector<std::string> names;
  std::string malformed;
  parse_list_page(R"({"items":[{"metadata":{"name":"a"}}],"items":[{"metadata":{"name":"b"}}]})",
                  [&](json&& item) { names.push_back(item["metadata"]["name"]); }, &malformed);
  CHECK(malformed == "the LIST answer has more than one items list");
  CHECK(names.empty());
  parse_list_page(R"({"items":[{"metadata":{"name":"a"}}],"metadata":{"continue":"x"}})", [&](json&&) {}, &malformed);
  CHECK(malformed == "");
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
