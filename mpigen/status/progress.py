"""How far a resumed run got: the first of its steps (Watched.steps, in the order the
controllers create them) that is not done, or running once every step is.

A step is done when its batch Jobs are Complete (the keygen, which runs to completion before
the workers start: the Job controller's Complete condition, kubernetes/kubernetes
pkg/controller/job/job_controller.go, and JobSet's `dependsOn` Complete, JobSet v0.12.0
pkg/controllers/jobset_controller.go `dependencyReachedStatus`) or when as many of its pods are
Ready as the controllers' objects ask for: a StatefulSet's spec.replicas, a batch Job's
spec.parallelism (the JobSet's and the Trainer's Indexed Jobs), the MPIJob's Worker replicas
(kubeflow/mpi-operator caa3c47 pkg/controller/mpi_job_controller.go `getOrCreateWorker`
creates that many pods). A step whose Jobs do not exist yet counts none of its pods
(JobSet creates a replicated job once the one it dependsOn reached its status)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mpigen.render.watched import Step, Watched
from mpigen.status.pods import is_true, named, ready
from mpigen.status.runs import Run

STEP_NAMES = {"worker": "workers", "node": "workers", "keygen": "keygen", "launcher": "launcher"}


@dataclass(frozen=True)
class Progress:
    """The step the run is at (None: every step done: running), its pods Ready of expected."""

    step: str | None
    ready: int
    expected: int


def step_name(step: Step) -> str:
    return STEP_NAMES.get(step.name, step.name)


def step_jobs(run: Run, step: Step) -> list[dict]:
    """The batch Jobs of a step (the run's top object when it is the launcher Job)."""
    if step.jobs is None:
        return []
    pattern = re.compile(step.jobs)
    jobs = run.jobs + ([run.top] if run.top is not None and run.top["kind"] == "Job" else [])
    return [job for job in jobs if pattern.fullmatch(job["metadata"]["name"])]


def expected(run: Run, step: Step, watched: Watched) -> int:
    """How many pods of the step the controllers' objects ask for."""
    jobs = step_jobs(run, step)
    if jobs:
        return sum(job["spec"].get("parallelism", 1) for job in jobs)
    if step.jobs is None and run.top is not None and run.top["kind"] == "MPIJob":
        replica = run.top["spec"].get("mpiReplicaSpecs", {}).get(step.name.capitalize(), {})
        return replica.get("replicas", 1)
    sets = run.of_kind("StatefulSet")
    if step.jobs is None and sets:
        return sum(s["spec"].get("replicas", 1) for s in sets)
    return watched.workers if step_name(step) == "workers" else 1


def finishing(run: Run) -> set[str]:
    """The replicated jobs another one dependsOn with status Complete (the keygen): done only
    once Complete, Ready is not enough (JobSet v0.12.0 api/jobset/v1alpha2/jobset_types.go
    `DependsOnStatus`, pkg/controllers/jobset_controller.go `dependencyReachedStatus`)."""
    return {dependency["name"] for js in run.of_kind("JobSet")
            for rj in js["spec"].get("replicatedJobs", []) for dependency in rj.get("dependsOn") or []
            if dependency.get("status") == "Complete"}


def progress(run: Run, watched: Watched) -> Progress:
    """The first step not done, else the workers' (the ranks') pods Ready: running."""
    ranks, complete_first = Progress(None, 0, 0), finishing(run)
    for step in watched.steps:
        jobs = step_jobs(run, step)
        if jobs and all(is_true(job, "Complete") for job in jobs):
            continue
        if step.name in complete_first:
            return Progress(step_name(step), 0, len(jobs) or 1)
        pods = [pod for pod in named(run.pods, step.pods) if step.jobs is None or jobs]
        count, want = sum(1 for pod in pods if ready(pod)), expected(run, step, watched)
        if count < want or want == 0:
            return Progress(step_name(step), count, want)
        if step_name(step) == "workers":
            ranks = Progress(None, count, want)
    return ranks
