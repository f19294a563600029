"""The TrainJob health checks shipped for Argo CD (Lua) and Flux (CEL), run by real
interpreters (lupa: Lua 5.4; cel-python: CEL) against TrainJob statuses as Kubeflow
Trainer v2.3.0 writes them: pkg/apis/trainer/v1alpha1/trainjob_types.go (condition types
Suspended, Complete, Failed; reasons Suspended, Resumed, TrainingRuntimeNotSupported,
DeadlineExceeded; status.jobsStatus), pkg/constants/constants.go (the messages),
pkg/controller/trainjob_controller.go (setSuspendedCondition: True while spec.suspend,
False "Resumed" after; setFailedCondition for an unsupported runtime and for
activeDeadlineSeconds, which also deletes the JobSet) and
pkg/runtime/framework/plugins/jobset/jobset.go Status (the JobSet's True Completed
condition copied as Complete, its True Failed condition as Failed, each with the JobSet's
reason and message, and replicatedJobsStatus as jobsStatus; JobSet v0.12.0 constants).

Who suspends a TrainJob: Git (spec.suspend, which mpigen writes for `state: completed`), or
Kueue's webhook for a TrainJob with the label kueue.x-k8s.io/queue-name (Kueue v0.19.2,
pkg/controller/jobframework/defaults.go ApplyDefaultForSuspend, utils.go
WorkloadShouldBeSuspended and QueueNameForObject); the Trainer never sets spec.suspend
itself, it writes Suspended True, Suspended, "TrainJob is suspended" while spec.suspend
holds (setSuspendedCondition) and passes spec.suspend to its JobSet (plugins/jobset/jobset.go
Build, builder.go Suspend)."""

from __future__ import annotations

import itertools

import pytest
import yaml

from tests.support.health_checks import argo_cd_check, flux_state, flux_health_exprs
from tests.support.health_checks import flux_programs as compile_exprs
from tests.support.paths import ROOT

ARGO = ROOT / "docs" / "argocd" / "trainjob-health.yaml"
FLUX = ROOT / "docs" / "flux" / "trainjob-health.yaml"
ARGO_KEY = "resource.customizations.health.trainer.kubeflow.org_TrainJob"


def condition(kind: str, reason: str, message: str, status: str = "True") -> dict:
    return {"type": kind, "status": status, "lastTransitionTime": "2026-11-24T06:00:00Z",
            "reason": reason, "message": message}


def jobs(node: tuple, launcher: tuple) -> list[dict]:
    """jobsStatus of the JobSet of mpigen's runtime; each tuple is (ready, succeeded, active, suspended)."""
    return [{"name": name, "ready": ready, "succeeded": succeeded, "failed": 0, "active": active,
             "suspended": suspended}
            for name, (ready, succeeded, active, suspended) in (("node", node), ("launcher", launcher))]


def status(replicated: list[dict] | None, *conditions: dict) -> dict:
    written = {}
    if conditions:
        written["conditions"] = list(conditions)
    if replicated is not None:
        written["jobsStatus"] = replicated
    return written


STARTING = jobs((0, 0, 1, 0), (0, 0, 0, 0))      # dependsOn: the launcher waits for the nodes to be Ready
RUNNING = jobs((1, 0, 1, 0), (1, 0, 1, 0))
QUEUED = jobs((0, 0, 0, 1), (0, 0, 0, 1))        # created suspended (Kueue)
DONE = jobs((0, 0, 0, 0), (0, 1, 0, 0))          # active nodes deleted on completion (successPolicy)

# The Trainer's own (pkg/constants/constants.go)
SUSPENDED = condition("Suspended", "Suspended", "TrainJob is suspended")
RESUMED = condition("Suspended", "Resumed", "TrainJob is resumed", "False")
DEADLINE_MESSAGE = "TrainJob exceeded its active deadline"
UNSUPPORTED_MESSAGE = "unsupported runtime: MyRuntime.example.com"
# The JobSet's (sigs.k8s.io/jobset v0.12.0, the Trainer's dependency), copied under the TrainJob's types
COMPLETED = "jobset completed successfully"
FAILED_JOBS = "jobset failed due to one or more job failures (first failed job: train-launcher-0)"
MAX_RESTARTS = "jobset failed due to reaching max number of restarts (first failed job: train-node-0)"
FAIL_ACTION = "applying FailJobSet failure policy action (first failed job: train-launcher-0)"
COMPLETE = condition("Complete", "AllJobsCompleted", COMPLETED)

