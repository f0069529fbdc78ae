#include "plan.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "json_read.h"
#include "text.h"
#include "util.h"

namespace windowctl {

using nlohmann::json;

namespace {

constexpr const char* kMarkKeys[] = {kSuspendedByAnnotation, kSuspendedAtAnnotation, kReasonAnnotation,
                                     kFluxReasonRecordAnnotation};
// Others' suspend annotations: Flux's reason (flux suspend --reason) and the Flux Operator's suspender.
constexpr const char* kForeignSuspendKeys[] = {kFluxReasonAnnotation, kOperatorSuspendedByAnnotation};
constexpr const char* kOverrideKeys[] = {kOverrideAnnotation, kOverrideUntilAnnotation, kOverrideAtAnnotation,
                                         kOverrideByAnnotation, kOverrideReasonAnnotation};

const json* section(const json& obj, const char* name) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return nullptr;
  auto sec = meta->find(name);
  return sec != meta->end() && sec->is_object() ? &*sec : nullptr;
}

std::string string_at(const json& obj, const char* name, const char* key) {
  const json* sec = section(obj, name);
  if (!sec) return {};
  auto v = sec->find(key);
  return v != sec->end() && v->is_string() ? v->get<std::string>() : std::string();
}

bool has_annotation(const json& obj, const char* key) {
  const json* sec = section(obj, "annotations");
  return sec && sec->contains(key);
}

// Nulls each of `keys` the object carries, so the patch leaves no trace of them.
template <std::size_t N>
void clear(const json& obj, const char* const (&keys)[N], json& annotations) {
  for (const char* key : keys) {
    if (has_annotation(obj, key)) annotations[key] = nullptr;
  }
}

std::string with_reason(std::string message, const std::string& reason) {
  return reason.empty() ? message : message + ": " + reason;
}

void add_note(std::string& note, const std::string& text) { note += (note.empty() ? "" : ", ") + text; }

// windowctl's marks on a suspension it owns (close, adopt): who, when, why or no stale why, and
// the Flux reason it leaves, so that a later `flux suspend --reason` shows. The Flux Operator's
// suspendedBy names windowctl, so its web UI says who suspended it (and a user's name there
// later is someone else suspending it again: the held rule).
void mark(const json& obj, const PlanInput& in, const std::string& flux_reason, json& annotations,
          const std::string& at) {
  annotations[kSuspendedByAnnotation] = kSuspendedByValue;
  annotations[kSuspendedAtAnnotation] = at;
  if (!in.reason.empty()) {
    annotations[kReasonAnnotation] = in.reason;
  } else if (has_annotation(obj, kReasonAnnotation)) {
    annotations[kReasonAnnotation] = nullptr;
  }
  annotations[kFluxReasonRecordAnnotation] = flux_reason;
  annotations[kOperatorSuspendedByAnnotation] = kSuspendedByValue;
}

// Sets `key` to `value` ("" removes it) when the object says otherwise; true when it did.
bool keep(const json& obj, const char* key, const std::string& value, json& annotations) {
  if (value.empty() ? !has_annotation(obj, key) : string_at(obj, "annotations", key) == value) return false;
  annotations[key] = value.empty() ? json(nullptr) : json(value);
  return true;
}

// The fieldsV1 trie has a key for the field, whatever is below it ("." or children).
bool owns(const json& fields, const char* map, const char* key) {
  const json* node = field(fields, map);
  return node && field(*node, key);
}

std::vector<SuspendWriter> suspend_writers(const json& obj, const Pause& pause) {
  std::vector<SuspendWriter> out;
  const json* meta = field(obj, "metadata");
  const json* managed = meta ? field(*meta, "managedFields") : nullptr;
  if (!managed || !managed->is_array()) return out;
  const std::string reason_key = std::string("f:") + kFluxReasonAnnotation;
  const std::string pause_key = pause.annotation ? std::string("f:") + pause.annotation : std::string();
  for (const auto& entry : *managed) {
    // A status write cannot touch spec or metadata.
    if (!entry.is_object() || !windowctl::string_at(entry, "subresource").empty()) continue;
    const json* fields = field(entry, "fieldsV1");
    if (!fields) continue;
    SuspendWriter w{windowctl::string_at(entry, "manager"), windowctl::string_at(entry, "time")};
    const json* meta_fields = field(*fields, "f:metadata");
    w.suspend = pause.annotation ? meta_fields && owns(*meta_fields, "f:annotations", pause_key.c_str())
                                 : owns(*fields, "f:spec", "f:suspend");
    w.reason = meta_fields && owns(*meta_fields, "f:annotations", reason_key.c_str());
    if (w.suspend || w.reason) out.push_back(std::move(w));
  }
  return out;
}

// Managers whose owning spec.suspend is a manifest that declares it (the parent Kustomization
// applying from Git, helm-controller from a chart): a setup problem check names (WC002), not
// someone suspending it during an incident.
bool applies_manifests(const std::string& manager) {
  return manager == "kustomize-controller" || manager == "helm-controller";
}

// Strictly after, in whole seconds: managedFields times have no more, and a write in the same
// second as windowctl's mark (adopt right after a suspend) cannot be told apart from one before.
bool after(const std::string& time, const std::string& than) {
  auto t = parse_rfc3339_saturated(time);
  auto u = parse_rfc3339_saturated(than);
  return t && u && std::chrono::floor<std::chrono::seconds>(*t) > std::chrono::floor<std::chrono::seconds>(*u);
}

}  // namespace

