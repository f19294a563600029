"""Blueprint -> objects under --target trainjob: a small blueprint per case, and the fields of
the TrainJob and its TrainingRuntime that Kubeflow Trainer v2.3.0 fixes (../shared/reference/
targets.md §2), called through the public entry points (validate, compile_blueprint,
render_job) rather than the command line."""

from __future__ import annotations

import re

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.rendering import by_kind, render_text

# (blueprint spec fields, nodes, processes per node): slots are slotsPerWorker, else one per
# GPU, else 1 (targets.md §2.3).
CASES = [
    pytest.param({"workers": 1}, 1, 1, id="one-worker"),
    pytest.param({"workers": 3, "slotsPerWorker": 2}, 3, 2, id="slots"),
    pytest.param({"workers": 2, "gpusPerWorker": 4}, 2, 4, id="a-process-per-gpu"),
    pytest.param({"workers": 2, "gpusPerWorker": 4, "slotsPerWorker": 1}, 2, 1, id="slots-over-gpus"),
    pytest.param({"workers": 4, "env": {"NCCL_DEBUG": "INFO"}, "namespace": "ml"}, 4, 1, id="env"),
]
# The launcher environment the MPI plugin sets, which the webhook refuses in trainer.env (§2.5).
MPI_RESERVED_ENV = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames",
                    "OMPI_MCA_orte_set_default_slots", "OMPI_MCA_plm_rsh_args")
TRAINJOB_NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")  # the CEL rule of §2.1, with at most 63


def rendered(name: str, spec: dict) -> tuple[dict, dict]:
    """The TrainJob and its TrainingRuntime rendered for the blueprint `name`."""
    objects = by_kind(render_text(blueprint_text(name, **spec), target="trainjob"))
    return objects["TrainJob"], objects["TrainingRuntime"]


def runtime_jobs(runtime: dict) -> dict[str, dict]:
    return {job["name"]: job for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]}


def pod_specs(runtime: dict):
    for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
        yield job["name"], job["template"]["spec"]["template"]["spec"]


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_the_trainjob_asks_for_the_workers_and_their_processes(spec, nodes, processes):
    """trainer.numNodes is the node Job's parallelism and completions (runLauncherAsNode off),
    trainer.numProcPerNode the slots of each hostfile line (§2.3)."""
    trainjob, runtime = rendered("train", spec)
    assert (trainjob["spec"]["trainer"]["numNodes"], trainjob["spec"]["trainer"]["numProcPerNode"]) == (
        nodes, processes)
    assert runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] is False


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_the_trainjob_runs_on_the_runtime_rendered_beside_it(spec, nodes, processes):
    """runtimeRef names the TrainingRuntime of the same namespace; the webhook refuses a
    TrainJob whose runtime does not exist (§2.1, §2.6)."""
    trainjob, runtime = rendered("train", spec)
    assert trainjob["spec"]["runtimeRef"] == {"name": runtime["metadata"]["name"],
                                              "apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime"}
    assert trainjob["metadata"].get("namespace") == runtime["metadata"].get("namespace")
    assert trainjob["metadata"].get("namespace") == spec.get("namespace", "default")


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_the_runtime_is_an_openmpi_policy_of_one_launcher(spec, nodes, processes):
    """mpiImplementation is an enum of OpenMPI alone in v2.3.0; mlPolicy.numNodes is the
    launcher count, 1 (§2.2, §2.3)."""
    policy = rendered("train", spec)[1]["spec"]["mlPolicy"]
    assert policy["numNodes"] == 1 and policy["mpi"]["mpiImplementation"] == "OpenMPI"


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_the_runtime_has_a_launcher_and_a_node_job_whose_container_is_node(spec, nodes, processes):
    """The MPI plugin fills only containers named `node`, in the `launcher` and `node` jobs;
    the launcher carries the ancestor label `trainer` and replicas 1 (§2.2, §2.3)."""
    runtime = rendered("train", spec)[1]
    jobs = runtime_jobs(runtime)
    assert set(jobs) == {"launcher", "node"}
    assert jobs["launcher"]["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"] == \
        "trainer"
    assert jobs["launcher"]["replicas"] == 1
    for name, pod in pod_specs(runtime):
        assert [c["name"] for c in pod["containers"]] == ["node"], name


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_the_ssh_keys_are_read_where_the_plugin_mounts_them(spec, nodes, processes):
    """The plugin mounts the volume mpi-ssh-auth at mlPolicy.mpi.sshAuthMountPath (§2.5)."""
    runtime = rendered("train", spec)[1]
    path = runtime["spec"]["mlPolicy"]["mpi"]["sshAuthMountPath"]
    mounts = [mount for _, pod in pod_specs(runtime) for container in pod["containers"] + pod.get("initContainers", [])
              for mount in container.get("volumeMounts", []) if mount["name"] == "mpi-ssh-auth"]
    assert mounts and {mount["mountPath"] for mount in mounts} == {path}


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_what_the_webhook_refuses_is_not_rendered(spec, nodes, processes):
    """The TrainJob's name (§2.1) and no MPI reserved variable in trainer.env (§2.5); the run
    succeeds with the launcher (§2.4) and every pod says its restartPolicy (§1.2)."""
    trainjob, runtime = rendered("train", spec)
    assert TRAINJOB_NAME.fullmatch(trainjob["metadata"]["name"]) and len(trainjob["metadata"]["name"]) <= 63
    assert not {item["name"] for item in trainjob["spec"]["trainer"].get("env", [])} & set(MPI_RESERVED_ENV)
    assert runtime["spec"]["template"]["spec"]["successPolicy"] == {"operator": "All",
                                                                   "targetReplicatedJobs": ["launcher"]}
    assert {pod["restartPolicy"] for _, pod in pod_specs(runtime)} == {"Never"}


@pytest.mark.parametrize("spec, nodes, processes", CASES)
def test_the_blueprints_environment_reaches_the_trainer(spec, nodes, processes):
    trainer = rendered("train", spec)[0]["spec"]["trainer"]
    assert trainer.get("env", []) == [{"name": key, "value": value} for key, value in spec.get("env", {}).items()]
    assert trainer["image"] == "example.com/train:1"
