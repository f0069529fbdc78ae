// UTF-8 for text windowctl writes into JSON (Events, annotations): nlohmann refuses to
// serialise invalid UTF-8 (it throws), so text from outside its own JSON parser (argv, YAML)
// is checked, and text windowctl shortens is cut between characters, never inside one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace windowctl {

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view text);

// At most `max_bytes` of `text`, ending on a character boundary; each byte that starts no
// valid character becomes U+FFFD, so the result always serialises.
std::string utf8_prefix(std::string_view text, std::size_t max_bytes);

}  // namespace windowctl
