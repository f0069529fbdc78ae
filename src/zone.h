// IANA time zones read straight from TZif files. The binary is static and runs from scratch, so
// neither libc's localtime nor a C++ tzdb is available (g++ 12 has no std::chrono::tzdb); the
// zoneinfo directory is mounted or copied in. UTC is built in and needs no file.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace windowctl {

using sys_seconds = std::chrono::sys_seconds;
using local_seconds = std::chrono::local_seconds;

class TimeZone {
 public:
  TimeZone();  // UTC

  // "UTC" and "Etc/UTC" are built in; anything else is read from $ZONEINFO, else
  // /usr/share/zoneinfo. Throws ConfigError for a malformed or unknown name or a bad file;
  // never falls back to UTC.
  static TimeZone load(std::string_view name);
  static TimeZone load(std::string_view name, const std::string& dir);
  // The contents of a TZif file (versions 1 to 4).
  static TimeZone from_tzif(std::string name, std::string_view data);
  // A POSIX TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3", as in a TZif footer.
  static TimeZone from_posix(std::string name, std::string_view rule);

  const std::string& name() const;

  // Seconds east of UTC in effect at `t`.
  std::chrono::seconds offset_at(sys_seconds t) const;
  // "CEST", "EST", "+1030", "UTC".
  std::string abbreviation(sys_seconds t) const;

  // The instants that show wall-clock time `t`, earliest first: none in a spring-forward gap,
  // two in a repeated (fall-back) hour, otherwise one.
  std::vector<sys_seconds> local_to_utc(local_seconds t) const;
  // One instant for any wall-clock time, as Python's zoneinfo with fold=0: the first of a
  // repeated time; a time in a gap is read with the offset before the gap, which moves it
  // forward by the gap's length (02:30 on a spring-forward night becomes 03:30).
  sys_seconds resolve(local_seconds t) const;

  // The first instant after `t` at which the UTC offset changes.
  std::optional<sys_seconds> next_transition(sys_seconds t) const;

  // Bounds of offset_at over all time.
  std::chrono::seconds min_offset() const;
  std::chrono::seconds max_offset() const;

  struct Data;

 private:
  explicit TimeZone(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;  // immutable, so copies share it
};

// Zone names as tzdata spells them: letters, digits, "_", "+", "-" and "/" between parts.
bool valid_zone_name(std::string_view name);

}  // namespace windowctl
