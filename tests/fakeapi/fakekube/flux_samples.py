"""One realistic object of every Flux kind with spec.suspend, as its controller leaves it: a spec
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


def resource_of(kind):
    return KINDS[kind][0]


def put_sample(api, kind, name, ns=NS, suspended=False, annotations=None):
    """Stores a Ready object of `kind` (static kinds without status) and returns what the API holds."""
    resource, spec, status, _ = KINDS[kind]
    spec = copy.deepcopy(spec)
    if suspended:
        spec["suspend"] = True
    obj = {"metadata": {"annotations": dict(annotations or {})}, "spec": spec}
    if status is not None:
        obj["status"] = dict(copy.deepcopy(status), observedGeneration=1, conditions=[{
            "type": "Ready", "status": "True", "observedGeneration": 1, "lastTransitionTime": "2026-11-20T08:00:00Z",
            "reason": "Succeeded", "message": "ready"}])
    api.put(resource, ns, name, obj)
    return api.get(resource, ns, name)
