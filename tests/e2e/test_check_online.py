"""windowctl check against the cluster (the fake API server with the real Flux CRDs): each live
rule fires on a bad setup and stays silent on a good one; one failing target never stops the
rest; the window CronJobs are found by listing batch/v1 CronJobs; permissions come from
SelfSubjectAccessReview, asked only when check runs as the job's own ServiceAccount."""
import json

import pytest

from e2e_util import KS, REPO, SA_USER, valid

LABELS = {"kustomize.toolkit.fluxcd.io/name": "flux-system", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}
RBAC = "rbac.authorization.k8s.io"
# What a window job does (the base's Role, without resourceNames), and what check reads beyond it
# when it runs as the job's ServiceAccount: the CronJobs, the RBAC objects and ServiceAccounts.
JOB_RULES = [{"apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"], "verbs": ["get", "list", "patch"]},
             {"apiGroups": ["helm.toolkit.fluxcd.io"], "resources": ["helmreleases"], "verbs": ["get", "list", "patch"]},
             {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]}]
CHECK_READS = [{"apiGroups": ["batch"], "resources": ["cronjobs"], "verbs": ["list"]},
               {"apiGroups": [RBAC], "resources": ["roles", "rolebindings"], "verbs": ["list"]},
               {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["list"]}]
CLUSTER_READS = [{"apiGroups": [RBAC], "resources": ["clusterroles", "clusterrolebindings"], "verbs": ["list"]}]


