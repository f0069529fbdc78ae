"""The rendered CronJobs, run exactly as their pods would (args, env, in-cluster config, the
ServiceAccount's token), against the fake API server with exactly the rendered RBAC: Roles and
RoleBindings applied and evaluated as the apiserver does. Proves the RBAC is enough wherever an
overlay puts it, that it is no more (every granted verb is needed), and that the jobs behave as
docs/operations.md says: overrides win over scheduled runs, emergency opens are bounded, held targets
fail the job, and a migration from flux-cli jobs goes through adopt."""
import copy
import datetime
import json
import subprocess

import pytest
import yaml
from hermetic_env import clean_env

from fakekube.flux_samples import ANNOTATION_KINDS, KINDS, resource_of

from deploy_util import (KUSTOMIZE, NS, WINDOWCTL_TARGETS, job_args, job_namespace, of_kind, one, rel, render,
                         render_overlay, render_with_components)

BASE = render(KUSTOMIZE / "base")
BASE_ROLE = one(BASE, "Role", "windowctl")


def jobs_of(docs):
    return {j["metadata"]["name"]: j for j in of_kind(docs, "CronJob")}


def target_namespace(cronjob):
    """Where a job's plain names live: its -n, else its own namespace (FLUX_SYSTEM_NAMESPACE)."""
    args = job_args(cronjob)
    return args[args.index("-n") + 1] if "-n" in args else job_namespace(cronjob)


def _resource(args):
    return "helmreleases" if "HelmRelease" in args else "kustomizations"


def _names(cronjob):
    return job_args(cronjob)[2].split(",")


def _targets(cronjob):
    """(resource, name) of every object a job acts on: --kustomizations of its --kind, or
    --targets KIND/NAME entries of any kind."""
    args = job_args(cronjob)
    if args[1] == "--targets":
        by_kind = {k.lower(): k for k in {**KINDS, **ANNOTATION_KINDS}}
        return [(resource_of(by_kind[k]), n) for k, n in (e.split("/") for e in args[2].split(","))]
    return [(_resource(args), n) for n in _names(cronjob)]


def _ok(p, job):
    assert p.returncode == 0, f"{job['metadata']['name']}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert "could not record Event" not in p.stderr, p.stderr


SCHEDULE_FLAGS = {"--window", "--deny", "--freeze", "--window-calendar", "--deny-calendar"}


def _past(c, name, resource="kustomizations"):
    """Let the object's override expire, as time would."""
    obj = c.obj(name, resource)
    obj["metadata"]["annotations"]["windowctl.io/override-until"] = "2020-01-01T00:00:00Z"
    c.api.put(resource, c.target_ns, name, obj)


def _exercise(c, docs):
    """Every CronJob of a rendering, by what it runs: pairs close then open, sync converges to
    its window now, the emergency open opens for a bounded time and says it was not scheduled."""
    jobs = jobs_of(docs)
    assert jobs, "renders no CronJob"
    for job in jobs.values():
        for resource, n in _targets(job):
            if n not in {o["metadata"]["name"] for o in c.api.list(resource, c.target_ns)}:
                c.add_target(n, resource)
    for name, job in sorted(jobs.items()):
        args, targets = job_args(job), _targets(job)
        if args[0] == "close":
            _ok(c.run_job(job), job)
            assert all(c.suspended(n, r) for r, n in targets), name
            _ok(c.run_job(jobs[name.replace("windowctl-close", "windowctl-open", 1)]), job)
            assert not any(c.suspended(n, r) for r, n in targets), name
        elif args[0] == "sync":
            # The job's own windows, calendars included (at their mounted paths), as schedule reads them.
            mounted = c.mounted(job)
            flags = [a for i, a in enumerate(mounted) if i > 0 and mounted[i - 1] in SCHEDULE_FLAGS or a in SCHEDULE_FLAGS]
            sched = subprocess.run([c.bin, "schedule", *flags, "-o", "json"], capture_output=True,
                                   text=True, env=c._env())
            assert sched.returncode == 0, sched.stderr
            open_now = json.loads(sched.stdout)["open"]
            _ok(c.run_job(job), job)
            assert [c.suspended(n, r) for r, n in targets] == [not open_now] * len(targets), args
        elif "emergency" in name:
            for r, n in targets:  # closed, as outside the window
                assert c.run(["close", "--kustomizations", n, "-n", c.target_ns, "--kind", r]).returncode == 0
            before = {e["metadata"]["name"] for e in c.api.events(c.target_ns)}
            _ok(c.run_job(job), job)
            for r, n in targets:
                ann = c.annotations(n, r)
                assert not c.suspended(n, r)
                assert ann["windowctl.io/override"] == "open"
                until = datetime.datetime.fromisoformat(ann["windowctl.io/override-until"].replace("Z", "+00:00"))
                left = until - datetime.datetime.now(datetime.timezone.utc)
                assert datetime.timedelta(hours=1, minutes=58) < left <= datetime.timedelta(hours=2), "bounded: 2h"
                assert "schedul" not in ann["windowctl.io/override-reason"].replace("not the schedule", "")
                assert ann["windowctl.io/override-by"] == f"system:serviceaccount:{job_namespace(job)}:windowctl"
            opened = [e["message"] for e in c.api.events(c.target_ns)
                      if e["reason"] == "WindowOpened" and e["metadata"]["name"] not in before]
            assert len(opened) == len(targets) and not any("scheduled" in m for m in opened), opened
        else:
            assert args[0] == "open", name


