// The Kubernetes API client: one TLS connection per run, bearer/mTLS/exec auth, typed errors,
// bounded retries. It knows nothing about Flux.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "http.h"
#include "retry.h"
#include "tls.h"

namespace windowctl {

struct ClientOptions {
  std::chrono::milliseconds request_timeout{30000};
  RetryPolicy retry;
  std::string user_agent;
};

// Body caps. etcd refuses to store an object beyond 1.5 MiB (its request limit), and custom
// resources are stored as the JSON served, so one object's answer above 2 MiB is not a real
// one. A LIST page holds at most kListPageSize objects, but a server that ignores `limit` sends
// everything at once: that, not the cluster size, is what the page cap bounds.
inline constexpr std::size_t kMaxObjectBytes = 2 * 1024 * 1024;
inline constexpr std::size_t kMaxPageBytes = 64 * 1024 * 1024;

struct ClientStats {
  int requests = 0;    // HTTP requests sent, retries included
  int handshakes = 0;  // TLS connections opened
  int retries = 0;
};

class Client {
 public:
  // Runs an exec plugin if the config has one and loads TLS material: errors here are ConfigError
  // or TlsConfigError, before anything is sent.
  Client(Config config, ClientOptions options);
  ~Client();

  // Returns the JSON body of a 2xx answer. Throws ApiError (from the Status body) when the server
  // refuses, TransportError when it cannot be reached; both only after the retries ran out.
  nlohmann::json call(std::string_view method, const std::string& path, const nlohmann::json* body = nullptr,
                      std::string_view content_type = "application/json");
  // The same, returning the bytes of the 2xx body for a caller that parses them itself.
  std::string fetch(std::string_view method, const std::string& path, const nlohmann::json* body = nullptr,
                    std::string_view content_type = "application/json", std::size_t max_body = kMaxObjectBytes);

  const ClientStats& stats() const { return stats_; }
  const Config& config() const { return config_; }

 private:
  http::Response round_trip(const http::Request& request, std::size_t max_body);
  http::Response exchange(const http::Request& request, const std::string& wire, std::size_t max_body,
                          Clock::time_point deadline, bool* extra);
  bool refresh_credentials();
  void load_exec_credential();

  Config config_;
  ClientOptions options_;
  std::unique_ptr<TlsContext> tls_;
  std::unique_ptr<TlsConnection> conn_;
  std::string host_header_;
  std::mt19937_64 rng_;
  ClientStats stats_;
  std::vector<std::string> access_hints_;  // said already: once per run each
};

// One line for a failed request, typed by where it failed: "forbidden: ...", "timeout: ...",
// "unreachable: ...", "bad response: ...". Terminal-safe (printable): it may quote the server.
std::string error_summary(const std::exception& e);

// A server certificate the CA does not vouch for, or a server that does not complete a TLS
// handshake with windowctl (not TLS at all, or refusing it with an alert), is a configuration
// error (exit 2), not a flaky network: rethrown as ConfigError.
bool refused_by_tls(const TransportError& e);
[[noreturn]] void rethrow_verify_as_config(const TransportError& e);

}  // namespace windowctl
