"""`mpigen import`, a TrainJob's runtimePatches on its MPIJob view (mpigen.render.trainjob.mpijob_view),
on a runtime of the cluster's: every entry, whoever its manager (the user, an SDK, a platform
team's, mpigen's own mpigen.dev/blueprint), merged into the view's pods in list order as the
Trainer merges them into the runtime's JobSet: a strategic merge patch of JobSetSpec, one entry
after the other (Trainer v2.3.0 pkg/runtime/core/trainingruntime.go, mergeRuntimePatches). The
`node` job's pod is the workers', the `launcher` job's the launcher's, and their container
`node` the MPI container; the MPIJob decompiler then reads each field as it reads an MPIJob's
pods (nodeSelector, tolerations and affinity as placement, volumes as datasets, securityContext
as security, ...), and reports what has no blueprint field at its line. What the view leaves
(other jobs and containers, metadata of the JobSet and the jobs) the proof reports at its line.

On a runtime mpigen wrote, whose pods are read already, the entries of other managers are merged
into them the same way.

Left out: Kueue's entry (manager kueue.x-k8s.io/manager), the flavor's node labels, tolerations and
scheduling gates Kueue writes when it admits the TrainJob and clears when it stops it (Kueue
v0.17.0+ pkg/controller/jobs/trainjob/trainjob_controller.go RunWithPodSetsInfo,
RestorePodSetsInfo; its webhook adds the empty entry on create, trainjob_webhook.go): the
cluster's state, not the job's, which Kueue writes again when it admits the render.

Refused: env on container `node`, which the Trainer's webhook refuses too (v2.3.0
pkg/runtime/framework/plugins/jobset/jobset.go, Validate: "must not have envs for the ...
node containers")."""

from __future__ import annotations

from mpigen.decompile.view import View
from mpigen.kube.data import copy_data
from mpigen.load.document import Document, Loc
from mpigen.render.trainjob import hydra
from mpigen.render.trainjob.names import KUEUE_PATCH_MANAGER, LAUNCHER_JOB, NODE_CONTAINER, NODE_JOB, PATCH_MANAGER

ROLES = {NODE_JOB: "Worker", LAUNCHER_JOB: "Launcher"}  # a runtime's replicated jobs, as an MPIJob's replicas
JOBS = ("spec", "runtimePatches")
REPLICATED_JOBS = ("trainingRuntimeSpec", "template", "spec", "replicatedJobs")
POD_TEMPLATE = ("template", "spec", "template")  # a replicated job's pod template, from the job
# The lists a strategic merge patch merges item by item, by their patchMergeKey (Kubernetes
# staging/src/k8s.io/api/core/v1/types.go: PodSpec volumes, initContainers, containers,
# imagePullSecrets, schedulingGates; Container env, volumeMounts); every other list (tolerations,
# an affinity's terms) is replaced whole, every mapping (nodeSelector, affinity, securityContext,
# labels) merged key by key.
MERGE_KEYS = {"volumes": "name", "initContainers": "name", "containers": "name", "imagePullSecrets": "name",
              "schedulingGates": "name", "env": "name", "volumeMounts": "mountPath"}
NODE_ENV = ("the Trainer refuses env on container node in a runtime patch (its webhook: \"must not have envs for "
            "the ... node containers\"); put the variables in spec.trainer.env")


def is_kueues(patch) -> bool:
    return isinstance(patch, dict) and patch.get("manager") == KUEUE_PATCH_MANAGER


