"""`mpigen status`'s answer for one job (mpigen.status.judge), for every target and every
state, against the objects its controllers write at each moment of its life: the job is
rendered from a blueprint through the real stages (tests.support.status_wanted), and the
cluster's objects are built by the ports of the controllers' code in tests/support
(status_jobset_world: JobSet v0.12.0 pkg/controllers/jobset_controller.go and
failure_policy.go, Kubeflow Trainer v2.3.0 plugins/jobset/jobset.go `Status`;
status_operator_world: kubeflow/mpi-operator caa3c47 pkg/controller/mpi_job_controller.go
`updateMPIJobStatus`; status_objects: Kubernetes' Job and StatefulSet controllers, the
kubelet's pod status, Kueue v0.19.2's Workload conditions and names). The objects are then
assigned to the job as the command assigns the listed ones (mpigen.status.grouping.group).

Each row: target, moment (tests.support.status_moments), whether the job has a Kueue queue,
and the answer: its state and the fields that say it. FAILED_POD: the one pod in phase
Failed among the cluster's objects (None when the Job controller deleted its pods: a launcher
with restartPolicy OnFailure past backoffLimit, job_controller.go `deleteActivePods`)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from mpigen.compile.mpijob import V1
from mpigen.status.grouping import group
from mpigen.status.judge import judge
from mpigen.status.model import STATES, as_git_says
from tests.support.status_objects import PREEMPTED, workload
from tests.support.status_wanted import NAMESPACE, QUEUE
from tests.support.status_moments import MOMENTS
from tests.support.status_world import POSITION, world

FAILED_POD = "the failed pod"
TARGETS = ("static", "mpijob", "jobset", "trainjob")
WAITING = {"queue": QUEUE}
QUEUED = {"queue": QUEUE, "position": POSITION, "reason": "Pending: couldn't assign flavors to pod set worker: "
          "insufficient unused quota for nvidia.com/gpu in flavor a100, 8 more needed"}
INADMISSIBLE = {"queue": QUEUE, "position": None,
                "reason": f"Inadmissible: LocalQueue {QUEUE} is terminating or missing"}
RUNNING = {"ready": 2, "expected": 2, "restarts": 0, "restart_budget": 6, "gpus": 8}
RESTARTED = {**RUNNING, "restarts": 1}
WORKERS = {"step": "workers", "ready": 1, "expected": 2, "gpus": 8}
BACKOFF = {"reason": "BackoffLimitExceeded: Job has reached the specified backoff limit", "failing_pod": None,
           "restarts": 6}
MAX_RESTARTS = {"reason": "ReachedMaxRestarts: jobset failed due to reaching max number of restarts "
                          "(first failed job: train-launcher-0)", "failing_pod": FAILED_POD, "restarts": 6}
EVICTED = {"reason": "MPIJobEvicted: 1/2 workers are evicted", "failing_pod": FAILED_POD}
FAILED = {"static": BACKOFF, "mpijob": BACKOFF, "jobset": MAX_RESTARTS, "trainjob": MAX_RESTARTS}

# (moment, queued, state, fields) for every target; then the rows of one target alone.
EVERY_TARGET = [
    ("absent", False, "missing", {"run": None}),
    ("absent", True, "missing", {"run": None}),
    ("created", False, "pending", {"run": "train"}),
    ("created", True, "pending", {}),
    ("queued", True, "queued", QUEUED),
    ("inadmissible", True, "queued", INADMISSIBLE),
    ("held", True, "held", WAITING),
    ("preempted", True, "queued", {"queue": QUEUE, "reason": f"evicted (Preempted): {PREEMPTED}"}),
    ("workers", False, "starting", WORKERS),
    ("workers", True, "starting", WORKERS),
    ("launcher", False, "starting", {"step": "launcher", "gpus": 8}),
    ("launcher", True, "starting", {"step": "launcher"}),
    ("running", False, "running", RUNNING),
    ("running", True, "running", RUNNING),
    ("restarted", False, "running", RESTARTED),
    ("restarted", True, "running", RESTARTED),
    ("succeeded", False, "succeeded", {}),
    ("succeeded", True, "succeeded", {}),
    ("stopped", False, "stopped", {}),
    ("stopped", True, "stopped", {"run": None}),  # a queued job's objects are deleted to stop it
]
ONE_TARGET = [
    ("jobset", "keygen", False, "starting", {"step": "keygen", "ready": None}),
    ("jobset", "keygen", True, "starting", {"step": "keygen"}),
    ("mpijob", "evicted", False, "failed", EVICTED),
    ("static", "evicted", False, "running", RUNNING),  # a worker the StatefulSet replaces: no failure
]
CASES = ([(target, *row) for target in TARGETS for row in EVERY_TARGET]
         + [(target, "failed", queued, "failed", FAILED[target]) for target in TARGETS for queued in (False, True)]
         + ONE_TARGET)


def verdict_at(target: str, moment: str, queued: bool, stale: bool = False, mpijob_api: str | None = None):
    here = world(target, moment, queued, stale, mpijob_api)
    wanted = here.rendered.wanted
    seen = group([wanted], here.objects)[(NAMESPACE, wanted.job)]
    seen.positions = here.positions
    return judge(wanted, seen), here


@pytest.mark.parametrize("target, moment, queued, state, fields", CASES,
                         ids=[f"{c[0]}-{c[1]}{'-queued' if c[2] else ''}" for c in CASES])
def test_the_answer_at_each_moment(target, moment, queued, state, fields):
    verdict, here = verdict_at(target, moment, queued)
    assert verdict.state == state, verdict
    failed = [o["metadata"]["name"] for o in here.objects if o["kind"] == "Pod" and o["status"]["phase"] == "Failed"]
    for name, value in fields.items():
        if value == FAILED_POD:
            assert len(failed) == 1 and verdict.failing_pod == failed[0], (failed, verdict)
        elif name == "run" and value is not None:
            assert verdict.run == here.rendered.wanted.watched.name
        else:
            assert getattr(verdict, name) == value, (name, verdict)
    assert verdict.stale_runs == ()


# The training-operator's kubeflow.org/v1 MPIJob (tests.support.status_training_operator_world,
# kubeflow/trainer v1.9.0): a bare launcher pod, no batch Job, so no restart budget (watched:
# restart_budget None); not queued (Kueue v0.19.2 manages the v2beta1 MPIJob only,
# pkg/controller/jobs/mpijob imports mpi-operator's v2beta1).
V1_CASES = [
    ("absent", "missing", {"run": None}),
    ("created", "pending", {"detail": "created, no pod scheduled"}),
    ("workers", "starting", {"step": "workers", "ready": 1, "expected": 2}),
    ("launcher", "starting", {"step": "launcher"}),
    ("running", "running", {"ready": 2, "expected": 2, "restarts": None, "restart_budget": None, "gpus": 8,
                            "detail": "ranks 2/2 Ready, 8 GPUs"}),
    ("succeeded", "succeeded", {}),
    ("failed", "failed", {"reason": "MPIJobFailed: MPIJob ml/train has failed", "failing_pod": FAILED_POD}),
    ("evicted", "failed", {"reason": "MPIJobEvicted: 1/2 workers are evicted", "failing_pod": FAILED_POD}),
    ("stopped", "stopped", {"detail": "suspended"}),
]


@pytest.mark.parametrize("moment, state, fields", V1_CASES, ids=[c[0] for c in V1_CASES])
def test_the_training_operators_v1_mpijob_at_each_moment(moment, state, fields):
    verdict, here = verdict_at("mpijob", moment, False, mpijob_api=V1)
    assert [o.api_version for o in here.rendered.wanted.objects if o.kind == "MPIJob"] == [V1]
    assert verdict.state == state, verdict
    failed = [o["metadata"]["name"] for o in here.objects if o["kind"] == "Pod" and o["status"]["phase"] == "Failed"]
    for name, value in fields.items():
        if value == FAILED_POD:
            assert len(failed) == 1 and verdict.failing_pod == failed[0], (failed, verdict)
        else:
            assert getattr(verdict, name) == value, (name, verdict)


def test_every_state_is_reached_on_every_target():
    reached = {(target, state) for target, _, _, state, _ in CASES}
    assert reached >= {(target, state) for target in TARGETS for state in STATES}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("moment, state", [("running", "running"), ("queued", "queued"), ("stopped", "stopped")])
def test_an_older_run_still_present_is_named(target, moment, state):
    """Under a GitOps profile a new spec.run renames every object (`<job>-<run>`); the older
    run's objects, still present, carry the same job label."""
    verdict, here = verdict_at(target, moment, True, stale=True)
    older = world(target, "running", True).rendered  # named as the render of run "1" names it
    assert verdict.state == state
    assert len(verdict.stale_runs) == 1 and verdict.stale_runs[0] != here.rendered.wanted.watched.name
    assert verdict.stale_runs[0].startswith(older.wanted.job + "-")


