"""windowctl check: the real binary over the manifest sets in tests/testdata/check (one that
triggers each rule, one that does not), stdin, JSON output, exit codes, and the shipped
kustomize examples, which must come out without an error finding."""
import json
import pathlib
import shutil
import subprocess

import pytest
import yaml
from hermetic_env import clean_env

from e2e_util import KS, REPO, binary

DATA = REPO / "tests" / "testdata" / "check"
RULES = sorted({p.name.split("-")[0] for p in DATA.iterdir() if p.is_dir()})
WARNINGS = {"WC003", "WC006"}


def check(*args, stdin=None):
    return subprocess.run([binary(), "check", *args], input=stdin, capture_output=True, text=True, timeout=60,
                          env=clean_env())


def findings(proc):
    return json.loads(proc.stdout)["findings"]


# Offline, WC016 cannot be checked (only the cluster has the Kustomizations' status.inventory):
# check says so in one line when its jobs window a Kustomization.
WC016_NOTE = " info WC016 (an object that a windowed and another Kustomization both apply) not checked: "


def read_line(proc):
    """The line saying what check read, after the WC016 note (once) when there is one."""
    lines = proc.stderr.splitlines()
    assert len(lines) <= 2 and all(WC016_NOTE in line for line in lines[:-1]), lines
    return lines[-1]


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
    line = read_line(p)  # what it read, and nothing else
    assert " info no findings in " in line, line


def test_files_and_stdin_combine():
    jobs = (DATA / "WC001-bad" / "jobs.yaml").read_text()
    p = check("-f", "-", "-f", str(DATA / "WC001-bad" / "kustomizations.yaml"), "-o", "json", stdin=jobs)
    assert p.returncode == 1
    assert [f["id"] for f in findings(p)] == ["WC001"]
    assert findings(p)[0]["object"] == "Kustomization/flux-system/web"
    # Without the jobs the Kustomization is not windowed, and check says it had no job to check.
    p = check("-f", str(DATA / "WC001-bad" / "kustomizations.yaml"), "-o", "json")
    assert (p.returncode, [(f["id"], f["object"]) for f in findings(p)]) == (0, [("WC022", "input")])


def test_offline_wc016_is_said_unchecked_once():
    """Manifests hold no inventory: check says once that WC016 needs the cluster, whatever the
    number of files and windowed Kustomizations, and neither guesses a finding nor says it when
    no job windows a Kustomization."""
    jobs = (DATA / "WC001-bad" / "jobs.yaml").read_text()
    for args in (["-o", "json"], []):
        p = check("-f", "-", "-f", str(DATA / "WC001-bad" / "kustomizations.yaml"), "-f", str(DATA / "WC002-bad"),
                  *args, stdin=jobs)
        assert p.returncode == 1
        assert p.stderr.count(WC016_NOTE) == 1, p.stderr
        assert "run check against the cluster" in p.stderr and "WC016" not in p.stdout
    p = check("-f", str(DATA / "WC001-bad" / "kustomizations.yaml"))  # no job
    assert p.returncode == 0 and "WC016" not in p.stderr, p.stderr


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


def _weekly():
    """The weekly example as kubectl renders it: clean (test_shipped_examples_are_clean)."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl renders the examples")
    rendered = subprocess.run(["kubectl", "kustomize", str(REPO / "kustomize" / "examples" / "weekly")],
                              capture_output=True, text=True, check=True, timeout=120, env=clean_env()).stdout
    return list(yaml.safe_load_all(rendered))


def _named(docs, kind, name=None):
    return [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]


def _moved_jobs(docs):
    """The jobs and their ServiceAccount moved to namespace jobs, the RoleBinding's subject left behind."""
    for d in _named(docs, "CronJob") + _named(docs, "ServiceAccount"):
        d["metadata"]["namespace"] = "jobs"
    return docs


def _for_1d(docs):
    job = _named(docs, "CronJob", "windowctl-emergency-open")[0]
    args = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"]
    args[args.index("--for") + 1] = "1d"
    return docs


def _suspend(name):
    def mutate(docs):
        _named(docs, "CronJob", name)[0]["spec"]["suspend"] = True
        return docs
    return mutate


def _placeholder(docs):
    for job in _named(docs, "CronJob"):
        job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] = "windowctl.invalid/windowctl"
    return docs


def _args(docs, name):
    return _named(docs, "CronJob", name)[0]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"]


def _deadline_600(docs):
    """The close job's activeDeadlineSeconds back at 600, with its --overrun 10m: no room."""
    _named(docs, "CronJob", "windowctl-close")[0]["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"] = 600
    return docs


def _bad_overrun(docs):
    args = _args(docs, "windowctl-close")
    args[args.index("--overrun") + 1] = "10 minutes"
    return docs


