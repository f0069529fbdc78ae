#include "fleet.h"

#include <doctest/doctest.h>

#include "errors.h"

using namespace windowctl;
using nlohmann::json;
using Names = std::vector<std::string>;

TEST_CASE("glob_match: fnmatch's rules without flags") {
  CHECK(glob_match("prod-*", "prod-eu"));
  CHECK(glob_match("prod-*", "prod-"));
  CHECK_FALSE(glob_match("prod-*", "staging-prod-eu"));
  CHECK_FALSE(glob_match("prod-*", "prod"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("*-eu-*", "prod-eu-1"));
  CHECK_FALSE(glob_match("*-eu-*", "prod-us-1"));
  CHECK(glob_match("prod-?", "prod-a"));
  CHECK_FALSE(glob_match("prod-?", "prod-ab"));
  CHECK(glob_match("prod-[ab]", "prod-b"));
  CHECK_FALSE(glob_match("prod-[ab]", "prod-c"));
  CHECK(glob_match("edge-[0-9][0-9]", "edge-07"));
  CHECK_FALSE(glob_match("edge-[0-9][0-9]", "edge-7x"));
  CHECK(glob_match("edge-[!0-9]", "edge-x"));
  CHECK(glob_match("edge-[^0-9]", "edge-x"));
  CHECK_FALSE(glob_match("edge-[!0-9]", "edge-5"));
  CHECK(glob_match("a[]]b", "a]b"));  // ']' first is a member
  CHECK(glob_match("a[", "a["));      // unterminated: an ordinary '['
  CHECK(glob_match("a\\*", "a*"));    // escaped
  CHECK_FALSE(glob_match("a\\*", "ab"));
  // EKS names its contexts by ARN: '*' crosses '/', a name is no path.
  CHECK(glob_match("arn:aws:eks:*:cluster/prod-*", "arn:aws:eks:eu-west-1:1234:cluster/prod-a"));
  // Backtracking over many stars stays linear enough for any name.
  CHECK_FALSE(glob_match("*a*a*a*a*a*a*a*b", std::string(200, 'a')));
}

TEST_CASE("select_contexts: names and globs, sorted and each once; every mistake before any request") {
  const Names known = {"staging", "prod-b", "prod-a", "dev"};
  CHECK(select_contexts(known, {"prod-*"}, false) == Names{"prod-a", "prod-b"});
  CHECK(select_contexts(known, {"dev,prod-a", "prod-*"}, false) == Names{"dev", "prod-a", "prod-b"});
  CHECK(select_contexts(known, {}, true) == Names{"dev", "prod-a", "prod-b", "staging"});
  CHECK_THROWS_WITH_AS(select_contexts(known, {"qa-*"}, false),
                       "--contexts \"qa-*\" matches no context in the kubeconfig", ConfigError);
  CHECK_THROWS_WITH_AS(select_contexts(known, {"prod-*,prod-c"}, false), "the kubeconfig has no context prod-c",
                       ConfigError);
  CHECK_THROWS_WITH_AS(select_contexts(known, {"dev,"}, false), doctest::Contains("empty entry"), ConfigError);
  CHECK_THROWS_AS(select_contexts({}, {}, true), ConfigError);
  // A name is a name: "prod" is not a prefix of "prod-a".
  CHECK_THROWS_AS(select_contexts(known, {"prod"}, false), ConfigError);
}

TEST_CASE("worst_exit_code: 2 over 1 over 0") {
  std::vector<ContextRun> runs(3);
  CHECK(worst_exit_code(runs) == 0);
  runs[1].exit_code = 1;
  CHECK(worst_exit_code(runs) == 1);
  runs[0].exit_code = 2;
  CHECK(worst_exit_code(runs) == 2);
  CHECK(worst_exit_code({}) == 0);
}

namespace {

std::vector<ContextRun> status_runs() {
  std::vector<ContextRun> runs(3);
  runs[0].context = "prod-a";
  runs[1].context = "prod-bb";
  runs[2].context = "prod-c";
  runs[2].exit_code = 1;
  runs[2].error = "unreachable: connection refused";
  for (int i = 0; i < 2; ++i) {
    StatusRow r;
    r.kind = "Kustomization";
    r.ns = "flux-system";
    r.name = i == 0 ? "apps" : "infra";
    r.by = "-";
    r.ready = "True";
    runs[static_cast<std::size_t>(i)].rows.push_back(r);
  }
  return runs;
}

}  // namespace

TEST_CASE("render_fleet: status is one table with CONTEXT in front; failed contexts are stderr's") {
  const std::string text = render_fleet(status_runs(), "status", OutputFormat::kText);
  CHECK(text ==
        "CONTEXT   NAMESPACE     NAME    SUSPENDED   BY   SINCE   REASON   READY   REVISION   MESSAGE\n"
        "prod-a    flux-system   apps    False       -    -       -        True    -\n"
        "prod-bb   flux-system   infra   False       -    -       -        True    -\n");
  CHECK(context_failure_line(status_runs()[2]) == "context prod-c failed: unreachable: connection refused");
}

TEST_CASE("render_fleet: -o json has context on each element and every context with its outcome") {
  const json doc = json::parse(render_fleet(status_runs(), "status", OutputFormat::kJson));
  CHECK(doc["command"] == "status");
  REQUIRE(doc["results"].size() == 2);
  CHECK(doc["results"][0]["context"] == "prod-a");
  CHECK(doc["results"][1]["context"] == "prod-bb");
  CHECK(doc["results"][1]["name"] == "infra");
  REQUIRE(doc["contexts"].size() == 3);
  CHECK(doc["contexts"][0]["exitCode"] == 0);
  CHECK(doc["contexts"][0]["error"].is_null());
  CHECK(doc["contexts"][2]["context"] == "prod-c");
  CHECK(doc["contexts"][2]["exitCode"] == 1);
  CHECK(doc["contexts"][2]["error"] == "unreachable: connection refused");
}

TEST_CASE("render_fleet: writes and check, each line behind its context") {
  std::vector<ContextRun> runs(2);
  runs[0].context = "a";
  runs[1].context = "long-name";
  TargetResult r{"flux-system", "apps-rw", "Kustomization"};
  Decision d;
  d.outcome = Outcome::kClosed;
  r.decision = d;
  runs[0].results.push_back(r);
  runs[1].results.push_back(r);
  CHECK(render_fleet(runs, "close", OutputFormat::kText) ==
        "a           flux-system/apps-rw closed\n"
        "long-name   flux-system/apps-rw closed\n");
  const json doc = json::parse(render_fleet(runs, "close", OutputFormat::kJson));
  CHECK(doc["results"][1]["context"] == "long-name");
  // A context name is the kubeconfig's text: no escape sequence reaches the terminal.
  runs[0].context = "evil\x1b[2J";
  CHECK(render_fleet(runs, "close", OutputFormat::kText).find('\x1b') == std::string::npos);
  CHECK(doc["results"][1]["result"] == "closed");

  std::vector<ContextRun> checks(1);
  checks[0].context = "prod";
  checks[0].findings.push_back({"WC001", "error", "Kustomization/flux-system/apps", "bad"});
  checks[0].jobs.push_back({"CronJob/flux-system/close", "close", true, {"Kustomization/flux-system/apps"}});
  CHECK(render_fleet(checks, "check", OutputFormat::kText) ==
        "prod   error WC001 Kustomization/flux-system/apps: bad\n");
  const json c = json::parse(render_fleet(checks, "check", OutputFormat::kJson));
  CHECK(c["findings"][0]["context"] == "prod");
  CHECK(c["findings"][0]["id"] == "WC001");
  CHECK(c["jobs"][0]["context"] == "prod");
  CHECK(c["jobs"][0]["targets"].size() == 1);
  CHECK_FALSE(c.contains("results"));
}
