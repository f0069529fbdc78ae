"""Every rendered windowctl CronJob (base and examples) is safe, bounded and runnable."""
import re

import pytest

from deploy_util import KUSTOMIZE, MANIFESTS, WINDOWCTL_TARGETS, job_args, of_kind, pod_spec, rel, render
import restricted

IMAGE = re.compile(r"^ghcr\.io/windowctl/windowctl(:[\w][\w.-]{0,127})?(@sha256:[0-9a-f]{64})?$")
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
    assert job["metadata"]["namespace"] == "flux-system"
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
    assert IMAGE.match(c["image"]) and ":" in c["image"], f"unpinned or foreign image {c['image']}"
    for kind in ("requests", "limits"):
        assert set(c["resources"][kind]) >= {"cpu", "memory"}, f"resources.{kind}"
    assert "command" not in c, "the image's ENTRYPOINT is /windowctl"
    args = job_args(job)
    assert args[0] in ("open", "close", "sync")
    assert args[0] in job["metadata"]["name"], "windowctl-open runs open, windowctl-close runs close"
    assert args[1] == "--kustomizations" and args[2] and " " not in args[2]
    assert not {"-l", "--selector", "--all"} & set(args), "jobs name their targets (the Role has no list)"
    assert args[args.index("--log-format") + 1] == "json"


def test_base_is_off_until_scheduled():
    jobs = of_kind(render(KUSTOMIZE / "base"), "CronJob")
    assert sorted(j["metadata"]["name"] for j in jobs) == ["windowctl-close", "windowctl-open"]
    for j in jobs:
        assert j["spec"]["suspend"] is True and j["spec"]["schedule"] == "0 0 31 2 *"
    assert [job_args(j)[:5] for j in sorted(jobs, key=lambda j: j["metadata"]["name"])] == [
        ["close", "--kustomizations", "apps-rw", "--log-format", "json"],
        ["open", "--kustomizations", "apps-rw", "--log-format", "json"]]


def test_weekly_schedule():
    jobs = {j["metadata"]["name"]: j["spec"] for j in of_kind(render(KUSTOMIZE / "examples" / "weekly"), "CronJob")}
    assert (jobs["windowctl-open"]["schedule"], jobs["windowctl-close"]["schedule"]) == ("0 8 * * 1", "0 17 * * 4")
    assert all(s["timeZone"] == "Europe/Zurich" and s["suspend"] is False for s in jobs.values())


def test_nginx_deployment_is_restricted():
    deploy = of_kind(render(MANIFESTS / "apps" / "nginx-rw"), "Deployment")[0]
    assert restricted.violations(deploy["spec"]["template"]["spec"]) == []
