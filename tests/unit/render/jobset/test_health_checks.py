"""The JobSet health checks shipped for Argo CD (Lua) and Flux (CEL), run by real
interpreters (lupa: Lua 5.4; cel-python: CEL) against JobSet statuses as the JobSet
controller writes them: kubernetes-sigs/jobset v0.12.0 (f22e565ac3cc),
api/jobset/v1alpha2/jobset_types.go (condition types Completed, Failed, Suspended,
RestartingJobSet, StartupPolicyInProgress, StartupPolicyCompleted; status.terminalState,
restarts, replicatedJobsStatus), pkg/constants/constants.go (reasons and messages),
pkg/controllers/jobset_controller.go (updateCondition adds a condition only when True and
flips it to False later; setJobSetCompletedCondition, the suspend and resume conditions,
the InOrder startup conditions) and pkg/controllers/failure_policy.go (Failed and
RestartingJobSet, messages ending "(first failed job: NAME)").

Who suspends a JobSet: Git (spec.suspend, which mpigen writes for `state: completed`), or
Kueue's webhook for a JobSet with the label kueue.x-k8s.io/queue-name (Kueue v0.19.2,
pkg/controller/jobframework/defaults.go ApplyDefaultForSuspend, utils.go
WorkloadShouldBeSuspended and QueueNameForObject); the JobSet controller never sets
spec.suspend itself, it suspends the Jobs (suspendJobs) and writes Suspended True,
SuspendedJobs, "jobset is suspended" at every reconcile of a suspended JobSet."""

from __future__ import annotations

import itertools

import pytest
import yaml

from tests.support.health_checks import argo_cd_check, flux_state, flux_health_exprs
from tests.support.health_checks import flux_programs as compile_exprs
from tests.support.paths import ROOT

ARGO = ROOT / "docs" / "argocd" / "jobset-health.yaml"
FLUX = ROOT / "docs" / "flux" / "jobset-health.yaml"
ARGO_KEY = "resource.customizations.health.jobset.x-k8s.io_JobSet"


def condition(kind: str, reason: str, message: str, status: str = "True") -> dict:
    return {"type": kind, "status": status, "lastTransitionTime": "2026-11-24T06:00:00Z",
            "reason": reason, "message": message}


def jobs(keygen: tuple, worker: tuple, launcher: tuple) -> list[dict]:
    """replicatedJobsStatus of mpigen's JobSet; each tuple is (ready, succeeded, active, suspended)."""
    return [{"name": name, "ready": ready, "succeeded": succeeded, "failed": 0, "active": active,
             "suspended": suspended}
            for name, (ready, succeeded, active, suspended) in
            (("ssh-keygen", keygen), ("worker", worker), ("launcher", launcher))]


def status(replicated: list[dict], *conditions: dict, restarts: int = 0, terminal: str | None = None) -> dict:
    written = {"restarts": restarts, "replicatedJobsStatus": replicated}  # restarts has no omitempty
    if conditions:
        written["conditions"] = list(conditions)
    if terminal:
        written["terminalState"] = terminal
    return written


KEYGEN = jobs((0, 0, 1, 0), (0, 0, 0, 0), (0, 0, 0, 0))      # dependsOn: workers not created yet
RUNNING = jobs((1, 1, 0, 0), (1, 0, 1, 0), (1, 0, 1, 0))
QUEUED = jobs((0, 0, 0, 1), (0, 0, 0, 0), (0, 0, 0, 0))      # created suspended (Kueue)
DONE = jobs((0, 1, 0, 0), (0, 0, 0, 0), (0, 1, 0, 0))        # active workers deleted on completion

STARTING = "in order startup policy is in progress"
STARTED = "in order startup policy has completed"
SUSPENDED = "jobset is suspended"
COMPLETED = "jobset completed successfully"
RESTARTING = "applying RestartJobSet failure policy action (first failed job: train-worker-0)"
FAILED_JOBS = "jobset failed due to one or more job failures (first failed job: train-launcher-0)"
MAX_RESTARTS = "jobset failed due to reaching max number of restarts (first failed job: train-worker-0)"
FAIL_ACTION = "applying FailJobSet failure policy action (first failed job: train-launcher-0)"

RESTART = condition("RestartingJobSet", "DefaultFailurePolicy", RESTARTING)
DONE_COND = condition("Completed", "AllJobsCompleted", COMPLETED)


