#!/bin/sh
# mpigen: the rank environment of PyTorch and DeepSpeed under mpirun, then the program.
# torch.distributed (env://) and DeepSpeed read RANK, WORLD_SIZE, LOCAL_RANK and
# LOCAL_WORLD_SIZE, which mpirun does not set: they come from Open MPI's OMPI_COMM_WORLD_*
# or, for Intel MPI and MPICH (Hydra), from PMI_RANK, PMI_SIZE and MPI_LOCALRANKID /
# MPI_LOCALNRANKS. MASTER_ADDR and MASTER_PORT are set and forwarded by the launcher.
RANK=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}
WORLD_SIZE=${OMPI_COMM_WORLD_SIZE:-${PMI_SIZE:-}}
LOCAL_RANK=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-}}
LOCAL_WORLD_SIZE=${OMPI_COMM_WORLD_LOCAL_SIZE:-${MPI_LOCALNRANKS:-}}
if [ -z "$RANK" ] || [ -z "$WORLD_SIZE" ] || [ -z "$LOCAL_RANK" ]; then
  echo "rank-env.sh: no MPI rank variables (OMPI_COMM_WORLD_* or PMI_*): run the program under mpirun" >&2
  exit 1
fi
if [ -z "${MASTER_ADDR:-}" ] || [ -z "${MASTER_PORT:-}" ]; then
  echo "rank-env.sh: MASTER_ADDR and MASTER_PORT are not set: forward them from the launcher (-x or -genvlist)" >&2
  exit 1
fi
export RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE
exec "$@"
