// kubeconfig_config: the subset of kubeconfig that kubectl users rely on for a remote cluster.
#include "kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "text.h"

namespace windowctl {

namespace {

struct Loaded {
  std::string path;
  YAML::Node root;
};

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Relative file references in a kubeconfig are relative to that kubeconfig, as in kubectl.
std::string resolve_path(const std::string& base_file, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return dir_of(base_file) + "/" + path;
}

std::string str(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return {};
  YAML::Node v = node[key];
  if (!v || v.IsNull()) return {};
  if (!v.IsScalar()) throw ConfigError(std::string("field ") + key + " must be a string");
  return v.as<std::string>();
}

bool boolean(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return false;
  YAML::Node v = node[key];
  if (!v || v.IsNull()) return false;
  try {
    return v.as<bool>();
  } catch (const YAML::Exception&) {
    throw ConfigError(std::string("field ") + key + " must be true or false");
  }
}

// Finds entry `name` in the named list `key` (clusters, users, contexts) of the first file that has it.
std::pair<YAML::Node, std::string> find_named(const std::vector<Loaded>& files, const char* key,
                                              const std::string& name, const char* inner) {
  for (const auto& f : files) {
    YAML::Node list = f.root[key];
    if (!list) continue;
    if (!list.IsSequence()) throw ConfigError(f.path + ": " + key + " must be a list");
    for (const auto& entry : list) {
      if (entry.IsMap() && str(entry, "name") == name) {
        YAML::Node body = entry[inner];
        if (!body || !body.IsMap()) throw ConfigError(f.path + ": " + key + " entry " + name + " has no " + inner);
        return {body, f.path};
      }
    }
  }
  return {YAML::Node(), {}};
}

std::string data_or_file(const YAML::Node& node, const char* data_key, const char* file_key, const std::string& file,
                         const std::string& what, const FileReader& read) {
  std::string data = str(node, data_key);
  if (!data.empty()) return base64_decode(data, what + " (" + data_key + ")");
  std::string path = str(node, file_key);
  if (!path.empty()) return read(resolve_path(file, path), what);
  return {};
}

ExecConfig parse_exec(const YAML::Node& exec, const std::string& file) {
  ExecConfig e;
  e.api_version = str(exec, "apiVersion");
  e.command = str(exec, "command");
  if (e.command.empty()) throw ConfigError(file + ": exec plugin has no command");
  if (e.api_version != "client.authentication.k8s.io/v1" && e.api_version != "client.authentication.k8s.io/v1beta1") {
    throw ConfigError(file + ": exec plugin apiVersion " + (e.api_version.empty() ? "(empty)" : e.api_version) +
                      " is not supported (use client.authentication.k8s.io/v1 or v1beta1)");
  }
  // kubectl resolves a relative command containing a slash against the kubeconfig's directory.
  if (e.command.find('/') != std::string::npos) e.command = resolve_path(file, e.command);
  if (YAML::Node args = exec["args"]) {
    if (!args.IsSequence()) throw ConfigError(file + ": exec args must be a list");
    for (const auto& a : args) e.args.push_back(a.as<std::string>());
  }
  if (YAML::Node env = exec["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) throw ConfigError(file + ": exec env must be a list");
    for (const auto& v : env) e.env.emplace_back(str(v, "name"), str(v, "value"));
  }
  e.provide_cluster_info = boolean(exec, "provideClusterInfo");
  e.install_hint = str(exec, "installHint");
  return e;
}

}  // namespace

Config kubeconfig_config(const std::vector<std::string>& paths, const std::string& context) {
  return read_kubeconfig(paths)->config(context);
}

namespace {

std::vector<Loaded> load(const std::vector<KubeconfigFile>& texts) {
  std::vector<Loaded> files;
  for (const auto& [path, text] : texts) {
    // YAML is Unicode, as kubectl's parser insists; and what is read here (the user's name as
    // who set an override) ends up in JSON, which cannot carry stray bytes.
    if (!valid_utf8(text)) throw ConfigError("kubeconfig " + path + " is not valid UTF-8");
    try {
      YAML::Node root = YAML::Load(text);
      if (root.IsNull()) continue;  // an empty file contributes nothing, as in kubectl
      if (!root.IsMap()) throw ConfigError("kubeconfig " + path + " is not a YAML mapping");
      files.push_back({path, root});
    } catch (const YAML::Exception& e) {
      throw ConfigError("kubeconfig " + path + " is not valid YAML: " + e.msg + " at line " +
                        std::to_string(e.mark.line + 1));
    }
  }
  if (files.empty())
    throw ConfigError("kubeconfig " + (texts.empty() ? std::string("(none)") : texts.front().path) + " is empty");
  return files;
}

}  // namespace

struct ParsedKubeconfig::Files {
  std::vector<Loaded> loaded;
};

ParsedKubeconfig::ParsedKubeconfig(const std::vector<KubeconfigFile>& texts, FileReader read)
    : files_(std::make_unique<Files>(Files{load(texts)})), read_(std::move(read)) {}

ParsedKubeconfig::~ParsedKubeconfig() = default;

std::unique_ptr<ParsedKubeconfig> read_kubeconfig(const std::vector<std::string>& paths) {
  std::vector<KubeconfigFile> files;
  for (const auto& path : paths) files.push_back({path, read_file(path, "kubeconfig")});
  return std::make_unique<ParsedKubeconfig>(files, read_file);
}

std::vector<std::string> ParsedKubeconfig::contexts() const {
  const std::vector<Loaded>& files = files_->loaded;
  std::vector<std::string> names;
  try {
    for (const auto& f : files) {
      YAML::Node list = f.root["contexts"];
      if (!list) continue;
      if (!list.IsSequence()) throw ConfigError(f.path + ": contexts must be a list");
      for (const auto& entry : list) {
        std::string name = entry.IsMap() ? str(entry, "name") : "";
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError("kubeconfig " + files.front().path + " is malformed: " + e.msg);
  }
  return names;
}

Config kubeconfig_from(const std::vector<KubeconfigFile>& texts, const std::string& context, const FileReader& read) {
  return ParsedKubeconfig(texts, read).config(context);
}

Config ParsedKubeconfig::config(const std::string& context_override) const {
  const std::vector<Loaded>& files = files_->loaded;
  const FileReader& read = read_;
  const std::string& first = files.front().path;

  try {
    std::string context_name = context_override;
    for (const auto& f : files) {
      if (!context_name.empty()) break;
      context_name = str(f.root, "current-context");
    }
    if (context_name.empty()) throw ConfigError("kubeconfig " + first + " has no current-context; pass --context");
    auto [context, context_file] = find_named(files, "contexts", context_name, "context");
    if (!context || context.IsNull()) throw ConfigError("kubeconfig " + first + " has no context " + context_name);

    std::string cluster_name = str(context, "cluster");
    auto [cluster, cluster_file] = find_named(files, "clusters", cluster_name, "cluster");
    if (!cluster || cluster.IsNull())
      throw ConfigError("context " + context_name + " names cluster " + cluster_name +
                        ", which is not in the kubeconfig");

    Config c;
    c.origin = "kubeconfig " + first + ", context " + context_name;
    c.identity = str(context, "user");
    c.server = str(cluster, "server");
    if (c.server.empty()) throw ConfigError("cluster " + cluster_name + " has no server");
    std::tie(c.host, c.port) = parse_server_url(c.server);
    c.tls_server_name = str(cluster, "tls-server-name");
    c.insecure_skip_tls_verify = boolean(cluster, "insecure-skip-tls-verify");
    c.ca_data_base64 = str(cluster, "certificate-authority-data");
    c.ca_pem = data_or_file(cluster, "certificate-authority-data", "certificate-authority", cluster_file,
                            "certificate authority of cluster " + cluster_name, read);
    if (c.ca_pem.empty() && !c.insecure_skip_tls_verify) {
      throw ConfigError("cluster " + cluster_name +
                        " has no certificate-authority; windowctl never trusts the system store");
    }

    std::string user_name = str(context, "user");
    if (!user_name.empty()) {
      auto [user, user_file] = find_named(files, "users", user_name, "user");
      if (!user || user.IsNull())
        throw ConfigError("context " + context_name + " names user " + user_name + ", which is not in the kubeconfig");
      Credentials& cred = c.credentials;
      cred.token = str(user, "token");
      if (std::string tf = str(user, "tokenFile"); !tf.empty() && cred.token.empty()) {
        cred.token_file = resolve_path(user_file, tf);
        cred.token = read(cred.token_file, "token file");
        while (!cred.token.empty() && std::isspace(static_cast<unsigned char>(cred.token.back())))
          cred.token.pop_back();
      }
      cred.client_cert_pem =
          data_or_file(user, "client-certificate-data", "client-certificate", user_file, "client certificate", read);
      cred.client_key_pem = data_or_file(user, "client-key-data", "client-key", user_file, "client key", read);
      if (cred.client_cert_pem.empty() != cred.client_key_pem.empty()) {
        throw ConfigError("user " + user_name + " needs both a client certificate and a client key");
      }
      if (YAML::Node exec = user["exec"]; exec && !exec.IsNull()) cred.exec = parse_exec(exec, user_file);
      if (user["auth-provider"]) {
        throw ConfigError("user " + user_name + " uses an auth-provider, which kubectl removed; use an exec plugin");
      }
      if (str(user, "username").size() || str(user, "password").size()) {
        throw ConfigError("user " + user_name + " uses basic auth, which Kubernetes removed");
      }
    }
    return c;
  } catch (const YAML::Exception& e) {
    throw ConfigError("kubeconfig " + first + " is malformed: " + e.msg);
  }
}

}  // namespace windowctl
