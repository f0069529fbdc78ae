// --notify URLs, and the Flux event built from a core Event whatever its shape. Invariants: a
// parsed endpoint's host and path are what a request line and Host header can carry, and its
// canonical URL parses back to the same endpoint; flux_event never throws and always has the
// fields notification-controller requires.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "json_read.h"
#include "notify.h"

using namespace windowctl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string url = in.ConsumeRandomLengthString(400);
  std::string problem;
  auto ep = parse_notify_url(url, &problem);
  if (!ep) {
    FUZZ_CHECK(!problem.empty(), url);
  } else {
    FUZZ_CHECK(!ep->host.empty() && ep->port >= 1 && ep->port <= 65535, url);
    FUZZ_CHECK(!ep->path.empty() && ep->path[0] == '/', url);
    for (char c : ep->host + ep->path) FUZZ_CHECK(c > 0x20 && c < 0x7f, url);
    const bool v6 = ep->host.find(':') != std::string::npos;
    std::string canonical =
        "http://" + (v6 ? "[" + ep->host + "]" : ep->host) + ":" + std::to_string(ep->port) + ep->path;
    auto again = parse_notify_url(canonical, nullptr);
    FUZZ_CHECK(again && again->host == ep->host && again->port == ep->port && again->path == ep->path, canonical);
  }

  const std::string text = in.ConsumeRemainingBytesAsString();
  auto core = nlohmann::json::parse(text, nullptr, false);
  if (core.is_discarded()) return 0;
  nlohmann::json event = flux_event(core, "closed");
  for (const char* key : {"severity", "timestamp", "message", "reason", "reportingController"}) {
    FUZZ_CHECK(field(event, key) && field(event, key)->is_string(), text);
  }
  FUZZ_CHECK(field(event, "involvedObject") && field(event, "involvedObject")->is_object(), text);
  (void)event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
