#include "kubeconfig.h"

#include <doctest/doctest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "config.h"
#include "exec_credential.h"
#include "test_util.h"

using namespace windowctl;

namespace {

std::string kubeconfig(const std::string& cluster, const std::string& user, const std::string& extra_context = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\nclusters:\n- name: c\n  cluster:\n" + cluster +
         "contexts:\n- name: main\n  context:\n    cluster: c\n    user: u\n    namespace: apps\n" + extra_context +
         "users:\n- name: u\n  user:\n" + user;
}

const std::string kServer = "    server: https://127.0.0.1:6443\n";
// base64 of "CA-PEM"
const std::string kCaData = "    certificate-authority-data: Q0EtUEVN\n";

}  // namespace

TEST_CASE("token user with inline CA") {
  testing::TempDir dir;
  auto c = kubeconfig_config({dir.write("k", kubeconfig(kServer + kCaData, "    token: t0k\n"))}, "");
  CHECK(c.ca_pem == "CA-PEM");
  CHECK(c.credentials.token == "t0k");
  CHECK(c.port == 6443);
  CHECK(c.origin.find("context main") != std::string::npos);
}

TEST_CASE("relative files resolve against the kubeconfig's directory") {
  testing::TempDir dir;
  dir.write("certs/ca.crt", "FILE-CA");
  dir.write("certs/client.crt", "CERT");
  dir.write("certs/client.key", "KEY");
  dir.write("tok", "file-token\n");
  auto path = dir.write(
      "k",
      kubeconfig(kServer + "    certificate-authority: certs/ca.crt\n    tls-server-name: api.test\n",
                 "    client-certificate: certs/client.crt\n    client-key: certs/client.key\n    tokenFile: tok\n"));
  auto c = kubeconfig_config({path}, "");
  CHECK(c.ca_pem == "FILE-CA");
  CHECK(c.tls_server_name == "api.test");
  CHECK(c.credentials.client_cert_pem == "CERT");
  CHECK(c.credentials.client_key_pem == "KEY");
  CHECK(c.credentials.token == "file-token");
  CHECK(c.credentials.token_file == dir.path() + "/tok");
}

TEST_CASE("--context picks another context; merged files: first wins") {
  testing::TempDir dir;
  std::string other = "- name: other\n  context:\n    cluster: c2\n    user: u\n";
  auto a = dir.write("a", kubeconfig(kServer + kCaData, "    token: first\n", other));
  auto b = dir.write("b", "clusters:\n- name: c2\n  cluster:\n    server: https://10.1.1.1\n" + kCaData +
                              "users:\n- name: u\n  user:\n    token: second\n");
  auto c = kubeconfig_config({a, b}, "other");
  CHECK(c.host == "10.1.1.1");
  CHECK(c.port == 443);
  CHECK(c.credentials.token == "first");
  CHECK_THROWS_WITH_AS(kubeconfig_config({a}, "missing"), doctest::Contains("has no context missing"), ConfigError);
}