def service_account(api, sa, rules, cluster_rules=(), ns="flux-system"):
    """The ServiceAccount, a Role with `rules` and its RoleBinding (and a ClusterRole with its
    ClusterRoleBinding), created through the API: the fake authorizes with them as the apiserver's
    RBAC does, and check reads them."""
    subject = [{"kind": "ServiceAccount", "name": sa, "namespace": ns}]
    api.put("serviceaccounts", ns, sa, {"apiVersion": "v1", "kind": "ServiceAccount"})
    api.put("roles", ns, sa, {"apiVersion": f"{RBAC}/v1", "kind": "Role", "rules": rules})
    api.put("rolebindings", ns, sa, {"apiVersion": f"{RBAC}/v1", "kind": "RoleBinding", "subjects": subject,
                                     "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": sa}})
    if cluster_rules:
        api.put("clusterroles", "", f"{sa}-check", {"apiVersion": f"{RBAC}/v1", "kind": "ClusterRole",
                                                    "rules": list(cluster_rules)})
        api.put("clusterrolebindings", "", f"{sa}-check", {
            "apiVersion": f"{RBAC}/v1", "kind": "ClusterRoleBinding", "subjects": subject,
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": f"{sa}-check"}})


def cronjob(api, name, args, sa="windowctl", zone=None, suspend=False):
    spec = {"schedule": "0 18 * * *", "suspend": suspend, "jobTemplate": {"spec": {"template": {"spec": {
        "serviceAccountName": sa, "restartPolicy": "Never",
        "containers": [{"name": "windowctl", "image": "ghcr.io/example/windowctl:1", "args": args}]}}}}}
    if zone:
        spec["timeZone"] = zone
    api.put("cronjobs", "flux-system", name, {"apiVersion": "batch/v1", "kind": "CronJob", "spec": spec})


def check(wctl, *args, mode="in-cluster"):
    extra = ["--kubeconfig", wctl.kubeconfig("admin")] if mode == "admin" else []
    proc = wctl.run("check", *args, *extra, "-o", "json", mode="kubeconfig" if mode == "admin" else "in-cluster")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == (1 if any(f["severity"] == "error" for f in found) else 0), proc.stderr
    return proc, found


def ids(found):
    return [(f["id"], f["object"]) for f in found]  # in the order check prints them: by object


@pytest.fixture
def setup(api, wctl):
    api.add_user("admin", cluster_admin=True)
    service_account(api, "windowctl", JOB_RULES + CHECK_READS, CLUSTER_READS)
    return api, wctl


def reviews(api):
    return [json.loads(r["body"])["spec"]["resourceAttributes"] for r in api.requests
            if r["path"].endswith("/selfsubjectaccessreviews")]


def test_clean_cluster_finds_nothing_and_really_asked(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw,apps-rt", "--relabel"], zone="Europe/Zurich")
    cronjob(api, "unrelated", ["echo"])
    proc, found = check(wctl)
    assert found == [] and json.loads(proc.stdout) == {"command": "check", "findings": [], "jobs": [
        {"object": "CronJob/flux-system/close", "command": "close", "windowing": True,
         "targets": ["Kustomization/flux-system/apps-rt", "Kustomization/flux-system/apps-rw"]}]}
    asked = {(r["verb"], r["resource"], r.get("name", "")) for r in reviews(api)}
    assert asked == {("get", "kustomizations", "apps-rw"), ("patch", "kustomizations", "apps-rw"),
                     ("get", "kustomizations", "apps-rt"), ("patch", "kustomizations", "apps-rt"), ("create", "events", "")}
    # The text form prints nothing at all when clean.
    assert wctl.run("check").stdout == ""


def test_no_window_jobs_says_so(setup):
    api, wctl = setup
    proc, found = check(wctl)
    assert ids(found) == [("WC022", "Namespace/flux-system")] and found[0]["severity"] == "warning"
    assert "no CronJob in namespace flux-system runs windowctl" in found[0]["message"]


def test_wc011_time_zone_on_a_server_older_than_1_27(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"], zone="Europe/Zurich")
    _, found = check(wctl)
    assert found == []
    api.set_server_version("v1.26.3")
    _, found = check(wctl)
    assert ids(found) == [("WC011", "CronJob/flux-system/close")]
    assert "v1.26.3" in found[0]["message"] and found[0]["severity"] == "error"


def test_wc012_missing_and_wc013_unreadable_and_the_rest_still_checked(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "missing,apps-rt,apps-rw", "--relabel"])
    api.add_fault("GET", r"/kustomizations/apps-rt$", count=None, status=403)
    api.put("kustomizations", "flux-system", "apps-rw", {**api.get("kustomizations", "flux-system", "apps-rw"),
                                                         "spec": {**api.get("kustomizations", "flux-system", "apps-rw")["spec"], "suspend": True}})
    proc, found = check(wctl)
    assert ids(found) == [("WC013", "Kustomization/flux-system/apps-rt"), ("WC014", "Kustomization/flux-system/apps-rw"),
                          ("WC012", "Kustomization/flux-system/missing")]
    by_id = {f["id"]: f for f in found}
    assert "forbidden" in by_id["WC013"]["message"] and by_id["WC012"]["severity"] == "error"
    assert "a target of CronJob/flux-system/close" in by_id["WC012"]["message"]


def test_wc014_held_with_the_adopt_hint_and_not_once_windowctl_closed_it(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    obj = api.get("kustomizations", "flux-system", "apps-rw")
    api.put("kustomizations", "flux-system", "apps-rw", {**obj, "spec": {**obj["spec"], "suspend": True}})
    proc, found = check(wctl)
    assert ids(found) == [("WC014", "Kustomization/flux-system/apps-rw")] and proc.returncode == 0
    assert "windowctl adopt --targets Kustomization/flux-system/apps-rw" in found[0]["message"]
    assert wctl.run("adopt", "--kustomizations", "apps-rw").returncode == 0
    assert check(wctl)[1] == []


def test_wc002_parent_declares_spec_suspend_without_relabel(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    _, found = check(wctl)
    assert found == []
    assert api.parent_apply("flux-system", "apps-rw", {"metadata": {"labels": LABELS}, "spec": {"suspend": False}})
    _, found = check(wctl)
    assert ids(found) == [("WC002", "CronJob/flux-system/close")]
    assert "Kustomization flux-system/flux-system" in found[0]["message"] and "--relabel" in found[0]["message"]
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw", "--relabel"])
    assert check(wctl)[1] == []


def test_wc015_denied_verbs_when_run_as_the_job_service_account(setup, tmp_path):
    api, wctl = setup
    user = "system:serviceaccount:flux-system:limited"
    api.add_user(user)
    service_account(api, "limited", [{"apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"],
                                      "verbs": ["get", "list"]}] + CHECK_READS, CLUSTER_READS)
    sa_dir = api.write_service_account_dir(str(tmp_path / "limited-sa"), user)
    cronjob(api, "sync", ["sync", "-l", "window=rw", "--relabel", "--window", "0 2 * * * for 1h"], sa="limited")
    proc = wctl.run("check", "-o", "json", extra_env={"WINDOWCTL_SERVICE_ACCOUNT_DIR": sa_dir})
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1
    # Besides the reviews: the same gap read from the Role (WC009), the offline schedule rule over the
    # live job (its "0 18 * * *" never runs inside "0 2 * * * for 1h"), and the HelmReleases it may not
    # list, so WC001 went unchecked there.
    assert sorted({(f["id"], f["object"]) for f in found if f["id"] != "WC015"}) == [
        ("WC005", "CronJob/flux-system/sync"), ("WC009", "CronJob/flux-system/sync"),
        ("WC017", "Namespace/flux-system")], found
    assert "helmreleases.helm.toolkit.fluxcd.io in flux-system" in [f for f in found if f["id"] == "WC017"][0]["message"]
    found = [f for f in found if f["id"] == "WC015"]
    messages = sorted(f["message"] for f in found)
    assert all(f["object"] == "CronJob/flux-system/sync" and f["severity"] == "error" for f in found), found
    assert any("may not patch kustomizations.kustomize.toolkit.fluxcd.io named apps-rw in namespace flux-system" in m for m in messages)
    assert any("may not create events in namespace flux-system" in m for m in messages)
    assert len(messages) == 2  # get and list (for -l) are granted
    # The same job checked by someone else: its permissions are not guessed from the caller's.
    proc, found = check(wctl, mode="admin")
    assert [f["id"] for f in found] == ["WC005", "WC009"] and "permissions not checked (WC015)" in proc.stderr


@pytest.mark.parametrize("items, problem", [
    ({"kind": "CronJobList"}, "the LIST answer has no items"),
    ({"kind": "CronJobList", "items": {"a": 1}}, "the LIST answer's items is an object, not a list"),
    ({"kind": "CronJobList", "items": [{"spec": {}}]}, "the LIST answer's item 1 has no metadata"),
    ({"kind": "CronJobList", "items": [{"metadata": {"name": 7}}]},
     "the LIST answer's item 1 has a metadata.name that is a number, not a string"),
])
def test_a_malformed_cronjob_list_is_named_not_read_as_no_jobs(setup, items, problem):
    """The shape every LIST answer is held to (resolve.h), here for the CronJobs check reads live."""
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    api.add_fault(method="GET", path_regex=r"/cronjobs", body=items)
    proc, found = check(wctl)
    assert ids(found) == [("WC013", "CronJobs in flux-system")]
    assert problem in found[0]["message"]
    assert "no window CronJobs" not in proc.stderr


def test_cronjobs_unreadable_is_a_finding_not_a_crash(api, wctl):
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    proc, found = check(wctl)  # the SA may not list CronJobs
    assert ids(found) == [("WC013", "CronJobs in flux-system")]
    assert "forbidden" in found[0]["message"]


def test_target_flags_check_those_targets_and_with_f_the_files_too(setup):
    api, wctl = setup
    proc, found = check(wctl, "--kustomizations", "apps-rw,nope", "--targets", "HelmRelease/podinfo", mode="admin")
    assert ids(found) == [("WC012", "Kustomization/flux-system/nope")]
    assert {r.get("name") for r in reviews(api) if r["verb"] == "patch"} == {"apps-rw", "podinfo"}
    bad = str(REPO / "tests" / "testdata" / "check" / "WC001-bad")
    proc, found = check(wctl, "--kustomizations", "apps-rw", "-f", bad, mode="admin")
    assert [f["id"] for f in found] == ["WC001"]
    # -f alone stays offline: no request at all.
    api.reset_stats()
    assert wctl.run("check", "-f", bad, "--kubeconfig", "/nonexistent").returncode == 1
    assert api.requests == []


def test_target_flags_as_a_limited_user_name_the_denied_verb(setup):
    api, wctl = setup
    token = api.add_user("reader", rules=[{"namespace": "*", "apiGroups": ["kustomize.toolkit.fluxcd.io"],
                                           "resources": ["kustomizations"], "verbs": ["get", "list"]}])
    path = wctl.kubeconfig_for("reader-kubeconfig", {"token": token}, namespace="flux-system")
    proc = wctl.run("check", "-l", "window=rw", "--kubeconfig", path, "-o", "json", mode="kubeconfig")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1
    assert sorted((f["id"], f["object"]) for f in found) == [
        ("WC015", "Kustomization/flux-system/apps-rw"), ("WC015", "Namespace/flux-system")]


def test_a_job_reads_its_args_as_the_binary_does_live(setup):
    """The jobs found in the cluster are read like the manifests: -A lists every namespace, -l is the
    server's selection, and a job whose args the binary refuses acts on nothing."""
    api, wctl = setup
    api.put("namespaces", "", "apps", {})
    obj = api.get(KS, "flux-system", "apps-rw")
    api.put(KS, "apps", "apps-rw", {"metadata": {"labels": obj["metadata"]["labels"]}, "spec": obj["spec"]})
    cronjob(api, "close", ["close", "-A", "-l", "window=rw"])
    cronjob(api, "open", ["resume", "apps-rt", "--targets", "kustomization/apps/apps-rw"])
    cronjob(api, "sync", ["sync", "apps-rt", "--targets", "nope/x"])
    proc, _ = check(wctl, mode="admin")
    jobs = {j["object"]: (j["command"], j["windowing"], j["targets"]) for j in json.loads(proc.stdout)["jobs"]}
    other, rw, rt = (f"Kustomization/{name}" for name in ("apps/apps-rw", "flux-system/apps-rw", "flux-system/apps-rt"))
    assert jobs == {"CronJob/flux-system/close": ("close", True, [other, rw]),
                    "CronJob/flux-system/open": ("open", False, [other, rt]),
                    "CronJob/flux-system/sync": ("sync", False, [])}


def test_live_runs_the_offline_rules_on_what_the_cluster_holds(setup):
    """One engine: a job whose args the binary refuses (WC010), a real-time Kustomization that
    dependsOn the windowed one (WC001), found in the cluster as check -f finds them in files."""
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomization", "apps-rw"])  # the typo: every run fails
    proc, found = check(wctl, mode="admin")
    assert ids(found) == [("WC010", "CronJob/flux-system/close")], found
    assert "--kustomization" in found[0]["message"]
    # It runs as its own ServiceAccount, not "default", whatever its args.
    assert "it runs as system:serviceaccount:flux-system:windowctl" in proc.stderr
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    assert check(wctl, mode="admin")[1] == []
    obj = api.get(KS, "flux-system", "apps-rt")
    api.put(KS, "flux-system", "apps-rt", {**obj, "spec": {**obj["spec"], "dependsOn": [{"name": "apps-rw"}]}})
    _, found = check(wctl, mode="admin")
    assert ids(found) == [("WC001", "Kustomization/flux-system/apps-rt")]
    assert "depends on windowed Kustomization flux-system/apps-rw" in found[0]["message"]


def test_live_a_service_account_that_nothing_binds(setup):
    """The jobs moved to another namespace, the RoleBinding's subject left behind: every run is 403."""
    api, wctl = setup
    api.put("namespaces", "", "jobs", {})
    api.put("serviceaccounts", "jobs", "windowctl", {"apiVersion": "v1", "kind": "ServiceAccount"})
    spec = {"schedule": "0 18 * * *", "jobTemplate": {"spec": {"template": {"spec": {
        "serviceAccountName": "windowctl", "restartPolicy": "Never", "containers": [
            {"name": "windowctl", "image": "ghcr.io/example/windowctl:1",
             "args": ["close", "--kustomizations", "apps-rw", "-n", "flux-system"]}]}}}}}
    api.put("cronjobs", "jobs", "close", {"apiVersion": "batch/v1", "kind": "CronJob", "spec": spec})
    proc, found = check(wctl, "-n", "jobs", mode="admin")
    assert ids(found) == [("WC018", "CronJob/jobs/close")], found
    assert "ServiceAccount jobs/windowctl, which no RoleBinding or ClusterRoleBinding binds" in found[0]["message"]
    # Bound in the targets' namespace, as the jobs-namespace example does: clean.
    api.put("rolebindings", "flux-system", "windowctl-jobs", {
        "apiVersion": f"{RBAC}/v1", "kind": "RoleBinding", "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "windowctl"},
        "subjects": [{"kind": "ServiceAccount", "name": "windowctl", "namespace": "jobs"}]})
    assert check(wctl, "-n", "jobs", mode="admin")[1] == []
    # A ServiceAccount that does not exist: no pod of the job is ever created.
    api.delete("serviceaccounts", "jobs", "windowctl")
    _, found = check(wctl, "-n", "jobs", mode="admin")
    assert ids(found) == [("WC018", "CronJob/jobs/close")] and "does not exist" in found[0]["message"]


def test_live_what_check_cannot_read_is_a_finding(api, wctl):
    """Run as a job ServiceAccount that may list the CronJobs but no RBAC object: the rules that
    needed them are named as not checked, never passed in silence."""
    service_account(api, "windowctl", JOB_RULES + [CHECK_READS[0]])
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    proc, found = check(wctl)
    assert ids(found) == [("WC017", "Namespace/flux-system"), ("WC017", "cluster")], found
    ns, cluster = found
    assert ns["severity"] == "warning" and "WC009, WC018 were not checked" in ns["message"]
    assert "rolebindings.rbac.authorization.k8s.io in flux-system" in ns["message"]
    assert "serviceaccounts in flux-system" in ns["message"]
    assert "clusterrolebindings.rbac.authorization.k8s.io" in cluster["message"]


def calendar_job(api, name="sync", configmap="windowctl-calendars", key="holidays.ics"):
    args = ["sync", "--kustomizations", "apps-rw", "--window", "0 8 * * MON for 81h in Europe/Zurich",
            "--deny-calendar", f"/etc/windowctl/calendars/{key}"]
    cronjob(api, name, args)
    cj = api.get("cronjobs", "flux-system", name)
    cj["spec"]["schedule"] = "*/5 * * * *"  # as the sync component's
    pod = cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "calendars", "configMap": {"name": configmap}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "calendars", "mountPath": "/etc/windowctl/calendars"}]
    api.put("cronjobs", "flux-system", name, cj)


HOLIDAYS = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:Christmas freeze\r\n"
            "DTSTART;VALUE=DATE:20261221\r\nDTEND;VALUE=DATE:20270104\r\nRRULE:FREQ=YEARLY\r\nEND:VEVENT\r\n"
            "END:VCALENDAR\r\n")


def test_live_a_jobs_calendar_is_read_from_its_configmap(setup):
    """A sync job's --deny-calendar is a file of its ConfigMap volume: live check reads that
    ConfigMap as the pod would mount it, judges the calendar, and names a missing or broken one."""
    api, wctl = setup
    service_account(api, "windowctl", JOB_RULES + CHECK_READS + [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}], CLUSTER_READS)
    calendar_job(api)
    api.put("configmaps", "flux-system", "windowctl-calendars", {"apiVersion": "v1", "kind": "ConfigMap",
                                                                "data": {"holidays.ics": HOLIDAYS}})
    proc, found = check(wctl)
    assert found == [], found
    assert json.loads(proc.stdout)["jobs"][0]["windowing"] is True
    # A calendar outside the subset: the job's every run fails, and check says where.
    api.put("configmaps", "flux-system", "windowctl-calendars", {"apiVersion": "v1", "kind": "ConfigMap",
            "data": {"holidays.ics": HOLIDAYS.replace("FREQ=YEARLY", "FREQ=HOURLY")}})
    proc, found = check(wctl)
    assert ids(found) == [("WC010", "CronJob/flux-system/sync")], found
    assert "holidays.ics line 8: RRULE: FREQ=HOURLY is not supported" in found[0]["message"]
    # No such ConfigMap: the pod never starts.
    api.delete("configmaps", "flux-system", "windowctl-calendars")
    proc, found = check(wctl)
    assert ids(found) == [("WC010", "CronJob/flux-system/sync")], found
    assert "ConfigMap flux-system/windowctl-calendars is not among the objects read" in found[0]["message"]


