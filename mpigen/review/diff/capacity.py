"""What a job asks of the cluster, counted from its objects with what the table of kinds
(mpigen.render.targets.kind_facts) knows of each: GPUs (the pods an object runs times the
accelerators of each pod; init containers are not counted), MPI slots (a hostfile's, or the
hostfile a controller writes) and workers (the ranks' hosts besides the launcher). An object
that holds its job back (a suspended one whose controller makes the pods) leaves the job no
slots: its hostfile names hosts that do not exist."""

from __future__ import annotations

from mpigen.kube.accelerators import is_accelerator
from mpigen.kube.values import mapping, whole_number
from mpigen.render.kinds import Find, group_of
from mpigen.render.targets import KINDS, kind_facts
from mpigen.review.diff.manifests import job_of
from mpigen.review.diff.model import Manifest

Totals = tuple[int, int, int]  # (GPUs, slots, workers)


def totals(manifests) -> dict[tuple, Totals]:
    """(GPUs, slots, workers) per job of one render."""
    manifests = list(manifests)
    finders = _finders(manifests)  # a count may need another object of the render (a runtime it names)
    by_job: dict[tuple, Totals] = {}
    held = set()
    for manifest in manifests:
        counted = _counted(manifest, finders[manifest.key.environment])
        so_far = by_job.get(job_of(manifest), (0, 0, 0))
        by_job[job_of(manifest)] = tuple(a + b for a, b in zip(so_far, counted))
        facts = kind_facts(manifest.key.api_version, manifest.key.kind)
        if facts is not None and facts.holds_job is not None and facts.holds_job(manifest.data):
            held.add(job_of(manifest))
    return {job: (gpus, 0 if job in held else slots, workers) for job, (gpus, slots, workers) in by_job.items()}


def _finders(manifests: list[Manifest]) -> dict[str, Find]:
    """Per environment, the lookup of an object of the render by (API group, kind, namespace, name)."""
    objects: dict[tuple, dict] = {}
    for manifest in manifests:
        key = manifest.key
        objects[_where(key.environment, group_of(key.api_version), key.kind, key.namespace, key.name)] = manifest.data

    def finder(environment: str) -> Find:
        return lambda group, kind, namespace, name: objects.get(_where(environment, group, kind, namespace, name))

    return {environment: finder(environment) for environment in {m.key.environment for m in manifests}}


def _where(environment: str, group: str, kind: str, namespace: str, name: str) -> tuple[str, ...]:
    """Where an object is: no namespace for a cluster-scoped kind."""
    facts = KINDS.get((group, kind))
    return environment, group, kind, "" if facts is not None and facts.cluster_scoped else namespace, name


def _counted(manifest: Manifest, find: Find) -> Totals:
    """(GPUs, slots, workers) of one object."""
    facts = kind_facts(manifest.key.api_version, manifest.key.kind)
    if facts is None:
        return 0, 0, 0
    data = manifest.data
    gpus = sum(count * pod_gpus(pod) for count, pod in facts.pods(data, find)) if facts.pods else 0
    return (gpus, facts.slots(data, find) if facts.slots else 0, facts.workers(data, find) if facts.workers else 0)


def pod_gpus(pod_spec: dict) -> int:
    """The accelerators of one pod: each container's limit, else its request."""
    total = 0
    containers = pod_spec.get("containers")
    for container in containers if isinstance(containers, list) else []:
        resources = mapping(mapping(container).get("resources"))
        limits, requests = mapping(resources.get("limits")), mapping(resources.get("requests"))
        for name in limits.keys() | requests.keys():
            if is_accelerator(name):
                total += whole_number(limits.get(name, requests.get(name)), default=0)
    return total
