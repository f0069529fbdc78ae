#include "check_owners.h"

#include <doctest/doctest.h>

#include "timefmt.h"

using namespace windowctl;
using nlohmann::json;

namespace {

json entries(std::initializer_list<const char*> ids) {
  json list = json::array();
  for (const char* id : ids) {
    json e;
    e["id"] = id;
    e["v"] = "v1";
    list.push_back(e);
  }
  return list;
}

json ks(const std::string& name, json inventory_entries) {
  json k;
  k["kind"] = "Kustomization";
  k["metadata"]["name"] = name;
  k["metadata"]["namespace"] = "flux-system";
  k["status"]["inventory"]["entries"] = std::move(inventory_entries);
  return k;
}

std::vector<std::string> lines(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.id + " " + f.severity + " " + f.object);
  return out;
}

const char* kDeploy = "apps_podinfo_apps_Deployment";
const char* kService = "apps_podinfo__Service";

}  // namespace

TEST_CASE("parse_inventory_id: kustomize-controller's <namespace>_<name>_<group>_<kind>, as cli-utils reads it") {
  using I = InventoryId;
  CHECK(parse_inventory_id("apps_podinfo_apps_Deployment") == I{"apps", "podinfo", "apps", "Deployment"});
  CHECK(parse_inventory_id("apps_podinfo__Service") == I{"apps", "podinfo", "", "Service"});  // the core group
  // Cluster-scoped: no namespace, so the id starts with '_'.
  CHECK(parse_inventory_id("_apps__Namespace") == I{"", "apps", "", "Namespace"});
  CHECK(parse_inventory_id("_flux-view_rbac.authorization.k8s.io_ClusterRole") ==
        I{"", "flux-view", "rbac.authorization.k8s.io", "ClusterRole"});
  // RBAC names: a colon is written as "__", and an '_' of the name stays in it.
  CHECK(parse_inventory_id("_system__controller__x_rbac.authorization.k8s.io_ClusterRole") ==
        I{"", "system:controller:x", "rbac.authorization.k8s.io", "ClusterRole"});
  CHECK(parse_inventory_id("team_read_only_rbac.authorization.k8s.io_Role") ==
        I{"team", "read_only", "rbac.authorization.k8s.io", "Role"});
  CHECK(parse_inventory_id("ns_a___b__ConfigMap") == I{"ns", "a:_b", "", "ConfigMap"});  // ReplaceAll, left to right
  for (const char* bad : {"", "podinfo", "apps_podinfo", "apps_Deployment_", "ns__Kind", "ns___Kind", "__Kind", "_",
                          "___", "ns_name_group_"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_inventory_id(bad).has_value());
  }
}

TEST_CASE("WC016: a windowed and a real-time Kustomization apply the same object: one error per object") {
  std::vector<json> k = {ks("apps-rw", entries({kDeploy, kService, "apps_only-rw__ConfigMap"})),
                         ks("apps-rt", entries({kService, kDeploy, "apps_only-rt__ConfigMap"})),
                         ks("infra", entries({"_apps__Namespace"}))};
  std::vector<Owner> owners = {{"Kustomization/flux-system/apps-rw", &k[0], {"CronJob/flux-system/close"}},
                               {"Kustomization/flux-system/apps-rt", &k[1], {}},
                               {"Kustomization/flux-system/infra", &k[2], {}}};
  int asked = 0;
  auto fs = shared_objects(owners, [&](std::size_t) { return ++asked, std::string("w"); });
  CHECK(lines(fs) ==
        std::vector<std::string>{"WC016 error Deployment/apps/podinfo", "WC016 error Service/apps/podinfo"});
  CHECK(asked == 0);  // no two windowed owners: no window computed
  CHECK(fs[0].message ==
        "applied by Kustomization flux-system/apps-rw, which the window of CronJob/flux-system/close suspends, and by "
        "Kustomization flux-system/apps-rt, which no window suspends: it changes while the window is closed, and they "
        "undo each other's changes; apply it from one Kustomization only");
  // Two real-time owners are no window's business; an object listed twice by one owner is one owner.
  owners[0].windowed_by.clear();
  CHECK(shared_objects(owners, [](std::size_t) { return std::string(); }).empty());
  k[0] = ks("apps-rw", entries({kDeploy, kDeploy}));
  owners[0].windowed_by = {"CronJob/flux-system/close"};
  owners.resize(1);
  CHECK(shared_objects(owners, [](std::size_t) { return std::string(); }).empty());
}

