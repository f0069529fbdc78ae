"""Users, authentication data and RBAC rule evaluation with the apiserver's Forbidden wording."""

import base64
import json
import secrets

import yaml


class User:
    def __init__(self, name, token, rules, cluster_admin):
        self.name = name
        self.token = token
        self.rules = list(rules or [])
        self.cluster_admin = cluster_admin


def new_token(user=None):
    """ServiceAccount tokens are JWTs whose `sub` names the account, as the kubelet mounts them
    (clients read it to say who acted); other users get opaque tokens. The signature is random:
    the fake authenticates by table lookup, not by verifying it."""
    if user and user.startswith("system:serviceaccount:"):
        def b64(data):
            return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
        return ".".join([b64({"alg": "RS256", "kid": "fake"}), b64({"iss": "https://kubernetes.default.svc", "sub": user}),
                         secrets.token_urlsafe(32)])
    return "fake-" + secrets.token_urlsafe(32)


def _match(patterns, value):
    return "*" in patterns or value in patterns


def _resource_match(patterns, resource, subresource):
    combined = f"{resource}/{subresource}" if subresource else resource
    for p in patterns:
        if p in ("*", combined):
            return True
        if subresource and (p == f"{resource}/*" or p == f"*/{subresource}"):
            return True
    return False


# The default ClusterRole system:basic-user, bound to the group system:authenticated by the
# default ClusterRoleBinding of the same name: every authenticated user may ask what it may do.
BASIC_USER_RULES = [
    {"namespace": "*", "apiGroups": ["authorization.k8s.io"],
     "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], "verbs": ["create"]},
    {"namespace": "*", "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]},
]


def allowed(user, verb, group, resource, subresource, namespace, name, extra_rules=()):
    """RBAC semantics: any rule grants; namespace '*' stands for a ClusterRole binding."""
    if user.cluster_admin:
        return True
    basic = BASIC_USER_RULES if user.name != "system:anonymous" else []
    for rule in list(user.rules) + list(extra_rules) + basic:
        ns = rule.get("namespace", "*")
        if ns != "*" and ns != namespace:
            continue
        if not _match(rule.get("verbs", []), verb):
            continue
        if not _match(rule.get("apiGroups", []), group):
            continue
        if not _resource_match(rule.get("resources", []), resource, subresource):
            continue
        names = rule.get("resourceNames") or []
        # resourceNames can never authorize a request that does not name one object
        # (create, or a list without a metadata.name field selector).
        if names and (not name or name not in names):
            continue
        return True
    return False


def forbidden_message(username, verb, group, resource, subresource, namespace, name):
    qualified = f"{resource}.{group}" if group else resource
    res = f"{resource}/{subresource}" if subresource else resource
    if namespace:
        where = f'in the namespace "{namespace}"'
    else:
        where = "at the cluster scope"
    reason = f'User "{username}" cannot {verb} resource "{res}" in API group "{group}" {where}'
    if name:
        return f'{qualified} "{name}" is forbidden: {reason}'
    return f"{qualified} is forbidden: {reason}"


def rules_from_role(role):
    """Rules of rendered Role/ClusterRole manifests (dict, or YAML text with any number of documents).

    A ClusterRole is taken as bound cluster-wide; other kinds (RoleBinding, ServiceAccount) are skipped,
    so a whole rendered RBAC manifest can be passed as is.
    """
    docs = list(yaml.safe_load_all(role)) if isinstance(role, str) else [role]
    rules = []
    for doc in docs:
        if not isinstance(doc, dict) or doc.get("kind") not in ("Role", "ClusterRole"):
            continue
        if doc["kind"] == "Role":
            ns = (doc.get("metadata") or {}).get("namespace") or "default"
        else:
            ns = "*"
        for rule in doc.get("rules") or []:
            if "nonResourceURLs" in rule:
                continue
            rules.append(dict(rule, namespace=ns))
    return rules


def groups_of(username):
    """The groups the apiserver's authenticators add: every user is system:authenticated, a
    ServiceAccount also system:serviceaccounts and system:serviceaccounts:<namespace>."""
    groups = ["system:authenticated"]
    parts = username.split(":")
    if len(parts) == 4 and parts[:2] == ["system", "serviceaccount"]:
        groups += ["system:serviceaccounts", f"system:serviceaccounts:{parts[2]}"]
    return groups


def _subject_applies(subject, username, groups, binding_namespace):
    kind = subject.get("kind")
    if kind == "ServiceAccount":
        # As the apiserver's RBAC authorizer: a RoleBinding's ServiceAccount subject without a
        # namespace means the binding's own namespace.
        ns = subject.get("namespace") or binding_namespace
        return bool(ns) and username == f"system:serviceaccount:{ns}:{subject.get('name')}"
    if kind == "User":
        return username == subject.get("name")
    if kind == "Group":
        return subject.get("name") in groups
    return False


def rules_from_bindings(docs, username):
    """What Kubernetes RBAC grants `username` through the Roles, ClusterRoles, RoleBindings and
    ClusterRoleBindings in `docs` (manifests as applied): a RoleBinding grants its Role (same
    namespace) or ClusterRole in the binding's namespace only; a ClusterRoleBinding grants a
    ClusterRole everywhere. Bindings to roles that do not exist grant nothing."""
    roles, cluster_roles = {}, {}
    for d in docs:
        meta = d.get("metadata") or {}
        if d.get("kind") == "Role":
            roles[(meta.get("namespace") or "default", meta.get("name"))] = d
        elif d.get("kind") == "ClusterRole":
            cluster_roles[meta.get("name")] = d
    groups = groups_of(username)
    out = []
    for d in docs:
        kind = d.get("kind")
        if kind not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        meta = d.get("metadata") or {}
        ns = (meta.get("namespace") or "default") if kind == "RoleBinding" else ""
        if not any(_subject_applies(s, username, groups, ns) for s in d.get("subjects") or []):
            continue
        ref = d.get("roleRef") or {}
        if ref.get("kind") == "Role" and kind == "RoleBinding":
            role = roles.get((ns, ref.get("name")))
        elif ref.get("kind") == "ClusterRole":
            role = cluster_roles.get(ref.get("name"))
        else:
            role = None
        for rule in (role or {}).get("rules") or []:
            if "nonResourceURLs" not in rule:
                out.append(dict(rule, namespace=ns or "*"))
    return out
