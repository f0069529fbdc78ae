#include "retry.h"

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using windowctl::next_delay;
using windowctl::RetryPolicy;

TEST_CASE("only transient statuses are retried") {
  for (int s : {429, 500, 502, 503, 504}) CHECK(windowctl::retryable_status(s));
  for (int s : {200, 400, 401, 403, 404, 409, 415, 422, 501}) CHECK_FALSE(windowctl::retryable_status(s));
}

TEST_CASE("backoff doubles, is jittered within [d/2, d] and capped") {
  RetryPolicy p;
  CHECK(next_delay(p, 1, 0ms, std::nullopt, 0.0) == 125ms);
  CHECK(next_delay(p, 1, 0ms, std::nullopt, 0.999) < 250ms);
  CHECK(next_delay(p, 2, 0ms, std::nullopt, 0.0) == 250ms);
  CHECK(next_delay(p, 3, 0ms, std::nullopt, 0.0) == 500ms);
  p.max_attempts = 100;
  CHECK(next_delay(p, 30, 0ms, std::nullopt, 0.0) == 4000ms);
  CHECK(next_delay(p, 30, 0ms, std::nullopt, 0.9999) <= 8000ms);
}

TEST_CASE("Retry-After is honoured exactly") {
  RetryPolicy p;
  CHECK(next_delay(p, 1, 0ms, 2, 0.5) == 2000ms);
  CHECK(next_delay(p, 1, 0ms, 0, 0.5) == 0ms);
}

TEST_CASE("attempts and total time are bounded") {
  RetryPolicy p;
  CHECK(next_delay(p, 5, 0ms, std::nullopt, 0.0) == std::nullopt);
  CHECK(next_delay(p, 4, 0ms, std::nullopt, 0.0).has_value());
  CHECK(next_delay(p, 1, 59990ms, std::nullopt, 0.0) == std::nullopt);
  CHECK(next_delay(p, 1, 0ms, 120, 0.0) == std::nullopt);  // a Retry-After beyond the budget means give up now
}
