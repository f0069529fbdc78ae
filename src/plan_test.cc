#include "plan.h"

#include <doctest/doctest.h>

#include <vector>

using namespace windowctl;
using nlohmann::json;

namespace {

PlanInput input(Action a, bool force = false, bool relabel = false, std::string reason = "") {
  PlanInput in;
  in.action = a;
  in.force = force;
  in.relabel = relabel;
  in.reason = std::move(reason);
  in.now = "2026-11-22T08:00:00Z";
  in.token = "2026-11-22T08:00:00.000000001Z";
  return in;
}

json object(json suspend, json annotations = json::object(), json labels = json::object()) {
  json o = {{"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}, {"resourceVersion", "42"}}},
            {"spec", {{"interval", "10m"}}}};
  if (!suspend.is_null()) o["spec"]["suspend"] = suspend;
  if (!annotations.empty()) o["metadata"]["annotations"] = annotations;
  if (!labels.empty()) o["metadata"]["labels"] = labels;
  return o;
}

const json kMarks = {{kSuspendedByAnnotation, "windowctl"},
                     {kSuspendedAtAnnotation, "2026-11-19T17:00:00Z"},
                     {kReasonAnnotation, "weekly"}};

// RFC 7386 applied to a copy, to check that a patch really produces the desired state.
json merged(json target, const json& patch) {
  target.merge_patch(patch);
  return target;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("close suspends a running object and marks it") {
  auto d = decide(object(nullptr), input(Action::kClose, false, false, "maintenance"));
  CHECK(d.outcome == Outcome::kClosed);
  REQUIRE(d.patch);
  CHECK(*d.patch == json::parse(R"({"metadata":{"resourceVersion":"42","annotations":{
      "windowctl.io/suspended-by":"windowctl","windowctl.io/suspended-at":"2026-11-22T08:00:00Z","windowctl.io/reason":"maintenance",
      "suspend.toolkit.fluxcd.io/reason":"maintenance","windowctl.io/flux-reason":"maintenance",
      "fluxcd.controlplane.io/suspendedBy":"windowctl"}},
      "spec":{"suspend":true}})"));
  CHECK(d.event_reason == "WindowClosed");
  CHECK(d.event_type == "Normal");
  CHECK(d.event_message == "Suspended by windowctl: window closed: maintenance");
  CHECK(describe(d, false) == "closed");
  CHECK(describe(d, true) == "would close");
}

TEST_CASE("close on a suspend:false object suspends it") {
  auto d = decide(object(false), input(Action::kClose));
  CHECK(d.outcome == Outcome::kClosed);
  CHECK((*d.patch)["spec"]["suspend"] == true);
  CHECK_FALSE((*d.patch)["metadata"]["annotations"].contains(kReasonAnnotation));
}

TEST_CASE("close without a reason drops a stale reason") {
  auto d = decide(object(nullptr, {{kReasonAnnotation, "old"}}), input(Action::kClose));
  CHECK((*d.patch)["metadata"]["annotations"][kReasonAnnotation].is_null());
}

TEST_CASE("close on a suspended object writes nothing and keeps its marks") {
  for (const json& ann : {json::object(), kMarks}) {
    auto d = decide(object(true, ann), input(Action::kClose, false, false, "new reason"));
    CHECK(d.outcome == Outcome::kAlreadyClosed);
    CHECK_FALSE(d.patch);
    CHECK(d.event_reason.empty());
    CHECK(describe(d, false) == "already closed");
  }
}

TEST_CASE("open resumes what windowctl suspended, in one patch") {
  auto d = decide(object(true, kMarks), input(Action::kOpen));
  CHECK(d.outcome == Outcome::kOpened);
  CHECK(d.wait_for_token);
  CHECK(*d.patch == json::parse(R"({"metadata":{"resourceVersion":"42","annotations":{
      "reconcile.fluxcd.io/requestedAt":"2026-11-22T08:00:00.000000001Z",
      "windowctl.io/suspended-by":null,"windowctl.io/suspended-at":null,"windowctl.io/reason":null}},
      "spec":{"suspend":null}})"));
  json after = merged(object(true, kMarks), *d.patch);
  CHECK_FALSE(after["spec"].contains("suspend"));
  CHECK(after["metadata"]["annotations"] == json{{kRequestedAtAnnotation, "2026-11-22T08:00:00.000000001Z"}});
  CHECK(d.event_reason == "WindowOpened");
}

TEST_CASE("open holds an object someone else suspended, unless forced") {
  auto held = decide(object(true), input(Action::kOpen, false, true, "INC-1"));
  CHECK(held.outcome == Outcome::kHeld);
  CHECK_FALSE(held.patch);  // not even the label
  CHECK(held.event_reason == "WindowOpenHeld");
  CHECK(held.event_type == "Warning");
  CHECK(describe(held, false) == "held: suspended by someone else");

  auto foreign = decide(object(true, {{kSuspendedByAnnotation, "alice"}}), input(Action::kOpen));
  CHECK(foreign.outcome == Outcome::kHeld);

  auto forced = decide(object(true), input(Action::kOpen, true));
  CHECK(forced.outcome == Outcome::kOpened);
  CHECK((*forced.patch)["spec"]["suspend"].is_null());
  CHECK(forced.event_message == "Resumed by windowctl --force: it was suspended by someone else");
}

TEST_CASE("open on a running object writes nothing, or only cleans up") {
  auto d = decide(object(nullptr), input(Action::kOpen));
  CHECK(d.outcome == Outcome::kAlreadyOpen);
  CHECK_FALSE(d.patch);
  CHECK_FALSE(d.wait_for_token);
  auto stale = decide(object(false, kMarks), input(Action::kOpen));
  CHECK(stale.outcome == Outcome::kAlreadyOpen);
  REQUIRE(stale.patch);
  CHECK_FALSE((*stale.patch).contains("spec"));
  CHECK(describe(stale, false) == "already open, stale marks cleared");
}

TEST_CASE("--relabel rides in the same patch") {
  auto close = decide(object(nullptr), input(Action::kClose, false, true));
  CHECK((*close.patch)["metadata"]["labels"][kReconcileLabel] == "disabled");
  CHECK((*close.patch)["spec"]["suspend"] == true);
  auto open = decide(object(true, kMarks, {{kReconcileLabel, "disabled"}}), input(Action::kOpen, false, true));
  CHECK((*open.patch)["metadata"]["labels"][kReconcileLabel] == "enabled");
  CHECK((*open.patch)["spec"]["suspend"].is_null());
  auto settled = decide(object(true, kMarks), input(Action::kClose, false, true));
  CHECK(settled.outcome == Outcome::kAlreadyClosed);
  REQUIRE(settled.patch);
  CHECK(*settled.patch ==
        json::parse(
            R"({"metadata":{"resourceVersion":"42","labels":{"kustomize.toolkit.fluxcd.io/reconcile":"disabled"}}})"));
  CHECK(describe(settled, false) == "already closed, relabeled");
  CHECK(settled.event_reason == "WindowRelabeled");
  auto same = decide(object(true, kMarks, {{kReconcileLabel, "Disabled"}}), input(Action::kClose, false, true));
  CHECK_FALSE(same.patch);
}

TEST_CASE("relabel changes only the label") {
  PlanInput in = input(Action::kRelabel);
  in.label_value = "disabled";
  auto d = decide(object(true, kMarks), in);
  CHECK(d.outcome == Outcome::kRelabeled);
  CHECK(*d.patch ==
        json::parse(
            R"({"metadata":{"resourceVersion":"42","labels":{"kustomize.toolkit.fluxcd.io/reconcile":"disabled"}}})"));
  auto again = decide(merged(object(true, kMarks), *d.patch), in);
  CHECK(again.outcome == Outcome::kAlreadyLabeled);
  CHECK_FALSE(again.patch);
}

