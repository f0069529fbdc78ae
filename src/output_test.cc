#include "output.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

using namespace windowctl;
using nlohmann::json;

namespace {

TargetResult result(Outcome o, bool patch = true) {
  TargetResult r{"flux-system", "apps-rw", "Kustomization"};
  Decision d;
  d.outcome = o;
  if (patch) d.patch = json{{"spec", {{"suspend", true}}}};
  r.decision = d;
  return r;
}

}  // namespace

TEST_CASE("one line per target") {
  CHECK(result_line(result(Outcome::kClosed)) == "flux-system/apps-rw closed");
  CHECK(result_line(result(Outcome::kAlreadyClosed, false)) == "flux-system/apps-rw already closed");
  CHECK(result_line(result(Outcome::kHeld, false)) == "flux-system/apps-rw held: suspended by someone else");
  TargetResult failed{"flux-system", "gone", "Kustomization"};
  failed.error = "not found: kustomizations.kustomize.toolkit.fluxcd.io \"gone\" not found";
  CHECK(result_line(failed) ==
        "flux-system/gone failed: not found: kustomizations.kustomize.toolkit.fluxcd.io \"gone\" not found");
  auto dry = result(Outcome::kClosed);
  dry.dry_run = true;
  dry.current = "running";
  CHECK(result_line(dry) == "flux-system/apps-rw would close (running) patch {\"spec\":{\"suspend\":true}}");
  auto waited = result(Outcome::kOpened);
  waited.wait = "ready";
  CHECK(result_line(waited) == "flux-system/apps-rw opened, ready");
}

TEST_CASE("JSON results carry the same facts") {
  auto j = json::parse(
      render_results({result(Outcome::kClosed), result(Outcome::kHeld, false)}, OutputFormat::kJson, "close"));
  CHECK(j["command"] == "close");
  REQUIRE(j["results"].size() == 2);
  CHECK(j["results"][0]["result"] == "closed");
  CHECK(j["results"][0]["changed"] == true);
  CHECK(j["results"][1]["result"] == "held");
  CHECK(j["results"][1]["changed"] == false);
  CHECK(j["results"][1]["message"] == "held: suspended by someone else");
  CHECK(j["results"][1]["error"].is_null());
  CHECK(j["results"][1]["suspended"].is_null());  // a write does not report the state: status does
  TargetResult failed{"flux-system", "gone", "Kustomization"};
  failed.error = "not found";
  auto f = result_json(failed);
  CHECK(f["result"] == "failed");
  CHECK(f["error"] == "not found");
  CHECK(f["changed"].is_null());
  auto dry = result(Outcome::kClosed);
  dry.dry_run = true;
  dry.current = "running";
  auto d = result_json(dry);
  CHECK(d["dryRun"] == true);
  CHECK(d["changed"] == false);
  CHECK(d["current"] == "running");
  CHECK(d["patch"] == json{{"spec", {{"suspend", true}}}});
}

TEST_CASE("status and the writes print one element shape, failed targets included") {
  const auto& ks = *find_kind("ks");
  auto keys = [](const json& j) {
    std::vector<std::string> k;
    for (const auto& [key, value] : j.items()) k.push_back(key);
    return k;
  };
  StatusRow gone;
  gone.kind = "Kustomization";
  gone.ns = "flux-system";
  gone.name = "gone";
  gone.error = "not found";
  auto obj = json::parse(R"({"metadata":{"name":"x","annotations":{"windowctl.io/override":"open",
      "windowctl.io/override-until":"2026-11-22T11:00:00+01:00"}},"spec":{"suspend":true},
      "status":{"conditions":[{"type":"Ready","status":"False","message":"m"}]}})");
  StatusRow row = status_row(ks, obj);
  row.window = "closed";
  row.next_open = "2026-11-20T18:00:00+01:00";
  auto j = json::parse(render_status({row, gone}, OutputFormat::kJson));
  CHECK(j["command"] == "status");
  REQUIRE(j["results"].size() == 2);
  const json& seen = j["results"][0];
  const json& failed = j["results"][1];
  CHECK(keys(seen) == keys(result_json(result(Outcome::kClosed))));
  CHECK(keys(failed) == keys(seen));
  CHECK(seen["result"] == "observed");
  CHECK(seen["ready"] == false);
  CHECK(seen["suspendedBy"] == "someone else");
  CHECK(seen["since"].is_null());
  CHECK(seen["nextOpen"] == "2026-11-20T17:00:00Z");  // the window's zone, in UTC
  CHECK(seen["nextClose"].is_null());
  CHECK(seen["override"]["until"] == "2026-11-22T10:00:00Z");
  CHECK(failed["result"] == "failed");
  CHECK(failed["error"] == "not found");
  CHECK(failed["suspended"].is_null());
  // Ready: True, False, anything else (Unknown, none, a server's invention) is null.
  for (auto [status, want] :
       {std::pair{"True", json(true)}, {"False", json(false)}, {"Unknown", json(nullptr)}, {"Maybe", json(nullptr)}}) {
    StatusRow r;
    r.ready = status;
    r.by = "-";
    CHECK(json::parse(render_status({r}, OutputFormat::kJson))["results"][0]["ready"] == want);
  }
  // An annotation that is no time is no time in JSON.
  StatusRow odd = row;
  odd.since = "last Friday";
  CHECK(json::parse(render_status({odd}, OutputFormat::kJson))["results"][0]["since"].is_null());
  // The text table has no row for it: stderr says why.
  CHECK(render_status({gone}, OutputFormat::kText) == render_status({}, OutputFormat::kText));
}

