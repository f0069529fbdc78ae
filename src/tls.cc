#include "tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "net.h"

namespace windowctl {

namespace {

std::string openssl_error() {
  unsigned long code = ERR_get_error();
  if (code == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};

// OpenSSL's error strings are not loaded (OPENSSL_INIT_NO_LOAD_SSL_STRINGS keeps the binary
// small), so the handshake failures a misconfigured server causes are named here.
std::string handshake_error(unsigned long code) {
  if (code == 0) return "the server ended the handshake";
  const int reason = ERR_GET_REASON(code);
  if (reason >= SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256) {
    return std::string("the server refused it with TLS alert \"") +
           SSL_alert_desc_string_long(reason - SSL_AD_REASON_OFFSET) + "\"";
  }
  switch (reason) {
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
    case SSL_R_UNEXPECTED_RECORD:
    case SSL_R_UNEXPECTED_MESSAGE: return "the server does not speak TLS (a plain-HTTP port, or not an API server?)";
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_NO_PROTOCOLS_AVAILABLE: return "no TLS version in common (windowctl speaks TLS 1.2 and 1.3)";
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_NO_CIPHERS_AVAILABLE: return "no cipher in common";
    default: {
      char buf[256];
      ERR_error_string_n(code, buf, sizeof buf);
      return buf;
    }
  }
}

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

void init_openssl() { OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_SSL_STRINGS, nullptr); }

TlsContext::TlsContext(const TlsSettings& settings) {
  init_openssl();
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (!ctx_) throw TlsConfigError("TLS setup failed: " + openssl_error());
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx_, SSL_MODE_AUTO_RETRY | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);

  if (settings.insecure_skip_verify) {
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
  } else {
    if (settings.ca_pem.empty()) {
      SSL_CTX_free(ctx_);
      throw TlsConfigError("no certificate authority configured");
    }
    // Trust exactly the given bundle; SSL_CTX_set_default_verify_paths is deliberately never called.
    X509_STORE* store = SSL_CTX_get_cert_store(ctx_);
    std::unique_ptr<BIO, BioDeleter> bio(
        BIO_new_mem_buf(settings.ca_pem.data(), static_cast<int>(settings.ca_pem.size())));
    int added = 0;
    while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
      if (X509_STORE_add_cert(store, cert) == 1) ++added;
      X509_free(cert);
    }
    ERR_clear_error();  // the loop ends on the expected "no start line"
    if (added == 0) {
      SSL_CTX_free(ctx_);
      throw TlsConfigError("certificate authority holds no PEM certificate");
    }
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  }

