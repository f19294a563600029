"""The environment of the launcher and rank containers, for every target: which variables
each role's main container gets, in the order it gets them, and which mpirun forwards.

- The blueprint's spec.env, on both roles (first: the operator appends its own after it).
- The rank environment (PyTorch, DeepSpeed): torch.distributed's env:// rendezvous reads
  RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT, which mpirun does not set.
  Each rank runs the program through rank-env.sh (mounted from the ConfigMap <job>-mpigen),
  which derives the first three from the MPI implementation's own variables; the launcher
  gets the address of the first rank host and the port, and forwards them.
- On the launcher of the static target, what the v1alpha2 controller sets (newLauncher,
  shared/reference/mpi-operator.md 2.6): the rsh agent and hostfile variables of the MPI
  implementation, and, unless the launcher runs ranks, empty NVIDIA variables so that it
  sees no GPUs (v2beta1 likewise, mpi-op#628).
- For Open MPI 5 (PRRTE), which ignores the operators' OMPI_MCA_ names and would start every
  rank on the launcher, the PRTE names of the same settings
  (shared/reference/openmpi5-notes.md): on the static target and, for the MPIJob resource,
  the hostfile (v2beta1 launches over ssh) or both (v1, over kubectl exec as v1alpha2).
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.formats.blueprint import Spec

# Where the operator mounts its ConfigMap on the launcher, which the variables point to.
CONFIG_MOUNT = "/etc/mpi"
KUBEXEC_KEY = "kubexec.sh"
HOSTFILE_KEY = "hostfile"
KUBEXEC_PATH = f"{CONFIG_MOUNT}/{KUBEXEC_KEY}"
HOSTFILE_PATH = f"{CONFIG_MOUNT}/{HOSTFILE_KEY}"

# (rsh agent variable, hostfile variable) per mpiDistribution.
OPERATOR_ENV_NAMES = {
    "OpenMPI": ("OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_default_hostfile"),
    "IntelMPI": ("I_MPI_HYDRA_BOOTSTRAP_EXEC", "I_MPI_HYDRA_HOST_FILE"),
    "MPICH": ("HYDRA_LAUNCHER_EXEC", "HYDRA_HOST_FILE"),
}
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
# What a blueprint's spec.env may not set: the launcher's own variables would override it.
LAUNCHER_ENV_NAMES = tuple(dict.fromkeys((
    *(e["name"] for e in OPENMPI5_ENV),
    *(name for names in OPERATOR_ENV_NAMES.values() for name in names),
    *(name for pairs in SSH_ENV.values() for name, _ in pairs),
    *NVIDIA_ENV,
)))

RANK_ENV_FRAMEWORKS = ("pytorch", "deepspeed")
RANK_ENV_DIR = "/etc/mpigen"
RANK_ENV_KEY = "rank-env.sh"
RANK_ENV_SCRIPT = f"{RANK_ENV_DIR}/{RANK_ENV_KEY}"
MASTER_PORT = "29500"  # torch.distributed's default
RENDEZVOUS_ENV = ("MASTER_ADDR", "MASTER_PORT")


def env_list(values: dict[str, str]) -> list[dict]:
    """A container's env entries for a mapping of names to values, in its order."""
    return [{"name": key, "value": value} for key, value in values.items()]


def uses_rank_env(spec: Spec) -> bool:
    return spec.framework in RANK_ENV_FRAMEWORKS and spec.launcherCommand is None


def forwarded(spec: Spec) -> list[str]:
    """The variables mpirun passes on to every rank: the blueprint's, then the rendezvous."""
    names = list(spec.env)
    if uses_rank_env(spec):
        names += [name for name in RENDEZVOUS_ENV if name not in spec.env]
    return names


def forward_env(implementation: str, names: list[str], already: set[str] = frozenset()) -> list[str]:
    """Flags that pass the named variables on to every rank: Open MPI's `-x NAME`. Hydra (Intel
    MPI, MPICH) passes the launcher's whole environment by default, and `-genvlist` would
    narrow it to the list: the ranks would lose PATH and LD_LIBRARY_PATH, so none."""
    names = [n for n in names if n not in already]
    if not names or implementation != "OpenMPI":
        return []
    return [arg for name in names for arg in ("-x", name)]


def rendezvous_env(master_addr: str, env: list[dict]) -> list[dict]:
    """The launcher's MASTER_ADDR and MASTER_PORT, after its env, unless the blueprint sets them."""
    given = {e["name"] for e in env}
    return [{"name": name, "value": value}
            for name, value in (("MASTER_ADDR", master_addr), ("MASTER_PORT", MASTER_PORT)) if name not in given]


def launcher_env(job: MPIJob) -> list[dict]:
    """What the static target appends after the launcher's env: Open MPI 5's names, then the
    operator's. A launcher that runs ranks keeps its GPUs visible (as v2beta1 does)."""
    rsh_agent, hostfile = OPERATOR_ENV_NAMES[job.distribution]
    env = [dict(e) for e in OPENMPI5_ENV] if job.distribution == "OpenMPI" else []
    env += [
        {"name": rsh_agent, "value": KUBEXEC_PATH},
        {"name": hostfile, "value": HOSTFILE_PATH},
    ]
    if job.extensions.runLauncherAsWorker:
        return env
    return env + [{"name": name} for name in NVIDIA_ENV]


def openmpi5_env(kubexec: bool) -> list[dict]:
    """Open MPI 5's names on an MPIJob resource's launcher: the hostfile, and the agent when
    the operator reaches the workers through kubexec.sh rather than ssh."""
    return [dict(e) for e in OPENMPI5_ENV if kubexec or e["name"] != OPENMPI5_AGENT]


def ssh_launcher_env(job: MPIJob, ssh_config: str, hostfile: str = HOSTFILE_PATH) -> list[dict]:
    """What the targets that start ranks over ssh (jobset, trainjob) append after the launcher's
    env: the hostfile and mpirun's ssh options for the MPI implementation, then (unless the
    launcher runs ranks) no GPUs."""
    values = {"hostfile": hostfile, "ssh_args": f"-F {ssh_config}"}
    env = [{"name": name, "value": value.format(**values)} for name, value in SSH_ENV[job.distribution]]
    if job.extensions.runLauncherAsWorker:
        return env
    return env + [{"name": name} for name in NVIDIA_ENV]
