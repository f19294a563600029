"""The examples the MPI Operator and the Kubeflow Trainer ship, imported: each lossless, or
with exactly the warnings listed here, line by line (what a blueprint cannot say of them).

Sources, copied as published with a header naming each (tests/support/fixtures/):
- kubeflow/mpi-operator v0.8.0 examples/v2beta1/pi/pi-intel.yaml and pi-mpich.yaml (the
  v2beta1 ones tests/acceptance/importing/test_trainjob.py does not read already);
- kubeflow/mpi-operator v0.3.0 examples/v1/tensorflow-benchmarks.yaml, and the
  training-operator's kubeflow.org/v1 MPIJob, kubeflow/trainer v1.9.0 examples/mpi/tensorflow-mnist.yaml;
- the Trainer's MPI runtimes, kubeflow/trainer v2.3.0 manifests/base/runtimes/: mlx_distributed.yaml
  (deepspeed_distributed.yaml is read by test_trainjob.py), under a TrainJob as its docs write one.
"""

from __future__ import annotations

import shutil

import pytest
import yaml

from tests.support.paths import ROOT
from tests.support.text import pos

FIXTURES = ROOT / "tests" / "support" / "fixtures"
ARGS_OF_LAUNCHER = ("warning: spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].args: args without a command "
                    "run the image's entrypoint with them; a blueprint cannot express that, so the imported launcher "
                    "runs the args as its command")
# The workers' `args: [/usr/sbin/sshd, -De, -f, /home/mpiuser/.sshd_config]` with no command: spec.ssh.sshdConfig,
# run as the workers' command rather than through the image's entrypoint (build/base/intel.Dockerfile and
# mpich.Dockerfile: /entrypoint.sh, which sources Intel MPI's setvars.sh and execs its arguments).
ARGS_OF_WORKERS = ("warning: spec.mpiReplicaSpecs.Worker.template.spec.containers[0].args: args without a command run "
                   "the image's entrypoint with them; a blueprint cannot express that, so the imported workers run the "
                   "args as their command")


# `-n 2`, where mpigen writes -np: the line stays launcherCommand, its count no longer following workers
FROZEN_COUNT = ("warning: spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].args[2]: kept as "
                "spec.launcherCommand, so this process count stays 2 when spec.workers changes: mpigen writes "
                "`mpirun -np <workers x slots> <framework flags> <mpirunArgs> <command>` (its options in any order), "
                "whose nearest to this line is 'mpirun -np 2 /home/mpiuser/pi'")


def imported(cli, tmp_path, *fixtures: str):
    for fixture in fixtures:
        shutil.copy(FIXTURES / fixture, tmp_path)
    names = [fixture.rsplit("/", 1)[-1] for fixture in fixtures]
    done = cli("import", *names, "--stdout")
    assert done.returncode == 0, done.stderr
    return yaml.safe_load_all(done.stdout), done.stderr.splitlines(), (tmp_path / names[0]).read_text()


@pytest.mark.parametrize("name, implementation", [("pi-intel", "IntelMPI"), ("pi-mpich", "MPICH")])
def test_the_operators_v2beta1_hydra_pi_examples(cli, tmp_path, name, implementation):
    blueprints, warnings, text = imported(cli, tmp_path, f"mpi-operator-v2beta1/{name}.yaml")
    (blueprint,) = [b for b in blueprints if b]
    assert blueprint["spec"]["mpiImplementation"] == implementation and blueprint["spec"]["workers"] == 2
    assert blueprint["spec"]["ssh"] == {"sshdConfig": "/home/mpiuser/.sshd_config"}
    launcher = pos(text, "            args:\n            - mpirun", "args")
    count = pos(text, '- -n\n            - "2"', '"2"')
    workers = pos(text, "            args:\n            - /usr/sbin/sshd", "args")
    assert warnings == [f"{name}.yaml:{launcher[0]}:{launcher[1]}: {ARGS_OF_LAUNCHER}",
                        f"{name}.yaml:{count[0]}:{count[1]}: {FROZEN_COUNT}",
                        f"{name}.yaml:{workers[0]}:{workers[1]}: {ARGS_OF_WORKERS}"]


@pytest.mark.parametrize("fixture, container", [
    ("mpi-operator-v1/tensorflow-benchmarks.yaml", "tensorflow-benchmarks"),
    ("mpi-operator-v1/training-operator-tensorflow-mnist.yaml", "mpi"),
])
def test_kubeflow_org_v1_examples(cli, tmp_path, fixture, container):
    blueprints, warnings, text = imported(cli, tmp_path, fixture)
    """One container name for both roles, and no mainContainer (kubexec.sh then execs into the first
    container): each role's containerName, which renders the same MPIJob, so nothing is lost."""
    (blueprint,) = [b for b in blueprints if b]
    assert "mainContainer" not in blueprint["spec"] and blueprint["spec"]["workers"] == 2
    assert blueprint["spec"]["podTemplatePatch"]["launcher"]["containerName"] == container
    assert blueprint["spec"]["podTemplatePatch"]["worker"]["containerName"] == container
    assert warnings == []


MLX_TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mlx-mnist
spec:
  runtimeRef:
    name: mlx-distributed
  trainer:
    image: ghcr.io/kubeflow/trainer/mlx-runtime
    numNodes: 2
    command: [mpirun, --hostfile, /etc/mpi/hostfile, python3, /home/mpiuser/mnist.py]
"""


def test_the_trainers_mlx_runtime(cli, tmp_path):
    """A runtime of the cluster's: named, its sizes read (runLauncherAsNode: the launcher is one
    of the 2 nodes); what mpigen's render adds to its pods (least privilege, through the
    TrainJob's runtimePatches) is the one report."""
    (tmp_path / "trainjob.yaml").write_text(MLX_TRAINJOB)
    shutil.copy(FIXTURES / "mlx-distributed-runtime.yaml", tmp_path)
    done = cli("import", "trainjob.yaml", "mlx-distributed-runtime.yaml", "--stdout")
    (blueprint,) = [b for b in yaml.safe_load_all(done.stdout) if b]
    spec = blueprint["spec"]
    assert spec["runtime"] == {"kind": "ClusterTrainingRuntime", "name": "mlx-distributed"}
    assert (spec["workers"], spec["launcher"], spec["slotsPerWorker"]) == (1, {"runAsWorker": True}, 1)
    line, column = pos(MLX_TRAINJOB, "spec:\n  runtimeRef", "spec")
    assert done.stderr.splitlines() == [
        f"trainjob.yaml:{line}:{column}: warning: TrainJob spec: the imported blueprint renders runtimePatches: "
        "[{'manager': 'mpigen.dev/blueprint', 'trainingRuntimeSpec': {'template': {'sp... here too"]