def _cutoff_beyond_the_window(docs):
    """The sync example's window is 81h; a cutoff of 100h never lets it open."""
    _args(docs, "windowctl-sync").extend(["--cutoff", "100h"])
    return docs


# Mistakes people make with the shipped example, each a setup that cannot work: the findings it
# must give (id, severity, object); everything else the render gives stays as clean as before.
MISTAKES = {
    "jobs moved, binding left behind": (_moved_jobs, {
        ("WC018", "error", "CronJob/jobs/windowctl-close"), ("WC018", "error", "CronJob/jobs/windowctl-open"),
        ("WC018", "error", "CronJob/jobs/windowctl-emergency-open"),
        ("WC019", "warning", "RoleBinding/flux-system/windowctl")}),
    "a flag the binary refuses in the emergency job": (_for_1d, {
        ("WC010", "error", "CronJob/flux-system/windowctl-emergency-open")}),
    "the open half suspended": (_suspend("windowctl-open"), {("WC020", "error", "CronJob/flux-system/windowctl-open")}),
    "the close half suspended": (_suspend("windowctl-close"), {("WC020", "error", "CronJob/flux-system/windowctl-close")}),
    "the placeholder image": (_placeholder, {
        ("WC021", "error", "CronJob/flux-system/windowctl-open"), ("WC021", "error", "CronJob/flux-system/windowctl-close"),
        ("WC021", "warning", "CronJob/flux-system/windowctl-emergency-open")}),
    "no window job": (lambda docs: [d for d in docs if d["kind"] != "CronJob"], {
        ("WC022", "warning", "input")}),
    "a deadline that kills the overrun": (_deadline_600, {("WC024", "error", "CronJob/flux-system/windowctl-close")}),
    "an --overrun the binary refuses": (_bad_overrun, {("WC010", "error", "CronJob/flux-system/windowctl-close")}),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_setup_that_cannot_work_never_passes(mistake):
    mutate, expected = MISTAKES[mistake]
    clean = check("-f", "-", "-o", "json", stdin=yaml.safe_dump_all(_weekly()))
    assert (clean.returncode, findings(clean)) == (0, [])
    p = check("-f", "-", "-o", "json", stdin=yaml.safe_dump_all(mutate(_weekly())))
    got = {(f["id"], f["severity"], f["object"]) for f in findings(p)}
    # WC005 and others may follow from the mistake (a namespace move changes where targets are).
    assert expected <= got, p.stdout
    assert p.returncode == (1 if any(sev == "error" for _, sev, _ in got) else 0)
    text = check("-f", "-", stdin=yaml.safe_dump_all(mutate(_weekly())))
    for rule, severity, obj in expected:
        assert f"{severity} {rule} {obj}: " in text.stdout
    assert "no findings" not in text.stderr


def test_sync_example_with_a_cutoff_longer_than_its_window():
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl renders the examples")
    rendered = subprocess.run(["kubectl", "kustomize", str(REPO / "kustomize" / "examples" / "sync")],
                              capture_output=True, text=True, check=True, timeout=120, env=clean_env()).stdout
    docs = list(yaml.safe_load_all(rendered))
    assert "--overrun" in _args(docs, "windowctl-sync")  # the shipped sync job waits for changes in flight
    p = check("-f", "-", "-o", "json", "--at", "2026-11-25T00:00:00Z", stdin=yaml.safe_dump_all(
        _cutoff_beyond_the_window(docs)))
    assert p.returncode == 0, p.stdout  # a warning
    (found,) = [f for f in findings(p) if f["id"] == "WC023"]
    assert found["severity"] == "warning" and found["object"] == "CronJob/flux-system/windowctl-sync"
    assert "long) are shorter than the job's --cutoff " in found["message"]


def test_at_makes_a_run_repeatable_and_a_clean_run_says_what_it_read():
    # A weekday 07:00-07:03 sync window against a 5-minute tick: missed on every day, at any --at.
    for at in ("2026-01-05T00:00:00Z", "2031-06-30T12:00:00Z"):
        p = check("-f", str(DATA / "WC005-bad"), "--at", at, "-o", "json")
        assert p.returncode == 1 and [f["id"] for f in findings(p)] == ["WC005"], p.stderr
    p = check("-f", str(DATA / "WC005-good"), "--at", "2026-01-05T00:00:00Z")
    assert p.returncode == 0 and p.stdout == ""
    line = read_line(p)
    assert line.endswith(" info no findings in 1 object"), line
    p = check("-f", str(DATA / "WC005-good"), "--at", "monday")
    assert p.returncode == 2 and 'invalid --at "monday"' in p.stderr


# --- check reads a job's args as the binary does ---------------------------------------------------------
# For each way a job can name its targets, the targets check takes the job to act on are exactly
# those the binary acts on when it runs those args (--dry-run) against the fake API server holding
# the same objects. check reads the manifests alone; the binary asks the server, which selects as
# apimachinery does.

TIER_OBJECTS = [  # (resource, namespace, name, labels); the seeded infra, apps-rt, apps-rw, podinfo come along
    (KS, "flux-system", "k1", {"tier": "1", "team": "web"}),
    (KS, "flux-system", "k2", {"tier": "2", "team": "api"}),
    (KS, "flux-system", "k3", {"tier": "3"}),
    (KS, "flux-system", "k10", {"tier": "10"}),  # "10" < "3" as text, 10 > 3 as a number
    (KS, "flux-system", "kx", {"tier": "x"}),    # no number: > and < never select it
    (KS, "flux-system", "knone", {}),
    ("helmreleases", "flux-system", "h1", {"tier": "2"}),
    ("helmreleases", "flux-system", "h2", {}),
    (KS, "apps", "k1", {"tier": "2"}),
    (KS, "apps", "k5", {"tier": "5", "team": "web"}),
    ("helmreleases", "apps", "ha", {"tier": "3"}),
]
FIELD_REF = {"name": "FLUX_SYSTEM_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}
WINDOW = ["--window", "0 8 * * * for 1h"]

HR_QUALIFIED = "helmreleases.helm.toolkit.fluxcd.io"


def job(*args, ns="flux-system", env=(FIELD_REF,)):
    """A window job: its args, its namespace and its container's env."""
    return {"args": list(args), "ns": ns, "env": list(env)}


ARG_FORMS = {
    "selector =": job("close", "-l", "tier=2"),
    "selector ==": job("close", "-l", "tier==2"),
    "selector !=": job("close", "-l", "tier!=2"),
    "selector in": job("close", "-l", "tier in (1,3)"),
    "selector notin": job("close", "-l", "tier notin (1, 3)"),
    "selector exists": job("close", "-l", "tier"),
    "selector !exists": job("close", "-l", "!tier"),
    "selector >": job("close", "-l", "tier>1"),
    "selector <": job("close", "-l", "tier<3"),
    "selector and": job("close", "-l", "tier>0,team,team notin (api)"),
    "--targets KIND/NAME": job("close", "--targets", "kustomization/k1,HelmRelease/h1"),
    "--targets KIND/NS/NAME": job("close", "--targets", "ks/apps/k5,hr/apps/ha",
                                  f"--targets={HR_QUALIFIED}/flux-system/h2"),
    "positional names": job("close", "k1", "apps/k5"),
    "positional comma list": job("close", "k1, k2", "apps/k1"),
    "--kustomizations": job("close", "--kustomizations", "k1,apps/k1", "--kustomizations=k3"),
    "--kind hr with names": job("close", "--kind", "hr", "--kustomizations", "h1,apps/ha"),
    "--kind HelmRelease -l": job("close", "--kind", "HelmRelease", "-l", "tier"),
    "names and --targets of the same object": job("close", "k1", "--targets", "kustomization/k1"),
    "alias suspend": job("suspend", "-l", "tier>1"),
    "alias resume": job("resume", "-l", "tier>1"),
    "sync": job("sync", "-l", "tier>1", *WINDOW),
    "-n": job("close", "-n", "apps", "-l", "tier>1", "k1"),
    "global flags before the command": job("--log-format", "json", "-n", "apps", "close", "-l", "tier in (5)"),
    "FLUX_SYSTEM_NAMESPACE value": job("close", "-l", "tier", "k1",
                                       env=[{"name": "FLUX_SYSTEM_NAMESPACE", "value": "apps"}]),
    "FLUX_SYSTEM_NAMESPACE from the pod's namespace": job("close", "-l", "tier>2", "k1", ns="apps"),
    "-n wins over FLUX_SYSTEM_NAMESPACE": job("close", "-n", "flux-system", "-l", "tier>2", ns="apps"),
    "no FLUX_SYSTEM_NAMESPACE: flux-system": job("close", "-l", "tier>2", ns="apps", env=[]),
    "--all": job("close", "--all"),
    "-A": job("close", "-A", "-l", "tier>2"),
}
COMMANDS = {"suspend": "close", "resume": "open"}  # aliases, as check reports them
# Args the binary refuses (exit 2, nothing sent): check takes the job to act on nothing.
REFUSED_FORMS = {
    "selector > with a word": ["close", "-l", "tier>a"],
    "--targets with an unknown kind": ["close", "--targets", "kustomization/k1,nope/x"],
    "an invalid name": ["close", "k1", "Bad_Name"],
    "-l and --all": ["close", "-l", "tier", "--all"],
}


def window_cronjob(ns, env, args):
    container = {"name": "windowctl", "image": "ghcr.io/example/windowctl:1", "args": args, "env": env}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "window", "namespace": ns},
            "spec": {"schedule": "0 17 * * 4", "jobTemplate": {"spec": {"template": {"spec": {
                "serviceAccountName": "windowctl", "restartPolicy": "Never", "containers": [container]}}}}}}


