"""Hydra (MPICH, Intel MPI) on a runtime the cluster has: the Trainer's MPI plugin writes
only Open MPI's hostfile, `<host> slots=<n>` lines (Trainer v2.3.0
pkg/runtime/framework/plugins/mpi/mpi.go), which Hydra refuses ("token slots=... not
supported"; it reads `<host>:<n>`), and sets only Open MPI's variables, so mpiexec would
start every rank on the launcher. mpigen's own runtime converts the file in the launcher's
init container (mpigen.render.trainjob.pods); a runtime of the cluster's has none that
mpigen can add to (a runtime patch changes only the containers the runtime has). So the
TrainJob's launch line converts it before it runs mpiexec, into a folder of the launcher's
that the TrainJob's runtime patch adds, and Hydra's hostfile variable names the result."""

from __future__ import annotations

from mpigen.compile.mpijob import HYDRA, MPIJob
from mpigen.kube.data import copy_data
from mpigen.compile.launcher_env import SSH_ENV
from mpigen.render.trainjob.names import TRAINER_HOSTFILE

VOLUME = "mpigen-hostfile"
FOLDER = "/etc/mpigen-hostfile"
HOSTFILE = f"{FOLDER}/hostfile"
# The launch line's prefix: `sh -c CONVERT mpigen <launch line>` runs the launch line ("$@").
CONVERT = f"sed 's/ slots=/:/' {TRAINER_HOSTFILE} > {HOSTFILE} && exec \"$@\""
PREFIX = ["/bin/sh", "-c", CONVERT, "mpigen"]


def converts(job: MPIJob, named: bool) -> bool:
    """Whether the job's launch line converts the hostfile: Hydra, on a runtime of the cluster's."""
    return named and job.distribution in HYDRA


def launch_line(command: list[str]) -> list[str]:
    return PREFIX + list(command)


def unwrapped(command: list) -> list:
    """The launch line without the conversion (for `mpigen import`)."""
    return list(command[len(PREFIX):]) if command[:len(PREFIX)] == PREFIX else list(command)


def hostfile_env(distribution: str) -> dict:
    """Hydra's hostfile variable (HYDRA_HOST_FILE for MPICH, I_MPI_HYDRA_HOST_FILE for Intel
    MPI; mpigen.compile.launcher_env), naming the converted file."""
    return {"name": SSH_ENV[distribution][0][0], "value": HOSTFILE}


def implementation_of(env: list) -> str | None:
    """The Hydra implementation whose hostfile variable the TrainJob's env sets as mpigen does."""
    return next((d for d in HYDRA if hostfile_env(d) in env), None)


def with_hostfile_folder(launcher: dict) -> dict:
    """The launcher's pod template with the folder the converted hostfile goes to."""
    launcher = copy_data(launcher)
    pod = launcher.setdefault("spec", {})
    pod["volumes"] = pod.get("volumes", []) + [{"name": VOLUME, "emptyDir": {}}]
    main = pod["containers"][0]
    main["volumeMounts"] = main.get("volumeMounts", []) + [{"name": VOLUME, "mountPath": FOLDER}]
    return launcher
