// Test-only: for each stdin line "FILE<TAB>FROM<TAB>TO<TAB>ZONE" (ZONE "-": none given), prints
// the occurrences of the calendar FILE that overlap [FROM, TO) as Calendar::spans gives them,
// "START/END" in RFC 3339 UTC, space separated; or "ERROR <message>". tests/calendar compares
// them with python3-dateutil's rrule over the same file read by python3-icalendar.
#include <iostream>
#include <optional>
#include <string>

#include "calendar.h"
#include "errors.h"
#include "timefmt.h"
#include "zone.h"

using namespace windowctl;

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      std::string field[4];
      std::size_t pos = 0;
      for (int i = 0; i < 4; ++i) {
        auto tab = line.find('\t', pos);
        field[i] = line.substr(pos, i == 3 ? std::string::npos : tab - pos);
        if (i < 3 && tab == std::string::npos) throw ConfigError("expected FILE<TAB>FROM<TAB>TO<TAB>ZONE");
        pos = tab + 1;
      }
      auto from = parse_rfc3339(field[1]), to = parse_rfc3339(field[2]);
      if (!from || !to) throw ConfigError("bad FROM or TO");
      std::optional<TimeZone> zone;
      if (field[3] != "-") zone = TimeZone::load(field[3]);
      Calendar c = load_calendar(field[0], zone);
      std::string out;
      for (const auto& s :
           c.spans(std::chrono::floor<std::chrono::seconds>(*from), std::chrono::floor<std::chrono::seconds>(*to))) {
        if (!out.empty()) out += ' ';
        out += rfc3339(s.start) + "/" + rfc3339(s.end);
      }
      std::cout << out << '\n';
    } catch (const ConfigError& e) {
      std::cout << "ERROR " << e.what() << '\n';
    }
  }
  return 0;
}