TEST_CASE("WC016: two windowed Kustomizations apply the same object: a warning when their windows differ") {
  std::vector<json> k = {ks("a", entries({kDeploy})), ks("b", entries({kDeploy})), ks("c", entries({kService}))};
  std::vector<Owner> owners = {{"Kustomization/flux-system/a", &k[0], {"CronJob/flux-system/close-a"}},
                               {"Kustomization/flux-system/b", &k[1], {"CronJob/flux-system/close-b"}},
                               {"Kustomization/flux-system/c", &k[2], {"CronJob/flux-system/close-b"}}};
  std::vector<std::string> windows = {"close 1 2", "close 1 3", "close 1 3"};
  std::vector<std::size_t> asked;
  auto window = [&](std::size_t i) { return asked.push_back(i), windows[i]; };
  auto fs = shared_objects(owners, window);
  CHECK(lines(fs) == std::vector<std::string>{"WC016 warning Deployment/apps/podinfo"});
  CHECK(
      fs[0].message.starts_with("applied by Kustomization flux-system/a (window of CronJob/flux-system/close-a), "
                                "Kustomization flux-system/b (window of CronJob/flux-system/close-b), whose windows "
                                "differ"));
  CHECK(asked == std::vector<std::size_t>{0, 1});  // c shares nothing: its window is never computed
  windows[1] = windows[0];
  CHECK(shared_objects(owners, window).empty());
}

TEST_CASE("WC016: a malformed inventory is named, never read as empty; the entries that parse still count") {
  json rt = ks("apps-rt", entries({kDeploy}));
  auto one = [&](json windowed) {
    std::vector<Owner> owners = {{"Kustomization/flux-system/apps-rw", &windowed, {"CronJob/flux-system/close"}},
                                 {"Kustomization/flux-system/apps-rt", &rt, {}}};
    return shared_objects(owners, [](std::size_t) { return std::string(); });
  };
  json bad = ks("apps-rw", json::object());
  auto fs = one(bad);
  REQUIRE(lines(fs) == std::vector<std::string>{"WC016 warning Kustomization/flux-system/apps-rw"});
  CHECK(fs[0].message.starts_with("its status.inventory.entries is an object, not a list, so WC016 could not compare"));
  bad["status"]["inventory"] = "x";
  CHECK(one(bad)[0].message.starts_with("its status.inventory is a string, not an object"));
  bad["status"]["inventory"] = json::object();
  CHECK(one(bad)[0].message.starts_with("its status.inventory has no entries"));
  json entries_list = entries({"not-an-id", kDeploy});
  entries_list.push_back(7);
  entries_list.push_back(json::object());
  entries_list.push_back({{"id", 5}});
  fs = one(ks("apps-rw", entries_list));
  CHECK(lines(fs) == std::vector<std::string>{"WC016 error Deployment/apps/podinfo",
                                              "WC016 warning Kustomization/flux-system/apps-rw"});
  CHECK(
      fs[1].message.starts_with("its status.inventory.entries[0] has the id \"not-an-id\", which is not "
                                "<namespace>_<name>_<group>_<kind> (and 3 more entries like it)"));
  CHECK(one(ks("apps-rw", json::array({7})))[0].message.starts_with("its status.inventory.entries[0] is a number"));
  CHECK(one(ks("apps-rw", json::array({json::object()})))[0].message.find("has no id") != std::string::npos);
  json id_number = json::array({{{"id", 5}}});
  CHECK(one(ks("apps-rw", id_number))[0].message.find("has an id that is a number, not a string") != std::string::npos);
  // No inventory at all (never reconciled) applied nothing yet: nothing to say.
  json fresh = ks("apps-rw", json::array());
  fresh["status"].erase("inventory");
  CHECK(one(fresh).empty());
  CHECK(one(ks("apps-rw", json::array())).empty());
}

