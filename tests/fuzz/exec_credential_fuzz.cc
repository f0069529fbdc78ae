// What an exec credential plugin prints (client.authentication.k8s.io ExecCredential).
// Invariants: nothing but ConfigError escapes (a wrong type is a configuration error, exit 2,
// never nlohmann's exception); a credential that comes out has a token or a client
// certificate, and a certificate only with its key.
#include <cstdint>
#include <string>

#include "config.h"
#include "exec_credential.h"
#include "fuzz_util.h"

using namespace windowctl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string version =
      in.ConsumeBool() ? "client.authentication.k8s.io/v1" : "client.authentication.k8s.io/v1beta1";
  const std::string text = in.ConsumeRemainingBytesAsString();
  try {
    ExecCredential c = parse_exec_credential(text, version);
    FUZZ_CHECK(!c.token.empty() || !c.client_cert_pem.empty());
    FUZZ_CHECK(c.client_cert_pem.empty() == c.client_key_pem.empty());
  } catch (const ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0');
  }
  return 0;
}
