// Exec credential plugins (client.authentication.k8s.io), as AKS, EKS and GKE kubeconfigs use.
#pragma once

#include <chrono>
#include <string>

#include "config.h"

namespace windowctl {

struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
};

// Parses the plugin's stdout; pure, so every malformed answer is unit-tested.
ExecCredential parse_exec_credential(const std::string& text, const std::string& expected_api_version);

// KUBERNETES_EXEC_INFO as the plugin expects it.
std::string exec_info_json(const ExecConfig& exec, const Config& config);

// Runs the plugin (no stdin, bounded time) and parses its answer. Failures are ConfigError.
ExecCredential run_exec_plugin(const ExecConfig& exec, const Config& config, std::chrono::milliseconds timeout);

}  // namespace windowctl