std::string Holder::who() const { return via_operator ? (by.empty() ? "someone" : by) + " via Flux Operator" : by; }

Holder holder_of(const ObjectState& s) {
  Holder h;
  const bool theirs = !s.windowctl_mark;
  if (s.operator_suspended_by && *s.operator_suspended_by != kSuspendedByValue) {
    h.by = *s.operator_suspended_by;
    h.via_operator = true;
    h.after_windowctl = !theirs;
    h.detail =
        theirs ? h.who() : (h.by.empty() ? "someone" : h.by) + " suspended it in the Flux Operator after windowctl did";
    return h;
  }
  // The writer that names the holder, the latest of its rank. Someone else's suspension: any
  // owner of spec.suspend. windowctl's: another manager's write after the mark, of spec.suspend
  // (rank 2) before one of the reason (rank 1).
  const SuspendWriter* best = nullptr;
  int best_rank = 0;
  for (const auto& w : s.writers) {
    if (w.manager == kFieldManager) continue;
    int rank = theirs ? w.suspend : applies_manifests(w.manager) || !after(w.time, s.suspended_at) ? 0 : 1 + w.suspend;
    if (rank > best_rank || (rank && rank == best_rank && after(w.time, best->time))) {
      best = &w;
      best_rank = rank;
    }
  }
  if (best) {
    h.by = best->manager;
    h.since = best->time;
  }
  if (theirs) {
    h.detail = h.by;
    return h;
  }
  if (!best && !(s.flux_reason_record && *s.flux_reason_record != s.flux_reason)) return h;
  h.after_windowctl = true;
  h.detail = (!best            ? std::string("the suspend reason changed")
              : best_rank == 2 ? h.by + " set " + s.pause_field
                               : h.by + " changed the suspend reason") +
             " after windowctl suspended it";
  return h;
}

std::string Pause::field() const { return annotation ? annotation : "spec.suspend"; }

