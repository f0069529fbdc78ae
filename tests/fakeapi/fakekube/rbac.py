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


def allowed(user, verb, group, resource, subresource, namespace, name):
    """RBAC semantics: any rule grants; namespace '*' stands for a ClusterRole binding."""
    if user.cluster_admin:
        return True
    for rule in user.rules:
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
