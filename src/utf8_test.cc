#include "utf8.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace windowctl;

TEST_CASE("valid UTF-8, as RFC 3629 defines it") {
  for (const char* good : {"", "plain", "Zürich", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
    CHECK_MESSAGE(valid_utf8(good), good);
  }
  for (const char* bad : {"\xFF", "\xC3", "a\xC3", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80",
                          "\xF0\x9F\x98"}) {
    CHECK_MESSAGE(!valid_utf8(bad), bad);
  }
}

TEST_CASE("a UTF-8 prefix ends between characters and always serialises") {
  CHECK(utf8_prefix("Zürich", 2) == "Z");  // not half of the ü
  CHECK(utf8_prefix("Zürich", 3) == "Zü");
  CHECK(utf8_prefix("abc", 10) == "abc");
  CHECK(utf8_prefix("a\xFF" "b", 10) == "a\xEF\xBF\xBD" "b");
  CHECK(utf8_prefix("a\xFF" "b", 3) == "a");
  for (std::size_t n = 0; n < 12; ++n) {
    std::string cut = utf8_prefix("\xE2\x82\xAC\xC3\xFF\xF0\x9F\x98\x80", n);
    CHECK(cut.size() <= n);
    CHECK(valid_utf8(cut));
    CHECK_NOTHROW((void)nlohmann::json(cut).dump());
  }
}
