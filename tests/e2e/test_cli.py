"""The command line as flux and kubectl users type it: names as arguments, suspend/resume,
global flags on either side of the command, -A, help, --version, completions, malformed
selectors and one error style -- the real binary against the fake API server."""
import json
import os
import shutil
import subprocess

import pytest

from e2e_util import KS, lines

COMMANDS = ["close", "open", "relabel", "adopt", "sync", "schedule", "status", "check", "version", "completion", "help"]


def add_ks(api, ns, name, labels):
    api.put("namespaces", "", ns, {})
    src = api.get(KS, "flux-system", "apps-rw")
    api.put(KS, ns, name, {"metadata": {"labels": labels}, "spec": src["spec"], "status": src.get("status", {})})


def test_names_as_arguments_and_the_flux_aliases(wctl, api):
    p = wctl.run("suspend", "apps-rw", "flux-system/infra")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed", "flux-system/infra closed"]
    assert wctl.suspended("apps-rw") and wctl.suspended("infra") and not wctl.suspended("apps-rt")
    p = wctl.run("resume", "apps-rw", "--kustomizations", "infra")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw opened", "flux-system/infra opened"]
    assert not wctl.suspended("apps-rw") and not wctl.suspended("infra")
    # Names of --kind: a HelmRelease.
    p = wctl.run("close", "--kind", "hr", "podinfo")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("podinfo", resource="helmreleases")


def test_a_bare_notify_never_takes_the_next_name_as_its_url(wctl, api):
    p = wctl.run("close", "--notify", "apps-rw", "--request-timeout", "2s")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed"]


@pytest.mark.parametrize("args", [
    ["close", "apps-rw", "--all"],
    ["close", "--all", "-l", "window=rw"],
    ["close", "--all", "--targets", "kustomization/apps-rw"],
    ["open", "--all", "--kustomizations", "apps-rw"],
])
def test_all_with_names_or_a_selector_is_a_usage_error(wctl, api, args):
    p = wctl.run(*args)
    assert p.returncode == 2, p.stderr
    assert "--all selects every object of the kind" in p.stderr
    assert not api.requests, "nothing was sent"


@pytest.mark.parametrize("selector,problem", [
    ("window=rw tier=web", "found \"tier\", expected: ',' or end of string"),
    ("window in rw", "expected: '('"),
    ("Window/x=rw", "its prefix must be a DNS subdomain"),
    ("window=", None),
    ("x>a", "must be an integer"),
    ("window=rw,", "expected: identifier after ','"),
])
def test_a_malformed_selector_is_exit_2_before_any_request(wctl, api, selector, problem):
    p = wctl.run("close", "-l", selector)
    if problem is None:
        # Valid (the empty value): it reaches the server, which selects nothing.
        assert p.returncode == 1 and "matches selector" in p.stderr, p.stderr
        return
    assert p.returncode == 2, p.stderr
    assert f"invalid -l/--selector" in p.stderr and problem in p.stderr, p.stderr
    assert len(lines(p.stderr)) == 1
    assert not api.requests, "nothing was sent"


