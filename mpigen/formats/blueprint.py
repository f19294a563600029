"""The blueprint format (apiVersion mpigen.dev/v1alpha1, kind MPIJobBlueprint).

This model is the single source of the format: validation, defaults and the published
JSON Schema (`mpigen schema`) all come from it. Checks that span several fields (name
length against the worker count, reserved names, ...) live in mpigen.validate.
"""

from typing import Annotated, Literal, Optional

from pydantic import ConfigDict, Field

from mpigen.formats.base import Model
from mpigen.formats.datasets import Dataset
from mpigen.formats.failure_policy import FailurePolicy
from mpigen.formats.network import Network
from mpigen.formats.placement import Placement
from mpigen.formats.pod_template_patch import PodTemplatePatch
from mpigen.formats.scheduling import Scheduling
from mpigen.formats.security import Security, ServiceAccount
from mpigen.formats.ssh import SSH
from mpigen.formats.trainer import Runtime
from mpigen.formats.types import Arg, EnvName, ImageReference, Int32, LabelKey, LabelValue, Quantity, ResourceName, RunName
from mpigen.kube.names import DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN

API_GROUP = "mpigen.dev"
API_VERSION = f"{API_GROUP}/v1alpha1"
BLUEPRINT_KIND = "MPIJobBlueprint"


class Metadata(Model):
    name: str = Field(
        pattern=DNS1035_LABEL, max_length=63,
        description="Job name, a DNS-1035 label. Objects are named after it (<name>-config, "
                    "<name>-launcher, <name>-worker); `<name>-worker-<workers-1>` must fit in 63 characters.",
        examples=["resnet50-imagenet"])
    namespace: str = Field(
        "default", pattern=DNS1123_LABEL, max_length=63,
        description="Namespace of every rendered object.", examples=["ml-team"])
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict,
        description="Added to every rendered object and pod template, never to selectors.",
        examples=[{"team": "vision"}])
    annotations: dict[LabelKey, str] = Field(
        default_factory=dict,
        description="Added to every rendered object and pod template.",
        examples=[{"owner": "vision@example.com"}])



class Resources(Model):
    worker: dict[ResourceName, Quantity] = Field(
        default_factory=dict,
        description="Resource limits of each worker's MPI container (requests default to the limits). "
                    "GPUs are set with gpusPerWorker, not here.",
        examples=[{"cpu": "16", "memory": "64Gi"}])
    launcher: dict[ResourceName, Quantity] = Field(
        default_factory=dict,
        description="Resource limits of the launcher container. The launcher never gets GPUs.",
        examples=[{"cpu": "1", "memory": "2Gi"}])


class RunPolicy(Model):
    cleanPodPolicy: Literal["None", "Running", "All"] = Field(
        "None", description="What the operator deletes when the job ends (the operator's default is None).")
    backoffLimit: int = Field(6, ge=0, le=1_000_000, description="Retries of the launcher Job.")
    activeDeadlineSeconds: Optional[int] = Field(
        None, ge=1, le=10**12, description="Wall-clock limit of the launcher Job, in seconds.", examples=[86400])
    ttlSecondsAfterFinished: Optional[Int32] = Field(
        None, ge=0,
        description="Seconds after which Kubernetes deletes the finished launcher Job. Only without a GitOps "
                    "profile: Argo CD and Flux would recreate the deleted Job and run it again.",
        examples=[3600])
    failurePolicy: Optional[FailurePolicy] = Field(
        None, description="Which failures end the job, which restart it counted against backoffLimit, which restart "
                          "it without counting, which are ignored (docs/blueprints.md, Failure policies). Default: "
                          "disruptions restart the job without counting (targets jobset and trainjob), every other "
                          "failure counts.")



class Launcher(Model):
    runAsWorker: bool = Field(
        False, description="The launcher also runs ranks, as one more worker (first in the hostfile, with the "
                           "workers' GPUs, shared memory and network): no CPU-only node is needed.")
    waitForWorkers: Optional[bool] = Field(
        None, description="Create the launcher only once every worker is ready (target mpijob v2beta1: "
                          "launcherCreationPolicy WaitForWorkersReady; the static target always waits, in its "
                          "kubectl-delivery init container). Default: true for IntelMPI and MPICH, else false.",
        examples=[True])



