"""What the Trainer makes of a rendered TrainJob (tests/support/e2e/trainer, the port of Kubeflow
Trainer v2.3.0 checked against its own tests), for a TrainJob on a runtime the cluster has: the
Trainer's own MPI runtime, deepspeed-distributed (manifests/base/runtimes, copied unchanged).
The launch line the TrainJob carries must find, in the pods of the JobSet the Trainer makes,
what it names: every variable it forwards (`-x NAME`: Open MPI sends the launcher's value, and
warns and sends nothing when the launcher has none), and on every pod that runs ranks
(the node pods, and the launcher with runLauncherAsNode) the files it runs.
The end-to-end runs of mpigen's own runtime: tests/system/test_e2e_trainjob.py."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from tests.support.e2e.trainer.expand import expand
from tests.support.e2e.trainer.validate import webhook_errors
from tests.support.paths import BLUEPRINTS
from tests.support.rendering import by_kind, render_text

TRAINER_RUNTIME = yaml.safe_load((Path(__file__).parents[2] / "support" / "e2e" / "trainer" /
                                  "deepspeed_distributed.yaml").read_text())
IMAGE_ENV = {"PATH", "LD_LIBRARY_PATH"}  # forwarded from the image's own environment, on every target


def on_trainer_runtime(**spec) -> tuple[dict, dict]:
    """The deepspeed example on the Trainer's deepspeed-distributed: (TrainJob, JobSet)."""
    blueprint = yaml.safe_load((BLUEPRINTS / "deepspeed.yaml").read_text())
    blueprint["spec"]["runtime"] = {"name": TRAINER_RUNTIME["metadata"]["name"]}
    del blueprint["spec"]["resources"]["launcher"]  # a named runtime's launcher keeps the runtime's
    blueprint["spec"].update(spec)
    trainjob = by_kind(render_text(yaml.safe_dump(blueprint), target="trainjob"))["TrainJob"]
    *_, jobset = expand(copy.deepcopy(trainjob), copy.deepcopy(TRAINER_RUNTIME))
    return trainjob, jobset


def rank_pods(jobset: dict) -> dict[str, dict]:
    """The pod specs that run ranks: node, and the launcher when the runtime runs it as a node."""
    pods = {rj["name"]: rj["template"]["spec"]["template"]["spec"] for rj in jobset["spec"]["replicatedJobs"]}
    launcher_as_node = TRAINER_RUNTIME["spec"]["mlPolicy"]["mpi"].get("runLauncherAsNode", False)
    return {name: pod for name, pod in pods.items() if name == "node" or launcher_as_node}


def node_container(pod: dict) -> dict:
    return next(c for c in pod["containers"] if c["name"] == "node")


@pytest.mark.parametrize("spec", [{}, {"env": {"FOO": "bar"}}, {"launcher": {"runAsWorker": True}},
                                  {"placement": {"worker": {"tolerations": [{"key": "gpu", "operator": "Exists"}]}}}],
                         ids=["example", "env", "launcher-as-worker", "placement"])
def test_the_trainers_webhook_accepts_the_trainjob(spec):
    trainjob, _ = on_trainer_runtime(**spec)
    assert webhook_errors(trainjob, TRAINER_RUNTIME) == []


