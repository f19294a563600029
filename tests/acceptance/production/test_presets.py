"""The framework presets: the launch line and the launcher environment, and rank-env.sh run
by a real shell.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.production import env_pairs, pod, static
from tests.support.rendering import by_kind, render_text


# --- 2. framework presets: the launch line and the launcher environment ---------------------

PROGRAM = ["python", "train.py", "--lr", "0.1"]
HOROVOD_FLAGS = ["--allow-run-as-root", "--bind-to", "none", "--map-by", "slot", "-x", "LD_LIBRARY_PATH",
                 "-x", "PATH", "--mca", "pml", "ob1", "--mca", "btl", "^openib"]
TORCH_FLAGS = ["--allow-run-as-root", "--bind-to", "none", "--map-by", "slot", "-x", "LD_LIBRARY_PATH",
               "-x", "PATH"]
RANK_ENV = "/etc/mpigen/rank-env.sh"
USER_ENV = [("NCCL_DEBUG", "INFO")]
RENDEZVOUS_ENV = [("MASTER_ADDR", "job-worker-0"), ("MASTER_PORT", "29500")]
MPI_ENV = {
    "OpenMPI": [("PRTE_MCA_plm_ssh_agent", "/etc/mpi/kubexec.sh"), ("PRTE_MCA_prte_default_hostfile", "/etc/mpi/hostfile"),
                ("OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"), ("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile")],
    "IntelMPI": [("I_MPI_HYDRA_BOOTSTRAP_EXEC", "/etc/mpi/kubexec.sh"), ("I_MPI_HYDRA_HOST_FILE", "/etc/mpi/hostfile")],
    "MPICH": [("HYDRA_LAUNCHER_EXEC", "/etc/mpi/kubexec.sh"), ("HYDRA_HOST_FILE", "/etc/mpi/hostfile")],
}
NO_GPUS_ENV = [("NVIDIA_VISIBLE_DEVICES", None), ("NVIDIA_DRIVER_CAPABILITIES", None)]

# 3 workers x 2 GPUs (so 2 slots each): -np 6. Hydra (Intel MPI, MPICH) gets no framework flags.
PRESETS = {
    ("horovod", "OpenMPI"): ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "NCCL_DEBUG", *PROGRAM],
    ("tensorflow", "OpenMPI"): ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "NCCL_DEBUG", *PROGRAM],
    ("mxnet", "OpenMPI"): ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "NCCL_DEBUG", *PROGRAM],
    ("pytorch", "OpenMPI"): ["mpirun", "-np", "6", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_ADDR",
                             "-x", "MASTER_PORT", RANK_ENV, *PROGRAM],
    ("deepspeed", "OpenMPI"): ["mpirun", "-np", "6", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_ADDR",
                               "-x", "MASTER_PORT", RANK_ENV, *PROGRAM],
    ("custom", "OpenMPI"): ["mpirun", "-np", "6", "--allow-run-as-root", "-x", "NCCL_DEBUG", *PROGRAM],
    **{(framework, hydra): ["mpirun", "-np", "6", *PROGRAM]
       for framework in ("horovod", "tensorflow", "mxnet", "custom") for hydra in ("IntelMPI", "MPICH")},
    **{(framework, hydra): ["mpirun", "-np", "6", RANK_ENV, *PROGRAM]
       for framework in ("pytorch", "deepspeed") for hydra in ("IntelMPI", "MPICH")},
}
assert len(PRESETS) == 18


def preset_spec(framework, implementation, **extra) -> dict:
    return {"framework": framework, "mpiImplementation": implementation, "workers": 3, "gpusPerWorker": 2,
            "command": PROGRAM, "env": {"NCCL_DEBUG": "INFO"}, **extra}


def rank_env_volume(objects: dict, obj: dict) -> str | None:
    """The mount path of the ConfigMap job-mpigen in the object's pod, checking the file mode."""
    volumes = [v for v in pod(obj).get("volumes", []) if v.get("configMap", {}).get("name") == "job-mpigen"]
    if not volumes:
        return None
    (volume,) = volumes
    assert volume["configMap"]["items"] == [{"key": "rank-env.sh", "path": "rank-env.sh", "mode": 365}]
    mounts = [m["mountPath"] for m in pod(obj)["containers"][0].get("volumeMounts", []) if m["name"] == volume["name"]]
    assert len(mounts) == 1
    assert "rank-env.sh" in objects["name/job-mpigen/ConfigMap"]["data"]
    return mounts[0]


