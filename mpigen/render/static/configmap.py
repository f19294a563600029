"""ConfigMap <job>-config: the hostfile and kubexec.sh (newConfigMap, reference section 2.3)."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.compile.names import HOSTFILE_KEY, KUBEXEC_KEY, app_labels, config_name, object_meta
from mpigen.render.parts import scripts

# Intel MPI and MPICH (Hydra) read "host:slots"; Open MPI reads "host slots=N".
_SLOT_SEPARATOR = {"OpenMPI": " slots=", "IntelMPI": ":", "MPICH": ":"}


def hostfile(job: MPIJob) -> str:
    """One line per worker pod. In v1alpha2 the slot count is slotsPerWorker or 1, never GPUs.
    A launcher that is also a worker comes first, as v2beta1 writes it: its pod's hostname
    is <job>-launcher, so mpirun starts those ranks locally, and the kubectl-delivery init
    container skips it (it waits only for names that do not end in "launcher")."""
    return scripts.render("hostfile.j2", job=job.metadata.name, workers=job.workers,
                            launcher=job.extensions.runLauncherAsWorker,
                            separator=_SLOT_SEPARATOR[job.distribution], slots=job.slots)


def kubexec(job: MPIJob) -> str:
    """The rsh agent mpirun calls: kubectl exec into the worker pod (no trailing newline)."""
    return scripts.render("kubexec.sh.j2", main_container=job.spec.mainContainer)


def new_config_map(job: MPIJob) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": object_meta(job, config_name(job), app_labels(job)),
        "data": {HOSTFILE_KEY: hostfile(job), KUBEXEC_KEY: kubexec(job)},
    }