ObjectState read_state(const json& obj, const Pause& pause) {
  ObjectState s;
  s.pause_field = pause.field();
  if (pause.annotation) {
    // Named when unreadable, never taken as absent (running): the annotations map, then the value.
    const json* annotations = field_path(obj, {"metadata", "annotations"});
    const json* value = annotations ? field(*annotations, pause.annotation) : nullptr;
    if (annotations && !annotations->is_object() && !annotations->is_null()) {
      s.problem = std::string("its metadata.annotations is a JSON ") + annotations->type_name() + ", not an object";
    } else if (value && !value->is_string()) {
      s.problem =
          std::string("its annotation ") + pause.annotation + " is a JSON " + value->type_name() + ", not a string";
    } else if (value) {
      s.suspended = iequals_ascii(value->get_ref<const std::string&>(), pause.paused);
    }
    if (!s.problem.empty()) s.problem += ": windowctl cannot tell whether it is paused";
  } else if (obj.contains("spec") && obj["spec"].is_object()) {
    auto it = obj["spec"].find("suspend");
    s.suspended = it != obj["spec"].end() && it->is_boolean() && it->get<bool>();
  }
  s.windowctl_mark = string_at(obj, "annotations", kSuspendedByAnnotation) == kSuspendedByValue;
  s.suspended_at = string_at(obj, "annotations", kSuspendedAtAnnotation);
  s.reason = string_at(obj, "annotations", kReasonAnnotation);
  s.flux_reason = string_at(obj, "annotations", kFluxReasonAnnotation);
  // Present with another type is still present: someone wrote it, and "" is what it says.
  if (has_annotation(obj, kFluxReasonRecordAnnotation))
    s.flux_reason_record = string_at(obj, "annotations", kFluxReasonRecordAnnotation);
  if (has_annotation(obj, kOperatorSuspendedByAnnotation))
    s.operator_suspended_by = string_at(obj, "annotations", kOperatorSuspendedByAnnotation);
  s.writers = suspend_writers(obj, pause);
  s.reconcile_label = string_at(obj, "labels", kReconcileLabel);
  s.has_marks =
      std::any_of(std::begin(kMarkKeys), std::end(kMarkKeys), [&](const char* k) { return has_annotation(obj, k); });
  s.override_state = string_at(obj, "annotations", kOverrideAnnotation);
  s.override_until = string_at(obj, "annotations", kOverrideUntilAnnotation);
  s.override_by = string_at(obj, "annotations", kOverrideByAnnotation);
  s.override_at = string_at(obj, "annotations", kOverrideAtAnnotation);
  s.override_reason = string_at(obj, "annotations", kOverrideReasonAnnotation);
  s.has_override = std::any_of(std::begin(kOverrideKeys), std::end(kOverrideKeys),
                               [&](const char* k) { return has_annotation(obj, k); });
  s.holder = holder_of(s);
  s.marked = s.windowctl_mark && !s.holder.after_windowctl;
  return s;
}

std::optional<bool> override_expired(const ObjectState& s, SysTime now) {
  auto until = parse_rfc3339_saturated(s.override_until);
  if ((s.override_state != "open" && s.override_state != "closed") || !until) return std::nullopt;
  return now >= *until;
}

std::optional<Action> desired_action(const ObjectState& s, std::optional<bool> window_open, SysTime now) {
  if (window_open) return sync_verdict(s, *window_open, now).action;
  if (override_expired(s, now) == false) return s.override_state == "open" ? Action::kOpen : Action::kClose;
  return std::nullopt;
}

SyncVerdict sync_verdict(const ObjectState& s, bool window_open, SysTime now) {
  SyncVerdict v;
  // Saturated: an override until 9999 is after every instant windowctl meets, never expired.
  auto until = parse_rfc3339_saturated(s.override_until);
  bool valid = (s.override_state == "open" || s.override_state == "closed") && until;
  if (valid && now < *until) {
    v.action = s.override_state == "open" ? Action::kOpen : Action::kClose;
    v.override_mode = OverrideMode::kKeep;
    v.override_active = true;
    v.cause = "override " + s.override_state + " until " + s.override_until;
    return v;
  }
  // Expired or unreadable overrides go; the schedule decides again.
  v.action = window_open ? Action::kOpen : Action::kClose;
  v.override_mode = s.has_override ? OverrideMode::kClear : OverrideMode::kKeep;
  if (s.has_override) v.override_dropped = valid ? "override expired" : "unreadable override dropped";
  v.cause = window_open ? "window open" : "window closed";
  if (s.has_override) v.cause += " (" + v.override_dropped + ")";
  return v;
}

