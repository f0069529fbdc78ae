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

// What marks a change in flight, from fluxcd/helm-controller (internal/reconcile/atomic_release.go,
// internal/reconcile/state.go; the same for kustomize-controller's Reconciling condition):
// - Reconciling=True: set with reason Progressing ("Running 'upgrade' action with timeout of
//   5m0s") before every Helm action (install, upgrade, test, rollback, uninstall), and with
//   ProgressingWithRetry when the controller requeues to remediate or retry a failed one; it is
//   deleted once no action is left ("no further action to take").
// - status.history[0].status pending-install, pending-upgrade or pending-rollback: Helm's release
//   is locked by an action (helm's Status.IsPending); helm-controller unlocks a stale one to
//   failed on its next reconcile, so it settles too.
// - Ready=Unknown with reason Progressing: "reconciliation in progress", set with Reconciling.
// Released, TestSuccess and Remediated record how the last action ended, not that one runs.
// Stalled=True: the controller gave up (retries exhausted): nothing will settle by waiting.
InProgress in_progress(const json& obj) {
  if (find_condition(obj, "Stalled").status == "True") return {};
  Condition reconciling = find_condition(obj, "Reconciling");
  if (reconciling.status == "True") {
    return {true, "Reconciling: " + (reconciling.message.empty() ? reconciling.reason : reconciling.message)};
  }
  const json* status = field(obj, "status");
  const json* history = status ? field(*status, "history") : nullptr;
  if (history && history->is_array() && !history->empty()) {
    // Newest first as helm-controller stores it (Snapshots.SortByVersion); by version regardless.
    const json* latest = &history->front();
    for (const auto& snapshot : *history) {
      if (int_at(snapshot, "version").value_or(-1) > int_at(*latest, "version").value_or(-1)) latest = &snapshot;
    }
    std::string release = string_at(*latest, "status");
    if (release == "pending-install" || release == "pending-upgrade" || release == "pending-rollback")
      return {true, "Helm release " + release};
  }
  Condition ready = find_condition(obj, "Ready");
  if (ready.status == "Unknown" && ready.reason == "Progressing") {
    return {true, "Ready: " + (ready.message.empty() ? ready.reason : ready.message)};
  }
  return {};
}

}  // namespace windowctl
