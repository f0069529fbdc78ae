#include "resolve.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

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
    return e.reason() == Reason::kNotFound
               ? "the server does not serve " + std::string(kind.group) + " (is Flux installed?)"
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

// The shape a LIST answer must have before any of its items is acted on, checked in a pass of
// its own that keeps nothing: exactly one "items", a list of objects, each with a metadata
// object whose name is a non-empty string (Kubernetes omits an empty name: "" is none) and whose
// namespace, where there is one, is a string. Every occurrence of a key is checked, so a
// duplicate cannot hide a bad value behind a good one. `problem` is the first deviation found.
class ListShape {
 public:
  using string_t = json::string_t;
  std::string problem;

  bool null() { return value("null"); }
  bool boolean(bool) { return value("a boolean"); }
  bool number_integer(json::number_integer_t) { return value("a number"); }
  bool number_unsigned(json::number_unsigned_t) { return value("a number"); }
  bool number_float(json::number_float_t, const string_t&) { return value("a number"); }
  bool binary(json::binary_t&) { return value("binary data"); }
  bool string(string_t& text) {
    Role role = role_of_next();
    if (role == kName && text.empty()) fail(item() + " has an empty metadata.name");
    if (role != kName && role != kNamespace) wrong(role, "a string");
    return true;
  }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() { return close(); }
  bool end_object() {
    const Frame& f = frames_.back();
    if (f.role == kItem && !f.has) fail(item() + " has no metadata");
    if (f.role == kMetadata && !f.has) fail(item() + " has no metadata.name");
    if (f.role == kPage && items_ == 0) fail("the LIST answer has no items");
    return close();
  }
  bool key(string_t& k) {
    Frame& f = frames_.back();
    next_ = kOther;
    if (f.role == kPage && k == "items") {
      // A second list would be read differently by different readers (a plain one keeps the last).
      if (++items_ > 1) fail("the LIST answer has more than one items list");
      next_ = kItems;
    } else if (f.role == kItem && k == "metadata") {
      f.has = true;
      next_ = kMetadata;
    } else if (f.role == kMetadata && k == "name") {
      f.has = true;
      next_ = kName;
    } else if (f.role == kMetadata && k == "namespace") {
      next_ = kNamespace;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  enum Role { kOther, kPage, kItems, kItem, kMetadata, kName, kNamespace };
  struct Frame {
    Role role;
    bool has = false;  // of an item: a metadata; of a metadata: a name
  };

  // What the value about to start is: the page, an element of items, or the value of a key.
  Role role_of_next() {
    if (frames_.empty()) return kPage;
    if (frames_.back().role == kItems) {
      ++item_;
      return kItem;
    }
    return std::exchange(next_, kOther);
  }
  std::string item() const { return "the LIST answer's item " + std::to_string(item_); }
  void fail(std::string what) {
    if (problem.empty()) problem = std::move(what);
  }
  void wrong(Role role, const char* type) {
    switch (role) {
      case kPage: fail("the LIST answer is not an object"); break;
      case kItems: fail(std::string("the LIST answer's items is ") + type + ", not a list"); break;
      case kItem: fail(item() + " is " + type + ", not an object"); break;
      case kMetadata: fail(item() + " has a metadata that is " + type + ", not an object"); break;
      case kName: fail(item() + " has a metadata.name that is " + type + ", not a string"); break;
      case kNamespace: fail(item() + " has a metadata.namespace that is " + type + ", not a string"); break;
      case kOther: break;
    }
  }
  bool value(const char* type) {
    wrong(role_of_next(), type);
    return true;
  }
  bool open(bool object) {
    Role role = role_of_next();
    bool fits = role == kOther || (object ? role == kPage || role == kItem || role == kMetadata : role == kItems);
    if (!fits) wrong(role, object ? "an object" : "a list");
    // A value of the wrong type is walked as any other: its keys mean nothing.
    frames_.push_back({fits ? role : kOther});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
  Role next_ = kOther;
  int items_ = 0;
  long long item_ = 0;
};

}  // namespace

std::string list_page_problem(std::string_view text) {
  ListShape shape;
  return json::sax_parse(text, &shape) ? shape.problem : "the LIST answer is not JSON";
}

json parse_list_page(std::string_view text, const std::function<void(json&&)>& on_item, std::string* malformed) {
  if (json_depth(text) > kMaxJsonDepth) {
    throw TransportError(TransportError::Kind::kProtocol,
                         "the LIST answer nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  // The shape first, in a pass of its own: an item acted on before a later one turned out
  // malformed could not be taken back, and a malformed answer is refused as a whole.
  std::string problem = list_page_problem(text);
  if (malformed) *malformed = problem;
  if (!problem.empty()) return json(json::value_t::discarded);
  // Depths as nlohmann counts them: 1 the list's keys, 2 the items, 3 an item's keys, 4 a
  // section's keys, 5 an annotation's key; in metadata.managedFields 6 an entry's keys, 7-9 its
  // fieldsV1 trie. `section`/`sub`/`entry`/`trie` remember the keys on the way down.
  bool in_items = false;
  std::string section, sub, entry, trie[2];
  const std::string flux_reason_field = std::string("f:") + kFluxReasonAnnotation;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (depth == 2 && in_items && event == E::object_end) {
      on_item(std::move(parsed));
      return false;  // handled: not kept in the page
    }
    if (event != E::key || !parsed.is_string()) return true;
    const std::string& key = parsed.get_ref<const std::string&>();
    switch (depth) {
      case 1: in_items = key == "items"; return true;
      case 3: section = key; return true;
      case 4:
        if (!in_items) return true;
        sub = key;
        if (section == "spec") return key == "suspend";
        if (section == "status") return reads_status_field(key);  // as the kinds table declares it
        return true;
      case 5:
        if (!in_items || section != "metadata" || sub != "annotations") return true;
        // ... and the pause annotations of the kinds that pause on one (kinds.cc).
        return starts_with_any(
                   key, {"windowctl.io/", "reconcile.fluxcd.io/", "suspend.toolkit.fluxcd.io/",
                         "kustomize.toolkit.fluxcd.io/", "helm.toolkit.fluxcd.io/", kOperatorSuspendedByAnnotation}) ||
               is_pause_annotation(key);
      default: break;
    }
    // managedFields: only who last wrote the pause field (spec.suspend or a pause annotation) and
    // Flux's reason, and when (the held rule).
    if (!in_items || section != "metadata" || sub != "managedFields") return true;
    switch (depth) {
      case 6: entry = key; return key == "manager" || key == "time" || key == "subresource" || key == "fieldsV1";
      case 7:
        if (entry != "fieldsV1") return true;
        trie[0] = key;
        return key == "f:spec" || key == "f:metadata";
      case 8:
        if (entry != "fieldsV1") return true;
        trie[1] = key;
        return key == (trie[0] == "f:spec" ? "f:suspend" : "f:annotations");
      case 9:
        if (entry != "fieldsV1" || trie[0] != "f:metadata") return true;
        return key == flux_reason_field || (key.rfind("f:", 0) == 0 && is_pause_annotation(key.substr(2)));
      default: return true;
    }
  };
  return json::parse(text, callback, false);
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
    if (t.kind != &kind &&
        std::none_of(r.others.begin(), r.others.end(), [&](const KindVersion& kv) { return kv.kind == t.kind; })) {
      KindVersion kv{t.kind, {}, {}};
      kv.discovery_error = discover(client, *t.kind, kv.version, docs);
      if (!kv.discovery_error.empty())
        spdlog::error("discovery of {} ({}): {}", t.kind->group, t.kind->kind, kv.discovery_error);
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
  std::string base =
      collection_path(kind, r.version, opt.all_namespaces ? "" : opt.ns) + "?limit=" + std::to_string(kListPageSize);
  const std::string where = opt.all_namespaces ? "in all namespaces" : "in namespace " + opt.ns;
  if (!opt.selector.empty()) base += "&labelSelector=" + http::query_escape(opt.selector);
  std::size_t delivered = 0, refused = 0;
  int restarts = 0, pages = 0;
  bool ok = true;
  std::string token;
  auto on_item = [&](json&& item) {
    Target t{metadata_string(item, "namespace"), metadata_string(item, "name")};
    // A cluster-wide list names each item's namespace; an item without one has no place to go.
    if (t.ns.empty() && !opt.all_namespaces) t.ns = opt.ns;
    if (!valid_namespace(t.ns) || !valid_object_name(t.name)) {
      // The names go into request paths: a server cannot steer a write elsewhere through them.
      spdlog::error("listing {} {}: an item named {} in namespace {} is not a valid Kubernetes name; skipped",
                    kind.plural, where, json(t.name.substr(0, 300)).dump(-1, ' ', true, json::error_handler_t::replace),
                    json(t.ns.substr(0, 100)).dump(-1, ' ', true, json::error_handler_t::replace));
      ++refused;
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
      // A malformed page is refused before any of its items is handled: it says what is wrong,
      // never "nothing matched". The pages before it were sound and have been handled.
      std::string malformed;
      json page = parse_list_page(text, on_item, &malformed);
      text = std::string();
      if (!malformed.empty()) throw TransportError(TransportError::Kind::kProtocol, malformed);
      std::string next = continue_token(page);
      if (next.empty()) break;
      // A server that never ends its list (or loops with fresh tokens) must not keep the job forever.
      constexpr int kMaxPages = 4000;  // 2,000,000 objects
      if (++pages >= kMaxPages)
        throw TransportError(TransportError::Kind::kProtocol, "the LIST goes on beyond 4000 pages");
      if (next == token)
        throw TransportError(TransportError::Kind::kProtocol, "the LIST answer repeats its continue token");
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
  if (delivered == 0 && refused == 0 && r.named.empty() && opt.command->id != CommandId::kStatus) {
    // An empty selection is almost always a typo; a green job that did nothing is the trap to avoid.
    // Items refused for their names were listed: "nothing matches" would not be the truth.
    spdlog::error("no {} {} matches {}", kind.plural, where,
                  opt.selector.empty() ? std::string("--all") : "selector \"" + opt.selector + "\"");
    return false;
  }
  return ok;
}

}  // namespace windowctl
