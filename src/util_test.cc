#include "util.h"

#include <doctest/doctest.h>

namespace windowctl {

TEST_CASE("ASCII case, whatever the locale") {
  CHECK(ascii_lower("ImageUpdateAutomation") == "imageupdateautomation");
  CHECK(ascii_lower("MON-Fri") == "mon-fri");
  // Bytes outside ASCII pass unchanged (a UTF-8 name is not lower-cased half way).
  CHECK(ascii_lower("Zürich\xc3\x9c") == "zürich\xc3\x9c");
  CHECK(iequals_ascii("Content-Length", "content-length"));
  CHECK(iequals_ascii("", ""));
  CHECK_FALSE(iequals_ascii("Content-Length", "Content-Lengt"));
  CHECK_FALSE(iequals_ascii("\xc3\x9c", "\xc3\xbc"));
}

TEST_CASE("objects are named as windowctl prints them") {
  CHECK(object_label("", "flux-system", "apps-rw") == "flux-system/apps-rw");
  CHECK(object_label("HelmRelease", "apps", "podinfo") == "helmrelease/apps/podinfo");
}

}  // namespace windowctl
