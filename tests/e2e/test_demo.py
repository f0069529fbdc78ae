"""scripts/demo.sh is hermetic: whatever cluster the caller's shell points at, the demo talks to
its own fake API server and nothing else."""
import os
import subprocess
import sys

import pytest

from e2e_util import REPO, SA_USER, FakeApiServer


@pytest.fixture
def decoy(tmp_path):
    """A second fake API server standing for the caller's real cluster: every way a shell can
    point windowctl or kubectl at a cluster points here."""
    srv = FakeApiServer(str(tmp_path / "decoy"))
    srv.start()
    srv.seed_default()
    srv.add_user("admin", cluster_admin=True)
    srv.add_user(SA_USER, cluster_admin=True)
    yield srv
    srv.stop()


def test_the_demo_ignores_the_callers_cluster(decoy, tmp_path):
    # A test of scripts/demo.sh, which builds and runs build/windowctl: the run over another
    # binary (the checked build) has nothing to add, and would build beside the other run.
    if os.environ.get("WINDOWCTL_BIN", str(REPO / "build" / "windowctl")) != str(REPO / "build" / "windowctl"):
        pytest.skip("a test of scripts/demo.sh and build/windowctl")
    if not os.access(REPO / "build" / "windowctl", os.X_OK):
        pytest.fail("build/windowctl is not built (scripts/build.sh); the demo would build it first")
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    decoy.write_kubeconfig(str(home / ".kube" / "config"), "admin")
    kubeconfig = decoy.write_kubeconfig(str(tmp_path / "kubeconfig"), "admin")
    sa_dir = decoy.write_service_account_dir(str(tmp_path / "sa"), SA_USER)
    env = dict(os.environ, HOME=str(home), KUBECONFIG=kubeconfig, FLUX_SYSTEM_NAMESPACE="apps",
               KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(decoy.port),
               WINDOWCTL_SERVICE_ACCOUNT_DIR=sa_dir, KUBERNETES_MASTER=decoy.url)
    # The demo runs install-deps.sh and build.sh first: with build/ up to date, seconds.
    proc = subprocess.run(["bash", str(REPO / "scripts" / "demo.sh")], env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert decoy.requests == [] and decoy.handshakes == 0, \
        f"the demo reached the caller's cluster: {[(r['method'], r['path']) for r in decoy.requests][:10]}"
    # The demo's closes and its freeze ran, and landed on its own server: the decoy's objects are as seeded.
    assert "$ build/windowctl close --kustomizations apps-rw --for 12h" in proc.stdout
    assert not any(decoy.get("kustomizations", "flux-system", n).get("spec", {}).get("suspend")
                   for n in ("apps-rw", "apps-rt", "infra"))


def test_the_session_names_no_cluster():
    """tests/hermetic_env.py ran before any test: nothing in the environment names a cluster. (The
    names are spelt out: importing hermetic_env here would itself clean the environment.)"""
    names = ["KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "WINDOWCTL_SERVICE_ACCOUNT_DIR",
             "FLUX_SYSTEM_NAMESPACE", "KUBERNETES_MASTER"]
    assert [v for v in names if v in os.environ] == []
    assert not os.path.exists(os.path.join(os.environ["HOME"], ".kube"))


def test_a_run_of_one_file_drops_the_callers_cluster(decoy, tmp_path):
    """The guard holds for a run of one test file, where pytest may load no conftest.py above its directory."""
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    decoy.write_kubeconfig(str(home / ".kube" / "config"), "admin")
    env = dict(os.environ, HOME=str(home), KUBECONFIG=decoy.write_kubeconfig(str(tmp_path / "kc"), "admin"),
               FLUX_SYSTEM_NAMESPACE="apps", KUBERNETES_SERVICE_HOST="127.0.0.1",
               KUBERNETES_SERVICE_PORT=str(decoy.port))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"{__file__}::test_the_session_names_no_cluster"], cwd=REPO / "tests" / "e2e", env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert decoy.requests == []