@pytest.fixture
def tiers(api):
    """The objects in the fake API server, and the same objects as manifests."""
    api.put("namespaces", "", "apps", {})
    spec = {KS: api.get(KS, "flux-system", "infra")["spec"],
            "helmreleases": api.get("helmreleases", "flux-system", "podinfo")["spec"]}
    for resource, ns, name, labels in TIER_OBJECTS:
        api.put(resource, ns, name, {"metadata": {"labels": labels}, "spec": spec[resource]})
    manifests = []
    for resource in (KS, "helmreleases"):
        for obj in api.list(resource):
            meta = obj["metadata"]
            manifests.append({"apiVersion": obj["apiVersion"], "kind": obj["kind"], "spec": obj["spec"], "metadata": {
                "name": meta["name"], "namespace": meta["namespace"], "labels": meta.get("labels", {})}})
    return manifests


def checked_job(tmp_path, manifests, cronjob):
    """The one window job `check -f` reads from the manifests and the CronJob."""
    path = tmp_path / "manifests.yaml"
    path.write_text(yaml.safe_dump_all([*manifests, cronjob]))
    p = check("-f", str(path), "-o", "json")
    assert p.returncode in (0, 1), p.stderr
    (job,) = json.loads(p.stdout)["jobs"]
    assert job["object"] == f"CronJob/{cronjob['metadata']['namespace']}/window"
    return job


