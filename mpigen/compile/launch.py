"""The launcher's command line: `mpirun -np <workers*slots> <framework flags> <env forwarding>
<mpirunArgs> <program>`.

Long options are always spelled with two dashes: Open MPI 4 accepts both spellings,
Open MPI 5 rejects `-bind-to`/`-map-by`/`-mca` (shared/reference/openmpi5-notes.md).

Intel MPI and MPICH both launch through Hydra: `-np` is accepted there as a synonym of
`-n`, and Hydra passes the launcher's whole environment to the ranks by default (a
`-genvlist` would narrow it to its list, and the ranks would lose PATH), so the
blueprint's variables need no flag. Open MPI's binding and transport flags have
no Hydra equivalent, so Hydra jobs get no framework flags.
"""

from __future__ import annotations

from mpigen.compile.environment import RANK_ENV_SCRIPT, forward_env, forwarded, uses_rank_env
from mpigen.compile.mpijob import HYDRA, MPIJob
from mpigen.formats.blueprint import Spec

# The canonical Horovod flag set of the operator's examples, in two-dash spelling.
# What Horovod elastic's launch line names (horovodrun --host-discovery-script, as the
# training-operator's examples/horovod/tensorflow-mnist-elastic.yaml and the MPI Operator's
# v2beta1 elastic example write it): the script the operators' controllers write into the
# <job>-config ConfigMap from the Running workers (kubeflow/mpi-operator v2beta1 and the
# training-operator v1.9.0 mpi_job_controller.go: discoverHostsScriptName,
# updateDiscoverHostsInConfigMap; reference/mpi-operator.md 4.4), which v1alpha2 never wrote.
HOST_DISCOVERY = ("--host-discovery-script", "discover_hosts.sh")


_HOROVOD_OPENMPI = (
    "--allow-run-as-root", "--bind-to", "none", "--map-by", "slot",
    "-x", "LD_LIBRARY_PATH", "-x", "PATH",
    "--mca", "pml", "ob1", "--mca", "btl", "^openib",
)
# PyTorch and DeepSpeed bring their own GPU transport (NCCL); keep placement and the
# library path, leave Open MPI's point-to-point transport to its defaults.
_TORCH_OPENMPI = (
    "--allow-run-as-root", "--bind-to", "none", "--map-by", "slot",
    "-x", "LD_LIBRARY_PATH", "-x", "PATH",
)

FRAMEWORK_FLAGS: dict[str, dict[str, tuple[str, ...]]] = {
    "OpenMPI": {
        "horovod": _HOROVOD_OPENMPI,
        "tensorflow": _HOROVOD_OPENMPI,   # the operator's TensorFlow examples run under Horovod
        "mxnet": _HOROVOD_OPENMPI,        # likewise the MXNet example
        "pytorch": _TORCH_OPENMPI,
        "deepspeed": _TORCH_OPENMPI,
        # mpirun refuses to run as root without it, and most images run as root; it changes
        # nothing for another user (the operator's e2e test adds it for root:
        # kubeflow/mpi-operator@caa3c47 test/e2e/mpi_job_test.go).
        "custom": ("--allow-run-as-root",),
    },
    "IntelMPI": {},
    "MPICH": {},
}


def total_slots(spec: Spec) -> int:
    """mpirun's -np: every slot of every rank host (the launcher too when it is a worker)."""
    return spec.rank_hosts * spec.slots


def launcher_command(spec: Spec) -> list[str]:
    if spec.launcherCommand is not None:
        return list(spec.launcherCommand)
    flags = FRAMEWORK_FLAGS[spec.mpiImplementation].get(spec.framework, ())
    command = ["mpirun", "-np", str(total_slots(spec)), *flags]
    command += forward_env(spec.mpiImplementation, forwarded(spec), already=_forwarded(flags))
    command += list(spec.mpirunArgs)
    if uses_rank_env(spec):
        command.append(RANK_ENV_SCRIPT)
    command += list(spec.command or ())
    return command


def _forwarded(flags: tuple[str, ...]) -> set[str]:
    return {flags[i + 1] for i in range(len(flags) - 1) if flags[i] == "-x"}


def with_launcher_host(job: MPIJob, command: list[str], host: str) -> list[str]:
    """The launcher's command where its pod is reached by a DNS name (targets jobset and
    trainjob): Hydra's proxies connect back to the launcher by the name it gives them, by
    default its bare host name, which other pods cannot resolve, so mpigen's Hydra line gets
    `-localhost <host>`. Open MPI's line, and a blueprint's own launcherCommand, stay as they are."""
    if job.distribution not in HYDRA or not job.extensions.launchLine:
        return list(command)
    return [command[0], "-localhost", host, *command[1:]]
