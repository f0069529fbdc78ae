#include "api_error.h"

#include <array>
#include <charconv>
#include <utility>

#include "config.h"
#include "json_read.h"

namespace windowctl {

namespace {

struct ReasonName {
  Reason reason;
  std::string_view status_reason;  // as the apiserver spells it in Status.reason
  std::string_view words;
  int code;
};

constexpr std::array<ReasonName, 13> kReasons{{
    {Reason::kBadRequest, "BadRequest", "bad request", 400},
    {Reason::kUnauthorized, "Unauthorized", "unauthorized", 401},
    {Reason::kForbidden, "Forbidden", "forbidden", 403},
    {Reason::kNotFound, "NotFound", "not found", 404},
    {Reason::kMethodNotAllowed, "MethodNotAllowed", "method not allowed", 405},
    {Reason::kConflict, "Conflict", "conflict", 409},
    {Reason::kAlreadyExists, "AlreadyExists", "already exists", 409},
    {Reason::kInvalid, "Invalid", "invalid", 422},
    {Reason::kUnsupportedMediaType, "UnsupportedMediaType", "unsupported media type", 415},
    {Reason::kTooManyRequests, "TooManyRequests", "too many requests", 429},
    {Reason::kInternalError, "InternalError", "internal error", 500},
    {Reason::kServiceUnavailable, "ServiceUnavailable", "service unavailable", 503},
    {Reason::kTimeout, "Timeout", "timeout", 504},
}};

std::string first_line(std::string_view text) {
  auto end = text.find_first_of("\r\n");
  std::string line(text.substr(0, end));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// `kustomizations.kustomize.toolkit.fluxcd.io "apps-rw" is forbidden: User ...` repeats what the
// caller already prints as the target; keep only the part after the verdict.
std::string strip_object_prefix(const std::string& message) {
  for (std::string_view verdict : {" is forbidden: ", " is invalid: "}) {
    auto pos = message.find(verdict);
    if (pos != std::string::npos) return message.substr(pos + verdict.size());
  }
  return message;
}

}  // namespace

std::string_view reason_words(Reason reason) {
  for (const auto& r : kReasons) {
    if (r.reason == reason) return r.words;
  }
  return "error";
}

Reason reason_from_status(std::string_view reason, int code) {
  for (const auto& r : kReasons) {
    if (r.status_reason == reason) return r.reason;
  }
  switch (code) {
    case 502:
    case 500: return Reason::kInternalError;
    case 504: return Reason::kTimeout;
    default: break;
  }
  for (const auto& r : kReasons) {
    if (r.code == code) return r.reason;
  }
  return Reason::kUnknown;
}

ApiError::ApiError(int code, Reason reason, std::string message, nlohmann::json details, std::optional<int> retry_after)
    : std::runtime_error(message),
      code_(code),
      reason_(reason),
      message_(std::move(message)),
      details_(std::move(details)),
      retry_after_(retry_after) {}

ApiError ApiError::from_response(int code, std::string_view body, const std::optional<std::string>& retry_after) {
  std::optional<int> retry;
  if (retry_after) {
    int seconds = 0;
    auto [ptr, ec] = std::from_chars(retry_after->data(), retry_after->data() + retry_after->size(), seconds);
    if (ec == std::errc() && ptr == retry_after->data() + retry_after->size() && seconds >= 0) retry = seconds;
  }
  // Too deep to be a Status (json_read.h): read as the text a proxy might have sent.
  auto status = json_depth(body) > kMaxJsonDepth ? nlohmann::json()
                                                 : nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (string_at(status, "kind") == "Status") {
    std::string message = string_at(status, "message");
    std::string reason_text = string_at(status, "reason");
    if (message.empty()) message = reason_text.empty() ? "HTTP " + std::to_string(code) : reason_text;
    const nlohmann::json* d = field(status, "details");
    nlohmann::json details = d && d->is_object() ? *d : nlohmann::json(nullptr);
    if (auto seconds = int_at(details, "retryAfterSeconds"); !retry && seconds && *seconds >= 0 && *seconds <= 86400) {
      retry = static_cast<int>(*seconds);
    }
    return ApiError(code, reason_from_status(reason_text, code), message, details, retry);
  }
  std::string line = first_line(body);
  std::string message = "HTTP " + std::to_string(code) + (line.empty() ? "" : ": " + line);
  return ApiError(code, reason_from_status("", code), message, nullptr, retry);
}

std::string access_hint(int code, std::string_view method, std::string_view path, const Config& config) {
  if (code != 401 && code != 403) return {};
  const bool in_cluster = config.origin.starts_with("in-cluster");
  // The identity is the token's `sub` in a pod, or a stand-in when the token is no JWT.
  std::string out = in_cluster ? "ServiceAccount token " + config.credentials.token_file + " (" + config.identity + ")"
                               : config.origin + ", user " + config.identity;
  if (code == 401) {
    return out.append(": the API server does not accept these credentials (expired or revoked?); ")
        .append(in_cluster ? "does the ServiceAccount still exist?" : "log in again or renew them");
  }
  // /apis/GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME] (/api/v1/... for the core group), as
  // RBAC names it: the verb, RESOURCE.GROUP and where.
  std::vector<std::string_view> parts;
  for (std::string_view rest = path.substr(0, path.find('?')); !rest.empty();) {
    rest.remove_prefix(1);
    parts.push_back(rest.substr(0, rest.find('/')));
    rest.remove_prefix(parts.back().size());
  }
  const bool grouped = parts.size() > 1 && parts[0] == "apis";
  std::size_t i = grouped ? 3 : 2;
  std::string_view ns;
  if (i + 2 < parts.size() && parts[i] == "namespaces") {
    ns = parts[i + 1];
    i += 2;
  }
  out += " may not ";
  if (i >= parts.size()) {
    out.append(method).append(" ").append(path);
  } else {
    const bool named = i + 1 < parts.size();
    out.append(method == "PATCH"    ? "patch"
               : method == "POST"   ? "create"
               : method == "DELETE" ? "delete"
               : named              ? "get"
                                    : "list")
        .append(" ")
        .append(parts[i]);
    if (grouped) out.append(".").append(parts[1]);
    out.append(ns.empty() ? " cluster-wide" : " in namespace ").append(ns);
  }
  // In every namespace, a ClusterRole: the all-namespaces component has windowctl's.
  return out.append(ns.empty()
                        ? ": grant it with an RBAC ClusterRole and ClusterRoleBinding (windowctl's are in "
                          "kustomize/components/all-namespaces)"
                        : ": grant it with an RBAC Role and RoleBinding (windowctl's are in kustomize/base/access)");
}

std::string ApiError::summary() const {
  std::string words(reason_words(reason_));
  if (reason_ == Reason::kUnknown) words = "HTTP " + std::to_string(code_);
  return words + ": " + strip_object_prefix(message_);
}

}  // namespace windowctl
