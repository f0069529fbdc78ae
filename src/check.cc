#include "check.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "check_model.h"
#include "check_owners.h"
#include "command_table.h"
#include "config.h"
#include "json_read.h"
#include "kinds.h"
#include "output.h"
#include "sync.h"
#include "window.h"

namespace windowctl {

using nlohmann::json;
using namespace std::chrono;

namespace {

// How many of the next windows the tick rules look at (all of the next year, up to this many).
constexpr int kMaxWindows = 500;
// WC024: what a close job needs beside its --overrun (the reads, writes and Events around the wait).
constexpr seconds kOverrunMargin{60};

// check_model.h keeps a job's command by name; its row says which it is.
bool job_runs(const WindowJob& job, CommandId id) {
  const Command* c = find_command(job.command);
  return c && c->id == id;
}

// The registry host of an image reference ("" for Docker Hub's short names).
std::string image_host(const std::string& image) {
  auto slash = image.find('/');
  if (slash == std::string::npos) return {};
  std::string first = image.substr(0, slash);
  bool host = first.find('.') != std::string::npos || first.find(':') != std::string::npos || first == "localhost";
  return host ? first.substr(0, first.find(':')) : std::string();
}

// Does `role` grant `verb` on `plural` in `group`? ("" in names: every name; else those names.)
std::set<std::string> granted_names(const json& role, const std::string& group, const std::string& plural,
                                    const std::string& verb) {
  std::set<std::string> names;
  const json* rules = field(role, "rules");
  for (const auto& r : rules && rules->is_array() ? *rules : json::array()) {
    auto has = [&](const char* list, const std::string& v) {
      const json* l = field(r, list);
      if (!l || !l->is_array()) return false;
      return std::any_of(l->begin(), l->end(), [&](const json& x) { return x.is_string() && (x == v || x == "*"); });
    };
    if (!has("apiGroups", group) || !has("resources", plural) || !has("verbs", verb)) continue;
    const json* rn = field(r, "resourceNames");
    if (!rn || !rn->is_array() || rn->empty()) names.insert("");
    for (const auto& n : rn && rn->is_array() ? *rn : json::array())
      if (n.is_string()) names.insert(n.get<std::string>());
  }
  return names;
}

// An open job and a close job with the same targets make one window (WC007, WC008, WC020).
bool same_targets(const WindowJob& a, const WindowJob& b) {
  return std::tie(a.kind, a.target_ns, a.targets, a.flags.selector, a.flags.all, a.flags.all_namespaces) ==
         std::tie(b.kind, b.target_ns, b.targets, b.flags.selector, b.flags.all, b.flags.all_namespaces);
}

// Whether a manifest declares its kind's pause field: the Kustomization applying it then
// re-applies that value over every close (WC002).
bool declares_pause(const json& obj, const Pause& pause) {
  if (!pause.annotation) {
    const json* spec = field(obj, "spec");
    return spec && field(*spec, "suspend");
  }
  const json* meta = field(obj, "metadata");
  const json* annotations = meta ? field(*meta, "annotations") : nullptr;
  return annotations && field(*annotations, pause.annotation);
}

bool is_binding(const std::string& kind) { return kind == "RoleBinding" || kind == "ClusterRoleBinding"; }

struct Checker {
  const Manifests& m;
  SysTime now;
  CheckScope scope;
  std::vector<Finding> out;

  void add(const char* id, const char* severity, const std::string& object, std::string message) {
    out.push_back({id, severity, object, std::move(message)});
  }

  static std::string who(const std::string& key) {
    return key.substr(0, key.find('/')) + " " + key.substr(key.find('/') + 1);
  }

  // WC001: dependsOn a windowed object from outside the window.
  void depends_on() {
    for (const json* obj : m.all) {
      std::string kind = string_at(*obj, "kind");
      if (kind != "Kustomization" && kind != "HelmRelease") continue;
      std::string key = object_key(kind, namespace_of(*obj), name_of(*obj));
      const json* spec = field(*obj, "spec");
      const json* deps = spec ? field(*spec, "dependsOn") : nullptr;
      if (m.windowed.count(key) || !deps || !deps->is_array()) continue;
      for (const auto& d : *deps) {
        std::string ns = string_at(d, "namespace");
        std::string dep = object_key(kind, ns.empty() ? namespace_of(*obj) : ns, string_at(d, "name"));
        if (!m.windowed.count(dep)) continue;
        add("WC001", "error", key,
            "depends on windowed " + who(dep) +
                ", so it stops reconciling whenever that window is closed: put it in the same window "
                "(add it to the jobs' targets) or remove the dependsOn");
      }
    }
  }