def test_the_webhook_port_refuses_what_the_trainer_refuses():
    """The port's own check: a patched container the runtime lacks, env on container node."""
    trainjob, _ = on_trainer_runtime()
    node = trainjob["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
    pod = node["template"]["spec"]["template"]["spec"]
    pod["containers"] = [{**pod["containers"][0], "env": [{"name": "A", "value": "1"}]}, {"name": "sidecar"}]
    assert webhook_errors(trainjob, TRAINER_RUNTIME) == [
        "spec.runtimePatches: must not have envs for the dataset-initializer, model-initializer, node containers",
        "spec.runtimePatches: must not have container that doesn't exist in the runtime job node"]


def test_the_trainer_makes_the_nodes_and_slots_the_launch_line_counts():
    trainjob, jobset = on_trainer_runtime()
    command = trainjob["spec"]["trainer"]["command"]
    ranks = int(command[command.index("-np") + 1])
    pods = rank_pods(jobset)
    count = sum(rj["template"]["spec"]["parallelism"] for rj in jobset["spec"]["replicatedJobs"] if rj["name"] in pods)
    assert count * trainjob["spec"]["trainer"]["numProcPerNode"] == ranks


def test_the_launcher_has_every_variable_the_launch_line_forwards():
    trainjob, jobset = on_trainer_runtime()
    command = trainjob["spec"]["trainer"]["command"]
    forwarded = {command[i + 1] for i, flag in enumerate(command) if flag == "-x"} - IMAGE_ENV
    launcher = next(rj for rj in jobset["spec"]["replicatedJobs"] if rj["name"] == "launcher")
    env = {e["name"] for e in node_container(launcher["template"]["spec"]["template"]["spec"]).get("env", [])}
    assert forwarded <= env, f"forwarded by -x but unset on the launcher: {sorted(forwarded - env)}"


@pytest.mark.parametrize("path", ["/etc/mpigen/rank-env.sh", "/dev/shm"])
def test_every_pod_that_runs_ranks_mounts_what_they_use(path):
    trainjob, jobset = on_trainer_runtime()
    assert path in trainjob["spec"]["trainer"]["command"] or path == "/dev/shm"
    for name, pod in rank_pods(jobset).items():
        mounts = {m["mountPath"] for m in node_container(pod).get("volumeMounts", [])}
        assert any(path == m or path.startswith(m + "/") for m in mounts), f"{name}: {path} not mounted: {mounts}"


@pytest.mark.parametrize("spec", [{}, {"launcher": {"runAsWorker": True}}], ids=["example", "launcher-as-worker"])
def test_under_trainer_v2_4_the_webhook_accepts_the_trainjob_and_the_launcher_sets_each_variable_once(spec):
    """v2.4's plugin sets and reserves the PRRTE variables (kubeflow/trainer#4029): mpigen's
    TrainJob carries none, on the Trainer's runtime and on mpigen's own, whose launcher ends up
    with the plugin's values and mpigen's ssh agent."""
    blueprint = yaml.safe_load((BLUEPRINTS / "deepspeed.yaml").read_text())
    blueprint["spec"]["runtime"] = {"name": TRAINER_RUNTIME["metadata"]["name"]}
    del blueprint["spec"]["resources"]["launcher"]
    blueprint["spec"].update(spec)
    trainjob = by_kind(render_text(yaml.safe_dump(blueprint), target="trainjob", trainer_version="v2.4"))["TrainJob"]
    assert webhook_errors(trainjob, TRAINER_RUNTIME, "v2.4") == []
    del blueprint["spec"]["runtime"]
    own = by_kind(render_text(yaml.safe_dump(blueprint), target="trainjob", trainer_version="v2.4"))
    assert webhook_errors(own["TrainJob"], own["TrainingRuntime"], "v2.4") == []
    *_, jobset = expand(copy.deepcopy(own["TrainJob"]), copy.deepcopy(own["TrainingRuntime"]), version="v2.4")
    launcher = next(rj for rj in jobset["spec"]["replicatedJobs"] if rj["name"] == "launcher")
    env = node_container(launcher["template"]["spec"]["template"]["spec"])["env"]
    names = [e["name"] for e in env]
    assert len(names) == len(set(names))
    values = {e["name"]: e.get("value") for e in env}
    assert (values["PRTE_MCA_prte_keep_fqdn_hostnames"], values["PRTE_MCA_plm_ssh_args"],
            values["PRTE_MCA_plm_ssh_agent"]) == ("false", "-o ConnectionAttempts=10", "ssh -F /etc/mpigen-ssh/ssh_config")
