"""Everything renders, install.yaml is current, components compose, manifests/ is wired right."""
import os
import pathlib

import pytest
import yaml

from deploy_util import (KUSTOMIZE, MANIFESTS, REPO, job_args, kustomization_dirs, pod_spec, of_kind, one, rel, render,
                      render_text, render_with_components)

ALL_DIRS = kustomization_dirs(KUSTOMIZE, MANIFESTS)
COMPONENTS = kustomization_dirs(KUSTOMIZE, MANIFESTS, components=True)
INSTALL = MANIFESTS / "install.yaml"


@pytest.mark.parametrize("path", ALL_DIRS, ids=rel)
def test_renders(path):
    docs = render(path)
    assert docs, f"{rel(path)} renders nothing"
    for d in docs:
        assert d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name"), d


def test_install_yaml_is_the_rendered_base():
    text = INSTALL.read_text()
    header = text.splitlines()[0]
    assert header.startswith("#") and "kubectl kustomize kustomize/base" in header
    fresh = render_text(KUSTOMIZE / "base")
    if os.environ.get("UPDATE_INSTALL_YAML") == "1":
        INSTALL.write_text(header + "\n" + fresh)
        text = INSTALL.read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    # Compared as YAML, so a kustomize that only formats differently does not fail it.
    assert list(yaml.safe_load_all(body)) == list(yaml.safe_load_all(fresh)), (
        "manifests/install.yaml is stale; regenerate: UPDATE_INSTALL_YAML=1 "
        "/usr/bin/python3 -m pytest -q tests/deploy -k install_yaml")


GROUP_COMPONENTS = {
    "sources": ("source.toolkit.fluxcd.io", ["gitrepositories", "ocirepositories", "helmrepositories", "helmcharts", "buckets"]),
    "images": ("image.toolkit.fluxcd.io", ["imagerepositories", "imagepolicies", "imageupdateautomations"]),
    "notifications": ("notification.toolkit.fluxcd.io", ["alerts", "providers", "receivers"]),
    "flux-operator": ("fluxcd.controlplane.io", ["resourcesets", "resourcesetinputproviders", "fluxinstances"]),
    "artifactgenerators": ("source.extensions.fluxcd.io", ["artifactgenerators"]),
}


@pytest.mark.parametrize("component", COMPONENTS, ids=rel)
def test_component_over_base(component, tmp_path):
    """Each component applies alone on top of the base, and does what it says."""
    docs = render_with_components(tmp_path, KUSTOMIZE / "base", component)
    rules = one(docs, "Role", "windowctl")["rules"]
    jobs = of_kind(docs, "CronJob")
    name = component.name
    if name == "relabel":
        assert all(job_args(j)[-1] == "--relabel" for j in jobs)
    elif name == "selectors":
        assert {"apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"],
                "verbs": ["list"]} in rules
    elif name == "helmreleases":
        assert {"apiGroups": ["helm.toolkit.fluxcd.io"], "resources": ["helmreleases"],
                "verbs": ["get", "patch"]} in rules
    elif name in GROUP_COMPONENTS:
        # One API group each, exactly its suspendable plurals, only get + patch.
        group, plurals = GROUP_COMPONENTS[name]
        assert rules[-1] == {"apiGroups": [group], "resources": plurals, "verbs": ["get", "patch"]}
        assert sum(1 for r in rules if group in r["apiGroups"]) == 1
    elif name == "all-namespaces":
        # The namespaced Role stays as it is; a ClusterRole + binding to the same ServiceAccount is added.
        assert rules == one(render(KUSTOMIZE / "base"), "Role", "windowctl")["rules"]
        binding = one(docs, "ClusterRoleBinding", "windowctl-all-namespaces")
        sa = one(docs, "ServiceAccount", "windowctl")
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "windowctl", "namespace": sa["metadata"]["namespace"]}]
    elif name == "sync":
        # One level-triggered job instead of the open/close pair, same Role; the emergency open stays.
        assert [j["metadata"]["name"] for j in jobs] == ["windowctl-emergency-open", "windowctl-sync"]
        assert job_args(jobs[1])[0] == "sync" and "--window" in job_args(jobs[1])
    elif name == "calendars":
        # It acts on the sync job only: over the base alone (the open/close pair) it changes nothing.
        assert docs == render(KUSTOMIZE / "base")
    else:
        pytest.fail(f"new component {rel(component)}: add its expected effect here")


