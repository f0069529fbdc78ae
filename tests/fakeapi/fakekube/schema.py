"""Resource types (from CRDs plus a few core/v1 ones) and structural-schema handling:
pruning of unknown fields, type/enum/required/pattern validation and defaulting, as the
apiserver applies them to custom resources."""

import copy
import json
import os
import re

import yaml

_VERSION_RE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")

# ObjectMeta fields a client may send; anything else under metadata is dropped on decode.
OBJECT_META_FIELDS = {
    "name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
    "finalizers", "managedFields", "selfLink",
}


def version_priority_key(version):
    """Sort key for Kubernetes version priority: GA > beta > alpha, higher numbers first,
    then anything not kube-like, alphabetically."""
    m = _VERSION_RE.match(version)
    if not m:
        return (3, 0, 0, version)
    major, stage, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -major, -minor, "")


class Version:
    def __init__(self, name, schema=None, columns=None, deprecated=False, warning=None, status=False):
        self.name = name
        self.schema = schema
        self.columns = columns or []
        self.deprecated = deprecated
        self.warning = warning
        self.status_subresource = status


class ResourceType:
    def __init__(self, group, plural, singular, kind, namespaced, versions, storage_version,
                 short_names=(), categories=(), is_crd=True, field_labels=()):
        self.group = group
        self.plural = plural
        self.singular = singular
        self.kind = kind
        self.list_kind = kind + "List"
        self.namespaced = namespaced
        self.versions = versions  # name -> Version, served only
        self.storage_version = storage_version
        self.short_names = list(short_names)
        self.categories = list(categories)
        self.is_crd = is_crd
        self.field_labels = {"metadata.name", "metadata.namespace", *field_labels}

    @property
    def key(self):
        return (self.group, self.plural)

    @property
    def qualified(self):
        """The GroupResource string used in NotFound/Forbidden/Conflict messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def qualified_kind(self):
        """The GroupKind string used in Invalid messages."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    def served_versions(self):
        return sorted(self.versions, key=version_priority_key)

    def api_version(self, version):
        return f"{self.group}/{version}" if self.group else version

    def has_status(self, version):
        v = self.versions.get(version)
        return bool(v and v.status_subresource)


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_crd_cache = {}


def _read_crd(path):
    # CRDs are large; parse each file once per process (servers never mutate the result).
    key = (os.path.abspath(path), os.path.getmtime(path))
    if key not in _crd_cache:
        with open(path) as f:
            _crd_cache[key] = yaml.load(f, Loader=_Loader)
    return _crd_cache[key]


def load_crd(path_or_dict, served_override=None):
    crd = path_or_dict if isinstance(path_or_dict, dict) else _read_crd(path_or_dict)
    spec = crd["spec"]
    names = spec["names"]
    versions = {}
    storage = None
    crd_versions = spec["versions"]
    for v in crd_versions:
        if v.get("storage"):
            storage = v["name"]
        if not v.get("served"):
            continue
        versions[v["name"]] = Version(
            v["name"],
            schema=(v.get("schema") or {}).get("openAPIV3Schema"),
            columns=v.get("additionalPrinterColumns") or [],
            deprecated=bool(v.get("deprecated")),
            warning=v.get("deprecationWarning"),
            status="status" in (v.get("subresources") or {}),
        )
    if served_override is not None:
        template = versions.get(storage) or next(iter(versions.values()))
        restricted = {}
        for name in served_override:
            # A version the CRD does not define (e.g. v1beta1 for a Flux 0.x cluster) borrows the
            # storage version's schema: spec.suspend lives at the same path in every version.
            restricted[name] = versions.get(name) or Version(
                name, copy.deepcopy(template.schema), template.columns, status=template.status_subresource)
        versions = restricted
    return ResourceType(
        group=spec["group"], plural=names["plural"], singular=names.get("singular", names["kind"].lower()),
        kind=names["kind"], namespaced=spec.get("scope", "Namespaced") == "Namespaced",
        versions=versions, storage_version=storage or crd_versions[0]["name"],
        short_names=names.get("shortNames") or [], categories=names.get("categories") or [])


