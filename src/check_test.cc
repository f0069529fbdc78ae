#include "check.h"

#include <doctest/doctest.h>

#include "check_model.h"
#include "kinds.h"
#include "timefmt.h"

using namespace windowctl;
using nlohmann::json;

namespace {

SysTime at(const char* text) { return *parse_rfc3339(text); }
const SysTime kNow = at("2026-01-05T00:00:00Z");  // a Monday

json cronjob(const std::string& name, std::vector<std::string> args, const std::string& schedule = "0 8 * * 1",
             const std::string& zone = "Europe/Zurich", bool suspend = false) {
  json c = {
      {"name", "windowctl"},
      {"image", "registry.example.com/windowctl:1"},
      {"args", args},
      {"env",
       {{{"name", "FLUX_SYSTEM_NAMESPACE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}}}}};
  json pod = {{"serviceAccountName", "windowctl"}, {"containers", json::array({c})}};
  json job_template = {{"spec", {{"template", {{"spec", pod}}}}}};
  json spec = {{"schedule", schedule}, {"suspend", suspend}, {"jobTemplate", job_template}};
  if (!zone.empty()) spec["timeZone"] = zone;
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata", {{"name", name}, {"namespace", "flux-system"}}},
          {"spec", spec}};
}

json ks(const std::string& name, json spec = json::object(), json labels = json::object()) {
  return {{"apiVersion", "kustomize.toolkit.fluxcd.io/v1"},
          {"kind", "Kustomization"},
          {"metadata", {{"name", name}, {"namespace", "flux-system"}, {"labels", labels}}},
          {"spec", spec}};
}

json role(json rules) {
  json binding = {{"kind", "RoleBinding"},
                  {"metadata", {{"name", "windowctl"}, {"namespace", "flux-system"}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "windowctl"}}},
                  {"subjects", {{{"kind", "ServiceAccount"}, {"name", "windowctl"}, {"namespace", "flux-system"}}}}};
  json r = {{"kind", "Role"}, {"metadata", {{"name", "windowctl"}, {"namespace", "flux-system"}}}, {"rules", rules}};
  return json::array({binding, r});
}

std::vector<json> objs(std::initializer_list<json> list) {
  std::vector<json> out;
  for (const auto& j : list) {
    if (j.is_array()) {
      for (const auto& x : j) out.push_back(x);
    } else {
      out.push_back(j);
    }
  }
  return out;
}

std::vector<std::string> ids(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.id + " " + f.object);
  return out;
}

const std::vector<std::string> kClose = {"close", "--kustomizations", "apps", "--scheduled"};
const std::vector<std::string> kOpen = {"open", "--kustomizations", "apps", "--scheduled"};

}  // namespace

TEST_CASE("check: a sound weekly window has no findings") {
  auto fs = check_objects(
      objs({cronjob("open", kOpen, "0 8 * * 1"), cronjob("close", kClose, "0 17 * * 4"), ks("apps"), ks("infra"),
            cronjob("emergency", {"open", "--kustomizations", "apps", "--for", "2h"}, "0 0 31 2 *", "Etc/UTC", true)}),
      kNow);
  CHECK(fs.empty());
  CHECK(!has_error(fs));
  CHECK(render_findings(fs, false).empty());
  CHECK(render_findings(fs, true) == "{\n  \"command\": \"check\",\n  \"findings\": [],\n  \"jobs\": []\n}\n");
}

TEST_CASE("check model: args, namespaces and selectors") {
  auto m = index_manifests(objs(
      {cronjob("c", {"close", "--kustomizations=a, other/b", "-nteam", "--relabel", "--reason", "--all"}),
       cronjob("s", {"sync", "-l", "tier in (rw),!frozen", "--kind", "hr", "--window", "0 8 * * * for 1h"}),
       cronjob("x", {"schedule", "--window", "0 8 * * * for 1h"}),
       {{"kind", "HelmRelease"},
        {"metadata", {{"name", "h1"}, {"namespace", "flux-system"}, {"labels", {{"tier", "rw"}}}}}},
       {{"kind", "HelmRelease"},
        {"metadata", {{"name", "h2"}, {"namespace", "flux-system"}, {"labels", {{"tier", "rw"}, {"frozen", "y"}}}}}},
       {{"kind", "HelmRelease"},
        {"metadata", {{"name", "h3"}, {"namespace", "other"}, {"labels", {{"tier", "rw"}}}}}}}));
  REQUIRE(m.jobs.size() == 2);
  CHECK(m.jobs[0].flags.relabel);
  CHECK(!m.jobs[0].flags.all);  // "--all" was the value of --reason
  CHECK(!m.jobs[0].selector);
  CHECK(m.jobs[0].targets == std::set<std::string>{"Kustomization/team/a", "Kustomization/other/b"});
  CHECK(m.jobs[1].kind == find_kind("HelmRelease"));
  CHECK(m.jobs[1].targets == std::set<std::string>{"HelmRelease/flux-system/h1"});
  CHECK(m.windowed.size() == 3);
}

namespace {

json labelled(const std::string& kind, const std::string& ns, const std::string& name, json labels) {
  return {{"kind", kind}, {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}}};
}

// The targets check takes a close job with these args (in namespace `ns`, with this container env) to act on.
const json kFromPod = {
    {{"name", "FLUX_SYSTEM_NAMESPACE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}}};

std::set<std::string> targets_of(std::vector<std::string> args, json env = nullptr,
                                 const std::string& ns = "flux-system") {
  json job = cronjob("close", std::move(args));
  job["metadata"]["namespace"] = ns;
  if (!env.is_null()) job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["env"] = env;
  auto m = index_manifests(objs({job, labelled("Kustomization", "flux-system", "one", {{"tier", "1"}}),
                                 labelled("Kustomization", "flux-system", "two", {{"tier", "2"}}),
                                 labelled("Kustomization", "flux-system", "ten", {{"tier", "10"}}),
                                 labelled("Kustomization", "flux-system", "word", {{"tier", "x"}}),
                                 labelled("Kustomization", "flux-system", "none", json::object()),
                                 labelled("Kustomization", "apps", "two", {{"tier", "2"}}),
                                 labelled("HelmRelease", "flux-system", "hr", {{"tier", "2"}})}));
  REQUIRE(m.jobs.size() == 1);
  return m.jobs[0].targets;
}

}  // namespace

TEST_CASE("check model: -l is read and matched as the API server does") {
  using S = std::set<std::string>;
  CHECK(targets_of({"close", "-l", "tier>1"}) == S{"Kustomization/flux-system/two", "Kustomization/flux-system/ten"});
  CHECK(targets_of({"close", "-l", "tier<3"}) == S{"Kustomization/flux-system/one", "Kustomization/flux-system/two"});
  CHECK(targets_of({"close", "-l", "tier!=2"}) == S{"Kustomization/flux-system/one", "Kustomization/flux-system/ten",
                                                    "Kustomization/flux-system/word",
                                                    "Kustomization/flux-system/none"});
  CHECK(targets_of({"close", "-l", "!tier"}) == S{"Kustomization/flux-system/none"});
  CHECK(targets_of({"close", "-l", "tier in (1,x)"}) ==
        S{"Kustomization/flux-system/one", "Kustomization/flux-system/word"});
  CHECK(targets_of({"close", "--kind", "hr", "-l", "tier"}) == S{"HelmRelease/flux-system/hr"});
  CHECK(targets_of({"close", "-A", "-l", "tier=2"}) == S{"Kustomization/flux-system/two", "Kustomization/apps/two"});
  // -l "" selects nothing: the job acts on its names alone.
  CHECK(targets_of({"close", "-l", "", "one"}) == S{"Kustomization/flux-system/one"});
}

TEST_CASE("check model: the namespace of names and -l as the binary defaults it in the job's pod") {
  using S = std::set<std::string>;
  const json value = {{{"name", "FLUX_SYSTEM_NAMESPACE"}, {"value", "apps"}}};
  CHECK(targets_of({"close", "-l", "tier=2", "x"}, kFromPod, "apps") ==
        S{"Kustomization/apps/two", "Kustomization/apps/x"});
  CHECK(targets_of({"close", "-l", "tier=2"}, value) == S{"Kustomization/apps/two"});
  // No FLUX_SYSTEM_NAMESPACE: flux-system, wherever the job runs.
  CHECK(targets_of({"close", "-l", "tier=2"}, json::array(), "apps") == S{"Kustomization/flux-system/two"});
  CHECK(targets_of({"close", "-n", "flux-system", "-l", "tier=2"}, value) == S{"Kustomization/flux-system/two"});
  // The last entry of a name wins; a value check cannot know leaves it unset.
  json twice = value;
  twice.push_back({{"name", "FLUX_SYSTEM_NAMESPACE"}, {"value", "team"}});
  CHECK(targets_of({"close", "x"}, twice) == S{"Kustomization/team/x"});
  json unknown = value;
  unknown.push_back(
      {{"name", "FLUX_SYSTEM_NAMESPACE"}, {"valueFrom", {{"configMapKeyRef", {{"name", "c"}, {"key", "k"}}}}}});
  CHECK(targets_of({"close", "x"}, unknown) == S{"Kustomization/flux-system/x"});
}

TEST_CASE("check model: names as the binary splits and checks them; args it refuses name nothing") {
  using S = std::set<std::string>;
  CHECK(targets_of({"close", "a, b", "--kustomizations", "apps/c", "--targets", "hr/d,GitRepository/src/e"}) ==
        S{"Kustomization/flux-system/a", "Kustomization/flux-system/b", "Kustomization/apps/c",
          "HelmRelease/flux-system/d", "GitRepository/src/e"});
  auto refused = [](std::vector<std::string> args, json env = nullptr) {
    json job = cronjob("close", std::move(args));
    if (!env.is_null()) job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["env"] = env;
    auto m = index_manifests(objs({job, labelled("Kustomization", "flux-system", "one", {{"tier", "1"}})}));
    REQUIRE(m.jobs.size() == 1);
    CHECK(m.jobs[0].targets.empty());
    CHECK(!m.jobs[0].windowing());
    return m.jobs[0].args_problem;
  };
  CHECK(refused({"close", "Bad_Name"}).find("invalid name \"Bad_Name\"") != std::string::npos);
  CHECK(refused({"close", "--targets", "ks/one,nope/x"}).find("unknown kind \"nope\"") != std::string::npos);
  CHECK(refused({"close", "one,"}).find("empty name") != std::string::npos);
  CHECK(refused({"close", "--kind", "nope", "one"}).find("unknown --kind \"nope\"") != std::string::npos);
  CHECK(refused({"close", "-l", "tier>a"}).find("must be an integer") != std::string::npos);
  CHECK(refused({"close", "-l", "tier", "--all"}).find("--all selects every object") != std::string::npos);
  CHECK(refused({"close", "one"}, {{{"name", "FLUX_SYSTEM_NAMESPACE"}, {"value", "Not_A_Namespace"}}})
            .find("invalid FLUX_SYSTEM_NAMESPACE") != std::string::npos);
}

TEST_CASE("WC001: a Kustomization outside the window depends on one inside") {
  auto triggering = objs({cronjob("open", kOpen), cronjob("close", kClose, "0 17 * * 4"), ks("apps"),
                          ks("web", {{"dependsOn", {{{"name", "apps"}}}}})});
  CHECK(ids(check_objects(triggering, kNow)) == std::vector<std::string>{"WC001 Kustomization/flux-system/web"});
  // In the window itself, or depending on something else, or in another namespace: fine.
  auto clean = objs({cronjob("open", {"open", "--kustomizations", "apps,web"}),
                     cronjob("close", {"close", "--kustomizations", "apps,web"}, "0 17 * * 4"), ks("apps"),
                     ks("web", {{"dependsOn", {{{"name", "apps"}}}}}),
                     ks("x", {{"dependsOn", {{{"name", "apps"}, {"namespace", "other"}}, {{"name", "infra"}}}}})});
  CHECK(check_objects(clean, kNow).empty());
}

TEST_CASE("WC002: a target applied with spec.suspend needs --relabel") {
  auto triggering =
      objs({cronjob("open", kOpen), cronjob("close", kClose, "0 17 * * 4"), ks("apps", {{"suspend", false}})});
  auto fs = check_objects(triggering, kNow);
  CHECK(ids(fs) == std::vector<std::string>{"WC002 CronJob/flux-system/close"});
  CHECK(fs[0].severity == "error");
  CHECK(fs[0].message.find("--relabel") != std::string::npos);
  auto relabel = kClose;
  relabel.push_back("--relabel");
  CHECK(check_objects(
            objs({cronjob("open", kOpen), cronjob("close", relabel, "0 17 * * 4"), ks("apps", {{"suspend", false}})}),
            kNow)
            .empty());
  CHECK(check_objects(
            objs({cronjob("open", kOpen), cronjob("close", kClose, "0 17 * * 4"), ks("apps", {{"interval", "10m"}})}),
            kNow)
            .empty());
}

TEST_CASE("WC003: window jobs applied by a Kustomization their window suspends (a warning)") {
  auto job = cronjob("close", kClose, "0 17 * * 4");
  job["metadata"]["labels"] = {{"kustomize.toolkit.fluxcd.io/name", "apps"},
                               {"kustomize.toolkit.fluxcd.io/namespace", "flux-system"}};
  auto fs = check_objects(objs({cronjob("open", kOpen), job}), kNow);
  CHECK(ids(fs) == std::vector<std::string>{"WC003 CronJob/flux-system/close"});
  CHECK(fs[0].severity == "warning");
  CHECK(!has_error(fs));
  job["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/name"] = "flux-system";
  CHECK(check_objects(objs({cronjob("open", kOpen), job}), kNow).empty());
}

TEST_CASE("WC004/WC005/WC006: sync windows against the sync job's tick") {
  auto sync = [](const std::string& window, const std::string& tick = "*/5 * * * *") {
    return check_objects(
        objs({cronjob("sync", {"sync", "--kustomizations", "apps", "--window", window}, tick, "Etc/UTC")}), kNow);
  };
  CHECK(sync("0 8 * * MON for 81h in Europe/Zurich").empty());
  CHECK(sync("7 * * * * for 5m").empty());  // :07-:12 holds :10
  CHECK(ids(sync("0 * * * * for 1h")) == std::vector<std::string>{"WC004 CronJob/flux-system/sync"});
  CHECK(ids(sync("0 0 30 2 * for 1h")) == std::vector<std::string>{"WC005 CronJob/flux-system/sync"});
  auto missed = sync("7 * * * * for 3m");  // :07-:10 never holds a multiple of 5
  CHECK(ids(missed) == std::vector<std::string>{"WC005 CronJob/flux-system/sync"});
  CHECK(missed[0].message.find("never runs while it is open") != std::string::npos);
  // Daily at 08:07 for 3m, but on Mondays at 08:00: only the Monday windows are caught.
  auto some = check_objects(
      objs({cronjob("sync", {"sync", "--all", "--window", "7 8 * * * for 3m", "--window", "0 8 * * MON for 3m"},
                    "*/5 * * * *", "")}),
      kNow);
  CHECK(ids(some) == std::vector<std::string>{"WC006 CronJob/flux-system/sync"});
  CHECK(some[0].severity == "warning");
  // A suspended sync job is not checked; an invalid window is.
  CHECK(check_objects(
            objs({cronjob("sync", {"sync", "--all", "--window", "7 * * * * for 3m"}, "*/5 * * * *", "", true)}), kNow)
            .empty());
  CHECK(ids(sync("0 8 * * * for 1x")) == std::vector<std::string>{"WC010 CronJob/flux-system/sync"});
  // A target's own window annotation replaces the flags for it.
  auto annotated = ks("apps");
  annotated["metadata"]["annotations"] = {{"windowctl.io/window", "7 * * * * for 3m"}};
  auto fs = check_objects(
      objs({cronjob("sync", {"sync", "--kustomizations", "apps", "--window", "0 8 * * * for 1h"}, "*/5 * * * *", ""),
            annotated}),
      kNow);
  CHECK(ids(fs) == std::vector<std::string>{"WC005 Kustomization/flux-system/apps"});
}

TEST_CASE("WC007/WC008: an open/close pair") {
  CHECK(ids(check_objects(
            objs({cronjob("open", kOpen, "0 8 * * 1"), cronjob("close", kClose, "0 17 * * 4", "Etc/UTC")}), kNow)) ==
        std::vector<std::string>{"WC007 CronJob/flux-system/close"});
  CHECK(ids(check_objects(objs({cronjob("open", kOpen, "0 8 * * 1", ""), cronjob("close", kClose, "0 17 * * 4", "")}),
                          kNow))
            .empty());
  CHECK(ids(check_objects(objs({cronjob("open", kOpen, "0 8 * * 1"), cronjob("close", kClose, "0 8 * * *")}), kNow)) ==
        std::vector<std::string>{"WC008 CronJob/flux-system/close"});
  CHECK(ids(check_objects(objs({cronjob("open", kOpen, "0 8 * * 1"), cronjob("close", kClose, "0 0 31 2 *")}), kNow)) ==
        std::vector<std::string>{"WC008 CronJob/flux-system/close"});
  CHECK(ids(check_objects(objs({cronjob("open", kOpen, "0 0 30 2 *"), cronjob("close", kClose, "0 17 * * 4")}),
                          kNow)) == std::vector<std::string>{"WC005 CronJob/flux-system/open"});
  // Different targets are different windows.
  auto other = kClose;
  other[2] = "batch";
  CHECK(
      check_objects(objs({cronjob("open", kOpen, "0 8 * * 1"), cronjob("close", other, "0 8 * * 1", "Etc/UTC")}), kNow)
          .empty());
}

TEST_CASE("WC009: the bound Role must cover the targets") {
  json pinned = {{{"apiGroups", {"kustomize.toolkit.fluxcd.io"}},
                  {"resources", {"kustomizations"}},
                  {"resourceNames", {"apps"}},
                  {"verbs", {"get", "patch"}}}};
  auto two = [](const std::string& names) { return std::vector<std::string>{"close", "--kustomizations", names}; };
  CHECK(check_objects(objs({cronjob("close", two("apps"), "0 17 * * 4"), role(pinned)}), kNow).empty());
  auto fs = check_objects(objs({cronjob("close", two("apps,web"), "0 17 * * 4"), role(pinned)}), kNow);
  REQUIRE(ids(fs) == std::vector<std::string>{"WC009 CronJob/flux-system/close"});
  CHECK(fs[0].message.find("named web:") != std::string::npos);
  json open = {{{"apiGroups", {"*"}}, {"resources", {"kustomizations"}}, {"verbs", {"get", "patch"}}}};
  CHECK(check_objects(objs({cronjob("close", two("apps,web"), "0 17 * * 4"), role(open)}), kNow).empty());
  // Selecting needs list without resourceNames.
  CHECK(ids(check_objects(objs({cronjob("close", {"close", "--all"}, "0 17 * * 4"), role(open)}), kNow)) ==
        std::vector<std::string>{"WC009 CronJob/flux-system/close"});
  open[0]["verbs"].push_back("list");
  CHECK(check_objects(objs({cronjob("close", {"close", "--all"}, "0 17 * * 4"), role(open)}), kNow).empty());
  // No binding in the input, or a bound role that is not: nothing to say.
  CHECK(check_objects(objs({cronjob("close", two("apps,web"), "0 17 * * 4")}), kNow).empty());
  auto binding_only = role(pinned);
  binding_only.erase(1);
  CHECK(check_objects(objs({cronjob("close", two("apps,web"), "0 17 * * 4"), binding_only}), kNow).empty());
}

TEST_CASE("check output: text and JSON") {
  std::vector<Finding> fs = {{"WC003", "warning", "CronJob/ns/a", "x\ny"},
                             {"WC001", "error", "Kustomization/ns/b", "m"}};
  CHECK(has_error(fs));
  CHECK(render_findings(fs, false) == "warning WC003 CronJob/ns/a: x y\nerror WC001 Kustomization/ns/b: m\n");
  auto j = json::parse(render_findings(fs, true));
  CHECK(j["findings"][1] ==
        json{{"id", "WC001"}, {"severity", "error"}, {"object", "Kustomization/ns/b"}, {"message", "m"}});
  CHECK(j["jobs"] == json::array());
  std::vector<JobTargets> jobs = {{"CronJob/ns/close", "close", true, {"Kustomization/ns/b"}}};
  CHECK(render_findings(fs, false, jobs) == render_findings(fs, false));  // the text has no jobs
  CHECK(json::parse(render_findings({}, true, jobs))["jobs"] == json::parse(R"([{"object": "CronJob/ns/close",
      "command": "close", "windowing": true, "targets": ["Kustomization/ns/b"]}])"));
}

TEST_CASE("check_objects: the window jobs and their targets, sorted") {
  std::vector<JobTargets> jobs;
  check_objects(objs({cronjob("open", {"resume", "apps"}), cronjob("close", {"close", "web", "apps"}, "0 17 * * 4"),
                      cronjob("sync", {"sync", "apps", "--window", "0 8 * * * for 1h"}, "*/5 * * * *", "", true)}),
                kNow, &jobs);
  const std::string apps = "Kustomization/flux-system/apps";
  const std::string web = "Kustomization/flux-system/web";
  CHECK(jobs == std::vector<JobTargets>{{"CronJob/flux-system/close", "close", true, {apps, web}},
                                        {"CronJob/flux-system/open", "open", false, {apps}},
                                        {"CronJob/flux-system/sync", "sync", false, {apps}}});
}

TEST_CASE("a job's args are read by windowctl's own command line") {
  // Names as arguments, the alias suspend, and global flags before the command.
  const json rt = ks("apps-rt", {{"dependsOn", {{{"name", "apps"}}}}});
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"close", "apps", "--scheduled"}, std::vector<std::string>{"suspend", "apps"},
        std::vector<std::string>{"--log-format", "json", "-n", "flux-system", "close", "apps"}}) {
    CAPTURE(args.front());
    auto found =
        check_objects(objs({ks("apps"), rt, cronjob("close", args, "0 17 * * 4"), cronjob("open", kOpen)}), kNow);
    CHECK(ids(found) == std::vector<std::string>{"WC001 Kustomization/flux-system/apps-rt"});
  }
  // Args the binary refuses: every run is exit 2, which check says, and nothing else about the job.
  auto bad = check_objects(
      objs({ks("apps"), cronjob("close", {"close", "apps", "--bogus"}, "0 17 * * 4"), cronjob("open", kOpen)}), kNow);
  REQUIRE(ids(bad) == std::vector<std::string>{"WC010 CronJob/flux-system/close"});
  CHECK(bad[0].message.find("--bogus") != std::string::npos);
  // Refused after parsing, as the job itself would be: --all with a name.
  auto both = check_objects(
      objs({ks("apps"), cronjob("close", {"close", "--all", "apps"}, "0 17 * * 4"), cronjob("open", kOpen)}), kNow);
  REQUIRE(ids(both) == std::vector<std::string>{"WC010 CronJob/flux-system/close"});
  CHECK(both[0].message.find("--all selects every object") != std::string::npos);
}

