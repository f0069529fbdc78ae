#include "completion.h"

#include <doctest/doctest.h>

#include "cli.h"

using namespace windowctl;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

// The shells themselves run these scripts in tests/e2e/test_completion.py; here, that the
// scripts follow the command line's definition.
TEST_CASE("scripts follow the command line's definition") {
  CommandLine cli;
  for (const char* shell : {"bash", "zsh", "fish"}) {
    CAPTURE(shell);
    std::string s = completion_script(cli.app(), shell);
    CHECK(has(s, "close"));
    CHECK(has(s, "suspend"));
    CHECK(has(s, "imageupdateautomation"));
    CHECK(has(s, "all-namespaces"));
    CHECK(has(s, "enabled disabled"));
  }
  CHECK(has(completion_script(cli.app(), "zsh"), "#compdef windowctl"));
  CHECK(has(completion_script(cli.app(), "bash"), "complete -F _windowctl windowctl kubectl-windowctl"));
  CHECK(has(completion_script(cli.app(), "fish"),
            "complete -c windowctl -n '__fish_seen_subcommand_from close suspend' -s o -l output -x -a 'text json'"));
}

TEST_CASE("a flag without a value does not swallow the next word's completion") {
  CommandLine cli;
  const std::string bash = completion_script(cli.app(), "bash");
  CHECK(has(bash, "    --kind) COMPREPLY=($(compgen -W"));
  CHECK(!has(bash, "    -v) "));
  CHECK(!has(bash, "    --all) "));
  CHECK(!has(completion_script(cli.app(), "fish"), "-l all -x"));
}

TEST_CASE("fish quotes descriptions") {
  CommandLine cli;
  std::string s = completion_script(cli.app(), "fish");
  // "Flux's" in a description: the quote is escaped inside fish's single quotes.
  CHECK(has(s, "Flux\\'s"));
}
