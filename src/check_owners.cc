#include "check_owners.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <unordered_map>

#include "check_model.h"
#include "json_read.h"
#include "text.h"

namespace windowctl {

using nlohmann::json;

namespace {

std::string who(const std::string& key) {
  auto slash = key.find('/');
  return key.substr(0, slash) + " " + key.substr(slash + 1);
}

// "Kustomization a/b, Kustomization c/d and 3 more": a finding stays one readable line however
// many Kustomizations apply the object.
std::string names(const std::vector<std::string>& all) {
  std::string out;
  for (std::size_t i = 0; i < all.size() && i < 3; ++i) out += (i ? ", " : "") + all[i];
  if (all.size() > 3) out += " and " + std::to_string(all.size() - 3) + " more";
  return out;
}

std::string type_of(const json& value) {
  if (value.is_array() || value.is_object() || value.is_null())
    return value.is_array() ? "a list" : value.is_object() ? "an object" : "null";
  return std::string("a ") + value.type_name();
}

}  // namespace

std::optional<InventoryId> parse_inventory_id(std::string_view id) {
  auto first = id.find('_');
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view rest = id.substr(first + 1);
  auto last = rest.rfind('_');
  if (last == std::string_view::npos) return std::nullopt;
  std::string_view kind = rest.substr(last + 1);
  rest = rest.substr(0, last);
  auto group = rest.rfind('_');
  if (group == std::string_view::npos || group == 0 || kind.empty()) return std::nullopt;
  InventoryId out{std::string(id.substr(0, first)), {}, std::string(rest.substr(group + 1)), std::string(kind)};
  std::string_view name = rest.substr(0, group);
  for (std::size_t i = 0; i < name.size(); ++i) {  // strings.ReplaceAll(name, "__", ":")
    bool colon = name[i] == '_' && i + 1 < name.size() && name[i + 1] == '_';
    out.name += colon ? ':' : name[i];
    i += colon;
  }
  return out;
}

std::vector<Finding> shared_objects(const std::vector<Owner>& owners, const WindowOf& window_of, std::size_t cap) {
  std::vector<Finding> out;
  auto add = [&](const char* severity, const std::string& object, std::string message) {
    out.push_back({"WC016", severity, object, std::move(message)});
  };
  // Object id -> the owners that apply it, each once. The ids are views into the objects read,
  // which outlive this function: no copy of an id is made.
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> by_id;
  std::size_t indexed = 0;
  for (std::uint32_t o = 0; o < owners.size(); ++o) {
    const Owner& owner = owners[o];
    const json* inventory = field_path(*owner.object, {"status", "inventory"});
    if (!inventory || inventory->is_null()) continue;  // never reconciled: it applied nothing yet
    const json* entries = inventory->is_object() ? field(*inventory, "entries") : nullptr;
    std::string where = "its status.inventory";
    if (!inventory->is_object())
      where += " is " + type_of(*inventory) + ", not an object";
    else if (!entries)
      where += " has no entries";
    else if (!entries->is_array())
      where += ".entries is " + type_of(*entries) + ", not a list";
    if (!entries || !entries->is_array()) {
      add("warning", owner.key,
          where +
              ", so WC016 could not compare what it applies with the other Kustomizations: "
              "reconcile it (flux reconcile kustomization), which rewrites its status");
      continue;
    }
    std::string bad;
    std::size_t bad_count = 0, cut = 0;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const json& entry = (*entries)[i];
      const json* id = entry.is_object() ? field(entry, "id") : nullptr;
      std::string problem;
      if (!entry.is_object())
        problem = "is " + type_of(entry) + ", not an object";
      else if (!id)
        problem = "has no id";
      else if (!id->is_string())
        problem = "has an id that is " + type_of(*id) + ", not a string";
      else if (!parse_inventory_id(id->get_ref<const std::string&>()))
        problem = "has the id \"" + utf8_prefix(id->get_ref<const std::string&>(), 300) +
                  "\", which is not <namespace>_<name>_<group>_<kind>";
      if (!problem.empty()) {
        if (!bad_count++) bad = "entries[" + std::to_string(i) + "] " + problem;
        continue;
      }
      if (indexed == cap) {
        ++cut;
        continue;
      }
      auto& list = by_id[id->get_ref<const std::string&>()];
      if (list.empty() || list.back() != o) {  // an id listed twice by one owner is one owner
        list.push_back(o);
        ++indexed;
      }
    }
    if (bad_count) {
      add("warning", owner.key,
          "its status.inventory." + bad +
              (bad_count > 1 ? " (and " + std::to_string(bad_count - 1) + " more entries like it)" : "") +
              ", so WC016 did not compare those entries with the other Kustomizations' (the rest it did): reconcile "
              "it (flux reconcile kustomization), which rewrites its status");
    }
    if (cut) {
      add("warning", owner.key,
          "WC016 compared " + std::to_string(entries->size() - bad_count - cut) + " of the " +
              std::to_string(entries->size() - bad_count) + " objects in its status.inventory: check indexes " +
              std::to_string(cap) + " in all, so the rest were not compared with the other Kustomizations'");
    }
  }

  std::vector<std::string> windows(owners.size());  // asked once per owner
  std::vector<char> asked(owners.size());
  auto window = [&](std::uint32_t o) -> const std::string& {
    if (!asked[o]) windows[o] = window_of(o), asked[o] = 1;
    return windows[o];
  };
  for (const auto& [id, list] : by_id) {
    if (list.size() < 2) continue;
    std::vector<std::string> windowed, live, labelled;  // their names; the windowed with their job
    std::vector<std::uint32_t> in_window;
    std::set<std::string> jobs;
    for (auto o : list) {
      const Owner& w = owners[o];
      if (w.windowed_by.empty()) {
        live.push_back(who(w.key));
        continue;
      }
      in_window.push_back(o);
      windowed.push_back(who(w.key));
      labelled.push_back(windowed.back() + " (window of " + w.windowed_by.front() + ")");
      jobs.insert(w.windowed_by.begin(), w.windowed_by.end());
    }
    // Windows are compared only where no real-time owner already makes it an error.
    bool differ = live.empty() && std::any_of(in_window.begin(), in_window.end(),
                                              [&](std::uint32_t o) { return window(o) != window(in_window.front()); });
    if (windowed.empty() || (live.empty() && !differ)) continue;
    auto parsed = *parse_inventory_id(id);
    const std::string object = object_key(parsed.kind, parsed.ns, parsed.name);
    if (!live.empty()) {
      add("error", object,
          "applied by " + names(windowed) + ", which the window of " + names({jobs.begin(), jobs.end()}) +
              " suspends, and by " + names(live) +
              ", which no window suspends: it changes while the window is closed, and they undo each other's "
              "changes; apply it from one Kustomization only");
    } else {
      add("warning", object,
          "applied by " + names(labelled) +
              ", whose windows differ: it changes whenever one of the windows is open, and they undo each other's "
              "changes; apply it from one Kustomization only, or put both in the same window");
    }
  }
  sort_findings(out);
  return out;
}

std::string owners_offline_note(const std::vector<JobTargets>& jobs) {
  bool windowed = std::any_of(jobs.begin(), jobs.end(), [](const JobTargets& j) {
    return j.windowing && std::any_of(j.targets.begin(), j.targets.end(),
                                      [](const std::string& t) { return t.starts_with("Kustomization/"); });
  });
  if (!windowed) return {};
  return "WC016 (an object that a windowed and another Kustomization both apply) not checked: manifests hold no "
         "status.inventory, only the cluster does; run check against the cluster";
}

}  // namespace windowctl
