// One API object as windowctl reads it (a GET answer, a LIST item, a PATCH answer): its
// identity and revision (kinds), Flux's conditions (readiness), the Event about it (event),
// what a change would do to it (plan), and a discovery document (kinds). Invariants: nothing
// throws; an Event and a patch always serialise; a merge patch once applied is visible
// (patch_visible) and a second decision on the result writes nothing; a discovered version is
// valid and makes a path. The same answers as `check` reads them live (check_online.h): a /version
// document, a SelfSubjectAccessReview, a target's managedFields; the live rules never throw. A
// Kustomization's status.inventory (WC016, check_owners.h): an id that parses splits where
// kustomize-controller joined it; the object as two owners, every finding is WC016 and the
// shared objects' severity follows whether both owners are windowed.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "check_online.h"
#include "check_owners.h"
#include "event.h"
#include "fuzz_util.h"
#include "json_read.h"
#include "kinds.h"
#include "plan.h"
#include "readiness.h"
#include "text.h"

using namespace windowctl;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const KindAdapter& kind = *all_kinds().at(in.ConsumeIntegralInRange<std::size_t>(0, all_kinds().size() - 1));
  const std::string token = in.ConsumeBool() ? in.ConsumeRandomLengthString(40) : "";
  // Free text from the command line (--reason): any bytes, as argv can hold.
  const std::string reason = in.ConsumeRandomLengthString(1100);
  const auto action = static_cast<Action>(in.ConsumeIntegralInRange(0, 3));
  const bool force = in.ConsumeBool(), relabel = in.ConsumeBool();
  const json object = json::parse(in.ConsumeRemainingBytesAsString(), nullptr, false);
  if (object.is_discarded()) return 0;

  const std::string name = metadata_string(object, "name");
  (void)metadata_string(object, "namespace");
  (void)kind.revision(object);
  std::string version = choose_version(kind, object);
  if (!version.empty()) {
    FUZZ_CHECK(valid_api_version(version), version);
    FUZZ_CHECK(collection_path(kind, version, "flux-system").find(version) != std::string::npos);
  }
  ReadyVerdict verdict = evaluate_readiness(object, token);
  if (verdict.state == Readiness::kReady) FUZZ_CHECK(find_condition(object, "Ready").status == "True");
  // A kind's own readiness: Flux's, or for a static kind existence unless a Ready condition says otherwise.
  ReadyVerdict kv = kind_readiness(kind, object, token);
  if (kind.has_status) FUZZ_CHECK(kv.state == verdict.state);
  if (kv.state == Readiness::kReady && !find_condition(object, "Ready").status.empty()) {
    FUZZ_CHECK(find_condition(object, "Ready").status == "True");
  }
  (void)quote_reason(metadata_string(object, "name"));

  if (auto v = parse_server_version(object))
    FUZZ_CHECK(v->first >= 0 && v->second >= 0 && v->first < 10000 && v->second < 10000);
  if (auto review = parse_access_review(object)) FUZZ_CHECK(object.at("status").at("allowed") == review->first);
  LiveFacts facts;
  facts.server = parse_server_version(object);
  facts.jobs.push_back({"CronJob/flux-system/close", true, relabel, "Europe/Zurich", {"Kustomization/flux-system/x"}});
  facts.targets.push_back({"Kustomization/flux-system/x", LiveRead::kFound, "", object, kind.pause});
  for (const auto& f : check_live(facts)) {
    FUZZ_CHECK(f.severity == "error" || f.severity == "warning", f.severity);
    if (f.id == "WC002") FUZZ_CHECK(!relabel && !parent_declaring_suspend(object, kind.pause).empty());
    (void)render_findings({f}, true);
  }

  const json* entries = field_path(object, {"status", "inventory", "entries"});
  for (const auto& e : entries && entries->is_array() ? *entries : json::array()) {
    const json* id = e.is_object() ? field(e, "id") : nullptr;
    if (!id || !id->is_string()) continue;
    const std::string& text = id->get_ref<const std::string&>();
    auto parsed = parse_inventory_id(text);
    if (!parsed) continue;
    FUZZ_CHECK(!parsed->name.empty() && !parsed->kind.empty(), text);
    FUZZ_CHECK((parsed->ns + parsed->group + parsed->kind).find('_') == std::string::npos, text);
    FUZZ_CHECK(text.starts_with(parsed->ns + "_") && text.ends_with("_" + parsed->group + "_" + parsed->kind), text);
  }
  // Windowed and real-time (relabel: both windowed, in different windows).
  std::vector<Owner> owners = {{"Kustomization/flux-system/a", &object, {"CronJob/flux-system/a"}},
                               {"Kustomization/flux-system/b", &object, {}}};
  if (relabel) owners[1].windowed_by = {"CronJob/flux-system/b"};
  for (const auto& f : shared_objects(
           owners, [](std::size_t i) { return std::to_string(i); }, 64)) {
    FUZZ_CHECK(f.id == "WC016" && !f.object.empty() && !f.message.empty(), f.object);
    if (!f.object.starts_with("Kustomization/flux-system/"))
      FUZZ_CHECK(f.severity == (relabel ? "warning" : "error"), f.object + ": " + f.severity);
    (void)render_findings({f}, true);
  }

  EventSpec spec{"WindowClosed", "Normal", "Suspended by windowctl: " + reason, reason.substr(0, 200)};
  json event = make_event(kind, "v1", object, spec, std::chrono::system_clock::time_point{});
  std::string dumped = event.dump();
  FUZZ_CHECK(event["involvedObject"]["name"] == name);
  FUZZ_CHECK(event["message"].get<std::string>().size() <= 1024);
  FUZZ_CHECK(event["reportingInstance"].get<std::string>().size() <= 128);

  PlanInput plan;
  plan.action = action;
  plan.force = force;
  plan.relabel = relabel;
  plan.label_value = relabel ? "disabled" : "enabled";
  plan.reason = utf8_prefix(reason, 1024);  // main refuses a --reason that is not UTF-8
  plan.now = "2026-11-22T08:00:00Z";
  plan.token = "2026-11-22T08:00:00.000000001Z";
  // As the kind pauses: spec.suspend, or its annotation, which decide refuses to read when it is
  // not a string (the only way it throws).
  const ObjectState state = read_state(object, kind.pause);
  Decision d;
  try {
    d = decide(object, plan, kind.pause);
  } catch (const std::runtime_error& e) {
    FUZZ_CHECK(!state.problem.empty(), e.what());
    return 0;
  }
  FUZZ_CHECK(state.problem.empty());
  if (d.patch) {
    (void)d.patch->dump();
    json after = object;
    after.merge_patch(*d.patch);
    FUZZ_CHECK(patch_visible(after, *d.patch), "patch not visible once applied: " + d.patch->dump());
    Decision again = decide(after, plan, kind.pause);
    FUZZ_CHECK(!again.patch, "a second decision writes again: " + again.patch->dump());
  }
  return 0;
}