TEST_CASE("check: WC018 a job's ServiceAccount that does not exist or that no binding binds") {
  auto job = cronjob("close", kClose, "0 17 * * 4");
  json sa = {{"kind", "ServiceAccount"}, {"metadata", {{"name", "windowctl"}, {"namespace", "flux-system"}}}};
  json rules = json::array({{{"apiGroups", {"kustomize.toolkit.fluxcd.io"}},
                             {"resources", {"kustomizations"}},
                             {"verbs", {"get", "patch"}}}});
  // Bound and present; no binding or no ServiceAccount in the input at all: nothing guessed.
  CHECK(ids(check_objects(objs({job, sa, role(rules)}), kNow)).empty());
  CHECK(ids(check_objects(objs({job}), kNow)).empty());
  CHECK(ids(check_objects(objs({job, role(rules)}), kNow)).empty());
  // A group that holds every ServiceAccount of the namespace binds it too.
  auto by_group = role(rules);
  by_group[0]["subjects"] = {{{"kind", "Group"}, {"name", "system:serviceaccounts:flux-system"}}};
  CHECK(ids(check_objects(objs({job, sa, by_group}), kNow)).empty());
  // The subject's namespace left behind: the binding binds another ServiceAccount.
  auto elsewhere = role(rules);
  elsewhere[0]["subjects"][0]["namespace"] = "jobs";
  CHECK(ids(check_objects(objs({job, sa, elsewhere}), kNow)) ==
        std::vector<std::string>{"WC018 CronJob/flux-system/close", "WC019 RoleBinding/flux-system/windowctl"});
  json other_sa = sa;
  other_sa["metadata"]["name"] = "other";
  auto fs = check_objects(objs({job, other_sa, role(rules)}), kNow);
  CHECK(ids(fs) ==
        std::vector<std::string>{"WC018 CronJob/flux-system/close", "WC019 RoleBinding/flux-system/windowctl"});
  CHECK(fs[0].message.find("does not exist in the input") != std::string::npos);
  // Live, only what the gatherer read in full counts.
  CheckScope unread{true, false, false};
  CHECK(ids(check_objects(objs({job, other_sa, elsewhere}), kNow, nullptr, unread)).empty());
  CheckScope read{true, true, true};
  CHECK(ids(check_objects(objs({job, sa, elsewhere}), kNow, nullptr, read)) ==
        std::vector<std::string>{"WC018 CronJob/flux-system/close"});  // WC019 is offline only
}

