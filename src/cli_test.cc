#include "cli.h"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <set>
#include <sstream>

#include "commands.h"
#include "test_util.h"

using namespace windowctl;

using Args = std::vector<std::string>;

TEST_CASE("global flags before the command move behind it; the rest keeps its order") {
  CHECK(hoist_global_flags({"--context", "prod", "close", "apps-rw"}) == Args{"close", "--context", "prod", "apps-rw"});
  CHECK(hoist_global_flags({"-n", "apps", "-ojson", "--kubeconfig=/k", "-v", "status", "-l", "a=b"}) ==
        Args{"status", "-n", "apps", "-ojson", "--kubeconfig=/k", "-v", "-l", "a=b"});
  CHECK(hoist_global_flags({"-o=json", "--log-format", "json", "--request-timeout", "5s", "sync"}) ==
        Args{"sync", "-o=json", "--log-format", "json", "--request-timeout", "5s"});
  // A value that looks like a command is the flag's value, not the command.
  CHECK(hoist_global_flags({"--context", "close", "open", "x"}) == Args{"open", "--context", "close", "x"});
  // Not global: stays where it is (the parser then says what is wrong).
  CHECK(hoist_global_flags({"--help", "-n", "x", "close"}) == Args{"--help", "close", "-n", "x"});
  CHECK(hoist_global_flags({"--all", "close"}) == Args{"--all", "close"});
  // Nothing to move, no command, or `--` first: unchanged.
  CHECK(hoist_global_flags({"close", "-n", "x"}) == Args{"close", "-n", "x"});
  CHECK(hoist_global_flags({"-n", "x"}) == Args{"-n", "x"});
  CHECK(hoist_global_flags({"-n", "x", "--", "close"}) == Args{"-n", "x", "--", "close"});
  CHECK(hoist_global_flags({}) == Args{});
  // A flag missing its value at the end is left for the parser to refuse.
  CHECK(hoist_global_flags({"--context"}) == Args{"--context"});
}

TEST_CASE("the log format is known before the arguments are parsed") {
  CHECK(log_format_of({"close", "--log-format", "json"}) == LogFormat::kJson);
  CHECK(log_format_of({"--log-format=json", "close"}) == LogFormat::kJson);
  CHECK(log_format_of({"close", "--log-format", "text"}) == LogFormat::kText);
  CHECK(log_format_of({"close", "--", "--log-format=json"}) == LogFormat::kText);
  CHECK(log_format_of({"close", "--log-format"}) == LogFormat::kText);
}

TEST_CASE("the program is kubectl windowctl under kubectl's plugin name") {
  CHECK(program_name("/usr/local/bin/kubectl-windowctl") == "kubectl windowctl");
  CHECK(program_name("windowctl") == "windowctl");
  CHECK(program_name("/x/windowctl-1.0") == "windowctl");
  CHECK(program_name(nullptr) == "windowctl");
}

namespace {
struct Parse {
  CommandLine cli;
  std::ostringstream out;
  std::optional<int> exit;
  explicit Parse(Args args) { exit = cli.parse(std::move(args), out); }
};
}  // namespace

TEST_CASE("aliases, names as arguments and flags on either side") {
  Parse p({"-n", "apps", "suspend", "apps-rw", "apps/b", "--reason", "freeze", "--notify"});
  REQUIRE(!p.exit);
  CHECK(p.cli.flags().command == &command_row(CommandId::kClose));
  CHECK(p.cli.flags().args == Args{"apps-rw", "apps/b"});
  CHECK(p.cli.flags().ns == "apps");
  CHECK(p.cli.flags().reason == "freeze");
  CHECK(p.cli.given("--notify"));
  CHECK(p.cli.flags().notify.find("notification-controller") != std::string::npos);

  Parse r({"resume", "x", "--notify", "y"});
  REQUIRE(!r.exit);
  CHECK(r.cli.flags().command == &command_row(CommandId::kOpen));
  // A bare --notify never takes the next argument as its URL.
  CHECK(r.cli.flags().args == Args{"x", "y"});

  Parse u({"open", "--notify=http://127.0.0.1:9/", "x"});
  REQUIRE(!u.exit);
  CHECK(u.cli.flags().notify == "http://127.0.0.1:9/");
  // A URL after a bare --notify is its value: no name has "://".
  Parse w({"open", "x", "--notify", "http://127.0.0.1:9/"});
  REQUIRE(!w.exit);
  CHECK(w.cli.flags().notify == "http://127.0.0.1:9/");
  CHECK(w.cli.flags().args == Args{"x"});
  CHECK(!u.cli.given("--for"));
}

