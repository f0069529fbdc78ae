// Shared by the libFuzzer targets (tests/fuzz/*_fuzz.cc, built with WINDOWCTL_FUZZ; scripts/fuzz.sh
// runs them). A target calls the unit as windowctl does with outside input, and checks the
// invariants the unit promises: a broken one is a crash like any other, with the input saved.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#ifdef NDEBUG
#error "fuzz targets run with assertions on: NDEBUG must not be defined"
#endif
#ifndef _GLIBCXX_ASSERTIONS
#error "fuzz targets run with _GLIBCXX_ASSERTIONS"
#endif

namespace windowctl::fuzz {

[[noreturn]] inline void broken(const char* file, int line, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n%s\n", file, line, what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace windowctl::fuzz

// FUZZ_CHECK(cond) or FUZZ_CHECK(cond, detail): aborts with the condition's text and the detail.
#define FUZZ_CHECK(cond, ...)                                                                    \
  do {                                                                                           \
    if (!(cond)) ::windowctl::fuzz::broken(__FILE__, __LINE__, #cond, std::string{__VA_ARGS__}); \
  } while (0)
