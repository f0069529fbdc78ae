// core/v1 Events on the changed object, so `kubectl describe` and `flux events` show the window.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kinds.h"
#include "timefmt.h"

namespace windowctl {

struct EventSpec {
  std::string reason;  // WindowOpened, WindowClosed, WindowOpenHeld, WindowRelabeled
  std::string type;    // Normal or Warning
  std::string message;
  std::string instance;  // reportingInstance: the host or pod name
};

nlohmann::json make_event(const KindAdapter& kind, const std::string& api_version, const nlohmann::json& object,
                          const EventSpec& spec, SysTime now);

}  // namespace windowctl
