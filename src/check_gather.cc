// The I/O half of `windowctl check` against the cluster (check_online.h): reads the server's
// version, the window CronJobs (or the flags' targets), each target and the caller's access,
// into a LiveFacts for check_live. Reads only, except the SelfSubjectAccessReviews, which the
// server answers without storing anything. No failure stops the rest: each becomes a fact.
#include <spdlog/spdlog.h>

#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "api_error.h"
#include "check_model.h"
#include "check_online.h"
#include "check_owners.h"
#include "fleet.h"
#include "json_read.h"
#include "kinds.h"
#include "manifests.h"
#include "output.h"
#include "resolve.h"
#include "targets.h"

namespace windowctl {

using nlohmann::json;

namespace {

// What one window job (or the check's own target flags) asks of the cluster.
struct JobSpec {
  LiveJob live;
  bool review = true;                 // ask about the caller's access: it is the job's ServiceAccount
  const KindAdapter* kind = nullptr;  // of the selection
  std::string ns;                     // of the selection; "": every namespace (-A)
  std::string selector;
  bool select = false;        // -l or --all
  std::vector<Target> named;  // each with its kind
};

class Gatherer {
 public:
  explicit Gatherer(Client& client) : client_(client) {}

  LiveFacts gather(const CommandOptions& opt) {
    if (!opt.api_version.empty()) versions_[opt.kind] = opt.api_version;  // --api-version: of --kind, not discovered
    try {
      json v = client_.call("GET", "/version");
      facts_.server = parse_server_version(v);
      facts_.server_text = printable(string_at(v, "gitVersion"), 64);
    } catch (const std::exception& e) {
      rethrow_tls(e);
      spdlog::warn("{}", "/version: " + error_summary(e) + " (WC011 not checked)");
    }
    bool flags = !opt.names.empty() || !opt.kind_targets.empty() || !opt.selector.empty() || opt.all;
    std::vector<JobSpec> specs = flags ? std::vector<JobSpec>{from_flags(opt)} : from_cronjobs(opt.ns);
    for (auto& spec : specs) {
      for (const auto& t : spec.named) spec.live.targets.push_back(read_target(*t.kind, t.ns, t.name));
      if (spec.select) select(spec);
      if (spec.review) review_access(spec);
      facts_.jobs.push_back(std::move(spec.live));
    }
    if (!flags) gather_model();
    return std::move(facts_);
  }

 private:
  static LiveRead read_of(const std::string& error) {
    return error.starts_with("forbidden") ? LiveRead::kForbidden : LiveRead::kFailed;
  }
  static void rethrow_tls(const std::exception& e) {
    if (auto* t = dynamic_cast<const TransportError*>(&e); t && refused_by_tls(*t)) rethrow_verify_as_config(*t);
  }

  JobSpec from_flags(const CommandOptions& opt) {
    JobSpec spec;
    spec.kind = opt.kind;
    spec.ns = opt.ns;
    spec.selector = opt.selector;
    spec.select = !opt.selector.empty() || opt.all;
    spec.named = parse_targets(opt.names, opt.ns);
    for (auto& t : spec.named) t.kind = opt.kind;
    auto others = parse_kind_targets(opt.kind_targets, opt.ns);
    spec.named.insert(spec.named.end(), others.begin(), others.end());
    return spec;
  }