TEST_CASE("every state, action and flag: the patch reaches the goal and a second decision is a no-op") {
  std::vector<json> suspends = {nullptr, false, true, "yes"};
  json reason_changed = kMarks, operator_suspended = kMarks;
  reason_changed[kFluxReasonRecordAnnotation] = "weekly";
  reason_changed[kFluxReasonAnnotation] = "INC-999";
  operator_suspended[kOperatorSuspendedByAnnotation] = "alice";
  std::vector<json> annotation_sets = {
      json::object(),    kMarks, {{kSuspendedByAnnotation, "alice"}}, {{kReasonAnnotation, "stale"}}, reason_changed,
      operator_suspended};
  std::vector<json> label_sets = {json::object(), {{kReconcileLabel, "enabled"}}, {{kReconcileLabel, "DISABLED"}}};
  int cases = 0;
  for (const auto& suspend : suspends)
    for (const auto& ann : annotation_sets)
      for (const auto& labels : label_sets)
        for (Action action : {Action::kOpen, Action::kClose, Action::kRelabel, Action::kAdopt})
          for (bool force : {false, true})
            for (bool relabel : {false, true}) {
              ++cases;
              json obj = object(suspend, ann, labels);
              PlanInput in = input(action, force, relabel, "r");
              in.label_value = "enabled";
              auto d = decide(obj, in);
              ObjectState before = read_state(obj);
              CAPTURE(obj.dump());
              CAPTURE(static_cast<int>(action));
              CAPTURE(force);
              CAPTURE(relabel);
              json after = d.patch ? merged(obj, *d.patch) : obj;
              ObjectState s = read_state(after);
              if (d.patch) CHECK((*d.patch)["metadata"]["resourceVersion"] == "42");
              if (d.patch) CHECK_FALSE(d.event_reason.empty());
              switch (action) {
                case Action::kClose:
                  CHECK(s.suspended);
                  if (!before.suspended) CHECK(s.marked);
                  if (before.suspended)
                    CHECK(obj["metadata"].value("annotations", json::object()) ==
                          after["metadata"].value("annotations", json::object()));
                  break;
                case Action::kOpen:
                  if (d.outcome == Outcome::kHeld) {
                    CHECK(before.suspended);
                    CHECK_FALSE(before.marked);
                    CHECK_FALSE(force);
                    CHECK(after == obj);
                  } else {
                    CHECK_FALSE(s.suspended);
                    CHECK_FALSE(s.has_marks);
                    CHECK(d.wait_for_token == before.suspended);
                  }
                  break;
                case Action::kRelabel:
                  CHECK(lower(s.reconcile_label) == "enabled");
                  CHECK(s.suspended == before.suspended);
                  break;
                case Action::kAdopt:
                  // Only the marks, only on someone else's suspension; spec and labels untouched.
                  CHECK(s.suspended == before.suspended);
                  CHECK(after["spec"] == obj["spec"]);
                  CHECK(s.reconcile_label == before.reconcile_label);
                  if (before.suspended) CHECK(s.marked);
                  CHECK(d.patch.has_value() == (before.suspended && !before.marked));
                  CHECK((d.outcome == Outcome::kAdopted) == (before.suspended && !before.marked));
                  break;
              }
              if (relabel && d.outcome != Outcome::kHeld && (action == Action::kOpen || action == Action::kClose)) {
                CHECK(lower(s.reconcile_label) == (action == Action::kOpen ? "enabled" : "disabled"));
              }
              // Converged: deciding again on the result writes nothing.
              auto again = decide(after, in);
              CHECK_FALSE(again.patch);
            }
  CHECK(cases == 4 * 6 * 3 * 4 * 2 * 2);
}

TEST_CASE("open --for records a time-boxed override in the same patch") {
  PlanInput in = input(Action::kOpen, false, false, "INC-123");
  in.override_mode = OverrideMode::kSet;
  in.override_until = "2026-11-22T10:00:00Z";
  in.override_by = "alice";
  auto d = decide(object(true, kMarks), in);
  CHECK(d.outcome == Outcome::kOpened);
  const auto& ann = (*d.patch)["metadata"]["annotations"];
  CHECK(ann[kOverrideAnnotation] == "open");
  CHECK(ann[kOverrideUntilAnnotation] == "2026-11-22T10:00:00Z");
  CHECK(ann[kOverrideAtAnnotation] == "2026-11-22T08:00:00Z");
  CHECK(ann[kOverrideByAnnotation] == "alice");
  CHECK(ann[kOverrideReasonAnnotation] == "INC-123");
  CHECK((*d.patch)["spec"]["suspend"].is_null());
  CHECK(describe(d, false) == "opened, open until 2026-11-22T10:00:00Z");
  // Same override again: nothing to write.
  auto again = decide(merged(object(true, kMarks), *d.patch), in);
  CHECK_FALSE(again.patch);
  // On an object that is already open, only the override is written.
  auto settled = decide(object(nullptr), in);
  CHECK(settled.outcome == Outcome::kAlreadyOpen);
  REQUIRE(settled.patch);
  CHECK_FALSE(settled.patch->contains("spec"));
  CHECK(settled.event_reason == "WindowUpdated");
}

TEST_CASE("close --for freezes closed; a plain open or close clears the override") {
  PlanInput in = input(Action::kClose);
  in.override_mode = OverrideMode::kSet;
  in.override_until = "2026-11-22T20:00:00Z";
  json obj = object(nullptr);
  auto d = decide(obj, in);
  json after = merged(obj, *d.patch);
  CHECK(read_state(after).override_state == "closed");
  CHECK(read_state(after).marked);
  auto plain_open = decide(after, input(Action::kOpen));
  json opened = merged(after, *plain_open.patch);
  CHECK_FALSE(read_state(opened).has_override);
  CHECK_FALSE(read_state(opened).suspended);
  CHECK(describe(plain_open, false) == "opened, override cleared");
  PlanInput keep = input(Action::kClose);
  keep.override_mode = OverrideMode::kKeep;
  CHECK_FALSE(decide(after, keep).patch);
}

TEST_CASE("sync verdict: an active override wins, an expired one is dropped") {
  SysTime now = *parse_rfc3339("2026-11-22T08:00:00Z");
  ObjectState none;
  CHECK(sync_verdict(none, true, now).action == Action::kOpen);
  CHECK(sync_verdict(none, false, now).action == Action::kClose);
  CHECK(sync_verdict(none, false, now).override_mode == OverrideMode::kKeep);
  CHECK(sync_verdict(none, false, now).cause == "window closed");

  ObjectState active;
  active.override_state = "open";
  active.override_until = "2026-11-22T10:00:00Z";
  active.has_override = true;
  auto v = sync_verdict(active, false, now);
  CHECK(v.action == Action::kOpen);
  CHECK(v.override_mode == OverrideMode::kKeep);
  CHECK(v.cause == "override open until 2026-11-22T10:00:00Z");

  auto expired = sync_verdict(active, false, *parse_rfc3339("2026-11-22T10:00:00Z"));
  CHECK(expired.action == Action::kClose);
  CHECK(expired.override_mode == OverrideMode::kClear);
  CHECK(expired.cause == "window closed (override expired)");

  ObjectState garbage;
  garbage.override_state = "maybe";
  garbage.override_until = "soon";
  garbage.has_override = true;
  auto dropped = sync_verdict(garbage, true, now);
  CHECK(dropped.action == Action::kOpen);
  CHECK(dropped.override_mode == OverrideMode::kClear);
  CHECK(dropped.cause == "window open (unreadable override dropped)");
}

TEST_CASE("an override until a time beyond 2262 never expires; one before 1677 has (F3)") {
  SysTime now = *parse_rfc3339("2026-11-22T08:00:00Z");
  ObjectState frozen;
  frozen.override_state = "closed";
  frozen.override_until = "9999-12-31T23:59:59Z";  // read as 1816 before: expired, and sync opened
  frozen.has_override = true;
  auto v = sync_verdict(frozen, true, now);
  CHECK(v.action == Action::kClose);
  CHECK(v.override_active);
  CHECK(v.cause == "override closed until 9999-12-31T23:59:59Z");
  CHECK(sync_verdict(frozen, true, SysTime::max() - std::chrono::nanoseconds(1)).override_active);
  frozen.override_until = "1000-01-01T00:00:00Z";
  auto old = sync_verdict(frozen, true, now);
  CHECK(old.action == Action::kOpen);
  CHECK(old.override_dropped == "override expired");
}

TEST_CASE("sync converges: applying its decision and deciding again writes nothing") {
  SysTime now = *parse_rfc3339("2026-11-22T08:00:00Z");
  const json override_open = {{kOverrideAnnotation, "open"}, {kOverrideUntilAnnotation, "2026-11-22T09:00:00Z"}};
  const json override_expired = {{kOverrideAnnotation, "closed"}, {kOverrideUntilAnnotation, "2026-11-22T07:00:00Z"}};
  for (const json& suspend : {json(nullptr), json(true)})
    for (const json& ann : {json::object(), kMarks, override_open, override_expired})
      for (bool window_open : {false, true}) {
        json obj = object(suspend, ann);
        SyncVerdict v = sync_verdict(read_state(obj), window_open, now);
        PlanInput in = input(v.action);
        in.override_mode = v.override_mode;
        in.cause = v.cause;
        auto d = decide(obj, in);
        json after = d.patch ? merged(obj, *d.patch) : obj;
        SyncVerdict v2 = sync_verdict(read_state(after), window_open, now);
        PlanInput in2 = input(v2.action);
        in2.override_mode = v2.override_mode;
        CAPTURE(obj.dump());
        CAPTURE(window_open);
        CHECK_FALSE(decide(after, in2).patch);
        if (d.outcome != Outcome::kHeld) CHECK(read_state(after).suspended == (v.action == Action::kClose));
      }
}