TEST_CASE("help, version and usage errors end the run with their exit codes") {
  Parse h({"help", "close"});
  CHECK(h.exit == kExitOk);
  CHECK(h.out.str().find("--reason") != std::string::npos);
  CHECK(h.out.str().find("Examples:") != std::string::npos);
  Parse hh({"close", "--help"});
  CHECK(hh.exit == kExitOk);
  CHECK(hh.out.str() == h.out.str());
  Parse top({"help"});
  CHECK(top.exit == kExitOk);
  CHECK(top.out.str().find("completion") != std::string::npos);
  // --version is the version command (main prints it; test_cli.py compares the two outputs).
  Parse v({"--version"});
  CHECK(!v.exit);
  CHECK(v.cli.flags().command == &command_row(CommandId::kVersion));

  CHECK(Parse({}).exit == kExitUsage);
  CHECK(Parse({"cloze", "x"}).exit == kExitUsage);
  CHECK(Parse({"help", "cloze"}).exit == kExitUsage);
  CHECK(Parse({"close", "--bogus"}).exit == kExitUsage);
  CHECK(Parse({"close", "-o", "yaml"}).exit == kExitUsage);
  CHECK(Parse({"completion", "tcsh"}).exit == kExitUsage);
  CHECK(Parse({"completion"}).exit == kExitUsage);
}

TEST_CASE("every --help shows the defaults") {
  Parse h({"help", "open"});
  CHECK(h.out.str().find("5m") != std::string::npos);             // --timeout
  CHECK(h.out.str().find("Kustomization") != std::string::npos);  // --kind
  CHECK(h.out.str().find("30s") != std::string::npos);            // --request-timeout
}

TEST_CASE("the flags hoisted before a command are exactly those in the global group") {
  CommandLine cli;
  for (const CLI::App* sub : cli.app().get_subcommands([](const CLI::App*) { return true; })) {
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_positional()) continue;
      const bool global = o->get_group() == "Global flags (before or after the command)";
      std::vector<std::string> names;
      for (const auto& s : o->get_snames()) names.push_back("-" + s);
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& n : names) {
        CAPTURE(n);
        bool takes_value = false;
        CHECK(is_global_flag(n, &takes_value) == global);
        if (global) CHECK(takes_value == windowctl::takes_value(*o));
      }
    }
  }
}

TEST_CASE("a refused command line still names its command") {
  CommandLine cli;
  std::ostringstream out;
  std::string problem;
  CHECK(cli.parse({"suspend", "x", "--bogus"}, out, &problem) == kExitUsage);
  CHECK(cli.flags().command == &command_row(CommandId::kClose));
  CHECK(cli.command() == command_row(CommandId::kClose).name);  // check_model.cc keeps it by name
  CHECK(problem.find("--bogus") != std::string::npos);
}

namespace {
// The one line a refused command line gets (what main logs), or "" when it parses.
std::string refusal(Args args) {
  CommandLine cli;
  std::ostringstream out;
  std::string problem;
  if (cli.parse(std::move(args), out, &problem) != kExitUsage) return cli.flags_problem();
  return problem;
}
}  // namespace

