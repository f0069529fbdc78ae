"""The rendered CronJobs, run exactly as their pods would (args, in-cluster config, the Role's
rules only), against the fake API server. Proves the Role is enough, and that it is no more:
every verb it grants is needed by a job."""
import copy
import json
import subprocess

import pytest

from deploy_util import KUSTOMIZE, WINDOWCTL_TARGETS, job_args, of_kind, one, rel, render, render_with_components

BASE = render(KUSTOMIZE / "base")
BASE_ROLE = one(BASE, "Role", "windowctl")
BASE_JOBS = {j["metadata"]["name"]: job_args(j) for j in of_kind(BASE, "CronJob")}
CLOSE, OPEN = BASE_JOBS["windowctl-close"], BASE_JOBS["windowctl-open"]


def _resource(args):
    return "helmreleases" if "HelmRelease" in args else "kustomizations"


def test_base_jobs_close_and_open(cluster):
    c = cluster(BASE_ROLE)
    p = c.run(CLOSE)
    assert p.returncode == 0, p.stderr
    assert "could not record Event" not in p.stderr
    ks = c.api.get("kustomizations", "flux-system", "apps-rw")
    assert ks["spec"]["suspend"] is True
    assert ks["metadata"]["annotations"]["windowctl.io/reason"] == "scheduled window"
    assert not c.suspended("apps-rt") and not c.suspended("infra"), "only the named set"

    p = c.run(OPEN)
    assert p.returncode == 0, p.stderr
    assert "could not record Event" not in p.stderr
    ks = c.api.get("kustomizations", "flux-system", "apps-rw")
    assert "suspend" not in ks["spec"]
    assert ks["metadata"]["annotations"].get("reconcile.fluxcd.io/requestedAt")
    reasons = [e["reason"] for e in c.api.events("flux-system")
               if e["involvedObject"]["name"] == "apps-rw"]
    assert "WindowClosed" in reasons and "WindowOpened" in reasons


def _without(role, rule_index, verb):
    role = copy.deepcopy(role)
    rule = role["rules"][rule_index]
    rule["verbs"].remove(verb)
    if not rule["verbs"]:
        del role["rules"][rule_index]
    return role


DROPS = [(i, v) for i, rule in enumerate(BASE_ROLE["rules"]) for v in rule["verbs"]]


@pytest.mark.parametrize("job", ["windowctl-close", "windowctl-open"])
@pytest.mark.parametrize("rule_index,verb", DROPS,
                         ids=[f"-{v}:{BASE_ROLE['rules'][i]['resources'][0]}" for i, v in DROPS])
def test_every_granted_verb_is_needed(cluster, job, rule_index, verb):
    c = cluster(_without(BASE_ROLE, rule_index, verb))
    if job == "windowctl-open":
        # Closed first, as the close job would have done.
        assert c.run(CLOSE, admin=True).returncode == 0
    was_suspended = c.suspended("apps-rw")
    p = c.run(BASE_JOBS[job])
    resource = BASE_ROLE["rules"][rule_index]["resources"][0]
    if resource == "events":
        # The only soft one: the window still moves, but no audit Event is left behind.
        assert p.returncode == 0, p.stderr
        assert "could not record Event" in p.stderr
        assert c.suspended("apps-rw") != was_suspended
    else:
        assert p.returncode == 1, f"exit {p.returncode}\n{p.stderr}"
        assert "forbidden" in p.stderr and f"cannot {verb}" in p.stderr, p.stderr
        assert c.suspended("apps-rw") == was_suspended, "a failed job changed nothing"


def _windows(docs):
    """(close args, open args) per window, paired by name: windowctl-close-X / windowctl-open-X."""
    jobs = {j["metadata"]["name"]: job_args(j) for j in of_kind(docs, "CronJob")}
    return [(args, jobs[name.replace("windowctl-close", "windowctl-open", 1)])
            for name, args in sorted(jobs.items()) if name.startswith("windowctl-close")]


def _check_sync_jobs(c, jobs):
    """A sync job converges its targets to what its window says now (asked of `windowctl schedule`)."""
    for job in jobs:
        args = job_args(job)
        window = args[args.index("--window") + 1]
        names = args[2].split(",")
        sched = subprocess.run([c.bin, "schedule", "--window", window, "-o", "json"], capture_output=True, text=True)
        assert sched.returncode == 0, sched.stderr
        open_now = json.loads(sched.stdout)["open"]
        p = c.run(args)
        assert p.returncode == 0, f"{args}\n{p.stderr}"
        assert "could not record Event" not in p.stderr
        assert [c.suspended(n) for n in names] == [not open_now] * len(names), args


@pytest.mark.parametrize("target", WINDOWCTL_TARGETS, ids=rel)
def test_every_window_of_every_example_works_with_its_own_role(cluster, target):
    docs = render(target)
    c = cluster(one(docs, "Role", "windowctl"))
    sync_jobs = [j for j in of_kind(docs, "CronJob") if job_args(j)[0] == "sync"]
    if sync_jobs:
        return _check_sync_jobs(c, sync_jobs)
    windows = _windows(docs)
    assert windows and len(windows) * 2 == len(of_kind(docs, "CronJob")), "every close has its open"
    for close, open_ in windows:
        resource, names = _resource(close), close[2].split(",")
        assert open_[2] == close[2] and _resource(open_) == resource
        for n in names:
            if n not in {o["metadata"]["name"] for o in c.api.list(resource, "flux-system")}:
                c.add_target(n, resource)
        for args, suspended in ((close, True), (open_, False)):
            p = c.run(args)
            assert p.returncode == 0, f"{args}\n{p.stderr}"
            assert "could not record Event" not in p.stderr
            assert [c.suspended(n, resource) for n in names] == [suspended] * len(names), args


def test_pinned_role_refuses_other_kustomizations(cluster):
    docs = render(KUSTOMIZE / "examples" / "pinned")
    c = cluster(one(docs, "Role", "windowctl"))
    close = _windows(docs)[0][0]
    p = c.run([close[0], "--kustomizations", "apps-rt"] + close[3:])
    assert p.returncode == 1 and "forbidden" in p.stderr, p.stderr
    assert not c.suspended("apps-rt")


def test_selecting_by_label_needs_the_selectors_component(cluster, tmp_path):
    argv = ["close", "-l", "window=rw", "--log-format", "json"]
    p = cluster(BASE_ROLE).run(argv)
    assert p.returncode != 0 and "forbidden" in p.stderr and "cannot list" in p.stderr, p.stderr

    docs = render_with_components(tmp_path / "sel", KUSTOMIZE / "base", KUSTOMIZE / "components" / "selectors")
    c = cluster(one(docs, "Role", "windowctl"))
    p = c.run(argv)
    assert p.returncode == 0, p.stderr
    assert c.suspended("apps-rw") and not c.suspended("apps-rt")