TEST_CASE("status rows say who suspended what") {
  const auto& ks = *find_kind("ks");
  auto mine = json::parse(R"({"metadata":{"namespace":"flux-system","name":"apps-rw","annotations":{
      "windowctl.io/suspended-by":"windowctl","windowctl.io/suspended-at":"2026-11-19T17:00:00Z","windowctl.io/reason":"weekly"}},
      "spec":{"suspend":true},
      "status":{"lastAppliedRevision":"main@sha1:abc","conditions":[{"type":"Ready","status":"True","message":"Applied revision: main@sha1:abc"}]}})");
  const SysTime now = *parse_rfc3339("2026-11-19T20:05:00Z");
  auto row = status_row(ks, mine, now);
  CHECK(row.by == "windowctl");
  CHECK(row.since == "2026-11-19T17:00:00Z");
  CHECK(row.reason == "weekly");
  CHECK(row.ready == "True");
  CHECK(row.revision == "main@sha1:abc");
  CHECK(describe_state(mine) == "suspended by windowctl since 2026-11-19T17:00:00Z (weekly)");
  auto theirs = json::parse(R"({"metadata":{"namespace":"flux-system","name":"infra"},"spec":{"suspend":true}})");
  CHECK(status_row(ks, theirs).by == "someone else");
  CHECK(status_row(ks, theirs).ready == "Unknown");
  auto running = json::parse(R"({"metadata":{"namespace":"flux-system","name":"apps-rt"},"spec":{}})");
  CHECK(status_row(ks, running).by == "-");
  std::string table = render_status({row, status_row(ks, running, now)}, OutputFormat::kText);
  CHECK(table ==
        "NAMESPACE     NAME      SUSPENDED   BY          SINCE                              REASON     READY     "
        "REVISION        MESSAGE\n"
        "flux-system   apps-rw   True        windowctl   2026-11-19T17:00:00Z (3h 5m ago)   \"weekly\"   True      "
        "main@sha1:abc   Applied revision: main@sha1:abc\n"
        "flux-system   apps-rt   False       -           -                                  -          Unknown   -\n");
}

TEST_CASE("an override shows in its own column, only when there is one") {
  const auto& ks = *find_kind("ks");
  auto obj = json::parse(R"({"metadata":{"namespace":"flux-system","name":"apps-rw","annotations":{
      "windowctl.io/override":"open","windowctl.io/override-until":"2026-11-22T10:00:00Z","windowctl.io/override-by":"alice",
      "windowctl.io/override-reason":"INC-123"}},"spec":{}})");
  auto row = status_row(ks, obj, *parse_rfc3339("2026-11-22T08:30:00Z"));
  std::string table = render_status({row}, OutputFormat::kText);
  CHECK(table.find("OVERRIDE") != std::string::npos);
  CHECK(table.find("open until 2026-11-22T10:00:00Z (in 1h 30m) by alice") != std::string::npos);
  auto j = json::parse(render_status({row}, OutputFormat::kJson));
  CHECK(j["results"][0]["override"]["reason"] == "INC-123");
  auto plain = json::parse(
      render_status({status_row(ks, json::parse(R"({"metadata":{"name":"x"},"spec":{}})"))}, OutputFormat::kJson));
  CHECK(plain["results"][0]["override"].is_null());
}

