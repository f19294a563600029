"""Target `mpijob`: the MPIJob custom resource itself, for clusters that run an operator.

kubeflow.org/v2beta1 is the MPI Operator since v0.4 (shared/reference/mpi-operator.md,
section 4); kubeflow.org/v1 is the Kubeflow training-operator's MPIJob (section 3). The
blueprint's pod templates (compiled as for the static target) go into mpiReplicaSpecs,
and every field the operator would default is written out, so that what is committed is
what runs, whatever the operator version defaults:
- v2beta1: slotsPerWorker, runLauncherAsWorker false, launcherCreationPolicy AtStartup,
  mpiImplementation, sshAuthMountPath /root/.ssh, runPolicy (cleanPodPolicy above all:
  the operator's real default is None although its docs say Running; suspend false),
  restartPolicy OnFailure for the launcher and Never for the workers;
- v1: slotsPerWorker, runPolicy, mainContainer, restartPolicy Never for both.

For Open MPI the launcher also gets Open MPI 5's PRTE variables
(openmpi5_env): Open MPI 5 ignores the OMPI_MCA_* names the
operators set and would start every rank on the launcher.

Kueue (v2beta1, which Kueue's MPIJob integration reads): the queue and priority labels on the
MPIJob, a topology request on the rank pods' templates, MultiKueue through runPolicy.managedBy.

v2beta1 workers run the image's sshd: as root it needs a few of the capabilities that every
mpigen container drops (mpigen.render.parts.sshd). No pod calls the API but v1's launcher
(kubectl-delivery and kubexec.sh, section 3.6): the others get no token (mpigen.compile.api_token).
"""

from __future__ import annotations

from mpigen.compile.api_token import calls_api, without_api_token
from mpigen.compile.launcher_env import OPENMPI5_AGENT, OPENMPI5_ENV
from mpigen.compile.mpijob import LAUNCHER, MPIJob, V1, V2BETA1, WORKER
from mpigen.compile.root_sshd import STANDARD_PORT
from mpigen.formats.scheduling import DEFAULT_SCHEDULER_NAMES
from mpigen.kube.data import copy_data
from mpigen.kube.labels import (GANG_SCHEDULER_ANNOTATION, GANG_SCHEDULER_NAME_ANNOTATION, KUEUE_PRIORITY_LABEL,
                                KUEUE_QUEUE_LABEL, MULTIKUEUE, topology_annotation)
from mpigen.compile.user_sshd import worker_line
from mpigen.render.parts.sshd import allow_root_sshd, runs_as_root


# The blueprint's names for MPI implementations, as each API spells them.
IMPLEMENTATIONS = {"OpenMPI": "OpenMPI", "IntelMPI": "Intel", "MPICH": "MPICH"}
SSH_AUTH_MOUNT_PATH = "/root/.ssh"  # v2beta1's default
SSHD_PORT = STANDARD_PORT  # of the v2beta1 workers' sshd, as the operator's controller reaches it
# The operators' default restart policies (v2beta1 default.go; training-operator mpi_defaults.go).
RESTART_POLICIES = {V2BETA1: {LAUNCHER: "OnFailure", WORKER: "Never"}, V1: {LAUNCHER: "Never", WORKER: "Never"}}


def openmpi5_env(kubexec: bool) -> list[dict]:
    """Open MPI 5's names on an MPIJob resource's launcher: the hostfile, and the agent when
    the operator reaches the workers through kubexec.sh rather than ssh."""
    return [dict(e) for e in OPENMPI5_ENV if kubexec or e["name"] != OPENMPI5_AGENT]


def worker_sshd(pod: dict, job: MPIJob) -> None:
    """The v2beta1 workers' sshd: the operator's `/usr/sbin/sshd -De` for root, with what a root
    sshd needs of the dropped capabilities; a command of mpigen's for another user, whose sshd
    cannot read the image's host keys, or for the image's configuration the blueprint names
    (mpigen.compile.user_sshd)."""
    source = job.source
    mount = source.security.sshAuthMountPath or SSH_AUTH_MOUNT_PATH
    line = worker_line(source.ssh.sshdConfig, mount, source.ssh.port, runs_as_root(pod))
    if line is not None:
        container = pod["containers"][0]
        container["command"], container["args"] = line[:1], line[1:]
    allow_root_sshd(pod, SSHD_PORT)