@pytest.mark.parametrize("target", WINDOWCTL_TARGETS, ids=rel)
def test_every_job_of_every_example_works_with_its_own_rbac(cluster, target):
    docs = render(target)
    namespaces = {target_namespace(j) for j in of_kind(docs, "CronJob")}
    assert len(namespaces) == 1, namespaces
    _exercise(cluster(docs, target_ns=namespaces.pop()), docs)


@pytest.mark.parametrize("ns", ["jobs", "team-a"])
def test_the_base_is_relocatable_with_namespace(cluster, tmp_path, ns):
    """An overlay that only sets `namespace:` moves the jobs, the ServiceAccount, the Role and the
    binding's subject together; the jobs then act on Kustomizations of that namespace."""
    docs = render_overlay(tmp_path / ns, {"namespace": ns, "resources": ["examples/weekly"]})
    binding = one(docs, "RoleBinding", "windowctl")
    assert binding["metadata"]["namespace"] == ns
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "windowctl", "namespace": ns}]
    c = cluster(docs, target_ns=ns)
    _exercise(c, docs)
    assert not c.suspended("apps-rw", ns=NS), "the flux-system copies are not this overlay's business"


def test_a_binding_to_the_wrong_namespace_is_forbidden(cluster, tmp_path):
    """The control for the test above: the subject the base used to hard-code (flux-system) is
    refused once the jobs run elsewhere, so the fake's RBAC really follows the bindings."""
    docs = render_overlay(tmp_path / "wrong", {"namespace": "jobs", "resources": ["examples/weekly"]})
    one(docs, "RoleBinding", "windowctl")["subjects"][0]["namespace"] = NS
    c = cluster(docs, target_ns="jobs")
    p = c.run_job(jobs_of(docs)["windowctl-close"])
    assert p.returncode == 1 and "forbidden" in p.stderr, p.stderr
    assert not c.suspended("apps-rw")


def test_jobs_namespace_layout_is_least_privilege(cluster):
    docs = render(KUSTOMIZE / "examples" / "jobs-namespace")
    assert {job_namespace(j) for j in of_kind(docs, "CronJob")} == {"jobs"}
    assert [(r["metadata"]["namespace"]) for r in of_kind(docs, "Role")] == [NS]
    c = cluster(docs)
    c.api.put("namespaces", "", "jobs", {})
    c.add_target("apps-rw", ns="jobs")
    # Without -n the same job would act in its own namespace, where it holds no rights at all.
    close = copy.deepcopy(jobs_of(docs)["windowctl-close"])
    args = job_args(close)
    del args[args.index("-n"):args.index("-n") + 2]
    p = c.run_job(close)
    msgs = [json.loads(line)["msg"] for line in p.stderr.splitlines()]
    assert p.returncode == 1, p.stderr
    assert any('cannot get resource "kustomizations"' in m and 'in the namespace "jobs"' in m for m in msgs), msgs
    assert not c.suspended("apps-rw", ns="jobs")


