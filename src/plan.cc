#include "plan.h"

#include <algorithm>
#include <cctype>

namespace windowctl {

using nlohmann::json;

namespace {

std::string string_at(const json& obj, const char* section, const char* key) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return {};
  auto sec = meta->find(section);
  if (sec == meta->end() || !sec->is_object()) return {};
  auto v = sec->find(key);
  return v != sec->end() && v->is_string() ? v->get<std::string>() : std::string();
}

bool has_annotation(const json& obj, const char* key) {
  return obj.contains("metadata") && obj["metadata"].is_object() && obj["metadata"].contains("annotations") &&
         obj["metadata"]["annotations"].is_object() && obj["metadata"]["annotations"].contains(key);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Nulls every windowctl mark the object carries, so open leaves no trace of the window.
void clear_marks(const json& obj, json& annotations) {
  for (const char* key : {kSuspendedByAnnotation, kSuspendedAtAnnotation, kReasonAnnotation}) {
    if (has_annotation(obj, key)) annotations[key] = nullptr;
  }
}

std::string with_reason(std::string message, const std::string& reason) {
  return reason.empty() ? message : message + ": " + reason;
}

}  // namespace

ObjectState read_state(const json& obj) {
  ObjectState s;
  if (obj.contains("spec") && obj["spec"].is_object()) {
    auto it = obj["spec"].find("suspend");
    s.suspended = it != obj["spec"].end() && it->is_boolean() && it->get<bool>();
  }
  s.marked = string_at(obj, "annotations", kSuspendedByAnnotation) == kSuspendedByValue;
  s.suspended_at = string_at(obj, "annotations", kSuspendedAtAnnotation);
  s.reason = string_at(obj, "annotations", kReasonAnnotation);
  s.reconcile_label = string_at(obj, "labels", kReconcileLabel);
  s.has_marks = has_annotation(obj, kSuspendedByAnnotation) || has_annotation(obj, kSuspendedAtAnnotation) ||
                has_annotation(obj, kReasonAnnotation);
  return s;
}

Decision decide(const json& obj, const PlanInput& in) {
  const ObjectState s = read_state(obj);
  Decision d;
  json annotations = json::object();
  json labels = json::object();
  json spec = json::object();

  std::string wanted_label;
  if (in.action == Action::kRelabel) wanted_label = in.label_value;
  if (in.relabel && in.action == Action::kOpen) wanted_label = "enabled";
  if (in.relabel && in.action == Action::kClose) wanted_label = "disabled";
  // Flux compares the value case-insensitively; "Disabled" already does the job.
  bool label_differs = !wanted_label.empty() && lower(s.reconcile_label) != wanted_label;

  switch (in.action) {
    case Action::kClose:
      if (!s.suspended) {
        d.outcome = Outcome::kClosed;
        spec["suspend"] = true;
        annotations[kSuspendedByAnnotation] = kSuspendedByValue;
        annotations[kSuspendedAtAnnotation] = in.now;
        if (!in.reason.empty()) {
          annotations[kReasonAnnotation] = in.reason;
        } else if (has_annotation(obj, kReasonAnnotation)) {
          annotations[kReasonAnnotation] = nullptr;
        }
        d.event_reason = "WindowClosed";
        d.event_message = with_reason("Suspended by windowctl: window closed", in.reason);
      } else {
        // Already suspended (by us or anyone): its marks stay exactly as they are.
        d.outcome = Outcome::kAlreadyClosed;
      }
      break;
    case Action::kOpen:
      if (s.suspended && !s.marked && !in.force) {
        d.outcome = Outcome::kHeld;
        d.event_reason = "WindowOpenHeld";
        d.event_type = "Warning";
        d.event_message = with_reason("Left suspended: suspended by someone else, not windowctl (open --force resumes it)", in.reason);
        return d;  // someone else's suspension: touch nothing, not even the label
      }
      if (s.suspended) {
        d.outcome = Outcome::kOpened;
        spec["suspend"] = nullptr;  // removed, as flux resume does
        annotations[kRequestedAtAnnotation] = in.token;
        d.wait_for_token = true;
        d.event_reason = "WindowOpened";
        d.event_message = with_reason(s.marked ? "Resumed by windowctl: window opened"
                                               : "Resumed by windowctl --force: it was suspended by someone else",
                                      in.reason);
      } else {
        d.outcome = Outcome::kAlreadyOpen;
      }
      clear_marks(obj, annotations);
      break;
    case Action::kRelabel:
      d.outcome = label_differs ? Outcome::kRelabeled : Outcome::kAlreadyLabeled;
      break;
  }

  if (label_differs) labels[kReconcileLabel] = wanted_label;
  if (spec.empty() && annotations.empty() && labels.empty()) return d;

  json patch = json::object();
  // The resourceVersion makes the write conditional: if the object changed since we read it,
  // the server answers 409 and the decision is made again on fresh state.
  std::string rv = obj.contains("metadata") && obj["metadata"].is_object() ? obj["metadata"].value("resourceVersion", "") : "";
  if (!rv.empty()) patch["metadata"]["resourceVersion"] = rv;
  if (!annotations.empty()) patch["metadata"]["annotations"] = annotations;
  if (!labels.empty()) patch["metadata"]["labels"] = labels;
  if (!spec.empty()) patch["spec"] = spec;
  d.patch = patch;
  if (d.event_reason.empty()) {
    d.event_reason = "WindowRelabeled";
    d.event_message = label_differs ? with_reason(std::string("Set label ") + kReconcileLabel + "=" + wanted_label, in.reason)
                                    : "Cleared stale windowctl marks";
  }
  if (d.event_type.empty()) d.event_type = "Normal";
  return d;
}

std::string outcome_text(Outcome o, bool dry_run) {
  switch (o) {
    case Outcome::kOpened: return dry_run ? "would open" : "opened";
    case Outcome::kAlreadyOpen: return "already open";
    case Outcome::kClosed: return dry_run ? "would close" : "closed";
    case Outcome::kAlreadyClosed: return "already closed";
    case Outcome::kHeld: return "held: suspended by someone else";
    case Outcome::kRelabeled: return dry_run ? "would relabel" : "relabeled";
    case Outcome::kAlreadyLabeled: return "already labeled";
  }
  return "unknown";
}

std::string describe(const Decision& d, bool dry_run) {
  std::string text = outcome_text(d.outcome, dry_run);
  bool settled = d.outcome == Outcome::kAlreadyOpen || d.outcome == Outcome::kAlreadyClosed;
  if (!settled || !d.patch) return text;
  bool relabels = d.patch->contains("metadata") && (*d.patch)["metadata"].contains("labels");
  if (relabels) return text + (dry_run ? ", would relabel" : ", relabeled");
  return text + (dry_run ? ", would clear stale marks" : ", stale marks cleared");
}

std::string outcome_code(Outcome o) {
  switch (o) {
    case Outcome::kOpened: return "opened";
    case Outcome::kAlreadyOpen: return "already-open";
    case Outcome::kClosed: return "closed";
    case Outcome::kAlreadyClosed: return "already-closed";
    case Outcome::kHeld: return "held";
    case Outcome::kRelabeled: return "relabeled";
    case Outcome::kAlreadyLabeled: return "already-labeled";
  }
  return "unknown";
}

}  // namespace windowctl
