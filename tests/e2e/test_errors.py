"""Errors say the fix (issue 20): a mistyped flag, command, kind, zone or duration unit is named
with what was probably meant, a bad --reason is refused, and a 401 or 403 says whose credentials
were refused and what to do. Bad input is one line on stderr, exit 2, nothing sent."""
import json
import re

import pytest

from e2e_util import KS, SA_USER, lines

UNITS = " (units: ns, us, ms, s, m, h)"


def assert_one_error_line(p, api, message):
    """Exit 2, nothing on stdout, exactly `<time> error MESSAGE` on stderr, no request made."""
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    assert re.fullmatch(r"\S+ error " + re.escape(message) + r"\n", p.stderr), p.stderr
    assert api.requests == [], api.requests


@pytest.mark.parametrize("args,message", [
    (["close", "--kustomization", "apps-rw"], "unknown flag --kustomization; did you mean --kustomizations?"),
    (["close", "--kustomization=apps-rw"], "unknown flag --kustomization; did you mean --kustomizations?"),
    (["status", "--all-namespace"], "unknown flag --all-namespace; did you mean --all-namespaces?"),
    (["--context", "x", "close", "apps-rw", "--dryrun"], "unknown flag --dryrun; did you mean --dry-run?"),
    (["close", "apps-rw", "--zzzzz"], "unknown flag --zzzzz for close (see 'windowctl close --help')"),
    (["clsoe", "apps-rw"], 'unknown command "clsoe"; did you mean close?'),
    (["resmue", "apps-rw"], 'unknown command "resmue"; did you mean resume?'),
    (["help", "stauts"], 'unknown command "stauts"; did you mean status?'),
    (["close", "apps-rw", "--kind", "kustomizaton"], 'unknown --kind "kustomizaton"; did you mean Kustomization?'),
    (["status", "--kind", "helmrel"], 'unknown --kind "helmrel"; did you mean HelmRelease?'),
    (["close", "--targets", "ks/infra,kustomizaton/apps-rw"],
     'unknown kind "kustomizaton" in --targets entry "kustomizaton/apps-rw"; did you mean Kustomization?'),
    (["sync", "apps-rw", "--window", "0 8 * * MON-FRI for 9h in Europe/Zurch"],
     'unknown time zone "Europe/Zurch": no such file in /usr/share/zoneinfo; did you mean Europe/Zurich?'),
    (["schedule", "--window", "0 8 * * * to 0 17 * * * in america/new_york"],
     'unknown time zone "america/new_york": no such file in /usr/share/zoneinfo; did you mean America/New_York?'),
    (["close", "apps-rw", "--for", "1d"], 'invalid --for "1d": no unit "d": use 24h' + UNITS),
    (["open", "apps-rw", "--for", "2w"], 'invalid --for "2w": no unit "w": use 336h' + UNITS),
    (["open", "apps-rw", "--wait", "--timeout", "1w"], 'invalid --timeout "1w": no unit "w": use 168h' + UNITS),
    (["close", "apps-rw", "--request-timeout", "1.5d"], 'invalid --request-timeout "1.5d": no unit "d": 1d is 24h' + UNITS),
    (["close", "apps-rw", "--request-timeout", "30"], 'invalid --request-timeout "30": no unit' + UNITS),
    (["schedule", "--window", "0 8 * * * for 1d"],
     'invalid window "0 8 * * * for 1d": duration "1d": no unit "d": use 24h' + UNITS),
])
def test_a_mistyped_word_is_named_with_the_fix(wctl, api, args, message):
    assert_one_error_line(wctl.run(*args), api, message)


def test_the_fix_is_said_in_json_logs_too(wctl, api):
    p = wctl.run("close", "--kustomization", "apps-rw", "--log-format", "json")
    assert p.returncode == 2 and api.requests == []
    (line,) = lines(p.stderr)
    assert json.loads(line)["msg"] == "unknown flag --kustomization; did you mean --kustomizations?"


@pytest.mark.parametrize("reason", [
    "INC-1234\tDB migration", "two\nlines", "carriage\rreturn", "\x1b[31mred\x1b[0m", "bell\x07", "del\x7f",
    "next line\u0085", "csi\u009b2J",
])
def test_a_reason_with_a_control_character_is_refused_before_any_request(wctl, api, reason):
    p = wctl.run("close", "apps-rw", "--reason", reason)
    assert_one_error_line(p, api, "--reason has a control character (tab, newline, ESC, ...): give one line")
    assert not wctl.suspended("apps-rw")


