"""What the Trainer (v2.3.0) refuses to change in a TrainJob (trainer.kubeflow.org/v1alpha1):
CEL `self == oldSelf` on runtimeRef, initializer, trainer, activeDeadlineSeconds and managedBy
(pkg/apis/trainer/v1alpha1/trainjob_types.go), a transition rule the API server runs only when
the old and the new object both have the field (runtimeRef is required; managedBy has a CRD
default); runtimePatches, which the webhook lets change only while the old or the new TrainJob
is suspended (pkg/runtime/framework/plugins/jobset/jobset.go checkRuntimePatchesImmutability),
and even then CEL keeps some pod fields of a patch's replicated job (entries matched by
manager, jobs by name). Kueue writes its own entry on the cluster (admission: nodeSelector,
tolerations, ...); no render has it, and a server-side apply of the render leaves it: not a
change mpigen makes."""

from __future__ import annotations

from mpigen.kube.values import ABSENT, by_name, equal, get, mapping
from mpigen.render.trainjob.names import DEFAULT_NAMED_KIND, KUEUE_PATCH_MANAGER, TRAINER_GROUP, TRAINJOB_CONTROLLER

IMMUTABLE = ("runtimeRef", "initializer", "trainer", "activeDeadlineSeconds", "managedBy")
DEFAULTS = {"managedBy": TRAINJOB_CONTROLLER}
RUNTIME_REF_DEFAULTS = {"apiGroup": TRAINER_GROUP, "kind": DEFAULT_NAMED_KIND}
PATCH_IMMUTABLE_POD_FIELDS = ("serviceAccountName", "volumes", "initContainers", "containers", "imagePullSecrets",
                              "securityContext", "terminationGracePeriodSeconds")


def immutable_changes(old: dict, new: dict) -> list[str]:
    """The immutable paths that change: the CEL-immutable fields, then its runtimePatches
    (the list as a whole while it runs, else each immutable pod field)."""
    old_spec, new_spec = mapping(old.get("spec")), mapping(new.get("spec"))

    def value(spec: dict, name: str):
        found = get(spec, name)
        if name == "runtimeRef" and isinstance(found, dict):
            return {**RUNTIME_REF_DEFAULTS, **found}
        return DEFAULTS.get(name, found) if found is ABSENT else found

    paths = [f"spec.{name}" for name in IMMUTABLE
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
        old_jobs = by_name(get(old_patches[manager], "trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        new_jobs = by_name(get(new_patches[manager], "trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        for name in [n for n in old_jobs or {} if n in (new_jobs or {})]:
            old_pod = mapping(get(old_jobs[name], "template", "spec", "template", "spec"))
            new_pod = mapping(get(new_jobs[name], "template", "spec", "template", "spec"))
            paths += [f"spec.runtimePatches[{manager}].trainingRuntimeSpec.template.spec.replicatedJobs[{name}]"
                      f".template.spec.template.spec.{field}" for field in PATCH_IMMUTABLE_POD_FIELDS
                      if field in old_pod and field in new_pod and not equal(old_pod[field], new_pod[field])]
    return paths
