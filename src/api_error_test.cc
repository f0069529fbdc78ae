#include "api_error.h"

#include <doctest/doctest.h>

using windowctl::ApiError;
using windowctl::Reason;

TEST_CASE("a Forbidden Status becomes a typed error with a short summary") {
  const char* body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
    "message":"kustomizations.kustomize.toolkit.fluxcd.io \"apps-rw\" is forbidden: User \"system:serviceaccount:flux-system:windowctl\" cannot patch resource \"kustomizations\" in API group \"kustomize.toolkit.fluxcd.io\" in the namespace \"flux-system\"",
    "reason":"Forbidden","details":{"name":"apps-rw","group":"kustomize.toolkit.fluxcd.io","kind":"kustomizations"},"code":403})";
  auto e = ApiError::from_response(403, body, std::nullopt);
  CHECK(e.reason() == Reason::kForbidden);
  CHECK(e.code() == 403);
  CHECK(e.details()["name"] == "apps-rw");
  CHECK(
      e.summary() ==
      "forbidden: User \"system:serviceaccount:flux-system:windowctl\" cannot patch resource \"kustomizations\" in API "
      "group \"kustomize.toolkit.fluxcd.io\" in the namespace \"flux-system\"");
}

TEST_CASE("Retry-After comes from the header or from details.retryAfterSeconds") {
  const char* body =
      R"({"kind":"Status","status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429})";
  CHECK(ApiError::from_response(429, body, std::string("7")).retry_after_seconds() == 7);
  CHECK(ApiError::from_response(429, body, std::nullopt).retry_after_seconds() == 3);
  CHECK(ApiError::from_response(429, body, std::string("Wed, 21 Oct 2015 07:28:00 GMT")).retry_after_seconds() == 3);
  CHECK(ApiError::from_response(429, body, std::nullopt).reason() == Reason::kTooManyRequests);
}

TEST_CASE("a proxy's plain-text error is typed by its code") {
  auto e = ApiError::from_response(502, "Bad Gateway\nupstream connect error", std::nullopt);
  CHECK(e.reason() == Reason::kInternalError);
  CHECK(e.summary() == "internal error: HTTP 502: Bad Gateway");
  auto empty = ApiError::from_response(503, "", std::nullopt);
  CHECK(empty.reason() == Reason::kServiceUnavailable);
  CHECK(empty.summary() == "service unavailable: HTTP 503");
}

TEST_CASE("unknown reasons and codes stay visible") {
  auto e = ApiError::from_response(418, R"({"kind":"Status","message":"teapot","reason":"Teapot","code":418})",
                                   std::nullopt);
  CHECK(e.reason() == Reason::kUnknown);
  CHECK(e.summary() == "HTTP 418: teapot");
  CHECK(ApiError::from_response(404, R"({"kind":"Status","message":"x not found","reason":"NotFound"})", std::nullopt)
            .summary() == "not found: x not found");
}

TEST_CASE("a body nested too deep is read as text, not parsed") {
  std::string deep =
      R"({"kind":"Status","message":"m","details":)" + std::string(300, '[') + std::string(300, ']') + "}";
  auto e = ApiError::from_response(500, deep, std::nullopt);
  CHECK(e.message().rfind("HTTP 500: {\"kind\":\"Status\"", 0) == 0);
}
