"""Changes the API server refuses to apply in place (ValidateJobUpdate,
ValidateStatefulSetUpdate, ...): Argo CD and Flux then fail to sync until someone deletes
the object by hand."""

from __future__ import annotations

from mpigen.review.diff.model import Finding, ObjectKey
from mpigen.review.diff.values import equal, get, mapping

# Fields the API server refuses to update (ValidateJobUpdate, ValidateStatefulSetUpdate, ...).
JOB_IMMUTABLE = ("template", "selector", "completions", "completionMode", "manualSelector",
                 "podFailurePolicy", "backoffLimitPerIndex", "managedBy")
STATEFULSET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


def immutable_changes(key: ObjectKey, old: dict, new: dict) -> list[Finding]:
    """One finding per immutable field that changes between old and new."""
    findings = []
    for loc in _guarded_fields(key, old, new):
        if not equal(get(old, *loc), get(new, *loc)):
            path = ".".join(loc)
            findings.append(Finding(key, path, f"Kubernetes refuses to change {path} of {key}: Argo CD and Flux "
                                               "will fail to sync it; delete and recreate the object (give the "
                                               "run a new name) instead"))
    return findings


def _guarded_fields(key: ObjectKey, old: dict, new: dict) -> list[tuple[str, ...]]:
    """The fields of this kind of object that the API server refuses to update."""
    group = key.api_version.rpartition("/")[0]
    kind = key.kind
    old_spec, new_spec = mapping(old.get("spec")), mapping(new.get("spec"))
    spec_keys = sorted(old_spec.keys() | new_spec.keys())
    if group == "batch" and kind == "Job":
        return [("spec", name) for name in JOB_IMMUTABLE]
    if group == "apps" and kind == "StatefulSet":
        return [("spec", name) for name in spec_keys if name not in STATEFULSET_MUTABLE]
    if group == "apps" and kind in ("Deployment", "DaemonSet", "ReplicaSet"):
        return [("spec", "selector")]
    if group == "" and kind == "Service":
        return [("spec", name) for name in ("clusterIP", "clusterIPs") if old_spec.get(name) not in (None, "", [])]
    if group == "rbac.authorization.k8s.io" and kind in ("RoleBinding", "ClusterRoleBinding"):
        return [("roleRef",)]
    if group == "" and kind in ("ConfigMap", "Secret") and old.get("immutable") is True:
        names = ("immutable", "data", "binaryData") + (("stringData",) if kind == "Secret" else ())
        return [(name,) for name in names]
    if group == "" and kind == "PersistentVolumeClaim":
        resources = mapping(old_spec.get("resources")).keys() | mapping(new_spec.get("resources")).keys()
        return ([("spec", name) for name in spec_keys if name not in ("resources", "volumeAttributesClassName")]
                + [("spec", "resources", name) for name in sorted(resources) if name != "requests"])
    return []
