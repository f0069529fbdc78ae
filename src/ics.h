// `schedule -o ics`: the merged windows (allow minus deny minus freeze, exactly next_windows) as
// an RFC 5545 VCALENDAR that a calendar subscribes to or imports. Pure: text in, text out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "timefmt.h"
#include "window.h"

namespace windowctl {

// One VEVENT per interval of `windows` (as next_windows gave them for `schedule` at `at`).
// - UID: "<16 hex digits>-<DTSTART>@windowctl", the digits a 64-bit FNV-1a hash of the name of
//   the allow window that opens it (open_reason at its start). A window is "the same" when the
//   same allow window opens it at the same instant: re-exporting after a deny or freeze cut its
//   end updates the event (same UID, new DTEND); the part after a cut starts elsewhere and is a
//   new event. Another window added to the schedule leaves the others' UIDs alone.
// - DTSTAMP: `at` (whole seconds): `--at` makes the output byte for byte reproducible; without
//   it, the export's own time, so a client sees a re-export as newer.
// - DTSTART/DTEND in UTC; SUMMARY is open_reason at the start (the window's text, or once
//   calendars are window sources the event's SUMMARY).
// Lines end in CRLF and are folded at 75 octets, never inside a UTF-8 character.
std::string render_ics(const Schedule& schedule, SysTime at, const std::vector<Interval>& windows);

// RFC 5545 TEXT: backslash, semicolon, comma and newlines escaped.
std::string ics_text(std::string_view text);
// One content line as RFC 5545 writes it: folded at 75 octets (a continuation begins with a
// space, which counts), CRLF at the end.
std::string ics_line(std::string_view line);
// 20261130T080000Z
std::string ics_time(SysTime t);

}  // namespace windowctl