def test_sync_with_the_jobs_in_another_namespace(cluster, windowctl_bin):
    """examples/jobs-namespace-sync: the sync job runs in jobs as a ServiceAccount the render has,
    with exactly the rendered RBAC, and windows apps-rw in flux-system; check finds nothing."""
    docs = render(KUSTOMIZE / "examples" / "jobs-namespace-sync")
    assert {job_namespace(j) for j in of_kind(docs, "CronJob")} == {"jobs"}
    assert [(a["metadata"]["namespace"], a["metadata"]["name"]) for a in of_kind(docs, "ServiceAccount")] == [
        ("jobs", "windowctl")]
    assert {j["spec"]["jobTemplate"]["spec"]["template"]["spec"]["serviceAccountName"]
            for j in of_kind(docs, "CronJob")} == {"windowctl"}
    checked = subprocess.run([windowctl_bin, "check", "-f", "-", "-o", "json"], input=yaml.safe_dump_all(docs),
                             capture_output=True, text=True, env=clean_env(), timeout=60)
    assert (checked.returncode, json.loads(checked.stdout)["findings"]) == (0, []), checked.stdout
    jobs = jobs_of(docs)
    sync = copy.deepcopy(jobs["windowctl-sync"])
    args = job_args(sync)
    args[args.index("--window") + 1] = "0 0 29 2 * for 1m"  # as good as always closed
    c = cluster(docs)
    _ok(c.run_job(sync), sync)
    assert c.suspended("apps-rw")
    args[args.index("--window") + 1] = "* * * * * for 2m"  # always open
    _ok(c.run_job(sync), sync)
    assert not c.suspended("apps-rw")


def _without(role, rule_index, verb):
    role = copy.deepcopy(role)
    rule = role["rules"][rule_index]
    rule["verbs"].remove(verb)
    if not rule["verbs"]:
        del role["rules"][rule_index]
    return role


DROPS = [(i, v) for i, rule in enumerate(BASE_ROLE["rules"]) for v in rule["verbs"]]


@pytest.mark.parametrize("job", ["windowctl-close", "windowctl-open", "windowctl-emergency-open"])
@pytest.mark.parametrize("rule_index,verb", DROPS,
                         ids=[f"-{v}:{BASE_ROLE['rules'][i]['resources'][0]}" for i, v in DROPS])
def test_every_granted_verb_is_needed(cluster, job, rule_index, verb):
    docs = [d if d["kind"] != "Role" else _without(BASE_ROLE, rule_index, verb) for d in BASE]
    c = cluster(docs)
    if job != "windowctl-close":
        assert c.run(["close", "--kustomizations", "apps-rw"]).returncode == 0  # as the close job would have
    was_suspended = c.suspended("apps-rw")
    p = c.run_job(jobs_of(BASE)[job])
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


ALL_KINDS = render(KUSTOMIZE / "examples" / "all-kinds")
ALL_KINDS_ROLE = one(ALL_KINDS, "Role", "windowctl")
GROUP_DROPS = [(i, v) for i, rule in enumerate(ALL_KINDS_ROLE["rules"]) for v in rule["verbs"]
               if rule["apiGroups"][0].endswith(("source.toolkit.fluxcd.io", "image.toolkit.fluxcd.io",
                                                 "notification.toolkit.fluxcd.io", "fluxcd.controlplane.io",
                                                 "source.extensions.fluxcd.io"))]


@pytest.mark.parametrize("rule_index,verb", GROUP_DROPS,
                         ids=[f"-{v}:{ALL_KINDS_ROLE['rules'][i]['apiGroups'][0]}" for i, v in GROUP_DROPS])
def test_every_verb_of_the_group_components_is_needed(cluster, rule_index, verb):
    """The --targets job of examples/all-kinds with one verb of one group component taken away:
    the targets of that group fail (exit 1, forbidden), the others of the same run still close."""
    docs = [d if d["kind"] != "Role" else _without(ALL_KINDS_ROLE, rule_index, verb) for d in ALL_KINDS]
    job = jobs_of(ALL_KINDS)["windowctl-close-flux"]
    c = cluster(docs)
    for resource, n in _targets(job):
        c.add_target(n, resource)
    group = ALL_KINDS_ROLE["rules"][rule_index]["apiGroups"][0]
    p = c.run_job(job)
    assert p.returncode == 1, f"exit {p.returncode}\n{p.stderr}"
    assert "forbidden" in p.stderr and f"cannot {verb}" in p.stderr, p.stderr
    for resource, n in _targets(job):
        in_group = resource in ALL_KINDS_ROLE["rules"][rule_index]["resources"]
        assert c.suspended(n, resource) != in_group, (group, resource, n)


