"""Bad flags, files and settings: one clear line on stderr, exit 2, nothing changed."""
import os
import subprocess

import pytest

from e2e_util import SA_USER, lines

TARGETS = ["--kustomizations", "apps-rw"]


def assert_usage_error(p, api, needle):
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert needle in p.stderr, p.stderr
    assert p.stdout == ""
    assert len(lines(p.stderr)) == 1, p.stderr
    assert api.writes == 0


@pytest.mark.parametrize("args,needle", [
    (["close", "--bogus"], "--bogus"),
    (["frobnicate"], "frobnicate"),
    ([], "a command is required"),
    (["close"], "close needs targets"),
    (["close", *TARGETS, "--kind", "ExternalArtifact"], 'unknown --kind "ExternalArtifact"'),
    (["close", *TARGETS, "--request-timeout", "soon"], 'invalid --request-timeout "soon"'),
    (["open", *TARGETS, "--wait", "--timeout", "5"], 'invalid --timeout "5"'),
    (["close", "--kustomizations", "Bad_Name"], 'invalid name "Bad_Name"'),
    (["close", "--kustomizations", "a,,b"], "empty name"),
    (["close", *TARGETS, "-o", "yaml"], "yaml"),
    (["close", *TARGETS, "--log-format", "xml"], "xml"),
    (["close", *TARGETS, "--reason", "x" * 2000], "--reason is longer"),
    (["relabel", *TARGETS], "--reconcile"),
    # F9: a namespace is a path segment; one that smuggles a path or a query must never reach a URL.
    (["close", "--kustomizations", "apps", "-n", "flux-system/kustomizations/infra?dryRun=All&x="],
     'invalid --namespace "flux-system/kustomizations/infra?dryRun=All&x="'),
    (["close", "--kustomizations", "flux-system/kustomizations/infra"], "invalid"),
    (["close", "--kustomizations", "apps%2Finfra"], 'invalid name "apps%2Finfra"'),
    (["close", "--kustomizations", "..", "-n", "flux-system"], 'invalid name ".."'),
])
def test_bad_flags(wctl, api, args, needle):
    assert_usage_error(wctl.run(*args), api, needle)


def test_missing_token_file(wctl, api):
    os.remove(wctl.sa_dir / "token")
    assert_usage_error(wctl.run("close", *TARGETS), api, "cannot read ServiceAccount token")


def test_unreadable_ca(wctl, api):
    (wctl.sa_dir / "ca.crt").write_text("not a certificate")
    assert_usage_error(wctl.run("close", *TARGETS), api, "certificate authority holds no PEM certificate")


def test_wrong_ca_is_never_trusted(wctl, api, tmp_path):
    other = tmp_path / "other-ca"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(other / "k"),
                    "-out", str(other / "ca.crt"), "-subj", "/CN=other", "-days", "1"], check=True, capture_output=True)
    (wctl.sa_dir / "ca.crt").write_text((other / "ca.crt").read_text())
    p = wctl.run("close", *TARGETS)
    assert_usage_error(p, api, "is not trusted")


def test_system_trust_store_is_not_used(wctl, api):
    # Even with OpenSSL pointed at a bundle holding the fake's CA, only the configured CA counts.
    (wctl.sa_dir / "ca.crt").write_text("garbage")
    p = wctl.run("close", *TARGETS, extra_env={"SSL_CERT_FILE": api.ca_path, "OPENSSL_CONF": "/nonexistent"})
    assert p.returncode == 2


@pytest.mark.parametrize("content,needle", [
    ("{{{", "is not valid YAML"),
    ("apiVersion: v1\nclusters: 5\ncurrent-context: x\ncontexts: []\n", "no context x"),
    ("", "is empty"),
])
def test_bad_kubeconfig(wctl, api, tmp_path, content, needle):
    kc = tmp_path / "bad-kc"
    kc.write_text(content)
    assert_usage_error(wctl.run("close", *TARGETS, "--kubeconfig", str(kc), mode="kubeconfig"), api, needle)


