"""Patch application (RFC 7386 merge patch, RFC 6902 JSON patch) and managedFields bookkeeping."""

import copy
import json


class PatchError(Exception):
    """A patch that decodes but cannot be applied (the apiserver answers 422 for JSON patch)."""


class PatchDecodeError(Exception):
    """A patch body that is not a valid patch document (400)."""


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f'invalid JSON pointer: "{path}"')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _index(container, token, path, allow_end=False):
    if allow_end and token == "-":
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"invalid array index {token!r} in path {path!r}")
    idx = int(token)
    if idx > len(container) or (idx == len(container) and not allow_end):
        raise PatchError(f"Unable to access invalid index: {idx}: invalid index referenced")
    return idx


def _parent(doc, tokens, op, path):
    cur = doc
    for tok in tokens[:-1]:
        if isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        elif isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur):
            cur = cur[int(tok)]
        else:
            raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": missing value')
    return cur


def _get(doc, path, op):
    tokens = _pointer(path)
    if not tokens:
        return doc
    parent = _parent(doc, tokens, op, path)
    last = tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": missing value')


def _add(doc, path, value, op="add"):
    tokens = _pointer(path)
    if not tokens:
        return value
    parent = _parent(doc, tokens, op, path)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, path, allow_end=True), value)
    else:
        raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": missing value')
    return doc


def _remove(doc, path, op="remove"):
    tokens = _pointer(path)
    if not tokens:
        raise PatchError(f"{op} operation does not apply: cannot remove the document root")
    parent = _parent(doc, tokens, op, path)
    last = tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": missing value')


