"""`kubectl windowctl ...`: kubectl's plugin discovery finds the binary under the name
kubectl-windowctl on PATH and runs it with the rest of the command line."""
import os
import shutil

import pytest

from e2e_util import lines

KUBECTL = shutil.which("kubectl")


@pytest.fixture
def plugin_path(wctl, tmp_path):
    if not KUBECTL:
        pytest.fail("kubectl is needed (scripts/install-deps.sh installs it)")
    d = tmp_path / "plugins"
    d.mkdir()
    os.symlink(wctl.bin, d / "kubectl-windowctl")
    return str(d)


def run_kubectl(wctl, plugin_path, *args, mode="kubeconfig", extra_env=None):
    env = dict(extra_env or {})
    env["PATH"] = plugin_path + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
    # wctl.run runs its own binary: run kubectl instead, with the same environment.
    saved = wctl.bin
    wctl.bin = KUBECTL
    try:
        return wctl.run(*args, mode=mode, extra_env=env)
    finally:
        wctl.bin = saved


def test_kubectl_plugin_list_finds_it(wctl, plugin_path):
    p = run_kubectl(wctl, plugin_path, "plugin", "list")
    assert p.returncode == 0, p.stderr
    assert any(line.endswith("/kubectl-windowctl") for line in lines(p.stdout)), p.stdout


def test_kubectl_windowctl_runs_the_command(wctl, plugin_path, api):
    p = run_kubectl(wctl, plugin_path, "windowctl", "version")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("windowctl ")
    # With the operator's kubeconfig, as kubectl users have it.
    kubeconfig = wctl.kubeconfig()
    p = run_kubectl(wctl, plugin_path, "windowctl", "close", "--kustomizations", "apps-rw",
                    extra_env={"KUBECONFIG": kubeconfig})
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["flux-system/apps-rw closed"]
    assert wctl.suspended("apps-rw")


def test_help_under_kubectl_names_the_plugin(wctl, plugin_path):
    p = run_kubectl(wctl, plugin_path, "windowctl", "--help")
    assert p.returncode == 0, p.stderr
    assert "kubectl windowctl" in p.stdout
