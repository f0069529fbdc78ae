#include "seen.h"

#include <doctest/doctest.h>

#include <string>

using namespace windowctl;

TEST_CASE("seen: each namespace/name once") {
  SeenSet seen(42);
  CHECK(seen.insert("flux-system", "apps-rw"));
  CHECK_FALSE(seen.insert("flux-system", "apps-rw"));
  CHECK(seen.insert("flux-system", "apps-rt"));
  CHECK(seen.insert("team-a", "apps-rw"));
  // The separator is part of the key: a name cannot pose as another namespace's.
  CHECK(seen.insert("ab", "c"));
  CHECK(seen.insert("a", "bc"));
  CHECK(seen.size() == 5);
}

TEST_CASE("seen: 200,000 distinct names, then all of them again, through every growth") {
  for (std::uint64_t key : {0ULL, 1ULL, 0xdeadbeefULL}) {
    SeenSet seen(key);
    for (int i = 0; i < 200000; ++i) REQUIRE(seen.insert("flux-system", "app-" + std::to_string(i)));
    for (int i = 0; i < 200000; ++i) REQUIRE_FALSE(seen.insert("flux-system", "app-" + std::to_string(i)));
    CHECK(seen.size() == 200000);
  }
}

TEST_CASE("seen: a default-constructed set is keyed at random") {
  SeenSet a, b;
  CHECK(a.insert("flux-system", "x"));
  CHECK(b.insert("flux-system", "x"));
  CHECK_FALSE(a.insert("flux-system", "x"));
}
