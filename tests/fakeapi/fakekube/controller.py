"""A stand-in for kustomize-controller and helm-controller: reacts to spec changes and
reconcile requests the way windowctl's --wait relies on: the requestedAt token echoed in
status.lastHandledReconcileAt, and the Ready condition's observedGeneration."""

import hashlib
import threading
import time

from .store import now_rfc3339

REQUESTED_AT = "reconcile.fluxcd.io/requestedAt"
MANAGERS = {"Kustomization": "kustomize-controller", "HelmRelease": "helm-controller",
            "GitRepository": "source-controller", "OCIRepository": "source-controller",
            "HelmRepository": "source-controller", "HelmChart": "source-controller", "Bucket": "source-controller",
            "ImageRepository": "image-reflector-controller", "ImagePolicy": "image-reflector-controller",
            "ImageUpdateAutomation": "image-automation-controller", "Receiver": "notification-controller",
            "ResourceSet": "flux-operator", "ResourceSetInputProvider": "flux-operator", "FluxInstance": "flux-operator",
            "ArtifactGenerator": "source-watcher"}
# Kinds paused by an annotation, not spec.suspend: paused while its value is "disabled" in any case
# (IsDisabled() in flux-operator api/v1/*_types.go and source-watcher api/v1beta1); any other value
# or none runs.
PAUSE_ANNOTATIONS = {"ResourceSet": "fluxcd.controlplane.io/reconcile",
                     "ResourceSetInputProvider": "fluxcd.controlplane.io/reconcile",
                     "FluxInstance": "fluxcd.controlplane.io/reconcile",
                     "ArtifactGenerator": "source.extensions.fluxcd.io/reconcile"}


def paused_by_annotation(obj):
    key = PAUSE_ANNOTATIONS.get(obj.get("kind"))
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(key) if key else None
    return isinstance(value, str) and value.lower() == "disabled"
# Kinds whose status carries the artifact they serve (status.artifact.revision), not lastAppliedRevision.
SOURCES = {"GitRepository", "OCIRepository", "HelmRepository", "HelmChart", "Bucket"}


def default_revision(ns, name):
    return "main@sha1:" + hashlib.sha1(f"{ns}/{name}".encode()).hexdigest()


def condition(status, ctype):
    for c in (status or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def _is_true(status, ctype):
    c = condition(status, ctype)
    return bool(c and c.get("status") == "True")


def set_condition(status, ctype, value, reason, message, generation, now):
    conds = status.setdefault("conditions", [])
    old = condition(status, ctype)
    new = {"type": ctype, "status": value, "observedGeneration": generation,
           "lastTransitionTime": old["lastTransitionTime"] if old and old.get("status") == value
           and old.get("lastTransitionTime") else now,
           "reason": reason, "message": message}
    if old is not None:
        conds[conds.index(old)] = new
    else:
        conds.append(new)


def remove_condition(status, ctype):
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != ctype]


class Script:
    """A scripted status timeline: steps played, whether it stopped at a suspension, done."""

    def __init__(self):
        self.steps = 0
        self.halted = False
        self.done = threading.Event()


def _helm_action(obj, now, action, status_of_release, timeout="5m0s"):
    """helm-controller before it runs a Helm action (internal/reconcile/atomic_release.go):
    Reconciling=True Progressing, Ready=Unknown for a release action, the new release pending."""
    status = obj.setdefault("status", {})
    gen = obj["metadata"].get("generation", 1)
    message = f"Running '{action}' action with timeout of {timeout}"
    set_condition(status, "Reconciling", "True", "Progressing", message, gen, now)
    set_condition(status, "Ready", "Unknown", "Progressing", message, gen, now)
    history = status.setdefault("history", [])
    version = max([h.get("version", 0) for h in history] or [0]) + 1
    meta = obj["metadata"]
    history.insert(0, {"name": meta["name"], "namespace": meta.get("namespace"), "version": version,
                       "status": status_of_release, "chartName": meta["name"], "chartVersion": "6.7.2",
                       "firstDeployed": now, "lastDeployed": now, "digest": "sha256:" + "1" * 64,
                       "configDigest": "sha256:" + "2" * 64, "appVersion": "6.7.2"})
    status["lastAttemptedReleaseAction"] = "upgrade" if action == "upgrade" else status.get(
        "lastAttemptedReleaseAction", "upgrade")


