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
  json j = json::parse(page, list_item_filter());
  CHECK(j["metadata"]["continue"] == "abc");  // the list's own metadata is untouched
  const json& item = j["items"][0];
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

TEST_CASE("the list filter copes with any shape") {
  for (const char* text : {R"([])", R"({"items": {"spec": {"x": 1}}})", R"({"items": [1, "a", null, []]})",
                           R"({"items": [{"metadata": [1, 2], "spec": "s", "status": 3}]})",
                           R"({"metadata": {"managedFields": 1}, "spec": {"keep": 1}})"}) {
    CAPTURE(text);
    json j = json::parse(text, list_item_filter(), false);
    CHECK_FALSE(j.is_discarded());
  }
  // Outside items nothing is dropped.
  CHECK(json::parse(R"({"spec": {"keep": 1}})", list_item_filter())["spec"]["keep"] == 1);
}
