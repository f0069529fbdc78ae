#include "kinds.h"

#include <doctest/doctest.h>

#include <cctype>
#include <iterator>
#include <string>
#include <vector>

#include "resolve.h"

using namespace windowctl;

TEST_CASE("kinds are found by kind, plural and short name") {
  CHECK(find_kind("Kustomization")->plural == "kustomizations");
  CHECK(find_kind("ks")->kind == "Kustomization");
  CHECK(find_kind("HELMRELEASE")->group == "helm.toolkit.fluxcd.io");
  CHECK(find_kind("hr")->preferred == "v2");
  CHECK(find_kind("ExternalArtifact") == nullptr);  // a Flux kind without spec.suspend
  CHECK(find_kind("") == nullptr);
  CHECK(find_kind("git") == nullptr);
  CHECK(find_kind("kustomization.helm.toolkit.fluxcd.io") == nullptr);
  CHECK(find_kind("kustomization.") == nullptr);
}

TEST_CASE("an unknown kind says the kind probably meant, once per kind") {
  using V = std::vector<std::string>;
  CHECK(nearest_kinds("kustomizaton") == V{"Kustomization"});
  CHECK(nearest_kinds("Kustomisation") == V{"Kustomization"});
  CHECK(nearest_kinds("gitrepos") == V{"GitRepository"});
  CHECK(nearest_kinds("helmrel") == V{"HelmRelease"});  // and helmreleases: one kind, said once
  CHECK(nearest_kinds("imgupdate") == V{"ImageUpdateAutomation"});
  CHECK(nearest_kinds("hrr") == V{"HelmRelease"});
  CHECK(nearest_kinds("helm") == V{"HelmRepository", "HelmChart", "HelmRelease"});
  CHECK(nearest_kinds("ExternalArtifact").empty());
  CHECK(unknown_kind_flag("kustomizaton") == "unknown --kind \"kustomizaton\"; did you mean Kustomization?");
  CHECK(unknown_kind_flag("ExternalArtifact") == "unknown --kind \"ExternalArtifact\": use one of " + kinds_help());
  CHECK(unknown_kind_flag("\x1b[2J") == "unknown --kind \"\\x1b[2J\": use one of " + kinds_help());
}

TEST_CASE("every suspendable Flux kind is a row with its group, plural and version") {
  // kind, group, plural, preferred (storage version of Flux v2.9's CRD), has a status
  struct Row {
    const char *kind, *group, *plural, *version;
    bool status;
  };
  const Row rows[] = {
      {"Kustomization", "kustomize.toolkit.fluxcd.io", "kustomizations", "v1", true},
      {"HelmRelease", "helm.toolkit.fluxcd.io", "helmreleases", "v2", true},
      {"GitRepository", "source.toolkit.fluxcd.io", "gitrepositories", "v1", true},
      {"OCIRepository", "source.toolkit.fluxcd.io", "ocirepositories", "v1", true},
      {"HelmRepository", "source.toolkit.fluxcd.io", "helmrepositories", "v1", true},
      {"HelmChart", "source.toolkit.fluxcd.io", "helmcharts", "v1", true},
      {"Bucket", "source.toolkit.fluxcd.io", "buckets", "v1", true},
      {"ImageRepository", "image.toolkit.fluxcd.io", "imagerepositories", "v1", true},
      {"ImagePolicy", "image.toolkit.fluxcd.io", "imagepolicies", "v1", true},
      {"ImageUpdateAutomation", "image.toolkit.fluxcd.io", "imageupdateautomations", "v1", true},
      {"Alert", "notification.toolkit.fluxcd.io", "alerts", "v1beta3", false},
      {"Provider", "notification.toolkit.fluxcd.io", "providers", "v1beta3", false},
      {"Receiver", "notification.toolkit.fluxcd.io", "receivers", "v1", true},
      {"ResourceSet", "fluxcd.controlplane.io", "resourcesets", "v1", true},
      {"ResourceSetInputProvider", "fluxcd.controlplane.io", "resourcesetinputproviders", "v1", true},
      {"FluxInstance", "fluxcd.controlplane.io", "fluxinstances", "v1", true},
      {"ArtifactGenerator", "source.extensions.fluxcd.io", "artifactgenerators", "v1beta1", true},
  };
  REQUIRE(all_kinds().size() == std::size(rows));
  for (const auto& row : rows) {
    CAPTURE(row.kind);
    const KindAdapter* k = find_kind(row.kind);
    REQUIRE(k != nullptr);
    CHECK(k->group == row.group);
    CHECK(k->plural == row.plural);
    CHECK(k->preferred == row.version);
    CHECK(valid_api_version(k->preferred));
    CHECK(k->has_status == row.status);
    CHECK(static_cast<bool>(k->revision));
    CHECK(find_kind(row.plural) == k);
    std::string upper(row.kind);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(find_kind(upper) == k);
    CHECK(find_kind(std::string(row.kind) + "." + row.group) == k);
    CHECK(find_kind(std::string(row.plural) + "." + row.group) == k);
    CHECK(kinds_help().find(row.kind) != std::string::npos);
  }
}