TEST_CASE("adopt marks someone else's suspension exactly as close would have") {
  json obj = object(true, {{kReasonAnnotation, "stale"}});
  auto d = decide(obj, input(Action::kAdopt, false, false, "migrated from flux-cli jobs"));
  CHECK(d.outcome == Outcome::kAdopted);
  REQUIRE(d.patch);
  CHECK(*d.patch == json::parse(R"({"metadata":{"resourceVersion":"42","annotations":{
      "windowctl.io/suspended-by":"windowctl","windowctl.io/suspended-at":"2026-11-22T08:00:00Z",
      "windowctl.io/reason":"migrated from flux-cli jobs","windowctl.io/flux-reason":"",
      "fluxcd.controlplane.io/suspendedBy":"windowctl"}}})"));
  CHECK(d.event_reason == "WindowAdopted");
  CHECK(d.event_type == "Normal");
  CHECK(describe(d, false) == "adopted");
  CHECK(describe(d, true) == "would adopt");
  CHECK(outcome_code(d.outcome) == "adopted");
  // The next open resumes it: it is no longer held.
  json adopted = merged(obj, *d.patch);
  CHECK(decide(adopted, input(Action::kOpen)).outcome == Outcome::kOpened);
  CHECK(decide(obj, input(Action::kOpen)).outcome == Outcome::kHeld);
  // Without --reason, a stale reason goes, as with close.
  auto plain = decide(obj, input(Action::kAdopt));
  CHECK((*plain.patch)["metadata"]["annotations"][kReasonAnnotation].is_null());

  auto running = decide(object(nullptr, kMarks), input(Action::kAdopt));
  CHECK(running.outcome == Outcome::kAlreadyOpen);
  CHECK_FALSE(running.patch);
  CHECK(describe(running, false) == "already open, nothing to adopt");
  auto ours = decide(object(true, kMarks), input(Action::kAdopt));
  CHECK(ours.outcome == Outcome::kAlreadyClosed);
  CHECK_FALSE(ours.patch);
  CHECK(describe(ours, false) == "already closed, already marked by windowctl");
  // Overrides are not adopt's business.
  json with_override =
      object(true, {{kOverrideAnnotation, "closed"}, {kOverrideUntilAnnotation, "2026-11-22T20:00:00Z"}});
  auto kept = decide(with_override, input(Action::kAdopt));
  CHECK_FALSE((*kept.patch)["metadata"]["annotations"].contains(kOverrideAnnotation));
}

TEST_CASE("--scheduled: an active override wins over the job, an expired one is dropped") {
  SysTime now = *parse_rfc3339("2026-11-22T08:00:00Z");
  const json closed_override = {{kSuspendedByAnnotation, "windowctl"},
                                {kOverrideAnnotation, "closed"},
                                {kOverrideUntilAnnotation, "2026-11-22T20:00:00Z"},
                                {kOverrideByAnnotation, "alice"},
                                {kOverrideReasonAnnotation, "freeze"}};
  json frozen = object(true, closed_override);

  // The scheduled open keeps it closed, writes nothing, and says why.
  PlanInput open = scheduled_input(read_state(frozen), input(Action::kOpen), now);
  CHECK(open.action == Action::kClose);
  CHECK(open.override_mode == OverrideMode::kKeep);
  auto d = decide(frozen, open);
  CHECK(d.outcome == Outcome::kAlreadyClosed);
  CHECK_FALSE(d.patch);
  CHECK(describe(d, false) ==
        "already closed, kept closed by override closed until 2026-11-22T20:00:00Z by alice (freeze)");

  // The scheduled close agrees with the override: it stays, and the output names it.
  PlanInput close = scheduled_input(read_state(frozen), input(Action::kClose), now);
  CHECK(close.action == Action::kClose);
  CHECK(describe(decide(frozen, close), false) ==
        "already closed, override closed until 2026-11-22T20:00:00Z by alice (freeze)");

  // After expiry the scheduled open opens and drops the override, in one patch.
  SysTime later = *parse_rfc3339("2026-11-22T20:00:00Z");
  PlanInput expired = scheduled_input(read_state(frozen), input(Action::kOpen), later);
  CHECK(expired.action == Action::kOpen);
  CHECK(expired.override_mode == OverrideMode::kClear);
  CHECK(expired.cause == "scheduled, override expired");
  auto opened = decide(frozen, expired);
  CHECK(opened.outcome == Outcome::kOpened);
  json after = merged(frozen, *opened.patch);
  CHECK_FALSE(read_state(after).has_override);
  CHECK_FALSE(read_state(after).suspended);
  CHECK(opened.event_message == "Resumed by windowctl: window opened (scheduled, override expired)");

  // An emergency open (override open) survives the scheduled close.
  json emergency = object(nullptr, {{kOverrideAnnotation, "open"}, {kOverrideUntilAnnotation, "2026-11-22T10:00:00Z"}});
  PlanInput sclose = scheduled_input(read_state(emergency), input(Action::kClose), now);
  auto kept = decide(emergency, sclose);
  CHECK(kept.outcome == Outcome::kAlreadyOpen);
  CHECK_FALSE(kept.patch);
  CHECK(describe(kept, false) == "already open, kept open by override open until 2026-11-22T10:00:00Z");

  // Without an override, --scheduled is the plain action; the Event says it was scheduled.
  json plain = object(nullptr);
  PlanInput none = scheduled_input(read_state(plain), input(Action::kClose, false, false, "scheduled window"), now);
  CHECK(none.action == Action::kClose);
  CHECK(none.override_mode == OverrideMode::kKeep);
  auto closed = decide(plain, none);
  CHECK(closed.outcome == Outcome::kClosed);
  CHECK(closed.event_message == "Suspended by windowctl: window closed (scheduled): scheduled window");
}

TEST_CASE("patch_visible: the object shows every change of the patch, its precondition aside") {
  json object = {{"metadata",
                  {{"name", "apps-rw"},
                   {"resourceVersion", "9"},
                   {"annotations", {{"windowctl.io/suspended-by", "windowctl"}, {"windowctl.io/suspended-at", "T1"}}}}},
                 {"spec", {{"suspend", true}, {"path", "./apps"}}}};
  json patch = {{"metadata",
                 {{"resourceVersion", "7"},
                  {"annotations",
                   {{"windowctl.io/suspended-by", "windowctl"},
                    {"windowctl.io/suspended-at", "T1"},
                    {"windowctl.io/reason", nullptr}}}}},
                {"spec", {{"suspend", true}}}};
  CHECK(patch_visible(object, patch));
  // Someone else's close at another time is not windowctl's write.
  object["metadata"]["annotations"]["windowctl.io/suspended-at"] = "T0";
  CHECK_FALSE(patch_visible(object, patch));
  object["metadata"]["annotations"]["windowctl.io/suspended-at"] = "T1";
  // A key the patch removes must be gone.
  object["metadata"]["annotations"]["windowctl.io/reason"] = "old";
  CHECK_FALSE(patch_visible(object, patch));
  object["metadata"]["annotations"].erase("windowctl.io/reason");
  object["spec"]["suspend"] = false;
  CHECK_FALSE(patch_visible(object, patch));
  CHECK_FALSE(patch_visible(json::array(), patch));
  CHECK_FALSE(patch_visible(json{{"metadata", "x"}, {"spec", {{"suspend", true}}}}, patch));
  // A patch of the precondition alone changes nothing, so any object shows it.
  CHECK(patch_visible(json::object(), json{{"metadata", {{"resourceVersion", "1"}}}}));
}

