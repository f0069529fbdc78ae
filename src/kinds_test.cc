#include "kinds.h"

#include <doctest/doctest.h>

using namespace windowctl;

TEST_CASE("kinds are found by kind, plural and short name") {
  CHECK(find_kind("Kustomization")->plural == "kustomizations");
  CHECK(find_kind("ks")->kind == "Kustomization");
  CHECK(find_kind("HELMRELEASE")->group == "helm.toolkit.fluxcd.io");
  CHECK(find_kind("hr")->preferred == "v2");
  CHECK(find_kind("GitRepository") == nullptr);
}

TEST_CASE("paths") {
  const auto& ks = *find_kind("ks");
  CHECK(group_path(ks) == "/apis/kustomize.toolkit.fluxcd.io");
  CHECK(object_path(ks, "v1", "flux-system", "apps-rw") == "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps-rw");
  CHECK(collection_path(ks, "v1beta2", "") == "/apis/kustomize.toolkit.fluxcd.io/v1beta2/kustomizations");
}

TEST_CASE("version choice: v1 when served, else the group's preference") {
  const auto& ks = *find_kind("ks");
  auto both = R"({"versions":[{"groupVersion":"kustomize.toolkit.fluxcd.io/v1","version":"v1"},{"version":"v1beta2"}],
                  "preferredVersion":{"version":"v1beta2"}})"_json;
  CHECK(choose_version(ks, both) == "v1");
  auto old = R"({"versions":[{"version":"v1beta2"},{"version":"v1beta1"}],"preferredVersion":{"version":"v1beta2"}})"_json;
  CHECK(choose_version(ks, old) == "v1beta2");
  CHECK(choose_version(ks, R"({"versions":[]})"_json) == "");
  CHECK(choose_version(ks, R"("garbage")"_json) == "");
}

TEST_CASE("revision per kind") {
  auto ks = R"({"status":{"lastAppliedRevision":"main@sha1:abc"}})"_json;
  CHECK(find_kind("ks")->revision(ks) == "main@sha1:abc");
  auto hr = R"({"status":{"history":[{"chartVersion":"6.5.0"}],"lastAttemptedRevision":"6.4.0"}})"_json;
  CHECK(find_kind("hr")->revision(hr) == "6.5.0");
  CHECK(find_kind("hr")->revision(R"({"status":{"lastAttemptedRevision":"6.4.0"}})"_json) == "6.4.0");
  CHECK(find_kind("ks")->revision(R"({})"_json) == "");
}

TEST_CASE("API versions as Kubernetes spells them, and nothing else reaches a path") {
  for (const char* ok : {"v1", "v2", "v1beta2", "v2beta1", "v1alpha1", "v10"}) CHECK(valid_api_version(ok));
  for (const char* bad : {"", "v", "1", "v0", "v01", "V1", "v1beta", "v1gamma1", "v1/namespaces/x", "v1?dryRun=All",
                          "v1beta2/../x", "v1 ", "v1234567890"}) {
    CAPTURE(bad);
    CHECK_FALSE(valid_api_version(bad));
  }
  const KindAdapter& ks = *find_kind("ks");
  CHECK_THROWS_AS(collection_path(ks, "v1/namespaces/kube-system", "flux-system"), std::invalid_argument);
  CHECK_THROWS_AS(collection_path(ks, "v1", "flux-system/kustomizations/infra?dryRun=All&x="), std::invalid_argument);
  CHECK_THROWS_AS(object_path(ks, "v1", "flux-system", "apps-rw/status"), std::invalid_argument);
  CHECK_THROWS_AS(object_path(ks, "v1", "flux-system", "../x"), std::invalid_argument);
  CHECK(collection_path(ks, "v1", "") == "/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations");
}

TEST_CASE("version choice reads a discovery document of any shape without throwing") {
  const KindAdapter& ks = *find_kind("ks");
  for (const char* doc : {R"({"versions": [{"version": 1}], "preferredVersion": {"version": 2}})",
                          R"({"versions": {"version": "v1"}, "preferredVersion": "v1"})",
                          R"({"versions": [1, null, "v1"], "preferredVersion": {"version": ["v1"]}})",
                          R"({"preferredVersion": {"version": "v1/namespaces/kube-system/secrets"}})", R"([])", R"(5)"}) {
    CAPTURE(doc);
    CHECK(choose_version(ks, nlohmann::json::parse(doc)) == "");
  }
  CHECK(choose_version(ks, nlohmann::json::parse(R"({"versions": [5, {"version": "v1"}]})")) == "v1");
}