TEST_CASE("streamed JSON results are the document render_results makes") {
  std::vector<TargetResult> results = {result(Outcome::kClosed), result(Outcome::kHeld, false)};
  for (std::size_t n : {0u, 1u, 2u}) {
    std::ostringstream out;
    ResultWriter writer(out, OutputFormat::kJson, "open");
    std::vector<TargetResult> some(results.begin(), results.begin() + n);
    for (const auto& r : some) writer.add(r);
    writer.finish();
    CHECK(out.str() == render_results(some, OutputFormat::kJson, "open"));
  }
  std::ostringstream text;
  ResultWriter writer(text, OutputFormat::kText, "open");
  for (const auto& r : results) writer.add(r);
  writer.finish();
  CHECK(text.str() == render_results(results, OutputFormat::kText, "open"));
}

TEST_CASE("status in chunks: one header, again only when a column appears") {
  StatusRow plain;
  plain.ns = "flux-system";
  plain.name = "apps-rt";
  plain.by = "-";
  plain.ready = "True";
  StatusRow windowed = plain;
  windowed.name = "apps-rw";
  windowed.window = "open";
  std::ostringstream out;
  StatusWriter writer(out, OutputFormat::kText);
  writer.add({plain});
  writer.add({plain});
  writer.add({windowed});
  writer.add({windowed});
  writer.add({});
  writer.finish();
  std::string s = out.str();
  std::size_t headers = 0;
  for (std::size_t at = s.find("NAMESPACE"); at != std::string::npos; at = s.find("NAMESPACE", at + 1)) ++headers;
  CHECK(headers == 2);
  CHECK(s.find("WINDOW") > s.rfind("apps-rt"));
  std::ostringstream none;
  StatusWriter empty(none, OutputFormat::kText);
  empty.finish();
  CHECK(none.str() == render_status({}, OutputFormat::kText));
  std::ostringstream js;
  StatusWriter json_writer(js, OutputFormat::kJson);
  json_writer.add({plain, windowed});
  json_writer.add({plain});
  json_writer.finish();
  CHECK(json::parse(js.str())["results"].size() == 3);
  CHECK(js.str() == render_status({plain, windowed, plain}, OutputFormat::kJson));
  std::ostringstream no_rows;
  StatusWriter empty_json(no_rows, OutputFormat::kJson);
  empty_json.finish();
  CHECK(no_rows.str() == render_status({}, OutputFormat::kJson));
}

TEST_CASE("a failed target's line cannot be split or coloured by the server") {
  TargetResult failed{"flux-system", "apps-rw", "Kustomization"};
  failed.error = "forbidden: no\nflux-system/infra closed\x1b[8m";
  CHECK(result_line(failed) == "flux-system/apps-rw failed: forbidden: no flux-system/infra closed\\x1b[8m");
}

TEST_CASE("status cells are terminal-safe") {
  StatusRow row;
  row.ns = "flux-system";
  row.name = "apps-rw";
  row.by = "-";
  row.ready = "False";
  row.message = "kustomize build failed:\n\x1b]0;owned\x07 line 2";
  row.revision = "main@sha1:\x1b[2J";
  std::string out = render_status({row}, OutputFormat::kText);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 2);  // the header and one row
  CHECK(out.find("kustomize build failed: \\x1b]0;owned\\x07 line 2") != std::string::npos);
}