# (case, status, Argo CD health, Argo CD message, Flux state)
CASES = [
    # No status yet (status is omitzero until the JobSet controller has reported): cel-python
    # reads has(status.x) as false; cel-go stops at the absent `status` and Flux reports the
    # TrainJob Unknown, which it waits on like inProgress.
    ("no status", None, "Progressing", "Waiting for the Trainer controller", "inProgress"),
    ("empty", {}, "Progressing", "Waiting for the Trainer controller", "inProgress"),
    ("JobSet started", status(STARTING), "Progressing", "Running", "current"),
    ("running", status(RUNNING), "Progressing", "Running", "current"),
    ("running after the queue", status(RUNNING, RESUMED), "Progressing", "Running", "current"),
    ("resumed, JobSet not reported yet", status(None, RESUMED),
     "Progressing", "Waiting for the Trainer controller", "inProgress"),
    ("completed", status(DONE, COMPLETE), "Healthy", COMPLETED, "current"),
    ("completed after the queue", status(DONE, RESUMED, COMPLETE), "Healthy", COMPLETED, "current"),
    # GitOps state `completed` renders suspend: true; the Trainer then adds Suspended beside Complete.
    ("completed, then suspended", status(DONE, COMPLETE, SUSPENDED), "Healthy", COMPLETED, "current"),
    ("failed: FailedJobs", status(RUNNING, condition("Failed", "FailedJobs", FAILED_JOBS)),
     "Degraded", FAILED_JOBS, "failed"),
    ("failed: ReachedMaxRestarts", status(RUNNING, condition("Failed", "ReachedMaxRestarts", MAX_RESTARTS)),
     "Degraded", MAX_RESTARTS, "failed"),
    ("failed: FailJobSet rule", status(RUNNING, condition("Failed", "FailJobSetFailurePolicyAction", FAIL_ACTION)),
     "Degraded", FAIL_ACTION, "failed"),
    # The Trainer deletes the JobSet and keeps the last jobsStatus it copied.
    ("failed: DeadlineExceeded", status(RUNNING, RESUMED, condition("Failed", "DeadlineExceeded", DEADLINE_MESSAGE)),
     "Degraded", DEADLINE_MESSAGE, "failed"),
    ("failed: TrainingRuntimeNotSupported", status(None, condition("Failed", "TrainingRuntimeNotSupported",
                                                                   UNSUPPORTED_MESSAGE)),
     "Degraded", UNSUPPORTED_MESSAGE, "failed"),
    # Suspended in Git, before the Trainer has reconciled it: still running.
    ("being stopped", status(RUNNING), "Progressing", "Running", "current"),
]

STOPPED = jobs((0, 0, 0, 1), (0, 0, 0, 1))       # the JobSet suspended its Jobs
QUEUE = {"kueue.x-k8s.io/queue-name": "training"}

# (case, status, spec.suspend, the queue label, Argo CD health, Flux state): a TrainJob that Git
# suspends and no Kueue queue resumes is stopped for good, a settled state (Flux current); one
# Kueue suspends waits for admission (in progress).
SUSPENSIONS = [
    ("stopped (state: completed)", status(STOPPED, SUSPENDED), True, False, "Suspended", "current"),
    ("stopped before the JobSet reported", status(None, SUSPENDED), True, False, "Suspended", "current"),
    ("queued by Kueue, before the JobSet reported", status(None, SUSPENDED), True, True, "Suspended", "inProgress"),
    ("queued by Kueue", status(QUEUED, SUSPENDED), True, True, "Suspended", "inProgress"),
    ("queued again (evicted by Kueue)", status(RUNNING, SUSPENDED), True, True, "Suspended", "inProgress"),
    ("resumed in Git, not yet by the Trainer", status(STOPPED, SUSPENDED), False, False, "Suspended", "inProgress"),
    ("being stopped", status(RUNNING, RESUMED), True, False, "Progressing", "current"),
]


def trainjob(written, suspend: bool | None = None, queue: bool = False) -> dict:
    """A TrainJob with `written` as its status; spec.suspend when given, and Kueue's queue label."""
    obj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
           "metadata": {"name": "train", "namespace": "ml"}, "spec": {} if suspend is None else {"suspend": suspend}}
    if queue:
        obj["metadata"]["labels"] = dict(QUEUE)
    if written is not None:
        obj["status"] = written
    return obj