def test_calendars_component_mounts_the_overlays_calendars():
    docs = render(KUSTOMIZE / "examples" / "holidays")
    sync = one(docs, "CronJob", "windowctl-sync")
    pod = pod_spec(sync)
    container = pod["containers"][0]
    args = job_args(sync)
    assert args[args.index("--deny-calendar") + 1] == "/etc/windowctl/calendars/holidays.ics"
    assert container["volumeMounts"] == [{"name": "calendars", "mountPath": "/etc/windowctl/calendars", "readOnly": True}]
    assert pod["volumes"] == [{"name": "calendars", "configMap": {"name": "windowctl-calendars"}}]
    cm = one(docs, "ConfigMap", "windowctl-calendars")
    assert cm["metadata"]["namespace"] == sync["metadata"]["namespace"]
    assert cm["data"]["holidays.ics"].startswith("BEGIN:VCALENDAR\r\n")


@pytest.mark.parametrize("component", [c for c in COMPONENTS if c.name not in ("selectors", "all-namespaces")], ids=rel)
def test_component_used_by_an_example(component):
    # selectors and all-namespaces are left out on purpose: no example job selects by label, and
    # none should hold cluster-wide rights.
    users = [d for d in ALL_DIRS if any(
        (d / c).resolve() == component
        for c in yaml.safe_load((d / "kustomization.yaml").read_text()).get("components", []))]
    assert users, f"no example uses {rel(component)}"


# --- manifests/: the GitOps example ------------------------------------------------------------

FLUX = render(MANIFESTS / "clusters" / "prod" / "flux-system")
FLUX_KS = {k["metadata"]["name"]: k for k in of_kind(FLUX, "Kustomization")}


def test_flux_objects():
    assert {"infra", "apps-rt", "apps-rw"} <= set(FLUX_KS)
    assert one(FLUX, "GitRepository", "flux-system")
    for ks in FLUX_KS.values():
        assert ks["apiVersion"] == "kustomize.toolkit.fluxcd.io/v1"
        assert ks["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "flux-system"}
        path = REPO / ks["spec"]["path"]
        assert (path / "kustomization.yaml").is_file(), f"{ks['metadata']['name']}: no kustomization at {path}"


def test_dependencies_never_wait_on_a_window():
    deps = {n: [d["name"] for d in k["spec"].get("dependsOn", [])] for n, k in FLUX_KS.items()}
    assert deps["apps-rt"] == ["infra"] and deps["apps-rw"] == ["infra"]
    assert not [n for n, d in deps.items() if "apps-rw" in d], "something waits on the windowed apps-rw"
    # windowctl owns spec.suspend; a value in Git would be re-applied over it.
    assert "suspend" not in FLUX_KS["apps-rw"]["spec"]


def test_root_applies_only_flux_system():
    names = {(d["kind"], d["metadata"]["name"]) for d in render(MANIFESTS / "clusters" / "prod")}
    assert names == {(d["kind"], d["metadata"]["name"]) for d in FLUX}


def test_windowctl_closes_the_windowed_kustomization():
    infra = render(REPO / FLUX_KS["infra"]["spec"]["path"])
    jobs = {j["metadata"]["name"]: j for j in of_kind(infra, "CronJob")}
    assert set(jobs) == {"windowctl-open", "windowctl-close", "windowctl-emergency-open"}
    for name, j in jobs.items():
        assert job_args(j)[2] == "apps-rw" and j["spec"]["suspend"] == ("emergency" in name)
    assert one(infra, "Namespace", "nginx")["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_nginx_split():
    rt = render(REPO / FLUX_KS["apps-rt"]["spec"]["path"])
    rw = render(REPO / FLUX_KS["apps-rw"]["spec"]["path"])
    assert {d["kind"] for d in rt} == {"ConfigMap"}
    assert {d["kind"] for d in rw} == {"Deployment", "Service"}
    cm = one(rt, "ConfigMap", "nginx-rt")
    assert "nginx.conf" in cm["data"] and "listen 8080" in cm["data"]["nginx.conf"]
    deploy = one(rw, "Deployment", "nginx")
    assert {cm["metadata"]["namespace"], deploy["metadata"]["namespace"]} == {"nginx"}
    pod = deploy["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"].startswith("nginxinc/nginx-unprivileged:")
    keys = {i["key"] for v in pod["volumes"] if "configMap" in v for i in v["configMap"]["items"]}
    assert {v["configMap"]["name"] for v in pod["volumes"] if "configMap" in v} == {"nginx-rt"}
    assert keys <= set(cm["data"])
