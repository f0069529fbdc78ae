#include "check_online.h"

#include <doctest/doctest.h>

#include "check_model.h"

using namespace windowctl;
using nlohmann::json;

namespace {

const std::string kApps = "Kustomization/flux-system/apps";
const std::string kJob = "CronJob/flux-system/close";

json ks(json metadata = json::object(), json spec = json::object()) {
  metadata["name"] = "apps";
  metadata["namespace"] = "flux-system";
  return {{"kind", "Kustomization"}, {"metadata", metadata}, {"spec", spec}};
}

// An object whose spec.suspend the parent Kustomization `flux-system` applies.
json parent_applied(json labels = {{"kustomize.toolkit.fluxcd.io/name", "flux-system"},
                                   {"kustomize.toolkit.fluxcd.io/namespace", "flux-system"}}) {
  json managed =
      json::array({{{"manager", "kustomize-controller"},
                    {"operation", "Apply"},
                    {"fieldsV1", {{"f:spec", {{"f:suspend", json::object()}, {"f:path", json::object()}}}}}}});
  return ks({{"labels", labels}, {"managedFields", managed}}, {{"suspend", false}});
}

LiveFacts one_target(json object, LiveRead read = LiveRead::kFound, bool relabel = false) {
  LiveFacts f;
  f.server = std::pair{1, 32};
  f.server_text = "v1.32.0";
  f.jobs.push_back({kJob, true, relabel, "", {kApps}});
  f.targets.push_back({kApps, read, read == LiveRead::kFound ? "" : "forbidden: no", std::move(object)});
  return f;
}

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.id + " " + f.severity + " " + f.object);
  return out;
}

}  // namespace

TEST_CASE("parse_server_version: gitVersion first, then major/minor as managed clusters send them") {
  using P = std::pair<int, int>;
  CHECK(parse_server_version({{"gitVersion", "v1.26.3"}}) == P{1, 26});
  CHECK(parse_server_version({{"gitVersion", "v1.27.0+k3s1"}}) == P{1, 27});
  CHECK(parse_server_version({{"gitVersion", "v1.30.2-eks-1de2ab1"}}) == P{1, 30});
  CHECK(parse_server_version({{"gitVersion", "custom"}, {"major", "1"}, {"minor", "26+"}}) == P{1, 26});
  CHECK(parse_server_version({{"major", "1"}, {"minor", "29"}}) == P{1, 29});
  CHECK_FALSE(parse_server_version({{"gitVersion", "v1."}}).has_value());
  CHECK_FALSE(parse_server_version({{"gitVersion", 127}}).has_value());
  CHECK_FALSE(parse_server_version(json::array()).has_value());
  CHECK_FALSE(parse_server_version({{"gitVersion", "v99999999999999999999.1"}}).has_value());
}

TEST_CASE("parse_access_review: status.allowed must be a boolean; the reason comes along") {
  auto a = parse_access_review({{"status", {{"allowed", false}, {"reason", "no RBAC policy matched"}}}});
  REQUIRE(a.has_value());
  CHECK_FALSE(a->first);
  CHECK(a->second == "no RBAC policy matched");
  CHECK(parse_access_review({{"status", {{"allowed", true}}}})->first);
  CHECK(parse_access_review({{"status", {{"allowed", false}, {"evaluationError", "webhook down"}}}})->second ==
        "webhook down");
  CHECK_FALSE(parse_access_review({{"status", {{"allowed", "true"}}}}).has_value());
  CHECK_FALSE(parse_access_review({{"status", "x"}}).has_value());
  CHECK_FALSE(parse_access_review(json()).has_value());
}