def test_missing_kubeconfig(wctl, api):
    assert_usage_error(wctl.run("close", *TARGETS, "--kubeconfig", "/nonexistent", mode="kubeconfig"), api,
                       "cannot read kubeconfig /nonexistent")


def test_no_configuration_at_all(wctl, api):
    assert_usage_error(wctl.run("close", *TARGETS, mode="none"), api, "no cluster configuration")


def test_plain_http_server_is_refused(wctl, api, tmp_path):
    kc = api.write_kubeconfig(str(tmp_path / "kc"), SA_USER)
    text = open(kc).read().replace("https://", "http://")
    open(kc, "w").write(text)
    assert_usage_error(wctl.run("close", *TARGETS, "--kubeconfig", kc, mode="kubeconfig"), api, "plain http")


def test_insecure_skip_tls_verify_warns_loudly(wctl, api, tmp_path):
    kc = wctl.kubeconfig_for("insecure", {"token": wctl.token},
                             cluster={"server": api.url, "insecure-skip-tls-verify": True})
    p = wctl.run("status", *TARGETS, "--kubeconfig", str(kc), mode="kubeconfig")
    assert p.returncode == 0, p.stderr
    assert "TLS verification is DISABLED" in p.stderr


def test_server_name_mismatch_is_refused(wctl, api, tmp_path):
    kc = api.write_kubeconfig(str(tmp_path / "kc"), SA_USER, server_name="wrong.example.test")
    p = wctl.run("close", *TARGETS, "--kubeconfig", kc, mode="kubeconfig")
    assert_usage_error(p, api, "is not trusted")


def test_exec_plugin_failure(wctl, api, tmp_path):
    kc = wctl.kubeconfig_for("exec", {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "/bin/false"}})
    assert_usage_error(wctl.run("close", *TARGETS, "--kubeconfig", str(kc), mode="kubeconfig"), api,
                       "exec plugin /bin/false failed (exit 1)")


@pytest.mark.parametrize("output,needle", [
    ('{"kind": 5, "apiVersion": "client.authentication.k8s.io/v1", "status": {"token": "t"}}',
     "exec plugin output has kind of type number, not ExecCredential"),
    ('{"kind": "ExecCredential", "apiVersion": ["v1"], "status": {"token": "t"}}', "apiVersion of type array"),
    ('{"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1", "status": []}', "has no status"),
    ('{"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1", "status": {"token": 7}}',
     "status.token is not a string"),
])
def test_exec_plugin_output_of_the_wrong_type_is_a_configuration_error(wctl, api, tmp_path, output, needle):
    plugin = tmp_path / "plugin.sh"
    plugin.write_text("#!/bin/sh\ncat <<'EOF'\n" + output + "\nEOF\n")
    plugin.chmod(0o755)
    kc = wctl.kubeconfig_for("exec", {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin)}})
    p = wctl.run("close", *TARGETS, "--kubeconfig", str(kc), mode="kubeconfig")
    assert_usage_error(p, api, needle)
    assert "json.exception" not in p.stderr and "internal error" not in p.stderr


GROUP = r"^/apis/kustomize\.toolkit\.fluxcd\.io$"
OBJ = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps-rw"


def assert_clean_failure(p, needle):
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert needle in p.stderr, p.stderr
    for raw in ("json.exception", "internal error", "type_error", "out_of_range"):
        assert raw not in p.stderr and raw not in p.stdout


@pytest.mark.parametrize("body,needle", [
    ({"kind": "APIGroup", "name": "kustomize.toolkit.fluxcd.io", "versions": [{"version": 1}],
      "preferredVersion": {"version": 1}}, "serves no version"),
    ({"kind": "APIGroup", "versions": "v1", "preferredVersion": "v1"}, "serves no version"),
    ({"kind": "APIGroup", "versions": [], "preferredVersion": {"version": "v1/namespaces/kube-system/secrets"}},
     "serves no version"),
])
def test_discovery_of_the_wrong_shape_fails_each_target_clearly(wctl, api, body, needle):
    api.add_fault(method="GET", path_regex=GROUP, body=body, count=None)
    p = wctl.run("close", *TARGETS)
    assert_clean_failure(p, needle)
    assert api.writes == 0