TEST_CASE("check: WC020 one half of an open/close pair suspended; the emergency open is no half") {
  auto emergency =
      cronjob("emergency", {"open", "--kustomizations", "apps", "--for", "2h"}, "0 0 31 2 *", "Etc/UTC", true);
  auto open = [](bool suspended) { return cronjob("open", kOpen, "0 8 * * 1", "Europe/Zurich", suspended); };
  auto close = [](bool suspended) { return cronjob("close", kClose, "0 17 * * 4", "Europe/Zurich", suspended); };
  CHECK(ids(check_objects(objs({open(false), close(false), emergency}), kNow)).empty());
  CHECK(ids(check_objects(objs({open(true), close(true), emergency}), kNow)).empty());  // both: the base as shipped
  auto fs = check_objects(objs({open(true), close(false), emergency}), kNow);
  CHECK(ids(fs) == std::vector<std::string>{"WC020 CronJob/flux-system/open"});
  CHECK(fs[0].message.find("closes and never opens again") != std::string::npos);
  fs = check_objects(objs({open(false), close(true)}), kNow);
  CHECK(ids(fs) == std::vector<std::string>{"WC020 CronJob/flux-system/close"});
  CHECK(fs[0].message.find("opens and never closes") != std::string::npos);
  // Another close job that runs makes the suspended one spare.
  auto spare = cronjob("close-2", kClose, "0 18 * * 4");
  CHECK(ids(check_objects(objs({open(false), close(true), spare}), kNow)).empty());
}

