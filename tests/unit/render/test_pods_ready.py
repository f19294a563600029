"""Kueue's waitForPodsReady and mpigen's start order: a queued JobSet (and a TrainJob's JobSet)
whose launcher starts only once the workers are Ready still becomes PodsReady, at the step its
launcher's pod is Ready, and stays so; nothing has to be refused or rendered otherwise.

Ported step by step, from the rendered objects' replicated jobs and dependsOn:
- the JobSet controller (kubernetes-sigs/jobset v0.12.0, pkg/controllers/jobset_controller.go):
  reconcileReplicatedJobs creates a replicated job's Jobs only once dependencyReachedStatus
  holds (pkg/controllers/depends_on.go: Complete = all its Jobs succeeded, Ready = all ready,
  failed or succeeded); calculateReplicatedJobStatuses counts a Job of `jobs.active` ready when
  its succeeded + ready pods reach min(parallelism, completions), and a finished Job succeeded;
- Kueue (kubernetes-sigs/kueue v0.19.2, pkg/controller/jobs/jobset/jobset_controller.go
  JobSet.PodsReady): the sum of every replicated job's replicas equals the sum of Ready +
  Succeeded over the status, each replicated job counted, dependsOn or not (KQ#7889, which
  counted only the started ones, was reverted by KQ#8294 before v0.19); TrainJob.PodsReady
  (pkg/controller/jobs/trainjob/trainjob_controller.go) the same over its child JobSet's
  replicated jobs and the TrainJob's jobsStatus, which the Trainer copies from the JobSet's.

What it costs: the job's pods become Ready one replicated job after another (keygen, then the
workers, then the launcher), and Kueue's waitForPodsReady.timeout (5 minutes in its v1beta1
Configuration, 30 in v1beta2: apis/config/*/defaults.go) runs over all of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mpigen.compile.blueprint import compile_blueprint
from mpigen.load.blueprints import load_blueprints
from mpigen.render.target import Options
from mpigen.render.targets import RESERVED, render_job
from mpigen.validate.document import validate_document

QUEUED = Path(__file__).resolve().parents[3] / "blueprints" / "kueue-queued.yaml"


def _replicated_jobs(target: str) -> list[dict]:
    """The replicated jobs of the JobSet Kueue counts: the JobSet's, or the one the Trainer
    makes from the TrainJob's runtime."""
    (doc,), _ = load_blueprints([QUEUED])
    blueprint, _ = validate_document(doc, RESERVED)
    objects = render_job(compile_blueprint(blueprint), Options(target=target))
    kind, path = {"jobset": ("JobSet", ("spec",)), "trainjob": ("TrainingRuntime", ("spec", "template", "spec"))}[target]
    (obj,) = [o for o in objects if o["kind"] == kind]
    for key in path:
        obj = obj[key]
    return obj["replicatedJobs"]


def _pods(replicated: dict) -> int:
    spec = replicated["template"]["spec"]
    parallelism = spec.get("parallelism", 1)
    return min(parallelism, spec.get("completions", parallelism))


def _statuses(jobs: dict[str, dict]) -> dict[str, dict]:
    """calculateReplicatedJobStatuses: per replicated job, its Jobs ready and succeeded."""
    out: dict[str, dict] = {}
    for job in jobs.values():
        status = out.setdefault(job["replicatedJob"], {"ready": 0, "succeeded": 0, "failed": 0})
        if job["finished"]:
            status["succeeded"] += 1
        elif job["succeeded"] + job["ready"] >= job["pods"]:
            status["ready"] += 1
    return out


def _dependency_reached(replicated: dict, replicas: dict[str, int], statuses: dict[str, dict]) -> bool:
    """depends_on.go dependencyReachedStatus."""
    for dependency in replicated.get("dependsOn", []):
        status = statuses.get(dependency["name"])
        if status is None:
            return False
        if dependency["status"] == "Complete" and replicas[dependency["name"]] != status["succeeded"]:
            return False
        if dependency["status"] == "Ready" and (
                replicas[dependency["name"]] != status["failed"] + status["ready"] + status["succeeded"]):
            return False
    return True


