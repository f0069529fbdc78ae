"""The object store: one copy of each object (in its storage version), a global resourceVersion,
and the write semantics of the apiserver's generic registry for custom resources."""

import base64
import bisect
import copy
import datetime
import json
import random
import threading
import uuid

from . import errors, objects, schema
from .objects import PatchDecodeError, PatchError
from .selection import FieldSelector, LabelSelector, SelectorError

MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"

SYSTEM_META = ("uid", "creationTimestamp", "generation", "resourceVersion", "managedFields",
               "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")
RECONCILE_DISABLED_KEY = "kustomize.toolkit.fluxcd.io/reconcile"


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _without(obj, *keys):
    return {k: v for k, v in obj.items() if k not in keys}


def _spec_part(obj):
    # What bumps metadata.generation for a custom resource: anything but metadata and status.
    return _without(obj, "apiVersion", "kind", "metadata", "status")


class WriteResult:
    def __init__(self, obj, changed, warnings=()):
        self.obj = obj
        self.changed = changed
        self.warnings = list(warnings)


class Store:
    def __init__(self, rtypes, on_change=None):
        self.lock = threading.RLock()
        self.types = {t.key: t for t in rtypes}
        self._objects = {t.key: {} for t in rtypes}
        self._rv = 1000
        self.writes = 0
        # Compaction, as etcd's: continue tokens from an older epoch answer 410 Expired.
        # compact_after_pages > 0 compacts once that many more LIST pages have been served.
        self.epoch = 0
        self.compact_after_pages = 0
        self.on_change = on_change or (lambda rtype, obj: None)
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            self.ensure_namespace(ns)

    # --- lookup -------------------------------------------------------------------------------

    def find_type(self, name):
        """Resolve a kind, plural, singular or short name (case-insensitive) to a ResourceType."""
        low = name.lower()
        for t in self.types.values():
            if low in (t.plural, t.singular, t.kind.lower(), *t.short_names):
                return t
        raise KeyError(f"unknown resource {name!r}")

    def type_for(self, group, plural):
        return self.types.get((group, plural))

    def groups(self):
        """Served API groups of custom resources: name -> versions in priority order."""
        out = {}
        for t in self.types.values():
            if t.group and t.versions:
                versions = set(out.get(t.group, [])) | set(t.versions)
                out[t.group] = sorted(versions, key=schema.version_priority_key)
        return out

    def current_rv(self):
        return str(self._rv)

    def _next_rv(self):
        self._rv += 1
        return str(self._rv)

    def raw(self, rtype, ns, name):
        return self._objects[rtype.key].get((ns or "", name))

    def get_copy(self, rtype, ns, name):
        with self.lock:
            obj = self.raw(rtype, ns, name)
            return copy.deepcopy(obj) if obj is not None else None

    def present(self, rtype, obj, version):
        out = copy.deepcopy(obj)
        out["apiVersion"] = rtype.api_version(version)
        out["kind"] = rtype.kind
        return objects.ordered(out)

    def namespace_exists(self, ns):
        return ("", ns) in self._objects[("", "namespaces")]

    def ensure_namespace(self, ns):
        with self.lock:
            if ns and not self.namespace_exists(ns):
                self._store(self.types[("", "namespaces")], {
                    "apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}},
                    "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}, None)

    # --- list ---------------------------------------------------------------------------------

    def snapshot(self, rtype):
        """Every stored object of the type, copied: for the server's own reads (RBAC), which are
        no client's LIST and so must not count towards compact_after_pages."""
        with self.lock:
            return [copy.deepcopy(o) for o in self._objects[rtype.key].values()]

    def list(self, rtype, ns, label_selector="", field_selector="", limit=0, continue_token=""):
        """Returns (items, continue, remainingItemCount or None), items sorted like etcd keys."""
        try:
            lsel = LabelSelector(label_selector)
            fsel = FieldSelector(field_selector, rtype.field_labels)
        except SelectorError as e:
            raise errors.bad_request(str(e))
        start = ""
        if continue_token:
            try:
                decoded = json.loads(base64.b64decode(continue_token))
                start = decoded["start"]
            except (ValueError, KeyError, TypeError):
                raise errors.bad_request("continue key is not valid: illegal base64 data")
            if decoded.get("epoch", 0) != self.epoch:
                raise errors.continue_expired()
        with self.lock:
            ordered = sorted((f"{k[0]}/{k[1]}", k) for k in self._objects[rtype.key] if ns is None or k[0] == ns)
            matched, more = [], 0
            for _, key in ordered[bisect.bisect_left(ordered, (start,)):]:
                obj = self._objects[rtype.key][key]
                if lsel.matches((obj.get("metadata") or {}).get("labels")) and fsel.matches(obj):
                    if limit and len(matched) == limit:
                        # Only the page is copied: a paged LIST of a large store stays linear.
                        more += 1
                        if label_selector or field_selector:
                            break
                        continue
                    matched.append(copy.deepcopy(obj))
            cont, remaining = "", None
            if more:
                last = matched[-1]["metadata"]
                nxt = f"{last.get('namespace', '')}/{last['name']}\x00"
                cont = base64.b64encode(json.dumps(
                    {"v": "meta.k8s.io/v1", "rv": self._rv, "start": nxt, "epoch": self.epoch}).encode()).decode()
                if not label_selector and not field_selector:
                    remaining = more
            if self.compact_after_pages:
                self.compact_after_pages -= 1
                if not self.compact_after_pages:
                    self.epoch += 1
            return matched, cont, remaining

    # --- writes -------------------------------------------------------------------------------

    def _store(self, rtype, obj, manager, subresource=None, old=None, api_version=None, operation="Update"):
        meta = obj["metadata"]
        now = now_rfc3339()
        if old is None:
            meta.setdefault("uid", str(uuid.uuid4()))
            meta.setdefault("creationTimestamp", now)
            if rtype.is_crd:
                meta.setdefault("generation", 1)
        if manager is not None:
            meta["managedFields"] = objects.record_update(
                (old or {}).get("metadata", {}).get("managedFields"), old, obj, manager,
                api_version or obj.get("apiVersion"), now, subresource, operation)
        if not meta.get("managedFields"):
            meta.pop("managedFields", None)
        meta["resourceVersion"] = self._next_rv()
        obj["apiVersion"] = rtype.api_version(rtype.storage_version)
        obj["kind"] = rtype.kind
        self._objects[rtype.key][(meta.get("namespace", ""), meta["name"])] = objects.ordered(obj)
        self.on_change(rtype, obj)
        return obj

    def _check(self, rtype, version, obj, field_validation):
        try:
            obj, warnings, errs = schema.check_object(rtype, version, obj, field_validation)
        except schema.StrictDecodingError as e:
            raise errors.bad_request(str(e))
        if not rtype.is_crd and rtype.kind == "Event":
            errs += _validate_event(obj)
        return obj, warnings, errs

    def create(self, rtype, version, ns, body, manager, dry_run=False, field_validation="Warn",
               count_write=True):
        if not isinstance(body, dict):
            raise errors.bad_request("the body of the request was not a JSON object")
        body = copy.deepcopy(body)
        meta = body.setdefault("metadata", {}) if isinstance(body.get("metadata"), dict) else None
        if meta is None:
            raise errors.bad_request("metadata must be an object")
        _check_type_meta(rtype, version, body)
        if rtype.namespaced:
            _check_namespace(meta, ns)
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        with self.lock:
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = meta["generateName"] + "".join(
                    random.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
            name = meta.get("name") or ""
            if not name:
                raise errors.invalid(rtype, "", [("metadata.name", "FieldValueRequired",
                                                  "Required value: name or generateName is required")])
            for k in SYSTEM_META:
                meta.pop(k, None)
            if rtype.has_status(version):
                body.pop("status", None)
            obj, warnings, errs = self._check(rtype, version, body, field_validation)
            if errs:
                raise errors.invalid(rtype, name, errs)
            if rtype.namespaced and not self.namespace_exists(ns):
                raise errors.namespace_not_found(ns)
            if self.raw(rtype, ns, name) is not None:
                raise errors.already_exists(rtype, name)
            if dry_run:
                obj["metadata"].update(uid=str(uuid.uuid4()), creationTimestamp=now_rfc3339())
                if rtype.is_crd:
                    obj["metadata"]["generation"] = 1
                return WriteResult(self.present(rtype, obj, version), False, warnings)
            obj = self._store(rtype, obj, manager, api_version=rtype.api_version(version))
            if count_write:
                self.writes += 1
            return WriteResult(self.present(rtype, obj, version), True, warnings)

    def update(self, rtype, version, ns, name, body, subresource, manager, dry_run=False,
               field_validation="Warn"):
        """PUT: a full replacement guarded by metadata.resourceVersion."""
        if not isinstance(body, dict) or not isinstance(body.get("metadata", {}), dict):
            raise errors.bad_request("the body of the request was not a JSON object")
        body = copy.deepcopy(body)
        _check_type_meta(rtype, version, body)
        meta = body.setdefault("metadata", {})
        if meta.get("name") != name:
            raise errors.bad_request(f"the name of the object ({meta.get('name', '')}) does not match the name "
                                     f"on the URL ({name})")
        if rtype.namespaced:
            _check_namespace(meta, ns)
        with self.lock:
            old = self.raw(rtype, ns, name)
            if old is None:
                raise errors.not_found(rtype, name)
            rv = meta.get("resourceVersion")
            if not rv and rtype.is_crd:
                raise errors.invalid(rtype, name, [("metadata.resourceVersion", "FieldValueInvalid",
                                                    "Invalid value: 0x0: must be specified for an update")])
            if rv and rv != old["metadata"]["resourceVersion"]:
                raise errors.conflict(rtype, name)
            return self._commit(rtype, version, old, body, subresource, manager, dry_run, field_validation)

    def patch(self, rtype, version, ns, name, content_type, body, subresource, manager, dry_run=False,
              field_validation="Warn"):
        accepted = [JSON_PATCH, MERGE, APPLY] + ([] if rtype.is_crd else [STRATEGIC])
        if content_type not in accepted or content_type == APPLY:
            raise errors.unsupported_media_type(accepted)
        try:
            patch = objects.parse_json(body)
        except PatchDecodeError as e:
            raise errors.bad_request(str(e))
        with self.lock:
            old = self.raw(rtype, ns, name)
            if old is None:
                raise errors.not_found(rtype, name)
            current = self.present(rtype, old, version)
            try:
                if content_type == JSON_PATCH:
                    new = objects.json_patch(current, patch)
                else:
                    # Core types accept strategic merge; for the few fields they have, it acts
                    # like a merge patch (directives such as $patch are not modelled).
                    if not isinstance(patch, dict):
                        raise PatchDecodeError("json: cannot unmarshal array into Go value of type "
                                               "map[string]interface {}")
                    new = objects.merge_patch(current, patch)
            except PatchDecodeError as e:
                raise errors.bad_request(str(e))
            except PatchError as e:
                raise errors.ApiError(422, "the server rejected our request due to an error in our request",
                                      details={"causes": [{"reason": "UnexpectedServerResponse", "message": str(e)}]})
            if not isinstance(new, dict) or not isinstance(new.get("metadata", {}), dict):
                raise errors.bad_request("the patched object is not a JSON object")
            meta = new.setdefault("metadata", {})
            if meta.get("name") != name:
                raise errors.bad_request(f"the name of the object ({meta.get('name', '')}) does not match the "
                                         f"name on the URL ({name})")
            if rtype.namespaced:
                _check_namespace(meta, ns)
            if meta.get("resourceVersion", old["metadata"]["resourceVersion"]) != old["metadata"]["resourceVersion"]:
                raise errors.conflict(rtype, name)
            return self._commit(rtype, version, old, new, subresource, manager, dry_run, field_validation)

    def _commit(self, rtype, version, old, new, subresource, manager, dry_run, field_validation,
                count_write=True, operation="Update"):
        name = old["metadata"]["name"]
        new = copy.deepcopy(new)
        new["apiVersion"], new["kind"] = rtype.api_version(version), rtype.kind
        if subresource == "status":
            status = new.get("status")
            new = self.present(rtype, old, version)
            new.pop("status", None)
            if status is not None:
                new["status"] = status
        elif rtype.has_status(version):
            new.pop("status", None)
            if "status" in old:
                new["status"] = copy.deepcopy(old["status"])
        meta = new["metadata"]
        for k in SYSTEM_META + ("name", "namespace"):
            meta.pop(k, None)
            if k in old["metadata"]:
                meta[k] = copy.deepcopy(old["metadata"][k])
        new, warnings, errs = self._check(rtype, version, new, field_validation)
        if errs:
            raise errors.invalid(rtype, name, errs)
        new["apiVersion"] = old["apiVersion"]
        meta = new["metadata"]
        if new == old:
            return WriteResult(self.present(rtype, old, version), False, warnings)
        if rtype.is_crd and _spec_part(new) != _spec_part(old):
            meta["generation"] = old["metadata"].get("generation", 1) + 1
        if dry_run:
            return WriteResult(self.present(rtype, new, version), False, warnings)
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            self._delete_now(rtype, old)
            if count_write:
                self.writes += 1
            return WriteResult(self.present(rtype, new, version), True, warnings)
        obj = self._store(rtype, new, manager, subresource, old, rtype.api_version(version), operation)
        if count_write:
            self.writes += 1
        return WriteResult(self.present(rtype, obj, version), True, warnings)

    def _delete_now(self, rtype, obj):
        meta = obj["metadata"]
        del self._objects[rtype.key][(meta.get("namespace", ""), meta["name"])]
        self._rv += 1

    def delete(self, rtype, version, ns, name, dry_run=False):
        with self.lock:
            old = self.raw(rtype, ns, name)
            if old is None:
                raise errors.not_found(rtype, name)
            if dry_run:
                return self.present(rtype, old, version)
            if old["metadata"].get("finalizers"):
                if old["metadata"].get("deletionTimestamp"):
                    return self.present(rtype, old, version)
                new = copy.deepcopy(old)
                new["metadata"]["deletionTimestamp"] = now_rfc3339()
                new["metadata"]["deletionGracePeriodSeconds"] = 0
                self.writes += 1
                return self.present(rtype, self._store(rtype, new, None, old=old), version)
            self._delete_now(rtype, old)
            self.writes += 1
            return self.present(rtype, old, version)

    def delete_collection(self, rtype, version, ns, label_selector, field_selector, dry_run=False):
        items, _, _ = self.list(rtype, ns, label_selector, field_selector)
        return [self.delete(rtype, version, o["metadata"].get("namespace"), o["metadata"]["name"], dry_run)
                for o in items]

    # --- writes that are not client requests ----------------------------------------------------

    def put_direct(self, rtype, ns, name, obj, manager=None):
        """Create or replace as given (status included), filling metadata the server owns."""
        with self.lock:
            obj = copy.deepcopy(obj)
            meta = obj.setdefault("metadata", {})
            meta["name"] = name
            if rtype.namespaced:
                meta["namespace"] = ns
                self.ensure_namespace(ns)
            old = self.raw(rtype, ns, name)
            if old is not None:
                for k in ("uid", "creationTimestamp"):
                    meta.setdefault(k, old["metadata"].get(k))
                gen = old["metadata"].get("generation", 1)
                if rtype.is_crd:
                    meta["generation"] = gen + 1 if _spec_part(obj) != _spec_part(old) else gen
                meta.setdefault("managedFields", old["metadata"].get("managedFields"))
            ver = rtype.versions.get(rtype.storage_version)
            if ver and ver.schema:
                body = _without(obj, "apiVersion", "kind", "metadata")
                schema.apply_defaults(body, ver.schema)
                obj.update(body)
            return copy.deepcopy(self._store(rtype, obj, manager, old=old))

    def controller_write(self, rtype, ns, name, mutate, manager="kustomize-controller"):
        """Apply mutate(obj) to a copy and store it as a status write by a controller; no-ops are dropped."""
        with self.lock:
            old = self.raw(rtype, ns, name)
            if old is None:
                return None
            new = copy.deepcopy(old)
            mutate(new)
            if new == old:
                return old
            return self._store(rtype, new, manager, "status", old, old["apiVersion"])

    def parent_apply(self, rtype, ns, name, desired, manager="kustomize-controller"):
        """What a parent Kustomization's server-side apply does to this object (see flux-facts.md):
        skipped when reconcile is disabled on it; fields owned by kubectl* managers are taken over
        and then, like any field the parent applied before but no longer declares, removed unless
        another manager owns them; declared fields are forced. Returns False when skipped."""
        with self.lock:
            old = self.raw(rtype, ns, name)
            if old is None:
                return False
            meta = old["metadata"]
            for where in ("labels", "annotations"):
                if str((meta.get(where) or {}).get(RECONCILE_DISABLED_KEY, "")).lower() == "disabled":
                    return False
            entries = copy.deepcopy(meta.get("managedFields") or [])
            applied, others, kept = set(), set(), []
            for e in entries:
                paths = objects.fields_to_paths(e.get("fieldsV1"))
                if e.get("manager", "").startswith("kubectl") or (
                        e.get("manager") == manager and e.get("operation") == "Apply"):
                    applied |= paths
                else:
                    kept.append((e, paths))
                    if not e.get("subresource"):
                        others |= paths
            want = objects.tracked_leaves(desired)
            new = copy.deepcopy(old)
            for path in applied - set(want) - others:
                objects.delete_path(new, path)
            for path, value in want.items():
                objects.set_path(new, path, value)
            out = []
            for e, paths in kept:
                rest = {p for p in paths if not any(objects.covers(p, w) for w in want)}
                if rest:
                    e["fieldsV1"] = objects.paths_to_fields(rest)
                    out.append(e)
            out.append({"manager": manager, "operation": "Apply", "apiVersion": old["apiVersion"],
                        "time": now_rfc3339(), "fieldsType": "FieldsV1",
                        "fieldsV1": objects.paths_to_fields(set(want))})
            new["metadata"]["managedFields"] = out
            if rtype.is_crd and _spec_part(new) != _spec_part(old):
                new["metadata"]["generation"] = meta.get("generation", 1) + 1
            if new != old:
                self._store(rtype, new, None, old=old)
            return True


def _check_type_meta(rtype, version, body):
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if kind not in (None, "", rtype.kind):
        raise errors.bad_request(f"the kind in the data ({kind}) does not match the expected kind ({rtype.kind})")
    if api_version not in (None, "", rtype.api_version(version)):
        raise errors.bad_request(f"the API version in the data ({api_version}) does not match the expected "
                                 f"API version ({rtype.api_version(version)})")


def _check_namespace(meta, ns):
    # rest.checkName in k8s.io/apiserver: an empty namespace in the body means "the URL's".
    if meta.get("namespace") not in (None, "", ns):
        raise errors.bad_request(f"the namespace of the object ({meta['namespace']}) does not match the "
                                 f"namespace on the URL ({ns})")


def _validate_event(event):
    """The legacy-Event checks of ValidateEventCreate that a client can trip over."""
    errs = []
    ns = event["metadata"].get("namespace", "")
    involved = event.get("involvedObject") or {}
    if not event.get("eventTime"):
        ins = involved.get("namespace", "")
        if (not ins and ns not in ("", "default")) or (ins and ins != ns):
            errs.append(("involvedObject.namespace", "FieldValueInvalid",
                         f'Invalid value: "{ins}": does not match event.namespace'))
    else:
        for field in ("reportingComponent", "reportingInstance", "action", "reason"):
            if not event.get(field):
                errs.append((field, "FieldValueRequired", "Required value"))
    if event.get("type") and event["type"] not in ("Normal", "Warning"):
        errs.append(("type", "FieldValueNotSupported",
                     f'Unsupported value: "{event["type"]}": supported values: "Normal", "Warning"'))
    return errs