  std::vector<JobSpec> from_cronjobs(const std::string& ns) {
    std::vector<json> cronjobs;
    std::string error;
    list_all("/apis/batch/v1/namespaces/" + ns + "/cronjobs?limit=500", error, [&](json&& item) {
      item["kind"] = "CronJob";  // a LIST of a built-in kind leaves it out of its items
      item["apiVersion"] = "batch/v1";
      cronjobs.push_back(std::move(item));
    });
    if (!error.empty()) facts_.targets.push_back({"CronJobs in " + ns, read_of(error), error, nullptr});
    // The ConfigMaps the jobs mount (their calendars): read before the jobs' args are, as a pod
    // has its volumes before it starts. One missing is the job's own failure (WC010); one check
    // may not read is said (WC017), and the job's args are then not judged on it.
    std::set<std::string> mounted;
    for (const auto& cj : cronjobs) {
      const json* volumes = field_path(cj, {"spec", "jobTemplate", "spec", "template", "spec", "volumes"});
      for (const auto& v : volumes && volumes->is_array() ? *volumes : json::array()) {
        const json* name = field_path(v, {"configMap", "name"});
        if (name && name->is_string() && valid_object_name(name->get<std::string>()))
          mounted.insert(name->get<std::string>());
      }
    }
    for (const auto& name : mounted) {
      try {
        json cm = client_.call("GET", "/api/v1/namespaces/" + ns + "/configmaps/" + name);
        if (!cm.is_object()) throw std::runtime_error("bad response: the ConfigMap is not a JSON object");
        cm["kind"] = "ConfigMap";
        cm["apiVersion"] = "v1";
        cronjobs.push_back(std::move(cm));
      } catch (const ApiError& e) {
        if (e.code() == 404) continue;
        facts_.unread.push_back(
            {object_key("Namespace", "", ns), "configmaps in " + ns + " (" + name + ")", {"WC010"}, e.summary()});
        unread_configmaps_.insert(object_key("ConfigMap", ns, name));
      } catch (const std::exception& e) {
        rethrow_tls(e);
        facts_.unread.push_back(
            {object_key("Namespace", "", ns), "configmaps in " + ns + " (" + name + ")", {"WC010"}, error_summary(e)});
        unread_configmaps_.insert(object_key("ConfigMap", ns, name));
      }
    }
    Manifests m = index_manifests(cronjobs, unread_configmaps_);
    if (m.jobs.empty() && error.empty()) facts_.no_window_job_in = ns;
    for (const auto& job : m.jobs) job_namespaces_.insert(job.ns);
    facts_.model = std::move(cronjobs);  // m's pointers are not used past this function
    std::vector<JobSpec> specs;
    for (const auto& job : m.jobs) {
      JobSpec spec;
      spec.live.key = job.key;
      spec.live.windowing = job.windowing();
      spec.live.relabel = job.flags.relabel;
      spec.live.time_zone = job.time_zone;
      spec.live.command = job.command;
      // A review answers for the caller: about the job only when check runs as its ServiceAccount.
      std::string runs_as = "system:serviceaccount:" + job.ns + ":" + job.service_account;
      spec.review = client_.config().identity == runs_as;
      if (!spec.review) {
        spdlog::info("{}", job.key + ": permissions not checked (WC015): it runs as " + runs_as + ", check as " +
                               printable(client_.config().identity, 256) + "; run check as that ServiceAccount");
      }
      spec.kind = job.kind;
      spec.ns = job.flags.all_namespaces ? "" : job.target_ns;
      spec.selector = job.flags.selector;
      spec.select = job.selector.has_value();
      spec.named = job.named;
      for (auto& t : spec.named) t.kind = t.kind ? t.kind : job.kind;
      specs.push_back(std::move(spec));
    }
    return specs;
  }

  // The version windowctl speaks for a kind; "" when the cluster does not serve it.
  std::string version(const KindAdapter& kind) {
    auto [it, fresh] = versions_.try_emplace(&kind);
    if (fresh) {
      try {
        it->second = choose_version(kind, client_.call("GET", group_path(kind)));
      } catch (const std::exception& e) {
        rethrow_tls(e);
        spdlog::warn("{}", group_path(kind) + ": " + error_summary(e));
      }
    }
    return it->second;
  }

  // Reads one target once, however many jobs name it; returns its key.
  std::string read_target(const KindAdapter& kind, const std::string& ns, const std::string& name,
                          const json* listed = nullptr) {
    std::string key = object_key(std::string(kind.kind), ns, name);
    if (!seen_.insert(key).second) return key;
    LiveTarget t{key, LiveRead::kFound, {}, nullptr, kind.pause};
    std::string v = version(kind);
    if (listed) {
      t.object = *listed;
    } else if (!valid_namespace(ns) || !valid_object_name(name)) {
      t.read = LiveRead::kNotFound;  // no object can have that name
    } else if (v.empty()) {
      t.read = LiveRead::kFailed;
      t.error = std::string(kind.kind) + " is not served by this cluster (is Flux installed?)";
    } else {
      try {
        t.object = client_.call("GET", object_path(kind, v, ns, name));
      } catch (const ApiError& e) {
        t.read = e.code() == 404 ? LiveRead::kNotFound : e.code() == 403 ? LiveRead::kForbidden : LiveRead::kFailed;
        t.error = e.summary();
      } catch (const std::exception& e) {
        rethrow_tls(e);
        t.read = LiveRead::kFailed;
        t.error = error_summary(e);
      }
    }
    if (t.read == LiveRead::kNotFound) missing_.insert(key);
    facts_.targets.push_back(std::move(t));
    return key;
  }

