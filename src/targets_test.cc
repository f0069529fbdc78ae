#include "targets.h"

#include <doctest/doctest.h>

#include "config.h"

using namespace windowctl;

TEST_CASE("comma lists, namespaces and duplicates") {
  auto t = parse_targets({"apps-rw,infra", "other-ns/c", "apps-rw", " flux-system/infra "}, "flux-system");
  REQUIRE(t.size() == 3);
  CHECK(t[0].id() == "flux-system/apps-rw");
  CHECK(t[1].id() == "flux-system/infra");
  CHECK(t[2].id() == "other-ns/c");
}

TEST_CASE("invalid entries name themselves") {
  CHECK_THROWS_WITH_AS(parse_targets({"a,,b"}, "ns"), "empty name in --kustomizations \"a,,b\"", ConfigError);
  CHECK_THROWS_WITH_AS(parse_targets({"Apps"}, "ns"), "invalid name \"Apps\" (lowercase letters, digits, '-' and '.')", ConfigError);
  CHECK_THROWS_WITH_AS(parse_targets({"bad_ns/x"}, "ns"), "invalid namespace \"bad_ns\" in \"bad_ns/x\"", ConfigError);
  CHECK_THROWS_AS(parse_targets({"a/b/c"}, "ns"), ConfigError);
  CHECK_THROWS_AS(parse_targets({"-a"}, "ns"), ConfigError);
  CHECK_THROWS_AS(parse_targets({"/x"}, "ns"), ConfigError);
}

TEST_CASE("name rules follow DNS-1123") {
  CHECK(valid_object_name("apps-rw"));
  CHECK(valid_object_name("a.b-c.d"));
  CHECK_FALSE(valid_object_name("a..b"));
  CHECK_FALSE(valid_object_name(std::string(254, 'a')));
  CHECK(valid_namespace("flux-system"));
  CHECK_FALSE(valid_namespace("flux.system"));
  CHECK_FALSE(valid_namespace(std::string(64, 'a')));
}
