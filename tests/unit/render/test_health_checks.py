"""The MPIJob health checks shipped for Argo CD (Lua) and Flux (CEL), run by real
interpreters (lupa: Lua 5.4; cel-python: CEL) against MPIJob statuses as the operator
writes them (shared/reference/mpi-operator.md, sections 2.8 and 4.9: conditions Created,
Running, Restarting, Succeeded, Failed, Suspended)."""

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
    ({"conditions": SUSPENDED}, "Suspended", "inProgress"),
]


def mpijob(status) -> dict:
    obj = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "train", "namespace": "ml"}}
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
