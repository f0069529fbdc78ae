// Where the API server is and how to authenticate. One function, infer_config, decides between
// a kubeconfig and the in-cluster ServiceAccount, as kube-rs's Config::infer does.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "errors.h"

namespace windowctl {

struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  bool provide_cluster_info = false;
  std::string install_hint;
};

struct Credentials {
  std::string token;
  std::string token_file;  // re-read after a 401: kubelet rotates bound tokens
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<ExecConfig> exec;
};

struct Config {
  std::string server;  // as configured, e.g. https://[fd00::1]:443
  std::string host;    // without brackets
  int port = 443;
  std::string tls_server_name;  // certificate name to verify, when it differs from host
  std::string ca_pem;
  std::string ca_data_base64;  // for exec plugins that ask for cluster info
  bool insecure_skip_tls_verify = false;
  Credentials credentials;
  std::string origin;    // for messages: "in-cluster" or "kubeconfig PATH, context NAME"
  std::string identity;  // who acts, for override records: kubeconfig user or ServiceAccount name
};

// The process environment, injectable for tests.
using Getenv = std::function<std::optional<std::string>(const std::string&)>;
Getenv process_getenv();

struct InferOptions {
  std::string kubeconfig;  // --kubeconfig
  std::string context;     // --context
};

inline constexpr const char* kDefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// 1. --kubeconfig or KUBECONFIG; 2. in-cluster when KUBERNETES_SERVICE_HOST is set;
// 3. ~/.kube/config; 4. ConfigError.
Config infer_config(const InferOptions& options, const Getenv& getenv);

class ParsedKubeconfig;
// The kubeconfig infer_config would read, parsed once, for a fleet run (--contexts,
// --all-contexts): its context names and each one's Config, as infer_config has it for that
// --context. ConfigError in-cluster.
std::unique_ptr<ParsedKubeconfig> fleet_kubeconfig(const InferOptions& options, const Getenv& getenv);

Config in_cluster_config(const Getenv& getenv);
Config kubeconfig_config(const std::vector<std::string>& paths, const std::string& context);
std::unique_ptr<ParsedKubeconfig> read_kubeconfig(const std::vector<std::string>& paths);

// https://host[:port] → host and port; rejects plain http and paths.
std::pair<std::string, int> parse_server_url(const std::string& url);

std::string base64_decode(const std::string& text, const std::string& what);

// The `sub` claim of a JWT bearer token (a ServiceAccount's name), read without verifying it:
// it only labels who set an override. Empty when the token is not a JWT.
std::string token_subject(const std::string& token);

std::string read_file(const std::string& path, const std::string& what);

// The namespace of names without one and of -l/--all, as the flux CLI decides it: --namespace,
// else $FLUX_SYSTEM_NAMESPACE, else flux-system. Neither the kubeconfig context's namespace nor
// the in-cluster ServiceAccount's is used (the shipped jobs set FLUX_SYSTEM_NAMESPACE to their
// own). ConfigError when the result is not a valid namespace name.
std::string default_namespace(const std::string& flag, const Getenv& getenv);

}  // namespace windowctl