  // Every page of a LIST, item by item; a failure ends it with `error` set.
  void list_all(const std::string& base, std::string& error, const std::function<void(json&&)>& each) {
    std::string cont;
    try {
      do {
        std::string text = client_.fetch("GET", cont.empty() ? base : base + "&continue=" + http::query_escape(cont),
                                         nullptr, "application/json", kMaxPageBytes);
        if (json_depth(text) > kMaxJsonDepth) throw std::runtime_error("bad response: the LIST answer nests too deep");
        // The shape every LIST is held to (resolve.h): a malformed answer is named, never read as
        // "no window CronJobs".
        if (std::string problem = list_page_problem(text); !problem.empty())
          throw std::runtime_error("bad response: " + problem);
        json page = json::parse(text, nullptr, false);
        for (auto& item : page["items"]) each(std::move(item));
        const json* meta = field(page, "metadata");
        cont = meta ? string_at(*meta, "continue") : "";
      } while (!cont.empty());
    } catch (const std::exception& e) {
      rethrow_tls(e);
      error = error_summary(e);
    }
  }

  void select(JobSpec& spec) {
    std::string v = version(*spec.kind);
    std::string what = std::string(spec.kind->kind) + "s in " + (spec.ns.empty() ? "all namespaces" : spec.ns);
    if (v.empty() || (!spec.ns.empty() && !valid_namespace(spec.ns))) {
      facts_.targets.push_back(
          {what, LiveRead::kFailed, std::string(spec.kind->kind) + " is not served by this cluster", nullptr});
      return;
    }
    std::string base = collection_path(*spec.kind, v, spec.ns) + "?limit=500";
    if (!spec.selector.empty()) base += "&labelSelector=" + http::query_escape(spec.selector);
    std::string error;
    list_all(base, error, [&](json&& item) {
      std::string ns = metadata_string(item, "namespace");  // -A: each its own
      spec.live.targets.push_back(read_target(*spec.kind, ns.empty() ? spec.ns : ns, name_of(item), &item));
    });
    if (error.empty()) return;
    facts_.targets.push_back({what, read_of(error), error, nullptr});
    spec.live.targets.push_back(what);
  }

  // What the job's command needs: get and patch on each target, create events beside it, and
  // list where it selects.
  void review_access(const JobSpec& spec) {
    const std::string& job = spec.live.key;
    std::set<std::string> event_namespaces;
    for (const auto& key : spec.live.targets) {
      auto a = key.find('/'), b = key.rfind('/');
      const KindAdapter* kind = find_kind(key.substr(0, a));
      if (!kind || a == b || missing_.count(key)) continue;  // WC012 says enough
      std::string ns = key.substr(a + 1, b - a - 1), name = key.substr(b + 1);
      for (const char* verb : {"get", "patch"}) review(job.empty() ? key : job, verb, *kind, ns, name);
      event_namespaces.insert(ns);
    }
    if (spec.select) review(job.empty() ? object_key("Namespace", "", spec.ns) : job, "list", *spec.kind, spec.ns, "");
    for (const auto& ns : event_namespaces) {
      ask(job.empty() ? object_key("Namespace", "", ns) : job, "create", "", "events", ns, "");
    }
  }

  void review(const std::string& object, const char* verb, const KindAdapter& kind, const std::string& ns,
              const std::string& name) {
    ask(object, verb, std::string(kind.group), std::string(kind.plural), ns, name);
  }

