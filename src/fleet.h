// A fleet run: one command over many kubeconfig contexts (--contexts, --all-contexts). The pure
// parts live here (which contexts a run selects, the exit code of the whole, the one merged
// report); commands.cc runs the contexts, each with its own Config and Client.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "check.h"
#include "output.h"

namespace windowctl {

// One context of a fleet run: what it found and how it ended. A worker thread fills it; the
// report is rendered from all of them once every context has ended.
struct ContextRun {
  std::string context;
  int exit_code = 0;                  // under the single-context contract: 0, 1 or 2
  std::string error;                  // why it failed (the first error it logged); "" when it did not
  std::vector<StatusRow> rows;        // status
  std::vector<TargetResult> results;  // close, open, relabel, adopt
  std::vector<Finding> findings;      // check
  std::vector<JobTargets> jobs;       // check
};

// Shell-style pattern matching as fnmatch(3) without flags: `*` any run of characters, `?` one,
// `[abc]`, `[a-z]`, `[!a]` or `[^a]` a set, `\x` the character x. Context names may hold `/`
// (EKS's ARNs): `*` matches it too, as a name is no path.
bool glob_match(std::string_view pattern, std::string_view name);

// The contexts a run selects from the kubeconfig's `known` ones: every one with `all`, else those
// the comma-separated, repeatable --contexts values name or match. Sorted, each once. ConfigError
// (exit 2, before any request) for a name the kubeconfig lacks, a pattern that matches nothing,
// an empty entry, or nothing selected at all.
std::vector<std::string> select_contexts(const std::vector<std::string>& known, const std::vector<std::string>& values,
                                         bool all);

// The worst outcome over the contexts under the single-context contract: 2 over 1 over 0.
int worst_exit_code(const std::vector<ContextRun>& runs);

// The one report on stdout: today's output of the command with the context in front (a CONTEXT
// column; -o json: `context` on each element and a `contexts` list with each one's exit code and
// error). `command` is the row's name.
std::string render_fleet(const std::vector<ContextRun>& runs, std::string_view command, OutputFormat format);

// The line stderr gets for a failed context, after the report: "context prod-b failed: ...".
std::string context_failure_line(const ContextRun& run);

}  // namespace windowctl
