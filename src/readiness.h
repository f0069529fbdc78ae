// Has Flux finished reconciling after open? Pure, evaluated on each polled object.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace windowctl {

enum class Readiness { kPending, kReady, kFailed };

struct ReadyVerdict {
  Readiness state = Readiness::kPending;
  std::string message;
};

// With a token, the controller must first echo it in status.lastHandledReconcileAt. Ready means
// the Ready condition is True for the current generation (status.observedGeneration runs ahead
// while suspended, so only the condition's own observedGeneration counts).
ReadyVerdict evaluate_readiness(const nlohmann::json& object, const std::string& token);

// close --overrun: is Flux in the middle of changing the object, so that suspending it now would
// stop the change half-way (a HelmRelease's remediation after a failed upgrade would then wait
// for the window to open)? Pure, evaluated on each polled object. Settled: not in progress.
struct InProgress {
  bool active = false;
  std::string reason;  // for people: "Reconciling: Running 'upgrade' action with timeout of 5m0s"
};
InProgress in_progress(const nlohmann::json& object);

struct Condition {
  std::string status;  // True, False, Unknown; empty when absent
  std::string reason;
  std::string message;
  long long observed_generation = -1;
};
Condition find_condition(const nlohmann::json& object, const std::string& type);

}  // namespace windowctl
