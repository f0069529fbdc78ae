// Which objects a command acts on: the API version (discovered, or --api-version) and the
// targets named, selected by label or --all. Reads only: discovery and at most one LIST.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "commands.h"
#include "targets.h"

namespace windowctl {

struct Work {
  Target target;
  std::optional<nlohmann::json> listed;  // the object as the LIST returned it, saving a GET
};

struct Resolution {
  std::string version;
  std::string discovery_error;  // non-empty: the kind is not served; every target fails with it
  std::vector<Work> work;       // names first, in the order given, then what the LIST added
  bool ok = true;               // false: the LIST failed, or a selection matched nothing
};

// Failures of the reads are logged and reported in the Resolution; only a certificate that does
// not verify escapes, as ConfigError.
Resolution resolve(Client& client, const CommandOptions& options);

}  // namespace windowctl
