// Compiled only into the sanitizer and fuzz builds (WINDOWCTL_SANITIZE, WINDOWCTL_FUZZ). Those
// builds exist to catch what the release build lets through, so a flag that turns their
// assertions off must break them rather than make them quietly weaker.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#ifdef NDEBUG
#error "a checked build must not define NDEBUG: assert() and nlohmann's JSON_ASSERT would be compiled out"
#endif
#ifndef _GLIBCXX_ASSERTIONS
#error "a checked build needs _GLIBCXX_ASSERTIONS: bounds and preconditions of the standard library"
#endif

namespace {

// True when `body` dies of SIGABRT in a child process (an assertion), with its report silenced.
bool aborts(const std::function<void()>& body) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (std::freopen("/dev/null", "w", stderr) == nullptr) std::_Exit(3);
    body();
    std::_Exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

}  // namespace

TEST_CASE("checked build: nlohmann's JSON_ASSERT stops const operator[] on a missing key") {
  CHECK(aborts([] {
    const nlohmann::json object = nlohmann::json::object();
    volatile bool null = object["missing"].is_null();
    (void)null;
  }));
}

TEST_CASE("checked build: the standard library checks its bounds") {
  CHECK(aborts([] {
    std::vector<int> v(2);
    volatile int i = 2;
    volatile int x = v[static_cast<std::size_t>(i)];
    (void)x;
  }));
}
