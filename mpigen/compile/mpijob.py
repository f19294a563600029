"""The MPIJob: the single intermediate form between blueprints and backends.

A typed copy of the Kubeflow MPI Operator's kubeflow.org/v1alpha2 API
(MO@c5c0c3e:pkg/apis/kubeflow/v1alpha2/types.go, default.go). Pod templates stay
core/v1 PodTemplateSpec data, because the controller deep-copies and edits them and
the backends here do exactly the same.
"""

from typing import Any, Literal, Optional

from pydantic import Field

from mpigen.formats.base import Model
from mpigen.formats.blueprint import Spec, rank_hosts
from mpigen.formats.scheduling import GangScheduler, Topology

V1ALPHA2 = "kubeflow.org/v1alpha2"  # this model's API
# The MPIJob APIs operators run today, which the mpijob target writes (--mpijob-api): the MPI
# Operator's since v0.4, and the Kubeflow training-operator's.
V2BETA1 = "kubeflow.org/v2beta1"
V1 = "kubeflow.org/v1"
MPIJOB_APIS = (V2BETA1, V1)
LAUNCHER = "Launcher"
WORKER = "Worker"

CleanPodPolicy = Literal["All", "Running", "None"]
RestartPolicy = Literal["Always", "OnFailure", "Never", "ExitCode"]
MPIDistribution = Literal["OpenMPI", "IntelMPI", "MPICH"]
HYDRA = ("MPICH", "IntelMPI")  # the MPIs that launch through Hydra (mpiexec; hostfile host:slots)


class ObjectMeta(Model):
    name: str
    namespace: str = "default"
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class ReplicaSpec(Model):
    replicas: Optional[int] = None
    template: dict[str, Any] = Field(default_factory=dict)  # core/v1 PodTemplateSpec
    restartPolicy: Optional[RestartPolicy] = None


class RunPolicy(Model):
    """kubeflow/common RunPolicy (v0.3 era): when set, its non-nil fields win."""

    cleanPodPolicy: Optional[CleanPodPolicy] = None
    ttlSecondsAfterFinished: Optional[int] = None
    activeDeadlineSeconds: Optional[int] = None
    backoffLimit: Optional[int] = None


class MPIJobSpec(Model):
    slotsPerWorker: Optional[int] = None
    backoffLimit: Optional[int] = None
    activeDeadlineSeconds: Optional[int] = None
    cleanPodPolicy: Optional[CleanPodPolicy] = None
    mpiReplicaSpecs: dict[Literal["Launcher", "Worker"], ReplicaSpec]
    mainContainer: Optional[str] = None
    runPolicy: Optional[RunPolicy] = None
    mpiDistribution: Optional[MPIDistribution] = None


class GangScheduling(Model):
    """The operator's --gang-scheduling flag (which scheduler) and RunPolicy.schedulingPolicy
    (kubeflow/common, as v2beta1 passes it to the PodGroup)."""

    scheduler: GangScheduler
    schedulerName: str
    minAvailable: Optional[int] = None
    queue: Optional[str] = None
    scheduleTimeoutSeconds: Optional[int] = None


class Extensions(Model):
    """What the blueprint says beyond the v1alpha2 API that more than one target reads: the
    fields later operator APIs added (runLauncherAsWorker, schedulingPolicy), the cluster's
    gang scheduler and Kueue queue, and mpigen's own additions that name the job's objects
    (so that targets add them once the job's final name is known). What only one target
    reads, it reads in the blueprint's spec (MPIJob.source)."""

    gang: Optional[GangScheduling] = None
    queue: Optional[str] = None  # Kueue LocalQueue
    priorityClass: Optional[str] = None  # Kueue WorkloadPriorityClass
    topology: Optional[Topology] = None  # Kueue Topology Aware Scheduling of the rank pods
    multiKueue: bool = False
    runLauncherAsWorker: bool = False
    launchLine: bool = True  # the launcher runs mpigen's mpirun line (no launcherCommand of the blueprint's)
    rankEnv: bool = False  # PyTorch/DeepSpeed under mpirun: the rank-env.sh wrapper and MASTER_ADDR/PORT
    workerServiceAccountAnnotations: dict[str, str] = Field(default_factory=dict)  # creates <job>-worker


class MPIJob(Model):
    apiVersion: Literal["kubeflow.org/v1alpha2"] = V1ALPHA2
    kind: Literal["MPIJob"] = "MPIJob"
    metadata: ObjectMeta
    spec: MPIJobSpec
    extensions: Extensions = Field(default_factory=Extensions)
    # The blueprint's spec it was compiled from, for what only one target reads (its SSH
    # bootstrap, its runtime, how its launcher waits): the target's own, not the model's.
    source: Spec

    @property
    def workers(self) -> int:
        worker = self.spec.mpiReplicaSpecs.get(WORKER)
        return (worker.replicas or 0) if worker else 0

    @property
    def rank_hosts(self) -> int:
        return rank_hosts(self.workers, self.extensions.runLauncherAsWorker)

    @property
    def slots(self) -> int:
        return self.spec.slotsPerWorker if self.spec.slotsPerWorker is not None else 1

    @property
    def distribution(self) -> str:
        return self.spec.mpiDistribution or "OpenMPI"

    def effective_backoff_limit(self) -> Optional[int]:
        policy = self.spec.runPolicy
        if policy is not None and policy.backoffLimit is not None:
            return policy.backoffLimit
        return self.spec.backoffLimit

    def effective_active_deadline(self) -> Optional[int]:
        policy = self.spec.runPolicy
        if policy is not None and policy.activeDeadlineSeconds is not None:
            return policy.activeDeadlineSeconds
        return self.spec.activeDeadlineSeconds


def with_defaults(job: MPIJob) -> MPIJob:
    """SetDefaults_MPIJob: backoffLimit 6, cleanPodPolicy None, and the launcher's
    restartPolicy OnFailure unless it is Never. Nothing is defaulted for the worker."""
    spec = job.spec
    replicas = dict(spec.mpiReplicaSpecs)
    launcher = replicas.get(LAUNCHER)
    if launcher is not None and launcher.restartPolicy != "Never":
        replicas[LAUNCHER] = launcher.model_copy(update={"restartPolicy": "OnFailure"})
    update: dict[str, Any] = {"mpiReplicaSpecs": replicas}
    if spec.backoffLimit is None:
        update["backoffLimit"] = 6
    if spec.cleanPodPolicy is None:
        update["cleanPodPolicy"] = "None"
    return job.model_copy(update={"spec": spec.model_copy(update=update)})