class Spec(Model):
    framework: Literal["horovod", "deepspeed", "pytorch", "tensorflow", "mxnet", "custom"] = Field(
        "custom", description="Chooses the mpirun flags the launcher gets (see the blueprint reference).")
    mpiImplementation: Literal["OpenMPI", "IntelMPI", "MPICH"] = Field(
        "OpenMPI", description="MPI implementation in the image: sets the hostfile format, the launcher "
                               "environment and the mpirun flags.")
    image: ImageReference = Field(
                       description="Container image of the launcher and the workers.",
                       examples=["horovod/horovod:0.28.1"])
    workers: int = Field(ge=1, le=100_000, description="Number of worker pods.", examples=[4])
    gpusPerWorker: int = Field(0, ge=0, le=1024, description="GPUs (or other accelerators) per worker.",
                               examples=[8])
    gpuResource: ResourceName = Field(
        "nvidia.com/gpu", description="Extended resource name of the accelerator.",
        examples=["nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "amd.com/gpu"])
    slotsPerWorker: Optional[int] = Field(
        None, ge=1, le=100_000,
        description="MPI slots (ranks) per worker. Default: gpusPerWorker when it is > 0, else 1.", examples=[8])
    command: Optional[list[Arg]] = Field(
        None, min_length=1,
        description="The program each rank runs. Required unless launcherCommand is given.",
        examples=[["python", "/examples/train.py", "--epochs", "90"]])
    mpirunArgs: list[Arg] = Field(
        default_factory=list, description="Extra mpirun flags, placed before the program.",
        examples=[["-x", "NCCL_DEBUG"]])
    launcherCommand: Optional[list[Arg]] = Field(
        None, min_length=1,
        description="Replaces the whole launcher command (no mpirun line is generated).",
        examples=[["/bin/sh", "-c", "mpirun -np 8 python train.py"]])
    env: dict[EnvName, str] = Field(
        default_factory=dict,
        description="Environment of the launcher and the workers, in this order, forwarded to every rank.",
        examples=[{"NCCL_DEBUG": "INFO"}])
    resources: Resources = Field(default_factory=Resources, description="Resource limits per role.")
    datasets: list[Dataset] = Field(default_factory=list,
                                    description="Volumes mounted at the same path on the launcher and every worker.")
    runPolicy: RunPolicy = Field(default_factory=RunPolicy, description="Job-level policies, as the operator's.")
    placement: Placement = Field(default_factory=Placement,
                                 description="Node selection per role: nodeSelector, tolerations, affinity, one pod "
                                             "per node, priority.")
    podTemplatePatch: PodTemplatePatch = Field(
        default_factory=PodTemplatePatch,
        description="Escape hatch: pod spec and MPI container fields the blueprint has no field for, applied "
                    "last as JSON merge patches (e.g. what `mpigen import` cannot map).")
    sharedMemory: Optional[Quantity] = Field(
        None, description="Size of /dev/shm in each rank pod (a memory-backed emptyDir, counted against the memory "
                          "limit; 0 turns it off). Default for GPU jobs: 1Gi per GPU, at most half the memory limit "
                          "of the rank pods; none for CPU jobs (the runtime's 64 MiB).", examples=["16Gi"])
    launcher: Launcher = Field(default_factory=Launcher, description="How the launcher takes part in the job.")
    network: Network = Field(default_factory=Network, description="Host network, RDMA devices, secondary networks.")
    scheduling: Scheduling = Field(default_factory=Scheduling, description="Gang scheduling and Kueue queueing.")
    security: Security = Field(default_factory=Security, description="Identity and privileges of the containers.")
    ssh: SSH = Field(default_factory=SSH,
                     description="Target jobset: how the launcher reaches the workers over SSH. Targets jobset and "
                                 "trainjob need OpenSSH in the image: the server at /usr/sbin/sshd, the client ssh "
                                 "and (jobset, unless keygenImage) ssh-keygen; the rendered scripts stop naming a "
                                 "missing one (docs/ssh.md).")
    runtime: Optional[Runtime] = Field(
        None, description="Target trainjob: the Kubeflow Trainer runtime the TrainJob references (default: "
                          "mpigen.yaml's trainingRuntime, else a TrainingRuntime mpigen writes from the blueprint).")
    imagePullSecrets: list[Annotated[str, Field(pattern=DNS1123_SUBDOMAIN, max_length=253)]] = Field(
        default_factory=list, description="Secrets (by name) for pulling the image from a private registry.",
        examples=[["registry-credentials"]])
    serviceAccount: ServiceAccount = Field(default_factory=ServiceAccount,
                                           description="The workers' Kubernetes identity (cloud IAM).")
    run: Optional[RunName] = Field(
        None, description="Run identity under a GitOps profile: change it (e.g. 1, 2, 3) to run the job again "
                          "with the same spec. Any change to what defines the run (image, command, workers, "
                          "GPUs, ...) starts a new run by itself.", examples=["2"])
    state: Literal["running", "held", "completed", "archived"] = Field(
        "running", description="Lifecycle in Git: running; held (a queued job created but kept from admission, "
                               "Kueue's admission-gated-by: needs spec.scheduling.queue; running releases it); "
                               "completed (the workers are scaled to 0 and release their GPUs; a queued job "
                               "renders nothing, as archived, since only deleting it stops it under Kueue); "
                               "archived (nothing is rendered, so the GitOps controller prunes the job's objects).")
    mainContainer: Optional[str] = Field(
        None, pattern=DNS1123_LABEL, max_length=63,
        description="Name of the MPI container in launcher and worker pods; kubexec.sh then runs "
                    "`kubectl exec --container <mainContainer>` (the operator's spec.mainContainer).",
        examples=["trainer"])

    @property
    def slots(self) -> int:
        if self.slotsPerWorker is not None:
            return self.slotsPerWorker
        return self.gpusPerWorker if self.gpusPerWorker > 0 else 1

    @property
    def rank_hosts(self) -> int:
        return rank_hosts(self.workers, self.launcher.runAsWorker)

    @property
    def wait_for_workers(self) -> bool:
        if self.launcher.waitForWorkers is not None:
            return self.launcher.waitForWorkers
        return self.mpiImplementation != "OpenMPI"


def rank_hosts(workers: int, launcher_runs_ranks: bool) -> int:
    """Pods that run ranks: the workers, and the launcher when it is one of them (the
    blueprint's spec.launcher.runAsWorker, the compiled job's runLauncherAsWorker)."""
    return workers + (1 if launcher_runs_ranks else 0)


class Blueprint(Model):
    """A job blueprint: what to run, on how many workers, with what data."""

    model_config = ConfigDict(title="MPIJobBlueprint",
                              json_schema_extra={"$id": "https://mpigen.dev/schemas/v1alpha1/mpijobblueprint.json"})

    apiVersion: Literal["mpigen.dev/v1alpha1"] = Field(description="Always mpigen.dev/v1alpha1.")
    kind: Literal["MPIJobBlueprint"] = Field(description="Always MPIJobBlueprint.")
    metadata: Metadata
    spec: Spec