def _reconcile(replicated_jobs: list[dict], jobs: dict[str, dict]) -> None:
    """reconcileReplicatedJobs: the Jobs of each replicated job whose dependencies are reached."""
    replicas = {r["name"]: r.get("replicas", 1) for r in replicated_jobs}
    statuses = _statuses(jobs)
    for replicated in replicated_jobs:
        if not _dependency_reached(replicated, replicas, statuses):
            continue
        for index in range(replicas[replicated["name"]]):
            jobs.setdefault(f"{replicated['name']}-{index}", {
                "replicatedJob": replicated["name"], "pods": _pods(replicated), "ready": 0, "succeeded": 0,
                "finished": False})


def _pods_ready(replicated_jobs: list[dict], jobs: dict[str, dict]) -> bool:
    """Kueue v0.19.2 JobSet.PodsReady (and TrainJob.PodsReady over the same counts)."""
    replicas = sum(r.get("replicas", 1) for r in replicated_jobs)
    return replicas == sum(s["ready"] + s["succeeded"] for s in _statuses(jobs).values())


def _timeline(replicated_jobs: list[dict]) -> list[tuple[str, bool]]:
    """After Kueue admits the job: each Job's pods start and pass their readiness (a Job another
    waits on to be Complete, keygen, then finishes), one event at a time, the controllers
    reconciling between them; each event with Kueue's PodsReady after it."""
    complete = {d["name"] for r in replicated_jobs for d in r.get("dependsOn", []) if d["status"] == "Complete"}
    jobs: dict[str, dict] = {}
    out = []
    while True:
        _reconcile(replicated_jobs, jobs)
        pending = [(name, job) for name, job in jobs.items() if job["ready"] < job["pods"] and not job["finished"]]
        if not pending:
            finishing = [(n, j) for n, j in jobs.items() if j["replicatedJob"] in complete and not j["finished"]]
            if not finishing:
                return out
            name, job = finishing[0]
            job.update(finished=True, ready=0, succeeded=job["pods"])
            out.append((f"{name} succeeded", _pods_ready(replicated_jobs, jobs)))
            continue
        name, job = pending[0]
        job["ready"] = job["pods"]
        out.append((f"{name} Ready", _pods_ready(replicated_jobs, jobs)))


@pytest.mark.parametrize("target, order", [
    ("jobset", ["keygen-0 Ready", "keygen-0 succeeded", "worker-0 Ready", "launcher-0 Ready"]),
    ("trainjob", ["node-0 Ready", "launcher-0 Ready"]),
])
def test_the_job_becomes_pods_ready_when_its_launcher_is_ready_and_stays_so(target, order):
    replicated_jobs = _replicated_jobs(target)
    timeline = _timeline(replicated_jobs)
    assert [event for event, _ in timeline] == order
    assert [ready for _, ready in timeline] == [False] * (len(order) - 1) + [True]


def test_every_replicated_job_counts_though_the_launcher_waits_for_the_workers():
    """The reverted KQ#7889 would have counted only the started replicated jobs; v0.19.2
    counts the launcher before it exists, so the workers alone being Ready is not PodsReady."""
    replicated_jobs = _replicated_jobs("jobset")
    assert [(r["name"], [d["status"] for d in r.get("dependsOn", [])]) for r in replicated_jobs] == [
        ("keygen", []), ("worker", ["Complete"]), ("launcher", ["Ready"])]
    jobs: dict[str, dict] = {}
    _reconcile(replicated_jobs, jobs)
    jobs["keygen-0"].update(finished=True, succeeded=1)
    _reconcile(replicated_jobs, jobs)
    jobs["worker-0"]["ready"] = jobs["worker-0"]["pods"]
    assert not _pods_ready(replicated_jobs, jobs)  # the launcher's Job is not yet created
    _reconcile(replicated_jobs, jobs)
    assert "launcher-0" in jobs and not _pods_ready(replicated_jobs, jobs)