@pytest.mark.parametrize("framework, implementation", list(PRESETS), ids=lambda v: v)
def test_preset_launch_line_and_launcher_env(framework, implementation):
    """-np = workers x slots, the framework's flags (Open MPI only), every env name
    forwarded, rank-env.sh before the program for PyTorch and DeepSpeed; the launcher env is
    the user's, MASTER_ADDR/MASTER_PORT (torch), the MPI variables, then the hidden GPUs."""
    objects = static(preset_spec(framework, implementation))
    launcher = objects["Job"]["spec"]["template"]["spec"]["containers"][0]
    torch = framework in ("pytorch", "deepspeed")
    assert launcher["command"] == PRESETS[framework, implementation]
    assert "args" not in launcher
    assert env_pairs(launcher) == USER_ENV + (RENDEZVOUS_ENV if torch else []) + MPI_ENV[implementation] + NO_GPUS_ENV
    worker = objects["StatefulSet"]
    assert rank_env_volume(objects, worker) == ("/etc/mpigen" if torch else None)
    assert ("name/job-mpigen/ConfigMap" in objects) == torch
    assert rank_env_volume(objects, objects["Job"]) is None  # the launcher runs no ranks
    mpijob = by_kind(render_text(blueprint_text("job", **preset_spec(framework, implementation)), target="mpijob"))
    assert mpijob["MPIJob"]["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0][
        "command"] == PRESETS[framework, implementation]


@pytest.mark.parametrize("implementation, command", [
    ("OpenMPI", ["mpirun", "-np", "8", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_ADDR", "-x", "MASTER_PORT",
                 RANK_ENV, *PROGRAM]),
    ("MPICH", ["mpirun", "-np", "8", RANK_ENV, *PROGRAM]),
])
def test_launcher_as_worker_adds_its_slots_and_is_the_master(implementation, command):
    """runAsWorker: -np counts the launcher's slots too ((3 + 1) x 2), MASTER_ADDR is the
    launcher (first in the hostfile), the launcher keeps its GPUs visible and mounts rank-env.sh."""
    objects = static(preset_spec("deepspeed", implementation, launcher={"runAsWorker": True}))
    launcher = pod(objects["Job"])["containers"][0]
    assert launcher["command"] == command
    assert env_pairs(launcher) == USER_ENV + [("MASTER_ADDR", "job-launcher"), ("MASTER_PORT", "29500")] + \
        MPI_ENV[implementation]
    assert rank_env_volume(objects, objects["Job"]) == "/etc/mpigen"
    assert rank_env_volume(objects, objects["StatefulSet"]) == "/etc/mpigen"
    assert objects["name/job-config/ConfigMap"]["data"]["hostfile"].splitlines()[0].split()[0].split(":")[0] == "job-launcher"


def test_user_master_port_wins_and_is_forwarded_once():
    """A MASTER_PORT in spec.env keeps its value and place; MASTER_ADDR is still added."""
    spec = preset_spec("pytorch", "OpenMPI", env={"NCCL_DEBUG": "INFO", "MASTER_PORT": "12345"})
    launcher = pod(static(spec)["Job"])["containers"][0]
    assert launcher["command"] == ["mpirun", "-np", "6", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_PORT",
                                   "-x", "MASTER_ADDR", RANK_ENV, *PROGRAM]
    assert env_pairs(launcher) == [("NCCL_DEBUG", "INFO"), ("MASTER_PORT", "12345"), ("MASTER_ADDR", "job-worker-0"),
                                   *MPI_ENV["OpenMPI"], *NO_GPUS_ENV]


def test_env_already_forwarded_by_the_preset_is_not_repeated():
    """Horovod's flags already forward PATH: a PATH in spec.env is not forwarded twice."""
    launcher = pod(static(preset_spec("horovod", "OpenMPI", env={"PATH": "/opt/bin:/usr/bin", "A": "1"}))["Job"])
    assert launcher["containers"][0]["command"] == ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "A", *PROGRAM]


