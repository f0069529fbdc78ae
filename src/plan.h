// The decision for one object: which merge patch (if any) brings it to the desired state, and
// what to report. Pure: no I/O, so every combination of state and flags is tested exhaustively.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace windowctl {

inline constexpr const char* kSuspendedByAnnotation = "windowctl.io/suspended-by";
inline constexpr const char* kSuspendedAtAnnotation = "windowctl.io/suspended-at";
inline constexpr const char* kReasonAnnotation = "windowctl.io/reason";
inline constexpr const char* kSuspendedByValue = "windowctl";
inline constexpr const char* kRequestedAtAnnotation = "reconcile.fluxcd.io/requestedAt";
inline constexpr const char* kReconcileLabel = "kustomize.toolkit.fluxcd.io/reconcile";

enum class Action { kOpen, kClose, kRelabel };

struct PlanInput {
  Action action = Action::kClose;
  bool force = false;          // open: resume objects suspended by someone else too
  bool relabel = false;        // open/close: also set the reconcile label
  std::string label_value;     // relabel: "enabled" or "disabled"
  std::string reason;          // --reason
  std::string now;             // RFC 3339, recorded as suspended-at
  std::string token;           // fresh requestedAt value for open
};

struct ObjectState {
  bool suspended = false;
  bool marked = false;  // suspended-by says windowctl
  std::string suspended_at;
  std::string reason;
  std::string reconcile_label;  // "" when absent
  bool has_marks = false;       // any windowctl annotation present
};

ObjectState read_state(const nlohmann::json& object);

enum class Outcome { kOpened, kAlreadyOpen, kClosed, kAlreadyClosed, kHeld, kRelabeled, kAlreadyLabeled };

struct Decision {
  Outcome outcome = Outcome::kAlreadyOpen;
  std::optional<nlohmann::json> patch;  // RFC 7386 merge patch; nullopt means no write
  std::string event_reason;             // empty: no Event
  std::string event_type;               // Normal or Warning
  std::string event_message;
  bool wait_for_token = false;  // --wait must see the token echoed in lastHandledReconcileAt
};

Decision decide(const nlohmann::json& object, const PlanInput& input);

// "closed", "already closed", "held: suspended by someone else"; with dry_run "would close".
std::string outcome_text(Outcome outcome, bool dry_run);
std::string outcome_code(Outcome outcome);
// outcome_text plus what a write on an already-settled object did ("already open, relabeled").
std::string describe(const Decision& decision, bool dry_run);  // stable JSON value: "closed", "already-closed", ...

}  // namespace windowctl