TEST_CASE("every alias resolves: kubectl short names of the CRDs and flux CLI names") {
  const std::pair<const char*, const char*> aliases[] = {
      {"ks", "Kustomization"},
      {"hr", "HelmRelease"},
      {"gitrepo", "GitRepository"},
      {"gitrepository", "GitRepository"},
      {"ocirepo", "OCIRepository"},
      {"helmrepo", "HelmRepository"},
      {"hc", "HelmChart"},
      {"helmchart", "HelmChart"},
      {"bucket", "Bucket"},
      {"imgrepo", "ImageRepository"},
      {"imagerepo", "ImageRepository"},
      {"imgpol", "ImagePolicy"},
      {"imagepol", "ImagePolicy"},
      {"imagepolicy", "ImagePolicy"},
      {"iua", "ImageUpdateAutomation"},
      {"imgupd", "ImageUpdateAutomation"},
      {"imgauto", "ImageUpdateAutomation"},
      {"imageupdate", "ImageUpdateAutomation"},
      {"image-update", "ImageUpdateAutomation"},
      {"alert", "Alert"},
      {"provider", "Provider"},
      {"alert-provider", "Provider"},
      {"receiver", "Receiver"},
      {"rset", "ResourceSet"},
      {"rsip", "ResourceSetInputProvider"},
      {"inputprovider", "ResourceSetInputProvider"},
      {"instance", "FluxInstance"},
      {"ag", "ArtifactGenerator"},
      {"IUA", "ImageUpdateAutomation"},
      {"GitRepo", "GitRepository"},
  };
  for (const auto& entry : aliases) {
    // (No structured binding: clang 14 cannot capture one in CAPTURE's lambda.)
    const auto& alias = entry.first;
    CAPTURE(alias);
    REQUIRE(find_kind(alias) != nullptr);
    CHECK(find_kind(alias)->kind == entry.second);
  }
}

TEST_CASE("how each kind pauses: spec.suspend, or the annotation its controller reads") {
  for (const KindAdapter* k : all_kinds()) {
    CAPTURE(k->kind);
    const bool operator_kind = k->group == "fluxcd.controlplane.io";
    if (operator_kind) {
      // flux-operator api/v1/common_types.go: ReconcileAnnotation, DisabledValue, EnabledValue.
      CHECK(std::string(k->pause.annotation) == "fluxcd.controlplane.io/reconcile");
      CHECK(std::string(k->pause.paused) == "disabled");
      CHECK(std::string(k->pause.running) == "enabled");
    } else if (k->kind == "ArtifactGenerator") {
      CHECK(std::string(k->pause.annotation) == "source.extensions.fluxcd.io/reconcile");
      CHECK(std::string(k->pause.paused) == "disabled");
      CHECK(k->pause.running == nullptr);  // removed
    } else {
      CHECK(k->pause.annotation == nullptr);  // spec.suspend
    }
    CHECK(is_pause_annotation(k->pause.annotation ? k->pause.annotation : "spec.suspend") ==
          (k->pause.annotation != nullptr));
  }
  CHECK_FALSE(is_pause_annotation("fluxcd.controlplane.io/reconcileEvery"));
  CHECK_FALSE(is_pause_annotation(""));
}

TEST_CASE("paths") {
  const auto& ks = *find_kind("ks");
  CHECK(group_path(ks) == "/apis/kustomize.toolkit.fluxcd.io");
  CHECK(object_path(ks, "v1", "flux-system", "apps-rw") ==
        "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps-rw");
  CHECK(collection_path(ks, "v1beta2", "") == "/apis/kustomize.toolkit.fluxcd.io/v1beta2/kustomizations");
}

