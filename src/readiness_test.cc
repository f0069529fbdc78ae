#include "readiness.h"

#include <doctest/doctest.h>

using namespace windowctl;
using nlohmann::json;

namespace {

json obj(long long generation, json status) { return {{"metadata", {{"generation", generation}}}, {"status", status}}; }

json ready(const char* s, long long og, const char* msg = "Applied revision: main@sha1:1") {
  return {{"type", "Ready"}, {"status", s}, {"observedGeneration", og}, {"reason", "R"}, {"message", msg}};
}

}  // namespace

TEST_CASE("the token must be handled first") {
  auto o = obj(3, {{"lastHandledReconcileAt", "old"}, {"conditions", {ready("True", 3)}}});
  CHECK(evaluate_readiness(o, "new").state == Readiness::kPending);
  o["status"]["lastHandledReconcileAt"] = "new";
  CHECK(evaluate_readiness(o, "new").state == Readiness::kReady);
}

TEST_CASE("Ready must be for the current generation") {
  auto o = obj(4, {{"lastHandledReconcileAt", "t"}, {"observedGeneration", 4}, {"conditions", {ready("True", 3)}}});
  CHECK(evaluate_readiness(o, "t").state == Readiness::kPending);
  CHECK(evaluate_readiness(obj(4, {{"conditions", {ready("True", 4)}}}), "").state == Readiness::kReady);
}

TEST_CASE("Stalled and Ready=False after handling fail") {
  auto stalled =
      obj(2, {{"lastHandledReconcileAt", "t"},
              {"conditions", {ready("False", 2), {{"type", "Stalled"}, {"status", "True"}, {"message", "bad path"}}}}});
  CHECK(evaluate_readiness(stalled, "t").state == Readiness::kFailed);
  CHECK(evaluate_readiness(stalled, "t").message == "stalled: bad path");
  auto failed =
      obj(2, {{"lastHandledReconcileAt", "t"}, {"conditions", {ready("False", 2, "kustomize build failed")}}});
  CHECK(evaluate_readiness(failed, "t").state == Readiness::kFailed);
  CHECK(evaluate_readiness(failed, "t").message == "not ready: kustomize build failed");
}

TEST_CASE("still reconciling or no status yet is pending") {
  auto progressing = obj(2, {{"lastHandledReconcileAt", "t"},
                             {"conditions", {ready("False", 2), {{"type", "Reconciling"}, {"status", "True"}}}}});
  CHECK(evaluate_readiness(progressing, "t").state == Readiness::kPending);
  CHECK(evaluate_readiness(json::object(), "").state == Readiness::kPending);
  CHECK(evaluate_readiness(json{{"status", "garbage"}}, "t").state == Readiness::kPending);
}

namespace {

json cond(const char* type, const char* status, const char* reason, const char* message = "") {
  return {{"type", type}, {"status", status}, {"reason", reason}, {"message", message}};
}

}  // namespace

TEST_CASE("in_progress: Reconciling, a pending Helm release, Ready Progressing; Stalled and settled are not") {
  // helm-controller before a Helm action, and when it requeues to remediate a failed one.
  auto upgrading =
      obj(2, {{"conditions",
               {cond("Reconciling", "True", "Progressing", "Running 'upgrade' action with timeout of 5m0s"),
                cond("Ready", "Unknown", "Progressing", "Running 'upgrade' action with timeout of 5m0s")}}});
  CHECK(in_progress(upgrading).active);
  CHECK(in_progress(upgrading).reason == "Reconciling: Running 'upgrade' action with timeout of 5m0s");
  auto remediating = obj(2, {{"conditions",
                              {cond("Reconciling", "True", "ProgressingWithRetry"),
                               cond("Released", "False", "UpgradeFailed", "timed out waiting for the condition")}}});
  CHECK(in_progress(remediating).active);
  CHECK(in_progress(remediating).reason == "Reconciling: ProgressingWithRetry");
  for (const char* pending : {"pending-install", "pending-upgrade", "pending-rollback"}) {
    CAPTURE(pending);
    auto locked =
        obj(2, {{"history", {{{"version", 4}, {"status", pending}}, {{"version", 3}, {"status", "deployed"}}}}});
    CHECK(in_progress(locked).active);
    CHECK(in_progress(locked).reason == std::string("Helm release ") + pending);
  }
  // The newest snapshot decides, in whatever order the list comes.
  auto unsorted = obj(
      2, {{"history", {{{"version", 3}, {"status", "pending-upgrade"}}, {{"version", 5}, {"status", "deployed"}}}}});
  CHECK_FALSE(in_progress(unsorted).active);
  for (const char* settled : {"deployed", "failed", "superseded", "uninstalled", ""}) {
    CAPTURE(settled);
    CHECK_FALSE(in_progress(obj(2, {{"history", {{{"version", 4}, {"status", settled}}}}})).active);
  }
  auto progressing = obj(2, {{"conditions", {cond("Ready", "Unknown", "Progressing", "reconciliation in progress")}}});
  CHECK(in_progress(progressing).reason == "Ready: reconciliation in progress");
  CHECK_FALSE(in_progress(obj(2, {{"conditions", {cond("Ready", "Unknown", "DependencyNotReady")}}})).active);
  CHECK_FALSE(in_progress(obj(2, {{"conditions", {cond("Reconciling", "False", "Progressing")}}})).active);
  // Settled, whatever the last action's outcome: remediated after a failed upgrade, or failed.
  auto remediated = obj(2, {{"conditions",
                             {cond("Ready", "False", "UpgradeFailed"), cond("Released", "False", "UpgradeFailed"),
                              cond("Remediated", "True", "RollbackSucceeded")}},
                            {"history", {{{"version", 5}, {"status", "deployed"}}}}});
  CHECK_FALSE(in_progress(remediated).active);
  // Stalled: the controller gave up; waiting changes nothing.
  auto stalled =
      obj(2, {{"conditions", {cond("Stalled", "True", "RetriesExceeded"), cond("Reconciling", "True", "Progressing")}},
              {"history", {{{"version", 4}, {"status", "pending-upgrade"}}}}});
  CHECK_FALSE(in_progress(stalled).active);
  // No status at all, or unexpected shapes: settled, never an exception.
  CHECK_FALSE(in_progress(json::object()).active);
  CHECK_FALSE(in_progress(obj(1, {{"history", "x"}, {"conditions", 3}})).active);
  CHECK_FALSE(in_progress(obj(1, {{"history", {1, "x"}}})).active);
}
