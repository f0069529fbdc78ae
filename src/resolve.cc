#include "resolve.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "api_error.h"
#include "http.h"
#include "json_read.h"

namespace windowctl {

using nlohmann::json;

namespace {

// Discovery documents by API group: kinds of one group (sources, image, notification) share one
// GET, and a group that failed fails each of its kinds with the same error without asking again.
struct GroupDoc {
  std::string_view group;
  json doc;
  std::string error;
};

std::string fetch_group(Client& client, const KindAdapter& kind, json& doc) {
  try {
    doc = client.call("GET", group_path(kind));
    return {};
  } catch (const ApiError& e) {
    return e.reason() == Reason::kNotFound ? "the server does not serve " + std::string(kind.group) + " (is Flux installed?)"
                                           : error_summary(e);
  } catch (const TransportError& e) {
    if (refused_by_tls(e)) rethrow_verify_as_config(e);
    return error_summary(e);
  }
}

std::string discover(Client& client, const KindAdapter& kind, std::string& version, std::vector<GroupDoc>& docs) {
  auto cached = std::find_if(docs.begin(), docs.end(), [&](const GroupDoc& d) { return d.group == kind.group; });
  if (cached == docs.end()) {
    GroupDoc d{kind.group, {}, {}};
    d.error = fetch_group(client, kind, d.doc);
    docs.push_back(std::move(d));
    cached = docs.end() - 1;
  }
  if (!cached->error.empty()) return cached->error;
  version = choose_version(kind, cached->doc);
  if (version.empty()) return "the server serves no version of " + std::string(kind.group);
  return {};
}

bool starts_with_any(const std::string& s, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes) {
    if (s.compare(0, p.size(), p) == 0) return true;
  }
  return false;
}

// The page's continue token, or "" on the last page.
std::string continue_token(const json& page) {
  auto meta = page.find("metadata");
  if (meta == page.end() || !meta->is_object()) return {};
  auto cont = meta->find("continue");
  return cont != meta->end() && cont->is_string() ? cont->get<std::string>() : std::string();
}

}  // namespace