TEST_CASE("an unknown flag or command says what was probably meant") {
  CHECK(refusal({"close", "--kustomization", "apps-rw"}) ==
        "unknown flag --kustomization; did you mean --kustomizations?");
  CHECK(refusal({"close", "--kustomization=apps-rw"}) ==
        "unknown flag --kustomization; did you mean --kustomizations?");
  CHECK(refusal({"close", "apps-rw", "--dryrun"}) == "unknown flag --dryrun; did you mean --dry-run?");
  CHECK(refusal({"status", "--all-namespace"}) == "unknown flag --all-namespace; did you mean --all-namespaces?");
  CHECK(refusal({"close", "-a", "-l", "x"}) == "unknown flag -a; did you mean -A?");
  CHECK(refusal({"close", "--re"}) == "unknown flag --re; did you mean --reason, --relabel or --request-timeout?");
  // Nothing near among close's own flags (--wait is open's): its help lists them.
  CHECK(refusal({"close", "apps-rw", "--wait"}) == "unknown flag --wait for close (see 'windowctl close --help')");
  // Before a required flag's complaint: the unknown one is why it is missing.
  CHECK(refusal({"schedule", "--windw", "0 8 * * * for 1h"}) == "unknown flag --windw; did you mean --window?");
  // Nothing near: where the flags are listed.
  CHECK(refusal({"close", "--zzzzz"}) == "unknown flag --zzzzz for close (see 'windowctl close --help')");
  CHECK(refusal({"--frobnicate"}) == "unknown flag --frobnicate (see 'windowctl --help')");
  // Commands, aliases included, as the first word and as help's topic.
  CHECK(refusal({"clsoe", "apps-rw"}) == "unknown command \"clsoe\"; did you mean close?");
  CHECK(refusal({"suspnd", "apps-rw"}) == "unknown command \"suspnd\"; did you mean suspend?");
  CHECK(refusal({"help", "stauts"}) == "unknown command \"stauts\"; did you mean status?");
  CHECK(
      refusal({"frobnicate"}) ==
      "unknown command \"frobnicate\" (commands: close, open, relabel, adopt, sync, schedule, status, check, version, "
      "completion, help; see 'windowctl help')");
  // An argument too many is no flag: CLI11's own words stay.
  CHECK(refusal({"version", "extra"}).starts_with("The following argument was not expected: extra"));
}

TEST_CASE("--reason is one line of text: no control character, C0, DEL or C1") {
  CHECK(refusal({"close", "a", "--reason", "INC-1234 hotfix: d\u00e9ploiement \u2014 ok"}) == "");
  const std::string refused = "--reason has a control character (tab, newline, ESC, ...): give one line";
  for (const char* bad : {"a\tb", "two\nlines", "cr\r", "\x1b[31mred", "nul\x01", "del\x7f", "nel\xc2\x85",
                          "csi\xc2\x9b"
                          "2J"}) {
    CAPTURE(bad);
    CHECK(refusal({"close", "a", "--reason", bad}) == refused);
  }
  CHECK(refusal({"close", "a", "--reason", "bad\xff"}) == "--reason is not valid UTF-8");
}

TEST_CASE("command names list aliases only when asked") {
  auto plain = command_names(false);
  auto all = command_names(true);
  CHECK(std::find(plain.begin(), plain.end(), "suspend") == plain.end());
  CHECK(std::find(all.begin(), all.end(), "suspend") != all.end());
  CHECK(std::find(all.begin(), all.end(), "resume") != all.end());
  CHECK(plain.front() == kCommands.front().name);
}

TEST_CASE("every subcommand is one row of the table, in its order, with its alias and line of help") {
  CommandLine cli;
  const auto subs = cli.app().get_subcommands([](const CLI::App*) { return true; });
  REQUIRE(subs.size() == kCommands.size());
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const Command& c = kCommands[i];
    CAPTURE(c.name);
    CHECK(subs[i]->get_name() == c.name);
    CHECK(subs[i]->get_description() == c.description);
    const Args aliases = c.alias.empty() ? Args{} : Args{std::string(c.alias)};
    CHECK(subs[i]->get_aliases() == aliases);
    CHECK(find_command(subs[i]->get_name()) == &c);
    for (const auto& alias : subs[i]->get_aliases()) CHECK(find_command(alias) == &c);
  }
  CHECK(command_names(true).size() == subs.size() + 2);  // suspend, resume
}

