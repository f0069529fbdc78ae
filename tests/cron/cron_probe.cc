// Test-only: for each stdin line "EXPR<TAB>ZONE<TAB>RFC3339_START", prints the next five start
// instants the window engine derives from EXPR in ZONE (RFC 3339 UTC, space separated, fewer
// when the schedule never fires), or "ERROR <message>". tests/cron compares them with croniter.
#include <iostream>
#include <map>
#include <string>

#include "config.h"
#include "cron.h"
#include "timefmt.h"
#include "window.h"
#include "zone.h"

using namespace windowctl;

int main() {
  std::ios::sync_with_stdio(false);
  std::map<std::string, TimeZone, std::less<>> zones;
  std::string line;
  while (std::getline(std::cin, line)) {
    auto tab1 = line.find('\t');
    auto tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string::npos) {
      std::cout << "ERROR expected EXPR<TAB>ZONE<TAB>START\n";
      continue;
    }
    try {
      std::string zone_name = line.substr(tab1 + 1, tab2 - tab1 - 1);
      auto z = zones.find(zone_name);
      if (z == zones.end()) z = zones.emplace(zone_name, TimeZone::load(zone_name)).first;
      auto start = parse_rfc3339(line.substr(tab2 + 1));
      if (!start) throw ConfigError("bad start \"" + line.substr(tab2 + 1) + "\"");
      CronSchedule cron = parse_cron(line.substr(0, tab1));
      std::string out;
      for (SysTime t : next_starts(cron, z->second, *start, 5)) {
        if (!out.empty()) out += ' ';
        out += rfc3339(t);
      }
      std::cout << out << '\n';
    } catch (const ConfigError& e) {
      std::cout << "ERROR " << e.what() << '\n';
    }
  }
}