TEST_CASE("parent_declaring_suspend: only kustomize-controller owning spec.suspend counts") {
  CHECK(parent_declaring_suspend(parent_applied()) == "Kustomization flux-system/flux-system");
  CHECK(parent_declaring_suspend(parent_applied(json::object())) == "a parent Kustomization");
  json other = parent_applied();
  other["metadata"]["managedFields"][0]["manager"] = "windowctl";
  CHECK(parent_declaring_suspend(other) == "");
  json no_suspend = parent_applied();
  no_suspend["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"].erase("f:suspend");
  CHECK(parent_declaring_suspend(no_suspend) == "");
  json status_entry = parent_applied();
  status_entry["metadata"]["managedFields"][0]["subresource"] = "status";
  CHECK(parent_declaring_suspend(status_entry) == "");
  CHECK(parent_declaring_suspend(ks({{"managedFields", "x"}})) == "");
}

TEST_CASE("check_live: a found, unsuspended target of a job that relabels is clean") {
  CHECK(check_live(one_target(ks())).empty());
  CHECK(check_live(one_target(parent_applied(), LiveRead::kFound, true)).empty());
}

TEST_CASE("check_live: WC012 missing, WC013 unreadable; nothing else is said about them") {
  auto missing = check_live(one_target(nullptr, LiveRead::kNotFound));
  CHECK(ids(missing) == std::vector<std::string>{"WC012 error " + kApps});
  CHECK(missing[0].message.find("a target of " + kJob) != std::string::npos);
  auto forbidden = check_live(one_target(nullptr, LiveRead::kForbidden));
  CHECK(ids(forbidden) == std::vector<std::string>{"WC013 error " + kApps});
  CHECK(forbidden[0].message.find("forbidden: no") != std::string::npos);
  CHECK(ids(check_live(one_target(nullptr, LiveRead::kFailed))) == std::vector<std::string>{"WC013 error " + kApps});
}

TEST_CASE("check_live: WC014 a target suspended by someone else, with the adopt hint; windowctl's own is fine") {
  auto held = check_live(
      one_target(ks({{"annotations", {{"suspend.toolkit.fluxcd.io/reason", "incident 42"}}}}, {{"suspend", true}})));
  CHECK(ids(held) == std::vector<std::string>{"WC014 warning " + kApps});
  CHECK(held[0].message.find("windowctl adopt --targets " + kApps) != std::string::npos);
  CHECK(held[0].message.find("incident 42") != std::string::npos);
  CHECK(check_live(one_target(ks({{"annotations", {{"windowctl.io/suspended-by", "windowctl"}}}}, {{"suspend", true}})))
            .empty());
}

TEST_CASE("check_live: WC002 a parent applies spec.suspend and the windowing job does not relabel") {
  auto f = check_live(one_target(parent_applied()));
  CHECK(ids(f) == std::vector<std::string>{"WC002 error " + kJob});
  CHECK(f[0].message.find("Kustomization flux-system/flux-system") != std::string::npos);
  CHECK(f[0].message.find("--relabel") != std::string::npos);
  // An open job does not window; the object relabelled by hand is skipped by the parent.
  auto open = one_target(parent_applied());
  open.jobs[0].windowing = false;
  CHECK(check_live(open).empty());
  json disabled = parent_applied();
  disabled["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/reconcile"] = "Disabled";
  CHECK(check_live(one_target(disabled)).empty());
  // The flags (no job): nothing says whether the job relabels.
  auto flags = one_target(parent_applied());
  flags.jobs[0].key = "";
  CHECK(check_live(flags).empty());
}

TEST_CASE("live_job_targets: the CronJobs' targets, without the check's own flags or a failed LIST") {
  LiveFacts f;
  f.jobs.push_back({"CronJob/flux-system/open", false, false, "", {kApps, kApps}, "open"});
  f.jobs.push_back({kJob, true, false, "", {kApps, "Kustomizations in team", "HelmRelease/team/web"}, "close"});
  f.jobs.push_back({"", false, false, "", {kApps}, ""});
  CHECK(live_job_targets(f) == std::vector<JobTargets>{{kJob, "close", true, {"HelmRelease/team/web", kApps}},
                                                       {"CronJob/flux-system/open", "open", false, {kApps}}});
}