PlanInput scheduled_input(const ObjectState& s, PlanInput in, SysTime now) {
  const Action asked = in.action;
  SyncVerdict v = sync_verdict(s, asked == Action::kOpen, now);
  in.action = v.action;
  in.override_mode = v.override_mode;
  if (v.override_active) {
    in.cause = v.cause;
    // What the operator sees: the job ran, and why it did not do what its schedule says.
    in.override_note =
        (v.action == asked ? "override "
                           : "kept " + std::string(v.action == Action::kOpen ? "open" : "closed") + " by override ") +
        s.override_state + " until " + s.override_until + (s.override_by.empty() ? "" : " by " + s.override_by) +
        (s.override_reason.empty() ? "" : " (" + s.override_reason + ")");
  } else {
    in.cause = "scheduled" + (v.override_dropped.empty() ? "" : ", " + v.override_dropped);
  }
  return in;
}

// The pause field's part of a patch: paused, or running as the kind's controller expects it.
void set_paused(const Pause& pause, bool paused, json& spec, json& annotations) {
  if (!pause.annotation) {
    spec["suspend"] = paused ? json(true) : json(nullptr);  // removed, as flux resume does
  } else {
    annotations[pause.annotation] = paused ? json(pause.paused) : pause.running ? json(pause.running) : json(nullptr);
  }
}

