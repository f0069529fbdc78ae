#include "targets.h"

#include <doctest/doctest.h>

#include "config.h"
#include "kinds.h"

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
  CHECK_THROWS_WITH_AS(parse_targets({"Apps"}, "ns"), "invalid name \"Apps\" (lowercase letters, digits, '-' and '.')",
                       ConfigError);
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

TEST_CASE("--targets: KIND/NAME and KIND/NAMESPACE/NAME, each of its own kind") {
  auto t = parse_kind_targets({"kustomization/apps-rw,helmrelease/podinfo", "iua/team-a/flux-system",
                               " GitRepo/flux-system ", "ks/flux-system/apps-rw", "hr/podinfo"},
                              "flux-system");
  REQUIRE(t.size() == 4);
  CHECK(t[0].kind == find_kind("Kustomization"));
  CHECK(t[0].id() == "kustomization/flux-system/apps-rw");
  CHECK(t[1].id() == "helmrelease/flux-system/podinfo");
  CHECK(t[2].kind == find_kind("ImageUpdateAutomation"));
  CHECK(t[2].ns == "team-a");
  CHECK(t[2].name == "flux-system");
  CHECK(t[3].id() == "gitrepository/flux-system/flux-system");
  // The same name as two kinds is two targets.
  CHECK(parse_kind_targets({"ks/x,gitrepo/x"}, "ns").size() == 2);
  // An id parses back to the same target.
  for (const auto& target : t) CHECK(parse_kind_targets({target.id()}, "other") == std::vector<Target>{target});
}

TEST_CASE("--targets: every entry is checked, and a bad one names itself") {
  CHECK_THROWS_WITH_AS(parse_kind_targets({"apps-rw"}, "ns"),
                       "--targets entry \"apps-rw\" has no kind: use KIND/NAME or KIND/NAMESPACE/NAME", ConfigError);
  CHECK_THROWS_WITH_AS(parse_kind_targets({"ks/a,gitrepos/x"}, "ns"),
                       "unknown kind \"gitrepos\" in --targets entry \"gitrepos/x\"; did you mean GitRepository?",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_kind_targets({"kustomizaton/apps/a"}, "ns"),
                       "unknown kind \"kustomizaton\" in --targets entry \"kustomizaton/apps/a\"; did you mean "
                       "Kustomization?",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_kind_targets({"ExternalArtifact/x"}, "ns"),
                       "unknown kind \"ExternalArtifact\" in --targets entry \"ExternalArtifact/x\" (see --kind in "
                       "windowctl --help)",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_kind_targets({"ks/a,,hr/b"}, "ns"), "empty name in --targets \"ks/a,,hr/b\"", ConfigError);
  CHECK_THROWS_WITH_AS(parse_kind_targets({"ks/Bad_NS/x"}, "ns"), "invalid namespace \"Bad_NS\" in \"ks/Bad_NS/x\"",
                       ConfigError);
  for (const char* bad : {"ks/", "ks//x", "ks/a/b/c", "ks/a/", "/x", "ks/x?dryRun=All", "ks/../x", "hr/a b", "ks/-a",
                          "ks/ns/x/status", "ExternalArtifact/x"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_kind_targets({bad}, "ns"), ConfigError);
  }
}
