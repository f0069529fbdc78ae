#include "text.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace windowctl;

TEST_CASE("valid UTF-8, as RFC 3629 defines it") {
  for (const char* good : {"", "plain", "Zürich", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
    CHECK_MESSAGE(valid_utf8(good), good);
  }
  for (const char* bad : {"\xFF", "\xC3", "a\xC3", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                          "\x80", "\xF0\x9F\x98"}) {
    CHECK_MESSAGE(!valid_utf8(bad), bad);
  }
}

TEST_CASE("a UTF-8 prefix ends between characters and always serialises") {
  CHECK(utf8_prefix("Zürich", 2) == "Z");  // not half of the ü
  CHECK(utf8_prefix("Zürich", 3) == "Zü");
  CHECK(utf8_prefix("abc", 10) == "abc");
  CHECK(utf8_prefix("a\xFF"
                    "b",
                    10) ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(utf8_prefix("a\xFF"
                    "b",
                    3) == "a");
  for (std::size_t n = 0; n < 12; ++n) {
    std::string cut = utf8_prefix("\xE2\x82\xAC\xC3\xFF\xF0\x9F\x98\x80", n);
    CHECK(cut.size() <= n);
    CHECK(valid_utf8(cut));
    CHECK_NOTHROW((void)nlohmann::json(cut).dump());
  }
}

TEST_CASE("server text is one terminal-safe line") {
  CHECK(printable("forbidden: User \"x\" cannot patch") == "forbidden: User \"x\" cannot patch");
  // Lines a server adds become spaces: it cannot forge a log line of its own.
  CHECK(printable("one\ntwo\r\nerror flux-system/infra: fake\tx") == "one two  error flux-system/infra: fake x");
  // Escape sequences (ANSI colour, OSC title, BEL, DEL, NUL) are shown, not sent to the terminal.
  CHECK(printable("\x1b[31mred\x1b[0m\x07") == "\\x1b[31mred\\x1b[0m\\x07");
  CHECK(printable(std::string("a\0b\x7f", 4)) == "a\\x00b\\x7f");
  // UTF-8 passes; UTF-8 encoded C1 controls (U+009B is CSI) and invalid bytes are escaped.
  CHECK(printable("Zürich ✓ 🙂") == "Zürich ✓ 🙂");
  CHECK(printable("\xc2\x9b"
                  "2J") == "\\x9b2J");
  CHECK(printable("\xff\xfe x \xc3") == "\\xff\\xfe x \\xc3");
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate is not UTF-8
  CHECK(printable("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");  // nor is an overlong form
  // Cut on a character boundary, said so.
  CHECK(printable(std::string(10, 'a'), 4) == "aaaa...");
  CHECK(printable("ééé", 3) == "éé...");
}