TEST_CASE("schedule text names the zone of its local columns") {
  auto at = [](const char* text) { return *parse_rfc3339(text); };
  Schedule zurich;
  zurich.allow.push_back(parse_window("0 17 * * FRI to 0 8 * * MON in Europe/Zurich"));
  std::string text = render_schedule(zurich, at("2026-03-26T00:00:00Z"), 1, OutputFormat::kText);
  CHECK(
      text ==
      "closed: opens in 1d 16h (2026-03-27T17:00:00+01:00)\n"
      "\n"
      "START (Europe/Zurich)       END (Europe/Zurich)         START (UTC)            END (UTC)              LENGTH\n"
      "2026-03-27T17:00:00+01:00   2026-03-30T08:00:00+02:00   2026-03-27T16:00:00Z   2026-03-30T06:00:00Z   2d 14h\n");
  Schedule plain;
  plain.allow.push_back(parse_window("0 8 * * MON to 0 8 * * *"));
  text = render_schedule(plain, at("2026-03-20T00:00:00Z"), 1, OutputFormat::kText);
  // UTC only: its columns once.
  CHECK(text.find("\nSTART (UTC)            END (UTC)              LENGTH\n2026-03-23T08:00:00Z   2026-03-24T08:00:00Z "
                  "  1d\n") != std::string::npos);
  Schedule etc_utc;
  etc_utc.allow.push_back(parse_window("0 8 * * MON to 0 8 * * * in Etc/UTC"));
  CHECK(render_schedule(etc_utc, at("2026-03-20T00:00:00Z"), 1, OutputFormat::kText) ==
        render_schedule(plain, at("2026-03-20T00:00:00Z"), 1, OutputFormat::kText));
  Schedule rare;
  rare.allow.push_back(parse_window("0 0 29 2 * for 24h"));
  CHECK(render_schedule(rare, at("2096-03-01T00:00:00Z"), 3, OutputFormat::kText) ==
        "closed: no window opens within the next 5 years\n");
  CHECK(render_schedule(rare, at("2026-11-24T00:00:00Z"), 3, OutputFormat::kJson) ==
        "{\n  \"command\": \"schedule\",\n  \"open\": false,\n  \"windows\": [\n    {\n"
        "      \"end\": \"2028-03-01T00:00:00Z\",\n      \"start\": \"2028-02-29T00:00:00Z\"\n    }\n  ],\n  \"zone\": "
        "\"UTC\"\n}\n");
  // JSON times are UTC whatever the window's zone; the zone is named once.
  auto j = json::parse(render_schedule(zurich, at("2026-03-26T00:00:00Z"), 1, OutputFormat::kJson));
  CHECK(j == json{{"command", "schedule"},
                  {"open", false},
                  {"zone", "Europe/Zurich"},
                  {"windows", {{{"start", "2026-03-27T16:00:00Z"}, {"end", "2026-03-30T06:00:00Z"}}}}});
}

