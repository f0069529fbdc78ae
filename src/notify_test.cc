#include "notify.h"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "event.h"
#include "kinds.h"

using namespace windowctl;

TEST_CASE("notify URLs: plain HTTP to a host, port and path, nothing a request line cannot carry") {
  auto def = parse_notify_url(kDefaultNotifyUrl, nullptr);
  REQUIRE(def);
  CHECK(def->host == "notification-controller.flux-system.svc.cluster.local.");
  CHECK(def->port == 80);
  CHECK(def->path == "/");
  auto full = parse_notify_url("HTTP://10.0.0.7:9090/events/x?y=1", nullptr);
  REQUIRE(full);
  CHECK(full->host == "10.0.0.7");
  CHECK(full->port == 9090);
  CHECK(full->path == "/events/x?y=1");
  auto v6 = parse_notify_url("http://[fd00::1]:8080", nullptr);
  REQUIRE(v6);
  CHECK(v6->host == "fd00::1");
  CHECK(v6->path == "/");

  struct Bad {
    std::string_view url;
    const char* problem;
  };
  for (const Bad& b :
       {Bad{"https://nc/", "https is not supported"}, Bad{"ftp://nc/", "must start with http://"},
        Bad{"http://", "names no host"}, Bad{"http://:80/", "names no host"}, Bad{"http://nc:0/", "not 1-65535"},
        Bad{"http://nc:65536/", "not 1-65535"}, Bad{"http://nc:8x/", "not a number"},
        Bad{"http://nc:/", "port is empty"}, Bad{"http://user:pw@nc/", "credentials"}, Bad{"http://n c/", "host holds"},
        Bad{"http://nc/a b", "space or a control"}, Bad{"http://nc/a\r\nX: y", "space or a control"},
        Bad{"http://nc/#x", "fragment"}, Bad{"http://[fd00::1/", "no closing ]"}, Bad{"http://[nc]/", "not an IPv6"},
        Bad{std::string_view("http://[::1\0p]/", 15), "not an IPv6"}, Bad{"http://[::1]x/", "after its IPv6"}}) {
    CAPTURE(b.url);
    std::string problem;
    CHECK_FALSE(parse_notify_url(b.url, &problem));
    CHECK(problem.find(b.problem) != std::string::npos);
  }
}

TEST_CASE("a Flux event carries the core Event's object, reason and message, and its severity") {
  auto obj = R"({"metadata":{"name":"apps-rw","namespace":"flux-system","uid":"u-1","resourceVersion":"9"}})"_json;
  SysTime now = std::chrono::sys_days(std::chrono::year{2026} / 11 / 24) + std::chrono::hours(8);
  auto core =
      make_event(*find_kind("ks"), "v1", obj, {"WindowClosed", "Normal", "Suspended by windowctl", "job-1"}, now);
  auto e = flux_event(core, "closed");
  CHECK(e["involvedObject"] ==
        R"({"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","name":"apps-rw",
                                   "namespace":"flux-system","uid":"u-1","resourceVersion":"9"})"_json);
  CHECK(e["severity"] == "info");
  CHECK(e["timestamp"] == "2026-11-24T08:00:00Z");
  CHECK(e["reason"] == "WindowClosed");
  CHECK(e["message"] == "Suspended by windowctl");
  CHECK(e["reportingController"] == "windowctl");
  CHECK(e["reportingInstance"] == "job-1");
  CHECK(e["metadata"] == R"({"kustomize.toolkit.fluxcd.io/window":"closed"})"_json);
  auto held =
      flux_event(make_event(*find_kind("hr"), "v2", obj, {"WindowOpenHeld", "Warning", "held", "j"}, now), "held");
  CHECK(held["severity"] == "error");
  CHECK(held["metadata"] == R"({"helm.toolkit.fluxcd.io/window":"held"})"_json);
  // Whatever shape it is handed, the required fields are strings.
  auto odd = flux_event(R"({"involvedObject":5,"type":["Warning"],"message":{}})"_json, "failed");
  CHECK(odd["severity"] == "info");
  CHECK(odd["message"] == "");
  CHECK(odd["involvedObject"] == nlohmann::json::object());
}

namespace {

// A one-shot receiver on loopback: answers each connection with `answer` and keeps what it read.
struct Receiver {
  int fd = -1;
  int port = 0;
  std::string got;
  std::thread thread;

  Receiver(std::string answer, int connections) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    ::listen(fd, 8);
    thread = std::thread([this, answer, connections] {
      for (int i = 0; i < connections; ++i) {
        int c = ::accept(fd, nullptr, nullptr);
        if (c < 0) return;
        char buf[8192];
        std::string request;
        // Read the head and the Content-Length body.
        for (;;) {
          ssize_t n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          request.append(buf, static_cast<std::size_t>(n));
          auto head_end = request.find("\r\n\r\n");
          auto cl = request.find("Content-Length: ");
          if (head_end != std::string::npos && cl != std::string::npos &&
              request.size() >= head_end + 4 + std::stoul(request.substr(cl + 16))) {
            break;
          }
        }
        got += request;
        if (!answer.empty()) (void)!::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
        ::close(c);
      }
    });
  }
  // Waits until it has served its connections.
  void wait() {
    if (thread.joinable()) thread.join();
  }
  ~Receiver() {
    ::shutdown(fd, SHUT_RDWR);
    wait();
    ::close(fd);
  }
};

}  // namespace

TEST_CASE("the Notifier posts the event as JSON and counts what the receiver accepted") {
  Receiver r("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 1);
  Notifier n({"127.0.0.1", r.port, "/hook"}, std::chrono::seconds(5), "windowctl/test");
  nlohmann::json event = {{"involvedObject", {{"name", "apps-rw"}}}, {"reason", "WindowClosed"}, {"severity", "info"}};
  CHECK(n.send(event));
  CHECK(n.sent() == 1);
  r.wait();
  CHECK(r.got.rfind("POST /hook HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(r.port) + "\r\n", 0) == 0);
  CHECK(r.got.find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(r.got.substr(r.got.find("\r\n\r\n") + 4) == event.dump());
}

TEST_CASE("a refused notification is a warning; after three in a row the run sends no more") {
  Receiver r("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", 3);
  Notifier n({"127.0.0.1", r.port, "/"}, std::chrono::seconds(5), "windowctl/test");
  nlohmann::json event = {{"involvedObject", {{"name", "x"}}}, {"reason", "WindowOpened"}};
  for (int i = 0; i < 3; ++i) CHECK_FALSE(n.send(event));
  r.wait();
  // The fourth is not even tried: the receiver would not accept a fourth connection.
  CHECK_FALSE(n.send(event));
  CHECK(n.sent() == 0);
}
