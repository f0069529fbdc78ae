#include "config.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kubeconfig.h"
#include "targets.h"

namespace windowctl {

Getenv process_getenv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read " + what + " " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ConfigError("cannot read " + what + " " + path + ": " + std::strerror(errno));
  return ss.str();
}

std::string base64_decode(const std::string& text, const std::string& what) {
  std::string clean;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) clean += c;
  }
  if (clean.size() % 4 != 0) throw ConfigError(what + " is not valid base64");
  std::string out(clean.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(clean.data()), static_cast<int>(clean.size()));
  if (n < 0) throw ConfigError(what + " is not valid base64");
  // EVP_DecodeBlock counts padding as output bytes.
  std::size_t pad = 0;
  if (!clean.empty() && clean.back() == '=') ++pad;
  if (clean.size() > 1 && clean[clean.size() - 2] == '=') ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

std::string token_subject(const std::string& token) {
  auto first = token.find('.');
  auto second = token.find('.', first + 1);
  if (first == std::string::npos || second == std::string::npos) return {};
  std::string payload = token.substr(first + 1, second - first - 1);
  for (char& c : payload) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (payload.size() % 4) payload += '=';
  try {
    auto claims = nlohmann::json::parse(base64_decode(payload, "token"), nullptr, false);
    if (claims.is_object() && claims.contains("sub") && claims["sub"].is_string())
      return claims["sub"].get<std::string>();
  } catch (const ConfigError&) {
  }
  return {};
}

std::pair<std::string, int> parse_server_url(const std::string& url) {
  const std::string scheme = "https://";
  if (url.rfind("http://", 0) == 0) throw ConfigError("server " + url + " is plain http; windowctl only speaks TLS");
  if (url.rfind(scheme, 0) != 0) throw ConfigError("server " + url + " is not an https:// URL");
  std::string rest = url.substr(scheme.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos)
    throw ConfigError("server " + url + " has a path; windowctl needs the API root");
  std::string host, port_text;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos) throw ConfigError("server " + url + " has an unclosed IPv6 bracket");
    host = rest.substr(1, close - 1);
    std::string after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw ConfigError("server " + url + " is malformed");
      port_text = after.substr(1);
    }
  } else {
    auto colon = rest.find(':');
    host = rest.substr(0, colon);
    if (colon != std::string::npos) port_text = rest.substr(colon + 1);
  }
  if (host.empty()) throw ConfigError("server " + url + " has no host");
  int port = 443;
  if (!port_text.empty()) {
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port < 1 || port > 65535) {
      throw ConfigError("server " + url + " has an invalid port");
    }
  }
  return {host, port};
}

Config in_cluster_config(const Getenv& getenv) {
  std::string host = getenv("KUBERNETES_SERVICE_HOST").value_or("");
  std::string port = getenv("KUBERNETES_SERVICE_PORT").value_or("443");
  if (host.empty()) throw ConfigError("KUBERNETES_SERVICE_HOST is empty");
  bool ipv6 = host.find(':') != std::string::npos;
  std::string dir = getenv("WINDOWCTL_SERVICE_ACCOUNT_DIR").value_or(kDefaultServiceAccountDir);
  Config c;
  c.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  std::tie(c.host, c.port) = parse_server_url(c.server);
  c.ca_pem = read_file(dir + "/ca.crt", "ServiceAccount CA");
  c.credentials.token_file = dir + "/token";
  c.credentials.token = read_file(c.credentials.token_file, "ServiceAccount token");
  while (!c.credentials.token.empty() && std::isspace(static_cast<unsigned char>(c.credentials.token.back()))) {
    c.credentials.token.pop_back();
  }
  if (c.credentials.token.empty()) throw ConfigError("ServiceAccount token " + c.credentials.token_file + " is empty");
  c.origin = "in-cluster (" + dir + ")";
  c.identity = token_subject(c.credentials.token);
  if (c.identity.empty()) c.identity = "in-cluster ServiceAccount";
  return c;
}

namespace {

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(list);
  while (std::getline(in, item, ':')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

namespace {

// The kubeconfig files a run reads, in infer_config's order; empty: in-cluster. One decision for
// the one context of a run and for the contexts a fleet run chooses from.
std::vector<std::string> kubeconfig_paths(const InferOptions& options, const Getenv& getenv) {
  if (!options.kubeconfig.empty()) return {options.kubeconfig};
  if (auto env = getenv("KUBECONFIG"); env && !env->empty()) {
    auto paths = split_path_list(*env);
    if (paths.empty()) throw ConfigError("KUBECONFIG names no file");
    return paths;
  }
  if (auto host = getenv("KUBERNETES_SERVICE_HOST"); host && !host->empty()) return {};
  if (auto home = getenv("HOME"); home && !home->empty()) {
    std::string path = *home + "/.kube/config";
    if (exists(path)) return {path};
  }
  throw ConfigError(
      "no cluster configuration: pass --kubeconfig, set KUBECONFIG, run in a pod, or create ~/.kube/config");
}

}  // namespace

Config infer_config(const InferOptions& options, const Getenv& getenv) {
  const std::vector<std::string> paths = kubeconfig_paths(options, getenv);
  if (!paths.empty()) return kubeconfig_config(paths, options.context);
  if (!options.context.empty()) throw ConfigError("--context needs a kubeconfig; running in-cluster");
  return in_cluster_config(getenv);
}

std::unique_ptr<ParsedKubeconfig> fleet_kubeconfig(const InferOptions& options, const Getenv& getenv) {
  const std::vector<std::string> paths = kubeconfig_paths(options, getenv);
  if (paths.empty()) throw ConfigError("--contexts and --all-contexts need a kubeconfig; running in-cluster");
  return read_kubeconfig(paths);
}

std::string default_namespace(const std::string& flag, const Getenv& getenv) {
  std::string ns = flag, from = "--namespace";
  if (ns.empty()) {
    ns = getenv("FLUX_SYSTEM_NAMESPACE").value_or("");
    from = "FLUX_SYSTEM_NAMESPACE";
  }
  if (ns.empty()) return "flux-system";
  if (!valid_namespace(ns))
    throw ConfigError("invalid " + from + " \"" + ns + "\" (lowercase letters, digits and '-')");
  return ns;
}

}  // namespace windowctl
