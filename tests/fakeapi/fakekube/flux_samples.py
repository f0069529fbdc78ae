"""One realistic object of every Flux kind windowctl windows, as its controller leaves it: a spec
the real CRD accepts (required fields, patterns, enums) and the status that kind reports (Ready
condition, and what windowctl shows as REVISION). For e2e and deploy tests; shared by neither
windowctl nor the fake server's own logic."""

import copy

NS = "flux-system"
SHA = "8d4e3c9a0f6b2d1e5c7a9b3f4e6d8c0a1b2c3d4e"
DIGEST = "sha256:" + "3f" * 32

# kind -> (resource, spec, status without conditions, the REVISION windowctl shows)
KINDS = {
    "GitRepository": ("gitrepositories",
                      {"interval": "1m", "url": "https://github.com/stefanprodan/podinfo", "ref": {"branch": "master"}},
                      {"artifact": {"revision": f"master@sha1:{SHA}", "digest": DIGEST, "lastUpdateTime": "2026-11-20T08:00:00Z",
                                    "path": "gitrepository/flux-system/podinfo/8d4e3c9a.tar.gz",
                                    "url": "http://source-controller.flux-system.svc/gitrepository/flux-system/podinfo/8d4e3c9a.tar.gz"}},
                      f"master@sha1:{SHA}"),
    "OCIRepository": ("ocirepositories",
                      {"interval": "5m", "url": "oci://ghcr.io/stefanprodan/manifests/podinfo", "ref": {"tag": "latest"}},
                      {"artifact": {"revision": f"latest@{DIGEST}", "digest": DIGEST, "lastUpdateTime": "2026-11-20T08:00:00Z",
                                    "path": "ocirepository/flux-system/podinfo/x.tar.gz", "url": "http://sc/x.tar.gz"}},
                      f"latest@{DIGEST}"),
    "HelmRepository": ("helmrepositories", {"interval": "1h", "url": "https://stefanprodan.github.io/podinfo"},
                       {"artifact": {"revision": DIGEST, "digest": DIGEST, "lastUpdateTime": "2026-11-20T08:00:00Z",
                                     "path": "helmrepository/flux-system/podinfo/index.yaml", "url": "http://sc/index.yaml"}},
                       DIGEST),
    "HelmChart": ("helmcharts",
                  {"chart": "podinfo", "interval": "5m", "sourceRef": {"kind": "HelmRepository", "name": "podinfo"}},
                  {"artifact": {"revision": "6.7.1", "digest": DIGEST, "lastUpdateTime": "2026-11-20T08:00:00Z",
                                "path": "helmchart/flux-system/podinfo/podinfo-6.7.1.tgz", "url": "http://sc/podinfo-6.7.1.tgz"}},
                  "6.7.1"),
    "Bucket": ("buckets", {"bucketName": "manifests", "endpoint": "minio.minio.svc:9000", "interval": "5m"},
               {"artifact": {"revision": DIGEST, "digest": DIGEST, "lastUpdateTime": "2026-11-20T08:00:00Z",
                             "path": "bucket/flux-system/podinfo/x.tar.gz", "url": "http://sc/x.tar.gz"}},
               DIGEST),
    "ImageRepository": ("imagerepositories", {"image": "ghcr.io/stefanprodan/podinfo", "interval": "5m"},
                        {"canonicalImageName": "ghcr.io/stefanprodan/podinfo",
                         "lastScanResult": {"tagCount": 42, "scanTime": "2026-11-20T08:00:00Z",
                                            "latestTags": ["6.7.1", "6.7.0"]}},
                        "42 tags"),
    "ImagePolicy": ("imagepolicies",
                    {"imageRepositoryRef": {"name": "podinfo"}, "policy": {"semver": {"range": "6.x"}}},
                    {"latestRef": {"name": "ghcr.io/stefanprodan/podinfo", "tag": "6.7.1"}},
                    "ghcr.io/stefanprodan/podinfo:6.7.1"),
    "ImageUpdateAutomation": ("imageupdateautomations",
                              {"interval": "30m", "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
                               "git": {"commit": {"author": {"name": "fluxcdbot", "email": "fluxcdbot@example.com"}},
                                       "push": {"branch": "main"}},
                               "update": {"path": "./clusters/prod", "strategy": "Setters"}},
                              {"lastPushCommit": SHA, "lastPushTime": "2026-11-20T08:00:00Z",
                               "lastAutomationRunTime": "2026-11-20T08:00:00Z"},
                              SHA),
    "Alert": ("alerts", {"eventSources": [{"kind": "Kustomization", "name": "*"}], "providerRef": {"name": "slack"}},
              None, ""),
    "Provider": ("providers", {"type": "slack", "channel": "ops"}, None, ""),
    "Receiver": ("receivers",
                 {"type": "github", "resources": [{"kind": "GitRepository", "name": "flux-system"}],
                  "secretRef": {"name": "webhook-token"}},
                 {"webhookPath": "/hook/0123456789abcdef"}, ""),
}