TEST_CASE("patch_visible: every patch decide() makes is visible in the object it produces") {
  json object = {{"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}, {"resourceVersion", "3"}}},
                 {"spec", {{"suspend", false}}}};
  for (Action action : {Action::kClose, Action::kOpen, Action::kRelabel, Action::kAdopt}) {
    PlanInput in;
    in.action = action;
    in.now = "2026-11-24T00:00:00Z";
    in.token = "2026-11-24T00:00:00.123456789Z";
    in.relabel = true;
    in.label_value = action == Action::kOpen ? "enabled" : "disabled";
    in.force = true;
    for (int round = 0; round < 2; ++round) {
      Decision d = decide(object, in);
      if (!d.patch) continue;
      CHECK_FALSE(patch_visible(object, *d.patch));
      object.merge_patch(*d.patch);
      CHECK(patch_visible(object, *d.patch));
    }
  }
}

TEST_CASE("Flux's suspend reason: close writes it, open removes it, held quotes it") {
  // close: the --reason, else windowctl's default text, as `flux suspend --reason` would.
  auto d = decide(object(nullptr), input(Action::kClose, false, false, "INC-7"));
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonAnnotation) == "INC-7");
  d = decide(object(nullptr), input(Action::kClose));
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonAnnotation) == kDefaultFluxReason);
  // Already suspended: nothing is written, someone else's reason stays.
  CHECK_FALSE(
      decide(object(true, {{kFluxReasonAnnotation, "theirs"}}), input(Action::kClose, false, false, "mine")).patch);

  // open resumes and removes it, as `flux resume` does.
  json marks = kMarks;
  marks[kFluxReasonAnnotation] = "weekly";
  d = decide(object(true, marks), input(Action::kOpen));
  CHECK(d.outcome == Outcome::kOpened);
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonAnnotation).is_null());
  CHECK_FALSE(merged(object(true, marks), *d.patch)["metadata"]["annotations"].contains(kFluxReasonAnnotation));
  // A stale one on a running object goes too.
  d = decide(object(nullptr, {{kFluxReasonAnnotation, "old"}}), input(Action::kOpen));
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonAnnotation).is_null());
  CHECK(describe(d, false) == "already open, stale marks cleared");
  // Nothing to remove: no write.
  CHECK_FALSE(decide(object(nullptr), input(Action::kOpen)).patch);

  // Held: the reason someone else gave is quoted in the line and the Event, and left in place.
  d = decide(object(true, {{kFluxReasonAnnotation, "DB migration \"v2\""}}), input(Action::kOpen));
  CHECK(d.outcome == Outcome::kHeld);
  CHECK_FALSE(d.patch);
  CHECK(describe(d, false) == R"(held: suspended by someone else, reason "DB migration \"v2\"")");
  CHECK(
      d.event_message ==
      R"(Left suspended: suspended by someone else, not windowctl (open --force resumes it); their reason: "DB migration \"v2\"")");
  // Without one, the line is as before.
  CHECK(describe(decide(object(true), input(Action::kOpen)), false) == "held: suspended by someone else");
  // A reason that is not a string is no reason.
  CHECK(describe(decide(object(true, {{kFluxReasonAnnotation, 5}}), input(Action::kOpen)), false) ==
        "held: suspended by someone else");
  // adopt leaves their reason as it is.
  d = decide(object(true, {{kFluxReasonAnnotation, "theirs"}}), input(Action::kAdopt));
  REQUIRE(d.patch);
  CHECK_FALSE(d.patch->at("/metadata/annotations"_json_pointer).contains(kFluxReasonAnnotation));
}

TEST_CASE("a quoted reason is capped on a character boundary") {
  CHECK(quote_reason("") == "");
  CHECK(quote_reason("short") == "\"short\"");
  std::string long_reason(300, 'x');
  std::string q = quote_reason(long_reason);
  CHECK(q == "\"" + std::string(kQuotedReasonMax - 3, 'x') + "...\"");
  // Multi-byte characters are never cut in half; invalid bytes still serialise.
  std::string umlauts;
  for (int i = 0; i < 150; ++i) umlauts += "\xC3\xA4";
  q = quote_reason(umlauts);
  CHECK(q.size() <= kQuotedReasonMax + 2);
  CHECK(json::parse(q).get<std::string>().size() % 2 == 1);  // whole "ä"s plus "..."
  CHECK_NOTHROW(json::parse(quote_reason("bad \xFF byte")));
  CHECK(quote_reason("line\nbreak") == "\"line\\nbreak\"");
}

namespace {

// A managedFields entry as the API server writes it for an Update: fieldsV1 as a trie.
json entry(const std::string& manager, const std::string& time, bool suspend, bool reason,
           const std::string& subresource = "") {
  json fields = json::object();
  if (suspend) fields["f:spec"]["f:suspend"] = json::object();
  if (reason) fields["f:metadata"]["f:annotations"][std::string("f:") + kFluxReasonAnnotation] = json::object();
  if (!suspend && !reason) fields["f:metadata"]["f:labels"]["f:team"] = json::object();
  json e = {{"manager", manager}, {"operation", "Update"},    {"apiVersion", "kustomize.toolkit.fluxcd.io/v1"},
            {"time", time},       {"fieldsType", "FieldsV1"}, {"fieldsV1", fields}};
  if (!subresource.empty()) e["subresource"] = subresource;
  return e;
}

// What close leaves on the object at 2026-11-19T17:00:00Z with --reason weekly.
// `managed` is a vector: a braced json of one json element is that element under clang (CWG 1467),
// an array of it under gcc.
json closed_by_windowctl(json extra_annotations = json::object(), std::vector<json> managed = {}) {
  json ann = kMarks;
  ann[kFluxReasonAnnotation] = "weekly";
  ann[kFluxReasonRecordAnnotation] = "weekly";
  if (extra_annotations.is_object()) ann.update(extra_annotations);
  json o = object(true, ann);
  managed.insert(managed.begin(), entry("windowctl", "2026-11-19T17:00:00Z", true, true));
  o["metadata"]["managedFields"] = managed;
  return o;
}

}  // namespace

TEST_CASE("held: flux suspend --reason over windowctl's suspension (the incident) is held, named, and forced") {
  // `flux suspend --reason "INC-999 do not resume"` on the already suspended object: only the
  // reason changes, so flux (its User-Agent's manager) owns the reason and windowctl spec.suspend.
  json incident = closed_by_windowctl({{kFluxReasonAnnotation, "INC-999 do not resume"}},
                                      {entry("flux", "2026-11-20T03:12:00Z", false, true)});
  ObjectState s = read_state(incident);
  CHECK(s.windowctl_mark);
  CHECK_FALSE(s.marked);
  CHECK(s.holder.after_windowctl);
  CHECK(s.holder.by == "flux");
  CHECK(s.holder.since == "2026-11-20T03:12:00Z");
  auto d = decide(incident, input(Action::kOpen, false, false, "window open"));
  CHECK(d.outcome == Outcome::kHeld);
  CHECK_FALSE(d.patch);
  CHECK(
      describe(d, false) ==
      R"(held: suspended by someone else (flux changed the suspend reason after windowctl suspended it), reason "INC-999 do not resume")");
  CHECK(d.event_reason == "WindowOpenHeld");
  CHECK(d.event_type == "Warning");
  CHECK(
      d.event_message ==
      R"(Left suspended: suspended by someone else (flux changed the suspend reason after windowctl suspended it), not windowctl (open --force resumes it); their reason: "INC-999 do not resume": window open)");
  // sync and --scheduled decide with the same open: held too.
  SysTime now = *parse_rfc3339("2026-11-20T08:00:00Z");
  CHECK(decide(incident, scheduled_input(s, input(Action::kOpen), now)).outcome == Outcome::kHeld);
  SyncVerdict v = sync_verdict(s, true, now);
  CHECK(decide(incident, input(v.action)).outcome == Outcome::kHeld);
  // close: already closed, nothing written, their reason stays.
  CHECK_FALSE(decide(incident, input(Action::kClose)).patch);

  // --force resumes and leaves no mark, record or reason behind.
  auto forced = decide(incident, input(Action::kOpen, true));
  CHECK(forced.outcome == Outcome::kOpened);
  REQUIRE(forced.patch);
  const json& ann = forced.patch->at("/metadata/annotations"_json_pointer);
  for (const char* key : {kSuspendedByAnnotation, kSuspendedAtAnnotation, kReasonAnnotation,
                          kFluxReasonRecordAnnotation, kFluxReasonAnnotation})
    CHECK(ann.at(key).is_null());
  CHECK(forced.event_message == "Resumed by windowctl --force: it was suspended by someone else");

  // adopt makes it windowctl's again: the record takes their reason, the next open resumes it.
  PlanInput adopt = input(Action::kAdopt, false, false, "INC-999 done");
  adopt.now = "2026-11-20T09:00:00Z";
  auto adopted = decide(incident, adopt);
  CHECK(adopted.outcome == Outcome::kAdopted);
  REQUIRE(adopted.patch);
  CHECK(adopted.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonRecordAnnotation) ==
        "INC-999 do not resume");
  CHECK(adopted.event_message ==
        "Adopted by windowctl: suspended by someone else (flux changed the suspend reason after windowctl suspended "
        "it), now marked as closed by windowctl, so the next open resumes it: INC-999 done");
  json after = merged(incident, *adopted.patch);
  CHECK(read_state(after).marked);
  CHECK(decide(after, input(Action::kOpen)).outcome == Outcome::kOpened);
  CHECK(decide(after, input(Action::kAdopt)).outcome == Outcome::kAlreadyClosed);
}