namespace {

const SysTime kNow = *parse_rfc3339("2026-11-22T08:00:00Z");

json suspended_object(json annotations, std::vector<json> managed = {}) {  // a vector: see plan_test.cc
  json o = {{"metadata", {{"namespace", "flux-system"}, {"name", "apps-rw"}, {"annotations", annotations}}},
            {"spec", {{"suspend", true}}}};
  if (!managed.empty()) o["metadata"]["managedFields"] = managed;
  return o;
}

json flux_entry(const char* time, bool suspend) {
  json fields =
      suspend ? json{{"f:spec", {{"f:suspend", json::object()}}}}
              : json{{"f:metadata", {{"f:annotations", {{"f:suspend.toolkit.fluxcd.io/reason", json::object()}}}}}};
  return {{"manager", "flux"}, {"operation", "Update"}, {"time", time}, {"fieldsV1", fields}};
}

// The cell under `column` in the table's first row (columns are separated by 3+ spaces).
std::string cell(const std::string& table, const std::string& column) {
  std::string head = table.substr(0, table.find('\n'));
  std::string row = table.substr(head.size() + 1, table.find('\n', head.size() + 1) - head.size() - 1);
  std::size_t at = head.find(column);
  REQUIRE(at != std::string::npos);
  std::size_t next = head.find_first_not_of(' ', head.find("   ", at));
  std::string text = row.substr(at, next == std::string::npos ? std::string::npos : next - at);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

TEST_CASE("status: who and since when, for windowctl's, someone else's and an incident's suspension") {
  const auto& ks = *find_kind("ks");
  // Someone else's, named by managedFields: who, since their write, their reason.
  auto theirs = status_row(ks,
                           suspended_object({{"suspend.toolkit.fluxcd.io/reason", "DB migration"}},
                                            {flux_entry("2026-11-22T05:00:00Z", true)}),
                           kNow);
  CHECK(theirs.held);
  CHECK(theirs.by == "someone else");
  CHECK(theirs.since == "2026-11-22T05:00:00Z");
  std::string table = render_status({theirs}, OutputFormat::kText);
  CHECK(cell(table, "BY") == "someone else (flux)");
  CHECK(cell(table, "SINCE") == "2026-11-22T05:00:00Z (3h ago)");
  CHECK(cell(table, "REASON") == "\"DB migration\"");
  json j = json::parse(render_status({theirs}, OutputFormat::kJson))["results"][0];
  CHECK(j["suspendedBy"] == "someone else");
  CHECK(j["since"] == "2026-11-22T05:00:00Z");
  CHECK(j["held"] == json{{"by", "flux"}, {"afterWindowctl", false}, {"message", "suspended by someone else (flux)"}});

  // The incident: windowctl closed it, flux suspended it again with a reason.
  auto incident = status_row(ks,
                             suspended_object({{"windowctl.io/suspended-by", "windowctl"},
                                               {"windowctl.io/suspended-at", "2026-11-21T17:00:00Z"},
                                               {"windowctl.io/flux-reason", "weekly"},
                                               {"suspend.toolkit.fluxcd.io/reason", "INC-999 do not resume"}},
                                              {flux_entry("2026-11-22T03:12:00Z", false)}),
                             kNow);
  table = render_status({incident}, OutputFormat::kText);
  CHECK(cell(table, "BY") == "someone else (flux, after windowctl)");
  CHECK(cell(table, "SINCE") == "2026-11-22T03:12:00Z (4h 48m ago)");
  CHECK(cell(table, "REASON") == "\"INC-999 do not resume\"");
  j = json::parse(render_status({incident}, OutputFormat::kJson))["results"][0];
  CHECK(j["held"] ==
        json{{"by", "flux"},
             {"afterWindowctl", true},
             {"message", "suspended by someone else (flux changed the suspend reason after windowctl suspended it)"}});
  CHECK(j["reason"] == "INC-999 do not resume");
  // Without managedFields: after windowctl, nobody named, since unknown.
  auto unnamed = status_row(ks,
                            suspended_object({{"windowctl.io/suspended-by", "windowctl"},
                                              {"windowctl.io/flux-reason", "weekly"},
                                              {"suspend.toolkit.fluxcd.io/reason", "INC-999"}}),
                            kNow);
  table = render_status({unnamed}, OutputFormat::kText);
  CHECK(cell(table, "BY") == "someone else (after windowctl)");
  CHECK(cell(table, "SINCE") == "-");
  CHECK(json::parse(render_status({unnamed}, OutputFormat::kJson))["results"][0]["held"]["by"].is_null());
  // The Flux Operator's user.
  auto ui = status_row(ks, suspended_object({{"fluxcd.controlplane.io/suspendedBy", "alice"}}), kNow);
  CHECK(cell(render_status({ui}, OutputFormat::kText), "BY") == "someone else (alice via Flux Operator)");
  // windowctl's own: not held, its --reason; a time with an offset is shown in UTC.
  auto mine = status_row(ks,
                         suspended_object({{"windowctl.io/suspended-by", "windowctl"},
                                           {"windowctl.io/suspended-at", "2026-11-22T09:00:00+02:00"},
                                           {"windowctl.io/reason", std::string(80, 'r')}}),
                         kNow);
  CHECK_FALSE(mine.held);
  table = render_status({mine}, OutputFormat::kText);
  CHECK(cell(table, "SINCE") == "2026-11-22T07:00:00Z (1h ago)");
  CHECK(cell(table, "REASON") == "\"" + std::string(37, 'r') + "...\"");  // cut for the table
  CHECK(json::parse(render_status({mine}, OutputFormat::kJson))["results"][0]["reason"] == std::string(80, 'r'));
  CHECK(json::parse(render_status({mine}, OutputFormat::kJson))["results"][0]["held"].is_null());
  // A suspended-at that is no time is shown as written.
  auto odd = status_row(
      ks, suspended_object({{"windowctl.io/suspended-by", "windowctl"}, {"windowctl.io/suspended-at", "last Friday"}}),
      kNow);
  CHECK(cell(render_status({odd}, OutputFormat::kText), "SINCE") == "last Friday");
}

TEST_CASE("status: an override says until when, and expired once it ran out") {
  const auto& ks = *find_kind("ks");
  auto with = [&](const char* until, SysTime now) {
    json o = suspended_object({{"windowctl.io/suspended-by", "windowctl"},
                               {"windowctl.io/override", "closed"},
                               {"windowctl.io/override-until", until},
                               {"windowctl.io/override-by", "alice"}});
    return status_row(ks, o, now);
  };
  auto active = with("2026-11-22T10:00:00Z", kNow);
  CHECK(cell(render_status({active}, OutputFormat::kText), "OVERRIDE") ==
        "closed until 2026-11-22T10:00:00Z (in 2h) by alice");
  CHECK(json::parse(render_status({active}, OutputFormat::kJson))["results"][0]["override"]["expired"] == false);
  auto expired = with("2026-11-22T06:00:00Z", kNow);
  CHECK(cell(render_status({expired}, OutputFormat::kText), "OVERRIDE") ==
        "closed until 2026-11-22T06:00:00Z (expired 2h ago) by alice");
  CHECK(json::parse(render_status({expired}, OutputFormat::kJson))["results"][0]["override"]["expired"] == true);
  // Ends exactly now: expired, as sync reads it.
  CHECK(with("2026-11-22T08:00:00Z", kNow).override_expired == true);
  auto unreadable = with("soon", kNow);
  CHECK(cell(render_status({unreadable}, OutputFormat::kText), "OVERRIDE") ==
        "closed until soon (unreadable) by alice");
  CHECK(json::parse(render_status({unreadable}, OutputFormat::kJson))["results"][0]["override"]["expired"].is_null());
}

TEST_CASE("status: the window's next edges in UTC, and a marker when the target is not what it says") {
  const auto& ks = *find_kind("ks");
  WindowFacts open{"open", std::nullopt, *parse_rfc3339("2026-11-22T10:00:00Z")};
  open.next_open = *parse_rfc3339("2026-11-23T07:00:00Z");
  auto row = status_row(ks, suspended_object({{"windowctl.io/suspended-by", "windowctl"}}), kNow, open);
  std::string table = render_status({row}, OutputFormat::kText);
  CHECK(cell(table, "WINDOW") == "open, but suspended");
  CHECK(cell(table, "NEXT OPEN") == "2026-11-23T07:00:00Z (in 23h)");
  CHECK(cell(table, "NEXT CLOSE") == "2026-11-22T10:00:00Z (in 2h)");
  json j = json::parse(render_status({row}, OutputFormat::kJson))["results"][0];
  CHECK(j["desired"] == "open");
  CHECK(j["drift"] == true);
  CHECK(j["nextClose"] == "2026-11-22T10:00:00Z");
  // Running in a closed window: the reverse.
  json running = {{"metadata", {{"namespace", "flux-system"}, {"name", "apps-rt"}}}, {"spec", json::object()}};
  auto late = status_row(ks, running, kNow, WindowFacts{"closed", std::nullopt, std::nullopt});
  CHECK(cell(render_status({late}, OutputFormat::kText), "WINDOW") == "closed, but running");
  // No schedule and no override: nothing to compare with.
  auto plain = status_row(ks, running, kNow);
  j = json::parse(render_status({plain}, OutputFormat::kJson))["results"][0];
  CHECK(j["desired"].is_null());
  CHECK(j["drift"].is_null());
  CHECK(render_status({plain}, OutputFormat::kText).find("WINDOW") == std::string::npos);
}

TEST_CASE("status drift, every combination: the window or an unexpired override decides, as sync would") {
  const auto& ks = *find_kind("ks");
  struct Override {
    const char* state;
    const char* until;
  };
  const std::vector<std::optional<Override>> overrides = {
      std::nullopt, Override{"open", "2026-11-22T09:00:00Z"}, Override{"closed", "2026-11-22T09:00:00Z"},
      Override{"open", "2026-11-22T07:00:00Z"}, Override{"closed", "soon"}};
  int cases = 0;
  for (bool suspended : {false, true})
    for (const char* window : {"", "open", "closed", "invalid"})
      for (const auto& ov : overrides) {
        ++cases;
        json o = {{"metadata", {{"namespace", "ns"}, {"name", "x"}, {"annotations", json::object()}}},
                  {"spec", json::object()}};
        if (suspended) o["spec"]["suspend"] = true;
        if (ov) {
          o["metadata"]["annotations"]["windowctl.io/override"] = ov->state;
          o["metadata"]["annotations"]["windowctl.io/override-until"] = ov->until;
        }
        CAPTURE(o.dump());
        CAPTURE(window);
        auto row = status_row(ks, o, kNow, WindowFacts{window, std::nullopt, std::nullopt});
        const bool active = ov && std::string(ov->until) == "2026-11-22T09:00:00Z";
        std::optional<bool> want_open;
        if (active) {
          want_open = std::string(ov->state) == "open";
        } else if (std::string(window) == "open" || std::string(window) == "closed") {
          want_open = std::string(window) == "open";
        }
        json j = json::parse(render_status({row}, OutputFormat::kJson))["results"][0];
        if (!want_open) {
          CHECK(j["desired"].is_null());
          CHECK(j["drift"].is_null());
          CHECK(status_drift(row).empty());
          continue;
        }
        CHECK(j["desired"] == (*want_open ? "open" : "closed"));
        const bool drift = suspended == *want_open;
        CHECK(j["drift"] == drift);
        std::string table = render_status({row}, OutputFormat::kText);
        const std::string marker = drift ? (suspended ? ", but suspended" : ", but running") : "";
        // The marker sits in the column that decided.
        if (active) CHECK(table.find(std::string(ov->until) + " (in 1h)" + marker) != std::string::npos);
        if (!active) CHECK(cell(table, "WINDOW") == std::string(window) + marker);
        if (!drift) CHECK(table.find(", but ") == std::string::npos);
      }
  CHECK(cases == 2 * 4 * 5);
}

TEST_CASE("status: an empty run prints no table; a chunk of failed targets none either") {
  CHECK(render_status({}, OutputFormat::kText).empty());
  StatusRow gone;
  gone.error = "not found";
  std::ostringstream out;
  StatusWriter writer(out, OutputFormat::kText);
  writer.add({gone});
  writer.finish();
  CHECK(out.str().empty());
}

TEST_CASE("status rows of a kind paused by an annotation: SUSPENDED from the annotation, an unreadable one named") {
  const auto& rset = *find_kind("rset");
  auto paused = json::parse(R"({"metadata":{"namespace":"flux-system","name":"apps","annotations":{
      "fluxcd.controlplane.io/reconcile":"Disabled","fluxcd.controlplane.io/suspendedBy":"alice"}},
      "status":{"lastAppliedRevision":"sha256:rs","conditions":[{"type":"Ready","status":"True","message":"done"}]}})");
  auto row = status_row(rset, paused);
  CHECK(row.suspended);
  CHECK(row.held);
  CHECK(row.holder.who() == "alice via Flux Operator");
  CHECK(row.revision == "sha256:rs");
  CHECK(describe_state(paused, rset.pause) == "suspended by someone else (alice via Flux Operator)");
  CHECK_FALSE(status_row(*find_kind("ks"), paused).suspended);  // spec.suspend says running
  paused["metadata"]["annotations"]["fluxcd.controlplane.io/reconcile"] = "enabled";
  CHECK_FALSE(status_row(rset, paused).suspended);
  paused["metadata"]["annotations"]["fluxcd.controlplane.io/reconcile"] = false;
  CHECK_THROWS_WITH_AS(status_row(rset, paused),
                       doctest::Contains("fluxcd.controlplane.io/reconcile is a JSON boolean"), std::runtime_error);
}