  // WC002: a parent re-applies the pause field (spec.suspend, or the kind's pause annotation) and
  // undoes every close unless the target is relabelled.
  void parent_undoes_close() {
    for (const auto& job : m.jobs) {
      if (!job.windowing() || job.flags.relabel) continue;
      for (const auto& target : job.targets) {
        const json* obj = m.find(target);
        const KindAdapter* kind = find_kind(target.substr(0, target.find('/')));
        if (!obj || !kind || !declares_pause(*obj, kind->pause)) continue;
        if (label_or_annotation(*obj, "kustomize.toolkit.fluxcd.io/reconcile") == "disabled") continue;
        const std::string pause_field = kind->pause.field();
        add("WC002", "error", job.key,
            "its target " + who(target) + " is applied with " + pause_field +
                " set, so the Kustomization that applies it undoes every close: add --relabel to this job (or remove " +
                pause_field + " from that manifest)");
      }
    }
  }

  // WC003: the jobs are applied by a Kustomization that their window suspends.
  void jobs_in_window() {
    for (const auto& job : m.jobs) {
      std::string parent = label_or_annotation(*job.object, "kustomize.toolkit.fluxcd.io/name");
      if (parent.empty()) continue;
      std::string ns = label_or_annotation(*job.object, "kustomize.toolkit.fluxcd.io/namespace");
      std::string key = object_key("Kustomization", ns.empty() ? job.ns : ns, parent);
      if (!m.windowed.count(key)) continue;
      add("WC003", "warning", job.key,
          "applied by " + who(key) +
              ", which a window suspends: changes to this job wait until the window opens; "
              "apply the window jobs from a Kustomization that no window suspends");
    }
  }

  static std::optional<TimeZone> zone_of(const WindowJob& job) {
    try {
      return job.time_zone.empty() ? TimeZone() : TimeZone::load(job.time_zone);
    } catch (const ConfigError&) {
      return std::nullopt;  // the API server refuses such a CronJob; nothing to check
    }
  }
  // A job's next runs, computed once however many pairs it is in.
  struct Runs {
    TimeZone zone;
    CronSchedule cron;
    std::vector<SysTime> next;  // at most kMaxWindows
  };
  std::map<const WindowJob*, std::optional<Runs>> runs_;
  const std::optional<Runs>& runs(const WindowJob& job) {
    auto [it, fresh] = runs_.try_emplace(&job);
    if (!fresh) return it->second;
    auto zone = zone_of(job);
    try {
      auto cron = parse_cron(job.schedule);
      if (zone) it->second = Runs{*zone, cron, next_starts(cron, *zone, now, kMaxWindows)};
    } catch (const ConfigError&) {
      // Not the cron dialect windowctl knows; the API server has the final say.
    }
    return it->second;
  }

  // WC023: a window shorter than the job's --cutoff is never opened (apply_cutoff).
  void cutoff_rule(const WindowJob& job, const std::vector<Interval>& windows, const std::string& object,
                   const std::string& source, const TimeZone& zone) {
    if (job.cutoff.count() <= 0) return;
    int short_ones = 0;
    const Interval* first = nullptr;
    for (const auto& w : windows) {
      if (w.starts_earlier || w.ends_later || w.end - w.start >= job.cutoff) continue;
      ++short_ones;
      if (!first) first = &w;
    }
    if (!first) return;
    add("WC023", "warning", object,
        std::to_string(short_ones) + " of the next " + std::to_string(windows.size()) + " windows (" + source +
            ", first at " + format_local(first->start, zone) + ", " +
            human_duration(duration_cast<seconds>(first->end - first->start)) +
            " long) are shorter than the job's --cutoff " + human_duration(duration_cast<seconds>(job.cutoff)) + " (" +
            job.key + "), so they are never opened: shorten the cutoff or lengthen the window");
  }

