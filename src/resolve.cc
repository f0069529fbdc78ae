#include "resolve.h"

#include <spdlog/spdlog.h>

#include "api_error.h"
#include "http.h"

namespace windowctl {

using nlohmann::json;

namespace {

std::string discover(Client& client, const KindAdapter& kind, std::string& version) {
  try {
    version = choose_version(kind, client.call("GET", group_path(kind)));
    if (version.empty()) return "the server serves no version of " + std::string(kind.group);
    return {};
  } catch (const ApiError& e) {
    return e.reason() == Reason::kNotFound ? "the server does not serve " + std::string(kind.group) + " (is Flux installed?)"
                                           : error_summary(e);
  } catch (const TransportError& e) {
    if (e.kind == TransportError::Kind::kVerify) rethrow_verify_as_config(e);
    return error_summary(e);
  }
}

}  // namespace

Resolution resolve(Client& client, const CommandOptions& opt) {
  const KindAdapter& kind = *opt.kind;
  Resolution r;
  r.version = opt.api_version;
  if (r.version.empty()) {
    r.discovery_error = discover(client, kind, r.version);
    if (!r.discovery_error.empty()) spdlog::error("discovery of {}: {}", kind.group, r.discovery_error);
  }
  for (const auto& t : parse_targets(opt.names, opt.ns)) r.work.push_back({t, std::nullopt});

  const bool list_all = opt.all || (opt.command == "status" && opt.names.empty() && opt.selector.empty());
  if (!list_all && opt.selector.empty()) return r;
  if (!r.discovery_error.empty()) {
    r.ok = false;
    return r;
  }
  std::string path = collection_path(kind, r.version, opt.ns);
  if (!opt.selector.empty()) path += "?labelSelector=" + http::query_escape(opt.selector);
  try {
    json list = client.call("GET", path);
    const std::size_t before = r.work.size();
    const json items = list.is_object() ? list.value("items", json::array()) : json::array();
    for (const auto& item : items.is_array() ? items : json::array()) {
      Target t{metadata_string(item, "namespace"), metadata_string(item, "name")};
      if (t.ns.empty()) t.ns = opt.ns;
      if (t.name.empty()) {
        spdlog::error("listing {} in namespace {}: an item without metadata.name; skipped", kind.plural, opt.ns);
        r.ok = false;
        continue;
      }
      bool named = false;
      for (auto& w : r.work) {
        if (w.target == t) {
          w.listed = item;
          named = true;
        }
      }
      if (!named) r.work.push_back({t, item});
    }
    if (r.work.size() == before && opt.command != "status" && opt.names.empty()) {
      // An empty selection is almost always a typo; a green job that did nothing is the trap to avoid.
      spdlog::error("no {} in namespace {} matches {}", kind.plural, opt.ns,
                    opt.selector.empty() ? std::string("--all") : "selector \"" + opt.selector + "\"");
      r.ok = false;
    }
  } catch (const ApiError& e) {
    spdlog::error("listing {} in namespace {}: {}", kind.plural, opt.ns, error_summary(e));
    r.ok = false;
  } catch (const TransportError& e) {
    if (e.kind == TransportError::Kind::kVerify) rethrow_verify_as_config(e);
    spdlog::error("listing {} in namespace {}: {}", kind.plural, opt.ns, error_summary(e));
    r.ok = false;
  }
  return r;
}

}  // namespace windowctl