TEST_CASE("held: each rule alone, with who and why") {
  // 1. The reason changed and nothing says who (no managedFields, e.g. a server that strips them).
  json reason_only = closed_by_windowctl({{kFluxReasonAnnotation, "INC-999"}});
  auto d = decide(reason_only, input(Action::kOpen));
  CHECK(
      describe(d, false) ==
      R"(held: suspended by someone else (the suspend reason changed after windowctl suspended it), reason "INC-999")");
  // ... removed counts: flux resume and a suspend without --reason leave none.
  json reason_gone = closed_by_windowctl();
  reason_gone["metadata"]["annotations"].erase(kFluxReasonAnnotation);
  CHECK(decide(reason_gone, input(Action::kOpen)).outcome == Outcome::kHeld);
  // 2. Resumed and suspended again in the Flux Operator's UI (it skips objects already suspended).
  json operator_ui = closed_by_windowctl({{kOperatorSuspendedByAnnotation, "alice@example.com"}},
                                         {entry("flux-operator-web", "2026-11-20T03:00:00Z", true, false)});
  d = decide(operator_ui, input(Action::kOpen));
  CHECK(
      describe(d, false) ==
      R"(held: suspended by someone else (alice@example.com suspended it in the Flux Operator after windowctl did), reason "weekly")");
  CHECK(read_state(operator_ui).holder.who() == "alice@example.com via Flux Operator");
  // 3. spec.suspend written by another manager after windowctl: kubectl patch (resume, suspend).
  json kubectl = closed_by_windowctl({}, {entry("kubectl-patch", "2026-11-20T03:00:00Z", true, false)});
  kubectl["metadata"]["managedFields"][0] = entry("windowctl", "2026-11-19T17:00:00Z", false, true);
  d = decide(kubectl, input(Action::kOpen));
  CHECK(
      describe(d, false) ==
      R"(held: suspended by someone else (kubectl-patch set spec.suspend after windowctl suspended it), reason "weekly")");
  CHECK(read_state(kubectl).holder.since == "2026-11-20T03:00:00Z");
}

TEST_CASE("held: what is not someone else suspending it again") {
  auto still_ours = [](const json& obj) {
    CAPTURE(obj.dump());
    ObjectState s = read_state(obj);
    CHECK(s.marked);
    CHECK_FALSE(s.holder.after_windowctl);
    CHECK(decide(obj, input(Action::kOpen)).outcome == Outcome::kOpened);
  };
  still_ours(closed_by_windowctl());
  // The parent Kustomization (or helm-controller) owning spec.suspend is Git declaring it: WC002.
  still_ours(closed_by_windowctl({}, {entry("kustomize-controller", "2026-11-20T03:00:00Z", true, false)}));
  still_ours(closed_by_windowctl({}, {entry("helm-controller", "2026-11-20T03:00:00Z", true, false)}));
  // Writes of other fields: a label, the controller's status.
  still_ours(closed_by_windowctl({}, {entry("kubectl-label", "2026-11-20T03:00:00Z", false, false)}));
  still_ours(closed_by_windowctl({}, {entry("kustomize-controller", "2026-11-20T03:00:00Z", true, true, "status")}));
  // windowctl's own later writes (an override, a relabel).
  json own = closed_by_windowctl();
  own["metadata"]["managedFields"][0]["time"] = "2026-11-21T00:00:00Z";
  still_ours(own);
  // Writes before the mark (adopt of a flux suspension), or in its very second.
  still_ours(closed_by_windowctl({}, {entry("flux", "2026-11-19T16:00:00Z", true, true)}));
  still_ours(closed_by_windowctl({}, {entry("flux", "2026-11-19T17:00:00Z", true, true)}));
  // A suspendedBy naming windowctl itself.
  still_ours(closed_by_windowctl({{kOperatorSuspendedByAnnotation, "windowctl"}}));
  // Marks from before the record: their reason cannot be compared (an older adopt kept theirs).
  json legacy = object(true, kMarks);
  legacy["metadata"]["annotations"][kFluxReasonAnnotation] = "DB migration";
  still_ours(legacy);
  // Without a readable suspended-at a later write cannot be told from an earlier one.
  json undated = closed_by_windowctl({}, {entry("flux", "2026-11-20T03:00:00Z", true, false)});
  undated["metadata"]["annotations"][kSuspendedAtAnnotation] = "yesterday";
  still_ours(undated);
  // Malformed managedFields are no writers.
  for (const json& junk : {json("x"), json::array({1, "x", nullptr}), json::array({{{"manager", "flux"}}}),
                           json::array({{{"manager", "flux"}, {"fieldsV1", "f:spec"}}})}) {
    json o = closed_by_windowctl();
    o["metadata"]["managedFields"] = junk;
    still_ours(o);
  }
}

TEST_CASE("held rule, every combination: marked is the mark minus rules 1-3") {
  const std::vector<std::optional<std::string>> flux_reasons = {std::nullopt, "weekly", "INC-999"};
  const std::vector<std::optional<std::string>> records = {std::nullopt, "weekly", ""};
  const std::vector<std::optional<std::string>> operators = {std::nullopt, "windowctl", "alice", ""};
  const std::vector<std::string> managers = {"windowctl", "flux", "kustomize-controller", "helm-controller"};
  const std::vector<std::string> times = {"2026-11-19T16:59:59Z", "2026-11-19T17:00:00Z", "2026-11-19T17:00:01Z",
                                          "not a time"};
  int cases = 0;
  for (bool mark : {false, true})
    for (const auto& flux_reason : flux_reasons)
      for (const auto& record : records)
        for (const auto& op : operators)
          for (const auto& manager : managers)
            for (const auto& time : times)
              for (int owned = 0; owned < 4; ++owned)
                for (bool status_entry : {false, true}) {
                  ++cases;
                  json ann = json::object();
                  if (mark) ann = kMarks;
                  if (flux_reason) ann[kFluxReasonAnnotation] = *flux_reason;
                  if (record) ann[kFluxReasonRecordAnnotation] = *record;
                  if (op) ann[kOperatorSuspendedByAnnotation] = *op;
                  json obj = object(true, ann);
                  const bool suspend = owned & 1, reason = owned & 2;
                  obj["metadata"]["managedFields"] =
                      json::array({entry(manager, time, suspend, reason, status_entry ? "status" : "")});
                  CAPTURE(obj.dump());
                  ObjectState s = read_state(obj);
                  // The rule, restated.
                  const bool rule1 = record && *record != flux_reason.value_or("");
                  const bool rule2 = op && *op != "windowctl";
                  const bool rule3 =
                      (suspend || reason) && !status_entry && manager == "flux" && time == "2026-11-19T17:00:01Z";
                  CHECK(s.marked == (mark && !rule1 && !rule2 && !rule3));
                  CHECK(s.holder.after_windowctl == (mark && (rule1 || rule2 || rule3)));
                  // Who: the Flux Operator's user first, then a manager that wrote after the mark.
                  if (mark && rule2) CHECK(s.holder.by == *op);
                  if (mark && !rule2 && rule3) CHECK(s.holder.by == "flux");
                  if (mark && !rule2 && !rule3) CHECK(s.holder.by.empty());
                  // Unmarked: anyone who owns spec.suspend, Flux's appliers too (they name Git as the cause).
                  if (!mark && !rule2) {
                    const bool named = suspend && !status_entry && manager != "windowctl";
                    CHECK(s.holder.by == (named ? manager : ""));
                  }
                  auto d = decide(obj, input(Action::kOpen));
                  CHECK((d.outcome == Outcome::kHeld) == !s.marked);
                  CHECK(d.held == s.holder.detail);
                  if (d.outcome == Outcome::kHeld) CHECK_FALSE(d.patch);
                  // adopt always leaves it windowctl's.
                  auto a = decide(obj, input(Action::kAdopt));
                  json adopted = a.patch ? merged(obj, *a.patch) : obj;
                  CHECK(read_state(adopted).marked);
                  CHECK_FALSE(decide(adopted, input(Action::kAdopt)).patch);
                }
  CHECK(cases == 2 * 3 * 3 * 4 * 4 * 4 * 4 * 2);
  // A server clock ahead of windowctl's: adopt marks it no earlier than the write it adopts, so
  // it is windowctl's at once and a second adopt writes nothing.
  json ahead = closed_by_windowctl({}, {entry("kubectl-patch", "2026-11-22T08:00:05Z", true, false)});
  auto a = decide(ahead, input(Action::kAdopt));
  REQUIRE(a.patch);
  CHECK(a.patch->at("/metadata/annotations"_json_pointer).at(kSuspendedAtAnnotation) == "2026-11-22T08:00:05Z");
  CHECK(read_state(merged(ahead, *a.patch)).marked);
}

