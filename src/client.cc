#include "client.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "api_error.h"
#include "exec_credential.h"
#include "text.h"

namespace windowctl {

namespace {

bool is_ipv6(const std::string& host) { return host.find(':') != std::string::npos; }

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

}  // namespace

Client::Client(Config config, ClientOptions options)
    : config_(std::move(config)), options_(std::move(options)), rng_(std::random_device{}()) {
  if (config_.credentials.exec) load_exec_credential();
  if (config_.insecure_skip_tls_verify) {
    spdlog::warn(
        "TLS verification is DISABLED for {} (insecure-skip-tls-verify): anyone on the path can read the token and "
        "fake the answers",
        config_.server);
  }
  TlsSettings tls;
  tls.ca_pem = config_.ca_pem;
  tls.insecure_skip_verify = config_.insecure_skip_tls_verify;
  tls.client_cert_pem = config_.credentials.client_cert_pem;
  tls.client_key_pem = config_.credentials.client_key_pem;
  try {
    tls_ = std::make_unique<TlsContext>(tls);
  } catch (const TlsConfigError& e) {
    throw ConfigError(std::string(e.what()) + " (" + config_.origin + ")");
  }
  std::string host = is_ipv6(config_.host) ? "[" + config_.host + "]" : config_.host;
  host_header_ = config_.port == 443 ? host : host + ":" + std::to_string(config_.port);
}

Client::~Client() = default;

void Client::load_exec_credential() {
  auto cred = run_exec_plugin(*config_.credentials.exec, config_, options_.request_timeout);
  config_.credentials.token = cred.token;
  if (!cred.client_cert_pem.empty()) {
    config_.credentials.client_cert_pem = cred.client_cert_pem;
    config_.credentials.client_key_pem = cred.client_key_pem;
  }
}

bool Client::refresh_credentials() {
  Credentials& c = config_.credentials;
  if (!c.token_file.empty()) {
    try {
      std::string fresh = trimmed(read_file(c.token_file, "token file"));
      if (fresh.empty() || fresh == c.token) return false;
      c.token = fresh;
      spdlog::info("token was rejected; re-read {}", c.token_file);
      return true;
    } catch (const ConfigError& e) {
      spdlog::warn("token was rejected and {}", e.what());
      return false;
    }
  }
  if (c.exec) {
    std::string old = c.token;
    try {
      load_exec_credential();
    } catch (const ConfigError& e) {
      spdlog::warn("token was rejected and {}", e.what());
      return false;
    }
    spdlog::info("token was rejected; ran the exec plugin again");
    return c.token != old;
  }
  return false;
}

http::Response Client::exchange(const http::Request& request, const std::string& wire, std::size_t max_body,
                                Clock::time_point deadline, bool* extra) {
  conn_->write_all(wire, deadline);
  http::ResponseParser parser(request.method == "HEAD", max_body);
  char buf[16384];
  for (;;) {
    std::size_t n = conn_->read_some(buf, sizeof buf, deadline);
    if (n == 0) {
      if (parser.finish_eof() == http::ResponseParser::Result::kDone) break;
      throw TransportError(TransportError::Kind::kReset, parser.error());
    }
    std::size_t consumed = 0;
    auto r = parser.feed(std::string_view(buf, n), &consumed);
    if (r == http::ResponseParser::Result::kDone) {
      // Bytes beyond the answer belong to no request: the connection is not used again.
      *extra = consumed < n;
      break;
    }
    if (r == http::ResponseParser::Result::kError)
      throw TransportError(TransportError::Kind::kProtocol, "malformed HTTP response: " + parser.error());
  }
  return std::move(parser.response());
}

http::Response Client::round_trip(const http::Request& request, std::size_t max_body) {
  const auto deadline = Clock::now() + options_.request_timeout;
  const std::string wire = http::serialize(request);
  if (conn_ && !conn_->reusable()) {
    // Closed, reset or talking out of turn while idle: a fresh connection, never a write into a
    // closed one (which cost a retry, or SIGPIPE), and never an answer that came before the
    // request. Every attempt is one of the policy's: no hidden extra sends.
    spdlog::debug("the idle connection was closed by the server or holds bytes nobody asked for; reconnecting");
    conn_.reset();
  }
  if (!conn_) {
    try {
      conn_ = std::make_unique<TlsConnection>(*tls_, config_.host, config_.port, config_.tls_server_name, deadline);
    } catch (const TransportError& e) {
      // A server that refused TLS from the start is the configuration's problem (exit 2, nothing
      // changed). One that did speak TLS earlier in this run and now refuses it is a server
      // failing mid-run: the request fails, as any other, and what was done stays reported.
      if (refused_by_tls(e) && stats_.handshakes > 0) {
        throw TransportError(TransportError::Kind::kTls,
                             std::string(e.what()) + " (it completed a handshake earlier in this run)");
      }
      throw;
    }
    ++stats_.handshakes;
  }
  ++stats_.requests;
  bool extra = false;
  try {
    http::Response response = exchange(request, wire, max_body, deadline, &extra);
    if (!response.keep_alive || extra) conn_.reset();
    return response;
  } catch (const TransportError&) {
    conn_.reset();
    throw;
  }
}

nlohmann::json Client::call(std::string_view method, const std::string& path, const nlohmann::json* body,
                            std::string_view content_type) {
  std::string text = fetch(method, path, body, content_type);
  if (text.empty()) return nullptr;
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    throw TransportError(TransportError::Kind::kProtocol,
                         "the server answered " + std::string(method) + " " + path + " with a body that is not JSON");
  }
  return doc;
}

