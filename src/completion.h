// `windowctl completion bash|zsh|fish`: scripts generated from the command line's own definition
// (cli.h), so a new flag or command completes without anyone editing a script.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace windowctl {

// The script for `shell` (bash, zsh or fish). It completes commands and their aliases, each
// command's flags, and the values of flags with a fixed set (--kind, -o, --log-format,
// --reconcile, completion's shell, help's command); paths for --kubeconfig and -f.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace windowctl
