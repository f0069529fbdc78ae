#include "utf8.h"

namespace windowctl {

namespace {

// Length of the valid character at the start of `s`, or 0.
std::size_t char_length(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  auto cont = [&](std::size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  unsigned char c = byte(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && byte(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && byte(1) > 0x9F) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && byte(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && byte(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

bool valid_utf8(std::string_view text) {
  while (!text.empty()) {
    std::size_t n = char_length(text);
    if (n == 0) return false;
    text.remove_prefix(n);
  }
  return true;
}

std::string utf8_prefix(std::string_view text, std::size_t max_bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  while (!text.empty()) {
    std::size_t n = char_length(text);
    std::string_view piece = n ? text.substr(0, n) : kReplacement;
    if (out.size() + piece.size() > max_bytes) break;
    out += piece;
    text.remove_prefix(n ? n : 1);
  }
  return out;
}

}  // namespace windowctl