def _release_ended(obj, release_status):
    status = obj["status"]
    status["history"][0]["status"] = release_status
    if release_status == "deployed":
        for h in status["history"][1:]:
            if h.get("status") == "deployed":
                h["status"] = "superseded"


def helm_upgrade_steps(upgrade=1.0, remediation=1.0, outcome="failed"):
    """A HelmRelease upgrade in progress for `upgrade` seconds, then succeeded, or failed and
    remediated by a rollback of `remediation` seconds that runs only if the object is not
    suspended when the controller requeues for it (conditions as helm-controller writes them)."""
    def start(obj, now):
        _helm_action(obj, now, "upgrade", "pending-upgrade")

    def upgrade_ended(obj, now, ok):
        """The upgrade's release ends: Released and Ready say how, as helm-controller writes them."""
        gen, status = obj["metadata"].get("generation", 1), obj["status"]
        _release_ended(obj, "deployed" if ok else "failed")
        name = f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}.v{status['history'][0]['version']}"
        if ok:
            reason = "UpgradeSucceeded"
            message = f"Helm upgrade succeeded for release {name} with chart {obj['metadata']['name']}@6.7.2"
        else:
            reason = "UpgradeFailed"
            message = f"Helm upgrade failed for release {name} with chart podinfo@6.7.2: context deadline exceeded"
        set_condition(status, "Released", str(ok), reason, message, gen, now)
        set_condition(status, "Ready", str(ok), reason, message, gen, now)
        return gen, status, message

    def succeeded(obj, now):
        gen, status, _ = upgrade_ended(obj, now, True)
        remove_condition(status, "Reconciling")
        status["observedGeneration"] = gen

    def failed(obj, now):
        gen, status, message = upgrade_ended(obj, now, False)
        # Requeued to remediate: ProgressingWithRetry with Ready's message (atomic_release.go).
        set_condition(status, "Reconciling", "True", "ProgressingWithRetry", message, gen, now)
        status["failures"] = status.get("failures", 0) + 1
        status["upgradeFailures"] = status.get("upgradeFailures", 0) + 1

    def rollback(obj, now):
        _helm_action(obj, now, "rollback", "pending-rollback")

    def remediated(obj, now):
        gen, status = obj["metadata"].get("generation", 1), obj["status"]
        _release_ended(obj, "deployed")
        previous = status["history"][2]["version"] if len(status["history"]) > 2 else 1
        name = f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}"
        message = f"Helm rollback to previous release {name}.v{previous} with chart podinfo@6.7.1 succeeded"
        set_condition(status, "Remediated", "True", "RollbackSucceeded", message, gen, now)
        # summarize(): a remediated release is not Ready; Ready carries the remediation's outcome.
        set_condition(status, "Ready", "False", "RollbackSucceeded", message, gen, now)
        remove_condition(status, "Reconciling")
        status["observedGeneration"] = gen

    if outcome == "succeeded":
        return [(0, start, True), (upgrade, succeeded, False)]
    return [(0, start, True), (upgrade, failed, False), (upgrade + 0.05, rollback, True),
            (upgrade + 0.05 + remediation, remediated, False)]


