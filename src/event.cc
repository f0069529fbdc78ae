#include "event.h"

#include <cstdio>

#include "json_read.h"

namespace windowctl {

nlohmann::json make_event(const KindAdapter& kind, const std::string& api_version, const nlohmann::json& object,
                          const EventSpec& spec, SysTime now) {
  const nlohmann::json* m = field(object, "metadata");
  const nlohmann::json& meta = m ? *m : nlohmann::json::object();
  const std::string name = string_at(meta, "name");
  const std::string ns = string_at(meta, "namespace");
  // Same naming scheme as client-go's recorder: object name plus a hex timestamp.
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx",
                static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()));
  std::string stamp = rfc3339(now);
  std::string message = spec.message.size() > 1024 ? spec.message.substr(0, 1021) + "..." : spec.message;
  return {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name + suffix}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", std::string(kind.group) + "/" + api_version},
        {"kind", std::string(kind.kind)},
        {"name", name},
        {"namespace", ns},
        {"uid", string_at(meta, "uid")},
        {"resourceVersion", string_at(meta, "resourceVersion")}}},
      {"reason", spec.reason},
      {"message", message},
      {"type", spec.type.empty() ? "Normal" : spec.type},
      {"firstTimestamp", stamp},
      {"lastTimestamp", stamp},
      {"count", 1},
      {"source", {{"component", "windowctl"}}},
      {"reportingComponent", "windowctl"},
      {"reportingInstance", spec.instance},
  };
}

}  // namespace windowctl
