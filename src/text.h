// Text from outside, made safe for where it goes. Into JSON (Events, annotations): nlohmann
// refuses to serialise invalid UTF-8 (it throws), so text from outside its own JSON parser (argv,
// YAML) is checked, and text windowctl shortens is cut between characters, never inside one.
// Onto a terminal: printable(). A leaf unit, so the transport may include it.
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

// Text from outside (a server's Status message, an error page, an annotation) made safe for one
// line on a terminal: tab, CR and LF become a space, every other control character (C0, DEL,
// UTF-8 encoded C1) and every byte that is not valid UTF-8 becomes a visible \xNN, so a server
// can neither add lines to windowctl's output nor send escape sequences to the operator's
// terminal. Longer than `max_bytes`: cut on a character boundary, with "...".
std::string printable(std::string_view text, std::size_t max_bytes = 2048);

}  // namespace windowctl