TEST_CASE("version choice: v1 when served, else the group's preference") {
  const auto& ks = *find_kind("ks");
  auto both = R"({"versions":[{"groupVersion":"kustomize.toolkit.fluxcd.io/v1","version":"v1"},{"version":"v1beta2"}],
                  "preferredVersion":{"version":"v1beta2"}})"_json;
  CHECK(choose_version(ks, both) == "v1");
  auto old =
      R"({"versions":[{"version":"v1beta2"},{"version":"v1beta1"}],"preferredVersion":{"version":"v1beta2"}})"_json;
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

  // Realistic statuses, as each controller writes them.
  auto git = R"({"status":{"artifact":{"revision":"main@sha1:8d4e3c9a","digest":"sha256:3f","path":"p","url":"u",
                 "lastUpdateTime":"2026-11-20T08:00:00Z"},"conditions":[{"type":"Ready","status":"True"}]}})"_json;
  for (const char* source : {"gitrepository", "ocirepository", "helmrepository", "helmchart", "bucket"}) {
    CAPTURE(source);
    CHECK(find_kind(source)->revision(git) == "main@sha1:8d4e3c9a");
  }
  auto scanned =
      R"({"status":{"lastScanResult":{"tagCount":42,"scanTime":"2026-11-20T08:00:00Z","latestTags":["6.7.1"]}}})"_json;
  CHECK(find_kind("imagerepo")->revision(scanned) == "42 tags");
  scanned["status"]["lastScanResult"]["revision"] = "sha256:abcd";
  CHECK(find_kind("imagerepo")->revision(scanned) == "sha256:abcd");
  CHECK(find_kind("imagerepo")->revision(R"({"status":{"lastScanResult":{"tagCount":"42"}}})"_json) == "");
  CHECK(find_kind("imagerepo")->revision(R"({"status":{"lastScanResult":[1]}})"_json) == "");
  auto policy = R"({"status":{"latestRef":{"name":"ghcr.io/stefanprodan/podinfo","tag":"6.7.1"}}})"_json;
  CHECK(find_kind("imagepolicy")->revision(policy) == "ghcr.io/stefanprodan/podinfo:6.7.1");
  policy["status"]["latestRef"]["digest"] = "sha256:ab";
  CHECK(find_kind("imagepolicy")->revision(policy) == "ghcr.io/stefanprodan/podinfo:6.7.1@sha256:ab");
  CHECK(find_kind("imagepolicy")->revision(R"({"status":{"latestRef":"x"}})"_json) == "");
  auto iua = R"({"status":{"lastPushCommit":"8d4e3c9a0f6b","lastPushTime":"2026-11-20T08:00:00Z"}})"_json;
  CHECK(find_kind("iua")->revision(iua) == "8d4e3c9a0f6b");
  for (const char* none : {"alert", "provider", "receiver"}) {
    CAPTURE(none);
    CHECK(find_kind(none)->revision(R"({"status":{"webhookPath":"/hook/x","lastAppliedRevision":"x"}})"_json) == "");
  }
  for (const auto* k : all_kinds()) {
    CAPTURE(k->kind);
    for (const char* odd : {"null", "[]", "5", R"({"status":[]})", R"({"status":{"artifact":{"revision":5}}})"}) {
      CHECK(k->revision(nlohmann::json::parse(odd)) == "");
    }
  }
}

TEST_CASE("revision of the kinds paused by an annotation, from the status fields their APIs define") {
  CHECK(find_kind("rset")->revision(R"({"status":{"lastAppliedRevision":"sha256:rs"}})"_json) == "sha256:rs");
  CHECK(find_kind("rsip")->revision(R"({"status":{"lastExportedRevision":"sha256:in"}})"_json) == "sha256:in");
  auto instance =
      R"({"status":{"lastAppliedRevision":"v2.7.0@sha256:a","lastAttemptedRevision":"v2.7.1@sha256:b"}})"_json;
  CHECK(find_kind("FluxInstance")->revision(instance) == "v2.7.0@sha256:a");
  instance["status"].erase("lastAppliedRevision");
  CHECK(find_kind("FluxInstance")->revision(instance) == "v2.7.1@sha256:b");
  CHECK(find_kind("ag")->revision(R"({"status":{"observedSourcesDigest":"sha256:src"}})"_json) == "sha256:src");
  CHECK(find_kind("ag")->revision(R"({"status":{"observedSourcesDigest":7}})"_json) == "");
}

