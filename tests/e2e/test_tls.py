"""windowctl's TLS stack against servers that allow one TLS version, with RSA and ECDSA
certificates, and with client certificates in each PEM form a kubeconfig carries.

The static binary links the minimal OpenSSL that scripts/openssl.sh builds (docs/tls.md).
These tests show that it keeps what a client of kube-apiserver needs: TLS 1.3 alone (OpenShift's
"Modern" profile) and TLS 1.2 alone; ECDHE over X25519 (the default), P-256 and P-384 (in TLS 1.3
after a HelloRetryRequest); AES-GCM and ChaCha20-Poly1305; RSA (PKCS#1 v1.5 and PSS) and ECDSA
signatures and X.509 chains; client keys as PKCS#8, PKCS#1 ("RSA PRIVATE KEY") and SEC1
("EC PRIVATE KEY"), in files and embedded. The fake records each handshake's version and
cipher (tls_log), so each test also checks that the handshake it meant to test took place.
"""
import base64
import subprocess

import pytest

from e2e_util import SA_USER, FakeApiServer, Windowctl

TARGETS = ("--kustomizations", "apps-rw")


@pytest.fixture(scope="module")
def pki_dirs(tmp_path_factory):
    """One PKI per key type for the whole module: generating keys is the slow part."""
    base = tmp_path_factory.mktemp("tls-pki")
    return {kt: str(base / kt) for kt in ("rsa", "ec")}


@pytest.fixture
def serve(tmp_path, pki_dirs):
    """serve(key_type, **tls) -> (fake API server, Windowctl harness); stopped after the test."""
    started = []

    def start(key_type="rsa", **tls):
        srv = FakeApiServer(str(tmp_path / f"api{len(started)}"), reconcile_delay=0.2,
                            pki_dir=pki_dirs[key_type], key_type=key_type, **tls)
        srv.start()
        started.append(srv)
        srv.seed_default()
        home = tmp_path / f"w{len(started)}"
        home.mkdir()
        return srv, Windowctl(srv, home)

    yield start
    for srv in started:
        srv.close()


def close_and_check(srv, w, *extra, mode="in-cluster"):
    p = w.run("close", *TARGETS, *extra, mode=mode)
    assert p.returncode == 0, p.stderr
    assert w.suspended("apps-rw")
    assert srv.tls_log, "no TLS handshake completed"
    return srv.tls_log[-1]


@pytest.mark.parametrize("key_type", ["rsa", "ec"])
@pytest.mark.parametrize("version", ["1.3", "1.2"])
def test_a_server_of_one_tls_version(serve, version, key_type):
    srv, w = serve(key_type, tls_min_version=version, tls_max_version=version)
    hs = close_and_check(srv, w)
    assert hs["version"] == f"TLSv{version}"
    if version == "1.2":
        assert hs["cipher"].startswith("ECDHE-RSA-" if key_type == "rsa" else "ECDHE-ECDSA-"), hs
    else:
        assert hs["cipher"].startswith("TLS_"), hs


@pytest.mark.parametrize("key_type", ["rsa", "ec"])
@pytest.mark.parametrize("suite", ["AES128-GCM-SHA256", "AES256-GCM-SHA384", "CHACHA20-POLY1305"])
def test_each_tls12_cipher_suite_a_server_may_insist_on(serve, suite, key_type):
    cipher = f"ECDHE-{'RSA' if key_type == 'rsa' else 'ECDSA'}-{suite}"
    srv, w = serve(key_type, tls_max_version="1.2", tls_ciphers=cipher)
    assert close_and_check(srv, w) == {"version": "TLSv1.2", "cipher": cipher, "client_cert": False}


@pytest.mark.parametrize("version", ["1.3", "1.2"])
@pytest.mark.parametrize("group", ["prime256v1", "secp384r1"])
def test_each_ecdhe_group_a_server_may_insist_on(serve, group, version):
    # windowctl offers an X25519 key share first; a TLS 1.3 server that wants another group
    # answers with a HelloRetryRequest.
    srv, w = serve("ec", tls_min_version=version, tls_max_version=version, tls_group=group)
    assert close_and_check(srv, w)["version"] == f"TLSv{version}"


def _traditional(key_path, out_path):
    """The key in its pre-PKCS#8 PEM form: PKCS#1 for RSA, SEC1 for EC (what kubeadm writes)."""
    subprocess.run(["openssl", "pkey", "-in", key_path, "-traditional", "-out", str(out_path)],
                   check=True, capture_output=True)
    return str(out_path)


@pytest.mark.parametrize("version", ["1.3", "1.2"])
@pytest.mark.parametrize("form,header", [
    ("rsa-pkcs8", "BEGIN PRIVATE KEY"),
    ("rsa-pkcs1", "BEGIN RSA PRIVATE KEY"),
    ("ec-pkcs8", "BEGIN PRIVATE KEY"),
    ("ec-sec1", "BEGIN EC PRIVATE KEY"),
])
def test_kubeconfig_client_certificate_keys(serve, tmp_path, version, form, header):
    key_type, encoding = form.split("-")
    # The server's own key is of the other type: the two signatures differ in each handshake.
    srv, w = serve("ec" if key_type == "rsa" else "rsa", tls_min_version=version, tls_max_version=version)
    crt, key = srv.client_cert(SA_USER, key_type=key_type)
    if encoding != "pkcs8":
        key = _traditional(key, tmp_path / f"client-{form}.key")
    assert header in open(key).read()
    if encoding == "pkcs8":
        user = {"client-certificate": crt, "client-key": key}  # files
    else:
        user = {"client-certificate-data": base64.b64encode(open(crt, "rb").read()).decode(),
                "client-key-data": base64.b64encode(open(key, "rb").read()).decode()}  # embedded
    kc = w.kubeconfig_for(f"kc-{form}", user, namespace="flux-system")
    hs = close_and_check(srv, w, "--kubeconfig", kc, mode="kubeconfig")
    assert hs["version"] == f"TLSv{version}" and hs["client_cert"] is True, hs
    # The identity is the certificate's (the kubeconfig has no token).
    assert [r["user"] for r in w.patches()] == [SA_USER]


def test_a_server_of_tls_1_1_only_is_refused(serve):
    # windowctl speaks TLS 1.2 and 1.3; the minimal OpenSSL has no TLS 1.0 / 1.1 code at all.
    srv, w = serve("rsa", tls_min_version="1.1", tls_max_version="1.1", tls_ciphers="DEFAULT:@SECLEVEL=0")
    p = w.run("close", *TARGETS)
    assert p.returncode != 0
    assert "TLS" in p.stderr, p.stderr
    assert srv.tls_log == [] and srv.requests == [] and not w.suspended("apps-rw")
