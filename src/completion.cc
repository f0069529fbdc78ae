#include "completion.h"

#include <algorithm>

#include "cli.h"
#include "command_table.h"
#include "kinds.h"
#include "util.h"

namespace windowctl {
namespace {

struct Flag {
  std::vector<std::string> names;  // -o, --output
  std::string help;
  bool takes_value = false;
  std::string values;  // space-separated fixed values, or "@file" for a path
};

struct Subcommand {
  std::string name;
  std::vector<std::string> aliases;
  std::string help;
  std::vector<Flag> flags;
  std::string arguments;  // fixed values of its positional argument, if any
};

std::string kind_values() {
  std::string out;
  for (const KindAdapter* k : all_kinds()) out += (out.empty() ? "" : " ") + ascii_lower(k->kind);
  return out;
}

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

// The values a flag completes to: those cli.cc restricts it to, the kinds, or a file name.
std::string values_of(const std::string& long_name, const std::string& command) {
  if (long_name == "--kind") return kind_values();
  if (long_name == "--kubeconfig" || long_name == "--filename") return "@file";
  if (long_name == "--context" || long_name == "--contexts") return "@context";
  return join(fixed_values(long_name, command));
}

std::vector<Subcommand> model(const CLI::App& app) {
  const std::vector<std::string> names = command_names(false);
  std::vector<Subcommand> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    Subcommand c{sub->get_name(), sub->get_aliases(), sub->get_description(), {}, {}};
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_positional()) continue;
      Flag f;
      for (const auto& s : o->get_snames()) f.names.push_back("-" + s);
      for (const auto& l : o->get_lnames()) f.names.push_back("--" + l);
      if (f.names.empty()) continue;
      f.help = o->get_description();
      f.takes_value = takes_value(*o);
      if (f.takes_value) f.values = values_of(f.names.back(), c.name);
      c.flags.push_back(std::move(f));
    }
    // A positional argument with fixed values: completion's SHELL, help's COMMAND.
    const Command* row = find_command(c.name);
    if (row && row->id == CommandId::kCompletion) c.arguments = join(fixed_values("SHELL"));
    if (row && row->id == CommandId::kHelp) c.arguments = join(names);
    out.push_back(std::move(c));
  }
  return out;
}

// Bash: one function; zsh reuses it through bashcompinit, so both complete the same way.
std::string bash(const std::vector<Subcommand>& commands) {
  std::vector<std::string> words;
  for (const auto& c : commands) {
    words.push_back(c.name);
    words.insert(words.end(), c.aliases.begin(), c.aliases.end());
  }
  std::string s =
      "# windowctl completion bash: source it, or put it in /etc/bash_completion.d/windowctl\n"
      "_windowctl() {\n"
      "  # Under zsh's bashcompinit: bash's 0-based arrays and word splitting, for this function only.\n"
      "  [[ -n ${ZSH_VERSION-} ]] && emulate -L ksh\n"
      "  # Context names: the binary reads the kubeconfig it would use (--kubeconfig, KUBECONFIG, ~/.kube/config).\n"
      "  _windowctl_contexts() {\n"
      "    local j kc=${KUBECONFIG-}\n"
      "    for ((j = 1; j + 1 < ${#COMP_WORDS[@]}; j++)); do\n"
      "      [[ ${COMP_WORDS[j]} == --kubeconfig ]] && kc=${COMP_WORDS[j+1]}\n"
      "    done\n"
      "    KUBECONFIG=$kc \"${COMP_WORDS[0]}\" completion bash --list-contexts 2>/dev/null\n"
      "  }\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" cmd=\"\" opts=\"\" i\n"
      "  [[ $COMP_CWORD -gt 0 ]] && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${COMP_WORDS[i]}\" in\n"
      "      " +
      join(words, "|") + ")\n";
  s += "        cmd=\"${COMP_WORDS[i]}\"; break ;;\n"
       "    esac\n"
       "  done\n"
       "  COMPREPLY=()\n"
       "  case \"$prev\" in\n";
  // The value of a flag: its fixed values, a file, or nothing to offer. A flag whose values differ
  // by command (schedule's -o also takes ics) asks which command it is given to.
  auto reply = [](const std::string& values) -> std::string {
    if (values == "@file") return "COMPREPLY=($(compgen -f -- \"$cur\"))";
    if (values == "@context") return "COMPREPLY=($(compgen -W \"$(_windowctl_contexts)\" -- \"$cur\"))";
    if (values.empty()) return ":";
    return "COMPREPLY=($(compgen -W \"" + values + "\" -- \"$cur\"))";
  };
  struct Values {
    std::string name, common;
    std::vector<std::pair<std::string, std::string>> special;  // command pattern, its values
  };
  std::vector<Values> seen;
  for (const auto& c : commands) {
    for (const auto& f : c.flags) {
      if (!f.takes_value) continue;
      for (const auto& n : f.names) {
        auto it = std::find_if(seen.begin(), seen.end(), [&](const Values& v) { return v.name == n; });
        if (it == seen.end()) {
          seen.push_back({n, f.values, {}});
        } else if (it->common != f.values) {
          std::vector<std::string> names = {c.name};
          names.insert(names.end(), c.aliases.begin(), c.aliases.end());
          it->special.emplace_back(join(names, "|"), f.values);
        }
      }
    }
  }
  for (const auto& v : seen) {
    s += "    " + v.name + ") ";
    if (!v.special.empty()) {
      s += "case \"$cmd\" in";
      for (const auto& [pattern, values] : v.special) s += " " + pattern + ") " + reply(values) + " ;;";
      s += " *) " + reply(v.common) + " ;; esac; return ;;\n";
    } else {
      s += (v.common.empty() ? "" : reply(v.common) + "; ") + "return ;;\n";
    }
  }
  s += "  esac\n"
       "  case \"$cmd\" in\n"
       "    \"\") opts=\"" +
       join(words) + " --version --help\" ;;\n";
  for (const auto& c : commands) {
    std::vector<std::string> names = {c.name};
    names.insert(names.end(), c.aliases.begin(), c.aliases.end());
    const std::string pattern = join(names, "|");
    std::vector<std::string> flags;
    for (const auto& f : c.flags) flags.insert(flags.end(), f.names.begin(), f.names.end());
    // Flags first when the word starts with "-"; else the command's fixed arguments.
    s += "    " + pattern + ") opts=\"" + (c.arguments.empty() ? join(flags) : c.arguments) + "\"";
    if (!c.arguments.empty()) s += "; [[ \"$cur\" == -* ]] && opts=\"" + join(flags) + "\"";
    s += " ;;\n";
  }
  s += "  esac\n"
       "  COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "}\n"
       "complete -F _windowctl windowctl kubectl-windowctl\n";
  return s;
}

