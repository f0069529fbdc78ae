#include "fleet.h"

#include <algorithm>

#include "errors.h"
#include "text.h"

namespace windowctl {

using nlohmann::json;

namespace {

// One bracket expression at p[0] == '['. Returns the length it spans, 0 when it is unterminated
// (then '[' is an ordinary character, as fnmatch has it), and whether `c` is in it.
std::size_t bracket(std::string_view p, char c, bool* in) {
  std::size_t i = 1;
  const bool negate = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negate) ++i;
  bool found = false;
  // A ']' first is a member, not the end.
  for (bool first = true; i < p.size() && (first || p[i] != ']'); first = false) {
    char lo = p[i];
    if (lo == '\\' && i + 1 < p.size()) lo = p[++i];
    char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      i += 2;
      hi = p[i];
      if (hi == '\\' && i + 1 < p.size()) hi = p[++i];
    }
    if (lo <= c && c <= hi) found = true;
    ++i;
  }
  if (i >= p.size()) return 0;
  *in = found != negate;
  return i + 1;
}

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = v.find(',', start);
      out.push_back(v.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

bool is_pattern(std::string_view s) { return s.find_first_of("*?[\\") != std::string_view::npos; }

// The context names of runs, padded to one width: the column in front of each line. A
// kubeconfig's names are anyone's text: terminal-safe, as every cell of the status table.
std::vector<std::string> padded(const std::vector<ContextRun>& runs) {
  std::vector<std::string> out;
  std::size_t width = 0;
  for (const auto& r : runs) width = std::max(width, out.emplace_back(printable(r.context, 256)).size());
  for (auto& name : out) name.append(width - name.size() + 3, ' ');
  return out;
}

}  // namespace

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative with one backtrack point, the last '*': linear in practice, never exponential.
  std::size_t pi = 0, si = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size()) {
      const char c = p[pi];
      if (c == '*') {
        star_p = pi++;
        star_s = si;
        continue;
      }
      if (c == '?') {
        ++pi;
        ++si;
        continue;
      }
      if (c == '[') {
        bool in = false;
        if (std::size_t n = bracket(p.substr(pi), s[si], &in); n > 0) {
          if (in) {
            pi += n;
            ++si;
            continue;
          }
        } else if (s[si] == '[') {
          ++pi;
          ++si;
          continue;
        }
      } else {
        const bool escaped = c == '\\' && pi + 1 < p.size();
        if (p[pi + escaped] == s[si]) {
          pi += 1 + escaped;
          ++si;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p + 1;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::vector<std::string> select_contexts(const std::vector<std::string>& known, const std::vector<std::string>& values,
                                         bool all) {
  std::vector<std::string> out;
  if (all) {
    out = known;
  } else {
    for (const auto& entry : split_commas(values)) {
      if (entry.empty()) throw ConfigError("--contexts has an empty entry: give names or patterns, comma-separated");
      const std::size_t before = out.size();
      for (const auto& name : known) {
        if (is_pattern(entry) ? glob_match(entry, name) : entry == name) out.push_back(name);
      }
      if (out.size() == before) {
        throw ConfigError(is_pattern(entry)
                              ? "--contexts \"" + printable(entry, 256) + "\" matches no context in the kubeconfig"
                              : "the kubeconfig has no context " + printable(entry, 256));
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty()) throw ConfigError("--all-contexts: the kubeconfig has no context");
  return out;
}

int worst_exit_code(const std::vector<ContextRun>& runs) {
  int worst = 0;
  for (const auto& r : runs) worst = std::max(worst, r.exit_code);
  return worst;
}

std::string context_failure_line(const ContextRun& run) {
  std::string line = "context " + run.context + " failed";
  if (!run.error.empty()) line += ": " + run.error;
  return printable(line, 4096);
}

std::string render_fleet(const std::vector<ContextRun>& runs, std::string_view command, OutputFormat format) {
  const bool is_status = command == "status", is_check = command == "check";
  if (format == OutputFormat::kJson) {
    json doc, contexts = json::array(), list = json::array(), jobs = json::array();
    for (const auto& r : runs) {
      json& c = contexts.emplace_back();
      c["context"] = r.context;
      c["exitCode"] = r.exit_code;
      c["error"] = r.error.empty() ? json(nullptr) : json(r.error);
      for (const auto& row : r.rows) list.emplace_back(status_json(row))["context"] = r.context;
      for (const auto& res : r.results) list.emplace_back(result_json(res))["context"] = r.context;
      for (const auto& f : r.findings) list.emplace_back(finding_json(f))["context"] = r.context;
      for (const auto& j : r.jobs) jobs.emplace_back(job_json(j))["context"] = r.context;
    }
    doc["command"] = std::string(command);
    doc["contexts"] = std::move(contexts);
    doc[is_check ? "findings" : "results"] = std::move(list);
    if (is_check) doc["jobs"] = std::move(jobs);
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  }
  if (is_status) {
    std::vector<StatusRow> rows;
    for (const auto& r : runs) {
      for (StatusRow row : r.rows) {
        row.context = r.context;
        rows.push_back(std::move(row));
      }
    }
    return render_status(rows, format);
  }
  const std::vector<std::string> column = padded(runs);
  std::string out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& res : runs[i].results) out += column[i] + result_line(res) + "\n";
    // check's own lines, each behind its context.
    const std::string findings = render_findings(runs[i].findings, false);
    for (std::size_t start = 0, end; start < findings.size(); start = end + 1) {
      end = findings.find('\n', start);
      out += column[i] + findings.substr(start, end - start + 1);
    }
  }
  return out;
}

}  // namespace windowctl