TEST_CASE("a close that waited for Flux to settle says how long, in the line and in JSON") {
  TargetResult r = result(Outcome::kClosed);
  CHECK(result_json(r)["overrun"].is_null());
  r.in_progress = "Reconciling: Running 'rollback' action with timeout of 5m0s";
  r.overrun_waited = std::chrono::milliseconds(372250);
  CHECK(result_line(r) ==
        "flux-system/apps-rw closed, after waiting 6m12s for Flux to settle (Reconciling: Running "
        "'rollback' action with timeout of 5m0s)");
  json j = result_json(r);
  CHECK(j["overrun"]["waitedSeconds"] == 372.25);
  CHECK(j["overrun"]["settled"] == true);
  CHECK(j["overrun"]["inProgress"] == r.in_progress);
  r.overrun_expired = true;
  r.overrun_waited = std::chrono::minutes(10);
  CHECK(result_line(r) ==
        "flux-system/apps-rw closed, still in progress after waiting 10m (--overrun) (Reconciling: "
        "Running 'rollback' action with timeout of 5m0s)");
  CHECK(result_json(r)["overrun"]["settled"] == false);
  // A failure after the wait is the failure.
  r.decision.reset();
  r.error = "forbidden";
  CHECK(result_line(r) == "flux-system/apps-rw failed: forbidden");
}
