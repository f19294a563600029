"""Gang scheduling, for the targets that create the pods' controllers themselves (static,
jobset): the PodGroup and the pods' scheduler, as the operator creates them when
it runs with --gang-scheduling (shared/reference/mpi-operator.md 2.7 for kube-batch, 4.8
for Volcano and scheduler-plugins). The PodGroup is named after the job; it lists no pods:
the pods name it (an annotation for Volcano and kube-batch, a label for scheduler-plugins).

minMember counts the launcher, unless the launcher is created only once the workers are
ready (a GitOps profile starts it in a later wave or Kustomization; v2beta1's
WaitForWorkersReady; a JobSet's launcher that dependsOn the workers): then a group that waits for the launcher would never start
(mpi-op#608), so it counts the workers alone.
"""

from __future__ import annotations

from mpigen.kube import quantity
from mpigen.compile.mpijob import LAUNCHER, WORKER, GangScheduling, MPIJob
from mpigen.kube.labels import GROUP_NAME_ANNOTATION, POD_GROUP_LABEL, VOLCANO_QUEUE_ANNOTATION
from mpigen.render.kinds import Kind, group_of
from mpigen.compile.names import object_meta

API_VERSIONS = {"volcano": "scheduling.volcano.sh/v1beta1", "scheduler-plugins": "scheduling.x-k8s.io/v1alpha1",
                "kube-batch": "scheduling.incubator.k8s.io/v1alpha1"}
# The PodGroup of each scheduler, as mpigen.render.kinds describes it: it runs no pods itself.
KINDS = tuple(Kind(group_of(api), "PodGroup", "podgroups") for api in API_VERSIONS.values())


def min_member(job: MPIJob, launcher_waits: bool) -> int:
    gang = job.extensions.gang
    if gang.minAvailable is not None:
        return gang.minAvailable
    return job.workers if launcher_waits else job.workers + 1


def min_resources(job: MPIJob, members: int) -> dict[str, str]:
    """calPGMinResource: the launcher first (a launcher and workers of equal priority count
    the workers as lower; mpigen cannot read PriorityClass values, so it takes them as
    equal), the workers cut to members - 1 when the group is smaller than the job; each
    container's requests, or its limit for a resource it does not request, times replicas."""
    counts = {LAUNCHER: 1, WORKER: job.workers}
    if 1 + job.workers > members:
        counts[WORKER] = max(members - 1, 0)
    summands: dict[str, list[str]] = {}
    for role, count in counts.items():
        template = job.spec.mpiReplicaSpecs[role].template
        for container in template.get("spec", {}).get("containers", []):
            resources = container.get("resources", {})
            for name, value in {**resources.get("limits", {}), **resources.get("requests", {})}.items():
                summands.setdefault(name, []).extend([value] * count)
    return {name: quantity.add(values) for name, values in sorted(summands.items()) if values}


def _priority_class(job: MPIJob) -> str | None:
    for role in (LAUNCHER, WORKER):
        name = job.spec.mpiReplicaSpecs[role].template.get("spec", {}).get("priorityClassName")
        if name:
            return name
    return None


def new_pod_group(job: MPIJob, launcher_waits: bool) -> dict:
    gang: GangScheduling = job.extensions.gang
    members = min_member(job, launcher_waits)
    spec: dict = {"minMember": members}
    if gang.scheduler == "volcano":
        queue = gang.queue or job.metadata.annotations.get(VOLCANO_QUEUE_ANNOTATION)
        if queue:
            spec["queue"] = queue
        if _priority_class(job):
            spec["priorityClassName"] = _priority_class(job)
        if members > 0:
            spec["minResources"] = min_resources(job, members)
    elif gang.scheduler == "scheduler-plugins":
        spec["scheduleTimeoutSeconds"] = gang.scheduleTimeoutSeconds or 0
        spec["minResources"] = min_resources(job, members)
    elif _priority_class(job):  # kube-batch
        spec["priorityClassName"] = _priority_class(job)
    meta = object_meta(job, job.metadata.name, {})
    del meta["labels"]  # the operator's PodGroup has no labels
    return {"apiVersion": API_VERSIONS[gang.scheduler], "kind": "PodGroup", "metadata": meta, "spec": spec}


def join_group(job: MPIJob, template: dict) -> None:
    """The pod template of a member: the gang scheduler's name (overwriting the user's, as
    the operator does) and the group it belongs to."""
    gang = job.extensions.gang
    template.setdefault("spec", {})["schedulerName"] = gang.schedulerName
    meta = template.setdefault("metadata", {})
    if gang.scheduler == "scheduler-plugins":
        meta["labels"] = {**meta.get("labels", {}), POD_GROUP_LABEL: job.metadata.name}
    else:
        meta["annotations"] = {**meta.get("annotations", {}), GROUP_NAME_ANNOTATION: job.metadata.name}
