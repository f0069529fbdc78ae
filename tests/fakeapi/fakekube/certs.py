"""Runtime PKI for the fake API server, made with the openssl CLI.

Two CAs, like a kubeadm cluster: one signs the serving certificate, a separate
one signs client certificates, so a client that trusts the client CA by mistake
(or presents a server cert as a client cert) fails the way it would for real.

key_type "rsa" (RSA 2048, the default) or "ec" (ECDSA: P-384 CAs, P-256 server
certificate, as kubeadm's --encryption-algorithm=ECDSA makes them) for the CAs
and the serving certificate; client certificates take their own key_type.
"""

import hashlib
import os
import secrets
import subprocess
import threading

SERVER_SANS = "IP:127.0.0.1,DNS:localhost,DNS:fake-apiserver.test"


def _openssl(*args, cwd):
    proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {proc.stderr.strip()}")


KEY_TYPES = ("rsa", "ec")


def _newkey(key_type, curve="P-256"):
    if key_type == "rsa":
        return ["-newkey", "rsa:2048"]
    if key_type == "ec":
        return ["-newkey", "ec", "-pkeyopt", f"ec_paramgen_curve:{curve}"]
    raise ValueError(f"key_type {key_type!r}: one of {KEY_TYPES}")


def _subject(cn, groups=()):
    # openssl -subj needs '/' and '=' escaped inside values.
    def esc(v):
        return v.replace("\\", "\\\\").replace("/", "\\/").replace("=", "\\=")
    return "".join(f"/O={esc(g)}" for g in groups) + f"/CN={esc(cn)}"


class Pki:
    def __init__(self, directory, key_type="rsa"):
        _newkey(key_type)  # validates
        self.dir = os.path.abspath(directory)
        self.key_type = key_type
        os.makedirs(self.dir, exist_ok=True)
        self._lock = threading.Lock()
        self._clients = {}
        stems = ("ca", "client-ca", "server")
        files = [self._path(s + ext) for s in stems for ext in (".crt", ".key")]
        marker = self._path("key-type")
        complete = all(os.path.exists(f) for f in files)
        if os.path.exists(marker):
            existing = open(marker).read().strip()
        else:
            existing = "rsa" if complete else None  # made before key types existed
        if existing is not None and existing != key_type:
            raise ValueError(f"{self.dir} holds a {existing} PKI, not {key_type}")
        if complete:
            # Reuse a directory made earlier, so kubeconfigs and trust stays valid across restarts
            # (and a test suite need not pay for RSA key generation per server).
            (self.ca_cert, self.ca_key, self.client_ca_cert, self.client_ca_key,
             self.server_cert, self.server_key) = files
            return
        self.ca_cert, self.ca_key = self._make_ca("ca", "fake-apiserver-ca")
        self.client_ca_cert, self.client_ca_key = self._make_ca("client-ca", "fake-apiserver-client-ca")
        self.server_cert, self.server_key = self._issue(
            "server", _subject("kube-apiserver"), self.ca_cert, self.ca_key,
            ["extendedKeyUsage=serverAuth", f"subjectAltName={SERVER_SANS}"], key_type)
        with open(marker, "w") as f:
            f.write(key_type + "\n")

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _make_ca(self, stem, cn):
        crt, key = self._path(stem + ".crt"), self._path(stem + ".key")
        _openssl("req", "-x509", *_newkey(self.key_type, "P-384"), "-nodes", "-sha256",
                 "-keyout", key, "-out", crt, "-days", "3650", "-subj", _subject(cn),
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=self.dir)
        return crt, key

    def _issue(self, stem, subject, ca_cert, ca_key, extensions, key_type):
        crt, key, csr = (self._path(stem + s) for s in (".crt", ".key", ".csr"))
        ext = self._path(stem + ".ext")
        with open(ext, "w") as f:
            f.write("basicConstraints=critical,CA:FALSE\n"
                    "keyUsage=critical,digitalSignature,keyEncipherment\n")
            f.write("".join(e + "\n" for e in extensions))
        _openssl("req", "-new", *_newkey(key_type), "-nodes", "-keyout", key,
                 "-out", csr, "-subj", subject, cwd=self.dir)
        _openssl("x509", "-req", "-sha256", "-in", csr, "-CA", ca_cert, "-CAkey", ca_key,
                 "-set_serial", str(secrets.randbits(63)), "-days", "365",
                 "-out", crt, "-extfile", ext, cwd=self.dir)
        os.unlink(csr)
        os.unlink(ext)
        return crt, key

    def client_cert(self, user, groups=(), key_type="rsa"):
        """An mTLS client certificate with CN=user (and O=group per group), kept on disk per user.
        key_type "rsa" or "ec" (P-256); the key file is PKCS#8 ("BEGIN PRIVATE KEY")."""
        _newkey(key_type)
        with self._lock:
            cache_key = (user, tuple(groups), key_type)
            if cache_key not in self._clients:
                safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in user)
                # (The hash of an RSA certificate's key stays what it was before key types.)
                ident = (user, tuple(groups)) if key_type == "rsa" else (user, tuple(groups), key_type)
                stem = f"client-{safe}-{hashlib.sha1(repr(ident).encode()).hexdigest()[:8]}"
                crt, key = self._path(stem + ".crt"), self._path(stem + ".key")
                if not (os.path.exists(crt) and os.path.exists(key)):
                    self._issue(stem, _subject(user, groups), self.client_ca_cert, self.client_ca_key,
                                ["extendedKeyUsage=clientAuth"], key_type)
                self._clients[cache_key] = (crt, key)
            return self._clients[cache_key]