TEST_CASE("flux's verbs are aliases of close and open; other words name no row") {
  CHECK(find_command("suspend") == &command_row(CommandId::kClose));
  CHECK(find_command("resume") == &command_row(CommandId::kOpen));
  CHECK(find_command("cloze") == nullptr);
  CHECK(find_command("") == nullptr);
  CHECK(find_command("Close") == nullptr);
  Parse p({"resume", "x"});
  REQUIRE(!p.exit);
  CHECK(p.cli.flags().command == &command_row(CommandId::kOpen));
}

TEST_CASE("a row that writes is a command with --dry-run, --reason and --notify, and one plan action unless sync") {
  CommandLine cli;
  for (const Command& c : kCommands) {
    CAPTURE(c.name);
    const CLI::App* sub = cli.app().get_subcommand(std::string(c.name));
    for (const char* flag : {"--dry-run", "--reason", "--notify"}) {
      CHECK((sub->get_option_no_throw(flag) != nullptr) == c.writes);
    }
    CHECK(c.action.has_value() == (c.writes && c.id != CommandId::kSync));
  }
}

namespace {

// The command parsed, what its run printed and whether it asked for the cluster.
struct Run {
  const Command* command = nullptr;
  std::optional<int> exit;
  bool reached = false;
  std::string out;
};

struct Reached {};

// stdout into a string and logs off while it lives: a unit test's stdout is doctest's.
class Captured {
 public:
  Captured() : saved_(std::cout.rdbuf(out_.rdbuf())), level_(spdlog::get_level()) {
    spdlog::set_level(spdlog::level::off);
  }
  ~Captured() {
    spdlog::set_level(level_);
    std::cout.rdbuf(saved_);
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::streambuf* saved_;
  spdlog::level::level_enum level_;
};

Run run_until_cluster(const Args& args) {
  Run run;
  CommandLine cli;
  std::ostringstream help;
  run.exit = cli.parse(args, help);
  run.command = cli.flags().command;
  if (run.exit) return run;
  Captured out;
  try {
    run.exit = dispatch(cli, {"1.2.3", "abc"}, [&](const ClientOptions&) -> std::unique_ptr<Client> {
      run.reached = true;
      throw Reached{};
    });
  } catch (const Reached&) {
  }
  run.out = out.str();
  // What the row says is what the run did.
  CHECK(run.reached == cli.flags().needs_cluster());
  return run;
}

}  // namespace

TEST_CASE("a run builds a client only when its command's row needs the cluster") {
  windowctl::testing::TempDir dir;
  const std::string file = dir.write("ks.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n");
  struct Case {
    Args args;
    CommandId id;
    bool reaches;
  };
  const std::vector<Case> cases = {
      {{"version"}, CommandId::kVersion, false},
      {{"--version"}, CommandId::kVersion, false},
      {{"version", "-o", "json"}, CommandId::kVersion, false},
      {{"completion", "fish"}, CommandId::kCompletion, false},
      {{"schedule", "--window", "0 8 * * * for 1h", "--at", "2024-01-01T00:00:00Z"}, CommandId::kSchedule, false},
      // Manifests alone are read offline; targets, or no manifests, are checked live.
      {{"check", "-f", file}, CommandId::kCheck, false},
      {{"check", "apps-rw", "-f", file}, CommandId::kCheck, true},
      {{"check"}, CommandId::kCheck, true},
      {{"close", "x"}, CommandId::kClose, true},
      {{"suspend", "x", "--dry-run"}, CommandId::kClose, true},
      {{"open", "x"}, CommandId::kOpen, true},
      {{"relabel", "x", "--reconcile", "enabled"}, CommandId::kRelabel, true},
      {{"adopt", "x"}, CommandId::kAdopt, true},
      {{"sync", "x"}, CommandId::kSync, true},
      {{"status"}, CommandId::kStatus, true},
  };
  std::set<CommandId> covered;
  for (const auto& c : cases) {
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    CAPTURE(line);
    const Run run = run_until_cluster(c.args);
    CHECK(run.command == &command_row(c.id));
    CHECK(run.reached == c.reaches);
    if (!c.reaches) CHECK(run.exit == kExitOk);
    covered.insert(c.id);
  }
  // help is answered by the parse, before any run.
  const Run help = run_until_cluster({"help", "schedule"});
  CHECK(help.command == &command_row(CommandId::kHelp));
  CHECK(help.exit == kExitOk);
  CHECK(!help.reached);
  covered.insert(CommandId::kHelp);
  CHECK(covered.size() == kCommands.size());

  CHECK(run_until_cluster({"version"}).out == "windowctl 1.2.3 (commit abc)\n");
  CHECK(run_until_cluster({"check", "-f", file, "-o", "json"}).out.find("\"findings\"") != std::string::npos);
  CHECK(run_until_cluster({"schedule", "--window", "0 8 * * * for 1h in UTC", "-o", "json"}).out.find("\"open\"") !=
        std::string::npos);
}

TEST_CASE("fleet flags: on the rows that say fleet, one of --context and --contexts, a bounded concurrency") {
  for (const Command& c : kCommands) {
    CommandLine cli;
    std::ostringstream out;
    std::string problem;
    Args args = {std::string(c.name), "--all-contexts"};
    cli.parse(args, out, &problem);
    // The flag exists exactly where the row says the command runs over many contexts.
    CHECK_MESSAGE((problem.find("unknown flag --all-contexts") == std::string::npos) == c.fleet, c.name);
  }
  CHECK(refusal({"status", "--contexts", "prod-*", "--context", "prod-a"}) ==
        "--context names one context; --contexts and --all-contexts many: give one of them");
  CHECK(refusal({"close", "x", "--all-contexts", "--contexts", "a"}) ==
        "--contexts and --all-contexts exclude each other");
  CHECK(refusal({"status", "--all-contexts", "--max-concurrency", "0"}).find("--max-concurrency") != std::string::npos);
  CHECK(refusal({"status", "--all-contexts", "--max-concurrency", "1.5"}).find("--max-concurrency") !=
        std::string::npos);
  CHECK(refusal({"status", "--all-contexts", "--max-concurrency", "100"}).empty());
  // Global like --context: before the command too.
  CHECK(refusal({"--contexts", "prod-*", "--max-concurrency", "3", "status"}).empty());
  // check with -f only stays offline, unless it is asked to run in contexts.
  CommandLine cli;
  std::ostringstream out;
  REQUIRE_FALSE(cli.parse({"check", "-f", "x.yaml", "--contexts", "prod-*"}, out).has_value());
  CHECK(cli.flags().needs_cluster());
}

TEST_CASE("-o ics is schedule's alone") {
  CHECK(fixed_values("--output", "schedule") == std::vector<std::string>{"text", "json", "ics"});
  CHECK(fixed_values("--output", "status") == std::vector<std::string>{"text", "json"});
  CHECK(fixed_values("--output") == std::vector<std::string>{"text", "json"});
  CHECK(fixed_values("--log-format", "schedule") == std::vector<std::string>{"text", "json"});
  std::ostringstream out;
  CommandLine ok;
  CHECK_FALSE(ok.parse(
      {"schedule", "--window", "0 8 * * * for 1h", "-o", "ics", "--exit-code", "--until", "2027-01-01T00:00:00Z"},
      out));
  CHECK(ok.flags().output == "ics");
  CHECK(ok.flags().exit_code);
  CHECK(ok.flags().until == "2027-01-01T00:00:00Z");
  for (const char* command : {"status", "version", "close"}) {
    CommandLine cli;
    std::string problem;
    CHECK(cli.parse({command, "-o", "ics"}, out, &problem) == kExitUsage);
    CHECK(problem.find("ics not in {text,json}") != std::string::npos);
  }
}
