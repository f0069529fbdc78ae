// The decision for one object: which merge patch (if any) brings it to the desired state, and
// what to report. Pure: no I/O, so every combination of state and flags is tested exhaustively.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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
// What windowctl left in Flux's reason annotation when it marked the suspension: close, what it
// wrote; adopt, what it found ("" for none). Another value later means someone suspended it
// again over windowctl's suspension (`flux suspend --reason INC-999` during an incident).
inline constexpr const char* kFluxReasonRecordAnnotation = "windowctl.io/flux-reason";
// The Flux Operator's web UI writes who suspended an object there, and removes it on resume.
// close (and adopt) write kSuspendedByValue there, open removes it: the held rule below reads any
// other value as someone else's suspension.
inline constexpr const char* kOperatorSuspendedByAnnotation = "fluxcd.controlplane.io/suspendedBy";
// When the schedule governing the object next opens and closes (RFC 3339, UTC; absent: beyond
// the search), for tools that show annotations (kubectl, the Flux Operator UI). Written by open,
// close and sync when a schedule governs the object, and only when they change.
inline constexpr const char* kNextOpenAnnotation = "windowctl.io/next-open";
inline constexpr const char* kNextCloseAnnotation = "windowctl.io/next-close";
// windowctl's PATCHes carry ?fieldManager=windowctl: its entry in metadata.managedFields.
inline constexpr const char* kFieldManager = "windowctl";
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

// How a kind pauses. Flux's own kinds: spec.suspend (true pauses; open removes it, as flux resume
// does). Others pause through an annotation their controller reads (the Flux Operator's kinds,
// source-watcher's ArtifactGenerator): its key, the value that pauses (compared
// case-insensitively, as those controllers do) and what open writes, or nullptr to remove it.
// The kinds table (kinds.cc) holds one per row; read_state and decide take it, so both ways run
// the same path and differ only here.
struct Pause {
  const char* annotation = nullptr;  // nullptr: spec.suspend
  const char* paused = nullptr;
  const char* running = nullptr;
  std::string field() const;  // for people: "spec.suspend", "fluxcd.controlplane.io/reconcile"
};
inline constexpr Pause kSpecSuspend{};

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
  // A schedule governs the object: keep kNextOpenAnnotation and kNextCloseAnnotation at these
  // values ("" removes it), on objects that are not someone else's suspension.
  bool edges = false;
  std::string next_open, next_close;
  // The schedule is closed and decided this close (no override did): Flux's reason when no
  // --reason is given (closed_flux_reason), instead of kDefaultFluxReason. On windowctl's own
  // suspension without a --reason it replaces an outdated one, record included.
  std::string window_reason;
};

// A metadata.managedFields entry (not of a subresource) that owns the pause field (spec.suspend,
// or the kind's pause annotation) or Flux's reason annotation: the last manager to change that
// field's value (an Update takes only what it changed).
struct SuspendWriter {
  std::string manager;
  std::string time;      // the entry's time, as the server wrote it: its manager's last write
  bool suspend = false;  // owns the pause field
  bool reason = false;   // owns suspend.toolkit.fluxcd.io/reason
};

// Who holds a suspension that is not windowctl's: what `open` names when it leaves it suspended.
struct Holder {
  std::string by;                // the Flux Operator's user, or a field manager ("flux"); "" unknown
  bool via_operator = false;     // `by` is the Flux Operator's fluxcd.controlplane.io/suspendedBy
  std::string since;             // their managedFields time, RFC 3339 as written; "" unknown
  bool after_windowctl = false;  // windowctl's mark is there, but someone else suspended it since
  std::string detail;       // for people, "" when nothing is known: "flux", "flux set spec.suspend after windowctl ..."
  std::string who() const;  // "flux", "alice via Flux Operator", ""
};

struct ObjectState {
  bool suspended = false;  // paused as the kind pauses (Pause)
  // The pause field a server sent that windowctl cannot read (an annotation that is not a
  // string): named, never taken as running. decide refuses to act on it; status shows it.
  std::string problem;
  std::string pause_field = "spec.suspend";  // Pause::field(), for the held detail
  // windowctl's suspension: suspended-by says windowctl and nobody suspended it again since
  // (holder_of). What open resumes without --force and adopt leaves alone.
  bool marked = false;
  bool windowctl_mark = false;  // suspended-by says windowctl, whatever happened since
  std::string suspended_at;
  std::string reason;
  std::string flux_reason;                           // suspend.toolkit.fluxcd.io/reason, whoever wrote it
  std::optional<std::string> flux_reason_record;     // windowctl.io/flux-reason; nullopt: absent (older marks)
  std::optional<std::string> operator_suspended_by;  // fluxcd.controlplane.io/suspendedBy; nullopt: absent
  std::vector<SuspendWriter> writers;
  Holder holder;                // suspended and not marked: who, as far as the object tells
  std::string reconcile_label;  // "" when absent
  bool has_marks = false;       // any of windowctl's suspension marks present
  std::string override_state;   // "open", "closed" or "" (none)
  std::string override_until;
  std::string override_by;
  std::string override_at;
  std::string override_reason;
  bool has_override = false;  // any override annotation present
};

