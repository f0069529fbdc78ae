#include "readiness.h"

#include "json_read.h"

namespace windowctl {

using nlohmann::json;

Condition find_condition(const json& obj, const std::string& type) {
  Condition c;
  const json* status = field(obj, "status");
  const json* conds = status ? field(*status, "conditions") : nullptr;
  if (!conds || !conds->is_array()) return c;
  for (const auto& cond : *conds) {
    if (string_at(cond, "type") != type) continue;
    c.status = string_at(cond, "status");
    c.reason = string_at(cond, "reason");
    c.message = string_at(cond, "message");
    if (auto g = int_at(cond, "observedGeneration")) c.observed_generation = *g;
    return c;
  }
  return c;
}

ReadyVerdict evaluate_readiness(const json& obj, const std::string& token) {
  long long generation = -1;
  if (const json* meta = field(obj, "metadata")) {
    if (auto g = int_at(*meta, "generation")) generation = *g;
  }
  if (!token.empty()) {
    std::string handled;
    if (const json* status = field(obj, "status")) handled = string_at(*status, "lastHandledReconcileAt");
    if (handled != token) return {Readiness::kPending, "waiting for the controller to handle the reconcile request"};
  }
  Condition stalled = find_condition(obj, "Stalled");
  if (stalled.status == "True")
    return {Readiness::kFailed, "stalled: " + (stalled.message.empty() ? stalled.reason : stalled.message)};
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
