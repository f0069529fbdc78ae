"""Every command and flag of windowctl against the fake API server, in-cluster and kubeconfig mode."""
import json
import re
import shutil
import subprocess

import pytest
from hermetic_env import clean_env

from e2e_util import KS, REPO, SA_USER, json_out, lines

TARGETS = ["--kustomizations", "apps-rw"]


def _git(*args):
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def test_version_is_the_version_file_with_gits_description(wctl):
    """The release is the file VERSION: `windowctl version` prints it, with the vX.Y.Z tag's
    distance when that tag travelled with the clone, else the commit, and whether the tree was
    dirty; a clone without tags still knows its release."""
    p = wctl.run("version")
    assert p.returncode == 0
    m = re.fullmatch(r"windowctl (\S+) \(commit ([0-9a-f]{12}|unknown)\)\n", p.stdout)
    assert m, p.stdout
    release = (REPO / "VERSION").read_text().strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+", release)
    if not (REPO / ".git").exists():
        assert m.group(1) == release and m.group(2) == "unknown"
        return
    described = _git("describe", "--tags", "--match", f"v{release}", "--abbrev=7", "HEAD")
    if described.returncode == 0:
        version = described.stdout.strip()[1:]
    else:
        version = f"{release}-g" + _git("rev-parse", "--short=7", "HEAD").stdout.strip()
    if _git("status", "--porcelain", "--untracked-files=no").stdout.strip():
        version += "-dirty"
    assert m.group(1) == version
    assert m.group(2) == _git("rev-parse", "--short=12", "HEAD").stdout.strip()
    assert version.startswith(release)