TEST_CASE("WC016: the entries check indexes are capped, and the Kustomization cut is named") {
  std::vector<json> k = {ks("apps-rw", entries({kDeploy, kService})), ks("apps-rt", entries({kService, kDeploy}))};
  std::vector<Owner> owners = {{"Kustomization/flux-system/apps-rw", &k[0], {"CronJob/flux-system/close"}},
                               {"Kustomization/flux-system/apps-rt", &k[1], {}}};
  auto window = [](std::size_t) { return std::string(); };
  CHECK(lines(shared_objects(owners, window, 4)).size() == 2);
  auto fs = shared_objects(owners, window, 3);
  CHECK(lines(fs) == std::vector<std::string>{"WC016 warning Kustomization/flux-system/apps-rt",
                                              "WC016 error Service/apps/podinfo"});
  CHECK(fs[0].message.starts_with("WC016 compared 1 of the 2 objects in its status.inventory: check indexes 3 in all"));
}

TEST_CASE("WC016 through check_objects: windowed as the jobs say, windows as the schedule rules model them") {
  auto job = [](const std::string& name, const std::string& command, const std::string& targets,
                const std::string& schedule, bool suspend = false) {
    json c;
    c["name"] = "windowctl";
    c["image"] = "registry.example.com/windowctl:1";
    c["args"] = {command, "--kustomizations", targets};
    json j;
    j["apiVersion"] = "batch/v1";
    j["kind"] = "CronJob";
    j["metadata"]["name"] = name;
    j["metadata"]["namespace"] = "flux-system";
    j["spec"]["schedule"] = schedule;
    j["spec"]["timeZone"] = "Europe/Zurich";
    j["spec"]["suspend"] = suspend;
    j["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"] = json::array({c});
    return j;
  };
  const SysTime now = *parse_rfc3339("2026-01-05T00:00:00Z");
  const CheckScope live{true, false, false, {}};
  auto run = [&](std::vector<json> objects, const CheckScope& scope) {
    std::vector<std::string> out;
    for (const auto& f : check_objects(objects, now, nullptr, scope))
      if (f.id == "WC016") out.push_back(f.severity + " " + f.object);
    return out;
  };
  const std::vector<json> two = {ks("apps-rw", entries({kDeploy})), ks("apps-rt", entries({kDeploy}))};
  auto with = [&](std::vector<json> jobs) {
    std::vector<json> all = two;
    all.insert(all.end(), jobs.begin(), jobs.end());
    return all;
  };
  CHECK(run(with({job("close", "close", "apps-rw", "0 17 * * 4")}), live) ==
        std::vector<std::string>{"error Deployment/apps/podinfo"});
  CHECK(run(with({job("close", "close", "apps-rw", "0 17 * * 4")}), {}).empty());  // offline: no inventory
  // A suspended job windows nothing; nor does an open job.
  CHECK(run(with({job("close", "close", "apps-rw", "0 17 * * 4", true)}), live).empty());
  CHECK(run(with({job("open", "open", "apps-rw", "0 8 * * 1")}), live).empty());
  // Both windowed: the same window (the same runs, however the cron is spelled) or different ones.
  CHECK(
      run(with({job("close-a", "close", "apps-rw", "0 17 * * 4"), job("close-b", "close", "apps-rt", "0 17 * * THU")}),
          live)
          .empty());
  CHECK(run(with({job("close-a", "close", "apps-rw", "0 17 * * 4"), job("close-b", "close", "apps-rt", "0 18 * * 4")}),
            live) == std::vector<std::string>{"warning Deployment/apps/podinfo"});
  CHECK(run(with({job("close", "close", "apps-rw,apps-rt", "0 17 * * 4"), job("open-a", "open", "apps-rw", "0 8 * * 1"),
                  job("open-b", "open", "apps-rt", "0 9 * * 1")}),
            live) == std::vector<std::string>{"warning Deployment/apps/podinfo"});
}

TEST_CASE("owners_offline_note: said when the jobs window a Kustomization, whose inventory only the cluster has") {
  CHECK(owners_offline_note({}).empty());
  CHECK(owners_offline_note({{"CronJob/flux-system/open", "open", false, {"Kustomization/flux-system/a"}}}).empty());
  CHECK(owners_offline_note({{"CronJob/flux-system/close", "close", true, {"HelmRelease/flux-system/a"}}}).empty());
  CHECK(owners_offline_note({{"CronJob/flux-system/close", "close", true, {"Kustomization/flux-system/a"}}})
            .starts_with("WC016 (an object that a windowed and another Kustomization both apply) not checked"));
}
