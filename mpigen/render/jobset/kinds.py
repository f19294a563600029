"""The JobSet (jobset.x-k8s.io) as mpigen.render.kinds describes it: a run (its controller
makes the launcher Job); each replicated job runs replicas (default 1) Jobs of
min(parallelism, completions) pods (parallelism defaulting to 1, as a Job's); its workers
are the pods of the replicated job `worker`. A suspended JobSet runs nothing, and holds its
job back: the hostfile beside it names hosts that do not exist. What it refuses to change:
mpigen.render.jobset.immutable, and Kueue's rules of a job (its jobset integration); its
model: kubeflow-trainer-api's JobsetV1alpha2JobSet."""

from __future__ import annotations

from mpigen.kube.kueue_immutable import JOB_RULES
from mpigen.kube.values import get, mapping, whole_number
from mpigen.render.jobset.immutable import immutable_changes
from mpigen.render.jobset.names import JOBSET_API, WORKER_JOB
from mpigen.render.parts import podgroup
from mpigen.render.kinds import Admission, Find, Kind, Pods, every_version, group_of


def holds_job(obj: dict) -> bool:
    return get(obj, "spec", "suspend") is True


def _replicated_jobs(obj: dict) -> list[tuple[str, int, dict]]:
    """(name, pods, pod spec) of each replicated job; none while the JobSet is suspended."""
    if holds_job(obj):
        return []
    jobs = get(obj, "spec", "replicatedJobs")
    out = []
    for replicated in jobs if isinstance(jobs, list) else []:
        replicated = mapping(replicated)
        job_spec = mapping(get(replicated, "template", "spec"))
        parallelism = whole_number(job_spec.get("parallelism"), default=1)
        per_job = min(parallelism, whole_number(job_spec.get("completions"), default=parallelism))
        count = whole_number(replicated.get("replicas"), default=1) * per_job
        out.append((replicated.get("name"), count, mapping(get(job_spec, "template", "spec"))))
    return out


def pods(obj: dict, find: Find) -> Pods:
    return [(count, pod) for _, count, pod in _replicated_jobs(obj)]


def workers(obj: dict, find: Find) -> int:
    return sum(count for name, count, _ in _replicated_jobs(obj) if name == WORKER_JOB)


def pod_sets(obj: dict, find: Find) -> int:
    """One pod set per replicated job, suspended or not (Kueue v0.19.2,
    pkg/controller/jobs/jobset/jobset_controller.go JobSet.PodSets)."""
    jobs = get(obj, "spec", "replicatedJobs")
    return len(jobs) if isinstance(jobs, list) else 0


def model(api: str) -> type | None:
    if api != JOBSET_API:
        return None
    from kubeflow_trainer_api import models

    return models.JobsetV1alpha2JobSet


# Kueue's RunWithPodSetsInfo merges into the pod template of every replicated job
# (pkg/controller/jobs/jobset/jobset_controller.go, v0.19.2).
TEMPLATES = (".spec.replicatedJobs[].template.spec.template",)
ADMISSION = Admission(TEMPLATES, ("spec", "suspend"), merge_patch=True)
JOBSET = Kind(group_of(JOBSET_API), "JobSet", "jobsets", run=True, pods=pods, workers=workers, holds_job=holds_job,
              immutable=immutable_changes, admission=ADMISSION, kueue=every_version(JOB_RULES), model=model,
              pod_templates=TEMPLATES, pod_sets=pod_sets)
KINDS = (JOBSET, *podgroup.KINDS)  # and the gang scheduler's PodGroup
