// The annotations `sync` reads from an object the API server sent: its own windows
// (windowctl.io/window, windowctl.io/deny, ';'-separated) and a time-boxed override
// (windowctl.io/override, -until, ...). Invariants: expressions split into trimmed, non-empty
// pieces free of separators; a schedule comes out only with an allow window, annotations
// replacing the flags and freezes kept; the window state agrees with is_open; an override
// decides exactly while its end (saturated beyond 2262) is after now, and sync's verdict
// never opens what an active "closed" override keeps closed.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "config.h"
#include "fuzz_util.h"
#include "plan.h"
#include "sync.h"

using namespace std::chrono;
using namespace windowctl;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const SysTime now = SysTime(seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 4'100'000'000)));
  const bool with_flags = in.ConsumeBool();
  const std::string text = in.ConsumeRemainingBytesAsString();

  for (const std::string& piece : split_expressions(text)) {
    FUZZ_CHECK(!piece.empty() && piece.find_first_of(";\n") == std::string::npos, piece);
    FUZZ_CHECK(piece.front() != ' ' && piece.back() != ' ' && piece.front() != '\t' && piece.back() != '\t', piece);
  }

  json object = json::parse(text, nullptr, false);
  if (object.is_discarded()) return 0;
  static const Schedule flags =
      parse_schedule({{"0 8 * * MON for 81h"}, {}, {"2026-12-24T00:00:00Z/2026-12-27T00:00:00Z"}});
  const Schedule none;
  try {
    auto schedule = schedule_for(object, with_flags ? flags : none);
    if (schedule) {
      FUZZ_CHECK(!schedule->allow.empty());
      FUZZ_CHECK(schedule->freeze.size() == (with_flags ? 1u : 0u));
      WindowState st = window_state(*schedule, now);
      FUZZ_CHECK(st.open == is_open(*schedule, now));
      FUZZ_CHECK(st.open == st.current.has_value(), "window_state: open without its interval, or the reverse");
      if (st.current) FUZZ_CHECK(st.current->start <= now && now < st.current->end);
      if (st.next) FUZZ_CHECK(st.next->start > now);
      FUZZ_CHECK(st.zone != nullptr);
    } else {
      FUZZ_CHECK(!with_flags, "the flags' window was lost");
    }
  } catch (const ConfigError& e) {
    FUZZ_CHECK(std::string(e.what()).starts_with("annotation windowctl.io/"), e.what());
  }

  ObjectState state = read_state(object);
  for (bool window_open : {false, true}) {
    SyncVerdict v = sync_verdict(state, window_open, now);
    auto until = parse_rfc3339_saturated(state.override_until);
    bool active = (state.override_state == "open" || state.override_state == "closed") && until && now < *until;
    FUZZ_CHECK(v.override_active == active, state.override_state + " until " + state.override_until);
    if (active) {
      FUZZ_CHECK(v.action == (state.override_state == "open" ? Action::kOpen : Action::kClose));
    } else {
      FUZZ_CHECK(v.action == (window_open ? Action::kOpen : Action::kClose));
    }
  }
  return 0;
}
