"""Changes the API server refuses to apply in place (ValidateJobUpdate,
ValidateStatefulSetUpdate, the JobSet and TrainJob webhooks and CEL rules, ...): Argo CD and
Flux then fail to sync until someone deletes the object by hand."""

from __future__ import annotations

from mpigen.review.diff.model import Finding, ObjectKey
from mpigen.review.diff.values import ABSENT, equal, get, mapping

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
# TrainJob (trainer.kubeflow.org, Trainer v2.3.0 trainjob_types.go): CEL `self == oldSelf` on
# these, a transition rule the API server runs only when the old and the new object both
# have the field (runtimeRef is required; managedBy has a CRD default).
TRAINJOB_IMMUTABLE = ("runtimeRef", "initializer", "trainer", "activeDeadlineSeconds", "managedBy")
TRAINJOB_DEFAULTS = {"managedBy": "trainer.kubeflow.org/trainjob-controller"}
RUNTIME_REF_DEFAULTS = {"apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime"}
# runtimePatches: the webhook refuses any change unless the old or the new TrainJob is
# suspended (plugins/jobset checkRuntimePatchesImmutability); even then, CEL keeps these pod
# fields of a patch's replicated job (entries matched by manager, jobs by name).
# Kueue writes its own entry on the cluster (admission: nodeSelector, tolerations, ...); no
# render has it, and a server-side apply of the render leaves it: not a change mpigen makes.
KUEUE_PATCH_MANAGER = "kueue.x-k8s.io/manager"
PATCH_IMMUTABLE_POD_FIELDS = ("serviceAccountName", "volumes", "initContainers", "containers", "imagePullSecrets",
                              "securityContext", "terminationGracePeriodSeconds")


def immutable_changes(key: ObjectKey, old: dict, new: dict) -> list[Finding]:
    """One finding per immutable field that changes between old and new."""
    if key.kind == "JobSet" and key.api_version.startswith("jobset.x-k8s.io/"):
        paths = _jobset_changes(mapping(old.get("spec")), mapping(new.get("spec")))
    elif key.kind == "TrainJob" and key.api_version.startswith("trainer.kubeflow.org/"):
        paths = _trainjob_changes(mapping(old.get("spec")), mapping(new.get("spec")))
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


def _trainjob_changes(old_spec: dict, new_spec: dict) -> list[str]:
    """The immutable paths of a TrainJob that change: the CEL-immutable fields, then its
    runtimePatches (the list as a whole while it runs, else each immutable pod field)."""
    def value(spec: dict, name: str):
        found = get(spec, name)
        if name == "runtimeRef" and isinstance(found, dict):
            return {**RUNTIME_REF_DEFAULTS, **found}
        return TRAINJOB_DEFAULTS.get(name, found) if found is ABSENT else found

    paths = [f"spec.{name}" for name in TRAINJOB_IMMUTABLE
             if ABSENT not in (value(old_spec, name), value(new_spec, name))
             and not equal(value(old_spec, name), value(new_spec, name))]
    old_patches, new_patches = _patches(old_spec), _patches(new_spec)
    if old_patches is not None and new_patches is not None and KUEUE_PATCH_MANAGER not in new_patches:
        old_patches.pop(KUEUE_PATCH_MANAGER, None)
    if equal(old_patches, new_patches):
        return paths
    if old_spec.get("suspend") is not True and new_spec.get("suspend") is not True:
        return paths + ["spec.runtimePatches"]
    return paths + _patch_pod_changes(old_patches or {}, new_patches or {})


def _patches(spec: dict) -> dict | None:
    """runtimePatches by manager without the time the webhook stamps; None when not such a list."""
    patches = spec.get("runtimePatches", [])
    if not isinstance(patches, list) or not all(isinstance(patch, dict) for patch in patches):
        return None
    return {patch.get("manager"): {k: v for k, v in patch.items() if k != "time"} for patch in patches}


def _patch_pod_changes(old_patches: dict, new_patches: dict) -> list[str]:
    """The CEL-immutable pod fields that change in patches both sides have, of jobs both have."""
    paths = []
    for manager in [m for m in old_patches if m in new_patches]:
        old_jobs = _by_name(get(old_patches[manager], "trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        new_jobs = _by_name(get(new_patches[manager], "trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        for name in [n for n in old_jobs or {} if n in (new_jobs or {})]:
            old_pod = mapping(get(old_jobs[name], "template", "spec", "template", "spec"))
            new_pod = mapping(get(new_jobs[name], "template", "spec", "template", "spec"))
            paths += [f"spec.runtimePatches[{manager}].trainingRuntimeSpec.template.spec.replicatedJobs[{name}]"
                      f".template.spec.template.spec.{field}" for field in PATCH_IMMUTABLE_POD_FIELDS
                      if field in old_pod and field in new_pod and not equal(old_pod[field], new_pod[field])]
    return paths
