"""The runtime mpigen writes from a blueprint (TrainingRuntime, or a ClusterTrainingRuntime that
jobs share): the Trainer's MPI policy and a JobSet template of the node and launcher jobs
(shared/reference/targets.md 2.2-2.5). It holds what the workers run, since a TrainJob's
trainer fields reach only the launcher (and the nodes only with runLauncherAsNode); the sizes
(numNodes, numProcPerNode) are the TrainJob's, so that jobs of the same kind share one. The
failure policy is the runtime's too: its JobSet template's failurePolicy and its Jobs'
podFailurePolicy, which a TrainJob's runtimePatches cannot reach (mpigen.render.parts.failure_policy).

Every MPI implementation uses the MPI policy: the plugin's key, hostfile and counts are the
same for all; its OMPI_ variables are inert for Hydra, and the launcher's init container
writes the hostfile in Hydra's form (mpigen.render.trainjob.pods). The CRD allows only
OpenMPI as mpiImplementation, so the implementation is named in an annotation."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.formats.versions import DEFAULT_TRAINER_VERSION
from mpigen.render.parts.failure_policy import JOB_ACTIONS, job_policy, restart_rules, pod_failure_policy
from mpigen.render.parts.kueue_labels import request_topology
from mpigen.render.parts.replicated import NETWORK, replicated_job
from mpigen.render.trainjob.names import (ANCESTOR_LABEL, ANCESTOR_TRAINER, FRAMEWORK_LABEL, IMPLEMENTATION_ANNOTATION,
                                          LAUNCHER_JOB, NODE_JOB, TRAINER_API, TRAINER_KEY_MOUNT,
                                          cluster_runtime_name)
from mpigen.render.trainjob.pods import launcher_pod, starts_with_nodes, worker_pod

COSCHEDULING_TIMEOUT = 60  # the Trainer's default scheduleTimeoutSeconds
VOLCANO_QUEUE = "scheduling.volcano.sh/queue-name"


def runtime_spec(job: MPIJob, version: str = DEFAULT_TRAINER_VERSION) -> dict:
    ext = job.extensions
    spec: dict = {"mlPolicy": {"numNodes": 1, "mpi": {
        "numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": TRAINER_KEY_MOUNT,
        "runLauncherAsNode": ext.runLauncherAsWorker}}}
    if ext.gang is not None:
        spec["podGroupPolicy"] = _pod_group_policy(job)
    nodes, launcher = worker_pod(job), launcher_pod(job, version)
    request_topology(job, nodes, launcher)
    if ext.gang is not None:  # the Trainer labels every pod into its PodGroup; the scheduler must be the gang's
        for template in (nodes, launcher):
            template["spec"]["schedulerName"] = ext.gang.schedulerName
    waits = None if starts_with_nodes(job) else (NODE_JOB, "Ready")
    policy = job_policy(job)

    def pod_failures(template: dict) -> dict:
        return pod_failure_policy(policy, template, JOB_ACTIONS)

    jobs = [replicated_job(NODE_JOB, 1, nodes, pod_failures=pod_failures),
            replicated_job(LAUNCHER_JOB, 1, launcher, waits, labels={ANCESTOR_LABEL: ANCESTOR_TRAINER},
                           pod_failures=pod_failures)]
    failure_policy: dict = {"maxRestarts": job.effective_backoff_limit(), "restartStrategy": "Recreate"}
    rules = restart_rules(policy, {rj["name"]: rj["template"]["spec"]["template"] for rj in jobs})
    if rules:
        failure_policy["rules"] = rules
    spec["template"] = {**_template_metadata(job), "spec": {
        "network": dict(NETWORK),
        "successPolicy": {"operator": "All", "targetReplicatedJobs": [LAUNCHER_JOB]},
        "failurePolicy": failure_policy,
        "replicatedJobs": jobs,
    }}
    return spec


def new_runtime(job: MPIJob, kind: str, name: str | None, version: str = DEFAULT_TRAINER_VERSION) -> dict:
    """The runtime object for that Trainer version; a ClusterTrainingRuntime without a name is
    named by its content."""
    spec = runtime_spec(job, version)
    meta: dict = {"name": name or (cluster_runtime_name(spec) if kind == "ClusterTrainingRuntime"
                                   else job.metadata.name)}
    if kind == "TrainingRuntime":
        meta["namespace"] = job.metadata.namespace
    meta["labels"] = {FRAMEWORK_LABEL: job.source.framework}
    if job.distribution != "OpenMPI":
        meta["annotations"] = {IMPLEMENTATION_ANNOTATION: job.distribution}
    return {"apiVersion": TRAINER_API, "kind": kind, "metadata": meta, "spec": spec}


def _template_metadata(job: MPIJob) -> dict:
    """Volcano's queue, which the Trainer's Volcano plugin reads from the JobSet's annotations."""
    gang = job.extensions.gang
    if gang is None or gang.scheduler != "volcano" or gang.queue is None:
        return {}
    return {"metadata": {"annotations": {VOLCANO_QUEUE: gang.queue}}}


def _pod_group_policy(job: MPIJob) -> dict:
    """The Trainer makes the PodGroup itself: coscheduling (scheduler-plugins) or Volcano."""
    gang = job.extensions.gang
    if gang.scheduler == "volcano":
        return {"volcano": {}}
    return {"coscheduling": {"scheduleTimeoutSeconds": gang.scheduleTimeoutSeconds or COSCHEDULING_TIMEOUT}}
