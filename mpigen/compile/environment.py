"""The environment compile writes into the launcher and rank containers, for every target:
which variables each role's main container gets, in the order it gets them, and which
mpirun forwards. What a target appends to the launcher's is the target's own
(mpigen.compile.launcher_env and the targets' packages).

- The blueprint's spec.env, on both roles (first: the operator appends its own after it).
- The rank environment (PyTorch, DeepSpeed): torch.distributed's env:// rendezvous reads
  RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT, which mpirun does not set.
  Each rank runs the program through rank-env.sh (mounted from the ConfigMap <job>-mpigen),
  which derives the first three from the MPI implementation's own variables; the launcher
  gets the address of the first rank host and the port, and forwards them.
"""

from __future__ import annotations

from mpigen.formats.blueprint import Spec

RANK_ENV_FRAMEWORKS = ("pytorch", "deepspeed")
RANK_ENV_DIR = "/etc/mpigen"
RANK_ENV_VOLUME = "mpigen-rank-env"  # the volume of the ConfigMap, mounted at RANK_ENV_DIR
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
