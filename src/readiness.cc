#include "readiness.h"

namespace windowctl {

using nlohmann::json;

Condition find_condition(const json& obj, const std::string& type) {
  Condition c;
  if (!obj.contains("status") || !obj["status"].is_object()) return c;
  const auto& conds = obj["status"].value("conditions", json::array());
  if (!conds.is_array()) return c;
  for (const auto& cond : conds) {
    if (!cond.is_object() || cond.value("type", "") != type) continue;
    c.status = cond.value("status", "");
    c.reason = cond.value("reason", "");
    c.message = cond.value("message", "");
    if (cond.contains("observedGeneration") && cond["observedGeneration"].is_number_integer()) {
      c.observed_generation = cond["observedGeneration"].get<long long>();
    }
    return c;
  }
  return c;
}

ReadyVerdict evaluate_readiness(const json& obj, const std::string& token) {
  long long generation = -1;
  if (obj.contains("metadata") && obj["metadata"].contains("generation") && obj["metadata"]["generation"].is_number_integer()) {
    generation = obj["metadata"]["generation"].get<long long>();
  }
  if (!token.empty()) {
    std::string handled;
    if (obj.contains("status") && obj["status"].is_object()) handled = obj["status"].value("lastHandledReconcileAt", "");
    if (handled != token) return {Readiness::kPending, "waiting for the controller to handle the reconcile request"};
  }
  Condition stalled = find_condition(obj, "Stalled");
  if (stalled.status == "True") return {Readiness::kFailed, "stalled: " + (stalled.message.empty() ? stalled.reason : stalled.message)};
  Condition ready = find_condition(obj, "Ready");
  bool current = ready.observed_generation == generation;
  if (ready.status == "True" && current) return {Readiness::kReady, ready.message};
  Condition reconciling = find_condition(obj, "Reconciling");
  if (ready.status == "False" && current && reconciling.status != "True" && !token.empty()) {
    return {Readiness::kFailed, "not ready: " + (ready.message.empty() ? ready.reason : ready.message)};
  }
  return {Readiness::kPending, ready.message.empty() ? "waiting for Ready" : ready.message};
}

}  // namespace windowctl
