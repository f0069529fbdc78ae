// Window changes as Flux events, posted to notification-controller's event receiver (the same
// JSON Flux's own controllers post), so the Alerts a team already has announce them.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace windowctl {

// Where Flux's controllers send theirs (their --events-addr default).
inline constexpr std::string_view kDefaultNotifyUrl = "http://notification-controller.flux-system.svc.cluster.local./";

struct NotifyEndpoint {
  std::string host;  // DNS name or IP literal (IPv6 without brackets)
  int port = 80;
  std::string path = "/";
};

// http://HOST[:PORT][/PATH]. notification-controller's receiver speaks plain HTTP inside the
// cluster; anything else is refused with the reason in `problem`.
std::optional<NotifyEndpoint> parse_notify_url(std::string_view url, std::string* problem);

// The Flux event for a core/v1 Event as make_event builds it: the same object, reason and
// message; a Warning is severity "error", anything else "info". `window` (closed, opened, held,
// failed) goes into metadata under the object's API group, where an Alert shows it.
nlohmann::json flux_event(const nlohmann::json& core_event, std::string_view window);

// Posts events one connection each. Never throws: a failed notification is a warning, never a
// failed target; after three failures in a row the rest of the run sends none, so an absent
// receiver costs at most three timeouts.
class Notifier {
 public:
  Notifier(NotifyEndpoint endpoint, std::chrono::milliseconds timeout, std::string user_agent)
      : endpoint_(std::move(endpoint)), timeout_(timeout), user_agent_(std::move(user_agent)) {}

  bool send(const nlohmann::json& event);
  int sent() const { return sent_; }

 private:
  void post(const std::string& body);

  NotifyEndpoint endpoint_;
  std::chrono::milliseconds timeout_;
  std::string user_agent_;
  int sent_ = 0;
  int failures_in_a_row_ = 0;
};

}  // namespace windowctl