def test_launcher_command_turns_the_presets_off():
    """launcherCommand replaces the whole line: no rank-env.sh, no ConfigMap, no MASTER_*."""
    objects = static(preset_spec("pytorch", "OpenMPI", command=None, launcherCommand=["sh", "-c", "torchrun x.py"]))
    launcher = pod(objects["Job"])["containers"][0]
    assert launcher["command"] == ["sh", "-c", "torchrun x.py"]
    assert not {"MASTER_ADDR", "MASTER_PORT"} & {name for name, _ in env_pairs(launcher)}
    assert "name/job-mpigen/ConfigMap" not in objects and rank_env_volume(objects, objects["StatefulSet"]) is None


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
def test_rank_env_follows_the_run_name_under_gitops(gitops):
    """Under a GitOps profile the job is <name>-<run>: MASTER_ADDR is that run's first
    worker, and the workers mount that run's ConfigMap."""
    objects = render_text(blueprint_text("job", **preset_spec("pytorch", "OpenMPI")), gitops=gitops)
    kinds = by_kind(objects)
    workers = kinds["StatefulSet"]["metadata"]["name"]
    run = workers[:-len("-worker")]
    assert re.fullmatch(r"job-[0-9a-f]{6}", run)
    launcher = pod(kinds["Job"])["containers"][0]
    assert ("MASTER_ADDR", f"{workers}-0") in env_pairs(launcher)
    names = {o["metadata"]["name"] for o in objects if o["kind"] == "ConfigMap"}
    assert f"{run}-mpigen" in names
    assert any(v.get("configMap", {}).get("name") == f"{run}-mpigen" for v in pod(kinds["StatefulSet"])["volumes"])


# --- 3. rank-env.sh runs ----------------------------------------------------------------------

PRINT = 'echo $RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR $MASTER_PORT; printf "<%s>" "$@"'
MASTER = {"MASTER_ADDR": "job-worker-0", "MASTER_PORT": "29500"}


@pytest.fixture(scope="module")
def rank_env(tmp_path_factory):
    """rank-env.sh as the rendered ConfigMap ships it."""
    objects = render_text(blueprint_text("job", framework="pytorch"))
    (config,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "job-mpigen"]
    path = tmp_path_factory.mktemp("rank-env") / "rank-env.sh"
    path.write_text(config["data"]["rank-env.sh"])
    return path


def run_rank_env(script, env: dict):
    return subprocess.run(["/bin/sh", str(script), "sh", "-c", PRINT, "x", "a", "b c"], capture_output=True,
                          text=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}, timeout=10)


@pytest.mark.parametrize("variables", [
    {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
     "OMPI_COMM_WORLD_LOCAL_SIZE": "2"},
    {"PMI_RANK": "3", "PMI_SIZE": "8", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"},
], ids=["open-mpi", "hydra"])
def test_rank_env_exports_the_torch_variables_and_keeps_the_arguments(rank_env, variables):
    """RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE come from the MPI's own variables,
    MASTER_* pass through, and the program gets its arguments unsplit."""
    done = run_rank_env(rank_env, {**variables, **MASTER})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3 8 1 2 job-worker-0 29500\n<a><b c>"


@pytest.mark.parametrize("env, message", [
    ({**MASTER}, "no MPI rank variables"),
    ({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2", **MASTER}, "no MPI rank variables"),
    ({"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0", "MASTER_PORT": "29500"}, "MASTER_ADDR"),
    ({"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0", "MASTER_ADDR": "job-worker-0"}, "MASTER_PORT"),
], ids=["no-rank-variables", "no-local-rank", "no-master-addr", "no-master-port"])
def test_rank_env_refuses_to_start_without_its_variables(rank_env, env, message):
    """Outside mpirun, or without the launcher's MASTER_*: a non-zero exit and a message,
    and the program never runs."""
    done = run_rank_env(rank_env, env)
    assert done.returncode != 0 and done.stdout == ""
    assert message in done.stderr and done.stderr.startswith("rank-env.sh: ")
