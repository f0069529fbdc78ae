#include "event.h"

#include <cstdio>

#include "json_read.h"
#include "text.h"

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
                static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()));
  std::string stamp = rfc3339(now);
  // An Event is JSON: text is cut between characters and a byte that starts none is replaced,
  // so it always serialises (nlohmann throws on invalid UTF-8, after the patch has landed).
  std::string message = utf8_prefix(spec.message, std::string::npos);
  if (message.size() > 1024) message = utf8_prefix(message, 1021) + "...";
  const std::string instance = utf8_prefix(spec.instance, 128);  // the API's limit
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
      {"reportingInstance", instance},
  };
}

}  // namespace windowctl
