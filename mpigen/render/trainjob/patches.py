"""A TrainJob's runtimePatches on a runtime the cluster has (shared/reference/targets.md 2.1):
what the blueprint says of the node and launcher pods that the TrainJob has no field for and
that a runtime patch may carry (the Trainer's PodSpecPatch): the pods' volumes (datasets,
shared memory), nodeSelector, tolerations, affinity, imagePullSecrets, account and security
context; the main container's volume mounts and security context; pod labels and annotations.
What it may not carry is refused, at the blueprint's line (mpigen.render.trainjob.checks)."""

from __future__ import annotations

from mpigen.compile.mpijob import LAUNCHER, WORKER, MPIJob
from mpigen.kube.data import copy_data
from mpigen.render.trainjob.names import LAUNCHER_JOB, NODE_CONTAINER, NODE_JOB, PATCH_MANAGER

# PodSpecPatch (TR:pkg/apis/trainer/v1alpha1/trainjob_types.go), in the order a reader looks for them.
POD_FIELDS = ("serviceAccountName", "securityContext", "imagePullSecrets", "nodeSelector", "affinity", "tolerations",
              "schedulingGates", "terminationGracePeriodSeconds", "volumes")
CONTAINER_FIELDS = ("volumeMounts", "securityContext")  # env is not allowed on container node


def replicated_job_patch(name: str, template: dict) -> dict | None:
    pod = template.get("spec", {})
    spec = {key: copy_data(pod[key]) for key in POD_FIELDS if key in pod}
    main = pod["containers"][0]
    container = {key: copy_data(main[key]) for key in CONTAINER_FIELDS if key in main}
    if container:
        spec["containers"] = [{"name": NODE_CONTAINER, **container}]
    patch: dict = {}
    metadata = {key: dict(value) for key, value in template.get("metadata", {}).items() if value}
    if metadata:
        patch["metadata"] = metadata
    if spec:
        patch["spec"] = spec
    if not patch:
        return None
    return {"name": name, "template": {"spec": {"template": patch}}}


def runtime_patches(job: MPIJob) -> list[dict]:
    jobs = [patch for patch in (replicated_job_patch(NODE_JOB, job.spec.mpiReplicaSpecs[WORKER].template),
                                replicated_job_patch(LAUNCHER_JOB, job.spec.mpiReplicaSpecs[LAUNCHER].template))
            if patch is not None]
    if not jobs:
        return []
    return [{"manager": PATCH_MANAGER, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": jobs}}}}]