TEST_CASE("check: WC021 the placeholder image; WC022 no window job") {
  auto job = cronjob("close", kClose, "0 17 * * 4");
  for (const char* image :
       {"windowctl.invalid/windowctl", "windowctl.invalid:5000/windowctl:1", "x.invalid/a/b@sha256:0"}) {
    CAPTURE(image);
    job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] = image;
    auto fs = check_objects(objs({job}), kNow);
    CHECK(ids(fs) == std::vector<std::string>{"WC021 CronJob/flux-system/close"});
    CHECK(fs[0].severity == "error");
    job["spec"]["suspend"] = true;  // run by hand only: a warning
    CHECK(check_objects(objs({job}), kNow)[0].severity == "warning");
    job["spec"]["suspend"] = false;
  }
  for (const char* image : {"windowctl", "invalid/windowctl", "ghcr.io/invalid/windowctl", "localhost:5000/w"}) {
    CAPTURE(image);
    job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] = image;
    CHECK(ids(check_objects(objs({job}), kNow)).empty());
  }
  CHECK(ids(check_objects(objs({ks("apps")}), kNow)) == std::vector<std::string>{"WC022 input"});
  CHECK(ids(check_objects(objs({ks("apps")}), kNow, nullptr, CheckScope{true, true, true}))
            .empty());  // live: WC022 names the namespace
}