ObjectState read_state(const nlohmann::json& object, const Pause& pause = kSpecSuspend);

// The held rule. An object with windowctl's mark (suspended-by: windowctl) is no longer
// windowctl's suspension, and open holds it, when someone else suspended it again since, i.e. any of:
//  1. Flux's reason annotation is not what windowctl left there (windowctl.io/flux-reason; an
//     absent annotation counts as ""); marks from before that record skip this rule;
//  2. the Flux Operator's fluxcd.controlplane.io/suspendedBy is present and not "windowctl", or
//  3. a managedFields entry (not of a subresource) of a manager other than windowctl and the
//     parents that apply objects from Git or charts (kustomize-controller, helm-controller, whose
//     owning it is a manifest declaring the pause field: check's WC002) owns the pause field or Flux's
//     reason annotation and its time is after windowctl.io/suspended-at (whole seconds; without
//     a readable suspended-at this rule cannot order the writes and says nothing).
// Without the mark the holder is whoever the object names: the Flux Operator's user, else the
// latest manager owning the pause field. Pure over read_state's fields.
Holder holder_of(const ObjectState& state);

// kNotOpened: sync or open --scheduled --cutoff left it closed, the window closing too soon.
enum class Outcome {
  kOpened,
  kAlreadyOpen,
  kClosed,
  kAlreadyClosed,
  kHeld,
  kRelabeled,
  kAlreadyLabeled,
  kAdopted,
  kNotOpened
};

struct Decision {
  Outcome outcome = Outcome::kAlreadyOpen;
  std::optional<nlohmann::json> patch;  // RFC 7386 merge patch; nullopt means no write
  std::string event_reason;             // empty: no Event
  std::string event_type;               // Normal or Warning
  std::string event_message;
  bool wait_for_token = false;  // --wait must see the token echoed in lastHandledReconcileAt
  std::string note;             // what else the patch does: "relabeled", "open until T", ...
  std::string held;             // kHeld (or adopted): who and why, Holder::detail; "" unknown
};

// Throws std::runtime_error on an object whose pause field it cannot read (ObjectState::problem).
Decision decide(const nlohmann::json& object, const PlanInput& input, const Pause& pause = kSpecSuspend);

// Someone else's reason as windowctl quotes it: a JSON string literal, cut at `max` (at least 4)
// bytes on a character boundary (with "..."); "" when there is none.
std::string quote_reason(const std::string& reason, std::size_t max = kQuotedReasonMax);

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

// Whether the object's override has run out at `now`: nullopt when there is none sync would
// honour (absent, or a state or until it cannot read, which sync drops).
std::optional<bool> override_expired(const ObjectState& state, SysTime now);

// What sync would make of the object now (status): the window's verdict, or without a window
// an unexpired override's; nullopt when neither says. kOpen or kClose.
std::optional<Action> desired_action(const ObjectState& state, std::optional<bool> window_open, SysTime now);

// open/close --scheduled: the job says what the window wants at its edge; an unexpired override
// (open/close --for) still wins, exactly as with sync, and an expired one is dropped. The input
// comes back with the action, override mode and cause that apply to this object.
PlanInput scheduled_input(const ObjectState& state, PlanInput in, SysTime now);

// --cutoff: an open that the window asked for (`closes`: when that window closes, next_edges'
// close; nullopt beyond the search) with less than `cutoff` left becomes kNotOpened, without a
// write or an Event: a change started then would be cut half-way. Any other decision, and an
// open an override decided (`by_window` false), comes back unchanged.
Decision apply_cutoff(Decision decision, bool by_window, SysTime now, std::optional<SysTime> closes,
                      std::chrono::milliseconds cutoff);

// "closed", "already closed", "held: suspended by someone else"; with dry_run "would close".
std::string outcome_text(Outcome outcome, bool dry_run);
std::string outcome_code(Outcome outcome);  // stable JSON value: "closed", "already-closed", ...
// outcome_text plus who holds it ("held: suspended by someone else (flux)") and what a write on
// an already-settled object did ("already open, relabeled").
std::string describe(const Decision& decision, bool dry_run);

}  // namespace windowctl
