// Error answers: a Kubernetes Status body, or whatever a proxy sends instead, with its HTTP
// code and Retry-After. Invariants: nothing but an ApiError comes out; its message and summary
// are never empty and stay one line of bounded length when the body is not a Status; a retry
// delay is never negative, and one taken from the body is at most a day.
#include <cstdint>
#include <optional>
#include <string>

#include "api_error.h"
#include "fuzz_util.h"
#include "json_read.h"

using namespace windowctl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int code = in.ConsumeIntegralInRange(100, 999);
  std::optional<std::string> retry_after;
  if (in.ConsumeBool()) retry_after = in.ConsumeRandomLengthString(16);
  const std::string body = in.ConsumeRemainingBytesAsString();
  ApiError e = ApiError::from_response(code, body, retry_after);
  FUZZ_CHECK(e.code() == code);
  FUZZ_CHECK(!e.message().empty());
  std::string summary = e.summary();
  FUZZ_CHECK(!summary.empty());
  (void)reason_words(e.reason());
  if (auto r = e.retry_after_seconds()) {
    FUZZ_CHECK(*r >= 0);
    if (!retry_after) FUZZ_CHECK(*r <= 86400, std::to_string(*r));
  }
  FUZZ_CHECK(e.details().is_null() || e.details().is_object());
  const bool status = string_at(nlohmann::json::parse(body, nullptr, false), "kind") == "Status";
  if (!status) {
    FUZZ_CHECK(e.message().find_first_of("\r\n") == std::string::npos, e.message());
    FUZZ_CHECK(e.message().size() <= 220, std::to_string(e.message().size()));
  }
  return 0;
}
