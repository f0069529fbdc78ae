"""windowctl check: the real binary over the manifest sets in tests/testdata/check (one that
triggers each rule, one that does not), stdin, JSON output, exit codes, and the shipped
kustomize examples, which must come out without an error finding."""
import json
import pathlib
import shutil
import subprocess

import pytest
from hermetic_env import clean_env

from e2e_util import REPO, binary

DATA = REPO / "tests" / "testdata" / "check"
RULES = sorted({p.name.split("-")[0] for p in DATA.iterdir() if p.is_dir()})
WARNINGS = {"WC003", "WC006"}


def check(*args, stdin=None):
    return subprocess.run([binary(), "check", *args], input=stdin, capture_output=True, text=True, timeout=60,
                          env=clean_env())


def findings(proc):
    return json.loads(proc.stdout)["findings"]


def test_every_rule_has_a_triggering_and_a_clean_set():
    assert RULES == [f"WC{n:03}" for n in range(1, 11)]
    for rule in RULES:
        assert (DATA / f"{rule}-bad").is_dir() and (DATA / f"{rule}-good").is_dir()


@pytest.mark.parametrize("rule", RULES)
def test_triggering_set(rule):
    p = check("-f", str(DATA / f"{rule}-bad"), "-o", "json")
    ids = {f["id"] for f in findings(p)}
    assert rule in ids, p.stdout
    found = [f for f in findings(p) if f["id"] == rule][0]
    assert set(found) == {"id", "severity", "object", "message"}
    assert found["severity"] == ("warning" if rule in WARNINGS else "error")
    assert found["object"].count("/") == 2
    # Exit 1 exactly when an error-level finding exists.
    assert p.returncode == (1 if any(f["severity"] == "error" for f in findings(p)) else 0), p.stderr
    text = check("-f", str(DATA / f"{rule}-bad"))
    assert text.returncode == p.returncode
    assert f"{found['severity']} {rule} {found['object']}: " in text.stdout
    assert len(text.stdout.splitlines()) == len(findings(p))


@pytest.mark.parametrize("rule", RULES)
def test_clean_set(rule):
    p = check("-f", str(DATA / f"{rule}-good"))
    assert (p.returncode, p.stdout) == (0, "")
    (line,) = p.stderr.splitlines()  # what it read, and nothing else
    assert " info no findings in " in line, line


def test_files_and_stdin_combine():
    jobs = (DATA / "WC001-bad" / "jobs.yaml").read_text()
    p = check("-f", "-", "-f", str(DATA / "WC001-bad" / "kustomizations.yaml"), "-o", "json", stdin=jobs)
    assert p.returncode == 1
    assert [f["id"] for f in findings(p)] == ["WC001"]
    assert findings(p)[0]["object"] == "Kustomization/flux-system/web"
    # Without the jobs the Kustomization is not windowed: nothing to say.
    p = check("-f", str(DATA / "WC001-bad" / "kustomizations.yaml"), "-o", "json")
    assert (p.returncode, findings(p)) == (0, [])


@pytest.mark.parametrize("args,stdin,message", [
    (["-f", "/nonexistent/x.yaml"], None, "cannot read /nonexistent/x.yaml"),
    (["-f", "-"], "kind: A\n  b: [\n", "-: invalid YAML at line"),
    (["-f", "-"], "- 1\n", "-, document 1 is not a Kubernetes object"),
    (["-f", "-"], "metadata: {}\n", "-, document 1 has no kind"),
    # Without -f, check goes to the cluster (test_check_online.py): its configuration must read.
    (["--kubeconfig", "/nonexistent"], None, "cannot read kubeconfig /nonexistent"),
])
def test_bad_input_is_exit_2_with_one_line(args, stdin, message):
    p = check(*args, stdin=stdin)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stdout == ""


def test_input_over_the_cap_is_refused():
    p = check("-f", "-", stdin="#" * (64 * 1024 * 1024 + 1))
    assert p.returncode == 2
    assert "larger than 64 MiB" in p.stderr


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl renders the examples")
@pytest.mark.parametrize("example", sorted(p.name for p in (REPO / "kustomize" / "examples").iterdir()))
def test_shipped_examples_are_clean(example):
    rendered = subprocess.run(["kubectl", "kustomize", str(REPO / "kustomize" / "examples" / example)],
                              capture_output=True, text=True, check=True, timeout=120, env=clean_env()).stdout
    p = check("-f", "-", "-o", "json", stdin=rendered)
    assert p.returncode == 0, p.stdout + p.stderr
    assert [f for f in findings(p) if f["severity"] == "error"] == []


def test_an_example_with_a_mistake_is_caught():
    """The examples' cleanliness means something: the same render with the close job moved to the
    open job's minute is an error."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl renders the examples")
    rendered = subprocess.run(["kubectl", "kustomize", str(REPO / "kustomize" / "examples" / "weekly")],
                              capture_output=True, text=True, check=True, timeout=120, env=clean_env()).stdout
    broken = rendered.replace("schedule: 0 17 * * 4", "schedule: 0 8 * * 1")
    assert broken != rendered
    p = check("-f", "-", "-o", "json", stdin=broken)
    assert p.returncode == 1
    assert [f["id"] for f in findings(p)] == ["WC008"]


def test_at_makes_a_run_repeatable_and_a_clean_run_says_what_it_read():
    # A weekday 07:00-07:03 sync window against a 5-minute tick: missed on every day, at any --at.
    for at in ("2026-01-05T00:00:00Z", "2031-06-30T12:00:00Z"):
        p = check("-f", str(DATA / "WC005-bad"), "--at", at, "-o", "json")
        assert p.returncode == 1 and [f["id"] for f in findings(p)] == ["WC005"], p.stderr
    p = check("-f", str(DATA / "WC005-good"), "--at", "2026-01-05T00:00:00Z")
    assert p.returncode == 0 and p.stdout == ""
    (line,) = p.stderr.splitlines()
    assert line.endswith(" info no findings in 1 object"), line
    p = check("-f", str(DATA / "WC005-good"), "--at", "monday")
    assert p.returncode == 2 and 'invalid --at "monday"' in p.stderr