TEST_CASE(
    "close records the Flux reason it writes and names itself over a stale Flux Operator suspender; open clears both") {
  auto d = decide(object(nullptr, {{kOperatorSuspendedByAnnotation, "alice"}}), input(Action::kClose));
  REQUIRE(d.patch);
  const json& ann = d.patch->at("/metadata/annotations"_json_pointer);
  CHECK(ann.at(kFluxReasonRecordAnnotation) == kDefaultFluxReason);
  CHECK(ann.at(kOperatorSuspendedByAnnotation) == kSuspendedByValue);
  CHECK(read_state(merged(object(nullptr, {{kOperatorSuspendedByAnnotation, "alice"}}), *d.patch)).marked);
  auto stale = decide(object(nullptr, {{kOperatorSuspendedByAnnotation, "alice"}}), input(Action::kOpen));
  REQUIRE(stale.patch);
  CHECK(stale.patch->at("/metadata/annotations"_json_pointer).at(kOperatorSuspendedByAnnotation).is_null());
  CHECK(describe(stale, false) == "already open, stale marks cleared");
}

TEST_CASE("someone else's suspension names them when the object does") {
  json kubectl = object(true, {{kFluxReasonAnnotation, "DB migration"}});
  kubectl["metadata"]["managedFields"] = json::array(
      {entry("kubectl-patch", "2026-11-20T03:00:00Z", true, false), entry("flux", "2026-11-20T04:00:00Z", false, true),
       entry("kubectl-edit", "2026-11-19T03:00:00Z", true, false)});  // not possible, but the latest wins
  auto d = decide(kubectl, input(Action::kOpen));
  CHECK(describe(d, false) == R"(held: suspended by someone else (kubectl-patch), reason "DB migration")");
  CHECK(read_state(kubectl).holder.since == "2026-11-20T03:00:00Z");
  json ui = object(true, {{kOperatorSuspendedByAnnotation, "bob"}});
  CHECK(describe(decide(ui, input(Action::kOpen)), false) == "held: suspended by someone else (bob via Flux Operator)");
  json anonymous = object(true, {{kOperatorSuspendedByAnnotation, ""}});
  CHECK(describe(decide(anonymous, input(Action::kOpen)), false) ==
        "held: suspended by someone else (someone via Flux Operator)");
  // adopt names windowctl as the Flux Operator's suspender: the suspension is windowctl's now.
  auto a = decide(ui, input(Action::kAdopt));
  REQUIRE(a.patch);
  CHECK(a.patch->at("/metadata/annotations"_json_pointer).at(kOperatorSuspendedByAnnotation) == kSuspendedByValue);
  CHECK(read_state(merged(ui, *a.patch)).marked);
}

TEST_CASE("override_expired and desired_action: what status compares the object with") {
  SysTime now = *parse_rfc3339("2026-11-22T08:00:00Z");
  ObjectState s;
  CHECK_FALSE(override_expired(s, now));
  CHECK_FALSE(desired_action(s, std::nullopt, now));
  CHECK(desired_action(s, true, now) == Action::kOpen);
  CHECK(desired_action(s, false, now) == Action::kClose);
  s.override_state = "closed";
  s.override_until = "2026-11-22T09:00:00Z";
  s.has_override = true;
  CHECK(override_expired(s, now) == false);
  CHECK(desired_action(s, std::nullopt, now) == Action::kClose);
  CHECK(desired_action(s, true, now) == Action::kClose);  // the override wins over the window, as in sync
  CHECK(override_expired(s, *parse_rfc3339("2026-11-22T09:00:00Z")) == true);
  CHECK_FALSE(desired_action(s, std::nullopt, *parse_rfc3339("2026-11-22T09:00:00Z")));
  CHECK(desired_action(s, true, *parse_rfc3339("2026-11-22T09:00:00Z")) == Action::kOpen);
  s.override_until = "soon";
  CHECK_FALSE(override_expired(s, now));
  s.override_until = "2026-11-22T09:00:00Z";
  s.override_state = "maybe";
  CHECK_FALSE(override_expired(s, now));
  CHECK_FALSE(desired_action(s, std::nullopt, now));
}

TEST_CASE("quote_reason: a shorter cut for the status table") {
  CHECK(quote_reason("INC-999 do not resume", 10) == "\"INC-999...\"");
  CHECK(quote_reason("short", 10) == "\"short\"");
  CHECK(quote_reason("abcdef", 1) == "\"a...\"");  // at least 4
}

namespace {

PlanInput governed(Action a, std::string next_open, std::string next_close, std::string window_reason = "",
                   std::string reason = "") {
  PlanInput in = input(a, false, false, std::move(reason));
  in.edges = true;
  in.next_open = std::move(next_open);
  in.next_close = std::move(next_close);
  in.window_reason = std::move(window_reason);
  return in;
}

const char* const kWhy = "windowctl: window closed until 2026-11-30 08:00 Europe/Zurich (Christmas freeze)";

}  // namespace

TEST_CASE("close while the window is closed: Flux's reason as a person says it, recorded for the held rule") {
  auto d = decide(object(nullptr), governed(Action::kClose, "2026-11-30T07:00:00Z", "2026-11-30T11:00:00Z", kWhy));
  REQUIRE(d.patch);
  const json& ann = d.patch->at("/metadata/annotations"_json_pointer);
  CHECK(ann.at(kFluxReasonAnnotation) == kWhy);
  CHECK(ann.at(kFluxReasonRecordAnnotation) == kWhy);
  CHECK(ann.at(kOperatorSuspendedByAnnotation) == kSuspendedByValue);
  CHECK(ann.at(kNextOpenAnnotation) == "2026-11-30T07:00:00Z");
  CHECK(ann.at(kNextCloseAnnotation) == "2026-11-30T11:00:00Z");
  CHECK(describe(d, false) == "closed");  // the edges move with every open and close: no note
  json after = merged(object(nullptr), *d.patch);
  ObjectState s = read_state(after);
  CHECK(s.marked);
  CHECK_FALSE(s.holder.after_windowctl);
  // A second tick with the same window writes nothing.
  CHECK_FALSE(decide(after, governed(Action::kClose, "2026-11-30T07:00:00Z", "2026-11-30T11:00:00Z", kWhy)).patch);
  // An explicit --reason wins, as today.
  d = decide(object(nullptr), governed(Action::kClose, "2026-11-30T07:00:00Z", "", kWhy, "INC-7"));
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonAnnotation) == "INC-7");
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kFluxReasonRecordAnnotation) == "INC-7");
}

TEST_CASE("sync keeping windowctl's suspension closed updates an outdated window reason, never anyone else's") {
  json closed = kMarks;
  closed.erase(kReasonAnnotation);
  closed[kFluxReasonAnnotation] = kDefaultFluxReason;  // closed before this release
  closed[kFluxReasonRecordAnnotation] = kDefaultFluxReason;
  auto d = decide(object(true, closed), governed(Action::kClose, "2026-12-01T07:00:00Z", "", kWhy));
  CHECK(d.outcome == Outcome::kAlreadyClosed);
  REQUIRE(d.patch);
  const json& ann = d.patch->at("/metadata/annotations"_json_pointer);
  CHECK(ann.at(kFluxReasonAnnotation) == kWhy);
  CHECK(ann.at(kFluxReasonRecordAnnotation) == kWhy);
  CHECK_FALSE(ann.contains(kSuspendedAtAnnotation));  // the suspension is the same one
  CHECK(describe(d, false) == "already closed, reason updated, next open 2026-12-01T07:00:00Z, next close -");
  CHECK(d.event_reason == "WindowUpdated");
  json after = merged(object(true, closed), *d.patch);
  CHECK(read_state(after).marked);
  CHECK_FALSE(decide(after, governed(Action::kClose, "2026-12-01T07:00:00Z", "", kWhy)).patch);
  // Not over an operator's --reason (then or now), nor over a reason someone else wrote since.
  json with_reason = closed;
  with_reason[kReasonAnnotation] = "weekly";
  with_reason[kFluxReasonAnnotation] = "weekly";
  with_reason[kFluxReasonRecordAnnotation] = "weekly";
  CHECK_FALSE(decide(object(true, with_reason), governed(Action::kClose, "", "", kWhy)).patch);
  CHECK_FALSE(decide(object(true, closed), governed(Action::kClose, "", "", kWhy, "INC-7")).patch);
  json theirs = closed;
  theirs[kFluxReasonAnnotation] = "INC-999";
  auto held = decide(object(true, theirs), governed(Action::kClose, "2026-12-01T07:00:00Z", "", kWhy));
  CHECK_FALSE(held.patch);  // someone else's suspension: not even the edges
  // Marks from before the record: the reason is left alone, the edges are written.
  json old = closed;
  old.erase(kFluxReasonRecordAnnotation);
  d = decide(object(true, old), governed(Action::kClose, "2026-12-01T07:00:00Z", "", kWhy));
  REQUIRE(d.patch);
  CHECK_FALSE(d.patch->at("/metadata/annotations"_json_pointer).contains(kFluxReasonAnnotation));
}

