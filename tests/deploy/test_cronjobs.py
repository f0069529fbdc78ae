"""Every rendered windowctl CronJob (base and examples) is safe, bounded and runnable."""
import re

import pytest

from deploy_util import KUSTOMIZE, MANIFESTS, WINDOWCTL_TARGETS, job_args, of_kind, pod_spec, rel, render
import restricted

# The base names a placeholder that can never be pulled (.invalid, RFC 2606); every overlay that
# runs jobs maps it to the user's own registry with `images:`.
PLACEHOLDER = "windowctl.invalid/windowctl"
IMAGE = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9._-]+)+(:[\w][\w.-]{0,127})?(@sha256:[0-9a-f]{64})?$")
CRON = re.compile(r"^\S+ \S+ \S+ \S+ \S+$")


def _jobs():
    for target in WINDOWCTL_TARGETS + [MANIFESTS / "clusters" / "prod" / "infra"]:
        docs = render(target)
        jobs = of_kind(docs, "CronJob")
        assert jobs, f"{rel(target)} renders no CronJob"
        for j in jobs:
            yield pytest.param(target, j, docs, id=f"{rel(target)}:{j['metadata']['name']}")


JOBS = list(_jobs())


@pytest.mark.parametrize("target,job,docs", JOBS)
def test_restricted_pod_security(target, job, docs):
    assert restricted.violations(pod_spec(job)) == []
    psc = pod_spec(job)["securityContext"]
    assert psc["runAsUser"] == 65532 and psc["runAsGroup"] == 65532, "the image's numeric user"


@pytest.mark.parametrize("target,job,docs", JOBS)
def test_cronjob_settings(target, job, docs):
    assert job["apiVersion"] == "batch/v1"
    assert job["metadata"]["namespace"] in ("flux-system", "jobs")
    s = job["spec"]
    assert CRON.match(s["schedule"]), s["schedule"]
    assert s["timeZone"] and isinstance(s["suspend"], bool)
    assert s["concurrencyPolicy"] == "Forbid"
    assert s["startingDeadlineSeconds"] > 0
    assert s["successfulJobsHistoryLimit"] >= 1 and s["failedJobsHistoryLimit"] >= 1
    js = s["jobTemplate"]["spec"]
    assert js["backoffLimit"] >= 0 and js["activeDeadlineSeconds"] > 0 and js["ttlSecondsAfterFinished"] > 0
    pod = pod_spec(job)
    assert pod["restartPolicy"] == "Never"
    assert pod["automountServiceAccountToken"] is True
    # The ServiceAccount is in the same rendering (nameSuffix on a window must not rename it).
    assert pod["serviceAccountName"] in {d["metadata"]["name"] for d in of_kind(docs, "ServiceAccount")}


@pytest.mark.parametrize("target,job,docs", JOBS)
def test_container(target, job, docs):
    containers = pod_spec(job)["containers"]
    assert len(containers) == 1
    c = containers[0]
    assert IMAGE.match(c["image"]) and ":" in c["image"].rsplit("/", 1)[-1], f"unpinned image {c['image']}"
    if target != KUSTOMIZE / "base":
        assert not c["image"].startswith(PLACEHOLDER), f"{rel(target)} runs the placeholder image"
    for kind in ("requests", "limits"):
        assert set(c["resources"][kind]) >= {"cpu", "memory"}, f"resources.{kind}"
    assert "command" not in c, "the image's ENTRYPOINT is /windowctl"
    args = job_args(job)
    name = job["metadata"]["name"]
    assert args[0] in ("open", "close", "sync")
    assert args[0] in name, "windowctl-open runs open, windowctl-close runs close"
    assert args[1] in ("--kustomizations", "--targets") and args[2] and " " not in args[2]
    assert not {"-l", "--selector", "--all"} & set(args), "jobs name their targets (the Role has no list)"
    assert args[args.index("--log-format") + 1] == "json"
    # Plain names resolve in the job's own namespace unless it says -n.
    assert {"name": "FLUX_SYSTEM_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}} in c["env"]
    reason = args[args.index("--reason") + 1] if "--reason" in args else ""
    if "emergency" in name:
        # Started by hand only, bounded, and never claiming to be the schedule.
        assert job["spec"]["suspend"] is True and job["spec"]["schedule"] == "0 0 31 2 *"
        assert args[0] == "open" and args[args.index("--for") + 1] == "2h"
        assert "--scheduled" not in args and "--force" not in args
        assert "scheduled window" not in reason and "emergency" in reason
    elif args[0] in ("open", "close"):
        assert "--scheduled" in args and reason == "scheduled window"
        assert ("--fail-on-held" in args) == (args[0] == "open"), "held fails the scheduled open (README)"
    else:
        assert "--fail-on-held" in args


@pytest.mark.parametrize("target", WINDOWCTL_TARGETS, ids=rel)
def test_every_window_has_an_emergency_open_for_the_same_set(target):
    jobs = {j["metadata"]["name"]: job_args(j) for j in of_kind(render(target), "CronJob")}
    scheduled = {n: a for n, a in jobs.items() if "emergency" not in n}
    emergency = {n: a for n, a in jobs.items() if "emergency" in n}
    assert emergency
    for name, args in emergency.items():
        suffix = name.removeprefix("windowctl-emergency-open")
        partners = [a for n, a in scheduled.items() if n.endswith(suffix) and n.count("-") == name.count("-") - 1]
        assert partners, f"{name}: no scheduled job of the same window"
        for a in partners:
            assert a[2] == args[2] and ("HelmRelease" in a) == ("HelmRelease" in args), f"{name} acts on another set"


def test_base_is_off_until_scheduled():
    jobs = of_kind(render(KUSTOMIZE / "base"), "CronJob")
    assert sorted(j["metadata"]["name"] for j in jobs) == ["windowctl-close", "windowctl-emergency-open", "windowctl-open"]
    for j in jobs:
        assert j["spec"]["suspend"] is True and j["spec"]["schedule"] == "0 0 31 2 *"
        assert pod_spec(j)["containers"][0]["image"] == "windowctl.invalid/windowctl:0.2.0"
    assert [job_args(j)[:5] for j in sorted(jobs, key=lambda j: j["metadata"]["name"])] == [
        ["close", "--kustomizations", "apps-rw", "--log-format", "json"],
        ["open", "--kustomizations", "apps-rw", "--log-format", "json"],
        ["open", "--kustomizations", "apps-rw", "--log-format", "json"]]


def test_weekly_schedule():
    jobs = {j["metadata"]["name"]: j["spec"] for j in of_kind(render(KUSTOMIZE / "examples" / "weekly"), "CronJob")}
    assert (jobs["windowctl-open"]["schedule"], jobs["windowctl-close"]["schedule"]) == ("0 8 * * 1", "0 17 * * 4")
    pair = [jobs["windowctl-open"], jobs["windowctl-close"]]
    assert all(s["timeZone"] == "Europe/Zurich" and s["suspend"] is False for s in pair)
    assert jobs["windowctl-emergency-open"]["suspend"] is True


def test_nginx_deployment_is_restricted():
    deploy = of_kind(render(MANIFESTS / "apps" / "nginx-rw"), "Deployment")[0]
    assert restricted.violations(deploy["spec"]["template"]["spec"]) == []