json parse_list_page(std::string_view text, const std::function<void(json&&)>& on_item, bool* items_ok) {
  if (json_depth(text) > kMaxJsonDepth) {
    throw TransportError(TransportError::Kind::kProtocol,
                         "the LIST answer nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  // Depths as nlohmann counts them: 1 the list's keys, 2 the items, 3 an item's keys, 4 a
  // section's keys, 5 an annotation's key. `section`/`sub` remember the keys on the way down.
  bool in_items = false, items_array = false, bad_items = false, seen_items = false;
  std::string section, sub;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (depth == 1 && in_items) {
      if (event == E::array_start) items_array = true;
      if (event == E::object_start || (event == E::value && !parsed.is_null())) bad_items = true;
    }
    if (depth == 2 && in_items && items_array && (event == E::object_end || event == E::array_end || event == E::value)) {
      on_item(std::move(parsed));
      return false;  // handled: not kept in the page
    }
    if (event != E::key || !parsed.is_string()) return true;
    const std::string& key = parsed.get_ref<const std::string&>();
    switch (depth) {
      case 1:
        // A second "items" would be a second list, where a plain JSON reading keeps only the
        // last: what windowctl acts on must not depend on the reader, so the page is refused.
        if (key == "items" && seen_items) bad_items = true;
        in_items = key == "items";
        seen_items = seen_items || in_items;
        return true;
      case 3: section = key; return true;
      case 4:
        if (!in_items) return true;
        sub = key;
        if (section == "metadata") return key != "managedFields";
        if (section == "spec") return key == "suspend";
        if (section == "status") return reads_status_field(key);  // as the kinds table declares it
        return true;
      case 5:
        if (!in_items || section != "metadata" || sub != "annotations") return true;
        return starts_with_any(key, {"windowctl.io/", "reconcile.fluxcd.io/", "suspend.toolkit.fluxcd.io/",
                                     "kustomize.toolkit.fluxcd.io/", "helm.toolkit.fluxcd.io/"});
      default: return true;
    }
  };
  json page = json::parse(text, callback, false);
  if (items_ok) *items_ok = !bad_items;
  return page;
}

KindVersion Resolution::version_for(const KindAdapter& kind, const CommandOptions& opt) const {
  if (&kind == opt.kind) return {&kind, version, discovery_error};
  for (const auto& kv : others) {
    if (kv.kind == &kind) return kv;
  }
  return {&kind, {}, "internal error: " + std::string(kind.kind) + " was not resolved"};
}

Resolution resolve(Client& client, const CommandOptions& opt) {
  const KindAdapter& kind = *opt.kind;
  Resolution r;
  // Every entry is checked before the first request: a typo in the last --targets entry is
  // exit 2 with nothing sent.
  r.named = parse_targets(opt.names, opt.ns);
  std::vector<Target> kinded = parse_kind_targets(opt.kind_targets, opt.ns);
  const bool list_all = opt.all || (opt.command->id == CommandId::kStatus && opt.names.empty() &&
                                    opt.kind_targets.empty() && opt.selector.empty());
  const bool uses_kind = list_all || !opt.selector.empty() || !r.named.empty() ||
                         std::any_of(kinded.begin(), kinded.end(), [&](const Target& t) { return t.kind == &kind; });
  std::vector<GroupDoc> docs;
  r.version = opt.api_version;
  if (r.version.empty() && uses_kind) {
    r.discovery_error = discover(client, kind, r.version, docs);
    if (!r.discovery_error.empty()) spdlog::error("discovery of {}: {}", kind.group, r.discovery_error);
  }
  for (auto& t : kinded) {
    // The same object named by --kustomizations and --targets is handled once.
    if (t.kind == &kind && std::find(r.named.begin(), r.named.end(), Target{t.ns, t.name}) != r.named.end()) continue;
    if (t.kind != &kind && std::none_of(r.others.begin(), r.others.end(), [&](const KindVersion& kv) { return kv.kind == t.kind; })) {
      KindVersion kv{t.kind, {}, {}};
      kv.discovery_error = discover(client, *t.kind, kv.version, docs);
      if (!kv.discovery_error.empty()) spdlog::error("discovery of {} ({}): {}", t.kind->group, t.kind->kind, kv.discovery_error);
      r.others.push_back(std::move(kv));
    }
    r.named.push_back(std::move(t));
  }
  if (!list_all && opt.selector.empty()) return r;
  if (!r.discovery_error.empty()) {
    r.ok = false;
    return r;
  }
  r.list = true;
  return r;
}

bool for_each_listed(Client& client, const CommandOptions& opt, Resolution& r, SeenSet& seen,
                     const std::function<void(Work&&)>& each) {
  const KindAdapter& kind = *opt.kind;
  std::string base = collection_path(kind, r.version, opt.all_namespaces ? "" : opt.ns) + "?limit=" + std::to_string(kListPageSize);
  const std::string where = opt.all_namespaces ? "in all namespaces" : "in namespace " + opt.ns;
  if (!opt.selector.empty()) base += "&labelSelector=" + http::query_escape(opt.selector);
  std::size_t delivered = 0;
  int restarts = 0, pages = 0;
  bool ok = true;
  std::string token;
  auto on_item = [&](json&& item) {
    Target t{metadata_string(item, "namespace"), metadata_string(item, "name")};
    // A cluster-wide list names each item's namespace; an item without one has no place to go.
    if (t.ns.empty() && !opt.all_namespaces) t.ns = opt.ns;
    if (t.name.empty()) {
      spdlog::error("listing {} {}: an item without metadata.name; skipped", kind.plural, where);
      ok = false;
      return;
    }
    if (!valid_namespace(t.ns) || !valid_object_name(t.name)) {
      // The names go into request paths: a server cannot steer a write elsewhere through them.
      spdlog::error("listing {} {}: an item named {} in namespace {} is not a valid Kubernetes name; skipped",
                    kind.plural, where, json(t.name.substr(0, 300)).dump(-1, ' ', true, json::error_handler_t::replace),
                    json(t.ns.substr(0, 100)).dump(-1, ' ', true, json::error_handler_t::replace));
      ok = false;
      return;
    }
    if (!seen.insert(t.ns, t.name)) return;
    ++delivered;
    each(Work{std::move(t), std::move(item)});
  };
  try {
    for (;;) {
      std::string text;
      try {
        text = client.fetch("GET", token.empty() ? base : base + "&continue=" + http::query_escape(token), nullptr,
                            "application/json", kMaxPageBytes);
      } catch (const ApiError& e) {
        // The server compacted past the token: the list starts over, as client-go's pager does.
        constexpr int kMaxRestarts = 3;
        if (e.code() == 410 && !token.empty() && restarts < kMaxRestarts) {
          ++restarts;
          spdlog::warn("listing {} {}: the continue token expired; listing again from the start", kind.plural, where);
          token.clear();
          continue;
        }
        throw;
      }
      // Items are handled while the page is parsed; a page that turns out malformed after some
      // of them has had those handled and reported, and fails here.
      bool items_ok = true;
      json page = parse_list_page(text, on_item, &items_ok);
      text = std::string();
      if (page.is_discarded()) throw TransportError(TransportError::Kind::kProtocol, "the LIST answer is not JSON");
      if (!page.is_object()) throw TransportError(TransportError::Kind::kProtocol, "the LIST answer is not an object");
      if (!items_ok) throw TransportError(TransportError::Kind::kProtocol, "the LIST answer's items is not a list");
      std::string next = continue_token(page);
      if (next.empty()) break;
      // A server that never ends its list (or loops with fresh tokens) must not keep the job forever.
      constexpr int kMaxPages = 4000;  // 2,000,000 objects
      if (++pages >= kMaxPages) throw TransportError(TransportError::Kind::kProtocol, "the LIST goes on beyond 4000 pages");
      if (next == token) throw TransportError(TransportError::Kind::kProtocol, "the LIST answer repeats its continue token");
      token = std::move(next);
    }
  } catch (const ApiError& e) {
    spdlog::error("listing {} {}: {}", kind.plural, where, error_summary(e));
    return false;
  } catch (const TransportError& e) {
    if (refused_by_tls(e)) rethrow_verify_as_config(e);
    spdlog::error("listing {} {}: {}", kind.plural, where, error_summary(e));
    return false;
  }
  if (delivered == 0 && r.named.empty() && opt.command->id != CommandId::kStatus) {
    // An empty selection is almost always a typo; a green job that did nothing is the trap to avoid.
    spdlog::error("no {} {} matches {}", kind.plural, where,
                  opt.selector.empty() ? std::string("--all") : "selector \"" + opt.selector + "\"");
    return false;
  }
  return ok;
}

}  // namespace windowctl
