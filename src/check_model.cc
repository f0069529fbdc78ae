#include "check_model.h"

#include <initializer_list>
#include <sstream>
#include <string_view>

#include "cli.h"
#include "json_read.h"
#include "kinds.h"

namespace windowctl {

using nlohmann::json;

namespace {

const json* at(const json& obj, std::initializer_list<std::string_view> path) {
  const json* cur = &obj;
  for (auto key : path) {
    cur = field(*cur, key);
    if (!cur) return nullptr;
  }
  return cur;
}

std::vector<std::string> strings(const json* list) {
  std::vector<std::string> out;
  if (!list || !list->is_array()) return out;
  for (const auto& v : *list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// The windowctl container of a CronJob and its argv after the program name, or nothing.
std::optional<std::vector<std::string>> windowctl_argv(const json& cronjob) {
  const json* containers = at(cronjob, {"spec", "jobTemplate", "spec", "template", "spec", "containers"});
  if (!containers || !containers->is_array()) return std::nullopt;
  for (const auto& c : *containers) {
    auto command = strings(field(c, "command"));
    auto args = strings(field(c, "args"));
    bool runs_it = !command.empty() && command.front().ends_with("windowctl");
    if (!runs_it && string_at(c, "name") != "windowctl" && string_at(c, "image").find("windowctl") == std::string::npos) {
      continue;
    }
    std::vector<std::string> argv;
    if (runs_it) argv.assign(command.begin() + 1, command.end());
    argv.insert(argv.end(), args.begin(), args.end());
    // Global flags may come first (`--log-format json close ...`): the command is what the
    // binary's own parser would find.
    argv = hoist_global_flags(std::move(argv));
    if (argv.empty()) continue;
    const std::string& verb = argv[0];
    if (verb == "open" || verb == "close" || verb == "sync" || verb == "suspend" || verb == "resume") return argv;
  }
  return std::nullopt;
}

// FLUX_SYSTEM_NAMESPACE as the pod would see it; "" when the container does not set it.
std::string flux_namespace_env(const json& cronjob, const std::string& job_ns) {
  const json* containers = at(cronjob, {"spec", "jobTemplate", "spec", "template", "spec", "containers"});
  if (!containers || !containers->is_array()) return {};
  for (const auto& c : *containers) {
    const json* env = field(c, "env");
    if (!env || !env->is_array()) continue;
    for (const auto& e : *env) {
      if (string_at(e, "name") != "FLUX_SYSTEM_NAMESPACE") continue;
      if (const json* v = field(e, "value"); v && v->is_string()) return v->get<std::string>();
      const json* path = at(e, {"valueFrom", "fieldRef", "fieldPath"});
      if (path && path->is_string() && path->get<std::string>() == "metadata.namespace") return job_ns;
    }
  }
  return {};
}

std::optional<WindowJob> parse_job(const json& cronjob) {
  auto argv = windowctl_argv(cronjob);
  if (!argv) return std::nullopt;
  WindowJob job;
  job.object = &cronjob;
  job.ns = namespace_of(cronjob);
  job.name = name_of(cronjob);
  job.key = object_key("CronJob", job.ns, job.name);
  // The job's args read by the binary's own command line, so check sees what the job will do.
  CommandLine cli;
  std::ostringstream help;
  const bool refused = cli.parse(*argv, help, &job.args_problem).has_value();
  job.command = cli.command().empty() ? (*argv)[0] : cli.command();
  if (refused) {
    if (job.args_problem.empty()) job.args_problem = "its args ask for help, not a window";
    return job;
  }
  const Flags& f = cli.flags();
  job.args_problem = cli.flags_problem();
  job.names = f.args;
  // Comma lists, items as written (trimmed): the rules compare them with the manifests' names.
  auto split_into = [](const std::vector<std::string>& values, std::vector<std::string>& into) {
    for (const auto& value : values) {
      std::string_view rest = value;
      while (true) {
        auto comma = rest.find(',');
        if (auto item = trim(rest.substr(0, comma)); !item.empty()) into.push_back(item);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  };
  split_into(f.names, job.names);
  split_into(f.targets, job.kind_targets);
  job.selector = f.selector;
  job.has_selector = cli.given("--selector");
  job.all = f.all;
  job.relabel = f.relabel;
  job.kind_arg = f.kind;
  job.windows = f.windows;
  job.denies = f.denies;
  job.freezes = f.freezes;
  const KindAdapter* kind = find_kind(job.kind_arg);
  job.kind = kind ? std::string(kind->kind) : "";
  job.target_ns = f.ns;
  if (job.target_ns.empty()) job.target_ns = flux_namespace_env(cronjob, job.ns);
  if (job.target_ns.empty()) job.target_ns = "flux-system";
  const json* suspend = at(cronjob, {"spec", "suspend"});
  job.suspended = suspend && suspend->is_boolean() && suspend->get<bool>();
  if (const json* spec = field(cronjob, "spec")) {
    job.schedule = string_at(*spec, "schedule");
    job.time_zone = string_at(*spec, "timeZone");
  }
  if (const json* pod = at(cronjob, {"spec", "jobTemplate", "spec", "template", "spec"})) {
    std::string sa = string_at(*pod, "serviceAccountName");
    if (sa.empty()) sa = string_at(*pod, "serviceAccount");
    if (!sa.empty()) job.service_account = sa;
  }
  return job;
}

// One requirement of a selector: key, operator (=, !=, in, notin, exists, !exists), values.
struct Requirement {
  std::string key, op;
  std::set<std::string> values;
};

std::optional<std::vector<Requirement>> parse_selector(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth < 0 || depth > 1) return std::nullopt;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  std::vector<Requirement> out;
  for (auto& raw : parts) {
    std::string p = trim(raw);
    if (p.empty()) {
      if (parts.size() == 1) break;  // "" selects everything
      return std::nullopt;
    }
    Requirement r;
    if (auto paren = p.find('('); paren != std::string::npos) {
      if (p.back() != ')') return std::nullopt;
      std::string head = trim(p.substr(0, paren));
      auto space = head.find_last_of(" \t");
      if (space == std::string::npos) return std::nullopt;
      r.key = trim(head.substr(0, space));
      r.op = head.substr(space + 1);
      if (r.op != "in" && r.op != "notin") return std::nullopt;
      std::string_view list(p);
      list = list.substr(paren + 1, list.size() - paren - 2);
      while (true) {
        auto comma = list.find(',');
        r.values.insert(trim(list.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    } else if (auto ne = p.find("!="); ne != std::string::npos) {
      r = {trim(p.substr(0, ne)), "!=", {trim(p.substr(ne + 2))}};
    } else if (auto eq = p.find('='); eq != std::string::npos) {
      std::size_t len = p.compare(eq, 2, "==") == 0 ? 2 : 1;
      r = {trim(p.substr(0, eq)), "=", {trim(p.substr(eq + len))}};
    } else if (p.front() == '!') {
      r = {trim(p.substr(1)), "!exists", {}};
    } else {
      r = {p, "exists", {}};
    }
    if (r.key.empty()) return std::nullopt;
    out.push_back(std::move(r));
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
    const json* map = at(object, {"metadata", where});
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

std::optional<bool> selector_matches(const std::string& selector, const json& labels) {
  auto reqs = parse_selector(selector);
  if (!reqs) return std::nullopt;
  for (const auto& r : *reqs) {
    const json* v = labels.is_object() ? field(labels, r.key) : nullptr;
    bool has = v && v->is_string();
    std::string value = has ? v->get<std::string>() : "";
    bool ok = r.op == "exists"    ? has
              : r.op == "!exists" ? !has
              : r.op == "=" || r.op == "in" ? has && r.values.count(value)
                                            : !has || !r.values.count(value);  // != and notin
    if (!ok) return false;
  }
  return true;
}

Manifests index_manifests(const std::vector<json>& objects) {
  Manifests m;
  static const std::set<std::string> kClusterScoped = {"ClusterRole", "ClusterRoleBinding", "Namespace",
                                                       "CustomResourceDefinition"};
  for (const auto& obj : objects) {
    m.all.push_back(&obj);
    std::string kind = string_at(obj, "kind");
    m.by_key[object_key(kind, kClusterScoped.count(kind) ? "" : namespace_of(obj), name_of(obj))] = &obj;
    if (kind == "CronJob") {
      if (auto job = parse_job(obj)) m.jobs.push_back(std::move(*job));
    }
  }
  for (auto& job : m.jobs) {
    if (job.kind.empty()) continue;
    for (const auto& n : job.names) {
      auto slash = n.find('/');
      job.targets.insert(slash == std::string::npos ? object_key(job.kind, job.target_ns, n)
                                                    : object_key(job.kind, n.substr(0, slash), n.substr(slash + 1)));
    }
    for (const auto& t : job.kind_targets) {  // KIND/NAME or KIND/NS/NAME, each of its own kind
      auto slash = t.find('/'), last = t.rfind('/');
      const KindAdapter* kind = slash == std::string::npos ? nullptr : find_kind(t.substr(0, slash));
      if (!kind) continue;
      job.targets.insert(object_key(std::string(kind->kind), slash == last ? job.target_ns : t.substr(slash + 1, last - slash - 1),
                                    t.substr(last + 1)));
    }
    if (job.has_selector || job.all) {
      for (const json* obj : m.all) {
        if (string_at(*obj, "kind") != job.kind || namespace_of(*obj) != job.target_ns) continue;
        const json* labels = at(*obj, {"metadata", "labels"});
        if (job.all || selector_matches(job.selector, labels ? *labels : json::object()).value_or(false)) {
          job.targets.insert(object_key(job.kind, job.target_ns, name_of(*obj)));
        }
      }
    }
    if (job.windowing()) m.windowed.insert(job.targets.begin(), job.targets.end());
  }
  return m;
}

}  // namespace windowctl