def test_global_flags_before_the_command(wctl, api):
    add_ks(api, "apps", "web", {"window": "rw"})
    kubeconfig = wctl.kubeconfig()
    p = wctl.run("--kubeconfig", kubeconfig, "-n", "apps", "-o", "json", "close", "web", mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["results"][0]["namespace"] == "apps"
    assert wctl.suspended("web", ns="apps")
    p = wctl.run("--kubeconfig=" + kubeconfig, "--namespace=apps", "-v", "open", "web", mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert "GET" in p.stderr  # -v before the command logs the requests
    assert not wctl.suspended("web", ns="apps")


def test_all_namespaces_status_and_selection(wctl, api):
    add_ks(api, "apps", "web", {"window": "rw"})
    add_ks(api, "team-b", "api", {"window": "rw"})
    p = wctl.run("status", "-A")
    assert p.returncode == 0, p.stderr
    rows = [line.split()[:2] for line in lines(p.stdout)[1:]]
    assert ["apps", "web"] in rows and ["team-b", "api"] in rows and ["flux-system", "apps-rw"] in rows
    lists = [r["path"] for r in api.requests if r["method"] == "GET" and "kustomizations" in r["path"]]
    assert all("/namespaces/" not in path for path in lists), lists

    p = wctl.run("close", "-A", "-l", "window=rw")
    assert p.returncode == 0, p.stderr
    assert sorted(lines(p.stdout)) == ["apps/web closed", "flux-system/apps-rw closed", "team-b/api closed"]
    assert not wctl.suspended("apps-rt")


@pytest.mark.parametrize("args,message", [
    (["close", "-A", "apps-rw"], "a name takes its namespace instead"),
    (["status", "-A", "--targets", "kustomization/apps-rw"], "a name takes its namespace instead"),
    (["close", "-A", "-n", "apps", "--all"], "exclude each other"),
    (["close", "-A"], "needs targets"),
    (["open", "-A", "--wait", "apps-rw"], "a name takes its namespace instead"),
])
def test_all_namespaces_misuse_is_a_usage_error(wctl, api, args, message):
    p = wctl.run(*args)
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not api.requests


def test_help_version_and_every_commands_help(wctl):
    top = wctl.run("help")
    assert top.returncode == 0 and wctl.run("--help").stdout == top.stdout
    for command in COMMANDS:
        assert command in top.stdout
    for command in COMMANDS:
        a = wctl.run("help", command)
        b = wctl.run(command, "--help")
        assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
        assert a.stdout == b.stdout and f"Usage: windowctl {command}" in a.stdout
        assert "Examples:" in a.stdout, command
    # Defaults are shown.
    out = wctl.run("help", "open").stdout
    assert "--timeout DURATION=5m" in out and "--kind KIND=Kustomization" in out and "=30s" in out
    v = wctl.run("--version")
    assert v.returncode == 0 and v.stdout.startswith("windowctl ") and v.stdout == wctl.run("version").stdout
    j = json.loads(wctl.run("version", "-o", "json").stdout)
    assert j["command"] == "version" and j["version"] and j["commit"]


@pytest.mark.parametrize("args", [[], ["cloze"], ["help", "cloze"], ["close", "--bogus", "x"], ["close", "-o", "yaml", "x"],
                                  ["completion", "tcsh"], ["close"]])
def test_usage_errors_are_one_line_in_the_log_style(wctl, api, args):
    p = wctl.run(*args)
    assert p.returncode == 2
    (line,) = lines(p.stderr)
    assert " error " in line, line  # "<time> error <message>", as every other error
    p = wctl.run(*args, "--log-format", "json")
    assert p.returncode == 2
    (line,) = lines(p.stderr)
    record = json.loads(line)
    assert record["level"] == "error" and record["msg"], record
    assert not api.requests


def shell_env(tmp_path):
    """A shell with no startup files of the user's: HOME is the test's own directory."""
    return {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def completion_script(wctl, shell, tmp_path):
    p = wctl.run("completion", shell)
    assert p.returncode == 0, p.stderr
    path = tmp_path / f"windowctl.{shell}"
    path.write_text(p.stdout)
    return path


BASH_COMPLETE = r'''
source "$1"
complete -p windowctl
complete -p kubectl-windowctl
comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _windowctl; echo "${COMPREPLY[*]}"; }
comp windowctl cl
comp windowctl su
comp windowctl close --ki
comp windowctl close --kind helm
comp windowctl -n apps status -o ""
comp windowctl completion ""
comp windowctl help st
'''


def check_completions(out):
    got = out.splitlines()
    assert got[0].startswith("complete -F _windowctl") and got[0].endswith(" windowctl"), got
    assert got[1].endswith(" kubectl-windowctl"), got
    assert got[2:] == ["close", "suspend", "--kind", "helmrelease helmrepository helmchart", "text json", "bash zsh fish",
                       "status"], got


def test_bash_completion(wctl, tmp_path):
    script = completion_script(wctl, "bash", tmp_path)
    p = subprocess.run(["bash", "-c", BASH_COMPLETE, "bash", str(script)], capture_output=True, text=True,
                       env=shell_env(tmp_path))
    assert p.returncode == 0, p.stderr
    check_completions(p.stdout)


def test_zsh_completion(wctl, tmp_path):
    if not shutil.which("zsh"):
        pytest.fail("zsh is needed (scripts/install-deps.sh installs it)")
    script = completion_script(wctl, "zsh", tmp_path)
    # bashcompinit's `complete -p` lists every registration: zsh's own table says it instead.
    prog = "autoload -U +X compinit && compinit -u\n" + BASH_COMPLETE.replace(
        "complete -p windowctl\ncomplete -p kubectl-windowctl\n",
        'echo "complete -F ${_comps[windowctl]##* } windowctl"\necho "complete -F ${_comps[kubectl-windowctl]##* } kubectl-windowctl"\n')
    # zsh's compgen (bashcompinit) offers every word and lets zsh's own matching pick those that
    # start with the word typed: the test picks them the same way.
    prog = prog.replace('echo "${COMPREPLY[*]}"', 'echo "${(M)COMPREPLY[@]:#${COMP_WORDS[-1]}*}"')
    # zsh's own options (1-based arrays): the script must cope, as under bashcompinit's
    # _bash_complete, which sets COMP_CWORD to the current word's 1-based index minus one.
    p = subprocess.run(["zsh", "-c", prog, "zsh", str(script)], capture_output=True, text=True, env=shell_env(tmp_path))
    assert p.returncode == 0, p.stderr
    check_completions(p.stdout)


def test_fish_completion(wctl, tmp_path):
    if not shutil.which("fish"):
        pytest.fail("fish is needed (scripts/install-deps.sh installs it)")
    script = completion_script(wctl, "fish", tmp_path)

    def complete(line):
        p = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"], capture_output=True,
                           text=True, env=shell_env(tmp_path))
        assert p.returncode == 0, p.stderr
        return [line.split("\t")[0] for line in p.stdout.splitlines()]

    assert "close" in complete("windowctl cl") and "suspend" in complete("windowctl su")
    assert "--kind" in complete("windowctl close --ki")
    assert sorted(complete("windowctl close --kind helm")) == ["helmchart", "helmrelease", "helmrepository"]
    assert sorted(complete("windowctl status -o ")) == ["json", "text"]