TEST_CASE("check: --overrun and --cutoff in job args: WC010 for invalid values, read as the binary reads them") {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"close", "apps", "--overrun", "1d"},
                                               std::vector<std::string>{"close", "apps", "--cutoff", "5m"},
                                               std::vector<std::string>{"open", "apps", "--cutoff", "5m"},
                                               std::vector<std::string>{"open", "apps", "--overrun", "5m"}}) {
    CAPTURE(args);
    auto fs = check_objects(objs({ks("apps"), cronjob("job", args, "0 17 * * 4")}), kNow);
    REQUIRE(ids(fs) == std::vector<std::string>{"WC010 CronJob/flux-system/job"});
  }
  Manifests m =
      index_manifests(objs({cronjob("sync", {"sync", "--all", "--window", "0 8 * * * for 1h", "--cutoff", "15m"}),
                            cronjob("close", {"close", "apps", "--overrun", "3m"}), cronjob("plain", {"close", "apps"}),
                            cronjob("open", kOpen)}));
  REQUIRE(m.jobs.size() == 4);
  CHECK(m.jobs[0].cutoff == std::chrono::minutes(15));
  CHECK(m.jobs[0].overrun == std::chrono::minutes(10));  // the default
  CHECK(m.jobs[1].overrun == std::chrono::minutes(3));
  CHECK(m.jobs[1].cutoff.count() == 0);
  CHECK(m.jobs[3].overrun.count() == 0);  // an open never waits
}

