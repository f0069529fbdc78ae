#include "notify.h"

#include <arpa/inet.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "http.h"
#include "json_read.h"
#include "net.h"
#include "text.h"
#include "util.h"

namespace windowctl {

namespace {

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

// The path goes onto the request line verbatim: printable ASCII without spaces only.
bool path_char(char c) { return c > 0x20 && c < 0x7f; }

std::optional<NotifyEndpoint> fail(std::string* problem, std::string text) {
  if (problem) *problem = std::move(text);
  return std::nullopt;
}

struct Fd {
  int fd;
  ~Fd() { ::close(fd); }
};

}  // namespace

std::optional<NotifyEndpoint> parse_notify_url(std::string_view url, std::string* problem) {
  if (url.size() > 2048) return fail(problem, "it is longer than 2048 characters");
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() || !iequals_ascii(url.substr(0, kScheme.size()), kScheme)) {
    if (url.size() >= 8 && iequals_ascii(url.substr(0, 8), "https://")) {
      return fail(
          problem,
          "https is not supported: notification-controller's event receiver speaks plain HTTP inside the cluster");
    }
    return fail(problem, "it must start with http://");
  }
  std::string_view rest = url.substr(kScheme.size());
  std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  NotifyEndpoint ep;
  ep.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  for (char c : ep.path) {
    if (!path_char(c)) return fail(problem, "its path holds a space or a control character");
  }
  if (ep.path.find('#') != std::string::npos) return fail(problem, "it has a fragment (#)");
  if (authority.find('@') != std::string_view::npos) return fail(problem, "it carries credentials (user@)");
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(problem, "its IPv6 address has no closing ]");
    ep.host = std::string(authority.substr(1, close - 1));
    // inet_pton stops at a NUL: the characters are checked first, so what it accepts is the host.
    for (char c : ep.host) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
        return fail(problem, "its host is not an IPv6 address");
    }
    unsigned char buf[16];
    if (inet_pton(AF_INET6, ep.host.c_str(), buf) != 1) return fail(problem, "its host is not an IPv6 address");
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return fail(problem, "unexpected text after its IPv6 address");
      port_text = after.substr(1);
      if (port_text.empty()) return fail(problem, "its port is empty");
    }
  } else {
    std::size_t colon = authority.find(':');
    ep.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return fail(problem, "its port is empty");
    }
    if (ep.host.empty()) return fail(problem, "it names no host");
    if (ep.host.size() > 253) return fail(problem, "its host is longer than 253 characters");
    for (char c : ep.host) {
      if (!host_char(c)) return fail(problem, "its host holds a character a host name cannot");
    }
  }
  if (!port_text.empty()) {
    if (port_text.size() > 5) return fail(problem, "its port is not 1-65535");
    int port = 0;
    for (char c : port_text) {
      if (c < '0' || c > '9') return fail(problem, "its port is not a number");
      port = port * 10 + (c - '0');
    }
    if (port < 1 || port > 65535) return fail(problem, "its port is not 1-65535");
    ep.port = port;
  }
  return ep;
}

nlohmann::json flux_event(const nlohmann::json& core_event, std::string_view window) {
  const nlohmann::json* involved = field(core_event, "involvedObject");
  const nlohmann::json& obj = involved ? *involved : nlohmann::json::object();
  nlohmann::json ref = nlohmann::json::object();
  for (const char* key : {"apiVersion", "kind", "name", "namespace", "uid", "resourceVersion"}) {
    std::string value = string_at(obj, key);
    if (!value.empty()) ref[key] = value;
  }
  // notification-controller keeps only metadata keys under the object's API group.
  std::string api_version = string_at(obj, "apiVersion");
  std::string group = api_version.substr(0, api_version.find('/'));
  return {
      {"involvedObject", std::move(ref)},
      {"severity", string_at(core_event, "type") == "Warning" ? "error" : "info"},
      {"timestamp", string_at(core_event, "lastTimestamp")},
      {"message", string_at(core_event, "message")},
      {"reason", string_at(core_event, "reason")},
      {"metadata", {{group + "/window", std::string(window)}}},
      {"reportingController", "windowctl"},
      {"reportingInstance", string_at(core_event, "reportingInstance")},
  };
}

void Notifier::post(const std::string& body) {
  const auto deadline = Clock::now() + timeout_;
  http::Request req{"POST",
                    endpoint_.path,
                    endpoint_.host + (endpoint_.port == 80 ? "" : ":" + std::to_string(endpoint_.port)),
                    {{"User-Agent", user_agent_}, {"Content-Type", "application/json"}, {"Connection", "close"}},
                    body};
  // An IPv6 literal goes into Host in brackets.
  if (endpoint_.host.find(':') != std::string::npos) {
    req.host = "[" + endpoint_.host + "]" + (endpoint_.port == 80 ? "" : ":" + std::to_string(endpoint_.port));
  }
  const std::string wire = http::serialize(req);
  Fd sock{tcp_connect(endpoint_.host, endpoint_.port, deadline)};
  std::string_view out = wire;
  while (!out.empty()) {
    ssize_t n = ::send(sock.fd, out.data(), out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      out.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      wait_fd(sock.fd, POLLOUT, deadline, "sending the event");
    } else {
      throw TransportError(TransportError::Kind::kReset, "connection lost while sending the event");
    }
  }
  // The answer is a status line and perhaps a short text: 64 KiB is plenty.
  http::ResponseParser parser(false, 64 * 1024);
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(sock.fd, buf, sizeof buf, 0);
    http::ResponseParser::Result r;
    if (n > 0) {
      r = parser.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    } else if (n == 0) {
      r = parser.finish_eof();
      if (r == http::ResponseParser::Result::kNeedMore) r = http::ResponseParser::Result::kError;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      wait_fd(sock.fd, POLLIN, deadline, "waiting for the receiver's answer");
      continue;
    } else {
      throw TransportError(TransportError::Kind::kReset, std::string("connection reset: ") + std::strerror(errno));
    }
    if (r == http::ResponseParser::Result::kNeedMore) continue;
    if (r == http::ResponseParser::Result::kError) {
      throw TransportError(TransportError::Kind::kProtocol,
                           "bad answer: " + (parser.error().empty() ? "truncated" : parser.error()));
    }
    int status = parser.response().status;
    if (status < 200 || status > 299) throw std::runtime_error("the receiver answered HTTP " + std::to_string(status));
    return;
  }
}

bool Notifier::send(const nlohmann::json& event) {
  if (failures_in_a_row_ >= 3) return false;
  const nlohmann::json* involved = field(event, "involvedObject");
  const std::string what =
      string_at(event, "reason") + " for " + (involved ? string_at(*involved, "name") : std::string("?"));
  try {
    post(event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    failures_in_a_row_ = 0;
    ++sent_;
    return true;
  } catch (const std::exception& e) {
    ++failures_in_a_row_;
    spdlog::warn("could not notify {}:{} of {}: {}{}", endpoint_.host, endpoint_.port, what, e.what(),
                 failures_in_a_row_ >= 3 ? " (three failures in a row: no more notifications this run)" : "");
    return false;
  }
}

}  // namespace windowctl