def test_live_a_calendar_check_may_not_read_is_said_not_failed(setup):
    api, wctl = setup
    calendar_job(api)
    api.put("configmaps", "flux-system", "windowctl-calendars", {"apiVersion": "v1", "kind": "ConfigMap",
                                                                "data": {"holidays.ics": HOLIDAYS}})
    proc, found = check(wctl)  # the job's ServiceAccount may not get ConfigMaps
    assert ids(found) == [("WC017", "Namespace/flux-system")], found
    assert found[0]["severity"] == "warning" and "configmaps in flux-system (windowctl-calendars)" in found[0]["message"]
    assert "WC010" in found[0]["message"]


# --- WC016: one object, two owners (status.inventory, as kustomize-controller writes it) --------------
DEPLOY, SERVICE = "apps_podinfo_apps_Deployment", "apps_podinfo__Service"
# Cluster-scoped (no namespace: the id starts with '_'), an RBAC name's ':' written as "__".
CLUSTER_ROLE = "_podinfo__view_rbac.authorization.k8s.io_ClusterRole"


def inventory(api, name, entries, ns="flux-system"):
    """status.inventory of a Kustomization, as kustomize-controller leaves it after applying
    `entries` (ids, or raw entries for the malformed cases)."""
    obj = api.get(KS, ns, name)
    obj["status"]["inventory"] = {"entries": [{"id": e, "v": "v1"} if isinstance(e, str) else e for e in entries]}
    api.put(KS, ns, name, obj)


