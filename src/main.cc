// windowctl: suspend, resume and relabel Flux objects for reconciliation windows.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "kubeconfig.h"
#include "log.h"
#include "tls.h"
#include "version.h"

namespace windowctl {
namespace {

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  // Errors in the arguments themselves are logged as every other error is, in the format asked.
  setup_logging(log_format_of(args), false);
  CommandLine cli(program_name(argc > 0 ? argv[0] : nullptr));
  if (auto exit_code = cli.parse(std::move(args), std::cout)) return *exit_code;
  const Flags& f = cli.flags();
  setup_logging(f.log_format == "json" ? LogFormat::kJson : LogFormat::kText, f.verbose);
  // The cluster the kubeconfig names; a run reaches it only when its command's row needs it.
  auto connect = [&f](const ClientOptions& options) {
    Config config = infer_config({f.kubeconfig, f.context}, process_getenv());
    spdlog::debug("using {} at {}", config.origin, config.server);
    return std::make_unique<Client>(std::move(config), options);
  };
  // A fleet run's contexts: the files infer_config reads, parsed once, and each context's Config
  // as kubeconfig_from decides it.
  std::unique_ptr<ParsedKubeconfig> parsed;
  auto names = [&] {
    parsed = fleet_kubeconfig({f.kubeconfig, ""}, process_getenv());
    return parsed->contexts();
  };
  auto config_of = [&](const std::string& context) {
    Config config = parsed->config(context);
    spdlog::debug("context {}: using {} at {}", context, config.origin, config.server);
    return config;
  };
  Kubeconfig kubeconfig{names, config_of};
  try {
    return dispatch(cli, {kVersion, kCommit}, connect, kubeconfig);
  } catch (const ConfigError& e) {
    spdlog::error("{}", e.what());
    return kExitUsage;
  }
}

}  // namespace
}  // namespace windowctl

// libstdc++'s default terminate handler names the escaping exception's type, and for that links
// the whole C++ demangler (about 42 KB of a 4 MiB budget). main catches every exception, so a
// terminate is a bug either way; a fixed line and the abort keep the core dump for it.
namespace __gnu_cxx {
[[gnu::used]] void __verbose_terminate_handler() {
  static const char kLine[] = "windowctl: internal error: terminate called\n";
  (void)!::write(2, kLine, sizeof kLine - 1);
  std::abort();
}
}  // namespace __gnu_cxx

int main(int argc, char** argv) {
  // A server that closes the connection while windowctl writes is an error to report and retry
  // (EPIPE), not a silent death by SIGPIPE halfway through a run.
  std::signal(SIGPIPE, SIG_IGN);
  windowctl::init_openssl();
  try {
    return windowctl::run(argc, argv);
  } catch (const nlohmann::json::exception& e) {
    // Outside JSON is read through type-checked accessors (json_read.h); reaching here is a bug,
    // reported without nlohmann's wording, which names no field a user could act on.
    spdlog::error("internal error: unexpected JSON shape (nlohmann id {}); please report it", e.id);
    return windowctl::kExitFailed;
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return windowctl::kExitFailed;
  }
}