@pytest.mark.parametrize("obj", [
    {"metadata": [1, 2], "spec": {"suspend": "yes"}},
    {"metadata": {"name": 5, "namespace": {}, "annotations": "a", "labels": 3, "resourceVersion": 12}, "spec": []},
    {"metadata": {"name": "apps-rw", "namespace": "flux-system", "resourceVersion": 7},
     "status": {"conditions": {"type": "Ready"}}},
    [], "text",
])
def test_an_object_with_fields_of_the_wrong_type_is_decided_on_without_crashing(wctl, api, obj):
    api.add_fault(method="GET", path_regex=OBJ + "$", body=obj, count=1)
    p = wctl.run("close", *TARGETS, "--dry-run")
    assert p.returncode in (0, 1), (p.stdout, p.stderr)
    for raw in ("json.exception", "internal error", "type_error"):
        assert raw not in p.stderr and raw not in p.stdout
    assert api.writes == 0
    s = wctl.run("status", *TARGETS)
    assert "internal error" not in s.stderr


def test_list_items_with_names_that_are_no_kubernetes_names_are_skipped_with_one_line_each(wctl, api):
    # The one good item carries the live resourceVersion: a write is always conditional on it.
    rv = api.get("kustomizations", "flux-system", "infra")["metadata"]["resourceVersion"]
    body = {"kind": "KustomizationList", "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "metadata": {},
            "items": [{"metadata": {"name": "../../secrets", "namespace": "flux-system"}},
                      {"metadata": {"name": "apps-rw", "namespace": "flux-system/x"}},
                      {"metadata": {"name": "infra", "namespace": "flux-system", "resourceVersion": rv},
                       "spec": {}}]}
    api.add_fault(method="GET", path_regex=r"/kustomizations$", body=body, count=1)
    p = wctl.run("close", "--all")
    assert p.returncode == 1
    assert p.stdout.strip() == "flux-system/infra closed"
    errors = [line for line in lines(p.stderr) if " error " in line]
    assert len(errors) == 2, p.stderr
    assert sum("not a valid Kubernetes name" in e for e in errors) == 2
    assert [r["path"].rsplit("/", 1)[1] for r in wctl.patches()] == ["infra"]


def test_a_list_with_an_item_of_the_wrong_type_is_refused_whole(wctl, api):
    """A name that is not a string is a malformed answer, not one bad item: nothing of it is acted on
    (tests/e2e/test_hostile.py has every shape)."""
    body = {"kind": "KustomizationList", "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "metadata": {},
            "items": [{"metadata": {"name": 5, "namespace": "flux-system"}},
                      {"metadata": {"name": "infra", "namespace": "flux-system"}, "spec": {}}]}
    api.add_fault(method="GET", path_regex=r"/kustomizations$", body=body, count=1)
    p = wctl.run("close", "--all")
    assert p.returncode == 1
    assert p.stdout == ""
    errors = [line for line in lines(p.stderr) if " error " in line]
    assert len(errors) == 1, p.stderr
    assert "the LIST answer's item 1 has a metadata.name that is a number, not a string" in errors[0]
    assert "matches" not in p.stderr
    assert api.writes == 0


@pytest.mark.parametrize("status_body", [
    {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": {"nested": "object"}, "reason": ["x"],
     "code": 500, "details": {"retryAfterSeconds": "soon"}},
    {"kind": "Status", "message": 5, "details": []},
    {"kind": ["Status"]},
])
def test_a_status_body_of_the_wrong_shape_is_still_one_clear_error(wctl, api, status_body):
    api.add_fault(method="PATCH", path_regex=OBJ, status=403, body=status_body, count=None)
    p = wctl.run("close", *TARGETS)
    assert_clean_failure(p, "flux-system/apps-rw")
    assert "forbidden" in p.stdout.lower() or "403" in p.stdout
