#include "api_error.h"

#include <doctest/doctest.h>

#include "config.h"

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

TEST_CASE("a 401 or 403 says whose credentials were refused and what to do, never the token") {
  windowctl::Config kubeconfig;
  kubeconfig.origin = "kubeconfig /home/me/.kube/config, context prod";
  kubeconfig.identity = "me@prod";
  kubeconfig.credentials.token = "s3cr3t-token";
  const std::string ks = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations";
  CHECK(windowctl::access_hint(401, "GET", ks + "/apps-rw", kubeconfig) ==
        "kubeconfig /home/me/.kube/config, context prod, user me@prod: the API server does not accept these "
        "credentials (expired or revoked?); log in again or renew them");
  CHECK(windowctl::access_hint(403, "PATCH", ks + "/apps-rw?fieldManager=windowctl", kubeconfig) ==
        "kubeconfig /home/me/.kube/config, context prod, user me@prod may not patch "
        "kustomizations.kustomize.toolkit.fluxcd.io in namespace flux-system: grant it with an RBAC Role and "
        "RoleBinding (windowctl's are in kustomize/base/access)");
  windowctl::Config pod;
  pod.origin = "in-cluster (/var/run/secrets/kubernetes.io/serviceaccount)";
  pod.identity = "system:serviceaccount:flux-system:windowctl";
  pod.credentials.token = "s3cr3t-token";
  pod.credentials.token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  CHECK(windowctl::access_hint(401, "GET", ks + "/apps-rw", pod) ==
        "ServiceAccount token /var/run/secrets/kubernetes.io/serviceaccount/token "
        "(system:serviceaccount:flux-system:windowctl): the API server does not accept these credentials "
        "(expired or revoked?); does the ServiceAccount still exist?");
  const std::string sa =
      "ServiceAccount token /var/run/secrets/kubernetes.io/serviceaccount/token "
      "(system:serviceaccount:flux-system:windowctl) may not ";
  const std::string grant = ": grant it with an RBAC Role and RoleBinding (windowctl's are in kustomize/base/access)";
  // In every namespace (or none): a ClusterRole, as -A's component has.
  const std::string cluster_grant =
      ": grant it with an RBAC ClusterRole and ClusterRoleBinding (windowctl's are in "
      "kustomize/components/all-namespaces)";
  // The verb as RBAC names it: a GET of a collection is list; the core group has no suffix.
  CHECK(windowctl::access_hint(403, "GET", ks + "?labelSelector=a%3Db&limit=500", pod) ==
        sa + "list kustomizations.kustomize.toolkit.fluxcd.io in namespace flux-system" + grant);
  CHECK(windowctl::access_hint(403, "GET", "/apis/helm.toolkit.fluxcd.io/v2/helmreleases", pod) ==
        sa + "list helmreleases.helm.toolkit.fluxcd.io cluster-wide" + cluster_grant);
  CHECK(windowctl::access_hint(403, "POST", "/api/v1/namespaces/apps/events", pod) ==
        sa + "create events in namespace apps" + grant);
  CHECK(windowctl::access_hint(403, "GET", "/apis/kustomize.toolkit.fluxcd.io", pod) ==
        sa + "GET /apis/kustomize.toolkit.fluxcd.io" + cluster_grant);
  for (int code : {400, 404, 409, 500}) CHECK(windowctl::access_hint(code, "GET", ks, pod).empty());
  for (int code : {401, 403}) {
    CHECK(windowctl::access_hint(code, "GET", ks, pod).find("s3cr3t") == std::string::npos);
    CHECK(windowctl::access_hint(code, "GET", ks, kubeconfig).find("s3cr3t") == std::string::npos);
  }
}