  // WC024: the Job's deadline kills a close that waits its whole --overrun (its targets still in
  // progress then stay open), unless it leaves a minute for the requests around the wait.
  void overrun_deadlines() {
    for (const auto& job : m.jobs) {
      if (job.overrun.count() <= 0 || !job.active_deadline || !job.args_problem.empty()) continue;
      const seconds room = duration_cast<seconds>(job.overrun) + kOverrunMargin;
      if (seconds(*job.active_deadline) >= room) continue;
      add("WC024", job.suspended ? "warning" : "error", job.key,
          "its activeDeadlineSeconds " + std::to_string(*job.active_deadline) + " is less than its --overrun " +
              human_duration(duration_cast<seconds>(job.overrun)) +
              " plus 60s: a run that waits for a target in progress is killed before it closes it, and the "
              "window stays open for that target; set activeDeadlineSeconds to at least " +
              std::to_string(room.count()) + " or lower --overrun");
    }
  }

  // WC004-WC006 for one schedule that a sync job follows.
  void schedule_rules(const WindowJob& job, const Schedule& s, const std::string& object, const std::string& source) {
    auto windows = next_windows(s, now, kMaxWindows);
    cutoff_rule(job, windows, object, source, schedule_zone(s));
    if (windows.empty()) {
      add("WC005", "error", object,
          "the window (" + source + ") never opens in the next year: fix its cron, or its --deny/--freeze");
      return;
    }
    if (windows.size() == 1 && windows[0].starts_earlier && windows[0].ends_later) {
      add("WC004", "error", object,
          "the window (" + source +
              ") is always open (its duration covers its whole period): shorten the duration so that it closes");
      return;
    }
    const auto& tick = runs(job);
    if (!tick) return;
    int missed = 0;
    std::optional<SysTime> first_missed;
    for (const auto& w : windows) {
      auto t = next_starts(tick->cron, tick->zone, w.start - seconds(1), 1);
      if (!t.empty() && t.front() < w.end) continue;
      ++missed;
      if (!first_missed) first_missed = w.start;
    }
    std::string what =
        "the sync job's schedule \"" + job.schedule + "\"" + (job.time_zone.empty() ? "" : " in " + job.time_zone);
    if (missed == static_cast<int>(windows.size())) {
      add("WC005", "error", object,
          "the window (" + source + ") never opens: " + what +
              " never runs while it is open; make the window longer than the "
              "schedule's interval or run sync at the minutes the window opens");
    } else if (missed > 0) {
      add("WC006", "warning", object,
          std::to_string(missed) + " of the next " + std::to_string(windows.size()) + " windows (" + source +
              ", first at " + format_local(*first_missed, s.allow.front().zone) + ") pass without a run of " + what +
              ", so they never open: make the window longer than the schedule's interval or align the two");
    }
  }

  void sync_jobs() {
    for (const auto& job : m.jobs) {
      // Args windowctl refuses (an invalid --window among them) are WC010 once, in rbac().
      if (!job_runs(job, CommandId::kSync) || job.suspended || !job.args_problem.empty()) continue;
      const Schedule& flags = job.windows;
      bool flags_used = false;
      for (const auto& target : job.targets) {
        const json* obj = m.find(target);
        if (!obj || !label_or_annotation(*obj, kWindowAnnotation).size()) {
          flags_used = true;
          continue;
        }
        try {
          if (auto s = schedule_for(*obj, flags))
            schedule_rules(job, *s, target, std::string("annotation ") + kWindowAnnotation);
        } catch (const ConfigError& e) {
          add("WC010", "error", target, std::string("sync fails on it: ") + e.what() + "; fix the annotation");
        }
      }
      if ((flags_used || job.targets.empty()) && (!flags.allow.empty() || !flags.allow_calendars.empty()))
        schedule_rules(job, flags, job.key, flags.allow.empty() ? "--window-calendar" : "--window");
    }
  }

  // WC007/WC008: an open job and a close job with the same targets make one window.
  void pairs() {
    for (const auto& open : m.jobs) {
      if (!job_runs(open, CommandId::kOpen) || open.suspended) continue;
      for (const auto& close : m.jobs) {
        if (!job_runs(close, CommandId::kClose) || close.suspended || !same_targets(open, close)) continue;
        if (open.time_zone != close.time_zone) {
          add("WC007", "error", close.key,
              "spec.timeZone \"" + close.time_zone + "\" differs from \"" + open.time_zone + "\" of its open job " +
                  open.key + ": set the same timeZone on both");
          continue;
        }
        pair_schedules(open, close);
      }
    }
  }

