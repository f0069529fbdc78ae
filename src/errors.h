// Errors that more than one module throws, in a leaf header: the pure time engine (cron, zone,
// window, sync) reports a bad expression without knowing about kubeconfigs or clients. Errors of
// one module stay with it (ApiError in api_error.h, TransportError in tls.h).
#pragma once

#include <stdexcept>

namespace windowctl {

// Bad flags, files or settings. Nothing has been sent yet; exit code 2.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace windowctl
