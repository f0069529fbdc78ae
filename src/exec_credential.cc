#include "exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "json_read.h"

extern char** environ;

namespace windowctl {

ExecCredential parse_exec_credential(const std::string& text, const std::string& expected_api_version) {
  if (json_depth(text) > kMaxJsonDepth) {
    throw ConfigError("exec plugin printed JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object()) throw ConfigError("exec plugin printed no ExecCredential JSON");
  // A field of the wrong type is named as such: the plugin is misconfigured, exit 2.
  auto shown = [&](const char* key) {
    const nlohmann::json* v = field(doc, key);
    if (!v) return std::string("(none)");
    if (!v->is_string()) return std::string("of type ") + v->type_name();
    return v->get<std::string>().substr(0, 100);
  };
  if (string_at(doc, "kind") != "ExecCredential")
    throw ConfigError("exec plugin output has kind " + shown("kind") + ", not ExecCredential");
  if (string_at(doc, "apiVersion") != expected_api_version) {
    throw ConfigError("exec plugin answered apiVersion " + shown("apiVersion") + ", expected " + expected_api_version);
  }
  const nlohmann::json* status_field = field(doc, "status");
  if (!status_field || !status_field->is_object()) throw ConfigError("exec plugin output has no status");
  const nlohmann::json& status = *status_field;
  ExecCredential c;
  auto field = [&](const char* key) -> std::string {
    const nlohmann::json* v = windowctl::field(status, key);
    if (!v || v->is_null()) return {};
    if (!v->is_string()) throw ConfigError(std::string("exec plugin status.") + key + " is not a string");
    return v->get<std::string>();
  };
  c.token = field("token");
  c.client_cert_pem = field("clientCertificateData");
  c.client_key_pem = field("clientKeyData");
  if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
    throw ConfigError("exec plugin returned a client certificate without its key (or a key without its certificate)");
  }
  if (c.token.empty() && c.client_cert_pem.empty())
    throw ConfigError("exec plugin returned neither a token nor a client certificate");
  return c;
}

std::string exec_info_json(const ExecConfig& exec, const Config& config) {
  nlohmann::json info = {
      {"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", {{"interactive", false}}}};
  if (exec.provide_cluster_info) {
    nlohmann::json cluster = {{"server", config.server}};
    if (!config.tls_server_name.empty()) cluster["tls-server-name"] = config.tls_server_name;
    if (config.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config.ca_data_base64.empty()) cluster["certificate-authority-data"] = config.ca_data_base64;
    info["spec"]["cluster"] = cluster;
  }
  return info.dump();
}

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string first_line(const std::string& s) {
  auto end = s.find('\n');
  std::string line = s.substr(0, end);
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

}  // namespace

ExecCredential run_exec_plugin(const ExecConfig& exec, const Config& config, std::chrono::milliseconds timeout) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw ConfigError(std::string("exec plugin: pipe: ") + std::strerror(errno));
  Fd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw ConfigError(std::string("exec plugin: pipe: ") + std::strerror(errno));
  Fd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("KUBERNETES_EXEC_INFO=", 0) == 0) continue;
    env_storage.push_back(entry);
  }
  for (const auto& [name, value] : exec.env) env_storage.push_back(name + "=" + value);
  env_storage.push_back("KUBERNETES_EXEC_INFO=" + exec_info_json(exec, config));
  std::vector<char*> envp;
  for (auto& s : env_storage) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_storage{exec.command};
  argv_storage.insert(argv_storage.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_storage) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    std::string msg = "exec plugin " + exec.command + " cannot be started: " + std::strerror(rc);
    if (!exec.install_hint.empty()) msg += " (" + first_line(exec.install_hint) + ")";
    throw ConfigError(msg);
  }
  ::close(out_w.fd);
  out_w.fd = -1;
  ::close(err_w.fd);
  err_w.fd = -1;

  std::string out, err;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true, timed_out = false;
  while (out_open || err_open) {
    pollfd fds[2] = {{out_open ? out_r.fd : -1, POLLIN, 0}, {err_open ? err_r.fd : -1, POLLIN, 0}};
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      timed_out = n == 0;
      break;
    }
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else {
        (i == 0 ? out : err).append(buf, static_cast<std::size_t>(got));
        if (out.size() > (1 << 20)) throw ConfigError("exec plugin printed more than 1 MiB");
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    throw ConfigError("exec plugin " + exec.command + " did not answer within " +
                      std::to_string(timeout.count() / 1000) + "s");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string msg = "exec plugin " + exec.command + " failed";
    msg += WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")" : " (killed by a signal)";
    if (!err.empty()) msg += ": " + first_line(err);
    throw ConfigError(msg);
  }
  return parse_exec_credential(out, exec.api_version);
}

}  // namespace windowctl
