"""The launcher variables more than one target appends after the blueprint's env: Open MPI
5's names of the operators' settings, the empty NVIDIA variables of a launcher that runs no
ranks, and mpirun's hostfile and ssh options where ranks start over ssh (jobset, trainjob).
Each target reserves those it writes (its checks' RESERVED), so a blueprint's spec.env
cannot set them.

- For Open MPI 5 (PRRTE), which ignores the operators' OMPI_MCA_ names and would start every
  rank on the launcher, the PRTE names of the same settings
  (shared/reference/openmpi5-notes.md): on the static target and, for the MPIJob resource,
  the hostfile (v2beta1 launches over ssh) or both (v1, over kubectl exec as v1alpha2).
- Unless the launcher runs ranks, empty NVIDIA variables so that it sees no GPUs (the
  v1alpha2 controller's newLauncher, shared/reference/mpi-operator.md 2.6; v2beta1 likewise,
  mpi-op#628).
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.compile.names import HOSTFILE_PATH, KUBEXEC_PATH

OPENMPI5_AGENT = "PRTE_MCA_plm_ssh_agent"
OPENMPI5_ENV = (
    {"name": OPENMPI5_AGENT, "value": KUBEXEC_PATH},
    {"name": "PRTE_MCA_prte_default_hostfile", "value": HOSTFILE_PATH},
)
# Set empty (serialized without `value`, omitempty), so the launcher sees no GPUs.
NVIDIA_ENV = ("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES")
# Over SSH (target jobset): the hostfile, mpirun's ssh options (`-F <ssh_config>`), and what
# else each implementation needs, as (name, value) with {hostfile} and {ssh_args} filled in.
# Open MPI 4 reads the OMPI_MCA_ names, Open MPI 5 the PRTE_MCA_ ones. Open MPI 4 strips the
# domain from the hostfile's names unless told to keep it, and the bare pod name does not
# resolve (`<pod>.<subdomain>` does); PRRTE keeps them, and gets the same setting. Hydra's ssh
# options: I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS (Intel) and HYDRA_LAUNCHER_EXTRA_ARGS (MPICH
# 4 and 5; the MPI Operator's HYDRA_LAUNCH_EXTRA_ARGS is not a name MPICH reads).
SSH_ENV = {
    "OpenMPI": (("OMPI_MCA_orte_default_hostfile", "{hostfile}"), ("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
                ("OMPI_MCA_plm_rsh_args", "{ssh_args}"), ("PRTE_MCA_prte_default_hostfile", "{hostfile}"),
                ("PRTE_MCA_prte_keep_fqdn_hostnames", "true"), ("PRTE_MCA_plm_ssh_args", "{ssh_args}")),
    "IntelMPI": (("I_MPI_HYDRA_HOST_FILE", "{hostfile}"), ("I_MPI_HYDRA_BOOTSTRAP", "ssh"),
                 ("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "{ssh_args}")),
    "MPICH": (("HYDRA_HOST_FILE", "{hostfile}"), ("HYDRA_LAUNCHER", "ssh"), ("HYDRA_LAUNCHER_EXTRA_ARGS", "{ssh_args}")),
}
OPENMPI5_ENV_NAMES = tuple(e["name"] for e in OPENMPI5_ENV)
SSH_ENV_NAMES = tuple(dict.fromkeys(name for pairs in SSH_ENV.values() for name, _ in pairs))


def without_gpus(job: MPIJob, env: list[dict]) -> list[dict]:
    """The launcher's appended env, then (unless the launcher runs ranks) no GPUs."""
    if job.extensions.runLauncherAsWorker:
        return env
    return env + [{"name": name} for name in NVIDIA_ENV]


def ssh_launcher_env(job: MPIJob, ssh_config: str, hostfile: str = HOSTFILE_PATH) -> list[dict]:
    """What the targets that start ranks over ssh (jobset, trainjob) append after the launcher's
    env: the hostfile and mpirun's ssh options for the MPI implementation, then (unless the
    launcher runs ranks) no GPUs."""
    values = {"hostfile": hostfile, "ssh_args": f"-F {ssh_config}"}
    return without_gpus(job, [{"name": name, "value": value.format(**values)}
                              for name, value in SSH_ENV[job.distribution]])