  void pair_schedules(const WindowJob& open, const WindowJob& close) {
    const auto& o = runs(open);
    const auto& c = runs(close);
    if (!o || !c) return;
    if (o->next.empty()) {
      add("WC005", "error", open.key,
          "its schedule \"" + open.schedule + "\" never runs, so the window never opens: fix the schedule");
      return;
    }
    if (next_starts(c->cron, c->zone, o->next.front(), 1).empty()) {
      add("WC008", "error", close.key,
          "its schedule \"" + close.schedule + "\" never runs after its open job " + open.key +
              ", so the window never closes: fix the schedule");
      return;
    }
    // Both lists start now, so a common run before the end of either is in both.
    std::vector<SysTime> both;
    std::set_intersection(o->next.begin(), o->next.end(), c->next.begin(), c->next.end(), std::back_inserter(both));
    if (!both.empty()) {
      add("WC008", "error", close.key,
          "runs at the same minute as its open job " + open.key + " (" + format_local(both.front(), o->zone) +
              "), in no defined order: move the close or the open");
    }
  }

  // WC009: the bound Role(s) must let each job get and patch its targets, and list to select.
  void rbac() {
    for (const auto& job : m.jobs) {
      if (!job.args_problem.empty() && !job.args_unread) {
        add("WC010", "error", job.key, "every run fails: " + job.args_problem + "; fix the job's args");
        continue;
      }
      std::set<std::string> namespaces{job.target_ns};
      for (const auto& t : job.targets) namespaces.insert(t.substr(t.find('/') + 1, t.rfind('/') - t.find('/') - 1));
      for (const auto& ns : namespaces) rbac_in(job, ns);
    }
  }

  void rbac_in(const WindowJob& job, const std::string& ns) {
    std::vector<const json*> roles;
    std::string role_names;
    for (const json* b : m.all) {
      if (string_at(*b, "kind") != "RoleBinding" || namespace_of(*b) != ns) continue;
      const json* subjects = field(*b, "subjects");
      bool bound = false;
      for (const auto& s : subjects && subjects->is_array() ? *subjects : json::array()) {
        std::string sns = string_at(s, "namespace");
        bound |= string_at(s, "kind") == "ServiceAccount" && string_at(s, "name") == job.service_account &&
                 (sns.empty() ? ns : sns) == job.ns;
      }
      const json* ref = field(*b, "roleRef");
      if (!bound || !ref) continue;
      std::string kind = string_at(*ref, "kind");
      const json* role = m.find(object_key(kind, kind == "Role" ? ns : "", string_at(*ref, "name")));
      if (!role) return;  // bound to a role not in the input: it may grant anything
      roles.push_back(role);
      role_names += (role_names.empty() ? "" : ", ") + kind + " " + string_at(*ref, "name");
    }
    if (roles.empty()) return;  // granted some other way (ClusterRoleBinding, another input)
    std::string group(job.kind->group), plural(job.kind->plural);
    // verb -> names granted; "" in the set: every name.
    auto granted = [&](const std::string& verb) {
      std::set<std::string> names;
      for (const json* role : roles) names.merge(granted_names(*role, group, plural, verb));
      return names;
    };
    std::string missing;
    for (const char* verb : {"get", "patch"}) {
      auto names = granted(verb);
      if (names.count("")) continue;
      for (const auto& t : job.targets) {
        std::string prefix = std::string(job.kind->kind) + "/" + ns + "/";
        if (!t.starts_with(prefix)) continue;
        std::string n = t.substr(prefix.size());
        if (!names.count(n) && missing.find(" " + n + ",") == std::string::npos) missing += " " + n + ",";
      }
    }
    std::string subject = "ServiceAccount " + job.ns + "/" + job.service_account;
    if (!missing.empty()) {
      missing.pop_back();
      add("WC009", "error", job.key,
          role_names + " in " + ns + " (bound to " + subject + ") does not grant get and patch on " + plural +
              " named" + missing + ": add them to resourceNames (or drop resourceNames)");
    }
    if (job.selector && ns == job.target_ns && !granted("list").count("")) {
      add("WC009", "error", job.key,
          role_names + " in " + ns + " (bound to " + subject + ") does not grant list on " + plural +
              " without resourceNames, which -l/--all needs: add a list rule (components/selectors)");
    }
  }