def scheduling_policy(job: MPIJob) -> dict:
    """runPolicy.schedulingPolicy: what the operator passes to the PodGroup it creates when it
    runs with --gang-scheduling (which scheduler is the operator's flag, not the job's).
    minAvailable is written out when the launcher waits for the workers: the operator's
    default (workers + 1) would then never be reached (mpi-op#608)."""
    gang = job.extensions.gang
    policy: dict = {}
    if gang.minAvailable is not None:
        policy["minAvailable"] = gang.minAvailable
    elif job.source.wait_for_workers:
        policy["minAvailable"] = job.workers
    if gang.queue:
        policy["queue"] = gang.queue
    if gang.scheduleTimeoutSeconds is not None:
        policy["scheduleTimeoutSeconds"] = gang.scheduleTimeoutSeconds
    return policy


def gang_annotations(job: MPIJob) -> dict[str, str]:
    """The gang scheduler the blueprint asks for, on the MPIJob: the operator creates the
    PodGroup for the scheduler of its own --gang-scheduling flag, which the MPIJob cannot say,
    so that without these a reader of the MPIJob (import among them) could not tell it."""
    gang = job.extensions.gang
    out = {GANG_SCHEDULER_ANNOTATION: gang.scheduler}
    if gang.schedulerName != DEFAULT_SCHEDULER_NAMES[gang.scheduler]:
        out[GANG_SCHEDULER_NAME_ANNOTATION] = gang.schedulerName
    return out


def new_mpijob(job: MPIJob, api: str, ttl_seconds_after_finished: int | None = None) -> dict:
    spec, ext = job.spec, job.extensions
    policy = {"cleanPodPolicy": spec.cleanPodPolicy or "None", "backoffLimit": job.effective_backoff_limit()}
    if job.effective_active_deadline() is not None:
        policy["activeDeadlineSeconds"] = job.effective_active_deadline()
    if ttl_seconds_after_finished is not None:
        policy["ttlSecondsAfterFinished"] = ttl_seconds_after_finished
    if ext.gang is not None:
        policy["schedulingPolicy"] = scheduling_policy(job)
    if ext.multiKueue:
        policy["managedBy"] = MULTIKUEUE
    if ext.queue is None:
        # With a Kueue queue, Kueue's webhook suspends the job and Kueue resumes it: a
        # value in Git would fight it (a GitOps controller would resume it unadmitted).
        policy["suspend"] = False
    replicas = {}
    for role, count in ((LAUNCHER, 1), (WORKER, job.workers)):
        template = copy_data(spec.mpiReplicaSpecs[role].template)
        if role == LAUNCHER and job.distribution == "OpenMPI":
            container = template["spec"]["containers"][0]
            container["env"] = container.get("env", []) + openmpi5_env(kubexec=api == V1)
        if role == WORKER and api == V2BETA1:
            worker_sshd(template["spec"], job)
        if not calls_api(api, role):
            without_api_token(template["spec"])
        if ext.topology is not None and (role == WORKER or ext.runLauncherAsWorker):
            key, level = topology_annotation(ext.topology.required, ext.topology.preferred)
            template.setdefault("metadata", {}).setdefault("annotations", {})[key] = level
        replicas[role] = {"replicas": count, "restartPolicy": RESTART_POLICIES[api][role], "template": template}
    body: dict = {"slotsPerWorker": job.slots}
    if api == V2BETA1:
        body.update({"runLauncherAsWorker": ext.runLauncherAsWorker,
                     "launcherCreationPolicy": "WaitForWorkersReady" if job.source.wait_for_workers else "AtStartup",
                     "mpiImplementation": IMPLEMENTATIONS[job.distribution],
                     "sshAuthMountPath": job.source.security.sshAuthMountPath or SSH_AUTH_MOUNT_PATH})
    elif spec.mainContainer:
        body["mainContainer"] = spec.mainContainer
    body["runPolicy"] = policy
    body["mpiReplicaSpecs"] = replicas
    metadata: dict = {"name": job.metadata.name, "namespace": job.metadata.namespace}
    if ext.gang is not None:
        metadata["annotations"] = gang_annotations(job)
    if ext.queue is not None:
        metadata["labels"] = {KUEUE_QUEUE_LABEL: ext.queue}
        if ext.priorityClass is not None:
            metadata["labels"][KUEUE_PRIORITY_LABEL] = ext.priorityClass
    return {"apiVersion": api, "kind": "MPIJob", "metadata": metadata, "spec": body}
