// Which objects a command acts on: the API version (discovered, or --api-version), the targets
// named, and the objects a label selector or --all selects, listed page by page. Reads only.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "commands.h"
#include "seen.h"
#include "targets.h"

namespace windowctl {

struct Work {
  Target target;
  std::optional<nlohmann::json> listed;  // the object as the LIST returned it, saving a GET
};

// The API version a run speaks for one kind, or why it cannot speak to it.
struct KindVersion {
  const KindAdapter* kind = nullptr;
  std::string version;
  std::string discovery_error;  // non-empty: the kind is not served; every target of it fails with it
};

struct Resolution {
  std::string version;              // of --kind (options.kind)
  std::string discovery_error;      // non-empty: the kind is not served; every target fails with it
  std::vector<KindVersion> others;  // the other kinds --targets names, discovered once per API group
  // --kustomizations then --targets, in the order given, duplicates dropped. A --targets entry
  // keeps its kind (Target::kind) even when it is the --kind, so its output names the kind.
  std::vector<Target> named;
  bool list = false;  // a selection follows: for_each_listed
  bool ok = true;     // false: a read failed, or a selection matched nothing

  // The version for a kind the run resolved (--kind or one of --targets).
  KindVersion version_for(const KindAdapter& kind, const CommandOptions& options) const;
};

// The kind a target is of: its own (--targets) or the run's --kind.
inline const KindAdapter& kind_of(const Target& target, const CommandOptions& options) {
  return target.kind ? *target.kind : *options.kind;
}

// Failures of the reads are logged and reported in the Resolution; only a certificate that does
// not verify escapes, as ConfigError.
Resolution resolve(Client& client, const CommandOptions& options);

// LIST pages of this many objects: the API server's own default chunk size (kubectl, client-go
// pagers), so memory follows the page, not the cluster.
inline constexpr int kListPageSize = 500;

// Delivers every selected object that is not named and not delivered before, one page at a
// time, and forgets it after `each` returns. An expired continue token (410) lists again from
// the start; what was delivered already is skipped. Returns false (logged) when a page failed
// or a change command's selection matched nothing. `seen` holds the named targets beforehand.
bool for_each_listed(Client& client, const CommandOptions& options, Resolution& resolution, SeenSet& seen,
                     const std::function<void(Work&&)>& each);

// Parses one LIST page, handing each item to `on_item` as soon as it is complete and keeping
// none: a page costs its bytes and one item, not a document of 500 objects. Of each item only
// what windowctl reads survives (identity, its own and Flux's annotations, labels,
// spec.suspend, the status it shows, the managedFields entries' manager, time, subresource and
// whether they own spec.suspend or Flux's reason); the rest of managedFields and spec,
// status.inventory and kubectl's last-applied-configuration can be most of an object's bytes. Returns the page
// without its items (metadata.continue). A page that is not a list windowctl can act on, in
// whole, hands over no item: not JSON, not an object, no `items` or more than one (the API
// server always sends one, `[]` when empty), `items` not a list, an item that is not an object,
// has no metadata, or whose metadata.name is not a non-empty string (or metadata.namespace not
// a string). Then `malformed` says what is wrong, as "the LIST answer ...", and the page returned
// is discarded; it is "" otherwise. A page nested deeper than kMaxJsonDepth (json_read.h) is
// refused before any item, TransportError.
nlohmann::json parse_list_page(std::string_view text, const std::function<void(nlohmann::json&&)>& on_item,
                               std::string* malformed = nullptr);
// What parse_list_page refuses a page for ("the LIST answer ..."), or "": for the readers that keep
// whole items (check's CronJobs), so that every LIST is held to one shape rule. Keeps nothing.
std::string list_page_problem(std::string_view text);

}  // namespace windowctl