def test_version_script_without_git_and_with_a_bad_version_file(tmp_path):
    """A source tree without .git (a tarball) prints VERSION as it is; a VERSION that is not X.Y.Z
    is an error, never a made-up release."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "version.sh", tmp_path / "scripts" / "version.sh")
    (tmp_path / "VERSION").write_text("1.2.3\n")
    run = lambda *a: subprocess.run(["sh", str(tmp_path / "scripts" / "version.sh"), *a], capture_output=True, text=True)
    assert (run().stdout, run("--commit").stdout) == ("1.2.3\n", "unknown\n")
    (tmp_path / "VERSION").write_text("v1.2\n")
    p = run()
    assert p.returncode == 1 and "not X.Y.Z" in p.stderr
    (tmp_path / "VERSION").unlink()
    p = run()
    assert p.returncode == 1 and "VERSION is missing" in p.stderr
    # A clone without tags: the release and the commit.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "VERSION").write_text("1.2.3\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "r"], check=True, env=env)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "--short=7", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert run().stdout == f"1.2.3-g{head}\n"
    subprocess.run(["git", "-C", str(tmp_path), "tag", "v1.2.3"], check=True, env=env)
    assert run().stdout == "1.2.3\n"


def test_binary_is_static_and_small(wctl):
    out = subprocess.run(["file", wctl.bin], capture_output=True, text=True).stdout
    # A test of the shipped build: the checked build (scripts/test.sh's second run) links the
    # sanitizers' runtime dynamically by design.
    if "__asan_init" in subprocess.run(["nm", "-D", wctl.bin], capture_output=True, text=True).stdout:
        pytest.skip("the sanitizer build is dynamic by design")
    assert "statically linked" in out
    import os
    # 4 MiB (issue 21): the static binary with the OpenSSL and yaml-cpp that scripts/openssl.sh and
    # scripts/yaml-cpp.sh build (docs/size-and-benchmark.md).
    assert os.path.getsize(wctl.bin) <= 4 * 1024 * 1024


def test_close_suspends_marks_and_records_an_event(wctl, api):
    p = wctl.run("close", *TARGETS, "--reason", "weekly window")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/apps-rw closed\n"
    obj = wctl.obj("apps-rw")
    assert obj["spec"]["suspend"] is True
    ann = obj["metadata"]["annotations"]
    assert ann["windowctl.io/suspended-by"] == "windowctl"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", ann["windowctl.io/suspended-at"])
    assert ann["windowctl.io/reason"] == "weekly window"
    # What Flux's parent Kustomization needs to leave the suspend alone: our own field manager.
    (patch,) = wctl.patches()
    assert patch["query"].get("fieldManager") in ("windowctl", ["windowctl"])
    assert patch["headers"]["user-agent"].startswith("windowctl/")
    assert patch["headers"]["content-type"] == "application/merge-patch+json"
    assert patch["path"] == "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps-rw"
    managers = [m["manager"] for m in obj["metadata"].get("managedFields", [])]
    assert "windowctl" in managers
    (event,) = wctl.events("WindowClosed")
    assert event["involvedObject"]["name"] == "apps-rw"
    assert event["involvedObject"]["kind"] == "Kustomization"
    assert "weekly window" in event["message"]
    assert not wctl.suspended("apps-rt") and not wctl.suspended("infra")


def test_close_twice_writes_nothing_and_keeps_marks(wctl, api):
    assert wctl.run("close", *TARGETS, "--reason", "first").returncode == 0
    before = wctl.obj("apps-rw")
    writes = api.writes
    p = wctl.run("close", *TARGETS, "--reason", "second")
    assert p.returncode == 0
    assert p.stdout == "flux-system/apps-rw already closed\n"
    assert api.writes == writes
    assert len(wctl.patches()) == 1
    after = wctl.obj("apps-rw")
    assert after["metadata"]["annotations"] == before["metadata"]["annotations"]
    assert after["metadata"]["annotations"]["windowctl.io/reason"] == "first"


def test_open_resumes_requests_reconcile_and_clears_marks(wctl, api):
    wctl.run("close", *TARGETS)
    p = wctl.run("open", *TARGETS, "--reason", "window opened")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/apps-rw opened\n"
    obj = wctl.obj("apps-rw")
    assert "suspend" not in obj["spec"]
    ann = obj["metadata"].get("annotations", {})
    assert not any(k.startswith("windowctl.io/") for k in ann)
    assert ann["reconcile.fluxcd.io/requestedAt"]
    open_patch = json.loads(wctl.patches()[-1]["body"])
    assert open_patch["spec"] == {"suspend": None}  # removed, as flux resume does, in one patch
    assert "reconcile.fluxcd.io/requestedAt" in open_patch["metadata"]["annotations"]
    assert len(wctl.events("WindowOpened")) == 1


def test_open_on_running_object_is_a_no_op(wctl, api):
    p = wctl.run("open", *TARGETS)
    assert p.returncode == 0
    assert p.stdout == "flux-system/apps-rw already open\n"
    assert wctl.patches() == []


def suspend_by_someone_else(api, name="apps-rw"):
    obj = api.get(KS, "flux-system", name)
    obj["spec"]["suspend"] = True
    api.put(KS, "flux-system", name, obj)


def test_open_holds_what_someone_else_suspended(wctl, api):
    suspend_by_someone_else(api)
    p = wctl.run("open", "--kustomizations", "apps-rw,apps-rt")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw held: suspended by someone else", "flux-system/apps-rt already open"]
    assert "held" in p.stderr and "--force" in p.stderr
    assert wctl.suspended("apps-rw")
    assert wctl.patches() == []
    assert len(wctl.events("WindowOpenHeld")) == 1
    assert wctl.events("WindowOpenHeld")[0]["type"] == "Warning"
    forced = wctl.run("open", *TARGETS, "--force")
    assert forced.returncode == 0
    assert forced.stdout == "flux-system/apps-rw opened\n"
    assert not wctl.suspended("apps-rw")


def test_close_leaves_someone_elses_suspension_unmarked(wctl, api):
    suspend_by_someone_else(api)
    assert wctl.run("close", *TARGETS).stdout == "flux-system/apps-rw already closed\n"
    assert "windowctl.io/suspended-by" not in wctl.obj("apps-rw")["metadata"].get("annotations", {})
    assert wctl.run("open", *TARGETS).stdout.endswith("held: suspended by someone else\n")


@pytest.mark.parametrize("outcome,code,message", [
    ("ready", 0, "opened, ready"),
    ("stalled", 1, "opened, wait failed: stalled"),
    ("failed", 1, "opened, wait failed: not ready"),
])
def test_open_wait(wctl, api, outcome, code, message):
    wctl.run("close", *TARGETS)
    api.reconcile_outcome[("flux-system", "apps-rw")] = outcome
    p = wctl.run("open", *TARGETS, "--wait", "--timeout", "20s", "--poll-interval", "100ms")
    assert p.returncode == code, p.stderr
    assert p.stdout.startswith("flux-system/apps-rw " + message), p.stdout
    obj = wctl.obj("apps-rw")
    assert obj["status"]["lastHandledReconcileAt"] == obj["metadata"]["annotations"]["reconcile.fluxcd.io/requestedAt"]


def test_open_wait_times_out(wctl, api):
    wctl.run("close", *TARGETS)
    api.reconcile_outcome[("flux-system", "apps-rw")] = "never"
    p = wctl.run("open", *TARGETS, "--wait", "--timeout", "1s", "--poll-interval", "100ms")
    assert p.returncode == 1
    assert "wait failed: not ready within 1s" in p.stdout
    assert "flux-system/apps-rw: wait failed" in p.stderr


def test_relabel_flags_and_command(wctl, api):
    label = "kustomize.toolkit.fluxcd.io/reconcile"
    assert wctl.run("close", *TARGETS, "--relabel").returncode == 0
    obj = wctl.obj("apps-rw")
    assert obj["metadata"]["labels"][label] == "disabled" and obj["spec"]["suspend"] is True
    assert len(wctl.patches()) == 1  # suspend and label in one write
    assert wctl.run("open", *TARGETS, "--relabel").returncode == 0
    assert wctl.obj("apps-rw")["metadata"]["labels"][label] == "enabled"
    p = wctl.run("relabel", "--reconcile", "disabled", *TARGETS)
    assert p.returncode == 0 and p.stdout == "flux-system/apps-rw relabeled\n"
    obj = wctl.obj("apps-rw")
    assert obj["metadata"]["labels"][label] == "disabled"
    assert "suspend" not in obj["spec"]
    assert json.loads(wctl.patches()[-1]["body"]) == {
        "metadata": {"resourceVersion": json.loads(wctl.patches()[-1]["body"])["metadata"]["resourceVersion"],
                     "labels": {label: "disabled"}}}
    again = wctl.run("relabel", "--reconcile", "disabled", *TARGETS)
    assert again.stdout == "flux-system/apps-rw already labeled\n"
    bad = wctl.run("relabel", "--reconcile", "maybe", *TARGETS)
    assert bad.returncode == 2


def test_status_table_and_json(wctl, api):
    wctl.run("close", *TARGETS, "--reason", "weekly")
    suspend_by_someone_else(api, "infra")
    p = wctl.run("status")
    assert p.returncode == 0, p.stderr
    rows = lines(p.stdout)
    assert rows[0].split() == ["NAMESPACE", "NAME", "SUSPENDED", "BY", "SINCE", "REASON", "READY", "REVISION",
                               "MESSAGE"]
    by_name = {r.split()[1]: r for r in rows[1:]}
    assert set(by_name) == {"infra", "apps-rt", "apps-rw"}
    assert by_name["apps-rw"].split()[2:4] == ["True", "windowctl"]
    assert "someone else" in by_name["infra"]
    assert by_name["apps-rt"].split()[2:6] == ["False", "-", "-", "-"]
    j = json_out(wctl.run("status", *TARGETS, "-o", "json"))
    (item,) = j["results"]
    assert item["name"] == "apps-rw" and item["suspended"] is True and item["suspendedBy"] == "windowctl"
    assert item["reason"] == "weekly" and item["ready"] is True and item["revision"].startswith("main@sha1:")


def test_dry_run_writes_nothing(wctl, api):
    p = wctl.run("close", "--kustomizations", "apps-rw,apps-rt", "--dry-run", "--relabel")
    assert p.returncode == 0
    out = lines(p.stdout)
    assert out[0].startswith("flux-system/apps-rw would close, planned: relabeled (running) patch {")
    patch = json.loads(out[0].split(" patch ", 1)[1])
    assert patch["spec"] == {"suspend": True}
    assert patch["metadata"]["labels"] == {"kustomize.toolkit.fluxcd.io/reconcile": "disabled"}
    assert api.writes == 0 and wctl.patches() == [] and wctl.events() == []
    j = json_out(wctl.run("open", *TARGETS, "--dry-run", "-o", "json"))
    assert j["results"][0]["result"] == "already-open" and j["results"][0]["patch"] is None


def test_json_output_and_json_logs(wctl, api):
    p = wctl.run("close", "--kustomizations", "apps-rw,missing", "-o", "json", "--log-format", "json")
    assert p.returncode == 1
    results = {r["name"]: r for r in json_out(p)["results"]}
    assert results["apps-rw"]["result"] == "closed" and results["apps-rw"]["changed"] is True
    assert results["missing"]["result"] == "failed" and "not found" in results["missing"]["error"]
    logs = [json.loads(line) for line in lines(p.stderr)]
    assert any(entry["level"] == "error" and "flux-system/missing: not found" in entry["msg"] for entry in logs)


def test_one_missing_target_does_not_stop_the_others(wctl, api):
    p = wctl.run("close", "--kustomizations", "apps-rw,missing,infra")
    assert p.returncode == 1
    assert lines(p.stdout)[0] == "flux-system/apps-rw closed"
    assert lines(p.stdout)[1].startswith("flux-system/missing failed: not found")
    assert lines(p.stdout)[2] == "flux-system/infra closed"
    assert re.search(r'flux-system/missing: not found: .*"missing" not found', p.stderr)
    assert wctl.suspended("apps-rw") and wctl.suspended("infra")


def test_selector_all_and_other_namespace(wctl, api):
    other = dict(wctl.obj("apps-rt"))
    other["metadata"] = {"name": "c", "namespace": "other-ns", "labels": {"window": "rw"}}
    api.put(KS, "other-ns", "c", other)
    p = wctl.run("close", "-l", "window=rw")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "flux-system/apps-rw closed\n"  # the selector stays in its namespace
    assert wctl.run("close", "--kustomizations", "other-ns/c").stdout == "other-ns/c closed\n"
    p = wctl.run("close", "--all")
    assert sorted(lines(p.stdout)) == ["flux-system/apps-rt closed", "flux-system/apps-rw already closed",
                                       "flux-system/infra closed"]
    none = wctl.run("open", "-l", "window=nothing")
    assert none.returncode == 1
    assert 'no kustomizations in namespace flux-system matches selector "window=nothing"' in none.stderr


def test_helmrelease_kind(wctl, api):
    p = wctl.run("close", "--kind", "HelmRelease", "--kustomizations", "podinfo")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("podinfo", resource="helmreleases")
    assert wctl.patches()[0]["path"].startswith("/apis/helm.toolkit.fluxcd.io/v2/")
    assert wctl.run("open", "--kind", "hr", "--kustomizations", "podinfo").stdout == "flux-system/podinfo opened\n"


def test_one_tls_handshake_per_run(wctl, api):
    api.handshakes_before = api.handshakes
    p = wctl.run("close", "--kustomizations", "apps-rw,apps-rt,infra")
    assert p.returncode == 0
    assert api.handshakes - api.handshakes_before == 1
    # discovery, then GET + PATCH + Event per target
    assert len(api.requests) == 1 + 3 * 3


def test_kubeconfig_mode_token_and_context_namespace(wctl, api, tmp_path):
    kc = api.write_kubeconfig(str(tmp_path / "kc"), SA_USER, namespace="flux-system")
    p = wctl.run("close", *TARGETS, "--kubeconfig", kc, mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    p = wctl.run("open", *TARGETS, mode="kubeconfig", extra_env={"KUBECONFIG": kc})
    assert p.returncode == 0 and not wctl.suspended("apps-rw")
    # ~/.kube/config is the last resort
    (wctl.home / ".kube").mkdir()
    (wctl.home / ".kube" / "config").write_text(open(kc).read())
    assert wctl.run("status", *TARGETS, mode="kubeconfig").returncode == 0


def test_kubeconfig_mode_client_certificate(wctl, api, tmp_path):
    admin_cert, admin_key = api.client_cert(SA_USER)
    kc = wctl.kubeconfig_for("mtls", {"client-certificate": admin_cert, "client-key": admin_key})
    p = wctl.run("close", *TARGETS, "--kubeconfig", str(kc), mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert [r["user"] for r in wctl.patches()] == [SA_USER]


def test_kubeconfig_mode_exec_plugin(wctl, api, tmp_path):
    plugin = tmp_path / "get-token"
    plugin.write_text(f"""#!/bin/sh