@pytest.fixture(scope="module")
def argo_health():
    return argo_cd_check(ARGO, ARGO_KEY)


@pytest.fixture(scope="module")
def flux_programs():
    exprs, = flux_health_exprs(FLUX)
    return compile_exprs(exprs)


@pytest.mark.parametrize("_case, written, health, message, _", CASES, ids=[c[0] for c in CASES])
def test_argo_cd_health(argo_health, _case, written, health, message, _):
    assert argo_health(trainjob(written)) == {"status": health, "message": message}


@pytest.mark.parametrize("_case, written, _health, _message, state", CASES, ids=[c[0] for c in CASES])
def test_flux_health(flux_programs, _case, written, _health, _message, state):
    assert flux_state(flux_programs, trainjob(written)) == state


@pytest.mark.parametrize("_case, written, suspend, queue, health, _", SUSPENSIONS, ids=[c[0] for c in SUSPENSIONS])
def test_argo_cd_health_of_a_suspended_trainjob(argo_health, _case, written, suspend, queue, health, _):
    message = "TrainJob is suspended" if health == "Suspended" else "Running"
    assert argo_health(trainjob(written, suspend, queue)) == {"status": health, "message": message}


@pytest.mark.parametrize("_case, written, suspend, queue, _, state", SUSPENSIONS, ids=[c[0] for c in SUSPENSIONS])
def test_flux_health_of_a_suspended_trainjob(flux_programs, _case, written, suspend, queue, _, state):
    assert flux_state(flux_programs, trainjob(written, suspend, queue)) == state


def test_argo_cd_health_key_is_the_one_argo_cd_reads():
    # resource.customizations.health.<group>_<kind> (Argo CD docs, health.md)
    assert list(yaml.safe_load(ARGO.read_text())["data"]) == [ARGO_KEY]


def test_flux_expressions_are_for_the_trainjob_api():
    exprs = flux_health_exprs(FLUX)
    assert [(e["apiVersion"], e["kind"]) for e in exprs] == [("trainer.kubeflow.org/v1alpha1", "TrainJob")]


def test_the_jobset_check_does_not_read_trainjob_conditions():
    """A TrainJob's success is `Complete`, a JobSet's `Completed`: the JobSet check would
    keep a finished TrainJob Progressing, which is why the kind has its own."""
    jobset = argo_cd_check(ROOT / "docs" / "argocd" / "jobset-health.yaml",
                           "resource.customizations.health.jobset.x-k8s.io_JobSet")
    assert jobset(trainjob(status(DONE, COMPLETE)))["status"] == "Progressing"


TYPES = ("Complete", "Failed", "Suspended")
# What each Argo CD health allows Flux to say.
AGREE = {"Degraded": {"failed"}, "Healthy": {"current"}, "Suspended": {"inProgress", "current"},
         "Progressing": {"current", "inProgress"}}


@pytest.mark.parametrize("suspend, queue", [(None, False), (True, False), (True, True)])
@pytest.mark.parametrize("reconciled", [False, True])
def test_every_combination_gets_one_flux_state_that_agrees_with_argo_cd(argo_health, flux_programs, reconciled,
                                                                        suspend, queue):
    """Beyond the statuses the Trainer writes: any set of True conditions, with or without
    jobsStatus, suspended in Git or by Kueue, gets exactly one Flux state, failed exactly when
    Argo CD says Degraded, current when Argo CD says Suspended exactly when Git stopped the
    TrainJob and no queue resumes it, and a running TrainJob is never Healthy."""
    for true in itertools.chain.from_iterable(itertools.combinations(TYPES, n) for n in range(len(TYPES) + 1)):
        conditions = [condition(kind, kind, f"{kind} message") for kind in true]
        written = status(RUNNING if reconciled else None, *conditions)
        health = argo_health(trainjob(written, suspend, queue))["status"]
        state = flux_state(flux_programs, trainjob(written, suspend, queue))
        assert state in AGREE[health], (true, reconciled, health, state)
        if health == "Suspended":
            assert (state == "current") == (suspend is True and not queue), (true, suspend, queue, state)
        assert (health in ("Healthy", "Degraded")) == bool({"Complete", "Failed"} & set(true)), (true, health)
        assert (state == "failed") == ("Failed" in true), (true, state)