def core_types():
    def core(plural, singular, kind, namespaced, short, field_labels=()):
        return ResourceType("", plural, singular, kind, namespaced, {"v1": Version("v1")}, "v1",
                            short_names=short, is_crd=False, field_labels=field_labels)
    return [
        core("namespaces", "namespace", "Namespace", False, ["ns"], ["status.phase"]),
        core("events", "event", "Event", True, ["ev"], [
            "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
            "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
            "reason", "reportingComponent", "source", "type"]),
        core("configmaps", "configmap", "ConfigMap", True, ["cm"]),
        # batch/v1, stored as sent (no schema): enough for clients that list window CronJobs.
        ResourceType("batch", "cronjobs", "cronjob", "CronJob", True, {"v1": Version("v1", status=True)}, "v1",
                     short_names=["cj"], categories=["all"], is_crd=False),
        core("serviceaccounts", "serviceaccount", "ServiceAccount", True, ["sa"]),
        # rbac.authorization.k8s.io/v1, stored as sent; what is stored also authorizes (server.py
        # bound_rules), as the apiserver's RBAC authorizer reads the same objects.
        *[ResourceType(RBAC_GROUP, plural, kind.lower(), kind, namespaced, {"v1": Version("v1")}, "v1", is_crd=False)
          for plural, kind, namespaced in (("roles", "Role", True), ("rolebindings", "RoleBinding", True),
                                           ("clusterroles", "ClusterRole", False),
                                           ("clusterrolebindings", "ClusterRoleBinding", False))],
    ]


RBAC_GROUP = "rbac.authorization.k8s.io"


# --- structural schema ---------------------------------------------------------------------------

def _type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _type_ok(expected, value, schema):
    if schema.get("x-kubernetes-int-or-string"):
        return isinstance(value, (int, str)) and not isinstance(value, bool)
    actual = _type_name(value)
    if expected == "integer" and actual == "number":
        return float(value).is_integer()
    if expected == "number":
        return actual in ("integer", "number")
    return actual == expected


def _fmt(value):
    return json.dumps(value)


def prune(value, schema, path, unknown):
    """Drop fields the schema does not declare (recording their paths), as the apiserver does."""
    if schema is None or not isinstance(value, (dict, list)):
        return value
    if isinstance(value, list):
        items = schema.get("items")
        return [prune(v, items, f"{path}[{i}]", unknown) for i, v in enumerate(value)] if items else value
    if schema.get("x-kubernetes-preserve-unknown-fields") and "properties" not in schema:
        return value
    props = schema.get("properties")
    addl = schema.get("additionalProperties")
    out = {}
    for k, v in value.items():
        sub = f"{path}.{k}" if path else k
        if props is not None and k in props:
            out[k] = prune(v, props[k], sub, unknown)
        elif isinstance(addl, dict):
            out[k] = prune(v, addl, sub, unknown)
        elif addl is True or schema.get("x-kubernetes-preserve-unknown-fields"):
            out[k] = v
        else:
            unknown.append(sub)
    return out


def validate(value, schema, path, errors):
    """Append (field, reason, message) tuples in the wording of kube-openapi's validator."""
    if schema is None:
        return
    expected = schema.get("type")
    if value is None:
        if not schema.get("nullable") and expected:
            errors.append((path, "FieldValueTypeInvalid",
                           f'Invalid value: "null": {path} in body must be of type {expected}: "null"'))
        return
    if expected and not _type_ok(expected, value, schema):
        actual = _type_name(value)
        errors.append((path, "FieldValueTypeInvalid",
                       f'Invalid value: "{actual}": {path} in body must be of type {expected}: "{actual}"'))
        return
    if "enum" in schema and value not in schema["enum"]:
        supported = ", ".join(_fmt(e) for e in schema["enum"])
        errors.append((path, "FieldValueNotSupported", f"Unsupported value: {_fmt(value)}: supported values: {supported}"))
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append((path, "FieldValueInvalid",
                           f"Invalid value: {_fmt(value)}: {path} in body should match '{schema['pattern']}'"))
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append((path, "FieldValueTooLong",
                           f"Too long: may not be more than {schema['maxLength']} bytes"))
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append((path, "FieldValueInvalid",
                           f"Invalid value: {_fmt(value)}: {path} in body should be at least {schema['minLength']} chars long"))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append((path, "FieldValueInvalid",
                           f"Invalid value: {value}: {path} in body should be greater than or equal to {schema['minimum']}"))
        if "maximum" in schema and value > schema["maximum"]:
            errors.append((path, "FieldValueInvalid",
                           f"Invalid value: {value}: {path} in body should be less than or equal to {schema['maximum']}"))
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for req in schema.get("required") or []:
            if req not in value:
                errors.append((f"{path}.{req}" if path else req, "FieldValueRequired", "Required value"))
        addl = schema.get("additionalProperties")
        for k, v in value.items():
            sub = f"{path}.{k}" if path else k
            if k in props:
                validate(v, props[k], sub, errors)
            elif isinstance(addl, dict):
                validate(v, addl, sub, errors)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            validate(v, schema["items"], f"{path}[{i}]", errors)


