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
