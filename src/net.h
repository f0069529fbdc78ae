// TCP with deadlines, shared by the TLS connection to the API server and the plain-HTTP
// connection to notification-controller.
#pragma once

#include <chrono>
#include <string>

#include "tls.h"

namespace windowctl {

// Milliseconds left until the deadline, for poll(): 0 once it has passed.
int remaining_ms(Clock::time_point deadline);

// Waits until fd is ready for `events` (POLLIN/POLLOUT); TransportError kTimeout at the deadline.
void wait_fd(int fd, short events, Clock::time_point deadline, const char* what);

// A connected non-blocking TCP socket to host:port (an IP literal is never looked up), trying
// each address in turn. TransportError kConnect when none answers.
int tcp_connect(const std::string& host, int port, Clock::time_point deadline);

}  // namespace windowctl
