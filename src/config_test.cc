#include "config.h"

#include <doctest/doctest.h>

#include <map>

#include "test_util.h"

using namespace windowctl;

namespace {

Getenv env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const char* kKubeconfig = R"(apiVersion: v1
kind: Config
current-context: ctx
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
contexts:
- name: ctx
  context: {cluster: c, user: u}
users:
- name: u
  user: {token: kube-token}
)";

}  // namespace

TEST_CASE("server URLs") {
  CHECK(parse_server_url("https://10.0.0.1:6443") == std::pair<std::string, int>{"10.0.0.1", 6443});
  CHECK(parse_server_url("https://[fd00::1]:443/") == std::pair<std::string, int>{"fd00::1", 443});
  CHECK(parse_server_url("https://api.example.test") == std::pair<std::string, int>{"api.example.test", 443});
  CHECK_THROWS_WITH_AS(parse_server_url("http://10.0.0.1"),
                       "server http://10.0.0.1 is plain http; windowctl only speaks TLS", ConfigError);
  for (const char* bad : {"10.0.0.1:6443", "https://", "https://h:0", "https://h:99999", "https://h:x", "https://[::1",
                          "https://h/api"}) {
    CHECK_THROWS_AS_MESSAGE(parse_server_url(bad), ConfigError, bad);
  }
}

TEST_CASE("in-cluster: env host and port, ServiceAccount files, IPv6 brackets") {
  testing::TempDir dir;
  dir.write("sa/token", "sa-token\n");
  dir.write("sa/ca.crt", "PEM");
  auto c = in_cluster_config(env({{"KUBERNETES_SERVICE_HOST", "fd00::1"},
                                  {"KUBERNETES_SERVICE_PORT", "6443"},
                                  {"WINDOWCTL_SERVICE_ACCOUNT_DIR", dir.path() + "/sa"}}));
  CHECK(c.server == "https://[fd00::1]:6443");
  CHECK(c.host == "fd00::1");
  CHECK(c.port == 6443);
  CHECK(c.credentials.token == "sa-token");
  CHECK(c.credentials.token_file == dir.path() + "/sa/token");
  CHECK(c.ca_pem == "PEM");
}

TEST_CASE("in-cluster: unreadable or empty token is a configuration error") {
  testing::TempDir dir;
  dir.write("sa/ca.crt", "PEM");
  auto vars = env({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"WINDOWCTL_SERVICE_ACCOUNT_DIR", dir.path() + "/sa"}});
  CHECK_THROWS_WITH_AS(in_cluster_config(vars), doctest::Contains("cannot read ServiceAccount token"), ConfigError);
  dir.write("sa/token", " \n");
  CHECK_THROWS_WITH_AS(in_cluster_config(vars), doctest::Contains("is empty"), ConfigError);
}

TEST_CASE("infer: --kubeconfig, then KUBECONFIG, then in-cluster, then ~/.kube/config") {
  testing::TempDir dir;
  std::string kc = dir.write("kc.yaml", kKubeconfig);
  dir.write("sa/token", "sa-token");
  dir.write("sa/ca.crt", "PEM");
  dir.write("home/.kube/config",
            std::string(kKubeconfig).replace(std::string(kKubeconfig).find("kube-token"), 10, "home-token"));
  std::map<std::string, std::string> vars = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                             {"WINDOWCTL_SERVICE_ACCOUNT_DIR", dir.path() + "/sa"},
                                             {"HOME", dir.path() + "/home"}};
  CHECK(infer_config({kc, ""}, env(vars)).credentials.token == "kube-token");
  vars["KUBECONFIG"] = "/nonexistent:" + kc;
  CHECK_THROWS_AS(infer_config({}, env(vars)), ConfigError);  // a named file that is missing is an error, as in kubectl
  vars["KUBECONFIG"] = kc;
  CHECK(infer_config({}, env(vars)).credentials.token == "kube-token");
  vars.erase("KUBECONFIG");
  CHECK(infer_config({}, env(vars)).credentials.token == "sa-token");
  vars.erase("KUBERNETES_SERVICE_HOST");
  CHECK(infer_config({}, env(vars)).credentials.token == "home-token");
  vars["HOME"] = dir.path() + "/nowhere";
  CHECK_THROWS_WITH_AS(infer_config({}, env(vars)), doctest::Contains("no cluster configuration"), ConfigError);
}

TEST_CASE("the subject of a ServiceAccount token labels who acted") {
  // header {"alg":"none"}, payload {"sub":"system:serviceaccount:flux-system:windowctl"}
  std::string jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6Zmx1eC1zeXN0ZW06d2luZG93Y3RsIn0.sig";
  CHECK(token_subject(jwt) == "system:serviceaccount:flux-system:windowctl");
  CHECK(token_subject("opaque-token") == "");
  CHECK(token_subject("a.!!!.c") == "");
  CHECK(base64_decode("Q0EtUEVN", "x") == "CA-PEM");
  CHECK_THROWS_AS(base64_decode("abc", "x"), ConfigError);
}

TEST_CASE("default namespace: --namespace, else FLUX_SYSTEM_NAMESPACE, else flux-system") {
  CHECK(default_namespace("", env({})) == "flux-system");
  CHECK(default_namespace("", env({{"FLUX_SYSTEM_NAMESPACE", "flux"}})) == "flux");
  CHECK(default_namespace("apps", env({{"FLUX_SYSTEM_NAMESPACE", "flux"}})) == "apps");
  CHECK(default_namespace("", env({{"FLUX_SYSTEM_NAMESPACE", ""}})) == "flux-system");
  // The context's namespace plays no part: the flux CLI ignores it too.
  CHECK(default_namespace("", env({{"KUBECONFIG", "/nonexistent"}})) == "flux-system");
  CHECK_THROWS_WITH_AS(default_namespace("Flux_System", env({})),
                       "invalid --namespace \"Flux_System\" (lowercase letters, digits and '-')", ConfigError);
  CHECK_THROWS_WITH_AS(default_namespace("", env({{"FLUX_SYSTEM_NAMESPACE", "a/b"}})),
                       "invalid FLUX_SYSTEM_NAMESPACE \"a/b\" (lowercase letters, digits and '-')", ConfigError);
}
