"""Changes the API server refuses to apply in place (ValidateJobUpdate,
ValidateStatefulSetUpdate, the JobSet webhook and CEL rules, ...): Argo CD and Flux then
fail to sync until someone deletes the object by hand."""

from __future__ import annotations

from mpigen.review.diff.model import Finding, ObjectKey
from mpigen.review.diff.values import equal, get, mapping

# Fields the API server refuses to update (ValidateJobUpdate, ValidateStatefulSetUpdate, ...).
JOB_IMMUTABLE = ("template", "selector", "completions", "completionMode", "manualSelector",
                 "podFailurePolicy", "backoffLimitPerIndex", "managedBy")
STATEFULSET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds")
# JobSet (jobset.x-k8s.io): replicatedJobs and managedBy by the webhook's ValidateUpdate, the
# others by CEL rules; suspend, ttlSecondsAfterFinished and coordinator may change.
JOBSET_IMMUTABLE = ("network", "successPolicy", "failurePolicy", "startupPolicy", "managedBy",
                    "volumeClaimPolicies")
# What the webhook lets change in a replicated job's pod template while the JobSet is (or is
# being) suspended, for Kueue: metadata labels and annotations, and these pod spec fields.
SUSPENDED_POD_FIELDS = ("nodeSelector", "tolerations", "schedulingGates")


def immutable_changes(key: ObjectKey, old: dict, new: dict) -> list[Finding]:
    """One finding per immutable field that changes between old and new."""
    if key.kind == "JobSet" and key.api_version.startswith("jobset.x-k8s.io/"):
        paths = _jobset_changes(mapping(old.get("spec")), mapping(new.get("spec")))
    else:
        paths = [".".join(loc) for loc in _guarded_fields(key, old, new) if not equal(get(old, *loc), get(new, *loc))]
    return [Finding(key, path, f"Kubernetes refuses to change {path} of {key}: Argo CD and Flux will fail to sync "
                               "it; delete and recreate the object (give the run a new name) instead")
            for path in paths]


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


def _jobset_changes(old_spec: dict, new_spec: dict) -> list[str]:
    """The immutable paths of a JobSet that change: each replicated job by name (the whole
    list when jobs are added, removed or reordered), then the CEL-immutable fields."""
    suspended = old_spec.get("suspend") is True or new_spec.get("suspend") is True
    old_jobs, new_jobs = _by_name(old_spec.get("replicatedJobs")), _by_name(new_spec.get("replicatedJobs"))
    if old_jobs is None or new_jobs is None or list(old_jobs) != list(new_jobs):
        paths = [] if equal(get(old_spec, "replicatedJobs"), get(new_spec, "replicatedJobs")) \
            else ["spec.replicatedJobs"]
    else:
        paths = [f"spec.replicatedJobs[{name}]" for name in old_jobs
                 if not equal(_munged(old_jobs[name], suspended), _munged(new_jobs[name], suspended))]
    return paths + [f"spec.{name}" for name in JOBSET_IMMUTABLE
                    if not equal(get(old_spec, name), get(new_spec, name))]


def _by_name(jobs) -> dict | None:
    """Replicated jobs by name, in order; None when the list is not one of uniquely named jobs."""
    if not isinstance(jobs, list) or not all(isinstance(job, dict) for job in jobs):
        return None
    named = {job.get("name"): job for job in jobs}
    return named if len(named) == len(jobs) and all(isinstance(name, str) for name in named) else None


def _munged(job: dict, suspended: bool) -> dict:
    """A replicated job without what the webhook lets change: with the JobSet suspended,
    its pod template's labels, annotations, nodeSelector, tolerations and schedulingGates."""
    if not suspended or not isinstance(get(job, "template", "spec", "template"), dict):
        return job
    pod = dict(job["template"]["spec"]["template"])
    pod["metadata"] = {k: v for k, v in mapping(pod.get("metadata")).items() if k not in ("labels", "annotations")}
    pod["spec"] = {k: v for k, v in mapping(pod.get("spec")).items() if k not in SUSPENDED_POD_FIELDS}
    return {**job, "template": {**job["template"], "spec": {**job["template"]["spec"], "template": pod}}}