TEST_CASE("check: WC023 a window shorter than its job's --cutoff is never opened") {
  auto sync = [](const std::string& window, const std::string& cutoff) {
    return check_objects(
        objs({cronjob("sync", {"sync", "--kustomizations", "apps", "--window", window, "--cutoff", cutoff},
                      "*/5 * * * *", "Etc/UTC")}),
        kNow);
  };
  CHECK(sync("0 8 * * MON for 81h in Europe/Zurich", "15m").empty());
  CHECK(sync("0 8 * * * for 30m", "30m").empty());  // exactly as long: opened with the cutoff left
  auto fs = sync("0 8 * * * for 30m", "31m");
  REQUIRE(ids(fs) == std::vector<std::string>{"WC023 CronJob/flux-system/sync"});
  CHECK(fs[0].severity == "warning");
  CHECK(fs[0].message.find("are shorter than the job's --cutoff 31m") != std::string::npos);
  CHECK(fs[0].message.find("30m long") != std::string::npos);
  // Only the short ones count: Mondays 30m, other days 2h.
  auto some = check_objects(objs({cronjob("sync",
                                          {"sync", "--all", "--window", "0 8 * * MON for 30m", "--window",
                                           "0 8 * * 0,2-6 for 2h", "--cutoff", "1h"},
                                          "*/5 * * * *", "Etc/UTC")}),
                            kNow);
  REQUIRE(ids(some) == std::vector<std::string>{"WC023 CronJob/flux-system/sync"});
  CHECK(some[0].message.find("windows (--window, first at 2026-01-05T08:00:00Z, 30m long)") != std::string::npos);
  // A target's own window: the finding is on the target, for sync and for open --scheduled.
  auto annotated = ks("apps");
  annotated["metadata"]["annotations"] = {{"windowctl.io/window", "0 8 * * * for 10m"}};
  auto own = check_objects(
      objs({cronjob("sync", {"sync", "apps", "--window", "0 8 * * * for 1h", "--cutoff", "15m"}, "*/5 * * * *", ""),
            annotated}),
      kNow);
  CHECK(ids(own) == std::vector<std::string>{"WC023 Kustomization/flux-system/apps"});
  std::vector<std::string> open = kOpen;
  open.insert(open.end(), {"--cutoff", "15m"});
  auto pair = check_objects(
      objs({cronjob("open", open, "0 8 * * 1"), cronjob("close", kClose, "0 17 * * 4"), annotated}), kNow);
  CHECK(ids(pair) == std::vector<std::string>{"WC023 Kustomization/flux-system/apps"});
  // Without --cutoff, or a target without its own window: nothing to say.
  CHECK(check_objects(objs({cronjob("open", kOpen, "0 8 * * 1"), cronjob("close", kClose, "0 17 * * 4"), annotated}),
                      kNow)
            .empty());
}