def test_the_details_say_the_fields_in_words():
    verdict, _ = verdict_at("jobset", "workers", False)
    assert verdict.detail == "workers 1/2 Ready"
    verdict, _ = verdict_at("static", "running", False)
    assert verdict.detail == "ranks 2/2 Ready, restarts 0/6, 8 GPUs"
    assert verdict_at("jobset", "keygen", False)[0].detail == "keygen: the SSH keys not made yet"
    assert verdict_at("mpijob", "launcher", False)[0].detail == "launcher: its pod not Ready yet"
    verdict, _ = verdict_at("jobset", "queued", True)
    assert verdict.detail == f"in {QUEUE}, position {POSITION}: {QUEUED['reason']}"
    verdict, here = verdict_at("jobset", "failed", False)
    assert verdict.detail.startswith(MAX_RESTARTS["reason"] + "; pod train-launcher-0-0-")
    assert verdict.detail.endswith(": container mpi-launcher exited 1 (Error)")
    assert verdict_at("static", "stopped", False)[0].detail == "its workers scaled to 0"
    assert verdict_at("mpijob", "stopped", False)[0].detail == "suspended"
    assert verdict_at("jobset", "stopped", True)[0].detail == "none of its objects left"
    verdict, _ = verdict_at("trainjob", "held", True)
    assert verdict.detail == f"in {QUEUE} by mpigen.dev/held"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("moment", MOMENTS)
