#include "net.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace windowctl {

namespace {

// Resolves without NSS for IP literals, which is all in-cluster configuration ever uses.
std::vector<sockaddr_storage> resolve(const std::string& host, int port) {
  std::vector<sockaddr_storage> out;
  sockaddr_storage ss{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    out.push_back(ss);
    return out;
  }
  if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    out.push_back(ss);
    return out;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) throw TransportError(TransportError::Kind::kConnect, "cannot resolve " + host + ": " + gai_strerror(rc));
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    sockaddr_storage entry{};
    std::memcpy(&entry, ai->ai_addr, ai->ai_addrlen);
    out.push_back(entry);
  }
  ::freeaddrinfo(res);
  return out;
}

}  // namespace

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

void wait_fd(int fd, short events, Clock::time_point deadline, const char* what) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return;
    if (n == 0) throw TransportError(TransportError::Kind::kTimeout, std::string("timed out while ") + what);
    if (errno != EINTR)
      throw TransportError(TransportError::Kind::kConnect, std::string("poll: ") + std::strerror(errno));
  }
}

int tcp_connect(const std::string& host, int port, Clock::time_point deadline) {
  std::string last_error = "no address";
  for (const auto& addr : resolve(host, port)) {
    int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    socklen_t len = addr.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), len);
    if (rc != 0 && errno == EINPROGRESS) {
      try {
        wait_fd(fd, POLLOUT, deadline, "connecting");
      } catch (...) {
        ::close(fd);
        throw;
      }
      int err = 0;
      socklen_t elen = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
  }
  throw TransportError(TransportError::Kind::kConnect,
                       "cannot connect to " + host + ":" + std::to_string(port) + ": " + last_error);
}

}  // namespace windowctl