TEST_CASE("context names of merged files: file order, each once; what a fleet run selects from") {
  testing::TempDir dir;
  std::string other = "- name: other\n  context:\n    cluster: c2\n    user: u\n";
  auto a = dir.write("a", kubeconfig(kServer + kCaData, "    token: first\n", other));
  auto b =
      dir.write("b", "contexts:\n- name: other\n  context: {cluster: x}\n- name: third\n  context: {cluster: y}\n");
  CHECK(read_kubeconfig({a, b})->contexts() == std::vector<std::string>{"main", "other", "third"});
  CHECK(read_kubeconfig({b})->contexts() == std::vector<std::string>{"other", "third"});
  // One parse, each context's Config as kubeconfig_config has it.
  auto parsed = read_kubeconfig({a, b});
  CHECK(parsed->config("main").server == kubeconfig_config({a, b}, "main").server);
  CHECK(parsed->config("").credentials.token == "first");
  CHECK_THROWS_WITH_AS(parsed->config("third"), doctest::Contains("which is not in the kubeconfig"), ConfigError);
  // The same path decision as infer_config: --kubeconfig, then KUBECONFIG; in-cluster has none.
  auto env = [&](std::map<std::string, std::string> vars) -> Getenv {
    return [vars](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  CHECK(fleet_kubeconfig({b, ""}, env({}))->contexts() == std::vector<std::string>{"other", "third"});
  CHECK(fleet_kubeconfig({}, env({{"KUBECONFIG", a + ":" + b}}))->contexts().size() == 3);
  CHECK_THROWS_WITH_AS(fleet_kubeconfig({}, env({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}})),
                       doctest::Contains("need a kubeconfig"), ConfigError);
  auto bad = dir.write("bad", "contexts: {}\n");
  CHECK_THROWS_WITH_AS(read_kubeconfig({bad})->contexts(), doctest::Contains("contexts must be a list"), ConfigError);
}

TEST_CASE("exec plugin settings") {
  testing::TempDir dir;
  auto path = dir.write(
      "k", kubeconfig(kServer + kCaData,
                      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: bin/get-token\n"
                      "      args: [--cluster, prod]\n      env:\n      - {name: A, value: b}\n"
                      "      provideClusterInfo: true\n      interactiveMode: Never\n"));
  auto c = kubeconfig_config({path}, "");
  REQUIRE(c.credentials.exec);
  CHECK(c.credentials.exec->command == dir.path() + "/bin/get-token");
  CHECK(c.credentials.exec->args == std::vector<std::string>{"--cluster", "prod"});
  CHECK(c.credentials.exec->env.front() == std::pair<std::string, std::string>{"A", "b"});
  auto info = nlohmann::json::parse(exec_info_json(*c.credentials.exec, c));
  CHECK(info["spec"]["cluster"]["server"] == "https://127.0.0.1:6443");
  CHECK(info["spec"]["cluster"]["certificate-authority-data"] == "Q0EtUEVN");
  CHECK(info["spec"]["interactive"] == false);
}

TEST_CASE("bad kubeconfigs fail with a message that says what is wrong") {
  testing::TempDir dir;
  struct Case {
    std::string text, message;
  };
  std::vector<Case> cases = {
      {"{{{ not yaml", "is not valid YAML"},
      {"- a\n- b\n", "is not a YAML mapping"},
      {"apiVersion: v1\n", "has no current-context"},
      {kubeconfig("    server: http://127.0.0.1\n" + kCaData, "    token: t\n"), "plain http"},
      {kubeconfig(kServer, "    token: t\n"), "has no certificate-authority"},
      {kubeconfig(kServer + "    certificate-authority-data: '***'\n", "    token: t\n"), "not valid base64"},
      {kubeconfig(kServer + "    certificate-authority: missing.crt\n", "    token: t\n"),
       "cannot read certificate authority"},
      {kubeconfig(kServer + kCaData, "    client-certificate-data: Q0EtUEVN\n"),
       "needs both a client certificate and a client key"},
      {kubeconfig(kServer + kCaData,
                  "    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: x\n"),
       "is not supported"},
      {kubeconfig(kServer + kCaData, "    auth-provider: {name: gcp}\n"), "auth-provider"},
      {kubeconfig(kServer + kCaData + "    insecure-skip-tls-verify: maybe\n", "    token: t\n"),
       "must be true or false"},
      {kubeconfig(kServer + kCaData, "    tokenFile: nope\n"), "cannot read token file"},
      {kubeconfig(kServer + kCaData, "    token: t\n") + "- name: \xff\n  user: {}\n", "is not valid UTF-8"},
  };
  for (const auto& c : cases) {
    auto path = dir.write("bad", c.text);
    CHECK_THROWS_WITH_AS_MESSAGE(kubeconfig_config({path}, ""), doctest::Contains(c.message.c_str()), ConfigError,
                                 c.text);
  }
  CHECK_THROWS_WITH_AS(kubeconfig_config({dir.path() + "/absent"}, ""), doctest::Contains("cannot read kubeconfig"),
                       ConfigError);
}

TEST_CASE("insecure-skip-tls-verify needs no CA") {
  testing::TempDir dir;
  auto c = kubeconfig_config(
      {dir.write("k", kubeconfig(kServer + "    insecure-skip-tls-verify: true\n", "    token: t\n"))}, "");
  CHECK(c.insecure_skip_tls_verify);
}

TEST_CASE("ExecCredential answers") {
  const std::string v1 = "client.authentication.k8s.io/v1";
  auto ok = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"abc"}})", v1);
  CHECK(ok.token == "abc");
  auto cert = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"C","clientKeyData":"K"}})",
      v1);
  CHECK(cert.client_cert_pem == "C");
  for (
      const char* bad :
      {"", "not json", R"({"kind":"Other"})",
       R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"a"}})",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":5}})",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientKeyData":"K"}})",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","x":[[[[)"
       R"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[)"
       R"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[)"
       R"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[)"
       R"(]]]]}})"}) {
    CHECK_THROWS_AS_MESSAGE(parse_exec_credential(bad, v1), ConfigError, bad);
  }
}

TEST_CASE("running a plugin: token out, failures with their stderr") {
  testing::TempDir dir;
  auto ok = dir.write("ok.sh",
                      "#!/bin/sh\necho \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/info\"\n"
                      "echo "
                      "'{\"apiVersion\":\"client.authentication.k8s.io/"
                      "v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"from-plugin\"}}'\n");
  auto fail = dir.write("fail.sh", "#!/bin/sh\necho 'login required' >&2\nexit 3\n");
  auto slow = dir.write("slow.sh", "#!/bin/sh\nsleep 5\n");
  for (const auto& p : {ok, fail, slow}) std::filesystem::permissions(p, std::filesystem::perms::owner_all);
  Config cfg;
  cfg.server = "https://127.0.0.1:6443";
  ExecConfig e{"client.authentication.k8s.io/v1", ok, {}, {}, false, ""};
  CHECK(run_exec_plugin(e, cfg, std::chrono::seconds(5)).token == "from-plugin");
  e.command = fail;
  CHECK_THROWS_WITH_AS(run_exec_plugin(e, cfg, std::chrono::seconds(5)), doctest::Contains("(exit 3): login required"),
                       ConfigError);
  e.command = slow;
  CHECK_THROWS_WITH_AS(run_exec_plugin(e, cfg, std::chrono::milliseconds(300)), doctest::Contains("did not answer"),
                       ConfigError);
  e.command = dir.path() + "/absent";
  e.install_hint = "install it with apt";
  CHECK_THROWS_WITH_AS(run_exec_plugin(e, cfg, std::chrono::seconds(5)), doctest::Contains("cannot be started"),
                       ConfigError);
}