def test_the_detail_never_restates_the_state(target, moment):
    for queued in (False, True):
        verdict, _ = verdict_at(target, moment, queued)
        assert not verdict.detail.startswith(verdict.state) and f"{verdict.state}:" not in verdict.detail


def test_only_the_states_git_asked_for_pass():
    def passes(target, moment, queued):
        verdict, here = verdict_at(target, moment, queued)
        return as_git_says(here.rendered.wanted.watched.state, verdict.state)
    assert not passes("static", "failed", False)
    assert not passes("jobset", "absent", False)
    assert passes("trainjob", "queued", True)
    assert passes("mpijob", "stopped", False) and passes("jobset", "held", True)


def judged(wanted, objects: list[dict]):
    return judge(wanted, group([wanted], objects)[(NAMESPACE, wanted.job)])


@pytest.mark.parametrize("git, state", [("running", "missing"), ("completed", "stopped")])
def test_workers_left_without_their_launcher(git, state):
    """The static workers' StatefulSet still there, its launcher Job deleted (kubectl delete,
    or its ttlSecondsAfterFinished): not the job's run, whatever its workers do."""
    here = world("static", "running")
    launcher = next(o for o in here.objects if o["kind"] == "Job")
    left = [o for o in here.objects if o is not launcher and launcher["metadata"]["uid"] not in
            [ref["uid"] for ref in o["metadata"].get("ownerReferences", [])]]
    wanted = here.rendered.wanted
    verdict = judged(replace(wanted, watched=wanted.watched._replace(state=git)), left)
    assert verdict.state == state and verdict.run == wanted.watched.name


@pytest.mark.parametrize("target", TARGETS)
def test_queued_before_kueue_made_its_workload(target):
    """Kueue's webhook suspended the job; its reconciler has not created the Workload yet
    (reconciler.go step 3, handleJobWithNoWorkload): queued, no position, no reason."""
    here = world(target, "queued", True)
    verdict = judged(here.rendered.wanted, [o for o in here.objects if o["kind"] != "Workload"])
    assert (verdict.state, verdict.queue, verdict.position, verdict.reason) == ("queued", QUEUE, None, None)


@pytest.mark.parametrize("target", TARGETS)
def test_admitted_and_not_yet_resumed_is_pending(target):
    """Kueue admitted the Workload; the job reconciler has not unsuspended the job yet
    (reconciler.go step 7, "Job admitted, unsuspending")."""
    here = world(target, "queued", True)
    objects = [o for o in here.objects if o["kind"] != "Workload"]
    owners = {ref["uid"] for o in here.objects if o["kind"] == "Workload" for ref in o["metadata"]["ownerReferences"]}
    objects += [workload(o, QUEUE, "admitted") for o in objects if o["metadata"]["uid"] in owners]
    verdict = judged(here.rendered.wanted, objects)
    assert verdict.state == "pending" and verdict.detail == "suspended: admitted, Kueue has not resumed it yet"


@pytest.mark.parametrize("target", ["static", "mpijob"])
def test_a_worker_restarting_in_place_uses_no_budget(target):
    """The launcher's Job counts its own pods' failures (job_controller.go
    `pastBackoffLimitOnFailure`); a worker container the kubelet restarts counts against no
    budget (a StatefulSet's or the MPI Operator's pod)."""
    here = world(target, "running")
    for obj in here.objects:
        if obj["kind"] == "Pod" and "-worker-" in obj["metadata"]["name"]:
            for status in obj["status"]["containerStatuses"]:
                status["restartCount"] = 2
    verdict = judged(here.rendered.wanted, here.objects)
    assert (verdict.state, verdict.restarts, verdict.restart_budget) == ("running", 0, 6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("moment", ["queued", "workers", "running", "failed"])
def test_the_answer_does_not_depend_on_the_order_listed(target, moment):
    """The API server lists each kind in its own order and the command lists kinds in turn."""
    here = world(target, moment, True, stale=True)
    wanted = here.rendered.wanted
    answers = []
    for seed in range(4):
        shuffled = list(here.objects)
        random.Random(seed).shuffle(shuffled)
        seen = group([wanted], shuffled)[(NAMESPACE, wanted.job)]
        seen.positions = here.positions
        answers.append(judge(wanted, seen))
    assert answers[0].state == moment.replace("workers", "starting") and len(answers[0].stale_runs) == 1
    assert all(answer == answers[0] for answer in answers)