  // Does a subject of `binding` (in namespace `binding_ns`; "" for a ClusterRoleBinding) name the
  // ServiceAccount, its user name, or a group it is in?
  static bool binds(const json& binding, const std::string& binding_ns, const std::string& sa_ns,
                    const std::string& sa) {
    const json* subjects = field(binding, "subjects");
    for (const auto& s : subjects && subjects->is_array() ? *subjects : json::array()) {
      std::string kind = string_at(s, "kind"), name = string_at(s, "name"), ns = string_at(s, "namespace");
      if (kind == "ServiceAccount" && name == sa && (ns.empty() ? binding_ns : ns) == sa_ns) return true;
      if (kind == "User" && name == "system:serviceaccount:" + sa_ns + ":" + sa) return true;
      if (kind == "Group" && (name == "system:serviceaccounts" || name == "system:serviceaccounts:" + sa_ns ||
                              name == "system:authenticated"))
        return true;
    }
    return false;
  }
  bool any_of_kind(bool (*pred)(const std::string&)) const {
    return std::any_of(m.all.begin(), m.all.end(), [&](const json* o) { return pred(string_at(*o, "kind")); });
  }

  // WC018: the job runs as a ServiceAccount that does not exist or that nothing binds (every run
  // 403). WC019: a binding that grants windowing to a ServiceAccount the input does not have.
  void service_accounts() {
    const bool bindings = scope.live ? scope.bindings_read : any_of_kind(is_binding);
    const bool accounts = scope.live ? scope.service_accounts_read
                                     : any_of_kind([](const std::string& k) { return k == "ServiceAccount"; });
    for (const auto& job : m.jobs) {
      if (!job.args_problem.empty()) continue;  // WC010 says enough
      std::string sa = job.ns + "/" + job.service_account;
      if (accounts && !m.find(object_key("ServiceAccount", job.ns, job.service_account))) {
        add("WC018", "error", job.key,
            "its ServiceAccount " + sa + " does not exist" + (scope.live ? "" : " in the input") +
                ", so no pod of its Jobs is created: create it, or set serviceAccountName to the one the window's "
                "RoleBinding binds");
        continue;
      }
      if (!bindings) continue;
      bool bound = std::any_of(m.all.begin(), m.all.end(), [&](const json* b) {
        std::string kind = string_at(*b, "kind");
        return is_binding(kind) &&
               binds(*b, kind == "RoleBinding" ? namespace_of(*b) : "", job.ns, job.service_account);
      });
      if (!bound) {
        add("WC018", "error", job.key,
            "it runs as ServiceAccount " + sa + ", which no RoleBinding or ClusterRoleBinding" +
                (scope.live ? "" : " in the input") +
                " binds, so every run is forbidden (403): bind it (a RoleBinding subject's namespace must be " +
                job.ns + ")");
      }
    }
    if (scope.live || !accounts) return;
    for (const json* b : m.all) {
      std::string kind = string_at(*b, "kind");
      if (!is_binding(kind)) continue;
      const std::string bns = kind == "RoleBinding" ? namespace_of(*b) : "";
      const json* ref = field(*b, "roleRef");
      if (!ref) continue;
      std::string rkind = string_at(*ref, "kind");
      const json* role = m.find(object_key(rkind, rkind == "Role" ? bns : "", string_at(*ref, "name")));
      // Only a binding that lets its subject window Flux objects: Flux's own are none of check's business.
      bool windowing = role && std::any_of(all_kinds().begin(), all_kinds().end(), [&](const KindAdapter* k) {
                         return !granted_names(*role, std::string(k->group), std::string(k->plural), "patch").empty();
                       });
      if (!windowing) continue;
      const json* subjects = field(*b, "subjects");
      for (const auto& s : subjects && subjects->is_array() ? *subjects : json::array()) {
        if (string_at(s, "kind") != "ServiceAccount") continue;
        std::string ns = string_at(s, "namespace");
        if (ns.empty()) ns = bns;
        std::string name = string_at(s, "name");
        if (m.find(object_key("ServiceAccount", ns, name))) continue;
        add("WC019", "warning", object_key(kind, bns, name_of(*b)),
            "binds ServiceAccount " + ns + "/" + name +
                ", which the input does not have: if the window jobs moved to another namespace, set the "
                "subject's namespace to theirs");
      }
    }
  }

