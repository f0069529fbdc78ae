"""Label and field selectors with the grammar and semantics of k8s.io/apimachinery/pkg/labels."""

import re


class SelectorError(ValueError):
    """Maps to a 400 BadRequest, as the apiserver does for an unparsable selector."""


_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY_RE = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?" + _NAME + "$")
_VALUE_RE = re.compile(r"^(" + _NAME + ")?$")
_SPECIAL = set(" \t\n,()=!<>")


def _tokenize(text):
    tokens, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith(("!=", "=="), i):
            tokens.append(text[i:i + 2])
            i += 2
        elif c in ",()=!<>":
            tokens.append(c)
            i += 1
        else:
            j = i
            while j < len(text) and text[j] not in _SPECIAL:
                j += 1
            tokens.append(("id", text[i:j]))
            i = j
    return tokens


def _check_key(key):
    if len(key) > 317 or not _KEY_RE.match(key):
        raise SelectorError(
            f'unable to parse requirement: key: Invalid value: "{key}": name part must consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
    return key


def _check_value(key, value):
    if not _VALUE_RE.match(value):
        raise SelectorError(
            f'unable to parse requirement: values[0][{key}]: Invalid value: "{value}": a valid label must be '
            "an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character")
    return value


def _show(tok):
    return tok[1] if isinstance(tok, tuple) else tok


class LabelSelector:
    """Requirements are ANDed; each is (key, op, values)."""

    def __init__(self, text):
        self.requirements = []
        tokens = _tokenize(text or "")
        pos = 0

        def peek():
            return tokens[pos] if pos < len(tokens) else None

        def ident(after):
            nonlocal pos
            tok = peek()
            if not isinstance(tok, tuple):
                raise SelectorError(f"found '{_show(tok) if tok else ''}', expected: identifier after '{after}'")
            pos += 1
            return tok[1]

        while pos < len(tokens):
            tok = peek()
            if tok == "!":
                pos += 1
                self.requirements.append((_check_key(ident("!")), "!", ()))
            else:
                if not isinstance(tok, tuple):
                    raise SelectorError(f"found '{_show(tok)}', expected: !, identifier, or 'end of string'")
                pos += 1
                key = _check_key(tok[1])
                op = peek()
                if op is None or op == ",":
                    self.requirements.append((key, "exists", ()))
                elif op in ("=", "==", "!="):
                    pos += 1
                    nxt = peek()
                    value = ""
                    if isinstance(nxt, tuple):
                        value = nxt[1]
                        pos += 1
                    elif nxt not in (None, ","):
                        raise SelectorError(f"found '{_show(nxt)}', expected: identifier")
                    self.requirements.append((key, "!=" if op == "!=" else "=", (_check_value(key, value),)))
                elif op in (("id", "in"), ("id", "notin")):
                    pos += 1
                    if peek() != "(":
                        raise SelectorError(f"found '{_show(peek()) if peek() else ''}', expected: '('")
                    pos += 1
                    values = []
                    while True:
                        nxt = peek()
                        if isinstance(nxt, tuple):
                            values.append(_check_value(key, nxt[1]))
                            pos += 1
                            nxt = peek()
                        else:
                            values.append("")
                        if nxt == ",":
                            pos += 1
                        elif nxt == ")":
                            pos += 1
                            break
                        else:
                            raise SelectorError(f"found '{_show(nxt) if nxt else ''}', expected: ',' or ')'")
                    self.requirements.append((key, op[1], tuple(values)))
                elif op in ("<", ">"):
                    pos += 1
                    value = ident(op)
                    try:
                        int(value)
                    except ValueError:
                        raise SelectorError(
                            "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer")
                    self.requirements.append((key, op, (value,)))
                else:
                    raise SelectorError(f"found '{_show(op)}', expected: =, !=, ==, in, notin")
            if pos < len(tokens):
                if peek() != ",":
                    raise SelectorError(f"found '{_show(peek())}', expected: ',' or 'end of string'")
                pos += 1
                if pos == len(tokens):
                    raise SelectorError("found '', expected: identifier after ','")

    def matches(self, labels):
        labels = labels or {}
        for key, op, values in self.requirements:
            present = key in labels
            value = labels.get(key)
            if op == "exists" and not present:
                return False
            if op == "!" and present:
                return False
            if op in ("=", "in") and (not present or value not in values):
                return False
            if op in ("!=", "notin") and present and value in values:
                return False
            if op in ("<", ">"):
                try:
                    n = int(value)
                except (TypeError, ValueError):
                    return False
                if (op == "<" and not n < int(values[0])) or (op == ">" and not n > int(values[0])):
                    return False
        return True


def _lookup(obj, dotted):
    cur = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    return "" if cur is None else str(cur)


class FieldSelector:
    """Only exact (in)equality on the fields the resource supports, like the real server."""

    def __init__(self, text, supported):
        self.requirements = []
        for term in filter(None, (t.strip() for t in re.split(r"(?<!\\),", text or ""))):
            m = re.match(r"^([^!=]+?)\s*(==|=|!=)\s*(.*)$", term)
            if not m:
                raise SelectorError(f"invalid selector: '{text}'; can't understand '{term}'")
            field, op, value = m.group(1), m.group(2), m.group(3).replace("\\,", ",")
            if field not in supported:
                raise SelectorError(f'field label not supported: {field}')
            self.requirements.append((field, op != "!=", value))

    def matches(self, obj):
        return all((_lookup(obj, f) == v) == eq for f, eq, v in self.requirements)

    def exact_name(self):
        """The name a `metadata.name=X` term pins, which RBAC resourceNames may authorize a list by."""
        names = [v for f, eq, v in self.requirements if f == "metadata.name" and eq]
        return names[0] if len(names) == 1 else None
