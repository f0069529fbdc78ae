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
    ([], "subcommand"),
    (["close"], "close needs targets"),
    (["close", *TARGETS, "--kind", "GitRepository"], 'unknown --kind "GitRepository"'),
    (["close", *TARGETS, "--request-timeout", "soon"], 'invalid --request-timeout "soon"'),
    (["open", *TARGETS, "--wait", "--timeout", "5"], 'invalid --timeout "5"'),
    (["close", "--kustomizations", "Bad_Name"], 'invalid name "Bad_Name"'),
    (["close", "--kustomizations", "a,,b"], "empty name"),
    (["close", *TARGETS, "-o", "yaml"], "yaml"),
    (["close", *TARGETS, "--log-format", "xml"], "xml"),
    (["close", *TARGETS, "--reason", "x" * 2000], "--reason is longer"),
    (["relabel", *TARGETS], "--reconcile"),
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