def kustomization_reconciling_steps(duration=1.0, outcome="ready"):
    """kustomize-controller applying and health-checking a revision for `duration` seconds."""
    def start(obj, now):
        status = obj.setdefault("status", {})
        gen = obj["metadata"].get("generation", 1)
        revision = status.get("lastAttemptedRevision") or default_revision(obj["metadata"].get("namespace"),
                                                                           obj["metadata"]["name"])
        set_condition(status, "Reconciling", "True", "Progressing",
                      f"Running health checks for revision {revision} with a timeout of 5m0s", gen, now)
        set_condition(status, "Ready", "Unknown", "Progressing", "Reconciliation in progress", gen, now)

    def finish(obj, now):
        status = obj["status"]
        gen = obj["metadata"].get("generation", 1)
        remove_condition(status, "Reconciling")
        revision = status.get("lastAttemptedRevision") or default_revision(obj["metadata"].get("namespace"),
                                                                           obj["metadata"]["name"])
        if outcome == "ready":
            status["lastAppliedRevision"] = revision
            set_condition(status, "Ready", "True", "ReconciliationSucceeded", f"Applied revision: {revision}", gen, now)
            status["observedGeneration"] = gen
        else:
            set_condition(status, "Ready", "False", "HealthCheckFailed",
                          "health check failed after 5m0s: timeout waiting for: [Deployment/apps/web status: "
                          "'InProgress']", gen, now)

    return [(0, start, True), (duration, finish, False)]