def read_patches(view: View, trainjob: Document, ours: bool) -> list[tuple[Loc, str]]:
    """Merge every runtimePatches entry but Kueue's into the view's pods, in order (on a runtime
    mpigen wrote, `ours`, whose pods are the view's already, those of other managers alone); what
    the Trainer refuses, as (path in the TrainJob, why)."""
    refused = []
    for index, patch in enumerate(trainjob.get(JOBS, []) or []):
        if not isinstance(patch, dict) or is_kueues(patch) or (ours and patch.get("manager") == PATCH_MANAGER):
            continue
        jobs_loc = JOBS + (index,) + REPLICATED_JOBS
        for j, job in enumerate(trainjob.get(jobs_loc, []) or []):
            role = ROLES.get(job.get("name")) if isinstance(job, dict) else None
            origin = jobs_loc + (j,) + POD_TEMPLATE
            template = trainjob.get(origin)
            if role is not None and isinstance(template, dict):
                refused += _pod(view, role, trainjob, origin, template, patch.get("manager") == PATCH_MANAGER)
    return refused


def _pod(view: View, role: str, trainjob: Document, origin: Loc, template: dict, ours: bool) -> list[tuple[Loc, str]]:
    base = ("spec", "mpiReplicaSpecs", role, "template")
    pod = view.data["spec"]["mpiReplicaSpecs"][role]["template"]
    if not isinstance(pod.get("spec"), dict) or not pod["spec"].get("containers"):
        return []  # a runtime's template without a container: the MPIJob decompiler refuses it
    if isinstance(template.get("metadata"), dict):
        merge(view, base + ("metadata",), pod.setdefault("metadata", {}), template["metadata"], trainjob,
              origin + ("metadata",))
    spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    fields = {key: _not_hydras(key, value) if ours else value for key, value in spec.items()
              if key != "containers" and not (ours and _hydra_folder_alone(key, value))}
    merge(view, base + ("spec",), pod.setdefault("spec", {}), fields, trainjob, origin + ("spec",))
    refused = []
    for c, container in enumerate(spec.get("containers") or []):
        if not isinstance(container, dict) or container.get("name") != NODE_CONTAINER:
            continue  # a container the blueprint has not: the proof reports it
        if container.get("env"):
            refused.append((origin + ("spec", "containers", c, "env"), NODE_ENV))
        fields = {key: _not_hydras(key, value) if ours else value for key, value in container.items()
                  if key != "name" and not (ours and _hydra_folder_alone(key, value))}
        main = pod["spec"]["containers"][0]
        merge(view, base + ("spec", "containers", 0), main, fields, trainjob, origin + ("spec", "containers", c))
    return refused


def merge(view: View, loc: Loc, base: dict, patch: dict, doc: Document, origin: Loc) -> None:
    """A strategic merge of `patch` (written at origin in doc) into `base` (the view's mapping at loc)."""
    for key, value in patch.items():
        here, there, old = loc + (key,), origin + (key,), base.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            merge(view, here, old, value, doc, there)
        elif key in MERGE_KEYS and isinstance(value, list) and isinstance(old, list):
            merge_key = MERGE_KEYS[key]
            for i, item in enumerate(value):
                keys = [o.get(merge_key) if isinstance(o, dict) else None for o in old]
                wanted = item.get(merge_key) if isinstance(item, dict) else None
                at = keys.index(wanted) if wanted is not None and wanted in keys else len(old)
                _replace(view, here + (at,), item, doc, there + (i,))
        else:
            _replace(view, here, value, doc, there)


def _replace(view: View, loc: Loc, value, doc: Document, origin: Loc) -> None:
    """The view's value at loc, replaced whole: where its parts were written before is forgotten."""
    for known in [k for k in view.origins if k[:len(loc)] == loc and len(k) > len(loc)]:
        del view.origins[known]
    view.put(loc, copy_data(value), doc, origin)


def _is_hydra_folder(key: str, item) -> bool:
    """A volume or mount of the folder mpigen adds for Hydra's hostfile (mpigen.render.trainjob.hydra)."""
    return key in ("volumes", "volumeMounts") and isinstance(item, dict) and item.get("name") == hydra.VOLUME


def _hydra_folder_alone(key: str, value) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_hydra_folder(key, item) for item in value)


def _not_hydras(key: str, value):
    """A patch's value without the folder mpigen adds for Hydra's hostfile, which rendering writes again."""
    if isinstance(value, list):
        return [item for item in value if not _is_hydra_folder(key, item)]
    return value
