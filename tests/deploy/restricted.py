"""Pod Security Standards "restricted" (baseline included), checked on a rendered pod spec.

Follows https://kubernetes.io/docs/concepts/security/pod-security-standards/ for the fields our
manifests can set; returns the violations as readable strings (empty list: passes)."""

ALLOWED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                   "projected", "secret"}


def violations(pod):
    out = []
    psc = pod.get("securityContext") or {}
    for host in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(host):
            out.append(f"{host} is set")
    for v in pod.get("volumes") or []:
        kinds = set(v) - {"name"}
        if not kinds <= ALLOWED_VOLUMES:
            out.append(f"volume {v['name']}: type {sorted(kinds - ALLOWED_VOLUMES)} not allowed")
    if psc.get("runAsUser") == 0:
        out.append("pod runAsUser is 0")
    if (psc.get("seccompProfile") or {}).get("type") not in (None, "RuntimeDefault", "Localhost"):
        out.append("pod seccompProfile must be RuntimeDefault or Localhost")
    containers = (pod.get("initContainers") or []) + pod.get("containers", [])
    for c in containers:
        sc = c.get("securityContext") or {}
        who = f"container {c['name']}"
        if sc.get("privileged"):
            out.append(f"{who}: privileged")
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"{who}: allowPrivilegeEscalation must be false")
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            out.append(f"{who}: capabilities must drop ALL")
        if set(caps.get("add") or []) - {"NET_BIND_SERVICE"}:
            out.append(f"{who}: adds capabilities {caps['add']}")
        if not (sc.get("runAsNonRoot") is True or (psc.get("runAsNonRoot") is True and sc.get("runAsNonRoot") is not False)):
            out.append(f"{who}: runAsNonRoot must be true")
        user = sc.get("runAsUser", psc.get("runAsUser"))
        if not isinstance(user, int) or user <= 0:
            out.append(f"{who}: runAsUser must be a numeric non-zero uid, not {user!r}")
        seccomp = (sc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"{who}: seccompProfile RuntimeDefault or Localhost required")
        if sc.get("procMount") not in (None, "Default"):
            out.append(f"{who}: procMount")
        if any(p.get("hostPort") for p in c.get("ports") or []):
            out.append(f"{who}: hostPort")
        # Not part of the standard, but required of everything here: nothing writes to the image.
        if sc.get("readOnlyRootFilesystem") is not True:
            out.append(f"{who}: readOnlyRootFilesystem must be true")
    return out
