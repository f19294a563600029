"""What a job asks of the cluster, counted from its objects: GPUs (replicas times the
accelerators of one pod) and MPI slots (a hostfile's, or an MPIJob's slotsPerWorker per
worker). A suspended MPIJob runs nothing."""

from __future__ import annotations

from mpigen.kube.accelerators import is_accelerator
from mpigen.review.diff.manifests import job_of
from mpigen.review.diff.model import Manifest, ObjectKey
from mpigen.review.diff.values import get, mapping, whole_number

REPLICA_FIELDS = {"StatefulSet": "replicas", "Deployment": "replicas", "ReplicaSet": "replicas",
                  "Job": "parallelism"}


def totals(manifests) -> dict[tuple, tuple[int, int]]:
    """(GPUs, slots) per job of one render."""
    by_job: dict[tuple, tuple[int, int]] = {}
    for manifest in manifests:
        gpus, slots = by_job.get(job_of(manifest), (0, 0))
        by_job[job_of(manifest)] = (gpus + _gpus(manifest), slots + _slots(manifest))
    return by_job


def is_mpijob(key: ObjectKey) -> bool:
    return key.kind == "MPIJob" and key.api_version.startswith("kubeflow.org/")


def _replica_specs(spec: dict) -> list[tuple[int, dict]]:
    """(replicas, pod spec) of each of an MPIJob's replica specs (a suspended job has none
    running)."""
    if get(spec, "runPolicy", "suspend") is True:
        return []
    out = []
    for role, replica in mapping(spec.get("mpiReplicaSpecs")).items():
        replica = mapping(replica)
        count = whole_number(replica.get("replicas"), default=1 if role == "Launcher" else 0)
        out.append((count, mapping(mapping(replica.get("template")).get("spec"))))
    return out


def _gpus(manifest: Manifest) -> int:
    """Replicas times the accelerators of one pod (init containers are not counted)."""
    kind, spec = manifest.key.kind, mapping(manifest.data.get("spec"))
    if kind == "Pod":
        return _pod_gpus(spec)
    if is_mpijob(manifest.key):
        return sum(count * _pod_gpus(pod) for count, pod in _replica_specs(spec))
    if kind not in REPLICA_FIELDS:
        return 0
    replicas = whole_number(spec.get(REPLICA_FIELDS[kind]), default=1)
    return replicas * _pod_gpus(mapping(mapping(spec.get("template")).get("spec")))


def _pod_gpus(pod_spec: dict) -> int:
    total = 0
    containers = pod_spec.get("containers")
    for container in containers if isinstance(containers, list) else []:
        resources = mapping(mapping(container).get("resources"))
        limits, requests = mapping(resources.get("limits")), mapping(resources.get("requests"))
        for name in limits.keys() | requests.keys():
            if is_accelerator(name):
                total += whole_number(limits.get(name, requests.get(name)), default=0)
    return total


def _slots(manifest: Manifest) -> int:
    if is_mpijob(manifest.key):  # slotsPerWorker (the operators' default 1) per worker
        spec = mapping(manifest.data.get("spec"))
        workers = mapping(mapping(spec.get("mpiReplicaSpecs")).get("Worker"))
        if get(spec, "runPolicy", "suspend") is True:
            return 0
        return (whole_number(spec.get("slotsPerWorker"), default=1)
                * whole_number(workers.get("replicas"), default=0))
    if manifest.key.kind != "ConfigMap":
        return 0
    hostfile = get(manifest.data, "data", "hostfile")
    return hostfile_slots(hostfile) if isinstance(hostfile, str) else 0


def hostfile_slots(text: str) -> int:
    """Slots of a hostfile: `host slots=N` (Open MPI), `host:N` (Intel MPI, MPICH), `host` (1)."""
    total = 0
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        slots = next((f.partition("=")[2] for f in fields[1:] if f.startswith("slots=")), None)
        if slots is None and ":" in fields[0]:
            slots = fields[0].rpartition(":")[2]
        total += whole_number(slots, default=1)
    return total