def restart_over(reason: str, message: str) -> dict:
    return condition("RestartingJobSet", reason, message, "False")


# (case, status, Argo CD health, Argo CD message, Flux state)
CASES = [
    # No status yet: cel-python reads has(status.x) as false; cel-go stops at the absent
    # `status` and Flux reports the JobSet Unknown, which it waits on like inProgress.
    ("no status", None, "Progressing", "Waiting for the JobSet controller", "inProgress"),
    ("empty", {}, "Progressing", "Waiting for the JobSet controller", "inProgress"),
    ("in-order startup", status(KEYGEN, condition("StartupPolicyInProgress", "InOrderStartupPolicyInProgress",
                                                  STARTING)), "Progressing", STARTING, "inProgress"),
    ("first jobs created", status(KEYGEN), "Progressing", "Running", "current"),
    ("running", status(RUNNING), "Progressing", "Running", "current"),
    ("running after in-order startup", status(
        RUNNING, condition("StartupPolicyInProgress", "InOrderStartupPolicyInProgress", STARTING, "False"),
        condition("StartupPolicyCompleted", "InOrderStartupPolicyCompleted", STARTED)),
        "Progressing", "Running", "current"),
    ("running after the queue", status(RUNNING, condition("Suspended", "ResumeJobs", "jobset is resumed", "False")),
     "Progressing", "Running", "current"),
    ("restarting", status(KEYGEN, RESTART, restarts=1), "Progressing", RESTARTING, "current"),
    ("running again", status(RUNNING, restart_over("JobsReady", "all jobs are ready"), restarts=1),
     "Progressing", "Running", "current"),
    ("completed", status(DONE, DONE_COND, terminal="Completed"), "Healthy", COMPLETED, "current"),
    ("restarted, then completed", status(DONE, restart_over("JobSetCompleted", COMPLETED), DONE_COND,
                                         restarts=1, terminal="Completed"), "Healthy", COMPLETED, "current"),
    ("failed: FailedJobs", status(RUNNING, condition("Failed", "FailedJobs", FAILED_JOBS), terminal="Failed"),
     "Degraded", FAILED_JOBS, "failed"),
    ("failed: ReachedMaxRestarts", status(RUNNING, restart_over("JobSetFailed", "jobset failed"),
                                          condition("Failed", "ReachedMaxRestarts", MAX_RESTARTS),
                                          restarts=2, terminal="Failed"), "Degraded", MAX_RESTARTS, "failed"),
    ("failed: FailJobSet rule", status(RUNNING, condition("Failed", "FailJobSetFailurePolicyAction", FAIL_ACTION),
                                       terminal="Failed"), "Degraded", FAIL_ACTION, "failed"),
    ("terminalState Failed only", {"restarts": 0, "terminalState": "Failed"},
     "Degraded", "JobSet terminal state: Failed", "failed"),
    ("terminalState Completed only", {"restarts": 0, "terminalState": "Completed"},
     "Healthy", "JobSet terminal state: Completed", "current"),
    # Suspended in Git, before the controller has suspended the Jobs: still running.
    ("being stopped", status(RUNNING), "Progressing", "Running", "current"),
]

SUSPENDED_NOW = condition("Suspended", "SuspendedJobs", SUSPENDED)
# suspendJobs suspends the active Jobs (worker, launcher); keygen's Job has succeeded.
STOPPED = jobs((0, 1, 0, 0), (0, 0, 0, 1), (0, 0, 0, 1))
QUEUE = {"kueue.x-k8s.io/queue-name": "training"}

# (case, status, spec.suspend, the queue label, Argo CD health, Flux state): a JobSet that Git
# suspends and no Kueue queue resumes is stopped for good, a settled state (Flux current); one
# Kueue suspends waits for admission (in progress).
SUSPENSIONS = [
    ("stopped (state: completed)", status(STOPPED, SUSPENDED_NOW), True, False, "Suspended", "current"),
    ("stopped while restarting", status(STOPPED, restart_over("JobSetSuspended", SUSPENDED), SUSPENDED_NOW,
                                        restarts=1), True, False, "Suspended", "current"),
    ("stopped before it started", status(QUEUED, SUSPENDED_NOW), True, False, "Suspended", "current"),
    ("queued by Kueue", status(QUEUED, SUSPENDED_NOW), True, True, "Suspended", "inProgress"),
    ("queued again (evicted by Kueue)", status(STOPPED, restart_over("JobSetSuspended", SUSPENDED), SUSPENDED_NOW,
                                               restarts=1), True, True, "Suspended", "inProgress"),
    ("resumed in Git, not yet by the controller", status(STOPPED, SUSPENDED_NOW), False, False,
     "Suspended", "inProgress"),
    ("being stopped", status(RUNNING), True, False, "Progressing", "current"),
]