std::string fish_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish(const std::vector<Subcommand>& commands) {
  std::vector<std::string> words;
  for (const auto& c : commands) {
    words.push_back(c.name);
    words.insert(words.end(), c.aliases.begin(), c.aliases.end());
  }
  const std::string all = join(words);
  std::string s =
      "# windowctl completion fish > ~/.config/fish/completions/windowctl.fish\n"
      "complete -c windowctl -f\n"
      "complete -c kubectl-windowctl -w windowctl\n"
      "complete -c windowctl -n 'not __fish_seen_subcommand_from " +
      all + "' -l version -d 'Print the version and commit'\n";
  for (const auto& c : commands) {
    std::vector<std::string> names = {c.name};
    names.insert(names.end(), c.aliases.begin(), c.aliases.end());
    for (const auto& n : names) {
      s += "complete -c windowctl -n 'not __fish_seen_subcommand_from " + all + "' -a " + n + " -d " +
           fish_quote(c.help) + "\n";
    }
    const std::string when = "-n '__fish_seen_subcommand_from " + join(names) + "'";
    if (!c.arguments.empty()) s += "complete -c windowctl " + when + " -a " + fish_quote(c.arguments) + "\n";
    for (const auto& f : c.flags) {
      s += "complete -c windowctl " + when;
      for (const auto& n : f.names) s += (n.size() == 2 ? " -s " + n.substr(1) : " -l " + n.substr(2));
      if (f.values == "@file") {
        s += " -r -F";
      } else if (f.values == "@context") {
        s += " -x -a '(windowctl completion fish --list-contexts 2>/dev/null)'";
      } else if (!f.values.empty()) {
        s += " -x -a " + fish_quote(f.values);
      } else if (f.takes_value) {
        s += " -x";
      }
      s += " -d " + fish_quote(f.help.substr(0, 100)) + "\n";
    }
  }
  return s;
}

}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  const std::vector<Subcommand> commands = model(app);
  if (shell == "fish") return fish(commands);
  std::string script = bash(commands);
  if (shell == "zsh") {
    return "#compdef windowctl kubectl-windowctl\n"
           "# windowctl completion zsh > \"${fpath[1]}/_windowctl\" (the bash completion, through zsh's bashcompinit)\n"
           "autoload -U +X bashcompinit && bashcompinit\n" +
           script;
  }
  return script;
}

}  // namespace windowctl
