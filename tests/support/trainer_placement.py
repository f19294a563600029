"""Where the pods of a job run, as the tests of what import carries of a TrainJob's
runtimePatches compare them (tests/acceptance/importing/test_trainjob_runtime_patches.py): the
placement (nodeSelector, tolerations, affinity) of each role's pod template, in any target's
render, and of the pods the Kubeflow Trainer makes of a TrainJob on its runtime.

The Trainer merges each runtimePatches entry, in list order, into the runtime's JobSet spec with
a strategic merge patch (kubeflow/trainer v2.3.0 pkg/runtime/core/trainingruntime.go,
mergeRuntimePatches: strategicpatch.StrategicMergePatch(source, patch, JobSetSpec{})). For the
three placement fields, Kubernetes' core/v1 types (staging/src/k8s.io/api/core/v1/types.go)
give: nodeSelector a map, merged key by key; tolerations a list without patchStrategy,
replaced whole; affinity a struct, merged field by field, whose lists (nodeSelectorTerms,
preferred terms, pod affinity terms) have no patchStrategy and are replaced whole. A
replicatedJob of the patch is merged into the runtime's of the same name (JobSetSpec
replicatedJobs: patchMergeKey name)."""

from __future__ import annotations

import copy
from typing import Any

import yaml

from tests.support.effective_pods import pod_specs

PLACEMENT = ("nodeSelector", "tolerations", "affinity")
KUEUE = "kueue.x-k8s.io/manager"
# The MPI container of each role in the targets other than trainjob (the operator's names).
ROLE_CONTAINERS = {"worker": "mpi-worker", "launcher": "mpi-launcher"}
TRAINER_JOBS = {"worker": "node", "launcher": "launcher"}


def _merged(base: Any, patch: Any) -> Any:
    """A struct or map merged key by key; any other value (lists included) replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = _merged(base.get(key), value)
        return out
    return copy.deepcopy(patch)


def placement_of(pod: dict) -> dict:
    return {key: pod[key] for key in PLACEMENT if pod.get(key)}


def trainer_placement(trainjob: dict, runtime: dict, role: str, kueue: bool = False) -> dict:
    """The placement of the pods the Trainer makes for a role (worker: job node, launcher: job
    launcher) of the TrainJob on the runtime; Kueue's entry left out unless `kueue`."""
    job = TRAINER_JOBS[role]
    pods = [j["template"]["spec"]["template"].get("spec", {})
            for j in runtime["spec"]["template"]["spec"]["replicatedJobs"] if j["name"] == job]
    placement = placement_of(pods[0])
    for entry in trainjob["spec"].get("runtimePatches", []):
        if entry["manager"] == KUEUE and not kueue:
            continue
        for patched in entry.get("trainingRuntimeSpec", {}).get("template", {}).get("spec", {}).get(
                "replicatedJobs", []):
            if patched["name"] == job:
                pod = patched.get("template", {}).get("spec", {}).get("template", {}).get("spec", {})
                placement = _merged(placement, placement_of(pod))
    return placement


def rendered_placement(stream: bytes, role: str, runtime: dict) -> dict:
    """The placement of a role's pods in a render: the pod template whose MPI container is the
    role's; of a rendered TrainJob, the Trainer's pods on `runtime`."""
    documents = [doc for doc in yaml.safe_load_all(stream) if doc]
    trainjobs = [doc for doc in documents if doc.get("kind") == "TrainJob"]
    if trainjobs:
        return trainer_placement(trainjobs[0], runtime, role)
    pods = [spec for doc in documents for spec in pod_specs(doc)
            if any(c.get("name") == ROLE_CONTAINERS[role] for c in spec["containers"])]
    assert pods, f"no {role} pod in the render"
    return placement_of(pods[0])