def test_an_override_wins_over_the_scheduled_jobs_until_it_expires(cluster):
    docs = render(KUSTOMIZE / "examples" / "weekly")
    jobs = jobs_of(docs)
    c = cluster(docs)
    # An operator freezes: the scheduled open keeps it closed, says why, and is green.
    p = c.run(["close", "--kustomizations", "apps-rw", "--for", "12h", "--reason", "INC-7 freeze"])
    assert p.returncode == 0, p.stderr
    p = c.run_job(jobs["windowctl-open"])
    _ok(p, jobs["windowctl-open"])
    assert c.suspended("apps-rw")
    assert p.stdout.startswith("flux-system/apps-rw already closed, kept closed by override closed until "), p.stdout
    assert "by admin (INC-7 freeze)" in p.stdout
    _past(c, "apps-rw")
    p = c.run_job(jobs["windowctl-open"])
    _ok(p, jobs["windowctl-open"])
    assert not c.suspended("apps-rw") and "windowctl.io/override" not in c.annotations("apps-rw")
    assert p.stdout == "flux-system/apps-rw opened, override cleared\n", p.stdout

    # The emergency open survives the scheduled close; after it expires, the close closes.
    _ok(c.run_job(jobs["windowctl-close"]), jobs["windowctl-close"])
    _ok(c.run_job(jobs["windowctl-emergency-open"]), jobs["windowctl-emergency-open"])
    assert not c.suspended("apps-rw")
    p = c.run_job(jobs["windowctl-close"])
    _ok(p, jobs["windowctl-close"])
    assert not c.suspended("apps-rw") and "kept open by override open until" in p.stdout, p.stdout
    _past(c, "apps-rw")
    _ok(c.run_job(jobs["windowctl-close"]), jobs["windowctl-close"])
    assert c.suspended("apps-rw")
    # A plain open by an operator still replaces an override, as before.
    assert c.run(["close", "--kustomizations", "apps-rw", "--for", "1h"]).returncode == 0
    assert c.run(["open", "--kustomizations", "apps-rw"]).returncode == 0
    assert not c.suspended("apps-rw") and "windowctl.io/override" not in c.annotations("apps-rw")


def test_sync_respects_the_emergency_open(cluster):
    docs = render(KUSTOMIZE / "examples" / "sync")
    jobs = jobs_of(docs)
    sync = copy.deepcopy(jobs["windowctl-sync"])
    args = job_args(sync)
    args[args.index("--window") + 1] = "0 0 29 2 * for 1m"  # as good as always closed
    c = cluster(docs)
    _ok(c.run_job(sync), sync)
    assert c.suspended("apps-rw")
    _ok(c.run_job(jobs["windowctl-emergency-open"]), jobs["windowctl-emergency-open"])
    _ok(c.run_job(sync), sync)
    assert not c.suspended("apps-rw"), "the override holds it open"
    _past(c, "apps-rw")
    _ok(c.run_job(sync), sync)
    assert c.suspended("apps-rw"), "bounded: closed at the first tick after the override"


