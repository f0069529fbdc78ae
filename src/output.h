// What goes to stdout: one line (or JSON entry) per target, and the status table.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kinds.h"
#include "plan.h"
#include "text.h"
#include "window.h"

namespace windowctl {

enum class OutputFormat { kText, kJson };

struct TargetResult {
  std::string ns;
  std::string name;
  std::string kind;
  bool show_kind = false;            // a --targets target: the line names its kind, as --targets does
  std::optional<Decision> decision;  // absent when the target failed before a decision
  std::string error;                 // non-empty: the target failed
  std::string current;               // dry-run: the state the plan started from
  std::string wait;                  // --wait: "ready" or empty
  // close --overrun: the target was in progress (InProgress::reason) when the close came; it was
  // closed once it settled, or when the overrun ran out with it still in progress (expired).
  std::string in_progress;
  std::optional<std::chrono::milliseconds> overrun_waited;
  bool overrun_expired = false;
  bool deferred = false;  // put aside by Applier::apply until it settles: reported later
  bool dry_run = false;
  std::string context;  // a fleet run's kubeconfig context; "" in a run over one

  bool failed() const { return !error.empty(); }
};

std::string result_line(const TargetResult& r);
// -o json follows schema/result.schema.json: `{"command": C, "results": [TARGET...]}` for the
// target commands, each TARGET with every key of $defs/target (null where it has no value).
nlohmann::json result_json(const TargetResult& r);
std::string render_results(const std::vector<TargetResult>& results, OutputFormat format, const std::string& command);

// `{"command": C, "KEY": [ ... ]}` written one element at a time, formatted as nlohmann's dump(2)
// of the whole document would be ("command" sorts before KEY): a run over 100,000 objects never
// holds its whole output.
class JsonListWriter {
 public:
  JsonListWriter(std::ostream& out, std::string command, std::string key)
      : out_(out), head_("{\n  \"command\": " + nlohmann::json(command).dump() + ",\n  \"" + key + "\": [") {}
  void add(const nlohmann::json& element);
  void finish();

 private:
  std::ostream& out_;
  std::string head_;
  bool any_ = false;
};

// Results as they are decided: a line per target, or -o json's "results" list.
class ResultWriter {
 public:
  ResultWriter(std::ostream& out, OutputFormat format, const std::string& command)
      : out_(out), format_(format), json_(out, command, "results") {}
  void add(const TargetResult& result);
  void finish();

 private:
  std::ostream& out_;
  OutputFormat format_;
  JsonListWriter json_;
};

struct StatusRow {
  std::string kind;
  bool show_kind = false;  // a --targets target: NAME reads kind/name, as kubectl's mixed lists do
  std::string ns;
  std::string name;
  bool suspended = false;
  std::string by;  // windowctl, someone else, -
  // RFC 3339 as the object has it: when windowctl suspended it, or for a held target when its
  // holder wrote it (managedFields); "" unknown.
  std::string since;
  std::string reason;  // windowctl's --reason, or for someone else's suspension Flux's reason annotation
  std::string ready;   // True, False, Unknown (JSON: true, false, null)
  std::string revision;
  std::string message;
  std::string error;  // non-empty: the target could not be read (only -o json lists it; the text is on stderr)
  bool held = false;  // suspended and not windowctl's: open leaves it suspended (Holder)
  Holder holder;
  std::string override_state;  // open, closed or empty
  std::string override_until;
  std::string override_by;
  std::string override_reason;
  std::optional<bool> override_expired;  // nullopt: no override sync would honour
  std::string window;                    // open, closed, invalid; empty when no schedule applies
  std::string next_open;                 // RFC 3339 in UTC
  std::string next_close;
  std::optional<Action> desired;  // what the window, or an unexpired override, wants now
  bool desired_by_override = false;
  SysTime now;          // when it was read: the table's relative times ("3h ago") count from here
  std::string context;  // a fleet run's kubeconfig context: the CONTEXT column; "" in a run over one
};

// What the schedule says of an object at `now` (commands.cc asks sync.h which one applies).
struct WindowFacts {
  std::string state;  // open, closed, invalid; "" when no schedule applies
  std::optional<SysTime> next_open, next_close;
};

// The row of an object as read at `now`: pure, so every state is tested in output_test.cc.
// Throws std::runtime_error when the object's pause field cannot be read (ObjectState::problem).
StatusRow status_row(const KindAdapter& kind, const nlohmann::json& object, SysTime now = {},
                     const WindowFacts& window = {});
// A drift for people: "suspended" or "running" when the object is not what `desired` says, else "".
std::string status_drift(const StatusRow& row);
// "suspended by someone else", with Holder::detail in parentheses when there is one.
std::string held_text(const std::string& detail);
// "running", "suspended by windowctl since T (reason)", "suspended by someone else (flux)"
std::string describe_state(const nlohmann::json& object, const Pause& pause = kSpecSuspend);
// `windowctl schedule`: open now or not, and the next windows (those starting before `until`).
// JSON: {"command": "schedule", "open": bool, "zone": the first window's, "windows": [{"start",
// "end"}]} in UTC.
std::string render_schedule(const Schedule& schedule, SysTime at, int count, OutputFormat format,
                            SysTime until = SysTime::max());
// What schedule lists: next_windows(schedule, at, count) that start before `until`.
std::vector<Interval> listed_windows(const std::vector<Interval>& next, SysTime until);

std::string render_status(const std::vector<StatusRow>& rows, OutputFormat format);
// A row as -o json lists it: $defs/target with the state keys filled.
nlohmann::json status_json(const StatusRow& row);

// The status table in chunks (a LIST page each): the header once, and again only when a chunk
// brings a column the previous ones lacked (WINDOW..., OVERRIDE); columns are aligned within a
// chunk, as kubectl's chunked output is. -o json: one "results" list, failed targets included.
class StatusWriter {
 public:
  StatusWriter(std::ostream& out, OutputFormat format) : out_(out), format_(format), json_(out, "status", "results") {}
  void add(const std::vector<StatusRow>& rows);
  void finish();

 private:
  std::ostream& out_;
  OutputFormat format_;
  JsonListWriter json_;
  bool header_ = false, windows_ = false, overrides_ = false;
};

}  // namespace windowctl
