// API failures typed from the Kubernetes Status object, so callers branch on a reason, not a string.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace windowctl {

struct Config;

enum class Reason {
  kBadRequest,
  kUnauthorized,
  kForbidden,
  kNotFound,
  kMethodNotAllowed,
  kConflict,
  kAlreadyExists,
  kInvalid,
  kUnsupportedMediaType,
  kTooManyRequests,
  kInternalError,
  kServiceUnavailable,
  kTimeout,
  kUnknown,
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, Reason reason, std::string message, nlohmann::json details = nullptr,
           std::optional<int> retry_after_seconds = std::nullopt);

  // Builds the error from an HTTP status, its body (a Status object if the apiserver sent it,
  // anything else if a proxy did) and the Retry-After header.
  static ApiError from_response(int code, std::string_view body, const std::optional<std::string>& retry_after);

  int code() const { return code_; }
  Reason reason() const { return reason_; }
  const std::string& message() const { return message_; }
  const nlohmann::json& details() const { return details_; }
  std::optional<int> retry_after_seconds() const { return retry_after_; }

  // One line for humans: "forbidden: User "x" cannot patch resource ...".
  std::string summary() const;

 private:
  int code_;
  Reason reason_;
  std::string message_;
  nlohmann::json details_;
  std::optional<int> retry_after_;
};

// For a 401 or 403 answer to METHOD PATH: whose credentials were refused (the kubeconfig, its
// context and user, or the in-cluster ServiceAccount and its token file; never the token) and
// what to do. "" for any other code.
std::string access_hint(int code, std::string_view method, std::string_view path, const Config& config);

std::string_view reason_words(Reason reason);
Reason reason_from_status(std::string_view reason, int code);

}  // namespace windowctl