  // WC020: an open/close pair (same targets) with one half suspended.
  void half_pairs() {
    // An open with --for is an override (the emergency open), not half of a window.
    auto half = [&](const WindowJob& j, CommandId id) {
      return job_runs(j, id) && j.args_problem.empty() && (id != CommandId::kOpen || j.flags.override_for.empty());
    };
    for (const auto& job : m.jobs) {
      const bool is_open = half(job, CommandId::kOpen);
      if (!job.suspended || !(is_open || half(job, CommandId::kClose))) continue;
      const CommandId other = is_open ? CommandId::kClose : CommandId::kOpen;
      const WindowJob* running = nullptr;
      for (const auto& o : m.jobs) {
        if (!running && &o != &job && !o.suspended && half(o, other) && same_targets(job, o)) running = &o;
      }
      // Another job of the same kind that runs makes this one spare.
      bool spare = std::any_of(m.jobs.begin(), m.jobs.end(), [&](const WindowJob& o) {
        return &o != &job && !o.suspended && half(o, is_open ? CommandId::kOpen : CommandId::kClose) &&
               same_targets(job, o);
      });
      if (!running || spare) continue;
      add("WC020", "error", job.key,
          std::string("is suspended while its ") + (is_open ? "close" : "open") + " job " + running->key +
              " runs, so the window " + (is_open ? "closes and never opens again" : "opens and never closes") +
              ": resume this job, or suspend both");
    }
  }

  // WC023 for open --scheduled --cutoff: it measures each target's own window annotation.
  void scheduled_open_cutoffs() {
    for (const auto& job : m.jobs) {
      if (!job_runs(job, CommandId::kOpen) || job.cutoff.count() <= 0 || !job.args_problem.empty()) continue;
      for (const auto& target : job.targets) {
        const json* obj = m.find(target);
        if (!obj || label_or_annotation(*obj, kWindowAnnotation).empty()) continue;
        try {
          if (auto s = schedule_for(*obj, job.windows))
            cutoff_rule(job, next_windows(*s, now, kMaxWindows), target, std::string("annotation ") + kWindowAnnotation,
                        schedule_zone(*s));
        } catch (const ConfigError&) {
          // An invalid annotation is sync's WC010; an open does without its edges.
        }
      }
    }
  }

  // WC021: the shipped placeholder image (a registry under .invalid, which never resolves).
  void placeholder_images() {
    for (const auto& job : m.jobs) {
      std::string host = image_host(job.image);
      if (!host.ends_with(".invalid")) continue;
      if (!job.suspended) {
        add("WC021", "error", job.key,
            "its image \"" + job.image +
                "\" is the placeholder, which no node can pull, so every run fails: set yours with kustomize's "
                "images: (scripts/image.sh prints the entry)");
      } else {
        add("WC021", "warning", job.key,
            "its image \"" + job.image +
                "\" is the placeholder: when someone runs this job by hand, its pod cannot pull it; set yours with "
                "kustomize's images:");
      }
    }
  }

  // WC016 (live): an object that a windowed Kustomization and another one both apply
  // (check_owners.h). Windowed is m.windowed, the jobs' own targets; manifests hold no inventory,
  // so offline the command says so instead (owners_offline_note).
  void shared_owners() {
    if (!scope.live) return;
    std::map<std::string, std::vector<const WindowJob*>> acting;  // the jobs that run on each target
    for (const auto& job : m.jobs)
      if (!job.suspended && job.args_problem.empty())
        for (const auto& t : job.targets) acting[t].push_back(&job);
    std::vector<Owner> owners;
    for (const json* obj : m.all) {
      if (string_at(*obj, "kind") != "Kustomization") continue;
      Owner o{object_key("Kustomization", namespace_of(*obj), name_of(*obj)), obj, {}};
      if (m.windowed.count(o.key))
        for (const WindowJob* j : acting[o.key])
          if (j->windowing()) o.windowed_by.push_back(j->key);
      owners.push_back(std::move(o));
    }
    auto found = shared_objects(owners, [&](std::size_t i) {
      std::set<std::string> windows;  // of every job that runs on it, open jobs included
      for (const WindowJob* j : acting[owners[i].key]) windows.insert(window_of(*j, *owners[i].object));
      std::string all;
      for (const auto& w : windows) all += w + "\n";
      return all;
    });
    out.insert(out.end(), found.begin(), found.end());
  }

