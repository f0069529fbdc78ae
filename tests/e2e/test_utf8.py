"""Free text windowctl writes into JSON (annotations, Events) is UTF-8, and stays UTF-8 when cut."""
import os
import subprocess

from e2e_util import lines

TARGETS = ["--kustomizations", "apps-rw"]


def test_a_long_reason_is_cut_between_characters_and_the_event_is_recorded(wctl, api):
    # 512 two-byte characters: the Event's message, cut to 1024 bytes, ended inside one and
    # could not be serialised after the patch had landed (exit 1, no Event).
    reason = "\u00fc" * 512
    p = wctl.run("close", *TARGETS, "--reason", reason)
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert wctl.obj("apps-rw")["metadata"]["annotations"]["windowctl.io/reason"] == reason
    (event,) = wctl.events("WindowClosed")
    assert event["message"].endswith("\u00fc...") and len(event["message"].encode()) <= 1024


def test_a_reason_that_is_not_utf8_is_exit_2(wctl, api):
    env = wctl.env("in-cluster")
    proc = subprocess.run([os.fsencode(wctl.bin), b"close", b"--kustomizations", b"apps-rw", b"--reason", b"INC-1 \xff"],
                          env=env, capture_output=True, timeout=60)
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == 2, stderr
    assert "--reason is not valid UTF-8" in stderr and len(lines(stderr)) == 1
    assert api.writes == 0


def test_a_kubeconfig_that_is_not_utf8_is_exit_2(wctl, api):
    # Its user's name became override-by, which could not be serialised: exit 1 after reading.
    token = api.add_user("ops", rules=[{"namespace": "*", "apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}])
    wctl.secrets.add(token)
    path = wctl.kubeconfig_for("kc-latin1", {"token": token})
    with open(path, "rb") as f:
        text = f.read()
    with open(path, "wb") as f:
        f.write(text.replace(b"name: u\n", b"name: u\xe9\n").replace(b"user: u\n", b"user: u\xe9\n"))
    p = wctl.run("open", *TARGETS, "--for", "2h", "--kubeconfig", path, mode="kubeconfig")
    assert p.returncode == 2, p.stderr
    assert "is not valid UTF-8" in p.stderr and len(lines(p.stderr)) == 1
    assert api.writes == 0