def test_a_printable_reason_still_closes(wctl, api):
    p = wctl.run("close", "apps-rw", "--reason", "INC-1234: déploiement — “freeze” ✓")
    assert p.returncode == 0, p.stderr
    assert wctl.obj("apps-rw")["metadata"]["annotations"]["windowctl.io/reason"] == "INC-1234: déploiement — “freeze” ✓"


def error_lines(stderr, needle):
    return [line for line in lines(stderr) if needle in line]


def test_401_in_cluster_names_the_token_file_and_service_account(wctl, api):
    api.set_token(SA_USER, "someone-elses-token", update_files=False)
    p = wctl.run("close", "apps-rw", "infra")
    assert p.returncode == 1
    hint = (f"ServiceAccount token {wctl.sa_dir}/token ({SA_USER}): the API server does not accept these credentials "
            "(expired or revoked?); does the ServiceAccount still exist?")
    # Once, however many requests it refused.
    assert [line.split(" error ", 1)[1] for line in error_lines(p.stderr, "does not accept")] == [hint]
    assert "flux-system/apps-rw: unauthorized" in p.stderr and "flux-system/infra: unauthorized" in p.stderr
    assert api.writes == 0


def test_401_with_a_kubeconfig_names_the_context_and_user(wctl, api):
    api.add_user("alice", token="alice-token")
    path = api.write_kubeconfig(str(wctl.tmp / "kc"), "alice", context="prod")
    wctl.secrets.add("alice-token")
    api.set_token("alice", "alice-new-token")
    wctl.secrets.add("alice-new-token")
    p = wctl.run("close", "apps-rw", "--kubeconfig", path, mode="kubeconfig")
    assert p.returncode == 1
    assert [line.split(" error ", 1)[1] for line in error_lines(p.stderr, "does not accept")] == [
        f"kubeconfig {path}, context prod, user alice: the API server does not accept these credentials "
        "(expired or revoked?); log in again or renew them"]


def test_403_names_who_may_not_do_what_and_the_rbac_fix(wctl, api):
    api.add_user("readonly", token="readonly-token", rules=[
        {"namespace": "flux-system", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": [KS],
         "verbs": ["get", "list"]}])
    path = api.write_kubeconfig(str(wctl.tmp / "kc"), "readonly", context="staging")
    wctl.secrets.add("readonly-token")
    p = wctl.run("close", "apps-rw", "infra", "--kubeconfig", path, mode="kubeconfig")
    assert p.returncode == 1
    # Both targets fail as before; the hint comes once.
    assert len(error_lines(p.stderr, ": forbidden: User")) == 2
    assert [line.split(" error ", 1)[1] for line in error_lines(p.stderr, "may not")] == [
        f"kubeconfig {path}, context staging, user readonly may not patch kustomizations.kustomize.toolkit.fluxcd.io "
        "in namespace flux-system: grant it with an RBAC Role and RoleBinding (windowctl's are in kustomize/base/access)"]
    assert api.writes == 0


def test_403_on_a_cluster_wide_list_names_the_cluster_role(wctl, api):
    api.add_user(SA_USER, token=wctl.token, rules=[
        {"namespace": "flux-system", "apiGroups": ["helm.toolkit.fluxcd.io"], "resources": ["helmreleases"],
         "verbs": ["get", "list", "patch"]}])
    p = wctl.run("status", "-A", "--kind", "hr")
    assert p.returncode == 1
    assert [line.split(" error ", 1)[1] for line in error_lines(p.stderr, "may not")] == [
        f"ServiceAccount token {wctl.sa_dir}/token ({SA_USER}) may not list helmreleases.helm.toolkit.fluxcd.io "
        "cluster-wide: grant it with an RBAC ClusterRole and ClusterRoleBinding (windowctl's are in "
        "kustomize/components/all-namespaces)"]


def test_403_on_a_list_in_cluster_names_the_service_account(wctl, api):
    api.add_user(SA_USER, token=wctl.token, rules=[
        {"namespace": "flux-system", "apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": [KS],
         "verbs": ["get", "patch"]}])
    p = wctl.run("close", "-l", "window=rw")
    assert p.returncode == 1
    assert [line.split(" error ", 1)[1] for line in error_lines(p.stderr, "may not")] == [
        f"ServiceAccount token {wctl.sa_dir}/token ({SA_USER}) may not list "
        "kustomizations.kustomize.toolkit.fluxcd.io in namespace flux-system: grant it with an RBAC Role and RoleBinding "
        "(windowctl's are in kustomize/base/access)"]
