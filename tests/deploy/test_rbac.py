"""RBAC stays namespaced, explicit and minimal."""
import pytest
import yaml

from deploy_util import KUSTOMIZE, MANIFESTS, kustomization_dirs, of_kind, one, rel, render

RENDERED = kustomization_dirs(KUSTOMIZE, MANIFESTS)
BASE_RULES = [
    {"apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"], "verbs": ["get", "patch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
]


ALL_NAMESPACES = KUSTOMIZE / "components" / "all-namespaces"


def test_no_cluster_scoped_rbac_in_any_file_but_the_all_namespaces_component():
    for f in sorted(KUSTOMIZE.rglob("*.yaml")):
        if f.parent == ALL_NAMESPACES:
            continue
        for doc in yaml.safe_load_all(f.read_text()):
            kind = (doc or {}).get("kind", "")
            assert kind not in ("ClusterRole", "ClusterRoleBinding"), f"{rel(f)}: {kind}"


def test_the_all_namespaces_component_grants_exactly_what_a_listing_needs():
    (role,) = [d for d in yaml.safe_load_all((ALL_NAMESPACES / "clusterrole.yaml").read_text())]
    assert role["rules"] == [
        {"apiGroups": ["kustomize.toolkit.fluxcd.io"], "resources": ["kustomizations"], "verbs": ["get", "list", "patch"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
    ]
    (binding,) = [d for d in yaml.safe_load_all((ALL_NAMESPACES / "clusterrolebinding.yaml").read_text())]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": role["metadata"]["name"]}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "windowctl"}]


@pytest.mark.parametrize("path", RENDERED, ids=rel)
def test_rendered_rbac_is_namespaced_and_explicit(path):
    docs = render(path)
    assert not of_kind(docs, "ClusterRole") and not of_kind(docs, "ClusterRoleBinding")
    for role in of_kind(docs, "Role"):
        for rule in role["rules"]:
            for field in ("apiGroups", "resources", "verbs", "resourceNames"):
                assert "*" not in rule.get(field, []), f"{role['metadata']['name']}: wildcard in {field}"
            assert "nonResourceURLs" not in rule
    accounts = {(sa["metadata"]["namespace"], sa["metadata"]["name"]) for sa in of_kind(docs, "ServiceAccount")}
    for rb in of_kind(docs, "RoleBinding"):
        assert rb["roleRef"]["kind"] == "Role"
        (subject,) = rb["subjects"]
        assert subject["kind"] == "ServiceAccount" and subject["name"] == "windowctl"
        if accounts:  # a rendering with the ServiceAccount binds exactly that one, namespace spelled out
            assert (subject.get("namespace"), subject["name"]) in accounts, f"binds {subject}, renders {accounts}"
        else:  # base/access alone: no namespace, i.e. the binding's own (the apiserver's rule)
            assert subject.get("namespace") in (None, rb["metadata"]["namespace"], "jobs"), subject
        role = one(docs, "Role", rb["roleRef"]["name"])
        assert role["metadata"]["namespace"] == rb["metadata"]["namespace"]


def test_base_role_is_exactly_what_the_jobs_use():
    # tests/deploy/test_jobs_fakeapi.py proves each of these verbs is needed.
    role = one(render(KUSTOMIZE / "base"), "Role", "windowctl")
    assert role["metadata"]["namespace"] == "flux-system"
    assert role["rules"] == BASE_RULES


def test_pinned_role_names_its_targets():
    docs = render(KUSTOMIZE / "examples" / "pinned")
    targets = {a for j in of_kind(docs, "CronJob")
               for a in j["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"][2].split(",")}
    for rule in one(docs, "Role", "windowctl")["rules"]:
        if "kustomizations" in rule["resources"]:
            assert set(rule["resourceNames"]) == targets
            assert "list" not in rule["verbs"], "resourceNames cannot restrict list"