def test_wc016_an_object_a_windowed_and_a_real_time_kustomization_both_apply(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    inventory(api, "apps-rw", [DEPLOY, SERVICE, CLUSTER_ROLE, "apps_rw-only__ConfigMap"])
    inventory(api, "apps-rt", [SERVICE, "apps_rt-only__ConfigMap"])
    inventory(api, "infra", ["_apps__Namespace", CLUSTER_ROLE])
    proc, found = check(wctl)
    doc = valid(proc, "check", code=1)
    assert doc["findings"] == found
    assert ids(found) == [("WC016", "ClusterRole/podinfo:view"), ("WC016", "Service/apps/podinfo")], found
    assert {f["severity"] for f in found} == {"error"}
    service = found[1]["message"]
    assert service.startswith("applied by Kustomization flux-system/apps-rw, which the window of "
                              "CronJob/flux-system/close suspends, and by Kustomization flux-system/apps-rt, "
                              "which no window suspends: it changes while the window is closed"), service
    assert "Kustomization flux-system/infra, which no window suspends" in found[0]["message"]
    text = wctl.run("check")
    assert text.returncode == 1
    assert "error WC016 Service/apps/podinfo: applied by Kustomization flux-system/apps-rw" in text.stdout
    # The Kustomizations beside apps-rw unreadable: WC016 is said unchecked, never passed in silence.
    api.add_fault("GET", r"/namespaces/flux-system/kustomizations$", count=None, status=403)
    _, found = check(wctl)
    assert ids(found) == [("WC017", "Namespace/flux-system")], found
    assert "kustomizations.kustomize.toolkit.fluxcd.io in flux-system" in found[0]["message"]
    assert "WC001, WC016 were not checked" in found[0]["message"]
    api.clear_faults()
    # Both in the window: nothing left to fight over.
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw,apps-rt,infra", "--relabel"])
    assert check(wctl)[1] == []


def test_wc016_two_windows_apply_one_object_a_warning_and_one_window_none(setup):
    api, wctl = setup
    cronjob(api, "close-rw", ["close", "--kustomizations", "apps-rw"], zone="Europe/Zurich")
    cronjob(api, "close-rt", ["close", "--kustomizations", "apps-rt"], zone="Europe/Zurich")
    inventory(api, "apps-rw", [DEPLOY, SERVICE])
    inventory(api, "apps-rt", [DEPLOY])
    # The same runs (18:00 Zurich every day), in two jobs: one window.
    proc, found = check(wctl)
    assert found == [], found
    # An hour apart: two windows, and the Deployment changes whenever either is open.
    obj = api.get("cronjobs", "flux-system", "close-rt")
    obj["spec"]["schedule"] = "0 19 * * *"
    api.put("cronjobs", "flux-system", "close-rt", obj)
    proc, found = check(wctl)
    assert ids(found) == [("WC016", "Deployment/apps/podinfo")] and found[0]["severity"] == "warning", found
    assert proc.returncode == 0
    assert ("applied by Kustomization flux-system/apps-rt (window of CronJob/flux-system/close-rt), "
            "Kustomization flux-system/apps-rw (window of CronJob/flux-system/close-rw), whose windows differ") \
        in found[0]["message"]
    valid(proc, "check")
    # Compared as instants, not as text: 17:00 in London is 18:00 in Zurich every day of the year.
    obj["spec"]["schedule"], obj["spec"]["timeZone"] = "0 17 * * *", "Europe/London"
    api.put("cronjobs", "flux-system", "close-rt", obj)
    assert check(wctl)[1] == []


def test_wc016_a_malformed_inventory_is_named_not_read_as_empty(setup):
    api, wctl = setup
    cronjob(api, "close", ["close", "--kustomizations", "apps-rw"])
    inventory(api, "apps-rt", [DEPLOY])
    inventory(api, "apps-rw", ["apps-podinfo-Deployment", {"id": 7}, DEPLOY])
    proc, found = check(wctl)
    assert ids(found) == [("WC016", "Deployment/apps/podinfo"), ("WC016", "Kustomization/flux-system/apps-rw")], found
    bad = found[1]
    assert bad["severity"] == "warning"
    assert ('its status.inventory.entries[0] has the id "apps-podinfo-Deployment", which is not '
            '<namespace>_<name>_<group>_<kind> (and 1 more entries like it)') in bad["message"]
    obj = api.get(KS, "flux-system", "apps-rw")
    obj["status"]["inventory"] = {"entries": {"id": DEPLOY}}
    api.put(KS, "flux-system", "apps-rw", obj)
    proc, found = check(wctl)
    assert ids(found) == [("WC016", "Kustomization/flux-system/apps-rw")], found
    assert "its status.inventory.entries is an object, not a list" in found[0]["message"]
    valid(proc, "check")
