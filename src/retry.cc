#include "retry.h"

#include <algorithm>

namespace windowctl {

bool retryable_status(int status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

std::optional<std::chrono::milliseconds> next_delay(const RetryPolicy& policy, int attempts_done,
                                                    std::chrono::milliseconds elapsed,
                                                    std::optional<int> retry_after_seconds, double jitter) {
  using std::chrono::milliseconds;
  if (attempts_done >= policy.max_attempts) return std::nullopt;
  milliseconds delay;
  if (retry_after_seconds) {
    delay = std::chrono::seconds(*retry_after_seconds);
  } else {
    // Exponential growth with "equal jitter": half fixed, half random, never above the cap.
    milliseconds exp = policy.base * (1LL << std::min(attempts_done - 1, 20));
    exp = std::min(exp, policy.cap);
    delay = exp / 2 + milliseconds(static_cast<long long>(static_cast<double>(exp.count() / 2) * jitter));
  }
  if (elapsed + delay > policy.budget) return std::nullopt;
  return delay;
}

}  // namespace windowctl