# The kinds paused by an annotation, not spec.suspend (the Flux Operator's, source-watcher's
# ArtifactGenerator), in the same shape as KINDS, and the annotation each controller reads.
OPERATOR_PAUSE = "fluxcd.controlplane.io/reconcile"
ANNOTATION_KINDS = {
    "ResourceSet": ("resourcesets",
                    {"inputs": [{"tenant": "team1"}],
                     "resources": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "<< inputs.tenant >>"}}]},
                    {"lastAppliedRevision": DIGEST}, DIGEST),
    "ResourceSetInputProvider": ("resourcesetinputproviders",
                                 {"type": "GitHubPullRequest", "url": "https://github.com/stefanprodan/podinfo"},
                                 {"lastExportedRevision": DIGEST, "exportedInputs": [{"id": "1"}]}, DIGEST),
    "FluxInstance": ("fluxinstances",
                     {"distribution": {"version": "2.x", "registry": "ghcr.io/fluxcd"}},
                     {"lastAppliedRevision": f"v2.7.3@{DIGEST}", "lastAttemptedRevision": f"v2.7.3@{DIGEST}",
                      "components": [{"name": "source-controller", "repository": "ghcr.io/fluxcd/source-controller",
                                      "tag": "v1.7.3"}]},
                     f"v2.7.3@{DIGEST}"),
    "ArtifactGenerator": ("artifactgenerators",
                          {"sources": [{"alias": "podinfo", "kind": "GitRepository", "name": "podinfo"}],
                           "artifacts": [{"name": "podinfo-manifests", "copy": [{"from": "@podinfo/kustomize/**",
                                                                                 "to": "@artifact/"}]}]},
                          {"observedSourcesDigest": DIGEST}, DIGEST),
}
PAUSE = {"ResourceSet": OPERATOR_PAUSE, "ResourceSetInputProvider": OPERATOR_PAUSE, "FluxInstance": OPERATOR_PAUSE,
         "ArtifactGenerator": "source.extensions.fluxcd.io/reconcile"}


def resource_of(kind):
    return {**KINDS, **ANNOTATION_KINDS}[kind][0]


def kind_of(resource):
    return next(k for k, v in {**KINDS, **ANNOTATION_KINDS}.items() if v[0] == resource)


def is_suspended(obj):
    """Paused as its controller reads it: the pause annotation "disabled" (any case), else spec.suspend."""
    key = PAUSE.get(obj.get("kind"))
    if key:
        value = (obj["metadata"].get("annotations") or {}).get(key)
        return isinstance(value, str) and value.lower() == "disabled"
    return (obj.get("spec") or {}).get("suspend") is True


def put_sample(api, kind, name, ns=NS, suspended=False, annotations=None):
    """Stores a Ready object of `kind` (static kinds without status) and returns what the API holds."""
    resource, spec, status, _ = {**KINDS, **ANNOTATION_KINDS}[kind]
    spec = copy.deepcopy(spec)
    annotations = dict(annotations or {})
    if suspended and kind in PAUSE:
        annotations[PAUSE[kind]] = "disabled"
    elif suspended:
        spec["suspend"] = True
    obj = {"metadata": {"annotations": annotations}, "spec": spec}
    if status is not None:
        obj["status"] = dict(copy.deepcopy(status), observedGeneration=1, conditions=[{
            "type": "Ready", "status": "True", "observedGeneration": 1, "lastTransitionTime": "2026-11-20T08:00:00Z",
            "reason": "Succeeded", "message": "ready"}])
    api.put(resource, ns, name, obj)
    return api.get(resource, ns, name)
