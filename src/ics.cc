#include "ics.h"

#include <cstdint>
#include <cstdio>

namespace windowctl {

std::string ics_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' || c == ';' || c == ',') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;  // CRLF is one newline
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ics_line(std::string_view line) {
  std::string out;
  std::size_t room = 75;
  while (line.size() > room) {
    std::size_t cut = room;
    // A fold splits octets; a reader joins them back, but not every one copes with half a character.
    while (cut > 1 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
    out.append(line.substr(0, cut)).append("\r\n ");
    line.remove_prefix(cut);
    room = 74;
  }
  return out.append(line).append("\r\n");
}

std::string ics_time(SysTime t) {
  std::string s = rfc3339(t);  // 2026-11-30T08:00:00Z
  std::string out;
  for (char c : s) {
    if (c != '-' && c != ':') out += c;
  }
  return out;
}

std::string render_ics(const Schedule& schedule, SysTime at, const std::vector<Interval>& windows) {
  const std::string stamp = ics_time(at);
  std::string out = ics_line("BEGIN:VCALENDAR");
  out += ics_line("VERSION:2.0");
  out += ics_line("PRODID:-//windowctl//schedule//EN");
  out += ics_line("CALSCALE:GREGORIAN");
  out += ics_line("METHOD:PUBLISH");
  out += ics_line("X-WR-CALNAME:windowctl windows");
  for (const Interval& w : windows) {
    const std::string name = open_reason(schedule, w.start);
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a: stable across builds and platforms
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    const std::string start = ics_time(w.start);
    out += ics_line("BEGIN:VEVENT");
    out += ics_line("UID:" + std::string(hex) + "-" + start + "@windowctl");
    out += ics_line("DTSTAMP:" + stamp);
    out += ics_line("DTSTART:" + start);
    out += ics_line("DTEND:" + ics_time(w.end));
    out += ics_line("SUMMARY:" + ics_text(name));
    // Free: a window is when changes may land, not a meeting.
    out += ics_line("TRANSP:TRANSPARENT");
    out += ics_line("END:VEVENT");
  }
  return out + ics_line("END:VCALENDAR");
}

}  // namespace windowctl