TEST_CASE("check_live: WC011 spec.timeZone on a server older than 1.27") {
  auto f = one_target(ks());
  f.jobs[0].time_zone = "Europe/Zurich";
  CHECK(check_live(f).empty());
  f.server = std::pair{1, 27};
  CHECK(check_live(f).empty());
  f.server = std::pair{1, 26};
  f.server_text = "v1.26.3";
  auto out = check_live(f);
  CHECK(ids(out) == std::vector<std::string>{"WC011 error " + kJob});
  CHECK(out[0].message.find("v1.26.3") != std::string::npos);
  f.server = std::nullopt;  // unknown: not guessed
  CHECK(check_live(f).empty());
  f.server = std::pair{1, 26};
  f.jobs[0].time_zone = "";
  CHECK(check_live(f).empty());
}

TEST_CASE(
    "check_live: WC015 a denied verb is an error naming verb, resource and namespace; a failed review a warning") {
  auto f = one_target(ks());
  f.reviews.push_back(
      {kJob, "get", "kustomize.toolkit.fluxcd.io", "kustomizations", "flux-system", "apps", true, "", ""});
  CHECK(check_live(f).empty());
  f.reviews.push_back(
      {kJob, "patch", "kustomize.toolkit.fluxcd.io", "kustomizations", "flux-system", "apps", false, "no rule", ""});
  f.reviews.push_back({kJob, "create", "", "events", "apps-ns", "", false, "", ""});
  f.reviews.push_back({kJob, "list", "kustomize.toolkit.fluxcd.io", "kustomizations", "flux-system", "", std::nullopt,
                       "", "timeout: x"});
  auto out = check_live(f);
  // Sorted by object, id, then message: "could not ask" first.
  REQUIRE(ids(out) == std::vector<std::string>{"WC015 warning " + kJob, "WC015 error " + kJob, "WC015 error " + kJob});
  std::string all = out[1].message + "\n" + out[2].message;
  CHECK(all.find(
            "may not patch kustomizations.kustomize.toolkit.fluxcd.io named apps in namespace flux-system (no rule)") !=
        std::string::npos);
  CHECK(all.find("may not create events in namespace apps-ns") != std::string::npos);
  CHECK(out[0].message.find("timeout: x") != std::string::npos);
}

TEST_CASE("check_model: --targets in a job's args names targets of their own kinds") {
  json c = {{"name", "windowctl"},
            {"args", {"close", "--targets", "HelmRelease/podinfo,GitRepository/apps/src", "--targets=ks/other"}}};
  json cj = {{"kind", "CronJob"},
             {"metadata", {{"name", "close"}, {"namespace", "flux-system"}}},
             {"spec", {{"jobTemplate", {{"spec", {{"template", {{"spec", {{"containers", {c}}}}}}}}}}}}};
  auto m = index_manifests({cj});
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].targets == std::set<std::string>{"HelmRelease/flux-system/podinfo", "GitRepository/apps/src",
                                                   "Kustomization/flux-system/other"});
  // An unknown kind among them: the binary refuses the args, so the job acts on none.
  cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"][2] = "HelmRelease/podinfo,Nope/x";
  m = index_manifests({cj});
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].targets.empty());
  CHECK(m.jobs[0].args_problem.find("unknown kind \"Nope\"") != std::string::npos);
}

TEST_CASE("check_model: suspend and resume are close and open") {
  auto job = [](const char* command) {
    json c = {{"name", "windowctl"}, {"args", {command, "--kustomizations", "apps"}}};
    json cj = {{"kind", "CronJob"},
               {"metadata", {{"name", "j"}, {"namespace", "flux-system"}}},
               {"spec", {{"jobTemplate", {{"spec", {{"template", {{"spec", {{"containers", {c}}}}}}}}}}}}};
    auto m = index_manifests({cj});
    return m.jobs.empty() ? std::string("none") : m.jobs[0].command;
  };
  CHECK(job("suspend") == "close");
  CHECK(job("resume") == "open");
  CHECK(job("status") == "none");
}