  // A job's window for one target as the schedule rules model it, for WC016 to compare: the next
  // runs of an open or close job (so "0 8 * * MON" and "0 8 * * 1" are one window, another zone
  // is not), or the next intervals of the schedule a sync job evaluates for that target (its
  // annotations, else the job's flags); its CronJob's own schedule is only the tick.
  std::string window_of(const WindowJob& job, const json& target) {
    constexpr int kCompared = 16;
    std::string w = job.command;
    auto put = [&](SysTime t) { w += " " + std::to_string(duration_cast<seconds>(t.time_since_epoch()).count()); };
    if (job_runs(job, CommandId::kSync)) {
      try {
        if (auto s = schedule_for(target, job.windows)) {
          for (const auto& i : next_windows(*s, now, kCompared)) {
            put(i.start);
            put(i.end);
          }
        }
      } catch (const ConfigError&) {
        w += " invalid";  // WC010 names it
      }
    } else if (const auto& r = runs(job)) {
      for (std::size_t i = 0; i < r->next.size() && i < kCompared; ++i) put(r->next[i]);
    } else {
      w += " \"" + job.schedule + "\" " + job.time_zone;  // not a cron check reads: compared as written
    }
    return w;
  }

  // WC022: nothing to check.
  void no_window_job() {
    if (scope.live || !m.jobs.empty()) return;
    add("WC022", "warning", "input",
        "no window job: no CronJob in the input runs windowctl open, close or sync, so no rule had anything to "
        "check; give the manifests that hold the jobs (kubectl kustomize DIR | windowctl check -f -)");
  }
};

}  // namespace

std::vector<Finding> check_objects(const std::vector<json>& objects, SysTime now, std::vector<JobTargets>* jobs,
                                   const CheckScope& scope) {
  Manifests m = index_manifests(objects, scope.unread);
  if (jobs) {
    for (const auto& job : m.jobs) {
      jobs->push_back({job.key, job.command, job.windowing(), {job.targets.begin(), job.targets.end()}});
    }
    std::sort(jobs->begin(), jobs->end(), [](const JobTargets& a, const JobTargets& b) { return a.object < b.object; });
  }
  Checker c{m, now, scope, {}};
  c.depends_on();
  if (!scope.live) c.parent_undoes_close();  // live: check_online.h's WC002, from managedFields
  c.jobs_in_window();
  c.sync_jobs();
  c.pairs();
  c.rbac();
  c.service_accounts();
  c.half_pairs();
  c.placeholder_images();
  c.shared_owners();
  c.scheduled_open_cutoffs();
  c.overrun_deadlines();
  c.no_window_job();
  sort_findings(c.out);
  return c.out;
}

void sort_findings(std::vector<Finding>& findings) {
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.object, a.id, a.message) < std::tie(b.object, b.id, b.message);
  });
  findings.erase(std::unique(findings.begin(), findings.end()), findings.end());
}

bool has_error(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == "error"; });
}

json finding_json(const Finding& f) {
  json e;
  e["id"] = f.id;
  e["severity"] = f.severity;
  e["object"] = f.object;
  e["message"] = f.message;
  return e;
}

json job_json(const JobTargets& j) {
  json e;
  e["object"] = j.object;
  e["command"] = j.command;
  e["windowing"] = j.windowing;
  e["targets"] = j.targets;
  return e;
}

std::string render_findings(const std::vector<Finding>& findings, bool as_json, const std::vector<JobTargets>& jobs) {
  if (as_json) {
    json list = json::array(), job_list = json::array();
    for (const auto& f : findings) list.push_back(finding_json(f));
    for (const auto& j : jobs) job_list.push_back(job_json(j));
    return json{{"command", "check"}, {"findings", list}, {"jobs", job_list}}.dump(2) + "\n";
  }
  std::string out;
  for (const auto& f : findings)
    out += f.severity + " " + f.id + " " + printable(f.object) + ": " + printable(f.message, 4096) + "\n";
  return out;
}

}  // namespace windowctl