Decision decide(const json& obj, const PlanInput& in, const Pause& pause) {
  const ObjectState s = read_state(obj, pause);
  if (!s.problem.empty()) throw std::runtime_error(s.problem + "; nothing changed");
  Decision d;
  json annotations = json::object();
  json labels = json::object();
  json spec = json::object();
  const std::string cause = in.cause.empty() ? "" : " (" + in.cause + ")";

  std::string wanted_label;
  if (in.action == Action::kRelabel) wanted_label = in.label_value;
  if (in.relabel && in.action == Action::kOpen) wanted_label = "enabled";
  if (in.relabel && in.action == Action::kClose) wanted_label = "disabled";
  // Flux compares the value case-insensitively; "Disabled" already does the job.
  bool label_differs = !wanted_label.empty() && ascii_lower(s.reconcile_label) != wanted_label;

  switch (in.action) {
    case Action::kClose:
      if (!s.suspended) {
        d.outcome = Outcome::kClosed;
        set_paused(pause, true, spec, annotations);
        // Flux's place for it too, so `kubectl describe` and Flux tooling show why.
        const std::string flux_reason = !in.reason.empty()          ? in.reason
                                        : !in.window_reason.empty() ? in.window_reason
                                                                    : kDefaultFluxReason;
        annotations[kFluxReasonAnnotation] = flux_reason;
        mark(obj, in, flux_reason, annotations, in.now);
        d.event_reason = "WindowClosed";
        d.event_message = with_reason("Suspended by windowctl: window closed" + cause, in.reason);
      } else {
        // Already suspended (by us or anyone): its marks stay exactly as they are, but for the
        // reason windowctl itself gave Flux when the window's has changed (a freeze moved the next
        // open). Written with its record, so the held rule still sees windowctl's own text; never
        // over a --reason an operator gave.
        d.outcome = Outcome::kAlreadyClosed;
        if (s.marked && in.reason.empty() && s.reason.empty() && !in.window_reason.empty() &&
            s.flux_reason_record == s.flux_reason && s.flux_reason != in.window_reason) {
          annotations[kFluxReasonAnnotation] = in.window_reason;
          annotations[kFluxReasonRecordAnnotation] = in.window_reason;
          add_note(d.note, "reason updated");
        }
      }
      break;
    case Action::kOpen:
      if (s.suspended && !s.marked && !in.force) {
        d.outcome = Outcome::kHeld;
        d.held = s.holder.detail;
        d.event_reason = "WindowOpenHeld";
        d.event_type = "Warning";
        d.event_message =
            with_reason("Left suspended: suspended by someone else" + (d.held.empty() ? "" : " (" + d.held + ")") +
                            ", not windowctl (open --force resumes it)" + cause +
                            (s.flux_reason.empty() ? "" : "; their reason: " + quote_reason(s.flux_reason)),
                        in.reason);
        if (!s.flux_reason.empty()) add_note(d.note, "reason " + quote_reason(s.flux_reason));
        return d;  // someone else's suspension: touch nothing, not even the label
      }
      if (s.suspended) {
        d.outcome = Outcome::kOpened;
        set_paused(pause, false, spec, annotations);
        annotations[kRequestedAtAnnotation] = in.token;
        d.wait_for_token = true;
        d.event_reason = "WindowOpened";
        d.event_message = with_reason((s.marked ? "Resumed by windowctl: window opened"
                                                : "Resumed by windowctl --force: it was suspended by someone else") +
                                          cause,
                                      in.reason);
      } else {
        d.outcome = Outcome::kAlreadyOpen;
      }
      clear(obj, kMarkKeys, annotations);
      // Resumed, or running already: a suspend reason or suspender no longer says anything true
      // (flux resume removes the one, the Flux Operator's resume the other).
      clear(obj, kForeignSuspendKeys, annotations);
      if ((s.has_marks || std::any_of(std::begin(kForeignSuspendKeys), std::end(kForeignSuspendKeys),
                                      [&](const char* k) { return has_annotation(obj, k); })) &&
          !s.suspended)
        add_note(d.note, "stale marks cleared");
      break;
    case Action::kRelabel: d.outcome = label_differs ? Outcome::kRelabeled : Outcome::kAlreadyLabeled; break;
    case Action::kAdopt:
      if (!s.suspended) {
        d.outcome = Outcome::kAlreadyOpen;
        add_note(d.note, "nothing to adopt");
      } else if (s.marked) {
        d.outcome = Outcome::kAlreadyClosed;
        add_note(d.note, "already marked by windowctl");
      } else {
        // Exactly the marks close leaves, so open treats it as its own; spec stays as it is, and
        // so does the reason they gave Flux: it is recorded as the one windowctl found.
        d.outcome = Outcome::kAdopted;
        d.held = s.holder.detail;
        // Marked no earlier than the writes it adopts: the API server's clock may run ahead of
        // this one, and a write "after" the mark would hold it again at once.
        std::string at = in.now;
        for (const auto& w : s.writers) {
          if (w.manager != kFieldManager && after(w.time, at)) at = w.time;
        }
        mark(obj, in, s.flux_reason, annotations, at);
        d.event_reason = "WindowAdopted";
        d.event_message = with_reason("Adopted by windowctl: suspended by someone else" +
                                          (d.held.empty() ? "" : " (" + d.held + ")") +
                                          ", now marked as closed by windowctl, so the next open resumes it",
                                      in.reason);
      }
      break;
  }
  if (!in.override_note.empty()) add_note(d.note, in.override_note);
  // The schedule's next edges, on objects windowctl governs: not on someone else's suspension
  // (a held open returned above), which windowctl leaves exactly as it is.
  if (in.edges && (in.action == Action::kOpen || (in.action == Action::kClose && (!s.suspended || s.marked)))) {
    bool changed = keep(obj, kNextOpenAnnotation, in.next_open, annotations);
    changed = keep(obj, kNextCloseAnnotation, in.next_close, annotations) || changed;
    // They move at every open and close; said only when they are all that changed.
    const bool settled = d.outcome == Outcome::kAlreadyOpen || d.outcome == Outcome::kAlreadyClosed;
    if (changed && settled)
      add_note(d.note, "next open " + (in.next_open.empty() ? "-" : in.next_open) + ", next close " +
                           (in.next_close.empty() ? "-" : in.next_close));
  }

  if (in.action == Action::kOpen || in.action == Action::kClose) {
    const std::string state = in.action == Action::kOpen ? "open" : "closed";
    if (in.override_mode == OverrideMode::kSet) {
      bool same = s.override_state == state && s.override_until == in.override_until;
      if (!same) {
        annotations[kOverrideAnnotation] = state;
        annotations[kOverrideUntilAnnotation] = in.override_until;
        annotations[kOverrideAtAnnotation] = in.now;
        annotations[kOverrideByAnnotation] = in.override_by;
        if (!in.reason.empty()) {
          annotations[kOverrideReasonAnnotation] = in.reason;
        } else if (has_annotation(obj, kOverrideReasonAnnotation)) {
          annotations[kOverrideReasonAnnotation] = nullptr;
        }
        add_note(d.note, state + " until " + in.override_until);
      }
    } else if (in.override_mode == OverrideMode::kClear && s.has_override) {
      clear(obj, kOverrideKeys, annotations);
      add_note(d.note, "override cleared");
    }
  }

  if (label_differs) {
    labels[kReconcileLabel] = wanted_label;
    if (in.action != Action::kRelabel) add_note(d.note, "relabeled");
  }
  if (spec.empty() && annotations.empty() && labels.empty()) return d;

  json patch = json::object();
  // The resourceVersion makes the write conditional: if the object changed since we read it,
  // the server answers 409 and the decision is made again on fresh state.
  const json* meta = field(obj, "metadata");
  std::string rv = meta ? windowctl::string_at(*meta, "resourceVersion") : std::string();
  if (!rv.empty()) patch["metadata"]["resourceVersion"] = rv;
  if (!annotations.empty()) patch["metadata"]["annotations"] = annotations;
  if (!labels.empty()) patch["metadata"]["labels"] = labels;
  if (!spec.empty()) patch["spec"] = spec;
  d.patch = patch;
  if (d.event_reason.empty()) {
    d.event_reason = label_differs ? "WindowRelabeled" : "WindowUpdated";
    d.event_message = with_reason(label_differs ? std::string("Set label ") + kReconcileLabel + "=" + wanted_label
                                                : "Updated windowctl annotations: " + d.note,
                                  in.reason);
  }
  if (d.event_type.empty()) d.event_type = "Normal";
  return d;
}