def _flux_suspend(c, name):
    """What `flux suspend kustomization NAME` sends (the sample's close job)."""
    import http.client
    import ssl
    ctx = ssl.create_default_context(cafile=c.api.ca_path)
    conn = http.client.HTTPSConnection("127.0.0.1", c.api.port, context=ctx)
    token = c.api.add_user("system:serviceaccount:jobs:sa-job-runner", cluster_admin=True)
    conn.request("PATCH", f"/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/{c.target_ns}/kustomizations/{name}"
                 "?fieldManager=flux", body=json.dumps({"spec": {"suspend": True}}),
                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/merge-patch+json"})
    assert conn.getresponse().status == 200


def test_migration_from_flux_cli_jobs_goes_through_adopt(cluster):
    """The migration guide (docs/operations.md), step by step: the old close job left apps-rw suspended without
    windowctl's mark; the new open job would hold it (and fail, --fail-on-held); adopt marks it;
    the open job then resumes it; status shows who suspended what along the way."""
    docs = render(KUSTOMIZE / "examples" / "jobs-namespace")
    jobs = jobs_of(docs)
    c = cluster(docs)
    _flux_suspend(c, "apps-rw")

    p = c.run(["status", "--kustomizations", "apps-rw,apps-rt", "-n", NS])
    assert p.returncode == 0 and "someone else" in p.stdout, p.stdout
    p = c.run(["status", "--kustomizations", "apps-rw,apps-rt", "-n", NS, "--fail-on-held"])
    assert p.returncode == 1 and "apps-rw: held" in p.stderr, p.stderr

    p = c.run_job(jobs["windowctl-open"])
    assert p.returncode == 1, "held fails the shipped open job"
    # The flux CLI's write is in managedFields (its User-Agent names the manager): open names it.
    assert p.stdout == "flux-system/apps-rw held: suspended by someone else (flux)\n", p.stdout
    assert c.suspended("apps-rw")

    p = c.run(["adopt", "--kustomizations", "apps-rw,apps-rt", "-n", NS, "--dry-run"])
    assert p.returncode == 0 and "would adopt" in p.stdout and c.suspended("apps-rw")
    assert "windowctl.io/suspended-by" not in c.annotations("apps-rw")
    p = c.run(["adopt", "--kustomizations", "apps-rw,apps-rt", "-n", NS, "--reason", "migrated", "-o", "json"])
    assert p.returncode == 0, p.stderr
    results = {r["name"]: r for r in json.loads(p.stdout)["results"]}
    assert results["apps-rw"]["result"] == "adopted" and results["apps-rw"]["changed"] is True
    assert results["apps-rt"]["result"] == "already-open" and results["apps-rt"]["changed"] is False
    ann = c.annotations("apps-rw")
    assert ann["windowctl.io/suspended-by"] == "windowctl" and ann["windowctl.io/reason"] == "migrated"
    assert "WindowAdopted" in [e["reason"] for e in c.api.events(NS) if e["involvedObject"]["name"] == "apps-rw"]

    p = c.run_job(jobs["windowctl-open"])
    _ok(p, jobs["windowctl-open"])
    assert p.stdout == "flux-system/apps-rw opened\n" and not c.suspended("apps-rw")


def test_pinned_role_refuses_other_kustomizations(cluster):
    docs = render(KUSTOMIZE / "examples" / "pinned")
    close = copy.deepcopy(jobs_of(docs)["windowctl-close"])
    job_args(close)[2] = "apps-rt"
    c = cluster(docs)
    p = c.run_job(close)
    assert p.returncode == 1 and "forbidden" in p.stderr, p.stderr
    assert not c.suspended("apps-rt")


def test_selecting_by_label_needs_the_selectors_component(cluster, tmp_path):
    def by_label(docs):
        job = copy.deepcopy(jobs_of(docs)["windowctl-close"])
        args = job_args(job)
        args[1:3] = ["-l", "window=rw"]
        return job

    p = cluster(BASE).run_job(by_label(BASE))
    assert p.returncode != 0 and "forbidden" in p.stderr and "cannot list" in p.stderr, p.stderr

    docs = render_with_components(tmp_path / "sel", KUSTOMIZE / "base", KUSTOMIZE / "components" / "selectors")
    c = cluster(docs)
    p = c.run_job(by_label(docs))
    assert p.returncode == 0, p.stderr
    assert c.suspended("apps-rw") and not c.suspended("apps-rt")


def test_all_namespaces_needs_the_all_namespaces_component(cluster, tmp_path):
    def close_everywhere(docs):
        job = copy.deepcopy(jobs_of(docs)["windowctl-close"])
        args = job_args(job)
        args[1:3] = ["-A", "-l", "window=rw"]
        return job

    c = cluster(BASE)
    c.api.put("namespaces", "", "team-b", {})
    c.add_target("web", ns="team-b")
    p = c.run_job(close_everywhere(BASE))
    assert p.returncode != 0 and "forbidden" in p.stderr and "cannot list" in p.stderr, p.stderr
    assert not c.suspended("web", ns="team-b")

    docs = render_with_components(tmp_path / "all", KUSTOMIZE / "base", KUSTOMIZE / "components" / "all-namespaces")
    c = cluster(docs)
    c.api.put("namespaces", "", "team-b", {})
    c.add_target("web", ns="team-b")
    p = c.run_job(close_everywhere(docs))
    assert p.returncode == 0, p.stderr
    assert c.suspended("apps-rw") and c.suspended("web", ns="team-b") and not c.suspended("apps-rt")
    assert sorted(p.stdout.splitlines()) == ["flux-system/apps-rw closed", "team-b/web closed"], p.stdout