echo "$KUBERNETES_EXEC_INFO" > {tmp_path}/exec-info
echo '{{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{{"token":"{wctl.token}"}}}}'
""")
    plugin.chmod(0o755)
    kc = wctl.kubeconfig_for("exec", {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                               "command": str(plugin), "provideClusterInfo": True}},
                             namespace="flux-system")
    p = wctl.run("close", *TARGETS, "--kubeconfig", str(kc), mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    info = json.loads((tmp_path / "exec-info").read_text())
    assert info["spec"]["cluster"]["server"] == api.url


def test_api_version_discovery_for_old_flux(tmp_path):
    from e2e_util import FakeApiServer, Windowctl
    srv = FakeApiServer(str(tmp_path / "api"), served_versions={"kustomize.toolkit.fluxcd.io": ["v1beta2"]})
    srv.start()
    try:
        srv.seed_default()
        w = Windowctl(srv, tmp_path)
        p = w.run("close", *TARGETS)
        assert p.returncode == 0, p.stderr
        assert w.patches()[0]["path"].startswith("/apis/kustomize.toolkit.fluxcd.io/v1beta2/")
        count = len(srv.requests)
        p = w.run("open", *TARGETS, "--api-version", "v1beta2")
        assert p.returncode == 0, p.stderr
        assert not any(r["path"] == "/apis/kustomize.toolkit.fluxcd.io" for r in srv.requests[count:])
        forced_v1 = w.run("status", *TARGETS, "--api-version", "v1")
        assert forced_v1.returncode == 1
        assert "not found" in forced_v1.stderr
    finally:
        srv.stop()


def test_flux_not_installed(wctl, api):
    p = wctl.run("close", *TARGETS, "--kind", "HelmRelease", "--api-version", "v9")
    assert p.returncode == 1
    assert "flux-system/apps-rw" in p.stderr


def test_kubeconfig_with_a_dns_name_verifies_the_hostname(wctl, api, tmp_path):
    # "localhost" resolves through the libc resolver (static binary) and must match the certificate's DNS SAN.
    kc = api.write_kubeconfig(str(tmp_path / "kc-dns"), SA_USER, host="localhost")
    p = wctl.run("close", *TARGETS, "--kubeconfig", kc, mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    # The same server under tls-server-name of a name its certificate carries works too.
    kc2 = api.write_kubeconfig(str(tmp_path / "kc-sni"), SA_USER, server_name="fake-apiserver.test")
    assert wctl.run("status", *TARGETS, "--kubeconfig", kc2, mode="kubeconfig").returncode == 0


def git_version(wctl, name="apps-rw", **spec_extra):
    """The object as the parent Kustomization's Git source declares it."""
    obj = wctl.obj(name)
    spec = {k: v for k, v in obj["spec"].items() if k != "suspend"}
    spec.update(spec_extra)
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
            "metadata": {"name": name, "namespace": "flux-system", "labels": obj["metadata"].get("labels", {})},
            "spec": spec}