TEST_CASE("readiness per kind: Flux's Ready condition, or existence for static kinds") {
  auto ready = R"({"metadata":{"generation":2},"status":{"lastHandledReconcileAt":"t1",
                   "conditions":[{"type":"Ready","status":"True","observedGeneration":2}]}})"_json;
  auto stale =
      R"({"metadata":{"generation":3},"status":{"conditions":[{"type":"Ready","status":"True","observedGeneration":2}]}})"_json;
  for (const auto* k : all_kinds()) {
    CAPTURE(k->kind);
    CHECK(kind_readiness(*k, ready, "t1").state == Readiness::kReady);
    if (k->has_status) {
      CHECK(kind_readiness(*k, ready, "t2").state == Readiness::kPending);
      CHECK(kind_readiness(*k, stale, "").state == Readiness::kPending);
      CHECK(kind_readiness(*k, R"({"metadata":{"generation":1}})"_json, "").state == Readiness::kPending);
    } else {
      // No status at all (v1beta3): ready once it exists, whatever the token.
      CHECK(kind_readiness(*k, R"({"metadata":{"generation":1}})"_json, "t2").state == Readiness::kReady);
      // An older served version that reports a Ready condition: it counts.
      CHECK(kind_readiness(*k, stale, "").state == Readiness::kPending);
    }
  }
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
  for (const char* doc :
       {R"({"versions": [{"version": 1}], "preferredVersion": {"version": 2}})",
        R"({"versions": {"version": "v1"}, "preferredVersion": "v1"})",
        R"({"versions": [1, null, "v1"], "preferredVersion": {"version": ["v1"]}})",
        R"({"preferredVersion": {"version": "v1/namespaces/kube-system/secrets"}})", R"([])", R"(5)"}) {
    CAPTURE(doc);
    CHECK(choose_version(ks, nlohmann::json::parse(doc)) == "");
  }
  CHECK(choose_version(ks, nlohmann::json::parse(R"({"versions": [5, {"version": "v1"}]})")) == "v1");
}

namespace {

using nlohmann::json;

std::vector<std::string> words(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    auto space = list.find(' ');
    out.emplace_back(list.substr(0, space));
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return out;
}

// Every top-level status field of the Flux CRDs in tests/testdata/crds (storage versions), each
// with a value of its shape that a revision could show: what a GET returns at most.
json every_status_field() {
  return json::parse(R"({
    "conditions": [{"type": "Ready", "status": "True", "observedGeneration": 3, "reason": "Succeeded",
                    "message": "ready"}],
    "lastHandledReconcileAt": "2026-11-20T08:00:00Z", "observedGeneration": 3,
    "lastAppliedRevision": "main@sha1:applied", "lastAttemptedRevision": "6.7.2",
    "lastAppliedOriginRevision": "v1@sha1:origin",
    "history": [{"chartName": "podinfo", "chartVersion": "6.7.1", "appVersion": "6.7.1", "digest": "sha256:history",
                 "revision": "main@sha1:history", "version": 4, "status": "deployed",
                 "metadata": {"revision": "main@sha1:history-meta"}}],
    "inventory": {"entries": [{"id": "apps_podinfo_apps_Deployment", "v": "v1"}]},
    "failures": 1, "installFailures": 1, "upgradeFailures": 1, "helmChart": "flux-system/apps-podinfo",
    "lastAttemptedConfigDigest": "sha256:config", "lastAttemptedGeneration": 2,
    "lastAttemptedReleaseAction": "upgrade", "lastAttemptedReleaseActionDuration": "3s",
    "lastAttemptedRevisionDigest": "sha256:attempted", "lastAttemptedValuesChecksum": "checksum",
    "lastHandledForceAt": "f", "lastHandledResetAt": "r", "lastReleaseRevision": 4,
    "observedCommonMetadataDigest": "sha256:common", "observedPostRenderersDigest": "sha256:post",
    "storageNamespace": "apps",
    "artifact": {"revision": "main@sha1:artifact", "digest": "sha256:artifact", "path": "a.tar.gz",
                 "url": "http://sc/a.tar.gz", "lastUpdateTime": "2026-11-20T08:00:00Z"},
    "includedArtifacts": [{"revision": "main@sha1:included", "digest": "sha256:included"}],
    "url": "http://sc/index.yaml", "observedIgnore": "*.md", "observedInclude": [{"repository": {"name": "x"}}],
    "observedLayerSelector": {"mediaType": "m"}, "observedRecurseSubmodules": true,
    "observedSparseCheckout": ["apps"], "sourceVerificationMode": "head",
    "observedChartName": "podinfo", "observedSourceArtifactRevision": "sha256:source",
    "observedValuesFiles": ["values.yaml"],
    "lastScanResult": {"revision": "sha256:tags", "tagCount": 12, "scanTime": "2026-11-20T08:00:00Z",
                       "latestTags": ["6.7.1"]},
    "canonicalImageName": "ghcr.io/stefanprodan/podinfo", "observedExclusionList": ["^.*\\.sig$"],
    "latestRef": {"name": "ghcr.io/stefanprodan/podinfo", "tag": "6.7.1", "digest": "sha256:latest"},
    "observedPreviousRef": {"name": "ghcr.io/stefanprodan/podinfo", "tag": "6.7.0", "digest": "sha256:previous"},
    "lastPushCommit": "8d4e3c9a", "lastPushTime": "2026-11-20T08:00:00Z",
    "lastAutomationRunTime": "2026-11-20T08:00:00Z",
    "observedPolicies": {"podinfo": {"name": "ghcr.io/stefanprodan/podinfo", "tag": "6.7.1"}},
    "observedSourceRevision": "main@sha1:source", "webhookPath": "/hook/abc",
    "lastExportedRevision": "sha256:exported", "exportedInputs": [{"id": "1"}],
    "nextSchedule": {"cron": "0 8 * * *", "when": "2026-11-21T08:00:00Z"},
    "lastArtifactRevision": "v2.7.0@sha256:artifact", "components": [{"name": "source-controller"}],
    "externalChecksumRefs": ["x"], "observedSourcesDigest": "sha256:sources"
  })");
}

