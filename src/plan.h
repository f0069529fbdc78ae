// The decision for one object: which merge patch (if any) brings it to the desired state, and
// what to report. Pure: no I/O, so every combination of state and flags is tested exhaustively.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "timefmt.h"

namespace windowctl {

inline constexpr const char* kSuspendedByAnnotation = "windowctl.io/suspended-by";
inline constexpr const char* kSuspendedAtAnnotation = "windowctl.io/suspended-at";
inline constexpr const char* kReasonAnnotation = "windowctl.io/reason";
inline constexpr const char* kSuspendedByValue = "windowctl";
// Flux's own: `flux suspend --reason` writes it, `flux resume` removes it. close writes it too
// (its --reason, else kDefaultFluxReason), open removes it when it resumes.
inline constexpr const char* kFluxReasonAnnotation = "suspend.toolkit.fluxcd.io/reason";
inline constexpr const char* kDefaultFluxReason = "suspended by windowctl: reconciliation window closed";
// A reason someone else gave is quoted in output and Events up to this many bytes.
inline constexpr std::size_t kQuotedReasonMax = 200;
inline constexpr const char* kRequestedAtAnnotation = "reconcile.fluxcd.io/requestedAt";
inline constexpr const char* kReconcileLabel = "kustomize.toolkit.fluxcd.io/reconcile";
// A time-boxed override (open/close --for): sync keeps the object in that state until then.
inline constexpr const char* kOverrideAnnotation = "windowctl.io/override";  // "open" or "closed"
inline constexpr const char* kOverrideUntilAnnotation = "windowctl.io/override-until";
inline constexpr const char* kOverrideAtAnnotation = "windowctl.io/override-at";
inline constexpr const char* kOverrideByAnnotation = "windowctl.io/override-by";
inline constexpr const char* kOverrideReasonAnnotation = "windowctl.io/override-reason";

enum class Action {
  kOpen,
  kClose,
  kRelabel,
  kAdopt,  // mark a suspension someone else made as windowctl's, so a scheduled open resumes it
};

// What a change does with a time-boxed override already on the object.
enum class OverrideMode {
  kClear,  // plain open/close: the explicit action wins, the override goes
  kKeep,   // sync while the override is active
  kSet,    // open/close --for: record a new override
};

struct PlanInput {
  Action action = Action::kClose;
  bool force = false;       // open: resume objects suspended by someone else too
  bool relabel = false;     // open/close: also set the reconcile label
  std::string label_value;  // relabel: "enabled" or "disabled"
  std::string reason;       // --reason
  std::string now;          // RFC 3339, recorded as suspended-at
  std::string token;        // fresh requestedAt value for open
  OverrideMode override_mode = OverrideMode::kClear;
  std::string override_until;  // kSet: RFC 3339 end of the override
  std::string override_by;     // kSet: who asked for it
  std::string cause;           // Event message prefix, e.g. "window open per schedule"
  std::string override_note;   // --scheduled: the active override that decided, for the output
};

struct ObjectState {
  bool suspended = false;
  bool marked = false;  // suspended-by says windowctl
  std::string suspended_at;
  std::string reason;
  std::string flux_reason;      // suspend.toolkit.fluxcd.io/reason, whoever wrote it
  std::string reconcile_label;  // "" when absent
  bool has_marks = false;       // any suspended-by/-at/reason mark present
  std::string override_state;   // "open", "closed" or "" (none)
  std::string override_until;
  std::string override_by;
  std::string override_at;
  std::string override_reason;
  bool has_override = false;  // any override annotation present
};

ObjectState read_state(const nlohmann::json& object);

enum class Outcome { kOpened, kAlreadyOpen, kClosed, kAlreadyClosed, kHeld, kRelabeled, kAlreadyLabeled, kAdopted };

struct Decision {
  Outcome outcome = Outcome::kAlreadyOpen;
  std::optional<nlohmann::json> patch;  // RFC 7386 merge patch; nullopt means no write
  std::string event_reason;             // empty: no Event
  std::string event_type;               // Normal or Warning
  std::string event_message;
  bool wait_for_token = false;  // --wait must see the token echoed in lastHandledReconcileAt
  std::string note;             // what else the patch does: "relabeled", "open until T", ...
};

Decision decide(const nlohmann::json& object, const PlanInput& input);

// Someone else's reason as windowctl quotes it: a JSON string literal, cut at kQuotedReasonMax
// bytes on a character boundary (with "..."); "" when there is none.
std::string quote_reason(const std::string& reason);

// True when the object shows every change of the merge patch (its resourceVersion precondition
// aside): how a PATCH whose answer was lost is told apart from one that never landed. The
// suspended-at time and the reconcile token make windowctl's own patches unlikely to be matched
// by anyone else's write.
bool patch_visible(const nlohmann::json& object, const nlohmann::json& patch);

// sync: which action the schedule or an active override asks for, and what to do with the override.
struct SyncVerdict {
  Action action = Action::kClose;
  OverrideMode override_mode = OverrideMode::kKeep;
  bool override_active = false;  // an unexpired override decided the action
  std::string override_dropped;  // "override expired", "unreadable override dropped" or empty
  std::string cause;             // "window open", "override open until T", ...
};
SyncVerdict sync_verdict(const ObjectState& state, bool window_open, SysTime now);

// open/close --scheduled: the job says what the window wants at its edge; an unexpired override
// (open/close --for) still wins, exactly as with sync, and an expired one is dropped. The input
// comes back with the action, override mode and cause that apply to this object.
PlanInput scheduled_input(const ObjectState& state, PlanInput in, SysTime now);

// "closed", "already closed", "held: suspended by someone else"; with dry_run "would close".
std::string outcome_text(Outcome outcome, bool dry_run);
std::string outcome_code(Outcome outcome);  // stable JSON value: "closed", "already-closed", ...
// outcome_text plus what a write on an already-settled object did ("already open, relabeled").
std::string describe(const Decision& decision, bool dry_run);

}  // namespace windowctl