std::string Client::fetch(std::string_view method, const std::string& path, const nlohmann::json* body,
                          std::string_view content_type, std::size_t max_body) {
  http::Request request;
  request.method = std::string(method);
  request.target = path;
  request.host = host_header_;
  const auto start = Clock::now();
  bool refreshed = false;
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  for (int attempt = 1;; ++attempt) {
    request.headers = {{"User-Agent", options_.user_agent}, {"Accept", "application/json"}};
    if (!config_.credentials.token.empty())
      request.headers.emplace_back("Authorization", "Bearer " + config_.credentials.token);
    if (body) {
      request.headers.emplace_back("Content-Type", std::string(content_type));
      request.body = body->dump();
    }
    auto elapsed = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start); };
    auto backoff = [&](std::optional<int> retry_after, const std::string& why) {
      auto delay = next_delay(options_.retry, attempt, elapsed(), retry_after, jitter(rng_));
      if (!delay) return false;
      ++stats_.retries;
      spdlog::warn("{} {}: {}; retry {} in {}ms", method, path, printable(why), attempt, delay->count());
      std::this_thread::sleep_for(*delay);
      return true;
    };

    http::Response response;
    try {
      response = round_trip(request, max_body);
    } catch (const TransportError& e) {
      bool transient = e.kind == TransportError::Kind::kConnect || e.kind == TransportError::Kind::kTimeout ||
                       e.kind == TransportError::Kind::kReset;
      if (transient && backoff(std::nullopt, e.what())) continue;
      if (transient && attempt > 1)
        throw TransportError(e.kind,
                             std::string(e.what()) + " (gave up after " + std::to_string(attempt) + " attempts)");
      throw;
    }
    spdlog::debug("{} {} -> {} ({}ms)", method, path, response.status, elapsed().count());

    if (response.status >= 200 && response.status < 300) return std::move(response.body);
    if (response.status >= 300 && response.status < 400) {
      // The API server never redirects; something in between does. Following it would send the
      // token (and a PATCH) to wherever it points.
      auto location = response.header("Location");
      throw TransportError(TransportError::Kind::kProtocol,
                           "the server answered " + std::string(method) + " " + path + " with a redirect (HTTP " +
                               std::to_string(response.status) + ")" +
                               (location ? " to \"" + printable(*location, 300) + "\"" : std::string()) +
                               "; windowctl does not follow redirects: check the server address");
    }
    if (response.status == 401 && !refreshed && refresh_credentials()) {
      refreshed = true;
      continue;
    }
    ApiError error = ApiError::from_response(response.status, response.body, response.header("Retry-After"));
    // Whose credentials were refused, and the fix: once, however many targets it fails.
    if (std::string hint = access_hint(response.status, method, path, config_);
        !hint.empty() && std::find(access_hints_.cbegin(), access_hints_.cend(), hint) == access_hints_.cend()) {
      spdlog::error("{}", printable(hint));
      access_hints_.push_back(std::move(hint));
    }
    if (retryable_status(response.status)) {
      std::optional<int> retry_after;
      if (response.status == 429 || response.status == 503) retry_after = error.retry_after_seconds();
      if (backoff(retry_after, error.summary())) continue;
      if (retry_after && attempt < options_.retry.max_attempts) {
        // Given up before the attempts ran out: the wait asked for is beyond the budget.
        throw ApiError(error.code(), error.reason(),
                       error.message() + " (the server asks to retry after " + std::to_string(*retry_after) +
                           "s; windowctl waits at most " + std::to_string(options_.retry.budget.count() / 1000) +
                           "s per request)",
                       error.details(), retry_after);
      }
    }
    throw error;
  }
}

namespace {

std::string summary_of(const std::exception& e) {
  if (auto* api = dynamic_cast<const ApiError*>(&e)) return api->summary();
  if (auto* t = dynamic_cast<const TransportError*>(&e)) {
    switch (t->kind) {
      case TransportError::Kind::kTimeout: return std::string("timeout: ") + t->what();
      case TransportError::Kind::kProtocol: return std::string("bad response: ") + t->what();
      default: return std::string("unreachable: ") + t->what();
    }
  }
  return e.what();
}

}  // namespace

std::string error_summary(const std::exception& e) { return printable(summary_of(e)); }

bool refused_by_tls(const TransportError& e) {
  return e.kind == TransportError::Kind::kVerify || e.kind == TransportError::Kind::kHandshake;
}

void rethrow_verify_as_config(const TransportError& e) { throw ConfigError(printable(e.what())); }

}  // namespace windowctl
