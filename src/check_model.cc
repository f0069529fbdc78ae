#include "check_model.h"

#include <initializer_list>
#include <sstream>
#include <string_view>

#include "command_table.h"
#include "commands.h"
#include "config.h"
#include "json_read.h"
#include "kinds.h"

namespace windowctl {

using nlohmann::json;

namespace {

std::vector<std::string> strings(const json* list) {
  std::vector<std::string> out;
  if (!list || !list->is_array()) return out;
  for (const auto& v : *list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// The windowctl container of a CronJob and its argv after the program name.
struct Container {
  const json* spec = nullptr;
  std::vector<std::string> argv;
};

std::optional<Container> windowctl_container(const json& cronjob) {
  const json* containers = field_path(cronjob, {"spec", "jobTemplate", "spec", "template", "spec", "containers"});
  if (!containers || !containers->is_array()) return std::nullopt;
  for (const auto& c : *containers) {
    auto command = strings(field(c, "command"));
    auto args = strings(field(c, "args"));
    bool runs_it = !command.empty() && command.front().ends_with("windowctl");
    if (!runs_it && string_at(c, "name") != "windowctl" &&
        string_at(c, "image").find("windowctl") == std::string::npos) {
      continue;
    }
    std::vector<std::string> argv;
    if (runs_it) argv.assign(command.begin() + 1, command.end());
    argv.insert(argv.end(), args.begin(), args.end());
    // Global flags may come first (`--log-format json close ...`): the command is what the
    // binary's own parser would find.
    argv = hoist_global_flags(std::move(argv));
    if (argv.empty()) continue;
    // A window job runs open, close or sync (aliases included), as the command table names them.
    const Command* cmd = find_command(argv[0]);
    if (cmd && (cmd->id == CommandId::kOpen || cmd->id == CommandId::kClose || cmd->id == CommandId::kSync)) {
      return Container{&c, argv};
    }
  }
  return std::nullopt;
}

// The container's environment as its pod sees it, as far as the manifest tells: plain values and
// the downward API's metadata.namespace (the shipped bases set FLUX_SYSTEM_NAMESPACE so). A
// variable from a ConfigMap, a Secret or $(...) expansion is unknown here, so left unset; a
// later entry of the same name wins, as the kubelet builds it.
Getenv pod_getenv(const json& container, const std::string& pod_ns) {
  std::map<std::string, std::string> env;
  const json* list = field(container, "env");
  for (const auto& e : list && list->is_array() ? *list : json::array()) {
    std::string name = string_at(e, "name");
    const json* value = field(e, "value");
    const json* path = field_path(e, {"valueFrom", "fieldRef", "fieldPath"});
    if (value && value->is_string() && value->get_ref<const std::string&>().find("$(") == std::string::npos) {
      env[name] = value->get<std::string>();
    } else if (path && *path == "metadata.namespace") {
      env[name] = pod_ns;
    } else {
      env.erase(name);
    }
  }
  return [env = std::move(env)](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

// What the binary decides from its parsed command line before the first request: its own
// command_options (every flag converted and checked, the namespace from the pod's environment),
// then the targets as resolve reads them. A ConfigError is the job's exit 2.
void resolve_args(WindowJob& job, const CommandLine& cli, const Getenv& getenv, const ReadCalendar& read) {
  CommandOptions opt = command_options(cli, Build{}, getenv, read);
  job.windows = std::move(opt.schedule);
  const CommandId id = opt.command->id;
  if (id == CommandId::kClose || id == CommandId::kSync) job.overrun = opt.overrun;
  if (id == CommandId::kSync || (id == CommandId::kOpen && opt.scheduled)) job.cutoff = opt.cutoff;
  job.kind = opt.kind;
  job.target_ns = opt.ns;
  // Names as arguments, then --kustomizations, then --targets.
  job.named = parse_targets(opt.names, job.target_ns);
  auto kinded = parse_kind_targets(opt.kind_targets, job.target_ns);
  job.named.insert(job.named.end(), kinded.begin(), kinded.end());
  if (opt.all || !opt.selector.empty()) job.selector = parse_selector(opt.selector).value_or(LabelSelector{});
}

// A file as the job's pod reads it: a key of a ConfigMap volume mounted at (or above) the path,
// the ConfigMap taken from the input (offline) or the cluster (live).
ReadCalendar pod_files(const json& pod, const json& container, const std::string& ns, const Manifests& m,
                       const std::set<std::string>& unread, bool& unread_hit) {
  return [&pod, &container, ns, &m, &unread, &unread_hit](const std::string& path) -> std::string {
    auto refuse = [&](const std::string& why) -> std::string {
      throw ConfigError("calendar " + path + ": " + why + "; check reads a calendar from a ConfigMap volume");
    };
    static const json kNone = json::array();
    const json* mounts = field(container, "volumeMounts");
    const json* best = nullptr;
    std::string rest;
    for (const auto& mount : mounts && mounts->is_array() ? *mounts : kNone) {
      std::string dir = string_at(mount, "mountPath");
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      std::string sub = string_at(mount, "subPath");
      std::string tail;
      if (!sub.empty()) {
        if (path != dir) continue;
        tail = sub;
      } else if (path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/') {
        tail = path.substr(dir.size() + 1);
      } else {
        continue;
      }
      if (!best || string_at(*best, "mountPath").size() < dir.size()) {
        best = &mount;
        rest = tail;
      }
    }
    if (!best) refuse("no volume of the job's container is mounted there");
    const std::string volume = string_at(*best, "name");
    const json* volumes = field(pod, "volumes");
    const json* source = nullptr;
    for (const auto& v : volumes && volumes->is_array() ? *volumes : kNone) {
      if (string_at(v, "name") == volume) source = field(v, "configMap");
    }
    if (!source) refuse("volume \"" + volume + "\" is not a ConfigMap volume");
    const std::string name = string_at(*source, "name");
    std::string key = rest;
    if (const json* items = field(*source, "items"); items && items->is_array()) {
      key.clear();
      for (const auto& item : *items) {
        if (string_at(item, "path") == rest) key = string_at(item, "key");
      }
      if (key.empty()) refuse("ConfigMap volume \"" + volume + "\" lists no item with path " + rest);
    }
    const json* cm = m.find(object_key("ConfigMap", ns, name));
    if (!cm && unread.count(object_key("ConfigMap", ns, name))) {
      unread_hit = true;
      refuse("ConfigMap " + ns + "/" + name + " could not be read");
    }
    if (!cm) refuse("ConfigMap " + ns + "/" + name + " is not among the objects read");
    const json* data = field_path(*cm, {"data", key});
    if (!data || !data->is_string()) refuse("ConfigMap " + ns + "/" + name + " has no data key \"" + key + "\"");
    return data->get<std::string>();
  };
}

std::optional<WindowJob> parse_job(const json& cronjob, const Manifests& m, const std::set<std::string>& unread) {
  auto container = windowctl_container(cronjob);
  if (!container) return std::nullopt;
  WindowJob job;
  job.object = &cronjob;
  job.ns = namespace_of(cronjob);
  job.name = name_of(cronjob);
  job.key = object_key("CronJob", job.ns, job.name);
  job.image = string_at(*container->spec, "image");
  const json* suspend = field_path(cronjob, {"spec", "suspend"});
  job.suspended = suspend && suspend->is_boolean() && suspend->get<bool>();
  if (const json* spec = field(cronjob, "spec")) {
    job.schedule = string_at(*spec, "schedule");
    job.time_zone = string_at(*spec, "timeZone");
  }
  if (const json* spec = field_path(cronjob, {"spec", "jobTemplate", "spec"}))
    job.active_deadline = int_at(*spec, "activeDeadlineSeconds");
  if (const json* pod = field_path(cronjob, {"spec", "jobTemplate", "spec", "template", "spec"})) {
    std::string sa = string_at(*pod, "serviceAccountName");
    if (sa.empty()) sa = string_at(*pod, "serviceAccount");
    if (!sa.empty()) job.service_account = sa;
  }
  // The job's args read by the binary's own command line, so check sees what the job will do.
  CommandLine cli;
  std::ostringstream help;
  const bool refused = cli.parse(container->argv, help, &job.args_problem).has_value();
  job.command = cli.command().empty() ? container->argv[0] : cli.command();
  if (refused) {
    if (job.args_problem.empty()) job.args_problem = "its args ask for help, not a window";
    return job;
  }
  job.flags = cli.flags();
  try {
    const json* pod = field_path(cronjob, {"spec", "jobTemplate", "spec", "template", "spec"});
    static const json kNone = json::object();
    resolve_args(job, cli, pod_getenv(*container->spec, job.ns),
                 pod_files(pod ? *pod : kNone, *container->spec, job.ns, m, unread, job.args_unread));
  } catch (const ConfigError& e) {
    job.args_problem = e.what();
    job.named.clear();
    job.selector.reset();
  }
  return job;
}

Labels labels_of(const json& object) {
  Labels out;
  const json* labels = field_path(object, {"metadata", "labels"});
  if (!labels || !labels->is_object()) return out;
  for (const auto& [key, value] : labels->items()) {
    if (value.is_string()) out.emplace(key, value.get<std::string>());
  }
  return out;
}

}  // namespace

std::string object_key(const std::string& kind, const std::string& ns, const std::string& name) {
  return ns.empty() ? kind + "/" + name : kind + "/" + ns + "/" + name;
}

std::string namespace_of(const json& object) {
  std::string ns = metadata_string(object, "namespace");
  return ns.empty() ? "default" : ns;
}

std::string name_of(const json& object) { return metadata_string(object, "name"); }

std::string label_or_annotation(const json& object, const std::string& key) {
  for (const char* where : {"labels", "annotations"}) {
    const json* map = field_path(object, {"metadata", where});
    if (map && map->is_object()) {
      if (std::string v = string_at(*map, key); !v.empty()) return v;
    }
  }
  return {};
}

const json* Manifests::find(const std::string& key) const {
  auto it = by_key.find(key);
  return it == by_key.end() ? nullptr : it->second;
}

Manifests index_manifests(const std::vector<json>& objects, const std::set<std::string>& unread) {
  Manifests m;
  static const std::set<std::string> kClusterScoped = {"ClusterRole", "ClusterRoleBinding", "Namespace",
                                                       "CustomResourceDefinition"};
  for (const auto& obj : objects) {
    m.all.push_back(&obj);
    std::string kind = string_at(obj, "kind");
    m.by_key[object_key(kind, kClusterScoped.count(kind) ? "" : namespace_of(obj), name_of(obj))] = &obj;
  }
  // After the index: a job reads its calendars from ConfigMaps anywhere in the input.
  for (const json* obj : m.all) {
    if (string_at(*obj, "kind") != "CronJob") continue;
    if (auto job = parse_job(*obj, m, unread)) m.jobs.push_back(std::move(*job));
  }
  for (auto& job : m.jobs) {
    for (const auto& t : job.named) {
      job.targets.insert(object_key(std::string(t.kind ? t.kind->kind : job.kind->kind), t.ns, t.name));
    }
    if (job.selector) {  // among the input's objects, as the server would list them
      const std::string kind(job.kind->kind);
      for (const json* obj : m.all) {
        const std::string ns = namespace_of(*obj);
        if (string_at(*obj, "kind") != kind || (!job.flags.all_namespaces && ns != job.target_ns)) continue;
        if (selector_matches(*job.selector, labels_of(*obj))) job.targets.insert(object_key(kind, ns, name_of(*obj)));
      }
    }
    if (job.windowing()) m.windowed.insert(job.targets.begin(), job.targets.end());
  }
  return m;
}

}  // namespace windowctl