def test_suspend_survives_the_parent_kustomization(wctl, api):
    # flux-facts: the parent drops fields written by kubectl* managers, keeps windowctl's.
    desired = git_version(wctl)
    assert wctl.run("close", *TARGETS).returncode == 0
    assert api.parent_apply("flux-system", "apps-rw", desired)
    assert wctl.suspended("apps-rw")
    kc = api.write_kubeconfig(str(wctl.tmp / "kc-kubectl"), SA_USER)
    wctl.run("open", *TARGETS)
    subprocess.run(["kubectl", "--kubeconfig", kc, "patch", "kustomization", "apps-rw", "-n", "flux-system",
                    "--type", "merge", "-p", '{"spec":{"suspend":true}}'], check=True, capture_output=True,
                   env=clean_env(wctl.home))
    assert wctl.suspended("apps-rw")
    api.parent_apply("flux-system", "apps-rw", desired)
    assert not wctl.suspended("apps-rw"), "the parent undoes a kubectl suspend"


def test_relabel_protects_a_suspend_that_git_declares(wctl, api):
    desired = git_version(wctl, suspend=False)  # Git declares spec.suspend: the parent forces it
    assert wctl.run("close", *TARGETS).returncode == 0
    api.parent_apply("flux-system", "apps-rw", desired)
    assert not wctl.suspended("apps-rw")
    assert wctl.run("close", *TARGETS, "--relabel").returncode == 0
    assert api.parent_apply("flux-system", "apps-rw", desired) is False  # skipped while disabled
    assert wctl.suspended("apps-rw")
    assert wctl.run("open", *TARGETS, "--relabel").returncode == 0
    assert api.parent_apply("flux-system", "apps-rw", desired)
