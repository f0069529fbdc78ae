// kubeconfig files (one, or two merged as KUBECONFIG=a:b does), with the files they name
// answered from memory, and the ServiceAccount token whose subject names who acts.
// Invariants: nothing but ConfigError escapes (no YAML exception, no crash on any shape); a
// configuration that comes out is usable: an https server with a host and a port, a CA unless
// verification is off, a client certificate only with its key, an identity that is UTF-8.
#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "fuzz_util.h"
#include "kubeconfig.h"
#include "text.h"

using namespace windowctl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string context = in.ConsumeBool() ? in.ConsumeRandomLengthString(16) : "";
  std::vector<KubeconfigFile> files;
  if (in.ConsumeBool()) files.push_back({"/kube/second", in.ConsumeRandomLengthString(512)});
  files.insert(files.begin(), KubeconfigFile{"/kube/config", in.ConsumeRemainingBytesAsString()});
  // Files named "missing..." do not exist; every other file holds a line of text.
  auto read = [](const std::string& path, const std::string& what) -> std::string {
    if (path.find("missing") != std::string::npos) throw ConfigError("cannot read " + what + " " + path);
    return "contents of " + path + "\n";
  };
  try {
    Config c = kubeconfig_from(files, context, read);
    FUZZ_CHECK(c.server.starts_with("https://"), c.server);
    FUZZ_CHECK(!c.host.empty() && c.port >= 1 && c.port <= 65535, c.server);
    FUZZ_CHECK(!c.ca_pem.empty() || c.insecure_skip_tls_verify);
    FUZZ_CHECK(c.credentials.client_cert_pem.empty() == c.credentials.client_key_pem.empty());
    if (c.credentials.exec) FUZZ_CHECK(!c.credentials.exec->command.empty());
    // Who acts goes into the override-by annotation, which is JSON.
    FUZZ_CHECK(valid_utf8(c.identity), c.identity);
    (void)token_subject(c.credentials.token);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0');
  }
  (void)token_subject(files.front().text);
  return 0;
}