def json_patch(doc, operations):
    if not isinstance(operations, list):
        raise PatchDecodeError("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = copy.deepcopy(doc)
    for op in operations:
        if not isinstance(op, dict):
            raise PatchDecodeError("json: cannot unmarshal into Go value of type jsonpatch.Operation")
        kind, path = op.get("op"), op.get("path")
        if not isinstance(path, str):
            raise PatchError(f"{kind} operation does not apply: missing path")
        if kind in ("add", "replace", "test") and "value" not in op:
            raise PatchError(f"{kind} operation does not apply: missing value")
        value = copy.deepcopy(op.get("value"))
        if kind == "add":
            doc = _add(doc, path, value)
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            if _pointer(path):
                _get(doc, path, "replace")
                _remove(doc, path, "replace")
            doc = _add(doc, path, value, "replace")
        elif kind == "test":
            if _get(doc, path, "test") != value:
                raise PatchError(f"testing value {path} failed: test failed")
        elif kind in ("move", "copy"):
            src = op.get("from")
            if not isinstance(src, str):
                raise PatchError(f"{kind} operation does not apply: missing from path")
            moved = copy.deepcopy(_get(doc, src, kind))
            if kind == "move":
                _remove(doc, src, kind)
            doc = _add(doc, path, moved, kind)
        else:
            raise PatchError(f"Unexpected kind: {kind}")
    return doc


def parse_json(body):
    try:
        return json.loads(body.decode("utf-8") if isinstance(body, bytes) else body)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PatchDecodeError(f"error decoding patch: {e}") from None


# --- managedFields --------------------------------------------------------------------------------

_MISSING = object()
_TRACKED_META = ("labels", "annotations", "finalizers", "ownerReferences")


def tracked_leaves(obj, subresource=None):
    """Leaf paths (tuples) of the user-owned fields: maps recurse, lists and scalars are atomic,
    as for a CRD without list-type markers."""
    out = {}

    def walk(value, path):
        if isinstance(value, dict) and value:
            for k, v in value.items():
                walk(v, path + (k,))
        else:
            out[path] = value

    for key, value in obj.items():
        if key in ("apiVersion", "kind"):
            continue
        if key == "metadata":
            if subresource:
                continue
            for mk in _TRACKED_META:
                if mk in (value or {}):
                    walk(value[mk], ("metadata", mk))
        elif (key == "status") == (subresource == "status"):
            walk(value, (key,))
    return out


def paths_to_fields(paths):
    root = {}
    for path in sorted(paths):
        node = root
        for part in path:
            node = node.setdefault("f:" + part, {})
    return root


def fields_to_paths(fields, prefix=()):
    paths = set()
    for key, sub in (fields or {}).items():
        if key == "." or not key.startswith("f:"):
            continue
        path = prefix + (key[2:],)
        children = {k: v for k, v in (sub or {}).items() if k != "."}
        if children:
            paths |= fields_to_paths(children, path)
        else:
            paths.add(path)
    return paths


def covers(owned, path):
    # An owned path covers a changed path when either contains the other (a map replaced by a leaf).
    n = min(len(owned), len(path))
    return owned[:n] == path[:n]


def record_update(entries, old, new, manager, api_version, now, subresource=None, operation="Update"):
    """Return the managedFields after `manager` changed `old` into `new` with an Update:
    it owns what it changed (a value written again unchanged is not taken); every other manager
    loses those fields; a removed field leaves every entry. Its entry's time is the time of its last
    write that set a field."""
    old_l = tracked_leaves(old, subresource) if old else {}
    new_l = tracked_leaves(new, subresource)
    changed = {p for p, v in new_l.items() if old_l.get(p, _MISSING) != v}
    removed = set(old_l) - set(new_l)
    if not changed and not removed:
        return copy.deepcopy(entries or [])
    out, mine = [], None
    for entry in entries or []:
        entry = copy.deepcopy(entry)
        paths = fields_to_paths(entry.get("fieldsV1"))
        same = (entry.get("manager") == manager and entry.get("operation") == operation
                and entry.get("subresource") == subresource)
        paths = {p for p in paths if not any(covers(p, c) for c in removed)}
        if same:
            mine = (len(out), paths)
            out.append(entry)
            continue
        paths = {p for p in paths if not any(covers(p, c) for c in changed)}
        if paths:
            entry["fieldsV1"] = paths_to_fields(paths)
            out.append(entry)
    if not changed:
        # Only removals: the writer takes no field, so (as the API server's managedFieldsUpdater)
        # its entry keeps its time and only loses what was removed.
        if mine:
            out[mine[0]]["fieldsV1"] = paths_to_fields(mine[1])
        return [e for e in out if fields_to_paths(e.get("fieldsV1"))]
    mine_paths = (mine[1] if mine else set()) | changed
    entry = {"manager": manager, "operation": operation, "apiVersion": api_version, "time": now,
             "fieldsType": "FieldsV1", "fieldsV1": paths_to_fields(mine_paths)}
    if subresource:
        entry["subresource"] = subresource
    if mine:
        out[mine[0]] = entry
    else:
        out.append(entry)
    return [e for e in out if fields_to_paths(e.get("fieldsV1"))]


def get_path(obj, path):
    cur = obj
    for part in path:
        if not isinstance(cur, dict) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


def set_path(obj, path, value):
    cur = obj
    for part in path[:-1]:
        if not isinstance(cur.get(part), dict):
            cur[part] = {}
        cur = cur[part]
    cur[path[-1]] = copy.deepcopy(value)


def delete_path(obj, path):
    cur = obj
    for part in path[:-1]:
        if not isinstance(cur, dict) or part not in cur:
            return
        cur = cur[part]
    if isinstance(cur, dict):
        cur.pop(path[-1], None)


_META_ORDER = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
               "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
               "finalizers", "managedFields")


def ordered(obj):
    """Field order of the apiserver's JSON encoder: apiVersion, kind, metadata (in ObjectMeta order) first."""
    out = {k: obj[k] for k in ("apiVersion", "kind", "metadata") if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        m = {k: meta[k] for k in _META_ORDER if k in meta}
        m.update((k, v) for k, v in meta.items() if k not in m)
        out["metadata"] = m
    return out
