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

struct Condition {
  std::string status;  // True, False, Unknown; empty when absent
  std::string reason;
  std::string message;
  long long observed_generation = -1;
};
Condition find_condition(const nlohmann::json& object, const std::string& type);

}  // namespace windowctl