TEST_CASE(
    "next-open and next-close: written when they change, removed when beyond the search, only on objects windowctl "
    "governs") {
  json running = object(nullptr, {{kNextOpenAnnotation, "2026-11-30T07:00:00Z"}, {kNextCloseAnnotation, "x"}});
  auto d = decide(running, governed(Action::kOpen, "2026-11-30T07:00:00Z", ""));
  CHECK(d.outcome == Outcome::kAlreadyOpen);
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer) == json{{kNextCloseAnnotation, nullptr}});
  CHECK(describe(d, false) == "already open, next open 2026-11-30T07:00:00Z, next close -");
  CHECK_FALSE(decide(merged(running, *d.patch), governed(Action::kOpen, "2026-11-30T07:00:00Z", "")).patch);
  // Without a governing schedule nothing touches them.
  CHECK_FALSE(decide(running, input(Action::kOpen)).patch);
  // A held open touches nothing; a forced one resumes and writes them.
  json theirs = object(true, {{kOperatorSuspendedByAnnotation, "alice"}});
  d = decide(theirs, governed(Action::kOpen, "a", "b"));
  CHECK(d.outcome == Outcome::kHeld);
  CHECK_FALSE(d.patch);
  CHECK(describe(d, false) == "held: suspended by someone else (alice via Flux Operator)");
  PlanInput forced = governed(Action::kOpen, "a", "b");
  forced.force = true;
  d = decide(theirs, forced);
  REQUIRE(d.patch);
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kNextOpenAnnotation) == "a");
  CHECK(d.patch->at("/metadata/annotations"_json_pointer).at(kOperatorSuspendedByAnnotation).is_null());
  // open removes windowctl's suspendedBy with its marks; the edges stay.
  json mine = kMarks;
  mine[kOperatorSuspendedByAnnotation] = kSuspendedByValue;
  mine[kNextOpenAnnotation] = "a";
  d = decide(object(true, mine), governed(Action::kOpen, "a", "b"));
  REQUIRE(d.patch);
  json after = merged(object(true, mine), *d.patch);
  CHECK_FALSE(after["metadata"]["annotations"].contains(kOperatorSuspendedByAnnotation));
  CHECK(after["metadata"]["annotations"][kNextOpenAnnotation] == "a");
  CHECK(after["metadata"]["annotations"][kNextCloseAnnotation] == "b");
}

TEST_CASE("suspendedBy: windowctl writes its own name, which the held rule reads as windowctl's; a user's is held") {
  auto d = decide(object(nullptr), input(Action::kClose));
  REQUIRE(d.patch);
  json closed = merged(object(nullptr), *d.patch);
  CHECK(closed["metadata"]["annotations"][kOperatorSuspendedByAnnotation] == "windowctl");
  CHECK(read_state(closed).marked);
  CHECK(decide(closed, input(Action::kOpen)).outcome == Outcome::kOpened);
  // The Flux Operator's web UI suspends it again, as alice: held, and the line names her.
  json ui = closed;
  ui["metadata"]["annotations"][kOperatorSuspendedByAnnotation] = "alice@example.com";
  d = decide(ui, input(Action::kOpen));
  CHECK(d.outcome == Outcome::kHeld);
  CHECK(describe(d, false) ==
        "held: suspended by someone else (alice@example.com suspended it in the Flux Operator after windowctl did), "
        "reason \"suspended by windowctl: reconciliation window closed\"");
}

TEST_CASE("every state with a governing schedule: converged after one decision, held objects untouched") {
  std::vector<json> suspends = {nullptr, true};
  json reason_changed = kMarks, operator_suspended = kMarks, window_marks = kMarks;
  reason_changed[kFluxReasonRecordAnnotation] = "weekly";
  reason_changed[kFluxReasonAnnotation] = "INC-999";
  operator_suspended[kOperatorSuspendedByAnnotation] = "alice";
  window_marks.erase(kReasonAnnotation);
  window_marks[kFluxReasonAnnotation] = "windowctl: window closed until earlier";
  window_marks[kFluxReasonRecordAnnotation] = "windowctl: window closed until earlier";
  window_marks[kNextOpenAnnotation] = "2026-11-23T07:00:00Z";
  std::vector<json> annotation_sets = {json::object(), kMarks,
                                       reason_changed, operator_suspended,
                                       window_marks,   {{kNextOpenAnnotation, "old"}, {kNextCloseAnnotation, "old"}}};
  int cases = 0;
  for (const auto& suspend : suspends)
    for (const auto& ann : annotation_sets)
      for (Action action : {Action::kOpen, Action::kClose})
        for (const char* open : {"", "2026-11-30T07:00:00Z"})
          for (const char* close : {"", "2026-11-30T11:00:00Z"})
            for (const char* why : {"", kWhy}) {
              ++cases;
              json obj = object(suspend, ann);
              PlanInput in = governed(action, open, close, action == Action::kClose ? why : "");
              auto d = decide(obj, in);
              CAPTURE(obj.dump());
              CAPTURE(static_cast<int>(action));
              ObjectState before = read_state(obj);
              json after = d.patch ? merged(obj, *d.patch) : obj;
              ObjectState s = read_state(after);
              CHECK_FALSE(decide(after, in).patch);
              const bool theirs = before.suspended && !before.marked;
              if (theirs) {
                CHECK(after == obj);
                continue;
              }
              CHECK(s.suspended == (action == Action::kClose));
              if (action == Action::kClose) CHECK(s.marked);  // whatever windowctl wrote, it is still its own
              const json& a = after["metadata"].value("annotations", json::object());
              CHECK(a.value(kNextOpenAnnotation, std::string()) == open);
              CHECK(a.value(kNextCloseAnnotation, std::string()) == close);
              if (action == Action::kClose && *why && s.reason.empty()) CHECK(s.flux_reason == why);
            }
  CHECK(cases == 2 * 6 * 2 * 2 * 2 * 2);
}

namespace {

constexpr Pause kOperatorPause{"fluxcd.controlplane.io/reconcile", "disabled", "enabled"};
constexpr Pause kRemovedPause{"source.extensions.fluxcd.io/reconcile", "disabled", nullptr};

// An object of a kind paused by an annotation: VALUE under the pause key (null: absent).
json annotated(const Pause& pause, json value, json annotations = json::object()) {
  json o = object(nullptr, annotations);
  if (!value.is_null()) o["metadata"]["annotations"][pause.annotation] = value;
  return o;
}

}  // namespace

TEST_CASE("a kind paused by an annotation: close writes the paused value, open the running one, spec untouched") {
  auto d = decide(annotated(kOperatorPause, nullptr), input(Action::kClose), kOperatorPause);
  CHECK(d.outcome == Outcome::kClosed);
  REQUIRE(d.patch);
  CHECK_FALSE(d.patch->contains("spec"));
  CHECK((*d.patch)["metadata"]["annotations"]["fluxcd.controlplane.io/reconcile"] == "disabled");
  CHECK((*d.patch)["metadata"]["annotations"][kSuspendedByAnnotation] == "windowctl");
  CHECK((*d.patch)["metadata"]["annotations"][kOperatorSuspendedByAnnotation] == "windowctl");
  json closed = merged(annotated(kOperatorPause, nullptr), *d.patch);
  CHECK(read_state(closed, kOperatorPause).suspended);
  CHECK(read_state(closed, kOperatorPause).marked);
  CHECK_FALSE(read_state(closed).suspended);  // as spec.suspend reads it: running
  d = decide(closed, input(Action::kOpen), kOperatorPause);
  CHECK(d.outcome == Outcome::kOpened);
  CHECK(d.wait_for_token);
  REQUIRE(d.patch);
  CHECK_FALSE(d.patch->contains("spec"));
  CHECK((*d.patch)["metadata"]["annotations"]["fluxcd.controlplane.io/reconcile"] == "enabled");
  CHECK((*d.patch)["metadata"]["annotations"][kRequestedAtAnnotation] == "2026-11-22T08:00:00.000000001Z");
  CHECK((*d.patch)["metadata"]["annotations"][kOperatorSuspendedByAnnotation].is_null());
  // A kind whose controller expects the annotation gone: open removes it.
  json ag = merged(annotated(kRemovedPause, nullptr),
                   *decide(annotated(kRemovedPause, nullptr), input(Action::kClose), kRemovedPause).patch);
  CHECK(ag["metadata"]["annotations"]["source.extensions.fluxcd.io/reconcile"] == "disabled");
  d = decide(ag, input(Action::kOpen), kRemovedPause);
  REQUIRE(d.patch);
  CHECK((*d.patch)["metadata"]["annotations"]["source.extensions.fluxcd.io/reconcile"].is_null());
  CHECK_FALSE(merged(ag, *d.patch)["metadata"]["annotations"].contains("source.extensions.fluxcd.io/reconcile"));
}