def jobset(written, suspend: bool | None = None, queue: bool = False) -> dict:
    """A JobSet with `written` as its status; spec.suspend when given, and Kueue's queue label."""
    obj = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "ml"},
           "spec": {} if suspend is None else {"suspend": suspend}}
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
    assert argo_health(jobset(written)) == {"status": health, "message": message}


@pytest.mark.parametrize("_case, written, _health, _message, state", CASES, ids=[c[0] for c in CASES])
def test_flux_health(flux_programs, _case, written, _health, _message, state):
    assert flux_state(flux_programs, jobset(written)) == state


@pytest.mark.parametrize("_case, written, suspend, queue, health, _", SUSPENSIONS, ids=[c[0] for c in SUSPENSIONS])
def test_argo_cd_health_of_a_suspended_jobset(argo_health, _case, written, suspend, queue, health, _):
    message = SUSPENDED if health == "Suspended" else "Running"
    assert argo_health(jobset(written, suspend, queue)) == {"status": health, "message": message}


@pytest.mark.parametrize("_case, written, suspend, queue, _, state", SUSPENSIONS, ids=[c[0] for c in SUSPENSIONS])
def test_flux_health_of_a_suspended_jobset(flux_programs, _case, written, suspend, queue, _, state):
    assert flux_state(flux_programs, jobset(written, suspend, queue)) == state


def test_argo_cd_health_key_is_the_one_argo_cd_reads():
    # resource.customizations.health.<group>_<kind> (Argo CD docs, health.md)
    assert list(yaml.safe_load(ARGO.read_text())["data"]) == [ARGO_KEY]


def test_flux_expressions_are_for_the_jobset_api():
    exprs = flux_health_exprs(FLUX)
    assert [(e["apiVersion"], e["kind"]) for e in exprs] == [("jobset.x-k8s.io/v1alpha2", "JobSet")]


TYPES = ("Completed", "Failed", "Suspended", "RestartingJobSet", "StartupPolicyInProgress", "StartupPolicyCompleted")
# What each Argo CD health allows Flux to say.
AGREE = {"Degraded": {"failed"}, "Healthy": {"current"}, "Suspended": {"inProgress", "current"},
         "Progressing": {"current", "inProgress"}}


@pytest.mark.parametrize("suspend, queue", [(None, False), (True, False), (True, True)])
@pytest.mark.parametrize("terminal", [None, "Completed", "Failed"])
@pytest.mark.parametrize("reconciled", [False, True])
def test_every_combination_gets_one_flux_state_that_agrees_with_argo_cd(argo_health, flux_programs,
                                                                        terminal, reconciled, suspend, queue):
    """Beyond the statuses the controller writes: any set of True conditions, with or without
    a terminal state and replicatedJobsStatus, suspended in Git or by Kueue, gets exactly one
    Flux state, failed exactly when Argo CD says Degraded, current when Argo CD says Suspended
    exactly when Git stopped the JobSet and no queue resumes it, and a running JobSet is
    never Healthy."""
    for true in itertools.chain.from_iterable(itertools.combinations(TYPES, n) for n in range(len(TYPES) + 1)):
        written = {"restarts": 0, "conditions": [condition(kind, kind, f"{kind} message") for kind in true]}
        if terminal:
            written["terminalState"] = terminal
        if reconciled:
            written["replicatedJobsStatus"] = RUNNING
        health = argo_health(jobset(written, suspend, queue))["status"]
        state = flux_state(flux_programs, jobset(written, suspend, queue))
        assert state in AGREE[health], (true, terminal, reconciled, health, state)
        if health == "Suspended":
            assert (state == "current") == (suspend is True and not queue), (true, suspend, queue, state)
        done = terminal is not None or {"Completed", "Failed"} & set(true)
        assert (health in ("Healthy", "Degraded")) == bool(done), (true, terminal, health)
