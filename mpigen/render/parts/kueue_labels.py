"""What the targets Kueue admits as one workload (jobset, trainjob) write for it: the queue and
priority labels on the one object Kueue manages, and the topology request on the rank pods'
templates (shared/reference/targets.md 3.1)."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.labels import KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL, topology_annotation


def label_workload(job: MPIJob, meta: dict) -> None:
    """The queue and priority labels on the metadata of the object Kueue admits."""
    if job.extensions.queue is not None:
        meta["labels"][KUEUE_QUEUE_LABEL] = job.extensions.queue
    if job.extensions.priorityClass is not None:
        meta["labels"][KUEUE_PRIORITY_LABEL] = job.extensions.priorityClass


def request_topology(job: MPIJob, workers: dict, launcher: dict) -> None:
    """Kueue's topology request on the pod templates of the rank pods."""
    topology = job.extensions.topology
    if topology is None:
        return
    key, level = topology_annotation(topology.required, topology.preferred)
    for template in (workers, launcher) if job.extensions.runLauncherAsWorker else (workers,):
        template.setdefault("metadata", {}).setdefault("annotations", {})[key] = level
