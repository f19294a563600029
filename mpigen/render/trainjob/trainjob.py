"""The TrainJob of one job (shared/reference/targets.md 2.1): the runtime it references and
the trainer fields the Trainer writes over the runtime's launcher (image, the mpirun line,
the blueprint's environment) and the sizes (numNodes: the rank hosts; numProcPerNode: the
slots). resourcesPerNode goes where the Trainer puts it on every node: with
runLauncherAsNode, and on a runtime mpigen did not write, whose node job it must size; on
mpigen's own runtime otherwise the runtime holds each role's resources, since the Trainer
would give the worker's GPUs to the launcher alone. Kueue: the queue and priority labels on
the TrainJob alone (one workload, from the JobSet the Trainer would make), MultiKueue through
spec.managedBy."""

from __future__ import annotations

from mpigen.compile.environment import RENDEZVOUS_ENV
from mpigen.compile.launch import with_launcher_host
from mpigen.compile.mpijob import LAUNCHER, MPIJob, WORKER
from mpigen.compile.names import object_meta
from mpigen.formats.versions import DEFAULT_TRAINER_VERSION
from mpigen.kube.data import copy_data
from mpigen.kube.labels import MULTIKUEUE
from mpigen.render.parts.kueue_labels import label_workload
from mpigen.render.trainjob import hydra
from mpigen.render.trainjob.names import (DEFAULT_SUSPEND, LAUNCHER_JOB, TRAINER_API, TRAINER_GROUP,
                                          TRAINJOB_CONTROLLER, dns_name, node_count, trainjob_name)
from mpigen.render.trainjob.patches import runtime_patches
from mpigen.render.trainjob.versions import plugin_sets_prrte

# Open MPI 5 ignores the Trainer's OMPI_MCA_orte_default_hostfile; a runtime of mpigen's sets
# this itself, a runtime of the cluster's gets it from the TrainJob, unless the version's MPI
# plugin sets it (and reserves it: mpigen.render.trainjob.versions).
OPENMPI5_HOSTFILE = {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"}


def launch_command(job: MPIJob, named: bool) -> list[str]:
    """The launcher's command as compile writes it, its host named for Hydra, and on a runtime
    of the cluster's first making Hydra's hostfile (mpigen.render.trainjob.hydra)."""
    command = job.spec.mpiReplicaSpecs[LAUNCHER].template["spec"]["containers"][0]["command"]
    command = with_launcher_host(job, command, dns_name(job, LAUNCHER_JOB, 0))
    return hydra.launch_line(command) if hydra.converts(job, named) else command


def trainer(job: MPIJob, named: bool, version: str = DEFAULT_TRAINER_VERSION) -> dict:
    launcher = job.spec.mpiReplicaSpecs[LAUNCHER].template["spec"]["containers"][0]
    worker = job.spec.mpiReplicaSpecs[WORKER].template["spec"]["containers"][0]
    out: dict = {"image": launcher["image"], "command": launch_command(job, named)}
    # The blueprint's env; on a runtime of the cluster's also the rendezvous (MASTER_ADDR,
    # MASTER_PORT) that the launch line forwards, which mpigen's own runtime holds itself.
    keep = {*job.source.env, *(RENDEZVOUS_ENV if named else ())}
    env = [e for e in launcher.get("env", []) if e["name"] in keep]
    if named and job.distribution == "OpenMPI" and not plugin_sets_prrte(version):
        env.append(dict(OPENMPI5_HOSTFILE))
    if hydra.converts(job, named):
        env.append(hydra.hostfile_env(job.distribution))
    if env:
        out["env"] = env
    out["numNodes"] = node_count(job)
    out["numProcPerNode"] = job.slots
    if (named or job.extensions.runLauncherAsWorker) and worker.get("resources"):
        out["resourcesPerNode"] = copy_data(worker["resources"])
    return out


def with_crd_defaults(trainjob: dict, job: MPIJob, completed: bool) -> None:
    """The CRD's defaults written out, so that the stored TrainJob is the committed one:
    managedBy, and suspend (true once completed), unless a Kueue queue owns it: Kueue v0.19.2
    pkg/controller/jobs/trainjob/trainjob_webhook.go Default suspends a TrainJob with a queue
    label on creation and admission resumes it, so a suspend in Git would undo either on a
    re-apply. Not part of the run (mpigen.render.gitops): a render that writes them names the
    runs as before."""
    spec = trainjob["spec"]
    spec.setdefault("managedBy", TRAINJOB_CONTROLLER)
    if completed:
        spec["suspend"] = True
    elif job.extensions.queue is None:
        spec["suspend"] = DEFAULT_SUSPEND


def new_trainjob(job: MPIJob, runtime_kind: str, runtime_name: str, named: bool,
                 version: str = DEFAULT_TRAINER_VERSION) -> dict:
    ext = job.extensions
    meta = object_meta(job, trainjob_name(job), {})
    label_workload(job, meta)
    spec: dict = {"runtimeRef": {"name": runtime_name, "apiGroup": TRAINER_GROUP, "kind": runtime_kind},
                  "trainer": trainer(job, named, version)}
    if named:
        patches = runtime_patches(job)
        if patches:
            spec["runtimePatches"] = patches
    if job.effective_active_deadline() is not None:
        spec["activeDeadlineSeconds"] = job.effective_active_deadline()
    if ext.multiKueue:
        spec["managedBy"] = MULTIKUEUE
    return {"apiVersion": TRAINER_API, "kind": "TrainJob", "metadata": meta, "spec": spec}
