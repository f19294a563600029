"""The MPIJob health checks shipped for Argo CD (Lua) and Flux (CEL), run by real
interpreters (lupa: Lua 5.4; cel-python: CEL) against MPIJob statuses as the operator
writes them (shared/reference/mpi-operator.md, sections 2.8 and 4.9: conditions Created,
Running, Restarting, Succeeded, Failed, Suspended).

A stopped MPIJob, as each operator writes it while spec.runPolicy.suspend holds:
- v2beta1, kubeflow/mpi-operator caa3c47 (v0.8): pkg/controller/mpi_job_controller.go
  updateMPIJobStatus sets Suspended True ("MPIJobSuspended", "MPIJob suspended"), then
  Running False ("MPIJobSuspended", "MPIJob NS/NAME is suspended."); setCondition in
  mpi_job_controller_status.go drops a condition's old entry and appends the new one;
- v1, kubeflow/training-operator v1.9.4 (kubeflow/trainer's v1 tags):
  pkg/controller.v1/common/job.go ReconcileJobs sets Running False, then Suspended True,
  both reason "MPIJobSuspended" (util.NewReason) and message "MPIJob NAME is suspended.".
Neither operator sets spec.runPolicy.suspend itself: Git does (mpigen's `state: completed`),
or Kueue's webhook for an MPIJob with the label kueue.x-k8s.io/queue-name (Kueue v0.19.2,
pkg/controller/jobframework/defaults.go ApplyDefaultForSuspend, utils.go
WorkloadShouldBeSuspended and QueueNameForObject)."""

from __future__ import annotations

import pytest
import yaml

from tests.support.health_checks import argo_cd_check, flux_programs, flux_state, flux_health_exprs
from tests.support.paths import ROOT

ARGO = ROOT / "docs" / "argocd" / "mpijob-health.yaml"
FLUX = ROOT / "docs" / "flux" / "mpijob-health.yaml"


def condition(kind: str, status: str = "True", message: str | None = None) -> dict:
    return {"type": kind, "status": status, "reason": f"MPIJob{kind}",
            "message": message or f"MPIJob ml/train {kind.lower()}."}


CREATED = [condition("Created")]
RUNNING = CREATED + [condition("Running", message="MPIJob ml/train is running.")]
RESTARTING = RUNNING + [condition("Restarting")]
SUCCEEDED = CREATED + [condition("Running", "False"),
                       condition("Succeeded", message="MPIJob ml/train successfully completed.")]
FAILED = CREATED + [condition("Running", "False"), condition("Failed", message="MPIJob ml/train has failed")]
SUSPENDED = CREATED + [condition("Suspended")]

# (status, Argo CD health, Flux state)
CASES = [
    (None, "Progressing", "inProgress"),
    ({}, "Progressing", "inProgress"),
    ({"conditions": CREATED}, "Progressing", "inProgress"),
    ({"conditions": RUNNING}, "Progressing", "current"),
    ({"conditions": RESTARTING}, "Progressing", "current"),
    ({"conditions": SUCCEEDED}, "Healthy", "current"),
    ({"conditions": FAILED}, "Degraded", "failed"),
    ({"conditions": RUNNING + [condition("Failed", message="MPIJob ml/train has failed")]}, "Degraded", "failed"),
    ({"conditions": SUSPENDED}, "Suspended", "inProgress"),  # nothing in Git suspends it: about to resume
]


def written(kind: str, status: str, reason: str, message: str) -> dict:
    return {"type": kind, "status": status, "reason": reason, "message": message}


STOPPED_V2BETA1 = CREATED + [written("Suspended", "True", "MPIJobSuspended", "MPIJob suspended"),
                             written("Running", "False", "MPIJobSuspended", "MPIJob ml/train is suspended.")]
STOPPED_V1 = [written("Created", "True", "MPIJobCreated", "MPIJob train is created."),
              written("Running", "False", "MPIJobSuspended", "MPIJob train is suspended."),
              written("Suspended", "True", "MPIJobSuspended", "MPIJob train is suspended.")]