TEST_CASE("check: WC024 activeDeadlineSeconds must leave room for the close's --overrun") {
  auto with_deadline = [](std::vector<std::string> args, long long deadline, bool suspend = false) {
    json job = cronjob("close", std::move(args), "0 17 * * 4", "Europe/Zurich", suspend);
    job["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"] = deadline;
    return job;
  };
  auto run = [&](json job) { return check_objects(objs({ks("apps"), cronjob("open", kOpen), std::move(job)}), kNow); };
  // The default --overrun 10m needs 660 s.
  auto fs = run(with_deadline(kClose, 600));
  REQUIRE(ids(fs) == std::vector<std::string>{"WC024 CronJob/flux-system/close"});
  CHECK(fs[0].severity == "error");
  CHECK(fs[0].message.find("activeDeadlineSeconds 600 is less than its --overrun 10m plus 60s") != std::string::npos);
  CHECK(fs[0].message.find("at least 660") != std::string::npos);
  CHECK(run(with_deadline(kClose, 660)).empty());
  std::vector<std::string> quick = kClose;
  quick.insert(quick.end(), {"--overrun", "2m"});
  CHECK(run(with_deadline(quick, 180)).empty());
  quick.back() = "0";
  CHECK(run(with_deadline(quick, 30)).empty());                // no wait: nothing to leave room for
  CHECK(run(cronjob("close", kClose, "0 17 * * 4")).empty());  // no deadline at all
  // A sync closes too; a suspended job (run by hand) is a warning; an open never waits.
  auto sync = with_deadline({"sync", "apps", "--window", "0 8 * * MON for 81h in Europe/Zurich"}, 240);
  sync["spec"]["schedule"] = "*/5 * * * *";
  CHECK(ids(check_objects(objs({ks("apps"), sync}), kNow)) ==
        std::vector<std::string>{"WC024 CronJob/flux-system/close"});
  auto hand = check_objects(
      objs({ks("apps"), cronjob("open", kOpen, "0 8 * * 1", "Europe/Zurich", true), with_deadline(kClose, 100, true)}),
      kNow);
  REQUIRE(ids(hand) == std::vector<std::string>{"WC024 CronJob/flux-system/close"});
  CHECK(hand[0].severity == "warning");
  json open = cronjob("open", kOpen);
  open["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"] = 10;
  CHECK(check_objects(objs({ks("apps"), open, cronjob("close", kClose, "0 17 * * 4")}), kNow).empty());
}
