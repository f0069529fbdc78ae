"""metav1.Status errors with the apiserver's reasons and message wording."""

REASONS = {
    400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
    406: "NotAcceptable", 409: "Conflict", 410: "Expired", 413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
    503: "ServiceUnavailable", 504: "Timeout",
}


class ApiError(Exception):
    def __init__(self, code, message, reason=None, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or REASONS.get(code, "")
        self.details = details
        self.headers = list(headers or [])

    def status(self):
        st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
              "message": self.message}
        if self.reason:
            st["reason"] = self.reason
        if self.details is not None:
            st["details"] = self.details
        st["code"] = self.code
        return st


def _details(rtype, name=None, **extra):
    d = {}
    if name:
        d["name"] = name
    if rtype is not None:
        if rtype.group:
            d["group"] = rtype.group
        d["kind"] = rtype.plural
    d.update(extra)
    return d


def unauthorized():
    return ApiError(401, "Unauthorized")


def not_found(rtype, name):
    return ApiError(404, f'{rtype.qualified} "{name}" not found', details=_details(rtype, name))


def namespace_not_found(ns):
    return ApiError(404, f'namespaces "{ns}" not found', details={"name": ns, "kind": "namespaces"})


def continue_expired():
    # The apiserver's words when etcd compacted past a continue token (storage/errors.go).
    return ApiError(410, "The provided continue parameter is too old to display a consistent list result. "
                         "You can start a new list without the continue parameter, or use the continue token in "
                         "this response to retrieve the remainder of the results.", reason="Expired", details={})


def no_route():
    return ApiError(404, "the server could not find the requested resource", details={})


def forbidden(rtype_group, resource, name, message):
    d = {}
    if name:
        d["name"] = name
    if rtype_group:
        d["group"] = rtype_group
    d["kind"] = resource
    return ApiError(403, message, details=d)


def forbidden_path(user, verb, path):
    return ApiError(403, f'forbidden: User "{user}" cannot {verb} path "{path}"', details={})


def conflict(rtype, name):
    return ApiError(409, f'Operation cannot be fulfilled on {rtype.qualified} "{name}": the object has been '
                         "modified; please apply your changes to the latest version and try again",
                    details=_details(rtype, name))


def already_exists(rtype, name):
    return ApiError(409, f'{rtype.qualified} "{name}" already exists', reason="AlreadyExists",
                    details=_details(rtype, name))


def invalid(rtype, name, errors):
    """errors: (field, reason, message-without-field); aggregated as the apiserver does."""
    parts = [f"{field}: {msg}" for field, _, msg in errors]
    agg = parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    details = {"name": name} if name else {}
    if rtype.group:
        details["group"] = rtype.group
    details["kind"] = rtype.kind
    details["causes"] = [{"reason": r, "message": m, "field": f} for f, r, m in errors]
    return ApiError(422, f'{rtype.qualified_kind} "{name}" is invalid: {agg}', details=details)


def bad_request(message):
    return ApiError(400, message)


def method_not_allowed():
    return ApiError(405, "the server does not allow this method on the requested resource", details={})


def unsupported_media_type(accepted):
    return ApiError(415, "the body of the request was in an unknown format - accepted media types include: "
                    + ", ".join(accepted))