TEST_CASE("a kind paused by an annotation: its value in any case pauses, as the controllers compare it") {
  for (const char* v : {"disabled", "Disabled", "DISABLED"})
    CHECK(read_state(annotated(kOperatorPause, v), kOperatorPause).suspended);
  for (const char* v : {"enabled", "", "disabled ", "false"})
    CHECK_FALSE(read_state(annotated(kOperatorPause, v), kOperatorPause).suspended);
  // spec.suspend means nothing to these kinds.
  json o = annotated(kOperatorPause, nullptr);
  o["spec"]["suspend"] = true;
  CHECK_FALSE(read_state(o, kOperatorPause).suspended);
}

TEST_CASE("a pause annotation that is not a string is named, never read as running") {
  for (json bad : {json(true), json(1), json::object(), json::array(), json(nullptr)}) {
    json o = object(nullptr, {{"fluxcd.controlplane.io/reconcile", bad}});
    CAPTURE(o.dump());
    ObjectState s = read_state(o, kOperatorPause);
    CHECK(s.problem.find("fluxcd.controlplane.io/reconcile is a JSON ") != std::string::npos);
    for (Action a : {Action::kOpen, Action::kClose, Action::kAdopt}) {
      CHECK_THROWS_WITH_AS(decide(o, input(a), kOperatorPause),
                           doctest::Contains("its annotation fluxcd.controlplane.io/reconcile is a JSON"),
                           std::runtime_error);
    }
  }
  // The annotations map itself not an object: named too (a null one is none, as Kubernetes reads it).
  json o = object(nullptr);
  o["metadata"]["annotations"] = "fluxcd.controlplane.io/reconcile=disabled";
  CHECK(read_state(o, kOperatorPause).problem ==
        "its metadata.annotations is a JSON string, not an object: windowctl cannot tell whether it is paused");
  CHECK(read_state(o).problem.empty());  // spec.suspend kinds do not read it for their pause
  o["metadata"]["annotations"] = nullptr;
  CHECK(read_state(o, kOperatorPause).problem.empty());
  CHECK_FALSE(read_state(o, kOperatorPause).suspended);
}

TEST_CASE("a kind paused by an annotation: held by its owner in managedFields, and by the Flux Operator's user") {
  json closed = merged(annotated(kOperatorPause, nullptr),
                       *decide(annotated(kOperatorPause, nullptr), input(Action::kClose), kOperatorPause).patch);
  // Someone else writes the pause annotation after windowctl's mark: held, named by the field.
  json again = closed;
  again["metadata"]["managedFields"] = json::array(
      {{{"manager", "flux-operator-cli"},
        {"operation", "Update"},
        {"time", "2026-11-23T09:00:00Z"},
        {"fieldsV1",
         {{"f:metadata", {{"f:annotations", {{"f:fluxcd.controlplane.io/reconcile", json::object()}}}}}}}}});
  auto d = decide(again, input(Action::kOpen), kOperatorPause);
  CHECK(d.outcome == Outcome::kHeld);
  CHECK(d.held == "flux-operator-cli set fluxcd.controlplane.io/reconcile after windowctl suspended it");
  // The same entry owning spec.suspend says nothing about this kind.
  json spec_owner = closed;
  spec_owner["metadata"]["managedFields"] =
      json::array({{{"manager", "flux"},
                    {"operation", "Update"},
                    {"time", "2026-11-23T09:00:00Z"},
                    {"fieldsV1", {{"f:spec", {{"f:suspend", json::object()}}}}}}});
  CHECK(decide(spec_owner, input(Action::kOpen), kOperatorPause).outcome == Outcome::kOpened);
  // The Flux Operator's web UI pauses it as alice (it writes disabled and suspendedBy).
  json ui = annotated(kOperatorPause, "disabled", {{kOperatorSuspendedByAnnotation, "alice@example.com"}});
  d = decide(ui, input(Action::kOpen), kOperatorPause);
  CHECK(d.outcome == Outcome::kHeld);
  CHECK(d.held == "alice@example.com via Flux Operator");
  CHECK_FALSE(d.patch);
  // Without its user, the latest manager owning the annotation is named.
  json plain = annotated(kOperatorPause, "disabled");
  plain["metadata"]["managedFields"] = again["metadata"]["managedFields"];
  CHECK(read_state(plain, kOperatorPause).holder.detail == "flux-operator-cli");
  // adopt marks it; then open resumes it.
  d = decide(ui, input(Action::kAdopt), kOperatorPause);
  CHECK(d.outcome == Outcome::kAdopted);
  REQUIRE(d.patch);
  json adopted = merged(ui, *d.patch);
  CHECK(adopted["metadata"]["annotations"]["fluxcd.controlplane.io/reconcile"] == "disabled");
  CHECK(decide(adopted, input(Action::kOpen), kOperatorPause).outcome == Outcome::kOpened);
  // open --force resumes someone else's pause.
  CHECK(decide(ui, input(Action::kOpen, true), kOperatorPause).outcome == Outcome::kOpened);
}

TEST_CASE(
    "a kind paused by an annotation, every state and action: the goal is reached and a second decision is a no-op") {
  json operator_suspended = kMarks;
  operator_suspended[kOperatorSuspendedByAnnotation] = "alice";
  int cases = 0;
  for (const Pause* pause : {&kOperatorPause, &kRemovedPause})
    for (json value : {json(nullptr), json("disabled"), json("Disabled"), json("enabled"), json("x")})
      for (const json& ann : {json::object(), kMarks, json{{kReasonAnnotation, "stale"}}, operator_suspended})
        for (Action action : {Action::kOpen, Action::kClose, Action::kAdopt})
          for (bool force : {false, true}) {
            ++cases;
            json obj = annotated(*pause, value, ann);
            PlanInput in = input(action, force, false, "r");
            CAPTURE(obj.dump());
            CAPTURE(static_cast<int>(action));
            const ObjectState before = read_state(obj, *pause);
            auto d = decide(obj, in, *pause);
            json after = d.patch ? merged(obj, *d.patch) : obj;
            const ObjectState s = read_state(after, *pause);
            CHECK(after["spec"] == obj["spec"]);
            if (action == Action::kClose) CHECK(s.suspended);
            if (action == Action::kOpen && d.outcome != Outcome::kHeld) CHECK_FALSE(s.suspended);
            if (action == Action::kOpen && d.outcome == Outcome::kHeld) CHECK(after == obj);
            if (action == Action::kAdopt) CHECK(s.suspended == before.suspended);
            CHECK_FALSE(decide(after, in, *pause).patch);
          }
  CHECK(cases == 2 * 5 * 4 * 3 * 2);
}

TEST_CASE("apply_cutoff: only an open the window decided, with less than the cutoff left, is not opened") {
  using std::chrono::minutes;
  const SysTime now = *parse_rfc3339("2026-11-25T16:57:00Z");
  const SysTime closes = *parse_rfc3339("2026-11-25T17:00:00Z");
  Decision opened;
  opened.outcome = Outcome::kOpened;
  opened.patch = json::object();
  opened.event_reason = "WindowOpened";
  Decision out = apply_cutoff(opened, true, now, closes, minutes(5));
  CHECK(out.outcome == Outcome::kNotOpened);
  CHECK_FALSE(out.patch);
  CHECK(out.event_reason.empty());
  CHECK(describe(out, false) == "not opened, the window closes at 2026-11-25T17:00:00Z, in 3m: within --cutoff 5m");
  CHECK(outcome_code(out.outcome) == "not-opened");
  CHECK(describe(out, true).rfind("would not open", 0) == 0);
  // Exactly the cutoff left, or more: opened.
  CHECK(apply_cutoff(opened, true, now, closes, minutes(3)).outcome == Outcome::kOpened);
  CHECK(apply_cutoff(opened, true, now, closes, minutes(3) + std::chrono::seconds(1)).outcome == Outcome::kNotOpened);
  // Off, an override's open, a window whose close is beyond the search: opened.
  CHECK(apply_cutoff(opened, true, now, closes, minutes(0)).outcome == Outcome::kOpened);
  CHECK(apply_cutoff(opened, false, now, closes, minutes(5)).outcome == Outcome::kOpened);
  CHECK(apply_cutoff(opened, true, now, std::nullopt, minutes(5)).outcome == Outcome::kOpened);
  // Anything but an open is left alone: already open stays open, a close still closes.
  for (Outcome o : {Outcome::kAlreadyOpen, Outcome::kClosed, Outcome::kAlreadyClosed, Outcome::kHeld}) {
    Decision d;
    d.outcome = o;
    CHECK(apply_cutoff(d, true, now, closes, minutes(5)).outcome == o);
  }
}