def apply_defaults(value, schema):
    if schema is None:
        return
    if isinstance(value, dict):
        for k, sub in (schema.get("properties") or {}).items():
            if k not in value and "default" in sub:
                value[k] = copy.deepcopy(sub["default"])
            if k in value:
                apply_defaults(value[k], sub)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for v in value:
            apply_defaults(v, schema["items"])


def check_object(rtype, version, obj, field_validation):
    """Prune, validate and default a custom resource in place of the apiserver's decode+validate.

    Returns (object, warnings, errors); errors are (field, reason, message)."""
    ver = rtype.versions.get(version)
    schema = ver.schema if ver else None
    warnings, errors = [], []
    meta = obj.get("metadata") or {}
    unknown_meta = [f"metadata.{k}" for k in meta if k not in OBJECT_META_FIELDS]
    obj["metadata"] = {k: v for k, v in meta.items() if k in OBJECT_META_FIELDS}
    if schema is None:
        return obj, [f'unknown field "{f}"' for f in unknown_meta], errors
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    props = {k: v for k, v in (schema.get("properties") or {}).items() if k not in ("apiVersion", "kind", "metadata")}
    unknown = list(unknown_meta)
    body = prune(body, dict(schema, properties=props), "", unknown)
    if unknown and field_validation == "Strict":
        raise StrictDecodingError(rtype, version, unknown)
    if field_validation != "Ignore":
        warnings = [f'unknown field "{f}"' for f in unknown]
    # Non-nullable nulls are dropped before validation, like the apiserver's defaulting pass.
    body = _drop_nulls(body, dict(schema, properties=props))
    for k, sub in props.items():
        if k in body:
            validate(body[k], sub, k, errors)
    apply_defaults(body, dict(schema, properties=props))
    out = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": obj["metadata"]}
    out.update(body)
    return out, warnings, errors


def _drop_nulls(value, schema):
    if not isinstance(value, dict) or schema is None:
        return value
    props = schema.get("properties") or {}
    addl = schema.get("additionalProperties") if isinstance(schema.get("additionalProperties"), dict) else None
    out = {}
    for k, v in value.items():
        sub = props.get(k, addl)
        if v is None and not (sub or {}).get("nullable"):
            continue
        out[k] = _drop_nulls(v, sub) if isinstance(v, dict) else v
    return out


class StrictDecodingError(Exception):
    def __init__(self, rtype, version, unknown):
        fields = ", ".join(f'unknown field "{f}"' for f in unknown)
        super().__init__(f'{rtype.kind} in version "{version}" cannot be handled as a {rtype.kind}: '
                         f"strict decoding error: {fields}")


# --- printer columns -----------------------------------------------------------------------------

_FILTER_RE = re.compile(r'^\[\?\(@\.([\w.]+)\s*==\s*["\']([^"\']*)["\']\)\]')


def jsonpath(obj, expr):
    """The subset of JSONPath that CRD additionalPrinterColumns use: dotted fields, [n], [*] and
    [?(@.field=="value")] filters. Returns the list of matches."""
    current = [obj]
    rest = expr.strip()
    if rest.startswith("{") and rest.endswith("}"):
        rest = rest[1:-1]
    while rest:
        if rest.startswith("."):
            m = re.match(r"^\.([\w\-/]+)", rest)
            if not m:
                return []
            key = m.group(1)
            current = [c[key] for c in current if isinstance(c, dict) and key in c]
            rest = rest[m.end():]
        elif rest.startswith("[?"):
            m = _FILTER_RE.match(rest)
            if not m:
                return []
            field, want = m.group(1), m.group(2)
            nxt = []
            for c in current:
                for item in c if isinstance(c, list) else []:
                    got = item
                    for part in field.split("."):
                        got = got.get(part) if isinstance(got, dict) else None
                    if got is not None and str(got) == want:
                        nxt.append(item)
            current = nxt
            rest = rest[m.end():]
        elif rest.startswith("["):
            end = rest.index("]")
            idx = rest[1:end]
            nxt = []
            for c in current:
                if isinstance(c, list):
                    if idx == "*":
                        nxt.extend(c)
                    elif idx.lstrip("-").isdigit() and -len(c) <= int(idx) < len(c):
                        nxt.append(c[int(idx)])
            current = nxt
            rest = rest[end + 1:]
        else:
            return []
    return current