json with_status(json status) {
  return {{"kind", "X"},
          {"metadata", {{"name", "x"}, {"namespace", "flux-system"}, {"generation", 3}}},
          {"status", std::move(status)}};
}

// `status` with each of `fields` as given, absent, or present but empty: every way a revision
// function could fall back from one to another.
std::vector<json> variants(const json& status, const std::vector<std::string>& fields) {
  std::vector<json> out{status};
  for (const auto& f : fields) {
    std::vector<json> next;
    for (const auto& s : out) {
      next.push_back(s);
      json absent = s;
      absent.erase(f);
      next.push_back(absent);
      if (!s.contains(f)) continue;
      json empty = s;
      empty[f] = json(s.at(f).type());
      next.push_back(empty);
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace

TEST_CASE("a kind's revision reads only the status fields its row declares") {
  const json all = every_status_field();
  for (const KindAdapter* kind : all_kinds()) {
    CAPTURE(kind->kind);
    std::vector<std::string> declared = words(kind->revision_fields);
    for (const auto& f : declared) {
      CAPTURE(f);
      CHECK(all.contains(f));  // the universe holds what rows declare
      CHECK(reads_status_field(f));
    }
    // Non-vacuous: from its declared fields alone a kind with a revision shows one.
    CHECK(kind->revision(with_status(all)).empty() == declared.empty());
    for (const json& status : variants(all, declared)) {
      json only = json::object();
      for (const auto& f : declared) {
        if (status.contains(f)) only[f] = status[f];
      }
      CAPTURE(status.dump());
      CHECK(kind->revision(with_status(status)) == kind->revision(with_status(only)));
    }
  }
  for (const auto& f : words(kReadinessStatusFields)) CHECK(reads_status_field(f));
  CHECK(!reads_status_field("inventory"));
  CHECK(!reads_status_field("lastAttemptedReleaseAction"));
  CHECK(!reads_status_field(""));
}

TEST_CASE("a LIST keeps of an item's status what every kind's revision and readiness read") {
  const json all = every_status_field();
  for (const KindAdapter* kind : all_kinds()) {
    CAPTURE(kind->kind);
    for (const json& status : variants(all, words(kind->revision_fields))) {
      json original = with_status(status);
      std::vector<json> items;
      parse_list_page(json{{"items", {original}}}.dump(), [&](json&& item) { items.push_back(std::move(item)); });
      REQUIRE(items.size() == 1);
      CHECK(items[0]["status"].size() < original["status"].size());  // the filter does filter
      CHECK(kind->revision(items[0]) == kind->revision(original));
      auto ready = kind_readiness(*kind, items[0], "2026-11-20T08:00:00Z");
      auto want = kind_readiness(*kind, original, "2026-11-20T08:00:00Z");
      CHECK((ready.state == want.state && ready.message == want.message));
    }
  }
}