  if (!settings.client_cert_pem.empty() || !settings.client_key_pem.empty()) {
    std::unique_ptr<BIO, BioDeleter> cert_bio(
        BIO_new_mem_buf(settings.client_cert_pem.data(), static_cast<int>(settings.client_cert_pem.size())));
    X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
    if (!cert || SSL_CTX_use_certificate(ctx_, cert) != 1) {
      X509_free(cert);
      SSL_CTX_free(ctx_);
      throw TlsConfigError("client certificate is not a PEM certificate");
    }
    X509_free(cert);
    // Intermediates after the leaf.
    while (X509* extra = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)) {
      SSL_CTX_add0_chain_cert(ctx_, extra);
    }
    ERR_clear_error();
    std::unique_ptr<BIO, BioDeleter> key_bio(
        BIO_new_mem_buf(settings.client_key_pem.data(), static_cast<int>(settings.client_key_pem.size())));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
    if (!key || SSL_CTX_use_PrivateKey(ctx_, key) != 1 || SSL_CTX_check_private_key(ctx_) != 1) {
      EVP_PKEY_free(key);
      SSL_CTX_free(ctx_);
      ERR_clear_error();
      throw TlsConfigError("client key is not a PEM private key matching the client certificate");
    }
    EVP_PKEY_free(key);
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsConnection::TlsConnection(const TlsContext& ctx, const std::string& host, int port, const std::string& server_name,
                             Clock::time_point deadline) {
  fd_ = tcp_connect(host, port, deadline);

  ssl_ = SSL_new(ctx.get());
  if (!ssl_) {
    ::close(fd_);
    throw TransportError(TransportError::Kind::kTls, "TLS: " + openssl_error());
  }
  SSL_set_fd(ssl_, fd_);
  const std::string& name = server_name.empty() ? host : server_name;
  if (is_ip_literal(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), name.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl_, name.c_str());
    SSL_set1_host(ssl_, name.c_str());
  }
  for (;;) {
    int rc = SSL_connect(ssl_);
    if (rc == 1) break;
    int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      try {
        wait_io(err, deadline, "in the TLS handshake");
      } catch (...) {
        close_now();
        throw;
      }
      continue;
    }
    long verify = SSL_get_verify_result(ssl_);
    bool is_verify = verify != X509_V_OK;
    unsigned long code = ERR_peek_error();
    std::string detail = is_verify ? X509_verify_cert_error_string(verify) : handshake_error(code);
    ERR_clear_error();
    // The connection dropped (OpenSSL 3 reports an EOF without close_notify as an error of
    // its own): transient, retried. Anything else the server sent instead of TLS is not.
    bool reset = code == 0 || ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
    close_now();
    if (is_verify) {
      throw TransportError(TransportError::Kind::kVerify, "TLS certificate of " + name + " is not trusted: " + detail);
    }
    if (reset) throw TransportError(TransportError::Kind::kReset, "connection closed during the TLS handshake");
    throw TransportError(TransportError::Kind::kHandshake,
                         "TLS handshake with " + host + ":" + std::to_string(port) + " failed: " + detail);
  }
}

TlsConnection::~TlsConnection() { close_now(); }

void TlsConnection::close_now() {
  if (ssl_) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

void TlsConnection::wait_io(int ssl_error, Clock::time_point deadline, const char* what) {
  wait_fd(fd_, ssl_error == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, deadline, what);
}

void TlsConnection::write_all(std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    size_t written = 0;
    int rc = SSL_write_ex(ssl_, data.data(), data.size(), &written);
    if (rc == 1) {
      data.remove_prefix(written);
      continue;
    }
    int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      wait_io(err, deadline, "sending the request");
      continue;
    }
    ERR_clear_error();
    throw TransportError(TransportError::Kind::kReset, "connection lost while sending the request");
  }
}

bool TlsConnection::reusable() {
  if (SSL_pending(ssl_) > 0) return false;
  pollfd p{fd_, POLLIN, 0};
  int n = ::poll(&p, 1, 0);
  if (n == 0) return true;
  if (n < 0) return false;
  // Readable: EOF, a reset, application data, or only a TLS handshake message. A non-blocking
  // peek tells them apart; it consumes handshake messages and leaves application data queued.
  char byte;
  size_t got = 0;
  int rc = SSL_peek_ex(ssl_, &byte, 1, &got);
  if (rc == 1) return false;
  int err = SSL_get_error(ssl_, rc);
  ERR_clear_error();
  return err == SSL_ERROR_WANT_READ;
}

std::size_t TlsConnection::read_some(char* buf, std::size_t len, Clock::time_point deadline) {
  for (;;) {
    size_t got = 0;
    int rc = SSL_read_ex(ssl_, buf, len, &got);
    if (rc == 1) return got;
    int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      wait_io(err, deadline, "waiting for the response");
      continue;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return 0;
    // OpenSSL 3 reports a TCP close without TLS close_notify as an error of its own. Many
    // servers and proxies close that way: it is an EOF, and the HTTP framing says whether the
    // answer was complete (a truncated one is a reset, retried), never "TLS read failed".
    if (err == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      ERR_clear_error();
      return 0;
    }
    ERR_clear_error();
    // A peer that drops the TCP connection without close_notify looks like this; treat as EOF
    // only when the caller can tell from the framing, so report it as a reset.
    if (err == SSL_ERROR_SYSCALL) throw TransportError(TransportError::Kind::kReset, "connection reset by the server");
    throw TransportError(TransportError::Kind::kTls, "TLS read failed");
  }
}

}  // namespace windowctl
