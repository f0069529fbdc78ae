// One verified TLS connection to the API server. OpenSSL never reads a config file or the
// system trust store: the only trust anchor is the CA the configuration hands in.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace windowctl {

using Clock = std::chrono::steady_clock;

struct TlsSettings {
  std::string ca_pem;  // empty only with insecure_skip_verify
  bool insecure_skip_verify = false;
  std::string client_cert_pem;  // optional mTLS identity
  std::string client_key_pem;
};

// Bad CA, certificate or key material: a configuration error (exit 2).
struct TlsConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Anything that went wrong on the wire. `verify` marks a certificate the CA does not vouch for,
// `handshake` a server that answered the TLS handshake with something else than TLS or refused
// it with an alert: both are the configuration's problem, not the network's.
struct TransportError : std::runtime_error {
  enum class Kind { kConnect, kTimeout, kReset, kTls, kVerify, kHandshake, kProtocol };
  TransportError(Kind k, const std::string& what) : std::runtime_error(what), kind(k) {}
  Kind kind;
};

class TlsContext {
 public:
  explicit TlsContext(const TlsSettings& settings);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  SSL_CTX* get() const { return ctx_; }

 private:
  SSL_CTX* ctx_ = nullptr;
};

class TlsConnection {
 public:
  // host: IP literal (IPv6 without brackets) or DNS name; server_name: the name the certificate
  // must carry (defaults to host).
  TlsConnection(const TlsContext& ctx, const std::string& host, int port, const std::string& server_name,
                Clock::time_point deadline);
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  void write_all(std::string_view data, Clock::time_point deadline);
  // Returns 0 when the peer closed the connection.
  std::size_t read_some(char* buf, std::size_t len, Clock::time_point deadline);

  // Whether an idle keep-alive connection can carry the next request: false when the peer closed
  // or reset it, or sent bytes nobody asked for (an answer read there would belong to no
  // request). TLS post-handshake messages (session tickets) are consumed, not counted.
  bool reusable();

 private:
  void close_now();
  void wait_io(int ssl_error, Clock::time_point deadline, const char* what);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
};

// Must run before anything else touches OpenSSL.
void init_openssl();

}  // namespace windowctl