std::string quote_reason(const std::string& reason, std::size_t max) {
  if (reason.empty()) return {};
  max = std::max<std::size_t>(max, 4);
  std::string cut = utf8_prefix(reason, std::string::npos);
  if (cut.size() > max) cut = utf8_prefix(cut, max - 3) + "...";
  return json(cut).dump(-1, ' ', false, json::error_handler_t::replace);
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
    case Outcome::kAdopted: return dry_run ? "would adopt" : "adopted";
    case Outcome::kNotOpened: return dry_run ? "would not open" : "not opened";
  }
  return "unknown";
}

Decision apply_cutoff(Decision d, bool by_window, SysTime now, std::optional<SysTime> closes,
                      std::chrono::milliseconds cutoff) {
  if (d.outcome != Outcome::kOpened || !by_window || !closes || cutoff.count() <= 0) return d;
  const auto left = std::chrono::floor<std::chrono::seconds>(*closes - now);
  if (left >= cutoff) return d;
  Decision out;
  out.outcome = Outcome::kNotOpened;
  out.note = "the window closes at " + rfc3339(*closes) + ", in " +
             human_duration(std::max(left, std::chrono::seconds(0))) + ": within --cutoff " +
             human_duration(std::chrono::duration_cast<std::chrono::seconds>(cutoff));
  return out;
}

std::string describe(const Decision& d, bool dry_run) {
  std::string text = outcome_text(d.outcome, dry_run);
  if (d.outcome == Outcome::kHeld && !d.held.empty()) text += " (" + d.held + ")";
  if (d.note.empty()) return text;
  return text + (dry_run ? ", planned: " : ", ") + d.note;
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
    case Outcome::kAdopted: return "adopted";
    case Outcome::kNotOpened: return "not-opened";
  }
  return "unknown";
}

namespace {

bool visible(const json& object, const json& patch, bool top) {
  if (!patch.is_object()) return object == patch;
  if (!object.is_object()) return false;
  for (const auto& [key, value] : patch.items()) {
    auto it = object.find(key);
    if (value.is_null()) {
      if (it != object.end() && !it->is_null()) return false;
      continue;
    }
    if (top && key == "metadata" && value.is_object()) {
      json rest = value;
      rest.erase("resourceVersion");
      if (it == object.end() ? !rest.empty() : !visible(*it, rest, false)) return false;
      continue;
    }
    if (it == object.end() || !visible(*it, value, false)) return false;
  }
  return true;
}

}  // namespace

bool patch_visible(const json& object, const json& patch) { return visible(object, patch, true); }

}  // namespace windowctl