TEST_CASE("check_live: WC017 one finding per place that could not be read, naming the rules left unchecked") {
  LiveFacts facts;
  facts.unread = {
      {"Namespace/flux-system",
       "rolebindings.rbac.authorization.k8s.io in flux-system",
       {"WC009", "WC018"},
       "forbidden: no"},
      {"Namespace/flux-system", "roles.rbac.authorization.k8s.io in flux-system", {"WC009"}, "forbidden: no"},
      {"cluster", "clusterroles.rbac.authorization.k8s.io", {"WC009"}, "forbidden: no"}};
  auto fs = check_live(facts);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].object == "Namespace/flux-system");
  CHECK(fs[0].severity == "warning");
  CHECK(fs[0].message ==
        "cannot read rolebindings.rbac.authorization.k8s.io in flux-system, roles.rbac.authorization.k8s.io in "
        "flux-system, so WC009, WC018 were not checked: forbidden: no; grant list on them to whoever runs check");
  CHECK(fs[1].object == "cluster");
  CHECK(fs[1].message.find("so WC009 was not checked") != std::string::npos);
  facts.unread.clear();
  facts.no_window_job_in = "team";
  fs = check_live(facts);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].id + " " + fs[0].object == "WC022 Namespace/team");
}

TEST_CASE("check_live: a kind paused by an annotation, held, unreadable, and its pause applied by the parent") {
  const Pause& pause = find_kind("ResourceSet")->pause;
  const std::string key = "ResourceSet/flux-system/apps";
  auto facts = [&](json metadata) {
    metadata["name"] = "apps";
    metadata["namespace"] = "flux-system";
    LiveFacts f = one_target({{"kind", "ResourceSet"}, {"metadata", metadata}});
    f.jobs[0].targets = {key};
    f.targets[0].key = key;
    f.targets[0].pause = pause;
    return f;
  };
  // Paused in the Flux Operator's UI: held (WC014); spec.suspend means nothing here.
  auto f = check_live(
      facts({{"annotations",
              {{"fluxcd.controlplane.io/reconcile", "disabled"}, {"fluxcd.controlplane.io/suspendedBy", "alice"}}}}));
  CHECK(ids(f) == std::vector<std::string>{"WC014 warning " + key});
  CHECK(check_live(facts({{"annotations", {{"fluxcd.controlplane.io/reconcile", "enabled"}}}})).empty());
  // Not a string: WC013, named.
  f = check_live(facts({{"annotations", {{"fluxcd.controlplane.io/reconcile", 1}}}}));
  REQUIRE(ids(f) == std::vector<std::string>{"WC013 error " + key});
  CHECK(f[0].message.find("fluxcd.controlplane.io/reconcile is a JSON number") != std::string::npos);
  // The parent applies the pause annotation: every close is undone (WC002), unless relabelled.
  json managed = json::array(
      {{{"manager", "kustomize-controller"},
        {"operation", "Apply"},
        {"fieldsV1",
         {{"f:metadata", {{"f:annotations", {{"f:fluxcd.controlplane.io/reconcile", json::object()}}}}}}}}});
  json applied = {{"managedFields", managed}, {"annotations", {{"fluxcd.controlplane.io/reconcile", "enabled"}}}};
  f = check_live(facts(applied));
  REQUIRE(ids(f) == std::vector<std::string>{"WC002 error " + kJob});
  CHECK(f[0].message.find("has fluxcd.controlplane.io/reconcile applied by a parent Kustomization") !=
        std::string::npos);
  CHECK(parent_declaring_suspend(facts(applied).targets[0].object) == "");  // as spec.suspend reads it
  CHECK(parent_declaring_suspend(facts(applied).targets[0].object, pause) == "a parent Kustomization");
}