QUEUED_V2BETA1 = CREATED + [written("Suspended", "True", "MPIJobSuspended", "MPIJob suspended")]

# (case, apiVersion, conditions, spec.runPolicy.suspend, the queue label, Argo CD health, Flux state):
# an MPIJob that Git suspends and no Kueue queue resumes is stopped for good, a settled state
# (Flux current); one Kueue suspends waits for admission (in progress).
SUSPENSIONS = [
    ("v2beta1 stopped (state: completed)", "v2beta1", STOPPED_V2BETA1, True, False, "Suspended", "current"),
    ("v1 stopped (state: completed)", "v1", STOPPED_V1, True, False, "Suspended", "current"),
    ("v2beta1 stopped before it ran", "v2beta1", QUEUED_V2BETA1, True, False, "Suspended", "current"),
    ("v2beta1 queued by Kueue", "v2beta1", QUEUED_V2BETA1, True, True, "Suspended", "inProgress"),
    ("v2beta1 queued again (evicted by Kueue)", "v2beta1", STOPPED_V2BETA1, True, True, "Suspended", "inProgress"),
    ("v1 queued again (evicted by Kueue)", "v1", STOPPED_V1, True, True, "Suspended", "inProgress"),
    ("v2beta1 resumed in Git, not yet by the operator", "v2beta1", STOPPED_V2BETA1, False, False,
     "Suspended", "inProgress"),
    ("v2beta1 being stopped", "v2beta1", RUNNING, True, False, "Progressing", "current"),
]


def mpijob(status, suspend: bool | None = None, queue: bool = False, api: str = "v2beta1") -> dict:
    """An MPIJob with `status`; spec.runPolicy.suspend when given, and Kueue's queue label."""
    obj = {"apiVersion": f"kubeflow.org/{api}", "kind": "MPIJob", "metadata": {"name": "train", "namespace": "ml"},
           "spec": {"runPolicy": {} if suspend is None else {"suspend": suspend}}}
    if queue:
        obj["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "training"}
    if status is not None:
        obj["status"] = status
    return obj


@pytest.fixture(scope="module")
def argo_health():
    return argo_cd_check(ARGO, "resource.customizations.health.kubeflow.org_MPIJob")


@pytest.mark.parametrize("status, health, _", CASES)
def test_argo_cd_health(argo_health, status, health, _):
    result = argo_health(mpijob(status))
    assert result["status"] == health
    if health == "Degraded":
        assert result["message"] == "MPIJob ml/train has failed"


def test_argo_cd_health_key_is_the_one_argo_cd_reads():
    # resource.customizations.health.<group>_<kind> (Argo CD docs, health.md)
    assert list(yaml.safe_load(ARGO.read_text())["data"]) == ["resource.customizations.health.kubeflow.org_MPIJob"]


@pytest.mark.parametrize("status, _, state", CASES)
def test_flux_health(status, _, state):
    for exprs in flux_health_exprs(FLUX):
        obj = dict(mpijob(status), apiVersion=exprs["apiVersion"])
        assert flux_state(flux_programs(exprs), obj) == state, exprs["apiVersion"]


def test_flux_expressions_cover_both_mpijob_apis():
    exprs = flux_health_exprs(FLUX)
    assert {(e["apiVersion"], e["kind"]) for e in exprs} == {("kubeflow.org/v2beta1", "MPIJob"),
                                                           ("kubeflow.org/v1", "MPIJob")}


@pytest.mark.parametrize("_case, api, conditions, suspend, queue, health, state", SUSPENSIONS,
                         ids=[c[0] for c in SUSPENSIONS])
def test_health_of_a_suspended_mpijob(argo_health, _case, api, conditions, suspend, queue, health, state):
    obj = mpijob({"conditions": conditions}, suspend, queue, api)
    assert argo_health(obj)["status"] == health
    exprs, = [e for e in flux_health_exprs(FLUX) if e["apiVersion"] == obj["apiVersion"]]
    assert flux_state(flux_programs(exprs), obj) == state