def pod_env(ns, env):
    """The environment the job's container gets, as far as windowctl reads it."""
    out = {}
    for e in env:
        out[e["name"]] = e["value"] if "value" in e else ns  # fieldRef metadata.namespace: the pod's namespace
    return out


@pytest.mark.parametrize("form", list(ARG_FORMS))
def test_check_takes_a_job_to_act_on_what_the_binary_acts_on(wctl, api, tiers, tmp_path, form):
    ns, env, args = ARG_FORMS[form]["ns"], ARG_FORMS[form]["env"], ARG_FORMS[form]["args"]
    verb = next(a for a in args if a in ("close", "open", "sync", "suspend", "resume"))
    command = COMMANDS.get(verb, verb)
    p = wctl.run(*args, "--dry-run", "-o", "json", extra_env=pod_env(ns, env))
    assert p.returncode == 0, p.stderr
    acted = {f"{r['kind']}/{r['namespace']}/{r['name']}" for r in json.loads(p.stdout)["results"]}
    assert acted, "the case selects nothing: it proves nothing"
    job = checked_job(tmp_path, tiers, window_cronjob(ns, env, args))
    assert set(job["targets"]) == acted
    assert len(job["targets"]) == len(acted)
    assert (job["command"], job["windowing"]) == (command, command != "open")


@pytest.mark.parametrize("form", list(REFUSED_FORMS))
def test_args_the_binary_refuses_act_on_nothing(wctl, api, tiers, tmp_path, form):
    args = REFUSED_FORMS[form]
    p = wctl.run(*args, "--dry-run", "-o", "json", extra_env={"FLUX_SYSTEM_NAMESPACE": "flux-system"})
    assert (p.returncode, p.stdout) == (2, ""), p.stderr
    job = checked_job(tmp_path, tiers, window_cronjob("flux-system", [FIELD_REF], args))
    assert (job["targets"], job["windowing"]) == ([], False)


def wc001_set(selector):
    ks = [{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
           "metadata": {"name": name, "namespace": "flux-system", "labels": labels}, "spec": spec}
          for name, labels, spec in [("infra", {"tier": "2"}, {}), ("web", {}, {"dependsOn": [{"name": "infra"}]})]]
    return yaml.safe_dump_all([*ks, window_cronjob("flux-system", [FIELD_REF], ["close", "-l", selector])])


@pytest.mark.parametrize("selector", ["tier>1", "tier=2"])
def test_wc001_for_a_dependency_that_a_selector_windows(selector):
    """Issue 19: `close -l tier>1` suspends the Kustomization labelled tier: "2", so one that
    depends on it stops whenever the window is closed, exactly as with `-l tier=2`."""
    p = check("-f", "-", "-o", "json", stdin=wc001_set(selector))
    assert p.returncode == 1, p.stderr
    assert [(f["id"], f["object"]) for f in findings(p)] == [("WC001", "Kustomization/flux-system/web")]
    assert "depends on windowed Kustomization flux-system/infra" in findings(p)[0]["message"]
