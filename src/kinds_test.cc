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
