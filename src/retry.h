// When to try a request again and how long to wait first. Pure, so the policy is tested exactly.
#pragma once

#include <chrono>
#include <optional>

namespace windowctl {

struct RetryPolicy {
  int max_attempts = 5;
  std::chrono::milliseconds base{250};
  std::chrono::milliseconds cap{8000};
  std::chrono::milliseconds budget{60000};  // total time one call may spend waiting and retrying
};

// Statuses that say "try again later" rather than "this request is wrong".
bool retryable_status(int status);

// The wait before attempt number `attempts_done + 1`, or nullopt when the call should give up.
// `jitter` in [0, 1) spreads clients apart; Retry-After from the server wins over backoff.
std::optional<std::chrono::milliseconds> next_delay(const RetryPolicy& policy, int attempts_done,
                                                    std::chrono::milliseconds elapsed,
                                                    std::optional<int> retry_after_seconds, double jitter);

}  // namespace windowctl