class FluxSimulator:
    def __init__(self, server):
        self._srv = server
        self._due = {}  # (rtype key, ns, name) -> (monotonic time, phase)
        self._cond = threading.Condition()
        self._stopped = False
        self._scripted = set()  # (ns, name) a Script drives
        self._thread = threading.Thread(target=self._run, name="fakeapi-flux", daemon=True)
        self._thread.start()

    def script(self, rtype, ns, name, steps):
        """Run steps [(seconds from now, mutate(obj, now), needs_running)] as status writes of the
        kind's controller. A step with needs_running starts a new reconcile: when the object is
        suspended by then, the controller does not reconcile it and the script stops there (as
        helm-controller's requeued remediation waits for a resume). The clock of the steps after
        the first starts when a client has read the object (a GET of it, or a LIST of its kind,
        answered after the first step): a test's timeline is then the same however long the
        client under test takes to start and connect (a sanitizer build takes seconds), instead
        of settling before the client ever sees it in progress. Returns the Script."""
        run = Script()
        self._scripted.add((ns, name))
        manager = MANAGERS[rtype.kind]
        store = self._srv.store

        def read_since(since):
            return any(r["time"] >= since and r["method"] == "GET" and (
                r["path"].endswith(f"/{rtype.plural}/{name}") or r["path"].endswith(f"/{rtype.plural}"))
                for r in self._srv.requests)

        def play():
            start = time.monotonic()
            try:
                for i, (at, mutate, needs_running) in enumerate(steps):
                    if i == 1:  # the first step is written: wait for a client to see it
                        since, limit = time.time(), time.monotonic() + 60
                        while not read_since(since) and time.monotonic() < limit:
                            if self._srv._stopping.wait(0.02):
                                return
                        start = time.monotonic() - steps[0][0]
                    delay = start + at - time.monotonic()
                    if delay > 0 and self._srv._stopping.wait(delay):
                        return
                    with store.lock:
                        obj = store.raw(rtype, ns, name)
                        if obj is None or (needs_running and (obj.get("spec") or {}).get("suspend") is True):
                            run.halted = True
                            return
                        store.controller_write(rtype, ns, name, lambda o: mutate(o, now_rfc3339()), manager)
                    run.steps += 1
            except Exception:
                self._srv.log.exception("script failed for %s/%s", ns, name)
            finally:
                self._scripted.discard((ns, name))
                run.done.set()

        threading.Thread(target=play, name=f"fakeapi-script-{ns}-{name}", daemon=True).start()
        return run

    def stop(self):
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._thread.join(timeout=5)

    def _plan(self, obj):
        meta = obj.get("metadata") or {}
        if (meta.get("namespace"), meta.get("name")) in self._scripted:
            return None  # a script (helm_upgrade, kustomization_reconciling) drives its status
        if self._srv.reconcile_outcome.get((meta.get("namespace"), meta.get("name")), "ready") == "never":
            return None
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        gen = meta.get("generation", 1)
        token = (meta.get("annotations") or {}).get(REQUESTED_AT)
        if obj.get("kind") in PAUSE_ANNOTATIONS:
            if paused_by_annotation(obj):
                # Their reconcilers return before reconciling, but the status patch they deferred
                # first still echoes a new requestedAt (finalizeObjectStatus, summarizeStatus): the
                # token alone says nothing while paused; Ready stays as it was.
                return "echo" if token is not None and token != status.get("lastHandledReconcileAt") else None
        elif spec.get("suspend") is True:
            # A suspended object is not reconciled, but the controller's deferred status patch still
            # moves status.observedGeneration when the object was Ready or Stalled: the trap that makes
            # status.observedGeneration useless for readiness.
            if status.get("observedGeneration") != gen and (_is_true(status, "Ready") or _is_true(status, "Stalled")):
                return "observe"
            return None
        if token is not None and token != status.get("lastHandledReconcileAt"):
            return "reconcile"
        ready = condition(status, "Ready")
        if ready is None or ready.get("observedGeneration") != gen:
            return "reconcile"
        return None

    def notify(self, rtype, obj):
        """Called by the store (under its lock) after every stored change."""
        if rtype.kind not in MANAGERS or self._plan(obj) is None:
            return
        meta = obj["metadata"]
        key = (rtype.key, meta.get("namespace", ""), meta["name"])
        with self._cond:
            if key not in self._due:
                delay = self._srv.reconcile_delay
                first = delay / 2 if self._srv.progressing_phase else delay
                self._due[key] = (time.monotonic() + first, 1)
                self._cond.notify_all()

    def _run(self):
        with self._cond:
            while not self._stopped:
                if not self._due:
                    self._cond.wait()
                    continue
                key, (when, phase) = min(self._due.items(), key=lambda kv: kv[1][0])
                wait = when - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                del self._due[key]
                self._cond.release()
                try:
                    follow_up = self._act(key, phase)
                except Exception:
                    self._srv.log.exception("controller simulation failed for %s", key)
                    follow_up = None
                finally:
                    self._cond.acquire()
                if follow_up is not None:
                    self._due[key] = (time.monotonic() + follow_up, 2)

    def _act(self, key, phase):
        store = self._srv.store
        rkey, ns, name = key
        rtype = store.types[rkey]
        manager = MANAGERS[rtype.kind]
        with store.lock:
            obj = store.raw(rtype, ns, name)
            if obj is None:
                return None
            plan = self._plan(obj)
            if phase == 1 and plan == "observe":
                store.controller_write(rtype, ns, name, self._observe_generation, manager)
                return None
            if phase == 1 and plan == "echo":
                store.controller_write(rtype, ns, name, self._echo_token, manager)
                return None
            if phase == 1 and plan == "reconcile" and self._srv.progressing_phase:
                store.controller_write(rtype, ns, name, self._progressing, manager)
                return self._srv.reconcile_delay / 2
            if plan == "reconcile" or phase == 2:
                outcome = self._srv.reconcile_outcome.get((ns, name), "ready")
                if outcome != "never":
                    store.controller_write(rtype, ns, name, lambda o: self._finish(o, outcome), manager)
        return None

    @staticmethod
    def _observe_generation(obj):
        obj.setdefault("status", {})["observedGeneration"] = obj["metadata"].get("generation", 1)

    @staticmethod
    def _echo_token(obj):
        obj.setdefault("status", {})["lastHandledReconcileAt"] = obj["metadata"]["annotations"][REQUESTED_AT]

    @staticmethod
    def _revision(obj):
        status = obj.get("status") or {}
        meta = obj["metadata"]
        if obj.get("kind") == "HelmRelease":
            return status.get("lastAttemptedRevision") or "6.7.1"
        if obj.get("kind") in SOURCES:
            return (status.get("artifact") or {}).get("revision") or default_revision(meta.get("namespace"), meta["name"])
        return status.get("lastAppliedRevision") or default_revision(meta.get("namespace"), meta["name"])

    def _progressing(self, obj):
        status = obj.setdefault("status", {})
        gen, now = obj["metadata"].get("generation", 1), now_rfc3339()
        set_condition(status, "Reconciling", "True", "Progressing",
                      f"Fetching manifests for revision {self._revision(obj)} with attempt 1", gen, now)
        set_condition(status, "Ready", "Unknown", "Progressing", "Reconciliation in progress", gen, now)

    def _finish(self, obj, outcome):
        meta = obj["metadata"]
        status = obj.setdefault("status", {})
        gen, now = meta.get("generation", 1), now_rfc3339()
        revision = self._revision(obj)
        token = (meta.get("annotations") or {}).get(REQUESTED_AT)
        if token is not None:
            status["lastHandledReconcileAt"] = token
        remove_condition(status, "Reconciling")
        kind = obj.get("kind")
        if kind in ("Kustomization", "HelmRelease"):
            status["lastAttemptedRevision"] = revision
        helm = kind == "HelmRelease"
        if outcome == "ready":
            remove_condition(status, "Stalled")
            if helm:
                chart = ((obj.get("spec") or {}).get("chart") or {}).get("spec", {}).get("chart", meta["name"])
                message = (f"Helm upgrade succeeded for release {meta.get('namespace')}/{meta['name']}.v{gen} "
                           f"with chart {chart}@{revision}")
                set_condition(status, "Ready", "True", "UpgradeSucceeded", message, gen, now)
            elif kind in SOURCES:
                status["artifact"] = {"revision": revision, "digest": "sha256:" + "0" * 64, "lastUpdateTime": now,
                                      "path": f"{kind.lower()}/{meta.get('namespace')}/{meta['name']}/latest.tar.gz",
                                      "url": "http://source-controller.flux-system.svc/latest.tar.gz"}
                set_condition(status, "Ready", "True", "Succeeded", f"stored artifact for revision '{revision}'", gen, now)
            elif kind in PAUSE_ANNOTATIONS:
                # The revision field each reports (api/v1 *Status, api/v1beta1 ArtifactGeneratorStatus).
                if kind in ("ResourceSet", "FluxInstance"):
                    status["lastAppliedRevision"] = revision
                if kind == "FluxInstance":
                    status["lastAttemptedRevision"] = revision
                if kind == "ResourceSetInputProvider":
                    status["lastExportedRevision"] = "sha256:" + hashlib.sha256(revision.encode()).hexdigest()
                if kind == "ArtifactGenerator":
                    status["observedSourcesDigest"] = "sha256:" + hashlib.sha256(revision.encode()).hexdigest()
                set_condition(status, "Ready", "True", "ReconciliationSucceeded",
                              "Reconciliation finished in 1s", gen, now)
            elif kind != "Kustomization":
                set_condition(status, "Ready", "True", "Succeeded", "reconciliation succeeded", gen, now)
            else:
                status["lastAppliedRevision"] = revision
                set_condition(status, "Ready", "True", "ReconciliationSucceeded",
                              f"Applied revision: {revision}", gen, now)
            status["observedGeneration"] = gen
        elif outcome == "failed":
            remove_condition(status, "Stalled")
            set_condition(status, "Ready", "False", "ReconciliationFailed",
                          "kustomize build failed: accumulating resources: fake failure", gen, now)
        elif outcome == "stalled":
            message = "kustomization path not found: stat /tmp/kustomization/apps: no such file or directory"
            set_condition(status, "Stalled", "True", "ArtifactFailed", message, gen, now)
            set_condition(status, "Ready", "False", "ArtifactFailed", message, gen, now)
            status["observedGeneration"] = gen