  void ask(const std::string& object, const std::string& verb, const std::string& group, const std::string& resource,
           const std::string& ns, const std::string& name) {
    if (!asked_.insert(object + '\n' + verb + '\n' + group + '\n' + resource + '\n' + ns + '\n' + name).second) return;
    AccessReview r{object, verb, group, resource, ns, name, std::nullopt, {}, {}};
    json body;  // assignments, not an initializer list: a quarter of the code
    body["apiVersion"] = "authorization.k8s.io/v1";
    body["kind"] = "SelfSubjectAccessReview";
    json& attrs = body["spec"]["resourceAttributes"];
    attrs["namespace"] = ns;
    attrs["verb"] = verb;
    attrs["group"] = group;
    attrs["resource"] = resource;
    if (!name.empty()) attrs["name"] = name;
    try {
      auto answer =
          parse_access_review(client_.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", &body));
      if (answer) {
        r.allowed = answer->first;
        r.reason = printable(answer->second, 512);
      } else {
        r.error = "bad response: the review has no status.allowed";
      }
    } catch (const std::exception& e) {
      rethrow_tls(e);
      r.error = error_summary(e);
    }
    facts_.reviews.push_back(std::move(r));
  }

  // The model the offline rules read (check_online.h, LiveFacts::model): the CronJobs are in it
  // already; then the targets read, the Kustomizations and HelmReleases beside the windowed ones
  // (WC001), and the RBAC objects and ServiceAccounts (WC009, WC018). A read that fails is an
  // Unread (WC017) and the rules it feeds are not run on a partial picture.
  void gather_model() {
    if (job_namespaces_.empty()) return;
    std::set<std::string> in_model;
    auto add = [&](json&& item, const char* kind, const char* api_version) {
      if (!item.is_object()) return;
      if (!item.contains("kind")) item["kind"] = kind;
      if (!item.contains("apiVersion")) item["apiVersion"] = api_version;
      std::string key = object_key(string_at(item, "kind"), metadata_string(item, "namespace"), name_of(item));
      if (!in_model.insert(key).second) return;
      if (json* meta = item.contains("metadata") ? &item["metadata"] : nullptr; meta && meta->is_object())
        meta->erase("managedFields");  // the rules read none of it here; it is most of an object's size
      // status stays: WC016 reads each Kustomization's status.inventory.entries (check_owners.h).
      facts_.model.push_back(std::move(item));
    };
    for (const auto& o : facts_.model) in_model.insert(object_key(string_at(o, "kind"), namespace_of(o), name_of(o)));
    std::set<std::string> windowed_ns, target_ns;
    for (const auto& t : facts_.targets) {
      if (t.read != LiveRead::kFound) continue;
      json object = t.object;
      auto a = t.key.find('/'), b = t.key.rfind('/');
      if (a != b) target_ns.insert(t.key.substr(a + 1, b - a - 1));
      add(std::move(object), t.key.substr(0, a).c_str(), "");
    }
    for (const auto& job : facts_.jobs) {
      if (!job.windowing) continue;
      for (const auto& key : job.targets) {
        auto a = key.find('/'), b = key.rfind('/');
        if (a != std::string::npos && a != b) windowed_ns.insert(key.substr(a + 1, b - a - 1));
      }
    }
    // WC001: who else in those namespaces dependsOn a windowed object; WC016: what else there
    // applies an object that a windowed Kustomization applies.
    for (const char* name : {"Kustomization", "HelmRelease"}) {
      const KindAdapter* kind = find_kind(name);
      std::string v = kind ? version(*kind) : "";
      if (v.empty()) continue;  // not served: nothing of it can depend on anything
      const std::string api_version = std::string(kind->group) + "/" + v;
      for (const auto& wns : windowed_ns) {
        std::string error;
        list_all(collection_path(*kind, v, wns) + "?limit=500", error,
                 [&](json&& item) { add(std::move(item), name, api_version.c_str()); });
        if (!error.empty()) {
          facts_.unread.push_back({object_key("Namespace", "", wns),
                                   std::string(kind->plural) + "." + std::string(kind->group) + " in " + wns,
                                   // WC016 compares the Kustomizations' inventories too
                                   kind->kind == "Kustomization" ? std::vector<std::string>{"WC001", "WC016"}
                                                                 : std::vector<std::string>{"WC001"},
                                   error});
        }
      }
    }
    // WC009, WC018: the RBAC that could bind the jobs' ServiceAccounts, and the ServiceAccounts.
    const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/";
    bool bindings = true, accounts = true;
    auto read = [&](const std::string& path, const char* kind, const char* api_version, const std::string& what,
                    const std::string& object, std::vector<std::string> rules, bool& complete) {
      std::string error;
      list_all(path + "?limit=500", error, [&](json&& item) { add(std::move(item), kind, api_version); });
      if (error.empty()) return;
      complete = false;
      facts_.unread.push_back({object, what, std::move(rules), error});
    };
    std::set<std::string> rbac_ns = job_namespaces_;
    rbac_ns.insert(target_ns.begin(), target_ns.end());
    bool roles_ok = true;
    for (const auto& n : rbac_ns) {
      const std::string where = object_key("Namespace", "", n);
      read(rbac + "namespaces/" + n + "/rolebindings", "RoleBinding", "rbac.authorization.k8s.io/v1",
           "rolebindings.rbac.authorization.k8s.io in " + n, where, {"WC009", "WC018"}, bindings);
      read(rbac + "namespaces/" + n + "/roles", "Role", "rbac.authorization.k8s.io/v1",
           "roles.rbac.authorization.k8s.io in " + n, where, {"WC009"}, roles_ok);
      if (job_namespaces_.count(n)) {
        read("/api/v1/namespaces/" + n + "/serviceaccounts", "ServiceAccount", "v1", "serviceaccounts in " + n, where,
             {"WC018"}, accounts);
      }
    }
    read(rbac + "clusterrolebindings", "ClusterRoleBinding", "rbac.authorization.k8s.io/v1",
         "clusterrolebindings.rbac.authorization.k8s.io", "cluster", {"WC018"}, bindings);
    read(rbac + "clusterroles", "ClusterRole", "rbac.authorization.k8s.io/v1", "clusterroles.rbac.authorization.k8s.io",
         "cluster", {"WC009"}, roles_ok);
    facts_.scope = CheckScope{true, bindings, accounts, unread_configmaps_};
  }

  Client& client_;
  LiveFacts facts_;
  std::set<std::string> job_namespaces_;
  std::map<const KindAdapter*, std::string> versions_;
  std::set<std::string> seen_, missing_;
  std::set<std::string> asked_;
  std::set<std::string> unread_configmaps_;
};

}  // namespace

int run_check_online(Client& client, const CommandOptions& options, const std::vector<std::string>& files, SysTime at,
                     ContextRun* into) {
  std::vector<Finding> findings;
  std::vector<JobTargets> jobs;
  if (!files.empty()) {
    findings = check_objects(parse_manifests(read_manifest_sources(files)), at, &jobs);
    if (std::string note = owners_offline_note(jobs); !note.empty()) spdlog::info("{}", note);
  }
  const LiveFacts facts = Gatherer(client).gather(options);
  // The offline rules over what the cluster holds (one engine: live adds facts, not other rules).
  if (!facts.model.empty()) {
    auto offline = check_objects(facts.model, at, nullptr, facts.scope);
    findings.insert(findings.end(), offline.begin(), offline.end());
  }
  auto live = check_live(facts);
  findings.insert(findings.end(), live.begin(), live.end());
  sort_findings(findings);
  auto live_jobs = live_job_targets(facts);
  jobs.insert(jobs.end(), live_jobs.begin(), live_jobs.end());
  if (!into) std::cout << render_findings(findings, options.output == OutputFormat::kJson, jobs);
  if (findings.empty()) {
    spdlog::info("no findings for {} target{} ({} window job{}, {} access review{})", facts.targets.size(),
                 facts.targets.size() == 1 ? "" : "s", facts.jobs.size(), facts.jobs.size() == 1 ? "" : "s",
                 facts.reviews.size(), facts.reviews.size() == 1 ? "" : "s");
  }
  const int code = has_error(findings) ? 1 : 0;
  if (into) {
    into->findings = std::move(findings);
    into->jobs = std::move(jobs);
  }
  return code;
}

}  // namespace windowctl
