"""Blueprint -> objects under --target mpijob: a small blueprint per case, and the fields of the
MPIJob (kubeflow.org/v2beta1) that the MPI Operator's API, defaults and validation fix
(../shared/reference/mpi-operator.md §4.1, at mpi-operator caa3c47), called through the public
entry points (validate, compile_blueprint, render_job) rather than the command line."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_names import DNS1035_LABEL
from tests.support.rendering import render_text

# (blueprint spec fields, Worker replicas, slotsPerWorker)
CASES = [
    pytest.param({"workers": 1}, 1, 1, id="one-worker"),
    pytest.param({"workers": 3, "slotsPerWorker": 2}, 3, 2, id="slots"),
    pytest.param({"workers": 2, "gpusPerWorker": 4}, 2, 4, id="a-slot-per-gpu"),
    pytest.param({"workers": 16, "mpiImplementation": "IntelMPI"}, 16, 1, id="intel"),
    pytest.param({"workers": 2, "mpiImplementation": "MPICH", "namespace": "ml"}, 2, 1, id="mpich"),
]
# The operator's names of the implementations (§4.1), by the blueprint's.
IMPLEMENTATIONS = {None: "OpenMPI", "OpenMPI": "OpenMPI", "IntelMPI": "Intel", "MPICH": "MPICH"}


def mpijob(name: str, spec: dict) -> dict:
    (only,) = render_text(blueprint_text(name, **spec), target="mpijob")
    return only


@pytest.mark.parametrize("spec, workers, slots", CASES)
def test_the_replicas_and_slots_are_the_blueprints(spec, workers, slots):
    job = mpijob("train", spec)
    assert (job["apiVersion"], job["kind"]) == ("kubeflow.org/v2beta1", "MPIJob")
    replicas = job["spec"]["mpiReplicaSpecs"]
    assert (replicas["Launcher"]["replicas"], replicas["Worker"]["replicas"]) == (1, workers)
    assert job["spec"]["slotsPerWorker"] == slots


@pytest.mark.parametrize("spec, workers, slots", CASES)
def test_what_the_operator_validates_holds(spec, workers, slots):
    """The last worker's name a DNS-1035 label, restartPolicy in {Never, OnFailure}, at least one
    container, cleanPodPolicy one of None|Running|All, a non-empty sshAuthMountPath (§4.1)."""
    job = mpijob("train", spec)
    last_worker = f"train-worker-{max(workers, 1) - 1}"
    assert len(last_worker) <= 63 and DNS1035_LABEL.fullmatch(last_worker)
    for role, replica in job["spec"]["mpiReplicaSpecs"].items():
        assert replica["restartPolicy"] in ("Never", "OnFailure"), role
        assert replica["template"]["spec"]["containers"], role
    assert job["spec"]["runPolicy"]["cleanPodPolicy"] in ("None", "Running", "All")
    assert job["spec"]["sshAuthMountPath"]


@pytest.mark.parametrize("spec, workers, slots", CASES)
def test_the_implementation_is_named_as_the_operator_names_it(spec, workers, slots):
    assert mpijob("train", spec)["spec"]["mpiImplementation"] == IMPLEMENTATIONS[spec.get("mpiImplementation")]


@pytest.mark.parametrize("spec, workers, slots", CASES)
def test_the_mpijob_is_in_the_blueprints_namespace_under_its_name(spec, workers, slots):
    metadata = mpijob("train", spec)["metadata"]
    assert (metadata["name"], metadata["namespace"]) == ("train", spec.get("namespace", "default"))
